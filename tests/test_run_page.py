"""views/run_page.py: the run as one offline web page, checked without a server (the browser test
tests/browser/test_player_use_browser.py opens it from file:// and plays it)."""

from __future__ import annotations

import base64
import gzip
import json
import re
from html.parser import HTMLParser

import pytest

import bpe
from bpe.replay import MergeIndex, Replay
from components.merge_player import PLAYER_CSS, PLAYER_JS
from views.player_payload import pack, run_payload, window_payload
from views.run_page import page_module, run_page_html

HOSTILE = '<img src=x onerror=alert(1)></script><script>alert(2)</script> & "quotes"'


@pytest.fixture(scope="module")
def built():
    text = "aaabdaaabac hello hello world"
    run = bpe.train(text, 262, pattern="gpt4")
    run_p = run_payload(run, tag="t1")
    win_p = window_payload(Replay.build(run, MergeIndex(run), text), tag="t1", n_merges=len(run.merges), level="byte")
    page = run_page_html(
        pack(run_p),
        pack(win_p),
        tag="t1",
        player_js=PLAYER_JS,
        player_css=PLAYER_CSS,
        title=HOSTILE,
        about=HOSTILE,
        speed=5,
    )
    return run_p, win_p, page


class Elements(HTMLParser):
    """Every start tag with its attributes, and the text of each <script> by its id (or type)."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.scripts: dict[str, str] = {}
        self._in: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "script":
            self._in = a.get("id") or a.get("type") or "?"
            self.scripts[self._in] = ""

    def handle_endtag(self, tag):
        if tag == "script":
            self._in = None

    def handle_data(self, data):
        if self._in:
            self.scripts[self._in] += data


def parsed(page: str) -> Elements:
    p = Elements()
    p.feed(page)
    return p


def test_the_payloads_travel_intact(built):
    run_p, win_p, page = built
    p = parsed(page)
    for sid, payload in (("bpe-run", run_p), ("bpe-window", win_p)):
        raw = gzip.decompress(base64.b64decode(p.scripts[sid].strip()))
        assert json.loads(raw) == payload


def test_the_player_code_and_styles_are_inline_and_nothing_is_fetched(built):
    _, _, page = built
    p = parsed(page)
    module = p.scripts["module"]
    # the player's own module (its bundle), its default export made a name of the page's module
    assert page_module(PLAYER_JS) in module
    assert not re.search(r"\bexport\b", module)
    assert json.dumps(PLAYER_CSS)[1:40] in module
    # no element loads anything: no src, no href, no <link>, <iframe>, <img>
    assert [t for t, a in p.tags if "src" in a or "href" in a or t in ("link", "iframe", "img", "object")] == []
    assert not re.search(r"\bimport\s*\(|\bfetch\s*\(|XMLHttpRequest|WebSocket|@import|url\(", page)
    csp = next(a["content"] for t, a in p.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy")
    assert "default-src 'none'" in csp


def test_the_title_is_text(built):
    _, _, page = built
    p = parsed(page)
    assert [t for t, _ in p.tags].count("script") == 3  # the two payloads and the module: none injected
    assert "onerror" not in "".join(str(a) for _, a in p.tags)
    assert "&lt;img src=x onerror=alert(1)&gt;&lt;/script&gt;" in page


def test_a_module_that_would_close_its_script_element_is_refused():
    with pytest.raises(ValueError, match="</script"):
        run_page_html(
            b"",
            b"",
            tag="t",
            player_js="function m() {}\nconst s = '</script>';\nexport { m as default };",
            player_css="",
            title="x",
        )
    with pytest.raises(ValueError, match="exactly one"):
        run_page_html(b"", b"", tag="t", player_js="function mount() {}", player_css="", title="x")
