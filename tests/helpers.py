"""Helpers the app's tests share: opening a page in AppTest, reading what it drew, the preset texts.

``open_app`` opens the app the way a browser tab does: optionally with a link's query parameters, straight
on a page, or after a first run of the default page (the Merge player). ``html_bodies`` is every ``st.html``
body of the last run, ``page_html`` the same joined into one string, ``html_words`` a piece of HTML as the
words a reader sees (used by the browser tests too); ``wait_for`` polls a condition; ``share_link`` is the
page's share link (the ``components.copy_link`` element's data).
"""

from __future__ import annotations

import json
import re
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Iterable, Mapping

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app.py"
#: The preset texts of the Tokenize page and the lab, by key.
PRESETS: dict[str, dict] = {
    p["key"]: p for p in json.loads((ROOT / "sample_texts" / "presets.json").read_text(encoding="utf-8"))
}


def no_exception(at: AppTest) -> AppTest:
    """Fail with the page's own messages when the last run raised."""
    assert not at.exception, [e.message for e in at.exception]
    return at


def open_app(
    page: str | None = None,
    *,
    query: Mapping[str, str] | None = None,
    state: Mapping[str, Any] | None = None,
    first_run: bool = False,
    forget: Iterable[str] = (),
    timeout: float = 60,
) -> AppTest:
    """The app after one run of ``page`` (a path like ``app_pages/classroom.py``; ``None``: the default page).

    ``query``: the link's parameters; ``first_run``: run the default page first (a tab that visited the
    Merge player), then drop the session keys in ``forget``; ``state``: session values set before the
    page runs.
    """
    at = AppTest.from_file(str(APP), default_timeout=timeout)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    if first_run:
        no_exception(at.run())
        for key in forget:
            if key in at.session_state:
                del at.session_state[key]
    for key, value in (state or {}).items():
        at.session_state[key] = value
    if page is not None:
        at.switch_page(page)
    return no_exception(at.run())


def wait_for(cond, seconds: float = 20.0, poll: float = 0.02) -> bool:
    """Whether ``cond()`` becomes true within ``seconds`` (checked every ``poll`` seconds, and once more at the end).

    >>> wait_for(lambda: True, 0)
    True
    """
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(poll)
    return cond()


def click(at: AppTest, key: str) -> AppTest:
    """Click the button with widget key ``key`` and run."""
    return no_exception(at.button(key=key).click().run())


def share_link(at: AppTest) -> str:
    """The link in the page's one copy-link box (:func:`components.copy_link.copy_link`) of the last run:
    the element's JSON data ``{"url": ...}``. Fails when the page drew none, or more than one."""
    from components.copy_link import COMPONENT_NAME

    boxes = [e for e in at.get("bidi_component") if e.proto.component_name == COMPONENT_NAME]
    assert len(boxes) == 1, f"{len(boxes)} copy-link boxes on the page"
    assert boxes[0].proto.WhichOneof("data") == "json", boxes[0].proto.WhichOneof("data")
    return json.loads(boxes[0].proto.json)["url"]


def pick_tables(at: AppTest) -> list[dict[str, list]]:
    """The pick tables (:func:`components.pick_table.pick_table`) of the last run, in page order, each as
    ``{column: [values]}`` plus ``"ids"``: the row ids a pick reports."""
    from components.pick_table import COMPONENT_NAME

    out = []
    for e in at.get("bidi_component"):
        if e.proto.component_name == COMPONENT_NAME:
            data = json.loads(e.proto.json)
            table = {c: [row[i] for row in data["rows"]] for i, c in enumerate(data["columns"])}
            table["ids"] = data["ids"]
            out.append(table)
    return out


def html_bodies(at: AppTest) -> list[str]:
    """Every ``st.html`` body of the last run, in page order."""
    return [h.proto.body for h in at.get("html")]


def page_html(at: AppTest) -> str:
    """All ``st.html`` bodies of the last run as one string."""
    return "\n".join(html_bodies(at))


def page_messages(at: AppTest, kind: str = "error") -> list[str]:
    """The page's messages of ``kind`` as plain text, in page order: Streamlit's own ``st.error`` (etc.)
    boxes, then the escaped HTML boxes of :func:`views.messages.message_html` (which carry user strings)."""
    import html as htmllib
    import re

    own = [e.value for e in getattr(at, kind)]
    boxes = []
    for body in html_bodies(at):
        for m in re.finditer(r'<div class="bpe-msg[^"]*" data-kind="%s"[^>]*>(.*?)</div></div>' % kind, body, re.S):
            text = re.sub(r"<[^>]+>", "", m.group(1).replace("</p><p", "</p>\n<p"))
            boxes.append(htmllib.unescape(text).strip().lstrip("⛔⚠ℹ✓").strip())
    return own + boxes


class _Words(HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts: list[str] = []
        self.in_style = False

    def handle_starttag(self, tag, attrs):
        self.in_style = tag == "style"
        if tag == "div":
            self.parts.append(" ")  # a block: words on either side stay apart

    def handle_endtag(self, tag):
        self.in_style = False

    def handle_data(self, data):
        if not self.in_style:
            self.parts.append(data)


def html_words(html: str) -> str:
    """The text of ``html`` as a reader sees it: no tags, no ``<style>``, a block apart from its neighbours,
    white space folded.

    >>> html_words('<style>.x{}</style><div>merge <b>1</b></div><div>made  it</div>')
    'merge 1 made it'
    """
    p = _Words()
    p.feed(html)
    return re.sub(r"\s+", " ", "".join(p.parts)).strip()


class FakeUpload:
    """What Streamlit's UploadedFile gives ``appstate.sources.read_upload`` (AppTest has no file_uploader):
    put ``read_upload(FakeUpload(name, data))`` in ``PLAYER_UPLOAD_TEXT``, as the uploader's callback does."""

    def __init__(self, name: str, data: bytes):
        self.name, self.size, self._data = name, len(data), data

    def getvalue(self) -> bytes:
        return self._data


def own_script(body: str) -> bool:
    """Whether an ``st.html`` body is exactly the page's own fixed script block (:func:`views.big_paste.big_paste_html`
    for some box): the one body allowed to hold a ``<script``. Anything else with ``<script`` is an injection."""
    import json
    import re

    from views.big_paste import big_paste_html

    m = re.search(
        r'data-box="([a-z_0-9]+)".*boxes\.set\("[a-z_0-9]+", \{ max: (\d+), more: ("(?:[^"\\]|\\.)*") \}\)', body, re.S
    )
    return bool(m) and body == big_paste_html(m.group(1), int(m.group(2)), json.loads(m.group(3)))
