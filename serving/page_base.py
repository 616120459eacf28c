"""A deep-linked page (``/tokenize``) without the two 404s Streamlit's frontend logs on the way in (issue 31).

Streamlit's frontend does not know the server's base path: on a page at ``/tokenize`` it tries the path itself
first (``/tokenize/_stcore/health`` and ``/tokenize/_stcore/host-config``, both 404 -- Streamlit 1.67 keeps those
paths out of its index.html fallback on purpose), then the path one segment up (``/``), which answers. The
browser logs each failed fetch as a console error, on every deep-linked page load. (The candidates are the
frontend's ``getPossibleBaseUris``: the page's path and the one above it; the ping tries them in turn.)

The frontend takes the base from ``window.__streamlit.BACKEND_BASE_URL`` when that is set (its embedding
hook, read once when its module loads), and then tries that one only. :class:`PageBase` is an ASGI middleware
(``app.py`` gives it to ``st.App``) that writes it into the index.html Streamlit answers for a page's path: a
few lines of script ahead of the frontend's module, which take the page's own segments (counted here, on the
server's path) off the browser's path -- so the base stays right behind a proxy that adds a prefix (the
browser's ``/bpe/tokenize`` -> ``/bpe/``) and under ``server.baseUrlPath``.

Everything else goes on unchanged: any method but ``GET``, the root page (the frontend tries one base
there already), Streamlit's own routes (``_stcore/``, ``static/``, ``media/``, ``component/``, ``app/``), any
path whose last segment has a dot (a file), and any response that is not HTML. A page's HTML is asked of
Streamlit uncompressed and gzip-compressed here when the browser accepts it (~2.4 KB instead of ~7.9 KB).
"""

from __future__ import annotations

import gzip
import json

from .static import accepts_gzip

__all__ = ["PageBase", "page_segments", "base_script", "inject"]

#: Streamlit's own routes, under the base: never a page (and ``_stcore`` anywhere in a path: a route's path
#: after a page's, as the frontend's first guess asks)
RESERVED = frozenset({"_stcore", "static", "media", "component", "app", "auth", "oauth2callback"})


def page_segments(path: str, base_url: str = "") -> int:
    """How many path segments name a page in ``path`` (0: not a page's path: the root, a file, a route).

    >>> page_segments("/tokenize"), page_segments("/"), page_segments("/_stcore/health"), page_segments("/favicon.png")
    (1, 0, 0, 0)
    >>> page_segments("/tokenize/_stcore/health"), page_segments("/static/js/x"), page_segments("/a/b")
    (0, 0, 2)
    >>> page_segments("/bpe/token-tax", "bpe"), page_segments("/bpe", "bpe"), page_segments("/other", "bpe")
    (1, 0, 0)
    """
    base = base_url.strip("/")
    if base:
        if path != f"/{base}" and not path.startswith(f"/{base}/"):
            return 0
        path = path[len(base) + 1 :]
    parts = path.strip("/").split("/")
    if parts == [""] or parts[0] in RESERVED or "_stcore" in parts or "." in parts[-1]:
        return 0
    return len(parts)


def base_script(segments: int) -> bytes:
    """The script that sets the frontend's base: the browser's path less the page's ``segments``."""
    return (
        "<script>(function(){var p=location.pathname.replace(/\\/+$/,'').split('/');"
        f"p.length=Math.max(1,p.length-{json.dumps(segments)});"
        "window.__streamlit=Object.assign({},window.__streamlit,"
        "{BACKEND_BASE_URL:location.origin+p.join('/')+'/'});})()</script>"
    ).encode()


def inject(page: bytes, script: bytes) -> bytes:
    """``page`` with ``script`` right after its ``<head>`` (before every other script); unchanged without one.

    >>> inject(b"<html><head><title>x</title>", b"<script>s</script>")
    b'<html><head><script>s</script><title>x</title>'
    """
    at = page.find(b"<head>")
    if at < 0:
        return page
    at += len(b"<head>")
    return page[:at] + script + page[at:]


class PageBase:
    """ASGI middleware: a page's index.html tells the frontend its base (see the module's docstring).

    ``base_url``: ``server.baseUrlPath`` (read from Streamlit's config when None)."""

    def __init__(self, app, base_url: str | None = None):
        self.app = app
        self._base_url = base_url
        #: pages answered with the base written in (read by tests)
        self.injected = 0

    def _base(self) -> str:
        if self._base_url is None:
            from streamlit import config

            return config.get_option("server.baseUrlPath") or ""
        return self._base_url

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope.get("method") != "GET":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        root_path = scope.get("root_path", "")
        if root_path and path.startswith(root_path + "/"):
            path = path[len(root_path) :]
        segments = page_segments(path, self._base())
        if not segments:
            await self.app(scope, receive, send)
            return
        headers = list(scope.get("headers") or ())
        gz = accepts_gzip(dict(headers).get(b"accept-encoding", b"").decode("latin-1"))
        inner = dict(scope, headers=[(k, v) for k, v in headers if k.lower() != b"accept-encoding"])
        start: dict | None = None
        body: list[bytes] = []

        async def relay(message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                kinds = [v for k, v in message.get("headers", []) if k.lower() == b"content-type"]
                if message.get("status") == 200 and kinds and kinds[0].startswith(b"text/html"):
                    start = message  # held until the whole page is here
                    return
                await send(message)
            elif message["type"] == "http.response.body" and start is not None:
                body.append(message.get("body", b""))
                if message.get("more_body"):
                    return
                page = inject(b"".join(body), base_script(segments))
                drop = {b"content-length", b"content-encoding", b"etag", b"last-modified", b"vary"}
                out = [(k, v) for k, v in start.get("headers", []) if k.lower() not in drop]
                if gz:
                    page = gzip.compress(page, compresslevel=6, mtime=0)
                    out.append((b"content-encoding", b"gzip"))
                out += [(b"vary", b"Accept-Encoding"), (b"content-length", str(len(page)).encode())]
                self.injected += 1
                await send(dict(start, headers=out))
                await send({"type": "http.response.body", "body": page})
            else:
                await send(message)

        await self.app(inner, receive, relay)
