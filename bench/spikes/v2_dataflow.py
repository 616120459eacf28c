"""Spike: measure how ``st.components.v2`` data flows in Streamlit 1.67 (a finding, not a test).

Starts ``bench/spikes/v2_dataflow_app.py`` and, in headless Chromium, counts websocket bytes and calls of
the component's default function for: a rerun with unchanged data, a rerun with changed data, and a value
the component reports with ``setStateValue``. Run: ``python -m bench.spikes.v2_dataflow``.

Findings (Streamlit 1.67.0, headless Chromium, a 200 KB ``data``; read with the source of
``streamlit/components/v2/bidi_component/main.py`` and ``static/js/BidiComponent.*.js``):

* A rerun with **unchanged data** re-sends the element as a ForwardMsg *reference* (the message is hashed;
  the browser lists the hashes it caches, ``global.minCachedMessageSize`` = 10 KB): ~2.5 KB on the
  websocket for the whole rerun instead of 200 KB. The default function is **not** called again (its
  ``useEffect`` depends on the parsed data, memoized on the JSON string).
* A rerun with **changed data** re-sends the whole element (JSON data *and* the JS/CSS text, which are in
  the same proto) and calls the default function **again, with the same ``parentElement``**: the DOM it
  built is kept. The cleanup it returned is **not** called between calls (only once, on unmount), so the
  function must update in place, keeping its own state per ``parentElement``.
* Two components registered with the **same JS text** share one module instance (the Blob URL is cached
  by a hash of the text): module-level state is shared, so separate elements can carry separate parts of
  the data (sent and cached independently) and still reach one player.
* ``setStateValue`` sends ~200 B and reruns the script; Python reads the value from the mount call's
  result.
* The websocket is not compressed (``server.enableWebsocketCompression`` is off by default).

So the merge player sends its run payload, its text window and its small controls as three elements of
one JS module: each is re-sent only when it changes, and a pause costs one small rerun.
"""
from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> int:
    from playwright.sync_api import sync_playwright

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(HERE / "v2_dataflow_app.py"),
                             "--server.headless", "true", "--server.address", "127.0.0.1", "--server.port",
                             str(port), "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=ARGS)
            page = b.new_page()
            frames = {"in": [], "out": []}

            def on_ws(ws):
                ws.on("framereceived", lambda f: frames["in"].append(len(f) if isinstance(f, (bytes, str)) else 0))
                ws.on("framesent", lambda f: frames["out"].append(len(f) if isinstance(f, (bytes, str)) else 0))

            page.on("websocket", on_ws)
            page.goto(f"http://127.0.0.1:{port}/?size=200000")
            page.wait_for_selector(".spike-tag >> text=tag 0", timeout=30_000) if False else None
            page.wait_for_function("() => window.__spike && window.__spike.calls >= 1", timeout=30_000)
            page.wait_for_selector(IDLE)
            page.wait_for_timeout(500)

            def mark():
                return len(frames["in"]), len(frames["out"])

            def since(m):
                return sum(frames["in"][m[0]:]), len(frames["in"]) - m[0], sum(frames["out"][m[1]:])

            def state():
                return page.evaluate("() => ({...window.__spike, tags: window.__spike.tags.join(','), module: window.__moduleCalls, twin: window.__twin})")

            print(f"first load: {sum(frames['in']):,} bytes in, {len(frames['in'])} frames; {state()}")
            rows = []
            for what, sel in (("rerun, same data", ".st-key-rerun button"), ("rerun, same data", ".st-key-rerun button"),
                              ("rerun, changed data", ".st-key-change button"),
                              ("rerun, same data", ".st-key-rerun button"), ("rerun, twin data changed", ".st-key-twin button")):
                m = mark()
                page.click(sel)
                page.wait_for_timeout(300)
                page.wait_for_selector(IDLE)
                page.wait_for_timeout(300)
                rows.append((what, *since(m), state()))
            m = mark()
            host = page.locator('[data-testid="stBidiComponentIsolated"]').first
            host.evaluate("h => h.shadowRoot.querySelector('.spike-report').click()")
            page.wait_for_timeout(300)
            page.wait_for_selector(IDLE)
            page.wait_for_timeout(300)
            rows.append(("setStateValue from JS", *since(m), state()))
            for what, bytes_in, n_in, bytes_out, st in rows:
                print(f"{what:24} in {bytes_in:>9,} B in {n_in:>3} frames, out {bytes_out:>5,} B | calls {st['calls']}"
                      f" fresh DOM {st['fresh']} cleanups {st['cleanups']} tags {st['tags']} | module-level calls {st['module']} twin {st['twin']}")
            print("text shown:", page.locator('[data-testid="stMarkdown"]').all_inner_texts())
            b.close()
    finally:
        proc.terminate()
        proc.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
