"""What ``app.py`` adds to a plain ``streamlit run`` (``serving/``): Streamlit's static files sent from gzip
copies (``serving.static.CompressedStatic``, driven here as an ASGI app over a folder of our own, no server)
and ``TCP_NODELAY`` on the server's connections (``serving.tcp``). The browser side — a fresh page's files
arrive compressed and its bytes stay under the bound — is ``tests/browser/test_fresh_page_browser.py``."""

from __future__ import annotations

import asyncio
import gzip
import os
import socket
import time
from pathlib import Path

import pytest

from serving import static, tcp
from serving.static import CompressedStatic
from testkit.aio import run  # beside a browser test's Playwright loop too

JS = ("function f(x){return x*2}\n" * 400).encode()  # 10 KB of compressible JavaScript


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "static"
    (root / "static" / "js").mkdir(parents=True)
    (root / "static" / "media").mkdir(parents=True)
    (root / "static" / "js" / "index.abc123.js").write_bytes(JS)
    (root / "static" / "js" / "tiny.js").write_bytes(b"x=1")
    (root / "static" / "media" / "font.woff2").write_bytes(os.urandom(5000))
    (root / "secret.js").write_bytes(JS)  # outside static/static: never served by us
    return root


class Passed:
    """The app behind the middleware: records what reached it and answers 200 'streamlit'."""

    def __init__(self):
        self.paths = []

    async def __call__(self, scope, receive, send):
        self.paths.append(scope["path"])
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"streamlit"})


def receiver():
    """An ASGI ``receive``: the (empty) request once, then nothing until the response is done (as a server
    does until the client disconnects)."""
    sent = []

    async def receive():
        if not sent:
            sent.append(1)
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Event().wait()

    return receive


def call(mw, path, headers=(("accept-encoding", "gzip, deflate, br"),), method="GET"):
    """One request through ``mw``: (status, headers dict, body)."""
    out = {"headers": {}, "body": b""}
    receive = receiver()

    async def send(message):
        if message["type"] == "http.response.start":
            out["status"] = message["status"]
            out["headers"] = {k.decode().lower(): v.decode() for k, v in message["headers"]}
        elif message["type"] == "http.response.body":
            out["body"] += message.get("body", b"")

    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "root_path": "",
        "query_string": b"",
        "headers": [(k.encode(), v.encode()) for k, v in headers],
    }
    run(mw(scope, receive, send))
    return out["status"], out["headers"], out["body"]


def make(folder, tmp_path, base_url=""):
    inner = Passed()
    return CompressedStatic(inner, static_dir=folder, cache=tmp_path / "cache", base_url=base_url), inner


def test_a_static_script_is_sent_from_a_gzip_copy_made_once(folder, tmp_path):
    mw, inner = make(folder, tmp_path)
    status, headers, body = call(mw, "/static/js/index.abc123.js")
    assert status == 200 and headers["content-encoding"] == "gzip" and headers["vary"] == "Accept-Encoding"
    assert gzip.decompress(body) == JS and len(body) < len(JS) / 5
    assert headers["cache-control"] == "public, immutable, max-age=31536000"
    assert headers["content-type"].startswith("text/javascript") and int(headers["content-length"]) == len(body)
    assert "accept-ranges" not in headers and inner.paths == []
    copy = tmp_path / "cache" / "static" / "js" / "index.abc123.js.gz"
    assert copy.exists() and mw.compressed == 1
    call(mw, "/static/js/index.abc123.js")  # the copy is reused, not made again
    assert mw.compressed == 1 and mw.served == 2
    # a HEAD gets the headers
    status, headers, body = call(mw, "/static/js/index.abc123.js", method="HEAD")
    assert status == 200 and headers["content-encoding"] == "gzip" and body == b""


def test_a_newer_installed_file_is_compressed_again(folder, tmp_path):
    mw, _ = make(folder, tmp_path)
    call(mw, "/static/js/index.abc123.js")
    src = folder / "static" / "js" / "index.abc123.js"
    src.write_bytes(JS + b"//v2\n")
    later = time.time() + 5
    os.utime(src, (later, later))
    _, _, body = call(mw, "/static/js/index.abc123.js")
    assert gzip.decompress(body).endswith(b"//v2\n") and mw.compressed == 2


@pytest.mark.parametrize(
    "path, headers",
    [
        ("/static/js/index.abc123.js", (("accept-encoding", "br"),)),  # no gzip accepted
        ("/static/js/index.abc123.js", (("accept-encoding", "gzip;q=0"),)),
        ("/static/js/index.abc123.js", (("accept-encoding", "gzip"), ("range", "bytes=0-10"))),
        ("/static/js/tiny.js", (("accept-encoding", "gzip"),)),  # under MIN_SIZE
        ("/static/media/font.woff2", (("accept-encoding", "gzip"),)),  # compressed already
        ("/static/js/missing.js", (("accept-encoding", "gzip"),)),  # Streamlit's 404/fallback
        ("/static/../secret.js", (("accept-encoding", "gzip"),)),  # traversal
        ("/static/js/../../secret.js", (("accept-encoding", "gzip"),)),
        ("/static//etc/passwd", (("accept-encoding", "gzip"),)),
        ("/secret.js", (("accept-encoding", "gzip"),)),  # not under /static/
        ("/_stcore/health", (("accept-encoding", "gzip"),)),
    ],
)
def test_everything_else_goes_to_streamlit_unchanged(folder, tmp_path, path, headers):
    mw, inner = make(folder, tmp_path)
    status, out, body = call(mw, path, headers)
    assert body == b"streamlit" and "content-encoding" not in out and inner.paths == [path]
    assert mw.served == 0


def test_a_symlink_out_of_the_folder_is_not_followed(folder, tmp_path):
    outside = tmp_path / "outside.js"
    outside.write_bytes(JS)
    (folder / "static" / "js" / "link.js").symlink_to(outside)
    mw, inner = make(folder, tmp_path)
    _, _, body = call(mw, "/static/js/link.js")
    assert body == b"streamlit" and inner.paths == ["/static/js/link.js"]


def test_under_a_base_url(folder, tmp_path):
    mw, inner = make(folder, tmp_path, base_url="/lab/")
    _, headers, body = call(mw, "/lab/static/js/index.abc123.js")
    assert headers["content-encoding"] == "gzip" and gzip.decompress(body) == JS
    _, _, body = call(mw, "/static/js/index.abc123.js")  # the prefix is the base URL's
    assert body == b"streamlit"


def test_concurrent_first_requests_share_one_compression(folder, tmp_path):
    mw, _ = make(folder, tmp_path)
    bodies = []

    async def one():
        out = []
        receive = receiver()

        async def send(message):
            if message["type"] == "http.response.body":
                out.append(message.get("body", b""))

        await mw(
            {
                "type": "http",
                "method": "GET",
                "path": "/static/js/index.abc123.js",
                "root_path": "",
                "headers": [(b"accept-encoding", b"gzip")],
            },
            receive,
            send,
        )
        bodies.append(b"".join(out))

    async def many():
        await asyncio.gather(*(one() for _ in range(8)))

    run(many())
    assert mw.compressed == 1 and len(bodies) == 8 and all(gzip.decompress(b) == JS for b in bodies)


def test_cache_dir_is_private(tmp_path, monkeypatch):
    monkeypatch.setenv("BPE_STATIC_CACHE", str(tmp_path / "c"))
    d = static.cache_dir("9.9")
    assert d == tmp_path / "c" / "streamlit-9.9" and (d.stat().st_mode & 0o077) == 0
    (tmp_path / "open" / "streamlit-9.9").mkdir(parents=True)
    os.chmod(tmp_path / "open" / "streamlit-9.9", 0o777)
    monkeypatch.setenv("BPE_STATIC_CACHE", str(tmp_path / "open"))
    other = static.cache_dir("9.9")  # others could write there: a private temp folder
    assert other != tmp_path / "open" / "streamlit-9.9" and (other.stat().st_mode & 0o077) == 0


def test_the_installed_streamlit_static_folder_is_served_compressed(tmp_path):
    """The real folder: its entry script (named in index.html) comes back whole."""
    import re

    from streamlit import file_util

    root = Path(file_util.get_static_dir())
    name = re.search(r"static/js/index\.[\w-]+\.js", (root / "index.html").read_text()).group(0)
    mw, _ = CompressedStatic(Passed(), cache=tmp_path / "cache", base_url=""), None
    _, headers, body = call(mw, "/" + name)
    assert headers["content-encoding"] == "gzip" and gzip.decompress(body) == (root / name).read_bytes()


def test_nodelay_is_set_on_listening_sockets_and_inherited():
    listener = socket.socket(socket.AF_INET)  # protocol 0, as Streamlit binds its socket
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    try:
        assert listener.fileno() in tcp.listening_tcp_sockets()
        assert tcp.set_nodelay() >= 1
        client = socket.create_connection(listener.getsockname())
        conn, _ = listener.accept()
        with client, conn:
            assert conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
    finally:
        listener.close()
