"""``tokenize_view``: the Tokenize page's text box and columns, drawn in the browser.

Two elements of one ``st.components.v2`` family (no iframe; hand-written ES modules next to this file, bundled by
esbuild into ``dist/`` (committed; ``npm run build``) and sent inline: nothing is fetched at run time):

* ``bpe_tokenize_view`` -- the view (``tokenize.js`` and the modules it imports, bundled as ``dist/view.js``: a
  v2 component is one module) with
  its **settings** as data (:mod:`views.tokenize_payload` has the rest): the text Python holds and its
  number (raised when Python replaces the text), the palette, the drawing options. Mounted by the page,
  outside the fragment that answers edits: sent again only by a full run.
* ``bpe_tokenize_preview`` -- a big paste's first screen (:mod:`appstate.tokenize_preview`), mailed by the same
  few lines before the whole text is encoded; it takes no reports.
* ``bpe_tokenize_mail`` -- the **encodings** of the last edit (``mail.js``, a few lines: ``dist/mail.js``): each column's splice
  and head, the comparison, a trace; mounted in the fragment. The view's reports travel back as *its* state:
  ``edit`` (``{"text", "n", "seq", "have"}``, sent at once, then while one is on its way only the newest) and
  ``ask`` (``{"key", "index", "n", ...}``: a token clicked). So an edit reruns only the fragment and re-sends
  only this small element; re-sending the view with it cost the browser a ~110 ms task on every edit
  (Streamlit re-rendered the 40 KB module's element).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

import streamlit as st

from components import bundle
from views.spans import SPAN_CSS
from views.token_boxes import TOK_CSS

__all__ = ["tokenize_view", "tokenize_mail", "tokenize_preview", "VIEW_JS", "VIEW_CSS", "MAIL_JS"]

_HERE = Path(__file__).resolve().parent


def _without_tags(css: str) -> str:
    return re.sub(r"</?style>", "", css)


VIEW_JS = bundle(_HERE, "view.js")
VIEW_CSS = _without_tags(SPAN_CSS) + _without_tags(TOK_CSS) + (_HERE / "tokenize.css").read_text(encoding="utf-8")
MAIL_JS = bundle(_HERE, "mail.js")

_view = st.components.v2.component("bpe_tokenize_view", js=VIEW_JS, css=VIEW_CSS, isolate_styles=True)
_mail = st.components.v2.component("bpe_tokenize_mail", js=MAIL_JS, isolate_styles=True)
# (the same few lines: a mail marked "preview" is handed to the view, and this element takes no reports)
_preview = st.components.v2.component("bpe_tokenize_preview", js=MAIL_JS, isolate_styles=True)


def tokenize_view(settings: dict, *, key: str) -> None:
    """Mount the view (its settings only; it holds no state: it reports through the mailbox)."""
    _view(key=key, data=settings, height="content")


def tokenize_mail(
    mail: bytes,
    *,
    key: str,
    on_edit: Callable[[], None],
    on_ask: Callable[[], None],
    on_drawn: Callable[[], None] = lambda: None,
    on_settled: Callable[[], None] = lambda: None,
) -> None:
    """Hand the view ``mail`` (bytes: :func:`appstate.tokenize_live.wire`; ``mail.js`` reads its header); the view's reports are this element's state (``st.session_state[key]``, with
    ``edit``, ``ask``, ``drawn``: a mail marked ``rest`` drawn, with the versions held, and ``settled``: the
    typing paused on a mail marked ``follow``), and ``on_edit`` / ``on_ask`` / ``on_drawn`` / ``on_settled`` run (as widget callbacks, before the fragment that mounts it) when it reports."""
    _mail(
        key=key,
        data=mail,
        on_edit_change=on_edit,
        on_ask_change=on_ask,
        on_drawn_change=on_drawn,
        on_settled_change=on_settled,
        height="content",
    )


def tokenize_preview(mail: bytes, *, key: str) -> None:
    """Hand the view a big paste's first screen (:mod:`appstate.tokenize_preview`; bytes as
    :func:`appstate.tokenize_live.wire` packs them), before the whole text is encoded: an element with no state."""
    _preview(key=key, data=mail, height="content")
