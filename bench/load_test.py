"""Load test: a whole class opens the merge player at once — on one server process, and through the nginx
front (``deploy/``) with two.

For each front (``--fronts process nginx``, default both): one session alone (the baseline), then
``--sessions`` (default 30) at the same moment, each a headless Chromium context (Debian's
``/usr/bin/chromium``) = its own Streamlit session, in phases all sessions start together:

1. **load**: open the player, paste a text of its own (the English sample after a marker of its own), wait
   for training and for the player;
2. **step**: ``--steps`` times, click Step and time, in the page, (a) click -> the player's readout drawn
   (the browser alone), (b) click -> the Python panels (merges tab, link) showing that merge (the report
   waits 250 ms for more steps, then one rerun);
3. **play**: all play at 30 merges/s for ``--play`` seconds: merges drawn per second, websocket frames
   sent while playing (none expected), the server's CPU meanwhile; meanwhile a **fresh page** (a new
   browser context) is opened and timed to a ready player;
4. **pause**: click Pause and time pause -> the Python panels showing the paused merge; the session checks
   its text, readout, panels and link are its own (isolation);
5. **settings**: change "Merges to learn" (a number of its own) and time it to a player with that many merges;
6. **upload**: upload a text file of its own and time it to its tokens in the player; then isolation again
   (its upload's marker and merge count, nobody else's).

The servers' CPU (``/proc``: the Streamlit processes and their training workers) is read per phase, the
whole machine's too (30 headless browsers on 2 cores saturate them: the servers' share is reported apart,
per session), and their RSS every half second. The browsers run at ``--browser-nice`` (default 19): in a
lecture they run on the students' laptops, so here they take only the CPU the servers leave. Writes ``bench/results/load.json``. Run on demand:
``python -m bench.load_test [--sessions 30] [--fronts process nginx]``.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import threading
import time
from pathlib import Path

from bench.app_server import (CHROMIUM, CHROMIUM_ARGS, IDLE, PLAYER, RESULTS, ROOT, Deployment, conditions,
                              machine_cpu, niced_chromium, start_server, stop_server, tree_cpu_seconds, tree_rss_mb)

HOST = PLAYER.split(" .mp")[0]
#: waits (up to 60 s from t0) until Python's panels and the link show merge k
PANELS_AT = """const panelsAt = async (k, t0) => {
  while (performance.now() - t0 < 60000) {
    const tab = document.querySelector('[data-testid="stTab"]');
    const linked = new RegExp(`[?&]merge=${k}(&|$)`).test(location.search);
    if (tab && tab.innerText.startsWith(`Merges (${k.toLocaleString('en-US')})`) && linked) return;
    await new Promise(r => setTimeout(r, 10));
  }
};
"""
STEP_JS = """async (k) => {
  %s
  const root = document.querySelector('%s').shadowRoot;
  const t0 = performance.now();
  root.querySelector('.mp-step').click();
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));    // the readout is drawn
  const shown = performance.now() - t0;
  if (+root.querySelector('.mp').dataset.merge !== k) return [shown, -1];
  await panelsAt(k, t0);
  return [shown, performance.now() - t0];
}""" % (PANELS_AT, HOST)
PAUSE_JS = """async () => {
  %s
  const root = document.querySelector('%s').shadowRoot;
  const t0 = performance.now();
  root.querySelector('.mp-play').click();
  const k = +root.querySelector('.mp').dataset.merge;
  await panelsAt(k, t0);
  return [k, performance.now() - t0];
}""" % (PANELS_AT, HOST)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(round(q * (len(v) - 1))))]


class Front:
    """What the sessions talk to: ``url``, the Streamlit processes' ``pids``, ``stop()``."""

    def __init__(self, kind: str, processes: int):
        self.kind = kind
        if kind == "process":
            self._proc, self.url = start_server("load-server.log")
            self.pids = [self._proc.pid]
            self.name = "one process"
        else:
            self._deploy = Deployment(processes, RESULTS / "load-deploy")
            self.url, self.pids = self._deploy.url, self._deploy.pids
            self.name = f"nginx + {processes} processes"

    def cpu(self) -> float:
        return sum(tree_cpu_seconds(p) for p in self.pids)

    def rss(self) -> float:
        return sum(tree_rss_mb(p) for p in self.pids)

    def stop(self) -> None:
        stop_server(self._proc) if self.kind == "process" else self._deploy.stop()


class RssSampler(threading.Thread):
    def __init__(self, front: Front):
        super().__init__(daemon=True)
        self.front, self.samples, self.stop = front, [], threading.Event()
        self.t0 = time.perf_counter()

    def run(self) -> None:
        while not self.stop.is_set():
            self.samples.append((round(time.perf_counter() - self.t0, 1), round(self.front.rss(), 1)))
            self.stop.wait(0.5)


def session_text(i: int) -> str:
    base = (ROOT / "sample_texts" / "english.txt").read_text(encoding="utf-8")
    return f"Session {i}: " + "x" * (i + 1) + "\n" + base


def marker(i: int, what: str = "Session", fill: str = "x") -> str:
    """How the session's marker reads in the player's tokens (spaces drawn as ·)."""
    return f"{what}·{i}:·" + fill * (i + 1)


def upload_text(i: int) -> str:
    return session_text(i).replace(f"Session {i}: " + "x" * (i + 1), f"Upload {i}: " + "y" * (i + 1), 1)


def merges_for(i: int) -> int:
    return 100 + i


class Phases:
    """The coordinator and the sessions meet at each phase boundary; the coordinator reads the servers'
    and the machine's CPU there."""

    NAMES = ("load", "step", "play", "pause", "settings", "upload", "end")

    def __init__(self, n: int, front: Front):
        self.barrier = asyncio.Barrier(n + 1)
        self.front = front
        self.marks: list[tuple[str, float, float, float, float]] = []

    async def meet(self) -> None:
        await self.barrier.wait()

    def mark(self, name: str) -> None:
        busy, total = machine_cpu()
        self.marks.append((name, time.perf_counter(), self.front.cpu(), busy, total))


def failed(out: dict, phase: str, exc: Exception) -> bool:
    """Note what went wrong in a phase (the report counts it); the session sits the next phases out."""
    out["errors"].append(f"{phase}: {type(exc).__name__}: {str(exc).splitlines()[0][:160]}")
    return False


TOKENS_JS = "h => document.querySelector(h)?.shadowRoot?.querySelector('.mp-tokens')?.textContent || ''"
STATUS_JS = "h => document.querySelector(h)?.shadowRoot?.querySelector('.mp-status')?.textContent || ''"


async def shows(page, text: str) -> None:
    await page.wait_for_function(f"([h, m]) => ({TOKENS_JS})(h).includes(m)", arg=[HOST, text])


async def isolation(page, i: int, mark: str, others: list[str], k: int | None, n: int | None) -> list[str]:
    """What is wrong with what this session sees (nothing: [])."""
    text = await page.evaluate(TOKENS_JS, HOST)
    status = await page.evaluate(STATUS_JS, HOST)
    readout = int(await page.get_attribute(PLAYER, "data-merge"))
    tab = await page.locator('[data-testid="stTab"]').first.inner_text()
    seen = [m for m in others if m in text]
    checks = [("its text is not shown", mark not in text), (f"other texts shown: {seen}", seen)]
    if k is not None:
        checks += [(f"readout {readout} != paused {k}", readout != k),
                   (f"panels show {tab!r}", not tab.startswith(f"Merges ({k:,})")),
                   (f"link {page.url}", re.search(rf"[?&]merge={k}(&|$)", page.url) is None)]
    if n is not None:
        checks.append((f"status {status!r} is not a run of {n} merges", f"/ {n:,}" not in status))
    if await page.locator('[data-testid="stException"]').count():
        checks.append(("an exception box on the page", True))
    return [what for what, bad in checks if bad]


async def one_session(browser, url: str, i: int, args, phases: Phases) -> dict:
    out: dict = {"session": i, "errors": [], "shown_ms": [], "panels_ms": [], "isolation_ok": True}
    ctx = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await ctx.new_page()
    page.set_default_timeout(180_000)
    page.on("pageerror", lambda e: out["errors"].append(f"page error: {e}"))
    sent: list[float] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda f: sent.append(time.perf_counter())))
    others = [marker(j) for j in range(64) if j != i] + [marker(j, "Upload", "y") for j in range(64) if j != i]
    ok = True
    try:
        await phases.meet()                                   # 1. load
        t0 = time.perf_counter()
        await page.goto(url)
        await page.wait_for_selector(f'{PLAYER}[data-ready="1"]')
        await page.locator(".st-key-player_source label", has_text="Paste").click()
        await page.wait_for_selector(IDLE)
        area = page.locator(".st-key-player_paste textarea")
        await area.fill(session_text(i))
        await area.press("Control+Enter")
        await shows(page, marker(i))
        await page.wait_for_selector(IDLE)
        out["load_s"] = time.perf_counter() - t0
    except Exception as exc:
        ok = failed(out, "load", exc)
    await phases.meet()                                       # 2. step
    try:
        if ok:
            for k in range(1, args.steps + 1):
                shown, panels = await page.evaluate(STEP_JS, k)
                if panels < 0:
                    out["errors"].append(f"step {k}: the readout did not move")
                    break
                out["shown_ms"].append(shown)
                out["panels_ms"].append(panels)
            await page.select_option(f"{PLAYER} .mp-speed select", "30")
            await page.wait_for_timeout(600)
            await page.wait_for_selector(IDLE)
    except Exception as exc:
        ok = failed(out, "step", exc)
    await phases.meet()                                       # 3. play
    try:
        if ok:
            await page.locator(f"{PLAYER} .mp-play").click()
            t_play = time.perf_counter()
    except Exception as exc:
        ok = failed(out, "play", exc)
    await asyncio.sleep(args.play)
    await phases.meet()                                       # 4. pause
    try:
        if ok:
            d = await page.locator(PLAYER).evaluate("e => ({...e.dataset})")
            played = time.perf_counter() - t_play
            out["sent_while_playing"] = sum(1 for t in sent if t_play < t < t_play + played)
            out["drawn_per_s"] = int(d.get("drawn") or 0) / played
            out["advanced_per_s"] = int(d.get("advanced") or 0) / played
            k, out["pause_ms"] = await page.evaluate(PAUSE_JS)
            out["paused_at"] = k
            problems = await isolation(page, i, marker(i), others, k, None)
            if problems:
                out["isolation_ok"], out["isolation"] = False, problems
    except Exception as exc:
        ok = out["isolation_ok"] = failed(out, "pause", exc)
    await phases.meet()                                       # 5. settings
    try:
        if ok:
            t0 = time.perf_counter()
            box = page.locator(".st-key-player_merges input")
            await box.fill(str(merges_for(i)))
            await box.press("Enter")
            await page.wait_for_function(f"([h, s]) => ({STATUS_JS})(h).includes(s)",
                                         arg=[HOST, f"/ {merges_for(i):,}"])
            await page.wait_for_selector(IDLE)
            out["settings_s"] = time.perf_counter() - t0
    except Exception as exc:
        ok = failed(out, "settings", exc)
    await phases.meet()                                       # 6. upload
    try:
        if ok:
            t0 = time.perf_counter()
            await page.locator(".st-key-player_source label", has_text="Upload").click()
            await page.wait_for_selector(IDLE)
            await page.set_input_files(".st-key-player_upload input[type=file]", files=[{
                "name": f"session{i}.txt", "mimeType": "text/plain", "buffer": upload_text(i).encode()}])
            await shows(page, marker(i, "Upload", "y"))
            await page.wait_for_selector(IDLE)
            out["upload_s"] = time.perf_counter() - t0
            problems = await isolation(page, i, marker(i, "Upload", "y"), others, None, merges_for(i))
            if problems:
                out["isolation_ok"], out["isolation"] = False, out.get("isolation", []) + problems
    except Exception as exc:
        out["isolation_ok"] = failed(out, "upload", exc)
    await phases.meet()                                       # done
    await ctx.close()
    return out


async def fresh_page(browser, url: str, delay: float) -> float:
    """Seconds from opening the app in a new context to a ready player (while the others play)."""
    await asyncio.sleep(delay)
    ctx = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await ctx.new_page()
    t0 = time.perf_counter()
    try:
        await page.goto(url)
        await page.wait_for_selector(f'{PLAYER}[data-ready="1"]', timeout=120_000)
        return time.perf_counter() - t0
    except Exception:
        return float("inf")
    finally:
        await ctx.close()


async def run_round(front: Front, n: int, args) -> tuple[list[dict], list, float]:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=niced_chromium(args.browser_nice), headless=True,
                                          args=CHROMIUM_ARGS)
        phases = Phases(n, front)
        tasks = [asyncio.create_task(one_session(browser, front.url, i, args, phases)) for i in range(n)]
        fresh = float("nan")
        for name in Phases.NAMES:
            await phases.meet()        # everyone finished the phase before: the next one starts
            phases.mark(name)
            if name == "play":
                fresh = await fresh_page(browser, front.url, min(2.0, args.play / 4))
        results = await asyncio.gather(*tasks)
        await browser.close()
    return list(results), phases.marks, fresh


def phase_cpu(marks) -> dict:
    out = {}
    for (name, t0, c0, b0, m0), (_, t1, c1, b1, m1) in zip(marks, marks[1:]):
        out[name] = {"seconds": t1 - t0, "server_cpu_s": c1 - c0, "machine_busy": (b1 - b0) / max(1e-9, m1 - m0)}
    return out


def summary(name: str, rows: list[dict], cpu: dict, n: int, fresh: float) -> dict:
    shown = [x for r in rows for x in r["shown_ms"]]
    panels = [x for r in rows for x in r["panels_ms"]]
    pauses = [r["pause_ms"] for r in rows if "pause_ms" in r]
    play = cpu["play"]
    return {
        "name": name, "sessions": n, "errors": sum(len(r["errors"]) for r in rows),
        "isolated": all(r["isolation_ok"] for r in rows),
        "shown_p50": pct(shown, .5), "shown_p95": pct(shown, .95),
        "panels_p50": pct(panels, .5), "panels_p95": pct(panels, .95),
        "pause_p50": pct(pauses, .5), "pause_p95": pct(pauses, .95),
        "drawn_per_s": statistics.mean([r.get("drawn_per_s", 0) for r in rows]),
        "advanced_per_s": statistics.mean([r.get("advanced_per_s", 0) for r in rows]),
        "sent_while_playing": sum(r.get("sent_while_playing", 0) for r in rows),
        "load_s_p95": pct([r["load_s"] for r in rows if "load_s" in r], .95),
        "settings_s_p95": pct([r["settings_s"] for r in rows if "settings_s" in r], .95),
        "upload_s_p95": pct([r["upload_s"] for r in rows if "upload_s" in r], .95),
        "fresh_page_s": fresh,
        "play_server_cpu_per_session_s": play["server_cpu_s"] / n / play["seconds"],
        "play_machine_busy": play["machine_busy"],
        "step_server_cpu_per_session": cpu["step"]["server_cpu_s"] / n,
        "load_server_cpu_per_session": cpu["load"]["server_cpu_s"] / n,
    }


def run_front(kind: str, args) -> dict:
    front = Front(kind, args.processes)
    print(f"\n== {front.name} ({front.url})")
    sampler = RssSampler(front)
    sampler.start()
    try:
        single, marks1, fresh1 = asyncio.run(run_round(front, 1, args))
        rss_single = front.rss()
        many, marks_n, fresh_n = asyncio.run(run_round(front, args.sessions, args))
        time.sleep(2)
        rss_after = front.rss()
    finally:
        sampler.stop.set()
        front.stop()
    one = summary("1 session", single, phase_cpu(marks1), 1, fresh1)
    all_ = summary(f"{args.sessions} sessions", many, phase_cpu(marks_n), args.sessions, fresh_n)
    print(f"{'':<12} {'errors':>6} {'isolated':>8} {'step→readout ms':>16} {'step→panels ms':>15} "
          f"{'pause→panels ms':>16} {'drawn/s':>7} {'ws sent playing':>15} {'p95 s: load':>11} "
          f"{'settings':>8} {'upload':>6} {'fresh page s':>12}")
    for s in (one, all_):
        print(f"{s['name']:<12} {s['errors']:>6} {'yes' if s['isolated'] else 'NO':>8} "
              f"{s['shown_p50']:>7.0f} / {s['shown_p95']:<6.0f} {s['panels_p50']:>6.0f} / {s['panels_p95']:<6.0f} "
              f"{s['pause_p50']:>7.0f} / {s['pause_p95']:<6.0f} {s['drawn_per_s']:>7.1f} "
              f"{s['sent_while_playing']:>15} {s['load_s_p95']:>11.1f} {s['settings_s_p95']:>8.1f} "
              f"{s['upload_s_p95']:>6.1f} {s['fresh_page_s']:>12.1f}")
    print("(p50 / p95; step→panels includes the player's 250 ms wait for more steps before it reports)")
    for s in (one, all_):
        print(f"  servers, {s['name']:<12} while playing (a fresh page loads meanwhile): {s['play_server_cpu_per_session_s'] * 1000:.1f} ms of CPU "
              f"per session per second (machine busy {s['play_machine_busy'] * 100:.0f}%); per session: "
              f"{s['load_server_cpu_per_session']:.2f} s to load and train, {s['step_server_cpu_per_session']:.2f} s "
              f"for {args.steps} steps")
    peak = max(v for _, v in sampler.samples) if sampler.samples else float("nan")
    print(f"  servers' RSS: start {sampler.samples[0][1]:.0f} MB, after one session {rss_single:.0f} MB, "
          f"peak {peak:.0f} MB, after the load {rss_after:.0f} MB")
    ratios = {k: all_[f"{k}_p95"] / one[f"{k}_p95"] for k in ("shown", "panels", "pause")}
    print(f"  p95 {args.sessions} sessions / one session: step→readout {ratios['shown']:.1f}x, step→panels "
          f"{ratios['panels']:.1f}x, pause→panels {ratios['pause']:.1f}x (target <= 2x); fresh page "
          f"{all_['fresh_page_s']:.1f} s (target <= 5 s)")
    return {"front": front.name, "single": single, "many": many, "summary": [one, all_], "ratios": ratios,
            "phases": {"single": phase_cpu(marks1), "many": phase_cpu(marks_n)}, "rss": sampler.samples,
            "rss_after": rss_after}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=30)
    ap.add_argument("--steps", type=int, default=8, help="step clicks per session")
    ap.add_argument("--play", type=float, default=8.0, help="seconds of play per session")
    ap.add_argument("--fronts", nargs="+", choices=("process", "nginx"), default=["process", "nginx"])
    ap.add_argument("--processes", type=int, default=2, help="Streamlit processes behind nginx")
    ap.add_argument("--browser-nice", type=int, default=19,
                    help="run the browsers at this niceness (default 19; 0: as the servers). In a lecture the "
                         "browsers run on the students' machines: on this one they must not starve the servers")
    args = ap.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(f"{CHROMIUM} is missing: apt-get install chromium", file=sys.stderr)
        return 2
    print("Load test of the merge player.", conditions(), f"Browsers at nice {args.browser_nice}.")
    fronts = [run_front(kind, args) for kind in args.fronts]
    load = os.getloadavg()
    print(f"\nload average at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}. {args.sessions} headless browsers "
          f"share the machine's cores with the servers (at nice {args.browser_nice}): browser-side times include "
          "that contention.")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "load.json").write_text(json.dumps({"conditions": conditions(), "fronts": fronts}, indent=1))
    ok = all(f["summary"][1]["errors"] == 0 and f["summary"][1]["isolated"]
             and f["summary"][1]["sent_while_playing"] == 0 for f in fronts)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
