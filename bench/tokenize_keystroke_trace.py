"""Where a Tokenize keystroke's time goes in the browser, from a Chromium trace (a benchmark, not a test).

:mod:`bench.tokenize_bench` splits a keystroke into keystroke -> sent, sent -> answer (the view's mail taken),
answer -> painted. This traces ``--edits`` one-character edits in the 1 KB mixed text with the six columns
(DevTools' timeline and V8's sampling profiler, after three warm edits) and says, for each part, what the
page's main thread did in it: its busy time by kind (script, style/layout/paint, garbage collection), the
rest idle (waiting on the server, the network or the next frame), and the script files that took the most
samples. Medians over the edits; per edit with ``--each``. ``--root DIR``: the app of another tree. Writes
the trace to ``bench/results/keystroke_trace.json``. Run: ``python -m bench.tokenize_keystroke_trace``.
"""

from __future__ import annotations

import argparse
import collections
import os
import statistics
from pathlib import Path
from typing import Any

from bench.fresh_page_trace import CATEGORIES, KINDS, saved_trace, script_files
from bench.harness import start_server
from bench.tokenize_bench import COLUMNS, edits, mixed_text
from bench.tokenize_interleaved import OldProbe
from testkit.app_server import CHROMIUM, CHROMIUM_ARGS, ROOT, conditions, stop_server

PARTS = (("keystroke -> sent", "input", "sent"), ("sent -> answer", "sent", "received"))
PARTS += (("answer -> drawn", "received", "drawn"), ("drawn -> painted", "drawn", "painted"))


def kinds(xs: list[dict[str, Any]], a: float, b: float) -> dict[str, float]:
    """Milliseconds of the main thread's outermost events of each kind between trace times ``a`` and ``b``."""
    out: dict[str, float] = collections.defaultdict(float)
    covered: list[tuple[float, float]] = []
    for e in xs:
        if e["ts"] + e["dur"] <= a or e["ts"] >= b:
            continue
        kind = next((k for k, names in KINDS.items() if e["name"] in names), None)
        if kind is None or any(s <= e["ts"] < t for s, t in covered):
            continue
        covered.append((e["ts"], e["ts"] + e["dur"]))
        out[kind] += (min(e["ts"] + e["dur"], b) - max(e["ts"], a)) / 1000
    tasks = [e for e in xs if e["name"] == "ThreadControllerImpl::RunTask"]
    out["busy"] = sum(max(0.0, min(e["ts"] + e["dur"], b) - max(e["ts"], a)) for e in tasks) / 1000
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--edits", type=int, default=12)
    ap.add_argument("--root", type=Path, default=ROOT)
    ap.add_argument("--each", action="store_true", help="print every edit's figures")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    print(conditions())
    proc, url = start_server("keystroke-trace-{port}.log", root=args.root)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            probe = OldProbe(browser, url)
            probe.choose(COLUMNS)
            probe.paste(mixed_text(1000))
            edits(probe, 3, seed=1)
            browser.start_tracing(page=probe.page, categories=CATEGORIES)
            t0_ms = probe.page.evaluate("performance.mark('bpe-t0').startTime")  # (in the trace: its clock)
            rows = edits(probe, args.edits, seed=2)
            raw = browser.stop_tracing()
            browser.close()
    finally:
        stop_server(proc)
    events, mark = saved_trace(raw, "keystroke_trace.json", "bpe-t0")
    main_thread = (mark["pid"], mark["tid"])
    xs = [e for e in events if (e["pid"], e["tid"]) == main_thread and e.get("ph") == "X" and "dur" in e]
    xs.sort(key=lambda e: (e["ts"], -e["dur"]))
    to_ts = lambda ms: mark["ts"] + (ms - t0_ms) * 1000  # noqa: E731  (performance.now() -> trace time)
    per: dict[str, list[dict[str, float]]] = {name: [] for name, _, _ in PARTS}
    files: dict[str, collections.Counter[str]] = {name: collections.Counter() for name, _, _ in PARTS}
    for i, r in enumerate(rows):
        line = []
        for name, a, b in PARTS:
            fig = kinds(xs, to_ts(r[a]), to_ts(r[b]))
            fig["wall"] = r[b] - r[a]
            per[name].append(fig)
            files[name].update(script_files(events, mark["pid"], to_ts(r[a]), to_ts(r[b])))
            line.append(f"{name} {fig['wall']:.0f} (busy {fig['busy']:.0f})")
        if args.each:
            print(f"edit {i + 1}: {r['ms']:.0f} ms: " + "; ".join(line))
    print(f"\n{len(rows)} edits, keystroke -> painted median {statistics.median(r['ms'] for r in rows):.1f} ms")
    for name, _, _ in PARTS:
        figs = per[name]
        keys = sorted({k for f in figs for k in f} - {"wall", "busy"})
        med = lambda k, figs=figs: statistics.median(f.get(k, 0.0) for f in figs)  # noqa: E731
        parts = ", ".join(f"{k} {med(k):.1f}" for k in keys)
        print(f"  {name}: {med('wall'):.1f} ms, main thread busy {med('busy'):.1f} ms ({parts})")
        top = ", ".join(f"{f} {ms / len(rows):.1f}" for f, ms in files[name].most_common(5))
        print(f"    script files by self time (ms an edit): {top}")
    print("load average at the end: {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
