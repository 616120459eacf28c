"""Benchmark of the merge player (a benchmark, not a test): what it costs to play a run in the browser.

One run reports:

1. **Payload per run** (in-process, no server): the run payload and the text window's payload that the
   player component receives (``views/player_payload.py``), raw JSON and as sent (gzip), for the English
   sample and for 1 MB of English trained to 4,096 merges; with the time to train and to build them.
2. **Playing in headless Chromium** against a real ``streamlit run app.py``: for each text and each speed
   (10, 30, 60 merges/s by default), play for ``--seconds`` (or to the end of the run) and read
   - merges advanced per second and **distinct merges drawn per second** (the component counts frames:
     ``data-drawn``, ``data-advanced`` on its root; "every merge drawn" when they are equal),
   - the component's mean JavaScript time per frame (``data-ms``),
   - the **server's CPU seconds** while playing (``/proc/<pid>/stat``) and the bytes it wrote,
   - **websocket frames and bytes** while playing, both ways (Playwright sees every frame).
   Then one pause: the pause report and the rerun it causes, in frames and bytes.

Targets (issue 10): every merge drawn at 30 merges/s; no server requests while playing; payload
<= 0.5 MB gzip for 1 MB -> 4,096 merges. On a shared or loaded machine the frame rates are provisional:
the report prints the load average at the start and the end. Run: ``python -m bench.player_bench``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from bench.harness import RESULTS, start_server
from testkit.app_server import (
    CHROMIUM,
    CHROMIUM_ARGS,
    IDLE,
    PLAYER,
    ROOT,
    bytes_written,
    conditions,
    cpu_seconds,
    stop_server,
)
from testkit.texts import sample_words

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def megabyte_text() -> tuple[str, str]:
    """About 1 MB of English prose (Jane Austen, testkit.corpora), or, without it, :func:`sample_words`; and
    where it came from."""
    try:
        from testkit.corpora import english

        return english(1_000_000), "Jane Austen (testkit.corpora.english)"
    except Exception as exc:  # no Debian package cache on this machine: a stand-in, said so in the report
        return sample_words(), f"sample-text words in a seeded order (testkit.corpora unavailable: {exc})"


# ----------------------------------------------------------------------------------------------------
# 1. payloads


def payloads(mb_text: str, merges: int) -> list[dict]:
    import appstate.caches
    import appstate.sources
    import bpe
    from bpe.excerpt import split_heldout
    from bpe.replay import MergeIndex, heldout_token_counts
    from views.player_payload import pack, run_payload, window_payload

    rows = []
    english = appstate.sources.sample("english")
    for name, full, vocab in (("English sample", english.text, 256 + 700), ("1 MB English", mb_text, 256 + merges)):
        text, held = split_heldout(full)
        t0 = time.perf_counter()
        run = bpe.train(text, vocab)
        t_train = time.perf_counter() - t0
        t0 = time.perf_counter()
        index = MergeIndex(run)
        counts = heldout_token_counts(run, index, held) if held else None
        p = run_payload(run, tag="bench", heldout_counts=counts, heldout_bytes=len(held.encode()))
        raw = json.dumps(p, separators=(",", ":"), ensure_ascii=False).encode()
        packed = pack(p)
        t_build = time.perf_counter() - t0
        t0 = time.perf_counter()
        rep = appstate.caches.window_replay(f"bench:{name}", 0, appstate.caches.WINDOW_CHARS, run, text)
        w = window_payload(rep, tag="bench", n_merges=len(run.merges), level=run.level)
        w_raw = json.dumps(w, separators=(",", ":"), ensure_ascii=False).encode()
        w_packed = pack(w)
        t_window = time.perf_counter() - t0
        rows.append(
            {
                "text": name,
                "bytes": len(full.encode()),
                "merges": len(run.merges),
                "train_s": t_train,
                "run_raw": len(raw),
                "run_gzip": len(packed),
                "run_build_s": t_build,
                "window_raw": len(w_raw),
                "window_gzip": len(w_packed),
                "window_build_s": t_window,
                "window_nodes": len(w["id"]),
            }
        )
    return rows


# ----------------------------------------------------------------------------------------------------
# 2. playing in the browser


class Wire:
    """Websocket frames both ways, as Playwright sees them, with the time each was seen."""

    def __init__(self, page):
        self.sent: list[tuple[float, int]] = []
        self.received: list[tuple[float, int]] = []
        page.on(
            "websocket",
            lambda ws: (
                ws.on("framesent", lambda f: self.sent.append((time.time(), len(f)))),
                ws.on("framereceived", lambda f: self.received.append((time.time(), len(f)))),
            ),
        )

    def mark(self) -> tuple[int, int]:
        return len(self.sent), len(self.received)

    def since(self, mark, until: float | None = None) -> dict:
        s = [n for t, n in self.sent[mark[0] :] if until is None or t < until]
        r = [n for t, n in self.received[mark[1] :] if until is None or t < until]
        return {"sent_frames": len(s), "sent_bytes": sum(s), "received_frames": len(r), "received_bytes": sum(r)}


def wait_ready(page, timeout=120_000) -> None:
    page.wait_for_selector(IDLE, timeout=timeout)
    page.wait_for_selector(f'{PLAYER}[data-ready="1"]', timeout=timeout)


def play(page, wire: Wire, pid: int, speed: float, seconds: float) -> dict:
    if page.get_attribute(PLAYER, "data-merge") != "0":
        page.click(f"{PLAYER} .mp-reset")  # from merge 0
    page.select_option(f"{PLAYER} .mp-speed select", f"{speed:g}")
    page.wait_for_timeout(800)  # the speed is reported (paused): let that rerun finish
    page.wait_for_selector(IDLE)
    mark, cpu0, out0 = wire.mark(), cpu_seconds(pid), bytes_written(pid)
    t0 = time.perf_counter()
    page.click(f"{PLAYER} .mp-play")
    ended = None
    while time.perf_counter() - t0 < seconds:
        page.wait_for_timeout(200)
        if page.get_attribute(PLAYER, "data-playing") == "0":
            ended = time.perf_counter() - t0
            break
    d = page.locator(PLAYER).evaluate("e => ({...e.dataset})")
    elapsed = ended or (time.perf_counter() - t0)
    cpu, wrote = cpu_seconds(pid) - cpu0, bytes_written(pid) - out0
    if ended is None:
        stop = time.time()
        page.click(f"{PLAYER} .mp-play")
    else:  # it reached the end and stopped by itself (and reported its merge, like a pause)
        stop = int(d["stopped"]) / 1000
    page.wait_for_timeout(1200)
    page.wait_for_selector(IDLE)
    row = {"speed": speed, "seconds": elapsed, "cpu_s": cpu, "server_wrote": wrote, **wire.since(mark, stop)}
    pause = wire.since(mark)
    pause = {k: pause[k] - row[k] for k in pause}
    advanced, drawn = int(d.get("advanced") or 0), int(d.get("drawn") or 0)
    row.update(
        advanced=advanced,
        drawn=drawn,
        ms=float(d.get("ms") or 0),
        ended=ended is not None,
        pause_frames=pause["sent_frames"] + pause["received_frames"],
        pause_bytes=pause["sent_bytes"] + pause["received_bytes"],
    )
    return row


def browser_rounds(mb_text: str, merges: int, speeds: list[float], seconds: float) -> tuple[list[dict], dict]:
    from playwright.sync_api import sync_playwright

    proc, url = start_server("player-bench-server.log")
    rows: list[dict] = []
    loads: dict = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(120_000)
            wire = Wire(page)
            # the English sample with 700 merges (it allows 745): ten seconds at 60/s stay clear of the end
            page.goto(url + "?sample=english&merges=700")
            wait_ready(page)
            loads["English sample"] = wire.since((0, 0))
            for s in speeds:
                rows.append({"text": "English sample", **play(page, wire, proc.pid, s, seconds)})
            # 1 MB: upload it, then ask for 4,096 merges (trained behind the progress bar)
            page.locator(".st-key-player_source label").filter(has_text="Upload").first.click()
            page.wait_for_selector(IDLE)
            page.set_input_files(
                ".st-key-player_upload input[type=file]",
                files=[{"name": "one_mb.txt", "mimeType": "text/plain", "buffer": mb_text.encode("utf-8")}],
            )
            wait_ready(page)
            mark = wire.mark()
            t0 = time.perf_counter()
            page.fill(".st-key-player_merges input", str(merges))
            page.keyboard.press("Enter")
            page.wait_for_timeout(500)
            wait_ready(page)
            page.wait_for_selector(f'{PLAYER} .mp-jump input[max="{merges}"]', timeout=120_000)
            loads["1 MB English"] = {**wire.since(mark), "train_and_load_s": time.perf_counter() - t0}
            for s in speeds:
                rows.append({"text": "1 MB English", **play(page, wire, proc.pid, s, seconds)})
            browser.close()
    finally:
        stop_server(proc)
    return rows, loads


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="seconds of play per speed")
    ap.add_argument("--speeds", type=float, nargs="+", default=[10, 30, 60])
    ap.add_argument("--merges", type=int, default=4096, help="merges for the 1 MB text")
    args = ap.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(f"{CHROMIUM} is missing: apt-get install chromium", file=sys.stderr)
        return 2
    print("Merge player benchmark.", conditions())
    mb_text, source = megabyte_text()
    print(f"1 MB text: {len(mb_text.encode()):,} bytes of {source}; the last 10% is held out of training.\n")

    pay = payloads(mb_text, args.merges)
    print("1. Payload per run (what the player component receives; sent gzip-compressed, once per run / window)")
    print(
        f"{'text':<16} {'merges':>6} {'train s':>8} {'run raw':>10} {'run gzip':>10} {'build ms':>9} "
        f"{'window raw':>11} {'window gzip':>12} {'nodes':>6}"
    )
    for r in pay:
        print(
            f"{r['text']:<16} {r['merges']:>6,} {r['train_s']:>8.2f} {r['run_raw'] / 1e6:>8.3f}MB "
            f"{r['run_gzip'] / 1e6:>8.3f}MB {r['run_build_s'] * 1000:>9.0f} {r['window_raw'] / 1e3:>9.1f}KB "
            f"{r['window_gzip'] / 1e3:>10.1f}KB {r['window_nodes']:>6,}"
        )
    big = pay[-1]
    print(
        f"   target: 1 MB -> {args.merges:,} merges <= 0.5 MB gzip: {big['run_gzip'] / 1e6:.3f} MB "
        f"{'MET' if big['run_gzip'] <= 500_000 else 'MISSED'}\n"
    )

    rows, loads = browser_rounds(mb_text, args.merges, args.speeds, args.seconds)
    print(f"2. Playing in headless Chromium (1280x900), {args.seconds:g} s per speed or to the end of the run")
    for name, load in loads.items():
        extra = f" (training {load['train_and_load_s']:.1f} s included)" if "train_and_load_s" in load else ""
        print(
            f"   loading the {name}: {load['received_bytes'] / 1e3:,.0f} KB received in {load['received_frames']} "
            f"websocket frames{extra}"
        )
    print(
        f"{'text':<16} {'speed':>6} {'played s':>8} {'merges/s':>9} {'drawn/s':>8} {'every?':>7} {'JS ms':>6} "
        f"{'server CPU s':>12} {'ws out':>12} {'ws in':>12} {'server wrote':>12} {'pause':>14}"
    )
    for r in rows:
        every = r["drawn"] == r["advanced"]
        print(
            f"{r['text']:<16} {r['speed']:>5g}/s {r['seconds']:>8.1f} {r['advanced'] / r['seconds']:>9.1f} "
            f"{r['drawn'] / r['seconds']:>8.1f} {'yes' if every else 'no':>7} {r['ms']:>6.2f} {r['cpu_s']:>12.2f} "
            f"{r['sent_frames']:>3} fr {r['sent_bytes']:>5} B "
            f"{r['received_frames']:>3} fr {r['received_bytes']:>5} B "
            f"{r['server_wrote']:>10} B {r['pause_frames']:>3} fr {r['pause_bytes'] / 1e3:>6.1f} KB"
        )
    at30 = [r for r in rows if r["speed"] == 30]
    quiet = all(r["sent_frames"] == 0 and r["received_frames"] == 0 for r in rows)
    every30 = all(r["drawn"] == r["advanced"] for r in at30)
    print(
        f"   target: every merge drawn at 30/s: {'MET' if every30 else 'MISSED'}"
        f"; no server requests while playing: {'MET' if quiet else 'MISSED'}"
    )
    load = os.getloadavg()
    print(
        f"   load average at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} "
        "(frame rates on a loaded machine are provisional)"
    )
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "player_bench.json").write_text(
        json.dumps(
            {"conditions": conditions(), "text": source, "payloads": pay, "loads": loads, "play": rows}, indent=1
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
