"""Benchmark: where a fresh page's time goes, from a Chromium trace of one fresh page (a benchmark, not a test).

``bench/fresh_page.py`` says how long a fresh page takes; this says what the browser's main thread did in that
time. One plain ``streamlit run`` (of this tree or ``--root DIR``), ``--warm`` fresh pages first (the server's
caches and gzip copies), then one fresh page of ``--page`` (``tokenize`` or ``player``) traced (DevTools'
timeline and V8's sampling profiler). Printed:

* **ready**, and the renderer's main thread busy before it (its top-level tasks), split into module
  evaluation, script (mostly React drawing Streamlit's elements), style/layout/paint, garbage collection;
* the main thread's busy time in 100 ms slices up to ready (a slice at ~100 ms: the page waits on the network
  or the server; near 100: on its own main thread);
* the script files that took the most samples (self time) up to ready;
* the elements the first run sent over the websocket that are biggest (kind, size): what the browser parses,
  sanitizes (``st.html`` goes through DOMPurify) and draws.

``--favour`` runs the server and Chromium in ``bench.harness.favoured``'s cpu cgroup, as ``bench.fresh_page``
does. Writes the trace to ``bench/results/fresh_page_trace.json``. Run: ``python -m bench.fresh_page_trace
[--page tokenize] [--favour] [--root DIR]``.
"""

from __future__ import annotations

import argparse
import base64
import collections
import json
import sys
from pathlib import Path
from typing import Any

from bench.harness import RESULTS, favoured_if, start_server
from testkit.app_server import CHROMIUM, CHROMIUM_ARGS, ROOT, conditions, stop_server
from testkit.fresh_page import PAGES

CATEGORIES = [
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "blink.user_timing",
    "toplevel",
    "v8.execute",
    "v8",
    "disabled-by-default-v8.cpu_profiler",
]
#: trace events (on the main thread) counted under each heading; the rest of a task is "other"
KINDS = {
    "module evaluation": ("v8.evaluateModule", "EvaluateScript"),
    "script": ("FunctionCall", "TimerFire", "FireAnimationFrame", "EventDispatch", "RunMicrotasks"),
    "style, layout, paint": ("UpdateLayoutTree", "Layout", "PrePaint", "Paint", "Commit", "ParseAuthorStyleSheet"),
    "garbage collection": ("MinorGC", "MajorGC"),
    "HTML parsing": ("ParseHTML",),
}


def saved_trace(raw: bytes, name: str, mark: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Write a Chromium trace to ``bench/results/<name>`` and return its events and the event of the
    ``performance.mark(mark)`` the page made (on the page's own main thread: its ``pid`` and ``tid``)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / name).write_bytes(raw)
    events = json.loads(raw)["traceEvents"]
    return events, next(e for e in events if e.get("name") == mark)


def breakdown(events: list[dict[str, Any]], main: tuple[int, int], t0: float, end: float) -> dict[str, Any]:
    """Figures of the thread ``main`` (pid, tid) between trace times ``t0`` and ``end`` (microseconds)."""
    xs = [e for e in events if (e["pid"], e["tid"]) == main and e.get("ph") == "X" and "dur" in e]
    tasks = [e for e in xs if e["name"] == "ThreadControllerImpl::RunTask" and t0 <= e["ts"] < end]
    busy = sum(min(e["ts"] + e["dur"], end) - e["ts"] for e in tasks)
    kinds: dict[str, float] = collections.defaultdict(float)
    covered: list[tuple[float, float]] = []  # outermost events of a kind only (they nest: FunctionCall in a task)
    for e in sorted(xs, key=lambda e: (e["ts"], -e["dur"])):
        if not t0 <= e["ts"] < end:
            continue
        kind = next((k for k, names in KINDS.items() if e["name"] in names), None)
        if kind is None or any(a <= e["ts"] < b for a, b in covered):
            continue
        covered.append((e["ts"], e["ts"] + e["dur"]))
        kinds[kind] += min(e["dur"], end - e["ts"])
    slices = [0.0] * int((end - t0) // 100_000 + 1)
    for e in tasks:
        s, d = e["ts"] - t0, min(e["dur"], end - e["ts"])
        while d > 0:
            i = int(s // 100_000)
            take = min(d, (i + 1) * 100_000 - s)
            slices[i] += take
            s, d = s + take, d - take
    return {"busy_ms": busy / 1000, "kinds_ms": {k: v / 1000 for k, v in kinds.items()}, "slices": slices}


def script_files(events: list[dict[str, Any]], pid: int, t0: float, end: float) -> collections.Counter[str]:
    """Self time (ms) by script file from process ``pid``'s sampling profiler, between ``t0`` and ``end``."""
    nodes: dict[tuple[str, int], dict[str, Any]] = {}
    out: collections.Counter[str] = collections.Counter()
    for e in events:
        if e.get("name") != "ProfileChunk" or e["pid"] != pid:
            continue
        data = e["args"]["data"]
        profile = data.get("cpuProfile", {})
        for n in profile.get("nodes", []):
            nodes[(e["id"], n["id"])] = n["callFrame"]
        t = e["ts"]
        for sample, delta in zip(profile.get("samples", []), data.get("timeDeltas", [])):
            t += delta
            frame = nodes.get((e["id"], sample))
            if frame is not None and t0 <= t < end:
                out[frame.get("url", "").rsplit("/", 1)[-1] or f"({frame.get('functionName', '')})"] += delta / 1000
    return out


def elements(frames: list[dict[str, Any]]) -> list[tuple[int, str]]:
    """(bytes, kind) of every element the websocket delivered (``ForwardMsg`` deltas), biggest first."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    out = []
    for f in frames:
        if f.get("opcode") != 2:
            continue
        data = base64.b64decode(f["payloadData"])
        msg = ForwardMsg()
        msg.ParseFromString(data)
        if msg.WhichOneof("type") == "delta" and msg.delta.WhichOneof("type") == "new_element":
            el = msg.delta.new_element
            kind: str = el.WhichOneof("type") or "?"
            if kind == "bidi_component":
                kind += f" {el.bidi_component.component_name}"
            out.append((len(data), kind))
    return sorted(out, reverse=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--page", choices=[p[0] for p in PAGES], default="tokenize")
    ap.add_argument("--root", type=Path, default=ROOT, help="the tree to start the app from")
    ap.add_argument("--warm", type=int, default=2, help="fresh pages before the traced one")
    ap.add_argument("--favour", action="store_true", help="server and Chromium in a favoured cpu cgroup")
    args = ap.parse_args()
    with favoured_if(args.favour, "bpe-lab-fresh-trace"):
        return run(args)


def run(args: argparse.Namespace) -> int:
    from playwright.sync_api import sync_playwright

    print(conditions())
    _, path, ready = next(p for p in PAGES if p[0] == args.page)
    proc, url = start_server("fresh-trace.log", root=args.root)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            for _ in range(args.warm):
                ctx = browser.new_context(viewport={"width": 1280, "height": 900})
                ctx.new_page().goto(url + path)
                ctx.pages[0].wait_for_selector(ready, timeout=60_000)
                ctx.close()
            ctx = browser.new_context(viewport={"width": 1280, "height": 900})
            page = ctx.new_page()
            cdp = ctx.new_cdp_session(page)
            cdp.send("Network.enable")
            frames: list[dict[str, Any]] = []
            cdp.on("Network.webSocketFrameReceived", lambda ev: frames.append(ev["response"]))
            browser.start_tracing(page=page, categories=CATEGORIES)
            page.goto(url + path)
            page.wait_for_selector(ready, timeout=60_000)
            ready_ms = page.evaluate("performance.mark('bpe-ready').startTime")
            raw = browser.stop_tracing()
            ctx.close()
            browser.close()
    finally:
        stop_server(proc)
    events, mark = saved_trace(raw, "fresh_page_trace.json", "bpe-ready")
    end = mark["ts"]
    t0 = end - ready_ms * 1000
    fig = breakdown(events, (mark["pid"], mark["tid"]), t0, end)
    print(f"\n{args.page}: ready {ready_ms / 1000:.2f} s; main thread busy {fig['busy_ms'] / 1000:.2f} s of it")
    for kind, ms in sorted(fig["kinds_ms"].items(), key=lambda kv: -kv[1]):
        print(f"  {kind:22} {ms:7.0f} ms")
    print("  busy ms a 100 ms slice: " + " ".join(f"{s / 1000:.0f}" for s in fig["slices"]))
    print("script files by self time up to ready (sampled):")
    for name, ms in script_files(events, mark["pid"], t0, end).most_common(12):
        print(f"  {ms:7.0f} ms  {name}")
    print("the biggest elements the websocket delivered:")
    for size, kind in elements(frames)[:8]:
        print(f"  {size / 1000:7.1f} KB  {kind}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
