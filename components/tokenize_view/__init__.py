"""``tokenize_view``: the Tokenize page's text box and columns, drawn in the browser.

Two elements of one ``st.components.v2`` family (no iframe; hand-written ES modules next to this file, read from
disk and sent inline: nothing is fetched at run time):

* ``bpe_tokenize_view`` -- the view (``core.js`` + ``tokenize.js``, joined: a v2 component is one module) with
  its **settings** as data (:class:`views.tokenize_payload` has the rest): the text Python holds and its
  number (raised when Python replaces the text), the palette, the drawing options. Re-sent only when they
  change.
* ``bpe_tokenize_mail`` -- the **encodings** of the last edit (``mail.js``, a few lines): each column's splice
  and head, the comparison, a trace. Its small module travels with every edit, the view's does not.

The view reports ``edit`` (``{"text", "n", "seq", "have"}``, debounced after the last keystroke) and ``ask``
(``{"key", "index", "n", ...}``: a token clicked) as state; both rerun only the fragment that mounts it.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

import streamlit as st

from views.spans import SPAN_CSS
from views.token_boxes import TOK_CSS

__all__ = ["tokenize_view", "VIEW_JS", "VIEW_CSS", "MAIL_JS"]

_HERE = Path(__file__).resolve().parent


def _module(*names: str) -> str:
    """The files joined into one module, without their ``import`` lines (they import one another)."""
    parts = []
    for name in names:
        text = (_HERE / name).read_text(encoding="utf-8")
        parts.append(re.sub(r"^import [^;]*?;\n", "", text, flags=re.M | re.S))
    return "\n".join(parts)


def _without_tags(css: str) -> str:
    return re.sub(r"</?style>", "", css)


VIEW_JS = _module("core.js", "tokenize.js")
VIEW_CSS = (_without_tags(SPAN_CSS) + _without_tags(TOK_CSS)
            + (_HERE / "tokenize.css").read_text(encoding="utf-8"))
MAIL_JS = (_HERE / "mail.js").read_text(encoding="utf-8")

_view = st.components.v2.component("bpe_tokenize_view", js=VIEW_JS, css=VIEW_CSS, isolate_styles=True)
_mail = st.components.v2.component("bpe_tokenize_mail", js=MAIL_JS, isolate_styles=True)


def tokenize_view(settings: dict, mail: dict, *, key: str, on_edit: Callable[[], None],
                  on_ask: Callable[[], None]) -> None:
    """Mount the view under ``key`` (its state: ``st.session_state[key]``, with ``edit`` and ``ask``) and hand
    it ``mail``. ``on_edit`` / ``on_ask`` run (as widget callbacks, before the fragment) when it reports."""
    with st.container(key=f"{key}_stage", gap=None):
        _mail(key=f"{key}_mail", data=mail, height="content")
        _view(key=key, data=settings, on_edit_change=on_edit, on_ask_change=on_ask, height="content")
