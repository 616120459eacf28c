"""Load test: a whole class opens the merge player at once.

Starts ``streamlit run app.py`` on a free loopback port, then drives headless Chromium sessions (Debian's
``/usr/bin/chromium``, each its own browser context = its own Streamlit session):

1. one session alone (the baseline), then ``--sessions`` (default 10) at the same moment;
2. each session pastes its own text (a sample plus a session marker of its own length), waits for
   training, clicks ``step`` ``--steps`` times measuring click -> ``Merge k / N`` readout latency, then
   plays for ``--play`` seconds and counts the merges the browser showed;
3. every session checks it sees only its own state: its own marker in the token spans, its own step;
4. the server's RSS is sampled every half second throughout.

Reports p50/p95 step latency per session against the single session, play rate, errors and RSS over
time, and writes ``bench/results/load.json``. Traffic goes to 127.0.0.1 only; every loop is bounded.

Run on demand (not in CI): ``python -m bench.load_test [--sessions 10]``.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
STATUS = ".st-key-step_status"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int) -> subprocess.Popen:
    RESULTS.mkdir(parents=True, exist_ok=True)
    log = open(RESULTS / "load-server.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.address",
         "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
        env=dict(os.environ, BPE_LAB_TIMING="1"))
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError("the server did not start")


def server_frames_ms(offset: int) -> tuple[list[float], int]:
    """Server-side player frame times logged since ``offset`` (BPE_LAB_TIMING=1), and the new offset."""
    log = RESULTS / "load-server.log"
    data = log.read_bytes()
    found = re.findall(rb"player frame: step \d+ in ([\d.]+) ms", data[offset:])
    return [float(x) for x in found], len(data)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(round(q * (len(v) - 1))))]


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


class RssSampler(threading.Thread):
    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.samples, self.stop = pid, [], threading.Event()
        self.t0 = time.perf_counter()

    def run(self) -> None:
        while not self.stop.is_set():
            self.samples.append((round(time.perf_counter() - self.t0, 1), round(rss_mb(self.pid), 1)))
            self.stop.wait(0.5)


def session_text(i: int) -> str:
    base = (ROOT / "sample_texts" / "english.txt").read_text(encoding="utf-8")
    # A marker of its own at the start: the token spans show whose text a session is looking at.
    return f"Session {i}: " + "x" * (i + 1) + "\n" + base


def marker(i: int) -> str:
    """How the session's marker reads in the token spans (spaces drawn as ·)."""
    return f"Session·{i}:·" + "x" * (i + 1) + "↵"


async def merge_index(page) -> int | None:
    text = await page.locator(STATUS).first.inner_text()
    m = re.search(r"Merge\s+([\d,]+)\s*/", text)
    return int(m.group(1).replace(",", "")) if m else None


async def wait_idle(page, timeout=60_000) -> None:
    await page.wait_for_timeout(100)
    await page.wait_for_selector(IDLE, timeout=timeout)


async def one_session(browser, url: str, i: int, steps: int, play_seconds: float, start: asyncio.Event) -> dict:
    out: dict = {"session": i, "errors": [], "latencies_ms": [], "play_merges": 0, "isolation_ok": True}
    ctx = await browser.new_context(viewport={"width": 1400, "height": 2000})
    page = await ctx.new_page()
    page.set_default_timeout(60_000)
    page.on("pageerror", lambda e: out["errors"].append(f"page error: {e}"))
    try:
        await start.wait()
        t0 = time.perf_counter()
        await page.goto(url)
        await page.wait_for_selector(STATUS)
        await wait_idle(page)
        out["first_load_s"] = time.perf_counter() - t0
        text = session_text(i)
        await page.locator(".st-key-player_source label", has_text="Paste").click()
        await wait_idle(page)
        area = page.locator(".st-key-player_paste textarea")
        await area.fill(text)
        await area.press("Control+Enter")
        await wait_idle(page)
        await page.wait_for_function(
            "m => (document.querySelector('.st-key-player_spans')?.innerText || '').includes(m)",
            arg=marker(i), timeout=60_000)
        out["trained_s"] = time.perf_counter() - t0
        # Steps: click -> readout shows the next merge
        for _ in range(steps):
            before = await merge_index(page)
            t = time.perf_counter()
            await page.locator(".st-key-step button").first.click()
            await page.wait_for_function(
                "([sel, k]) => { const m = document.querySelector(sel)?.innerText.match(/Merge\\s+([\\d,]+)/);"
                " return m && parseInt(m[1].replace(/,/g, '')) === k; }",
                arg=[STATUS, (before or 0) + 1], timeout=30_000, polling=10)
            out["latencies_ms"].append((time.perf_counter() - t) * 1000)
        # Isolation: this session's readout still names its own text and its own step
        spans = await page.locator(".st-key-player_spans").first.inner_text()
        others = [j for j in range(64) if j != i and marker(j) in spans]
        if marker(i) not in spans or others or await merge_index(page) != steps:
            out["isolation_ok"] = False
        # Play at the top speed for a while, counting what the readout shows
        k0 = await merge_index(page) or 0
        await page.locator(".st-key-play button").first.click()
        t = time.perf_counter()
        seen = set()
        while time.perf_counter() - t < play_seconds:
            k = await merge_index(page)
            if k is not None:
                seen.add(k)
            await page.wait_for_timeout(50)
        k1 = await merge_index(page) or k0
        out["play_merges"] = k1 - k0
        out["play_frames_seen"] = len(seen)
        out["play_rate"] = (k1 - k0) / play_seconds
        exc = await page.locator('[data-testid="stException"]').count()
        if exc:
            out["errors"].append(f"{exc} exception box(es) on the page")
    except Exception as exc:  # the report says what went wrong; the run goes on
        out["errors"].append(f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
    finally:
        await ctx.close()
    lat = sorted(out["latencies_ms"])
    if lat:
        out["p50_ms"] = statistics.median(lat)
        out["p95_ms"] = lat[min(len(lat) - 1, int(round(0.95 * (len(lat) - 1))))]
    return out


async def run_round(url: str, n: int, steps: int, play_seconds: float) -> list[dict]:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        start = asyncio.Event()
        tasks = [asyncio.create_task(one_session(browser, url, i, steps, play_seconds, start)) for i in range(n)]
        await asyncio.sleep(0.2)
        start.set()  # everyone at the same moment
        results = await asyncio.gather(*tasks)
        await browser.close()
    return list(results)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=10)
    ap.add_argument("--steps", type=int, default=20, help="step clicks per session")
    ap.add_argument("--play", type=float, default=8.0, help="seconds of play per session")
    args = ap.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(f"{CHROMIUM} is missing: apt-get install chromium", file=sys.stderr)
        return 2
    port = free_port()
    server = start_server(port)
    sampler = RssSampler(server.pid)
    sampler.start()
    url = f"http://127.0.0.1:{port}/"
    try:
        single = asyncio.run(run_round(url, 1, args.steps, args.play))
        rss_after_single = rss_mb(server.pid)
        server_single, offset = server_frames_ms(0)
        many = asyncio.run(run_round(url, args.sessions, args.steps, args.play))
        server_many, _ = server_frames_ms(offset)
        time.sleep(2)
        rss_after = rss_mb(server.pid)
    finally:
        sampler.stop.set()
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
    base = single[0]
    print(f"single session: p50 {base.get('p50_ms', float('nan')):.0f} ms, p95 {base.get('p95_ms', float('nan')):.0f} ms,"
          f" play {base.get('play_rate', 0):.1f} merges/s, first load {base.get('first_load_s', 0):.1f} s,"
          f" errors {len(base['errors'])}")
    print(f"{args.sessions} sessions at once:")
    print(f"{'#':>3} {'p50 ms':>7} {'p95 ms':>7} {'p95/single':>10} {'play/s':>7} {'load s':>7} {'isolated':>8} errors")
    for r in many:
        ratio = r.get("p95_ms", float("nan")) / base.get("p95_ms", float("nan"))
        print(f"{r['session']:>3} {r.get('p50_ms', float('nan')):>7.0f} {r.get('p95_ms', float('nan')):>7.0f} "
              f"{ratio:>9.2f}x {r.get('play_rate', 0):>7.1f} {r.get('first_load_s', float('nan')):>7.1f} "
              f"{'yes' if r['isolation_ok'] else 'NO':>8} {'; '.join(r['errors']) or 0}")
    print(f"server time per player frame: one session p50 {pct(server_single, .5):.0f} ms, p95 "
          f"{pct(server_single, .95):.0f} ms ({len(server_single)} frames); {args.sessions} sessions p50 "
          f"{pct(server_many, .5):.0f} ms, p95 {pct(server_many, .95):.0f} ms ({len(server_many)} frames): "
          f"p95 {pct(server_many, .95) / pct(server_single, .95):.1f}x")
    peak = max(v for _, v in sampler.samples)
    print(f"server RSS: start {sampler.samples[0][1]:.0f} MB, after one session {rss_after_single:.0f} MB, "
          f"peak {peak:.0f} MB, after the load {rss_after:.0f} MB")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "load.json").write_text(json.dumps(
        {"single": single, "many": many, "rss": sampler.samples, "rss_after": rss_after,
         "server_frames_ms": {"single": server_single, "many": server_many}}, indent=1))
    errors = sum(len(r["errors"]) for r in single + many)
    isolated = all(r["isolation_ok"] for r in single + many)
    worst = max(r.get("p95_ms", 0) for r in many) / base.get("p95_ms", 1)
    print(f"errors {errors}, isolation {'held' if isolated else 'BROKEN'}, worst p95 = {worst:.2f}x single "
          f"(target <= 2x)")
    return 0 if errors == 0 and isolated else 1


if __name__ == "__main__":
    sys.exit(main())
