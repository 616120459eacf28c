"""``pick_table``: a scrolling table whose rows can be picked (a click; Enter or Space on a focused row), the
picked row's id reported to Python. The player's merges and vocabulary use it instead of ``st.dataframe``,
whose data grid made every fresh player page download ~1 MB of Streamlit's JavaScript (~0.3 MB compressed;
with it gone a fresh player page fits 1.5 MB on the wire). One small ``st.components.v2`` component (no iframe,
styles isolated in a shadow root; the hand-written ES module next to this file, bundled as ``dist/pick_table.js``
(``npm run build``), and its CSS are sent inline: nothing is fetched). Cells are set with ``textContent`` (they
hold the user's tokens: never HTML).

The browser reports ``{"id": <row id>, "seq": n}`` under ``pick`` (``setStateValue``; ``seq`` grows with each
pick, so picking the same row again is reported again); ``on_pick`` runs as a widget callback, before the
script, and reads it with :func:`picked`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import streamlit as st

from components import bundle

__all__ = ["pick_table", "picked", "COMPONENT_NAME"]

_HERE = Path(__file__).resolve().parent
#: the component's name, as AppTest sees it (``element.proto.component_name``)
COMPONENT_NAME = "bpe_pick_table"
_table = st.components.v2.component(
    COMPONENT_NAME,
    js=bundle(_HERE, "pick_table.js"),
    css=(_HERE / "pick_table.css").read_text(encoding="utf-8"),
    isolate_styles=True,
)


def _cell(v):
    """A cell as JSON: numbers stay numbers (drawn right-aligned), a missing value is null, the rest text."""
    if v is None or (isinstance(v, float) and v != v):
        return None
    if isinstance(v, bool):
        return str(v)
    if hasattr(v, "item"):  # a numpy scalar from a data frame
        v = v.item()
    return v if isinstance(v, (int, float)) else str(v)


def pick_table(
    frame,
    *,
    key: str,
    ids: list[int],
    columns: list[str] | None = None,
    height: int = 330,
    label: str = "",
    empty: str = "",
    on_pick: Callable[[], None] | None = None,
) -> None:
    """Draw the rows of ``frame`` (a data frame; only ``columns``, in that order, when given) under the element
    key ``key`` (CSS class ``st-key-<key>``), at most ``height`` px high (it scrolls); ``ids[i]`` is what a
    pick of row ``i`` reports; ``label`` names the table for screen readers; ``empty`` is said when there are
    no rows. ``on_pick`` runs when a row is picked (read it with :func:`picked`)."""
    cols = list(columns) if columns is not None else [str(c) for c in frame.columns]
    rows = [[_cell(v) for v in record] for record in frame[cols].itertuples(index=False, name=None)]
    _table(
        key=key,
        data={
            "columns": cols,
            "rows": rows,
            "ids": [int(i) for i in ids],
            "height": int(height),
            "label": label,
            "empty": empty,
        },
        on_pick_change=on_pick or (lambda: None),
        height="content",
    )


def picked(key: str) -> int | None:
    """The id of the row last picked in the table ``key`` (in its ``on_pick`` callback, or later), else None."""
    state = st.session_state.get(key)
    pick = state.get("pick") if state is not None else None
    try:
        return int(pick["id"]) if pick else None
    except (KeyError, TypeError, ValueError):
        return None
