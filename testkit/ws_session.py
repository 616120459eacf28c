"""A Streamlit session without a browser: Streamlit's own websocket protocol (``/_stcore/stream``), as a
script of an attacker's would speak it -- the cheapest way to hold many sessions of the app open (a few
kB each on the client's side).

:class:`WsSession` connects, asks for a run of the app with a query string (``?join=CODE``), reads the
server's messages until the run has finished, and collects the HTML the run drew (``st.html`` bodies) and
its exceptions; :meth:`WsSession.close` ends the session as a closed tab does. Loopback only: the tests use
it against their own ``streamlit run``."""

from __future__ import annotations

import time

__all__ = ["WsSession"]


class WsSession:
    """One session of the app at ``base_url`` (``http://127.0.0.1:PORT``, no trailing slash); ``headers``:
    extra headers of the websocket's handshake (e.g. ``X-Forwarded-For``, which uvicorn takes from a
    loopback peer: a session "from" another address)."""

    def __init__(self, base_url: str, headers: dict[str, str] | None = None, timeout: float = 60) -> None:
        from websockets.sync.client import connect

        uri = base_url.replace("http://", "ws://", 1).rstrip("/") + "/_stcore/stream"
        # max_queue=None: messages the test does not read (a rerun after the one it waited for) never stop the
        # client reading its socket, so the keepalive's pongs are read and the session stays open as a tab does
        self._connection = connect(
            uri,
            subprotocols=["streamlit"],
            additional_headers=headers or {},
            open_timeout=timeout,
            max_size=None,
            max_queue=None,
        )
        self.ws = self._connection.__enter__()
        self.html: list[str] = []
        self.exceptions: list[str] = []

    def run(self, query: str = "", timeout: float = 120) -> list[str]:
        """Run the app's script with ``query`` (``join=CODE``, without ``?``) and wait until the run has
        finished -- the last one, when the app reran itself (``st.rerun``); returns the ``st.html`` bodies it drew
        (also kept in :attr:`html`)."""
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        msg = BackMsg()
        msg.rerun_script.query_string = query
        self.ws.send(msg.SerializeToString())
        drawn: list[str] = []
        deadline = time.monotonic() + timeout
        while True:
            raw = self.ws.recv(timeout=max(0.1, deadline - time.monotonic()))
            if isinstance(raw, str):
                continue
            fwd = ForwardMsg.FromString(raw)
            kind = fwd.WhichOneof("type")
            if kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                el = fwd.delta.new_element
                which = el.WhichOneof("type")
                if which == "html":
                    drawn.append(el.html.body)
                elif which == "exception":
                    self.exceptions.append(el.exception.message)
            elif kind == "script_finished":
                if fwd.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    drawn = []  # the app reruns: what the page shows is the next run's
                    continue
                self.html = drawn
                return drawn

    def close(self) -> None:
        try:
            self._connection.__exit__(None, None, None)
        except Exception:
            pass
