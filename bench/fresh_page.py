"""Benchmark: a fresh page of the app, opened in a new Chromium context against one plain ``streamlit run``
(a benchmark, not a test).

For the **Tokenize** page (ready: its columns, ``.tokv-spans``, drawn) and the **Merge player** (ready: the
player's readout drawn, ``data-ready="1"`` on its root), each in ``--rounds`` fresh browser contexts (new
cache, new Streamlit session), one after another:

* **time to ready**: seconds from ``page.goto`` to the ready selector;
* **bytes on the wire**: what Chromium's network layer received (DevTools ``Network.loadingFinished``'s
  ``encodedDataLength`` for every HTTP response: headers + body as sent, compressed or not) plus the
  websocket frames the server sent before the page was ready;
* the same from the server's side: the TCP bytes the server sent on the page's connections (``ss``'s
  ``bytes_sent`` of every established socket on the server's port, read once the page is ready, while the
  context still holds its connections open): HTTP responses and websocket frames exactly as sent — compressed
  when they are (Chromium reports websocket frames decompressed);
* the number of HTTP responses, and how many came compressed (``Content-Encoding``);
* where the time went (DevTools' clock, from the page's request): when the last static file was in, and the
  first and last websocket frames before ready (the server's script run);
* the server's CPU seconds for the page (``/proc``, its training workers included) and its RSS at the end;
* for Tokenize, which draws its tokens first and its settings bar and trace section in the run after: when
  it is **complete** (the trace section drawn) and every byte received by then.

Each server's first visitor (its Python caches cold, its gzip copies made then) is reported apart and not
in the medians. ``--server-arg`` passes an option to every server started (to compare settings, e.g.
``--server-arg=--server.enableWebsocketCompression=false``).

``--favour`` starts the servers and Chromium in a cpu cgroup weighted far above everything else on the
machine (``bench.harness.favoured``): on a machine shared with other work, figures nearer a quiet one's and
far steadier (at load 15-44 on the 2 cores: 2.1-3.2 s where the same pages took 4-17 s without it, against
1.85 s measured quiet); the report says whether the cgroup was made.

``--latency MS`` adds that much to each request (Chromium's network throttle): the server across a
network (a lecture hall's wifi) rather than on the same machine.

``--page tokenize`` (or ``player``) opens that page only. ``--list`` prints, for one fresh page of each kind,
every response by size (bytes on the wire, decoded bytes, encoding): which JavaScript chunks a fresh page
loads.

Before/after: ``--baseline DIR`` also starts the app from ``DIR`` (say ``git archive <commit> | tar -x -C
DIR``: the same virtualenv runs both) and interleaves the two servers round by round (baseline, this tree,
baseline, ...), so both see the same machine. The report gives medians, the load average at the start and
the end, and writes ``bench/results/fresh_page.json``. Run: ``python -m bench.fresh_page [--rounds 7]
[--baseline /tmp/bpe-before] [--list]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

from bench.harness import RESULTS, favoured_if, start_server
from testkit.app_server import CHROMIUM, CHROMIUM_ARGS, ROOT, conditions, rss_mb, stop_server
from testkit.fresh_page import COMPLETE, PAGES, fresh


def list_responses(name: str, rs: list[dict], url: str) -> None:
    rs = sorted(rs, key=lambda r: -r["wire"])
    print(
        f"\n{name}: {len(rs)} responses, {sum(r['wire'] for r in rs) / 1e6:.2f} MB on the wire, "
        f"{sum(r['decoded'] for r in rs) / 1e6:.2f} MB decoded"
    )
    for r in rs:
        print(
            f"  {r['wire'] / 1e3:9.1f} KB wire {r['decoded'] / 1e3:9.1f} KB decoded  {r['encoding'] or '-':5}"
            f"  {r['url'].replace(url, '/')[:110]}"
        )


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--baseline", type=Path, help="a tree of the app to compare with (started from there)")
    ap.add_argument("--list", action="store_true", help="list every response of one fresh page of each kind")
    ap.add_argument(
        "--server-arg",
        action="append",
        default=[],
        help="an option for every server started, e.g. --server-arg=--server.enableWebsocketCompression=true",
    )
    ap.add_argument(
        "--latency", type=float, default=0, help="ms added to each request (Chromium's throttle): a network"
    )
    ap.add_argument("--favour", action="store_true", help="servers and Chromium in a favoured cpu cgroup")
    ap.add_argument("--page", choices=[p[0] for p in PAGES], help="this page only (default: both)")
    args = ap.parse_args()
    with favoured_if(args.favour, "bpe-lab-fresh-page"):
        return run(args)


def run(args) -> int:
    from playwright.sync_api import sync_playwright

    pages = [p for p in PAGES if args.page in (None, p[0])]
    print(conditions() + (f"; {args.latency:g} ms added to each request" if args.latency else ""))
    trees = ([("before", args.baseline)] if args.baseline else []) + [("after" if args.baseline else "this", ROOT)]
    servers = {}
    try:
        for label, root in trees:
            servers[label] = start_server(f"fresh-{label}.log", tuple(args.server_arg), root=root)
        results: dict = {label: {name: [] for name, _, _ in pages} for label, _ in trees}
        first: dict = {}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            for label, (proc, url) in servers.items():  # a first visitor each (Python imports, caches warm)
                for name, path, ready in pages:
                    fig, rs = fresh(browser, url, path, ready, proc.pid, args.latency, COMPLETE.get(name))
                    first[f"{label}/{name}"] = fig
                    print(
                        f"first visitor {label:6} {name:8} ready {fig['ready_s']:.2f} s, "
                        f"{fig['bytes'] / 1e6:.2f} MB, server CPU {fig['server_cpu_s']:.2f} s (gzip copies made "
                        "then: the server's first requests for those files)",
                        flush=True,
                    )
                    if args.list:
                        list_responses(f"{label} {name}", rs, url)
            for i in range(args.rounds):
                for name, path, ready in pages:
                    for label, (proc, url) in servers.items():
                        fig, _ = fresh(browser, url, path, ready, proc.pid, args.latency, COMPLETE.get(name))
                        results[label][name].append(fig)
                        print(
                            f"round {i + 1} {label:6} {name:8} ready {fig['ready_s']:.2f} s, "
                            f"{fig['bytes'] / 1e6:.2f} MB ({fig['http_bytes'] / 1e6:.2f} HTTP + "
                            f"{fig['ws_bytes'] / 1e6:.3f} websocket; server wrote "
                            f"{fig['server_bytes'] / 1e6:.2f} MB; server CPU {fig['server_cpu_s']:.2f} s), "
                            f"{fig['responses']} responses, "
                            f"{fig['compressed']} compressed"
                            + (
                                f"; complete {fig['complete_s']:.2f} s, {fig['complete_bytes'] / 1e6:.2f} MB"
                                if "complete_s" in fig
                                else ""
                            ),
                            flush=True,
                        )
            browser.close()
        rss = {label: rss_mb(proc.pid) for label, (proc, _) in servers.items()}
    finally:
        for proc, _ in servers.values():
            stop_server(proc)
    print(f"\nmedians over {args.rounds} fresh contexts each:")
    summary = {}
    for label, by_page in results.items():
        for name, figs in by_page.items():
            s = {
                k: median([f.get(k) for f in figs])
                for k in (
                    "ready_s",
                    "bytes",
                    "http_bytes",
                    "ws_bytes",
                    "server_bytes",
                    "server_cpu_s",
                    "responses",
                    "compressed",
                    "decoded_bytes",
                    "static_done_s",
                    "first_frame_s",
                    "last_frame_s",
                    "complete_s",
                    "complete_bytes",
                )
            }
            s["ready_max"] = max(f["ready_s"] for f in figs)
            summary[f"{label}/{name}"] = s
            if name in COMPLETE:
                print(
                    f"  {label:6} {name:8} complete (its last part drawn) {s['complete_s']:.2f} s, "
                    f"{s['complete_bytes'] / 1e6:.2f} MB received by then"
                )
            print(
                f"  {label:6} {name:8} ready {s['ready_s']:.2f} s (worst {s['ready_max']:.2f}), "
                f"{s['bytes'] / 1e6:.2f} MB on the wire ({s['decoded_bytes'] / 1e6:.2f} MB decoded; server "
                f"sent {s['server_bytes'] / 1e6:.2f} MB, its CPU {s['server_cpu_s']:.2f} s), "
                f"{s['responses']:.0f} responses, {s['compressed']:.0f} compressed; static files in by "
                f"{s['static_done_s']:.2f} s, the server's frames {s['first_frame_s']:.2f}-{s['last_frame_s']:.2f} s"
            )
    for label, mb in rss.items():
        print(f"  {label:6} server RSS at the end {mb:.0f} MB")
    load = os.getloadavg()
    print(f"load average at the end {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "fresh_page.json").write_text(
        json.dumps(
            {
                "conditions": conditions(),
                "favour": args.favour,
                "summary": summary,
                "rss_mb": rss,
                "first_visitor": first,
                "rounds": results,
            },
            indent=1,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
