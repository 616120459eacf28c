"""``serving.page_base.PageBase``: a deep-linked page's index.html tells Streamlit's frontend its base path (issue
31: every deep-linked page logged two 404s, ``/tokenize/_stcore/health`` and ``/tokenize/_stcore/host-config``).
Driven here as an ASGI app in front of a stand-in for Streamlit; the browser side (no console error on any page,
deep-linked too) is tests/browser/test_tokenize_first_screen_browser.py. The script itself is run by node: the
base it sets for a browser's path is what Streamlit's ``getPossibleBaseUris`` would have found by trial."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess

import pytest
from test_serving import call

from serving.page_base import PageBase, base_script

INDEX = (
    b"<!DOCTYPE html><html><head><meta charset='UTF-8'/><script type=module src='./static/js/i.js'></script>"
    b"</head><body></body></html>"
)


class Streamlit:
    """Answers every path as Streamlit's static mount does: index.html (gzip when asked), else a 404."""

    def __init__(self):
        self.seen = []

    async def __call__(self, scope, receive, send):
        headers = dict(scope["headers"])
        self.seen.append((scope["path"], headers.get(b"accept-encoding")))
        if scope["path"].endswith(("_stcore/health", "_stcore/host-config")) and scope["path"] != "/_stcore/health":
            await send({"type": "http.response.start", "status": 404, "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"Not Found"})
            return
        body, extra = INDEX, []
        if b"gzip" in (headers.get(b"accept-encoding") or b""):
            body, extra = gzip.compress(INDEX), [(b"content-encoding", b"gzip")]
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"text/html; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                    (b"etag", b'"abc"'),
                    *extra,
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def test_a_deep_linked_page_gets_the_base_before_the_frontends_module():
    mw = PageBase(Streamlit(), base_url="")
    status, headers, body = call(mw, "/tokenize")
    assert status == 200 and headers["content-encoding"] == "gzip" and "etag" not in headers
    page = gzip.decompress(body)
    assert int(headers["content-length"]) == len(body)
    assert page.index(b"BACKEND_BASE_URL") < page.index(b"<script type=module")
    assert page.replace(base_script(1), b"") == INDEX


def test_without_gzip_the_page_is_sent_plain():
    mw = PageBase(Streamlit(), base_url="")
    status, headers, body = call(mw, "/token-tax", headers=())
    assert (
        status == 200
        and "content-encoding" not in headers
        and body == INDEX.replace(b"<head>", b"<head>" + base_script(1))
    )


@pytest.mark.parametrize(
    "path", ["/", "/_stcore/health", "/static/js/i.js", "/favicon.png", "/media/x", "/tokenize/_stcore/health"]
)
def test_everything_else_goes_through_unchanged(path):
    inner = Streamlit()
    mw = PageBase(inner, base_url="")
    status, headers, body = call(mw, path)
    assert mw.injected == 0 and inner.seen == [(path, b"gzip, deflate, br")]
    assert b"BACKEND_BASE_URL" not in (gzip.decompress(body) if headers.get("content-encoding") else body)


def test_under_a_base_url_path():
    mw = PageBase(Streamlit(), base_url="/bpe/")
    assert b"BACKEND_BASE_URL" in gzip.decompress(call(mw, "/bpe/tokenize")[2])
    assert mw.injected == 1
    call(mw, "/bpe")
    call(mw, "/bpe/_stcore/host-config")
    assert mw.injected == 1


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize(
    "browser_path, segments, base",
    [
        ("/tokenize", 1, "http://h:1/"),
        ("/tokenize/", 1, "http://h:1/"),
        ("/bpe/tokenize", 1, "http://h:1/bpe/"),  # behind a proxy that adds a prefix
        ("/a/b", 2, "http://h:1/"),
    ],
)
def test_the_script_sets_the_base_streamlit_would_have_found(browser_path, segments, base):
    script = base_script(segments).decode().removeprefix("<script>").removesuffix("</script>")
    js = (
        f"globalThis.location = {{ pathname: {json.dumps(browser_path)}, origin: 'http://h:1' }};"
        f"globalThis.window = globalThis; {script}; console.log(JSON.stringify(window.__streamlit));"
    )
    out = subprocess.run(["node", "-e", js], capture_output=True, text=True, timeout=30, check=True).stdout
    assert json.loads(out) == {"BACKEND_BASE_URL": base}
