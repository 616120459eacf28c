"""The Tokenize keystroke bench, this tree against another one (``--baseline DIR``), interleaved (a benchmark).

:mod:`bench.tokenize_bench` measures one tree; a figure from another day (another load, another crowd on the
machine) says little about a change of 20 ms. Here both trees' apps run at once, each on a page with the six
columns, and the same edits are made on both in turn (one edit here, the same edit there, the order flipped
every edit), so the machine's load falls on both alike. Parts: ``--edits`` one-character edits in the 1 KB
mixed text, then ``--big-edits`` in the 100 KB multilingual text (``--big-bytes 0``: none). Each edit is timed
as in :mod:`bench.tokenize_bench`: keystroke -> every column painted, split into keystroke -> sent, sent ->
answer, answer -> painted. The load average (1 min) is printed at the start, between the parts and at the end.

Run: ``python -m bench.tokenize_interleaved --baseline /path/to/other/tree``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
from pathlib import Path

from bench.harness import RESULTS, start_server
from bench.tokenize_bench import COLUMNS, Probe, mixed_text, pct
from testkit.app_server import CHROMIUM, CHROMIUM_ARGS, conditions, stop_server


class OldProbe(Probe):
    """A :class:`Probe` whose view may predate the first-screen previews (an older tree's view)."""

    def view(self, script: str, arg=None):
        return super().view(script.replace("el.__tkz.previews.find", "(el.__tkz.previews ?? []).find"), arg)


def load() -> str:
    return "{:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def twin_edits(probes: dict[str, Probe], count: int, seed: int) -> dict[str, list[dict]]:
    """``count`` edits, each made on every probe in turn (the order flipped each edit); same places, same keys."""
    rng = random.Random(seed)
    letters = "etaoinshrdlu éü中ж😀.,;()"
    out: dict[str, list[dict]] = {name: [] for name in probes}
    names = list(probes)
    for i in range(count):
        length = probes[names[0]].view("el => el.querySelector('.tkz-text').value.length")
        pos = rng.randrange(0, max(1, length))
        key = "Backspace" if i % 4 == 3 else rng.choice(letters)
        for name in names if i % 2 == 0 else names[::-1]:
            out[name].append(probes[name].type_at(pos, key))
    return out


def summary(rows: list[dict]) -> dict:
    med = lambda xs: round(statistics.median(xs), 1)  # noqa: E731
    ms = [r["ms"] for r in rows]
    return {
        "edits": len(rows),
        "p50_ms": med(ms),
        "p95_ms": round(pct(ms, 0.95), 1),
        "max_ms": round(max(ms), 1),
        "sent_ms": med([r["sent"] - r["input"] for r in rows]),
        "answer_ms": med([r["received"] - r["sent"] for r in rows]),
        "painted_ms": med([r["painted"] - r["received"] for r in rows]),
        "view_js_ms": med([r["drawn"] - r["received"] for r in rows]),
        "down_median": int(statistics.median(r["down"] for r in rows)),
    }


def show(part: str, results: dict[str, list[dict]], p50: float, p95: float | None) -> dict:
    out = {}
    for name, rows in results.items():
        s = out[name] = summary(rows)
        ok = "met" if s["p50_ms"] <= p50 and (p95 is None or s["p95_ms"] <= p95) else "MISSED"
        print(
            f"{part}, {name}: {s['edits']} edits; keystroke -> every column painted p50 {s['p50_ms']} ms, p95 "
            f"{s['p95_ms']} ms, max {s['max_ms']} ms (target p50 <= {p50}"
            + (f", p95 <= {p95}" if p95 else "")
            + f": {ok}); medians: keystroke -> sent {s['sent_ms']} ms, sent -> answer {s['answer_ms']} ms, "
            f"answer -> painted {s['painted_ms']} ms (view's JS {s['view_js_ms']} ms); down {s['down_median']:,} B",
            flush=True,
        )
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", type=Path, required=True, help="the other tree of the app")
    ap.add_argument("--edits", type=int, default=40)
    ap.add_argument("--big-edits", type=int, default=20)
    ap.add_argument("--big-bytes", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=2)
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    from testkit import corpora

    print(conditions())
    print(f"load average at the start: {load()}", flush=True)
    servers = {"baseline": start_server("tokenize-ab-base-{port}.log", root=args.baseline)}
    servers["this tree"] = start_server("tokenize-ab-{port}.log")
    results: dict = {"load_start": os.getloadavg()}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            probes: dict[str, Probe] = {}
            for name, (_, url) in servers.items():
                probes[name] = OldProbe(browser, url)
                probes[name].choose(COLUMNS)
            small = mixed_text(1000)
            for probe in probes.values():
                probe.paste(small)
            twin_edits(probes, 3, seed=1)  # warm: the first edits load the vocabularies' caches
            results["small"] = show("1 KB mixed", twin_edits(probes, args.edits, args.seed), 100, 200)
            print(f"load average: {load()}", flush=True)
            if args.big_bytes and args.big_edits:
                big = corpora.multilingual(args.big_bytes)
                for probe in probes.values():
                    probe.paste(big)
                    probe.unfold()
                rows = twin_edits(probes, args.big_edits, args.seed + 1)
                results["big"] = show(f"{args.big_bytes // 1000} KB multilingual", rows, 250, None)
            browser.close()
    finally:
        for proc, _ in servers.values():
            stop_server(proc)
    print(f"load average at the end: {load()}")
    results["load_end"] = os.getloadavg()
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "tokenize_interleaved.json").write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
