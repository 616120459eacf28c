"""Reading the Tokenize page in AppTest: what its browser view (components/tokenize_view) is sent.

AppTest runs no JavaScript, so tests read the view's two elements: the settings (``bpe_tokenize_view``) and the
mail of the last run (``bpe_tokenize_mail``: per column its head -- escaped HTML -- ids and lengths, and the
comparison table). A browser never reports in AppTest, so every column is sent whole.
"""

from __future__ import annotations

import html
import json
import re
from array import array

import appstate.keys
import appstate.tokenize_live

VIEW, MAIL = "bpe_tokenize_view", "bpe_tokenize_mail"


def _element(at, name: str):
    found = [e for e in at.get("bidi_component") if e.proto.component_name == name]
    assert len(found) <= 1, f"expected at most one {name} element, found {len(found)}"
    return found[0] if found else None


def mounted(at) -> bool:
    return _element(at, VIEW) is not None


def settings(at) -> dict:
    el = _element(at, VIEW)
    assert el is not None, "the Tokenize view is drawn"
    return json.loads(el.proto.json)


def mail(at) -> dict:
    el = _element(at, MAIL)
    assert el is not None, "the Tokenize view's mail is sent"
    return appstate.tokenize_live.unwire(el.proto.bytes)


def unpacked(col: dict) -> dict:
    """A column of a mail with its ``ids`` and ``lens`` (arrays: appstate.tokenize_live.mail) as lists."""
    out = dict(col)
    for name in ("ids", "lens"):
        if isinstance(col.get(name), array):
            out[name] = col[name].tolist()
    return out


def columns(at) -> list[dict]:
    """The columns sent, in page order (each whole: ``ids``, ``lens``, ``head``...)."""
    return [unpacked(c) for c in mail(at)["cols"]]


def column(at, slug: str) -> dict:
    found = [c for c in columns(at) if c["slug"] == slug]
    assert len(found) == 1, [c["slug"] for c in columns(at)]
    return found[0]


def heads(at) -> list[str]:
    return [c.get("head", "") for c in columns(at)]


def shown_tokens(at) -> list[int]:
    """The token counts in the columns' metric rows, column by column."""
    return [
        int(m.replace(",", ""))
        for h in heads(at)
        for m in re.findall(r'data-stat="tokens"><span class="tokv-v">([\d,]+)<', h)
    ]


def table(at) -> dict[str, dict]:
    """The comparison under the columns: title -> {"tokens", "special tokens"}."""
    rows = re.findall(
        r'<tr data-tokens="(\d+)" data-special="(\d+)"><td class="tokv-cname">(.*?)</td>', mail(at)["compare"]
    )
    return {html.unescape(name): {"tokens": int(n), "special tokens": int(s)} for n, s, name in rows}


def text(at) -> str:
    """The page's text (what the view shows)."""
    return at.session_state[appstate.keys.TOK_TEXT]


def preset_box(at):
    """The preset box (appstate.widgets.preset_picker with ``renew``: its widget key changes each time the server
    sets it; it is the selectbox in the container ``tok_preset``)."""
    found = [s for s in at.selectbox if s.key.startswith("tok_preset_box")]
    assert len(found) == 1, [s.key for s in at.selectbox]
    return found[0]


def type_text(at, value: str, **run):
    """Replace the page's text as a preset or a paste would, and run."""
    at.session_state[appstate.keys.TOK_TEXT] = value
    return at.run(**run)
