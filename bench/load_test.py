"""Load test: a whole class opens the merge player at once, on one server process.

Starts ``streamlit run app.py`` on a loopback port and drives headless Chromium sessions (Debian's
``/usr/bin/chromium``; each a browser context = its own Streamlit session). First one session alone (the
baseline), then ``--sessions`` (default 30) at the same moment, in phases all sessions start together:

1. **load**: open the player, paste a text of its own (the English sample after a marker of its own), wait
   for training and for the player;
2. **step**: ``--steps`` times, click Step and time, in the page, (a) click -> the player's readout drawn
   (the browser alone), (b) click -> the Python panels (merges tab, link) showing that merge (the report
   waits 250 ms for more steps, then one rerun);
3. **play**: all play at 30 merges/s for ``--play`` seconds: merges drawn per second, websocket frames
   sent while playing (none expected), the server's CPU meanwhile;
4. **pause**: click Pause and time pause -> the Python panels showing the paused merge;
5. **isolation**: each session checks its own marker is in its text and no other session's is, and that
   its readout, panels and link show its own merge.

The server's CPU (``/proc/<pid>/stat``) is read per phase, the whole machine's too (30 headless browsers
on 2 cores saturate them: the server's share is reported apart, per session), and its RSS every half
second. Writes ``bench/results/load.json``. Run on demand: ``python -m bench.load_test [--sessions 30]``.
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

from bench.app_server import (CHROMIUM, CHROMIUM_ARGS, IDLE, PLAYER, RESULTS, ROOT, conditions, cpu_seconds,
                              machine_cpu, rss_mb, start_server, stop_server)

HOST = PLAYER.split(" .mp")[0]
STEP_JS = """async (k) => {
  const root = document.querySelector('%s').shadowRoot;
  const t0 = performance.now();
  root.querySelector('.mp-step').click();
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));    // the readout is drawn
  const shown = performance.now() - t0;
  if (+root.querySelector('.mp').dataset.merge !== k) return [shown, -1];
  while (performance.now() - t0 < 60000) {
    const tab = document.querySelector('[data-testid="stTab"]');
    const linked = new RegExp(`[?&]merge=${k}(&|$)`).test(location.search);
    if (tab && tab.innerText.startsWith(`Merges (${k.toLocaleString('en-US')})`) && linked) break;
    await new Promise(r => setTimeout(r, 10));
  }
  return [shown, performance.now() - t0];
}""" % HOST
PAUSE_JS = """async () => {
  const root = document.querySelector('%s').shadowRoot;
  const t0 = performance.now();
  root.querySelector('.mp-play').click();
  const k = +root.querySelector('.mp').dataset.merge;
  while (performance.now() - t0 < 60000) {
    const tab = document.querySelector('[data-testid="stTab"]');
    const linked = new RegExp(`[?&]merge=${k}(&|$)`).test(location.search);
    if (tab && tab.innerText.startsWith(`Merges (${k.toLocaleString('en-US')})`) && linked) break;
    await new Promise(r => setTimeout(r, 10));
  }
  return [k, performance.now() - t0];
}""" % HOST


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(round(q * (len(v) - 1))))]


class RssSampler(threading.Thread):
    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.samples, self.stop = pid, [], threading.Event()
        self.t0 = time.perf_counter()

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self.samples.append((round(time.perf_counter() - self.t0, 1), round(rss_mb(self.pid), 1)))
            except OSError:
                break
            self.stop.wait(0.5)


def session_text(i: int) -> str:
    base = (ROOT / "sample_texts" / "english.txt").read_text(encoding="utf-8")
    return f"Session {i}: " + "x" * (i + 1) + "\n" + base


def marker(i: int) -> str:
    """How the session's marker reads in the player's tokens (spaces drawn as ·)."""
    return f"Session·{i}:·" + "x" * (i + 1)


class Phases:
    """The coordinator and the sessions meet at each phase boundary; the coordinator reads the server's
    and the machine's CPU there."""

    def __init__(self, n: int, pid: int):
        self.barrier = asyncio.Barrier(n + 1)
        self.pid = pid
        self.marks: list[tuple[str, float, float, float, float]] = []

    async def meet(self) -> None:
        await self.barrier.wait()

    def mark(self, name: str) -> None:
        busy, total = machine_cpu()
        self.marks.append((name, time.perf_counter(), cpu_seconds(self.pid), busy, total))


def failed(out: dict, phase: str, exc: Exception) -> bool:
    """Note what went wrong in a phase (the report counts it); the session sits the next phases out."""
    out["errors"].append(f"{phase}: {type(exc).__name__}: {str(exc).splitlines()[0][:160]}")
    return False


async def one_session(browser, url: str, i: int, steps: int, play_seconds: float, phases: Phases) -> dict:
    out: dict = {"session": i, "errors": [], "shown_ms": [], "panels_ms": [], "isolation_ok": True}
    ctx = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await ctx.new_page()
    page.set_default_timeout(180_000)
    page.on("pageerror", lambda e: out["errors"].append(f"page error: {e}"))
    sent: list[float] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda f: sent.append(time.perf_counter())))
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
        await page.wait_for_function(
            "([host, m]) => (document.querySelector(host)?.shadowRoot?.querySelector('.mp-tokens')?.textContent"
            " || '').includes(m)", arg=[HOST, marker(i)])
        await page.wait_for_selector(IDLE)
        out["load_s"] = time.perf_counter() - t0
    except Exception as exc:
        ok = failed(out, "load", exc)
    await phases.meet()                                       # 2. step
    try:
        if ok:
            for k in range(1, steps + 1):
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
    await asyncio.sleep(play_seconds)
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
            # 5. isolation: its own text and merge, everywhere
            text = await page.locator(f"{PLAYER} .mp-tokens").text_content()
            others = [j for j in range(64) if j != i and marker(j) in text]
            readout = int(await page.get_attribute(PLAYER, "data-merge"))
            tab = await page.locator('[data-testid="stTab"]').first.inner_text()
            problems = [what for what, bad in (
                ("its text is not shown", marker(i) not in text), (f"other texts shown: {others}", others),
                (f"readout {readout} != paused {k}", readout != k),
                (f"panels show {tab!r}", not tab.startswith(f"Merges ({k:,})")),
                (f"link {page.url}", re.search(rf"[?&]merge={k}(&|$)", page.url) is None)) if bad]
            if problems:
                out["isolation_ok"] = False
                out["isolation"] = problems
            if await page.locator('[data-testid="stException"]').count():
                out["errors"].append("an exception box on the page")
    except Exception as exc:
        out["isolation_ok"] = failed(out, "pause", exc)
    await phases.meet()                                       # done
    await ctx.close()
    return out


async def run_round(url: str, pid: int, n: int, steps: int, play_seconds: float) -> tuple[list[dict], list]:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        phases = Phases(n, pid)
        tasks = [asyncio.create_task(one_session(browser, url, i, steps, play_seconds, phases)) for i in range(n)]
        for name in ("load", "step", "play", "pause", "end"):
            await phases.meet()        # everyone finished the phase before: the next one starts
            phases.mark(name)
        results = await asyncio.gather(*tasks)
        await browser.close()
    return list(results), phases.marks


def phase_cpu(marks) -> dict:
    out = {}
    for (name, t0, c0, b0, m0), (_, t1, c1, b1, m1) in zip(marks, marks[1:]):
        out[name] = {"seconds": t1 - t0, "server_cpu_s": c1 - c0, "machine_busy": (b1 - b0) / max(1e-9, m1 - m0)}
    return out


def summary(name: str, rows: list[dict], cpu: dict, n: int) -> dict:
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
        "play_server_cpu_per_session_s": play["server_cpu_s"] / n / play["seconds"],
        "play_machine_busy": play["machine_busy"],
        "step_server_cpu_per_session": cpu["step"]["server_cpu_s"] / n,
        "load_server_cpu_per_session": cpu["load"]["server_cpu_s"] / n,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=30)
    ap.add_argument("--steps", type=int, default=8, help="step clicks per session")
    ap.add_argument("--play", type=float, default=8.0, help="seconds of play per session")
    args = ap.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(f"{CHROMIUM} is missing: apt-get install chromium", file=sys.stderr)
        return 2
    print("Load test of the merge player.", conditions())
    server, url = start_server("load-server.log")
    sampler = RssSampler(server.pid)
    sampler.start()
    try:
        single, marks1 = asyncio.run(run_round(url, server.pid, 1, args.steps, args.play))
        rss_single = rss_mb(server.pid)
        many, marks_n = asyncio.run(run_round(url, server.pid, args.sessions, args.steps, args.play))
        time.sleep(2)
        rss_after = rss_mb(server.pid)
    finally:
        sampler.stop.set()
        stop_server(server)
    one = summary("1 session", single, phase_cpu(marks1), 1)
    all_ = summary(f"{args.sessions} sessions", many, phase_cpu(marks_n), args.sessions)
    print(f"\n{'':<13} {'errors':>6} {'isolated':>8} {'step→readout ms':>16} {'step→panels ms':>15} "
          f"{'pause→panels ms':>16} {'drawn/s':>8} {'sent while playing':>18} {'load p95 s':>10}")
    for s in (one, all_):
        print(f"{s['name']:<13} {s['errors']:>6} {'yes' if s['isolated'] else 'NO':>8} "
              f"{s['shown_p50']:>7.0f} / {s['shown_p95']:<6.0f} {s['panels_p50']:>6.0f} / {s['panels_p95']:<6.0f} "
              f"{s['pause_p50']:>7.0f} / {s['pause_p95']:<6.0f} {s['drawn_per_s']:>8.1f} {s['sent_while_playing']:>18} "
              f"{s['load_s_p95']:>10.1f}")
    print("(p50 / p95; step→panels includes the player's 250 ms wait for more steps before it reports)")
    print("\nServer process (one Python process for every session):")
    for s in (one, all_):
        print(f"  {s['name']:<13} while playing: {s['play_server_cpu_per_session_s'] * 1000:.1f} ms of CPU per "
              f"session per second (machine busy {s['play_machine_busy'] * 100:.0f}%); per session: "
              f"{s['load_server_cpu_per_session']:.2f} s to load and train, {s['step_server_cpu_per_session']:.2f} s "
              f"for {args.steps} steps")
    peak = max(v for _, v in sampler.samples) if sampler.samples else float("nan")
    print(f"  RSS: start {sampler.samples[0][1]:.0f} MB, after one session {rss_single:.0f} MB, peak {peak:.0f} MB, "
          f"after the load {rss_after:.0f} MB")
    ratio_shown = all_["shown_p95"] / one["shown_p95"]
    ratio_panels = all_["panels_p95"] / one["panels_p95"]
    print(f"\np95 {args.sessions} sessions / one session: step→readout {ratio_shown:.1f}x, step→panels "
          f"{ratio_panels:.1f}x, pause→panels {all_['pause_p95'] / one['pause_p95']:.1f}x (target <= 2x)")
    load = os.getloadavg()
    print(f"load average at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}. {args.sessions} headless browsers "
          "share the machine's cores with the server: browser-side times include that contention.")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "load.json").write_text(json.dumps(
        {"conditions": conditions(), "single": single, "many": many, "summary": [one, all_],
         "phases": {"single": phase_cpu(marks1), "many": phase_cpu(marks_n)}, "rss": sampler.samples,
         "rss_after": rss_after}, indent=1))
    ok = all_["errors"] == 0 and all_["isolated"] and all_["sent_while_playing"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
