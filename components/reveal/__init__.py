"""``reveal``: bring a part of the page into view once, when something the user did needs it there.

A v2 component (no iframe, nothing drawn, nothing sent back; the ES module ``reveal.js`` beside this file,
bundled as ``dist/reveal.js`` and sent inline). Python passes ``seq`` on every run: how many times the event
happened in the session (a live room started: its panel into view; presenter view turned on: the page back to
its top, the player first; 0: never). The browser acts once per new value, so a rerun, the room's one-second
refresh or a remount never scrolls again. Not "a positive seq in the event's run only": a busy browser draws
that run and the next one in one render, and the event never reached the browser (issue 34, the room
question's histogram left below the fold under load). Tested in tests/browser/test_lecturer_browser.py (issue 34,
items 3 and 4); its pure part with ``node --test``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import streamlit as st

from components import bundle

__all__ = ["reveal", "REVEAL_JS"]

_HERE = Path(__file__).resolve().parent
REVEAL_JS = bundle(_HERE, "reveal.js")
_reveal = st.components.v2.component("bpe_reveal", js=REVEAL_JS, isolate_styles=True)


def reveal(
    selector: str, *, key: str, seq: int, mode: Literal["top", "nearest"] = "nearest", blur: bool = False
) -> None:
    """Once per new positive ``seq``: scroll so that the element ``selector`` (a CSS selector, e.g.
    ``.st-key-room_panel``) shows whole (``"nearest"``), or its scrolling container back to the top
    (``"top"``). Draw it on every run at the same place, with the session's count of the event (0: none yet),
    never 0 after a positive count (the browser may not have drawn the event's own run). ``blur`` (with
    ``"top"``): a control focused in the sidebar lets go of the focus, so the next key reaches the page (its
    shortcuts, the player's keys) instead of a control in a sidebar that has closed."""
    _reveal(key=key, data={"selector": selector, "seq": int(seq), "mode": mode, "blur": blur}, height="content")
