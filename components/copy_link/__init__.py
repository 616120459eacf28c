"""``copy_link``: a share link as selectable text in a code-block box, with a copy button on its right.

It replaces ``st.code(url, language=None, wrap_lines=True)`` under the merge player and in the Classroom:
that element made every fresh page download Streamlit's 1.6 MB syntax-highlighter chunk and highlight the
link again at every step of the player. This is one small ``st.components.v2`` component (no iframe, styles
isolated in a shadow root; the JavaScript is the hand-written ES module next to this file, bundled as
``dist/copy_link.js`` (``npm run build``) and sent inline: nothing is fetched at run time). It sends nothing
back to Python: copying never reruns the page.

What the browser draws (``copy_link.js``, ``copy_link.css``):

* the link as wrapping monospace text, set with ``textContent`` (the link holds the user's text: never HTML);
* a button labelled "Copy link" (a focusable ``<button>``: Enter and Space work) that copies the link with
  ``navigator.clipboard.writeText``; when that is missing (plain HTTP on a LAN address is not a secure context)
  or refuses, it selects the link and calls ``document.execCommand("copy")``; it then shows "Copied" for 2 s,
  also said by a polite live region (``role="status"``); when both fail it leaves the link selected and says to
  press Ctrl+C. The box's ``data-copied`` is ``clipboard``, ``select`` or ``manual`` meanwhile, and its
  ``data-url`` is the link.

Tested: in AppTest the link is the element's JSON data (``tests/helpers.py``, ``share_link``); in Chromium
(``tests/browser/test_copy_link_browser.py``) the box shows the page's own address, the button fills the
clipboard, the fallback and the manual paths, keyboard use, markup in the link shown as text, no
syntax-highlighter download, and screenshots at 1280 and 390 px.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from components import bundle

__all__ = ["copy_link", "COMPONENT_NAME", "COPY_LINK_JS", "COPY_LINK_CSS"]

_HERE = Path(__file__).resolve().parent
COPY_LINK_JS = bundle(_HERE, "copy_link.js")
COPY_LINK_CSS = (_HERE / "copy_link.css").read_text(encoding="utf-8")
#: the component's name, as AppTest sees it (``element.proto.component_name``)
COMPONENT_NAME = "bpe_copy_link"

_copy_link = st.components.v2.component(COMPONENT_NAME, js=COPY_LINK_JS, css=COPY_LINK_CSS, isolate_styles=True)


def copy_link(url: str, *, key: str) -> None:
    """Draw ``url`` in a code-block box with a "Copy link" button, under the element key ``key`` (unique on
    the page; the element's CSS class is ``st-key-<key>``). The data sent is ``{"url": url}``; a new ``url``
    updates the box in place. Returns nothing: the component reports nothing to Python.

    Example (in a page script)::

        copy_link("http://host:8501/classroom?lesson=2&step=1", key="share_link_box")
    """
    _copy_link(key=key, data={"url": str(url)}, height="content")
