"""The notes box: what was wrong with a link (or a setting), as one escaped warning box.

Every page shows a link's notes the same way; the box carries its own inline style, so it needs no
stylesheet on the page. No Streamlit here.

>>> box = notes_html(["The link's step='<b>' is not a whole number: showing step 1."])
>>> box.startswith('<div class="cls-notes" style="background:#fff8e1;')
True
>>> box[box.index("<p"):]
'<p style="margin:.15em 0">⚠ The link&#x27;s step=&#x27;&lt;b&gt;&#x27; is not a whole number: showing step 1.</p></div>'
"""

from __future__ import annotations

import html
from typing import Sequence

__all__ = ["notes_html"]

_BOX_STYLE = "background:#fff8e1;border-left:6px solid #e69f00;padding:.4em .8em;border-radius:4px;color:#111;"


def notes_html(notes: Sequence[str], css_class: str = "cls-notes") -> str:
    """One warning box with a line per note (plain text, escaped here); ``css_class`` names the box for
    tests and styles. No notes, no box (``""``).

    >>> notes_html([])
    ''
    """
    if not notes:
        return ""
    lines = "".join(f'<p style="margin:.15em 0">⚠ {html.escape(n, quote=True)}</p>' for n in notes)
    return f'<div class="{html.escape(css_class, quote=True)}" style="{_BOX_STYLE}">{lines}</div>'
