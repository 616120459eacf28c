"""One fresh page of the app in a new Chromium context: time to ready, bytes on the wire (HTTP responses as
received and the websocket frames before ready, from the DevTools protocol), what the server sent (``ss``)
and its CPU seconds. ``bench/fresh_page.py`` times it round after round; ``tests/browser/
test_fresh_page_browser.py`` checks a fresh page's size and compression with it.
"""

from __future__ import annotations

import base64
import re
import subprocess
import time

from .app_server import PLAYER, tree_cpu_seconds

#: (name, path, selector that says the page is ready)
PAGES = (("tokenize", "tokenize", ".tokv-spans"), ("player", "", f'{PLAYER}[data-ready="1"]'))
#: a selector that says a page is complete, where that comes after ready: a fresh Tokenize page draws its
#: tokens first, its settings bar and trace section (the page's last part) in the run after
COMPLETE = {"tokenize": '[class*="st-key-tok_trace_"]'}

#: In the page, at every animation frame: whether ``sel`` matches an element laid out, in the document or in a
#: shadow root (our components draw in one), as Playwright's CSS does: the selector's first parts may match the
#: shadow root's host and its ancestors, its last parts inside (``.st-key-merge_player [data-testid=...] .mp``).
_DRAWN_JS = """sel => {
  const parts = sel.trim().split(/\\s+/);
  const shown = (el) => !!el && el.getClientRects().length > 0;
  const find = (root) => {
    if (shown(root.querySelector(sel))) return true;
    for (const host of root.querySelectorAll("*")) {
      if (!host.shadowRoot) continue;
      for (let i = 1; i < parts.length; i++) {
        if (host.matches(parts.slice(0, i).join(" ")) && shown(host.shadowRoot.querySelector(parts.slice(i).join(" ")))) return true;
      }
      if (find(host.shadowRoot)) return true;
    }
    return false;
  };
  return find(document);
}"""


def wait_drawn(page, selector: str, timeout_ms: float = 60_000) -> None:
    """Wait until ``selector`` is drawn, seen from inside the page at the first animation frame it is (the
    ready of a fresh page). Not ``page.wait_for_selector``: it looks again after 0, 20, 50, 100, 100 ms and
    then every 500 ms, so a page drawn at 1.3 s was seen at up to 1.8 s."""
    page.wait_for_function(_DRAWN_JS, arg=selector, polling="raf", timeout=timeout_ms)


class Wire:
    """Counts what a page receives, from the DevTools protocol (``Network`` domain) of its CDP session."""

    def __init__(self, page, latency_ms: float = 0):
        self.responses: dict[str, dict] = {}
        self.ws_bytes = 0
        self.ws_all = 0  # (also after ready)
        self.ws_frames = 0
        self.stop_at: float | None = None
        self.t0: float | None = None  # DevTools' monotonic time of the page's request
        self.frames: list[float] = []  # ... of each websocket frame received
        self.static_done = 0.0  # ... of the last static file finished
        cdp = page.context.new_cdp_session(page)
        cdp.send("Network.enable")
        if latency_ms:  # a network between browser and server: each request waits this long (Chromium's throttle)
            cdp.send(
                "Network.emulateNetworkConditions",
                {"offline": False, "latency": latency_ms, "downloadThroughput": -1, "uploadThroughput": -1},
            )
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
        self.responses[ev["requestId"]] = {
            "url": r["url"],
            "status": r["status"],
            "mime": r.get("mimeType", ""),
            "encoding": headers.get("content-encoding", ""),
            "decoded": 0,
            "wire": 0,
        }

    def _data(self, ev):
        if ev["requestId"] in self.responses:
            self.responses[ev["requestId"]]["decoded"] += ev.get("dataLength", 0)

    def _finished(self, ev):
        if ev["requestId"] in self.responses:
            self.responses[ev["requestId"]]["wire"] = ev.get("encodedDataLength", 0)
            if "/static/" in self.responses[ev["requestId"]]["url"]:
                self.static_done = max(self.static_done, ev["timestamp"])

    def _frame(self, ev):
        r = ev["response"]
        data = r.get("payloadData", "")
        size = len(base64.b64decode(data)) if r.get("opcode") == 2 else len(data.encode())
        self.ws_all += size
        if self.stop_at is not None:
            return
        self.ws_frames += 1
        self.frames.append(ev["timestamp"])
        self.ws_bytes += size

    def http_bytes(self) -> int:
        return sum(r["wire"] for r in self.responses.values())


def server_sent(port: int) -> int:
    """TCP payload bytes the server on ``port`` has sent on its established connections (``ss -ti``)."""
    out = subprocess.run(
        ["ss", "-Htin", "state", "established", f"( sport = :{port} )"], capture_output=True, text=True, check=True
    ).stdout
    return sum(int(n) for n in re.findall(r"bytes_sent:(\d+)", out))


def fresh(
    browser,
    url: str,
    path: str,
    ready: str,
    pid: int | None = None,
    latency_ms: float = 0,
    complete: str | None = None,
) -> tuple[dict, list[dict]]:
    """One fresh context opening ``url + path``; returns (figures, responses). ``pid``: the server's process,
    whose CPU seconds for the page are counted too (``server_cpu_s``, its training workers included);
    ``latency_ms``: each request's added latency (a server across a network, not on the same machine);
    ``complete``: a selector drawn once the whole page is (:data:`COMPLETE`): ``complete_s`` and
    ``complete_bytes`` (every byte received by then) too."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    wire = Wire(page, latency_ms)
    port = int(url.rstrip("/").rsplit(":", 1)[1])
    try:
        before = server_sent(port)  # other contexts' connections are closed: normally 0
        cpu = tree_cpu_seconds(pid) if pid else 0.0
        t0 = time.perf_counter()
        page.goto(url + path)
        wait_drawn(page, ready)
        ready_s = time.perf_counter() - t0
        wire.stop_at = ready_s
        page.wait_for_timeout(300)  # responses already under way finish (their loadingFinished)
        rs = list(wire.responses.values())
        out = {
            "ready_s": ready_s,
            "http_bytes": wire.http_bytes(),
            "ws_bytes": wire.ws_bytes,
            "bytes": wire.http_bytes() + wire.ws_bytes,
            "responses": len(rs),
            "compressed": sum(1 for r in rs if r["encoding"]),
            "decoded_bytes": sum(r["decoded"] for r in rs),
        }
        if wire.t0 is not None:  # the page's timeline (DevTools' clock, from its request): where the time went
            out["static_done_s"] = wire.static_done - wire.t0
            early = [f - wire.t0 for f in wire.frames if f - wire.t0 <= ready_s]
            out["first_frame_s"], out["last_frame_s"] = (early[0], early[-1]) if early else (None, None)
        out["server_bytes"] = server_sent(port) - before
        if complete:
            wait_drawn(page, complete)
            out["complete_s"] = time.perf_counter() - t0
            page.wait_for_timeout(300)
            out["complete_bytes"] = wire.http_bytes() + wire.ws_all
        if pid:
            out["server_cpu_s"] = tree_cpu_seconds(pid) - cpu
        return out, rs
    finally:
        ctx.close()
