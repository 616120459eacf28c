"""Spike: the round trip of a small ``st.components.v2`` component — it sends a state value and gets a new
~2 KB data payload back — (a) through a rerun of the ``@st.fragment`` that holds it, against (b) a
``fetch()`` to an HTTP route of the app's own (``st.App(routes=[Route(...)])``, a Starlette ``Route``
answering JSON). For the Tokenize page's rebuild (issue 26: a rerun of a small fragment or a route).

Starts ``bench/spikes/roundtrip_app.py`` with ``streamlit run`` on a loopback port and, in headless Chromium
(Debian's), times in the page (``performance.now()``) from the request to the moment the component has the
answer: (a) ``setStateValue`` -> the fragment reruns in Python -> the component's function is called with
the new data; (b) ``fetch`` -> ``response.json()``. Rounds alternate between the two ways in blocks of 10
(``--blocks`` blocks each), one at a time, after 5 untimed warm-up trips each. Reports medians and p95, the
load average and the server's CPU seconds per trip. The server runs with the app's settings (no
``gc.collect`` after each script run, websocket compression on). The server sets ``TCP_NODELAY`` as ``app.py``'s does
(``serving.tcp``); ``--nagle`` leaves Streamlit's sockets as they are (every HTTP response on a kept-alive
connection then waits ~40 ms for the browser's delayed acknowledgement). Run: ``python -m
bench.spikes.roundtrip [--blocks 4] [--nagle]``.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from deploy.machine import free_loopback_port
from deploy.serve import health
from testkit.app_server import CHROMIUM, CHROMIUM_ARGS, IDLE, conditions, stop_server, tree_cpu_seconds

HERE = Path(__file__).resolve().parent
#: way -> the page's function that makes one round trip
WAYS = {"a": "__rtA()", "b": "__rtB(false)", "c": "__rtB(true)"}
NAMES = {"a": "(a) setStateValue -> fragment rerun -> new data", "b": "(b) fetch POST (JSON body) -> st.App route",
         "c": "(c) fetch GET (state in the query) -> st.App route"}


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--blocks", type=int, default=4, help="blocks of 10 trips for each way (default 4: 40 each)")
    ap.add_argument("--nagle", action="store_true", help="leave Nagle's algorithm on (Streamlit's own sockets)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    print(conditions() + ("; Nagle on (Streamlit's sockets as they are)" if args.nagle else "; TCP_NODELAY set"))
    port = free_loopback_port()
    log = open("/tmp/bpe-roundtrip-spike.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(HERE / "roundtrip_app.py"),
                             "--server.headless", "true", "--server.address", "127.0.0.1", "--server.port",
                             str(port), "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
                             # as the app's .streamlit/config.toml (the spike's folder has none)
                             "--runner.postScriptGC", "false", "--server.enableWebsocketCompression", "true"],
                            cwd=HERE, stdout=log, stderr=subprocess.STDOUT,
                            env=dict(os.environ, BPE_SPIKE_NAGLE="1" if args.nagle else "0"))
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while not health(url):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the spike's app did not start: see {log.name}")
            time.sleep(0.3)
        cpu = {way: 0.0 for way in WAYS}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            page = browser.new_page()
            page.goto(url)
            page.wait_for_selector('.st-key-rt [data-testid=stBidiComponentIsolated] .rt[data-ready="1"]')
            page.wait_for_selector(IDLE)
            for _ in range(5):
                page.evaluate("window.__rtA()")
                page.evaluate("window.__rtB(false)")
                page.evaluate("window.__rtB(true)")
            page.evaluate("window.__rt.a = []; window.__rt.b = []; window.__rt.c = []")
            for _ in range(args.blocks):
                for way, call in WAYS.items():
                    c0 = tree_cpu_seconds(proc.pid)
                    page.evaluate(f"async () => {{ for (let i = 0; i < 10; i++) {{ await window.{call}; "
                                  "await new Promise(r => setTimeout(r, 30)); } }")
                    cpu[way] += tree_cpu_seconds(proc.pid) - c0
            times = page.evaluate("({a: window.__rt.a, b: window.__rt.b, c: window.__rt.c})")
            runs = page.evaluate("window.__rt.runs")
            browser.close()
    finally:
        stop_server(proc)
    print(f"script runs in the session: {runs[0]} of the whole page, {runs[1]} of the fragment (each (a) trip "
          "is a fragment run only)")
    for way, name in NAMES.items():
        xs = times[way]
        print(f"{name}: n={len(xs)}, median {statistics.median(xs):.1f} ms, p95 {pct(xs, 0.95):.1f} ms, "
              f"min {min(xs):.1f} ms, max {max(xs):.1f} ms; server CPU {1000 * cpu[way] / len(xs):.1f} ms a trip")
    load = os.getloadavg()
    print(f"load average at the end {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
