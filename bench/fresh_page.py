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
* the server's CPU seconds for the page (``/proc``, its training workers included) and its RSS at the end.

Each server's first visitor (its Python caches cold, its gzip copies made then) is reported apart and not
in the medians. ``--server-arg`` passes an option to every server started (to compare settings, e.g.
``--server-arg=--server.enableWebsocketCompression=false``).

``--list`` prints, for one fresh page of each kind, every response by size (bytes on the wire, decoded
bytes, encoding): which JavaScript chunks a fresh page loads.

Before/after: ``--baseline DIR`` also starts the app from ``DIR`` (say ``git archive <commit> | tar -x -C
DIR``: the same virtualenv runs both) and interleaves the two servers round by round (baseline, this tree,
baseline, ...), so both see the same machine. The report gives medians, the load average at the start and
the end, and writes ``bench/results/fresh_page.json``. Run: ``python -m bench.fresh_page [--rounds 7]
[--baseline /tmp/bpe-before] [--list]``.
"""
from __future__ import annotations

import argparse
import base64
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.app_server import (CHROMIUM, CHROMIUM_ARGS, PLAYER, RESULTS, ROOT, conditions, rss_mb, start_server,
                              stop_server, tree_cpu_seconds)

#: (name, path, selector that says the page is ready)
PAGES = (("tokenize", "tokenize", ".tokv-spans"),
         ("player", "", f'{PLAYER}[data-ready="1"]'))


class Wire:
    """Counts what a page receives, from the DevTools protocol (``Network`` domain) of its CDP session."""

    def __init__(self, page):
        self.responses: dict[str, dict] = {}
        self.ws_bytes = 0
        self.ws_frames = 0
        self.stop_at: float | None = None
        self.t0: float | None = None               # DevTools' monotonic time of the page's request
        self.frames: list[float] = []              # ... of each websocket frame received
        self.static_done = 0.0                     # ... of the last static file finished
        cdp = page.context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.on("Network.requestWillBeSent", self._request)
        cdp.on("Network.responseReceived", self._response)
        cdp.on("Network.dataReceived", self._data)
        cdp.on("Network.loadingFinished", self._finished)
        cdp.on("Network.webSocketFrameReceived", self._frame)

    def _request(self, ev):
        if self.t0 is None and ev.get("type") == "Document":
            self.t0 = ev["timestamp"]

    def _response(self, ev):
        r = ev["response"]
        headers = {k.lower(): v for k, v in r.get("headers", {}).items()}
        self.responses[ev["requestId"]] = {"url": r["url"], "status": r["status"], "mime": r.get("mimeType", ""),
                                           "encoding": headers.get("content-encoding", ""), "decoded": 0,
                                           "wire": 0}

    def _data(self, ev):
        if ev["requestId"] in self.responses:
            self.responses[ev["requestId"]]["decoded"] += ev.get("dataLength", 0)

    def _finished(self, ev):
        if ev["requestId"] in self.responses:
            self.responses[ev["requestId"]]["wire"] = ev.get("encodedDataLength", 0)
            if "/static/" in self.responses[ev["requestId"]]["url"]:
                self.static_done = max(self.static_done, ev["timestamp"])

    def _frame(self, ev):
        if self.stop_at is not None:
            return
        r = ev["response"]
        data = r.get("payloadData", "")
        self.ws_frames += 1
        self.frames.append(ev["timestamp"])
        self.ws_bytes += len(base64.b64decode(data)) if r.get("opcode") == 2 else len(data.encode())

    def http_bytes(self) -> int:
        return sum(r["wire"] for r in self.responses.values())


def server_sent(port: int) -> int:
    """TCP payload bytes the server on ``port`` has sent on its established connections (``ss -ti``)."""
    out = subprocess.run(["ss", "-Htin", "state", "established", f"( sport = :{port} )"], capture_output=True,
                         text=True, check=True).stdout
    return sum(int(n) for n in re.findall(r"bytes_sent:(\d+)", out))


def fresh(browser, url: str, path: str, ready: str, pid: int | None = None) -> tuple[dict, list[dict]]:
    """One fresh context opening ``url + path``; returns (figures, responses). ``pid``: the server's process,
    whose CPU seconds for the page are counted too (``server_cpu_s``, its training workers included)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    wire = Wire(page)
    port = int(url.rstrip("/").rsplit(":", 1)[1])
    try:
        before = server_sent(port)        # other contexts' connections are closed: normally 0
        cpu = tree_cpu_seconds(pid) if pid else 0.0
        t0 = time.perf_counter()
        page.goto(url + path)
        page.wait_for_selector(ready, timeout=60_000)
        ready_s = time.perf_counter() - t0
        wire.stop_at = ready_s
        page.wait_for_timeout(300)        # responses already under way finish (their loadingFinished)
        rs = list(wire.responses.values())
        out = {"ready_s": ready_s, "http_bytes": wire.http_bytes(), "ws_bytes": wire.ws_bytes,
               "bytes": wire.http_bytes() + wire.ws_bytes, "responses": len(rs),
               "compressed": sum(1 for r in rs if r["encoding"]),
               "decoded_bytes": sum(r["decoded"] for r in rs)}
        if wire.t0 is not None:   # the page's timeline (DevTools' clock, from its request): where the time went
            out["static_done_s"] = wire.static_done - wire.t0
            early = [f - wire.t0 for f in wire.frames if f - wire.t0 <= ready_s]
            out["first_frame_s"], out["last_frame_s"] = (early[0], early[-1]) if early else (None, None)
        out["server_bytes"] = server_sent(port) - before
        if pid:
            out["server_cpu_s"] = tree_cpu_seconds(pid) - cpu
        return out, rs
    finally:
        ctx.close()


def list_responses(name: str, rs: list[dict], url: str) -> None:
    rs = sorted(rs, key=lambda r: -r["wire"])
    print(f"\n{name}: {len(rs)} responses, {sum(r['wire'] for r in rs) / 1e6:.2f} MB on the wire, "
          f"{sum(r['decoded'] for r in rs) / 1e6:.2f} MB decoded")
    for r in rs:
        print(f"  {r['wire'] / 1e3:9.1f} KB wire {r['decoded'] / 1e3:9.1f} KB decoded  {r['encoding'] or '-':5}"
              f"  {r['url'].replace(url, '/')[:110]}")


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--baseline", type=Path, help="a tree of the app to compare with (started from there)")
    ap.add_argument("--list", action="store_true", help="list every response of one fresh page of each kind")
    ap.add_argument("--server-arg", action="append", default=[], help="an option for every server started, "
                    "e.g. --server-arg=--server.enableWebsocketCompression=true")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    print(conditions())
    trees = ([("before", args.baseline)] if args.baseline else []) + [("after" if args.baseline else "this", ROOT)]
    servers = {}
    try:
        for label, root in trees:
            servers[label] = start_server(f"fresh-{label}.log", tuple(args.server_arg), root=root)
        results: dict = {label: {name: [] for name, _, _ in PAGES} for label, _ in trees}
        first: dict = {}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            for label, (proc, url) in servers.items():   # a first visitor each (Python imports, caches warm)
                for name, path, ready in PAGES:
                    fig, rs = fresh(browser, url, path, ready, proc.pid)
                    first[f"{label}/{name}"] = fig
                    print(f"first visitor {label:6} {name:8} ready {fig['ready_s']:.2f} s, "
                          f"{fig['bytes'] / 1e6:.2f} MB, server CPU {fig['server_cpu_s']:.2f} s (gzip copies made "
                          "then: the server's first requests for those files)", flush=True)
                    if args.list:
                        list_responses(f"{label} {name}", rs, url)
            for i in range(args.rounds):
                for name, path, ready in PAGES:
                    for label, (proc, url) in servers.items():
                        fig, _ = fresh(browser, url, path, ready, proc.pid)
                        results[label][name].append(fig)
                        print(f"round {i + 1} {label:6} {name:8} ready {fig['ready_s']:.2f} s, "
                              f"{fig['bytes'] / 1e6:.2f} MB ({fig['http_bytes'] / 1e6:.2f} HTTP + "
                              f"{fig['ws_bytes'] / 1e6:.3f} websocket; server wrote "
                              f"{fig['server_bytes'] / 1e6:.2f} MB; server CPU {fig['server_cpu_s']:.2f} s), "
                              f"{fig['responses']} responses, "
                              f"{fig['compressed']} compressed", flush=True)
            browser.close()
        rss = {label: rss_mb(proc.pid) for label, (proc, _) in servers.items()}
    finally:
        for proc, _ in servers.values():
            stop_server(proc)
    print(f"\nmedians over {args.rounds} fresh contexts each:")
    summary = {}
    for label, pages in results.items():
        for name, figs in pages.items():
            s = {k: median([f[k] for f in figs]) for k in ("ready_s", "bytes", "http_bytes", "ws_bytes",
                                                           "server_bytes", "server_cpu_s", "responses",
                                                           "compressed", "decoded_bytes", "static_done_s",
                                                           "first_frame_s", "last_frame_s")}
            s["ready_max"] = max(f["ready_s"] for f in figs)
            summary[f"{label}/{name}"] = s
            print(f"  {label:6} {name:8} ready {s['ready_s']:.2f} s (worst {s['ready_max']:.2f}), "
                  f"{s['bytes'] / 1e6:.2f} MB on the wire ({s['decoded_bytes'] / 1e6:.2f} MB decoded; server "
                  f"sent {s['server_bytes'] / 1e6:.2f} MB, its CPU {s['server_cpu_s']:.2f} s), "
                  f"{s['responses']:.0f} responses, {s['compressed']:.0f} compressed; static files in by "
                  f"{s['static_done_s']:.2f} s, the server's frames {s['first_frame_s']:.2f}-{s['last_frame_s']:.2f} s")
    for label, mb in rss.items():
        print(f"  {label:6} server RSS at the end {mb:.0f} MB")
    load = os.getloadavg()
    print(f"load average at the end {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "fresh_page.json").write_text(json.dumps({"conditions": conditions(), "summary": summary, "rss_mb": rss,
                                                         "first_visitor": first,
                                                         "rounds": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
