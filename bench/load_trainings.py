"""Load test of the training line (issue 21): N sessions start different trainings at the same moment.

``python -m bench.load_trainings [--sessions 10] [--mb 1.0] [--merges 3000] [--pattern none] [--max-trainings K]``

One ``streamlit run`` server (``testkit.app_server``); one headless Chromium with a context per session. Every
session opens the player with ``?merges=M&pattern=P``, switches the source to Upload, and when all are ready they
upload at once a text of their own (``--mb`` of Jane Austen from a different offset each, headed by
``Upload i: yyy``): N trainings asked for in the same second, against a line of ``--max-trainings`` slots
(default: the server's own, one per core). Each session then watches its page every 100 ms until its text
is in the player: the progress bar's text (its place in line while it waits: "next in line", "3rd in
line"), an error box or Streamlit's exception box. Meanwhile fresh pages are opened one after another in new
contexts (the app's home page, the sample already trained: what a student opening the link meets) and timed
to a ready player, and the server's training workers are counted every 50 ms.

Reported (also to ``bench/results/load_trainings.json``): per session the seconds to its trained run and
every place in line it was shown; errors; the most workers alive at once; each fresh page's seconds
(target ≤ 5 s throughout); the server tree's peak RSS.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import threading
import time
from pathlib import Path

from bench.harness import RESULTS, drop_favoured, favoured, start_server
from bench.load_session import HOST
from testkit import corpora
from testkit.app_server import CHROMIUM, CHROMIUM_ARGS, IDLE, PLAYER, children, conditions, stop_server, tree_rss_mb

BAR = ".st-key-player_progress [data-testid='stProgress']"
#: what a session reads from its page at each look
LOOK_JS = """([bar, host, mark]) => {
  const b = document.querySelector(bar);
  const tokens = document.querySelector(host)?.shadowRoot?.querySelector('.mp-tokens')?.textContent || '';
  const err = document.querySelector('.player-error');
  return {bar: b ? b.innerText : '', done: tokens.includes(mark),
          exception: document.querySelectorAll('[data-testid="stException"]').length,
          error: err ? err.innerText : ''};
}"""
#: the box the Upload source shows until its file is in (the upload's rerun replaces it)
WAITING_FOR_FILE = "Upload a .txt file to train on it"
PLACE = re.compile(r"(next|(\d[\d,]*)(?:st|nd|rd|th)) in line")


def upload_text(i: int, size_bytes: int) -> str:
    """Session ``i``'s text: its marker line, then ``size_bytes`` of Austen from an offset of its own."""
    body = corpora.english(size_bytes + 200_000 * 12)
    start = body.find("\n", 200_000 * i) + 1
    return f"Upload {i}: " + "y" * (i + 1) + "\n" + body[start : start + size_bytes]


def marker(i: int) -> str:
    return f"Upload·{i}:·" + "y" * (i + 1)


class Sampler(threading.Thread):
    """Every 50 ms: how many training workers the server has (children of its fork server), and its tree's RSS."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.halt = pid, threading.Event()
        self.max_workers, self.peak_rss, self.workers_seen = 0, tree_rss_mb(pid), []
        self.start()

    def workers(self) -> int:
        n = 0
        for child in children(self.pid):
            try:
                if b"zygote_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                    n += len(children(child))
            except OSError:
                pass
        return n

    def run(self) -> None:
        while not self.halt.wait(0.05):
            try:
                w = self.workers()
                self.max_workers = max(self.max_workers, w)
                self.workers_seen.append(w)
                self.peak_rss = max(self.peak_rss, tree_rss_mb(self.pid))
            except (OSError, ValueError):
                pass


async def session(browser, url: str, i: int, args, ready: asyncio.Barrier, text: str) -> dict:
    out: dict = {"session": i, "places": [], "bars": [], "errors": []}
    ctx = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await ctx.new_page()
    page.set_default_timeout(180_000)
    page.on("pageerror", lambda e: out["errors"].append(f"page error: {e}"))
    try:
        await page.goto(f"{url}/?merges={args.merges}&pattern={args.pattern}")
        await page.wait_for_selector(f'{PLAYER}[data-ready="1"]')
        await page.locator(".st-key-player_source label", has_text="Upload").click()
        await page.wait_for_selector(IDLE)
    except Exception as exc:  # noqa: BLE001
        out["errors"].append(f"setup: {type(exc).__name__}: {str(exc).splitlines()[0][:160]}")
    await ready.wait()  # every session uploads in the same moment
    t0 = time.perf_counter()
    out["t0"] = t0
    try:
        await page.set_input_files(
            ".st-key-player_upload input[type=file]",
            files=[{"name": f"session{i}.txt", "mimeType": "text/plain", "buffer": text.encode()}],
        )
        while time.perf_counter() - t0 < args.timeout:
            look = await page.evaluate(LOOK_JS, [BAR, HOST, marker(i)])
            if look["bar"] and (not out["bars"] or out["bars"][-1][1] != look["bar"]):
                out["bars"].append((round(time.perf_counter() - t0, 2), look["bar"]))
                m = PLACE.search(look["bar"])
                if m:
                    place = 1 if m[1] == "next" else int(m[2].replace(",", ""))
                    if not out["places"] or out["places"][-1] != place:
                        out["places"].append(place)
            if look["exception"] or (look["error"] and WAITING_FOR_FILE not in look["error"]):
                out["errors"].append(f"on the page: {look['error'] or 'an exception box'}")
                break
            if look["done"]:
                out["done_s"] = time.perf_counter() - t0
                break
            await asyncio.sleep(0.1)
        else:
            out["errors"].append(f"not trained within {args.timeout} s")
    except Exception as exc:  # noqa: BLE001
        out["errors"].append(f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}")
    await ctx.close()
    return out


async def fresh_pages(browser, url: str, until: asyncio.Event, t_ref: list) -> list[dict]:
    """Fresh pages one after another until ``until`` is set: seconds from the request to a ready player."""
    out = []
    while not until.is_set():
        ctx = await browser.new_context(viewport={"width": 1280, "height": 900})
        page = await ctx.new_page()
        t0 = time.perf_counter()
        row = {"at": round(t0 - t_ref[0], 2) if t_ref else None, "ready_s": float("inf")}
        try:
            await page.goto(url)
            row["load_s"] = round(time.perf_counter() - t0, 2)  # its HTML and scripts are in
            await page.wait_for_selector(f'{PLAYER}[data-ready="1"]', timeout=120_000)
            row["ready_s"] = round(time.perf_counter() - t0, 2)
        except Exception as exc:  # noqa: BLE001
            row["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
        await ctx.close()
        out.append(row)
        await asyncio.sleep(0.5)
    return out


async def launch(args, group: str, shares: int):
    """A Playwright driver and its Chromium, born in cpu cgroup ``group`` weighted ``shares`` (see
    ``testkit.app_server.favoured``; as they were when the cgroup cannot be made). Returns (playwright, browser,
    whether the cgroup was made)."""
    from playwright.async_api import async_playwright

    with favoured(group, shares) if args.cgroups else contextlib.nullcontext() as made:
        p = await async_playwright().start()  # the driver (and so its Chromium) starts in the group
    browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    return p, browser, made is not None


async def run(args) -> dict:
    env = {"BPE_LAB_MAX_TRAININGS": str(args.max_trainings)} if args.max_trainings else None
    proc, url = start_server("load_trainings_server.log", env=env)
    url = url.rstrip("/")
    texts = [upload_text(i, int(args.mb * 1_000_000)) for i in range(args.sessions)]
    drivers = []
    try:
        # The sessions' browsers stand for ten students' laptops and the fresh pages for one more: not the
        # server's. So the crowd's Chromium runs in a cgroup weighted below the server (--crowd-shares against
        # its 1,024), the fresh pages' in one weighted above everything (issue 21's target is the server's
        # answer, not this machine's browsers).
        p, browser, crowd_group = await launch(args, "bpe-lab-crowd", args.crowd_shares)
        drivers.append(p)
        q, probe_browser, probe_group = await launch(args, "bpe-lab-probe", 262144)
        drivers.append(q)
        warm = await browser.new_context()
        page = await warm.new_page()
        for link in (f"{url}/?merges={args.merges}&pattern={args.pattern}", url):  # the sample's runs, once
            await page.goto(link)
            await page.wait_for_selector(f'{PLAYER}[data-ready="1"]', timeout=120_000)
        await warm.close()
        before = await fresh_pages_once(probe_browser, url)
        ready = asyncio.Barrier(args.sessions + 1)
        sampler = Sampler(proc.pid)
        base_rss = tree_rss_mb(proc.pid)
        stop_fresh, t_ref = asyncio.Event(), []
        tasks = [asyncio.create_task(session(browser, url, i, args, ready, texts[i])) for i in range(args.sessions)]
        await ready.wait()
        t_ref.append(time.perf_counter())
        prober = asyncio.create_task(fresh_pages(probe_browser, url, stop_fresh, t_ref))
        rows = await asyncio.gather(*tasks)
        stop_fresh.set()
        fresh = await prober
        sampler.halt.set()
        sampler.join(5)
        await browser.close()
        await probe_browser.close()
    finally:
        for d in drivers:
            await d.stop()
        stop_server(proc)
        for group in ("bpe-lab-crowd", "bpe-lab-probe"):
            drop_favoured(group)
    slots = args.max_trainings or len(os.sched_getaffinity(0))
    for r in rows:
        r.pop("t0", None)
    report = {
        "conditions": conditions(),
        "sessions": args.sessions,
        "mb": args.mb,
        "merges": args.merges,
        "pattern": args.pattern,
        "slots": slots,
        "max_workers_seen": sampler.max_workers,
        "cgroups": {"crowd": crowd_group and args.crowd_shares, "probe": probe_group and 262144},
        "errors": sum(len(r["errors"]) for r in rows),
        "finished": sum(1 for r in rows if "done_s" in r),
        "shown_a_place": sum(1 for r in rows if r["places"]),
        "done_s": sorted(round(r["done_s"], 1) for r in rows if "done_s" in r),
        "fresh_before_s": before,
        "fresh_during_s": [f["ready_s"] for f in fresh],
        "fresh_worst_s": max([f["ready_s"] for f in fresh] or [float("nan")]),
        "rss_base_mb": round(base_rss),
        "rss_peak_mb": round(sampler.peak_rss),
        "rows": rows,
        "fresh": fresh,
    }
    return report


async def fresh_pages_once(browser, url: str) -> float:
    ctx = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await ctx.new_page()
    t0 = time.perf_counter()
    await page.goto(url)
    await page.wait_for_selector(f'{PLAYER}[data-ready="1"]', timeout=120_000)
    took = round(time.perf_counter() - t0, 2)
    await ctx.close()
    return took


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.load_trainings", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=10)
    ap.add_argument("--mb", type=float, default=1.0, help="MB of text each session uploads (default 1.0)")
    ap.add_argument("--merges", type=int, default=3000, help="merges each training learns (default 3000)")
    ap.add_argument(
        "--pattern",
        default="none",
        help="the pre-tokenizer of the link (default none: the whole text one chunk, the slower "
        "backend, so trainings of several seconds overlap)",
    )
    ap.add_argument(
        "--max-trainings",
        type=int,
        default=0,
        help="BPE_LAB_MAX_TRAININGS for the server (default: its own, one per core)",
    )
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds a session waits for its run")
    ap.add_argument(
        "--crowd-shares",
        type=int,
        default=256,
        help="cpu.shares of the sessions' Chromium (a process at nice 0 weighs 1,024; default 256)",
    )
    ap.add_argument(
        "--no-cgroups",
        dest="cgroups",
        action="store_false",
        help="run both browsers as they are (default: the crowd's in a cgroup below the server, the "
        "fresh pages' in one above; needs root and cgroup v1)",
    )
    args = ap.parse_args(argv)
    report = asyncio.run(run(args))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "load_trainings.json").write_text(json.dumps(report, indent=1, default=str))
    print(
        f"{report['sessions']} sessions, {report['mb']} MB and {report['merges']} merges each (pattern "
        f"{report['pattern']}), {report['slots']} "
        f"slots; {report['conditions']}"
    )
    for r in report["rows"]:
        print(
            f"  session {r['session']}: "
            + (f"trained in {r['done_s']:.1f} s" if "done_s" in r else "NOT trained")
            + f"; places shown {r['places'] or '-'}"
            + (f"; errors {r['errors']}" if r["errors"] else "")
        )
    print(
        f"errors {report['errors']}; finished {report['finished']}/{report['sessions']}; shown a place "
        f"{report['shown_a_place']}; most workers at once {report['max_workers_seen']} (slots {report['slots']})"
    )
    during = report["fresh_during_s"]
    print(
        f"fresh page before {report['fresh_before_s']} s; during ({len(during)}): {during}; worst "
        f"{report['fresh_worst_s']} s (target <= 5 s)"
    )
    print(
        "fresh pages during, (started at s, scripts in s, ready s):",
        [(f["at"], f.get("load_s"), f["ready_s"]) for f in report["fresh"]],
    )
    print(f"server tree RSS {report['rss_base_mb']} -> peak {report['rss_peak_mb']} MB; cgroups {report['cgroups']}")
    ok = (
        report["errors"] == 0
        and report["finished"] == report["sessions"]
        and report["max_workers_seen"] <= report["slots"]
        and report["fresh_worst_s"] <= 5
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
