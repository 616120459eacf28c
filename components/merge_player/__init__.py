"""``merge_player``: the merge player that animates a recorded BPE run in the browser.

Three elements of one Streamlit ``st.components.v2`` component family (no iframe; the JavaScript is the
hand-written ES modules next to this file, bundled by esbuild into ``dist/`` (committed; ``npm run build``) and
sent inline: nothing is fetched at run time):

* ``bpe_merge_player`` -- the player itself (``player.js`` and the modules it imports, bundled as
  ``dist/player.js``: a v2 component is one module, and so is the downloaded run page, :mod:`views.run_page`;
  + ``player.css``); its data is the **run
  payload** (``views.player_payload.run_payload``, packed): sent once per run and palette;
* ``bpe_merge_player_window`` -- the **text window's replay** (``window_payload``, packed): sent once
  per window;
* ``bpe_merge_player_control`` -- a few small values from Python: the run's tag, Python's merge, a seek
  number (raise it to move the player), the speed, the compression metric, presenter view, quiz mode.

* ``bpe_merge_player_follow`` -- a live room for a student's player (:func:`follow_box`): its mailbox
  long-polls the room's play state from the app's own route and hands it to the player, which follows the
  teacher; the player module itself fetches nothing.

The small ones run ``mailbox.js`` (with ``follow.js``: ``dist/mailbox.js``), which hands their data to the player. Each element is re-sent only
when its data changes (Streamlit sends an unchanged element as a cached reference), so a pause costs a
small rerun, and playing costs nothing on the server (measured by a spike, since removed: ``git show 9b43b19:bench/spikes/v2_dataflow.py``).

The player reports ``{"tag", "k", "speed", "metric", "n"[, "explain"]}`` as its ``view`` state on pause,
after a step or a jump (debounced), when a token is clicked (``explain``: its id), and (a live room's student)
when it stops on the teacher's merge (0.6-1.5 s later; while the page's panels below it are off the screen,
once they are scrolled to).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import streamlit as st

from components import bundle

__all__ = ["merge_player", "follow_box", "PLAYER_JS", "PLAYER_CSS", "MAILBOX_JS"]

_HERE = Path(__file__).resolve().parent
PLAYER_JS = bundle(_HERE, "player.js")
PLAYER_CSS = (_HERE / "player.css").read_text(encoding="utf-8")
# mailbox.js with follow.js (a live room's pure parts), bundled
MAILBOX_JS = bundle(_HERE, "mailbox.js")

_player = st.components.v2.component("bpe_merge_player", js=PLAYER_JS, css=PLAYER_CSS, isolate_styles=True)
_window = st.components.v2.component("bpe_merge_player_window", js=MAILBOX_JS, isolate_styles=True)
_control = st.components.v2.component("bpe_merge_player_control", js=MAILBOX_JS, isolate_styles=True)
_follow = st.components.v2.component("bpe_merge_player_follow", js=MAILBOX_JS, isolate_styles=True)


def merge_player(
    run_data: bytes,
    window_data: bytes | None,
    control: dict,
    *,
    key: str = "merge_player",
    on_view: Callable[[], None] | None = None,
) -> dict | None:
    """Mount the player under ``key`` (a container ``st-key-<key>_stage``); return its last ``view`` report.

    ``run_data`` and ``window_data`` are packed payloads (``views.player_payload.pack``); ``control`` is
    ``{"tag", "k", "seq", "speed", "metric", "presenter", "quiz"}``. ``on_view`` runs (as a widget
    callback, before the script) when the player reports; read the report from ``st.session_state[key]``.
    """
    with st.container(key=f"{key}_stage", gap=None):
        _window(key=f"{key}_window", data=window_data, height="content")
        _control(key=f"{key}_control", data=control, height="content")
        result = _player(key=key, data=run_data, on_view_change=on_view or (lambda: None), height="content")
    return result.get("view") if result is not None else None


def follow_box(data: dict | None, *, key: str = "merge_player") -> None:
    """Hand a live room to the player mounted under ``key`` (anywhere on the page). ``data``: ``{"code", "on",
    "seq", "tag"}`` and the play state; its mailbox then long-polls the room and hands the player each newer
    play state. When the room's question, reveal or run changes or the room closes, the element's ``room``
    state changes: the fragment (or page) that drew it reruns. ``data`` None: no room, nothing polled."""
    _follow(key=f"{key}_follow", data=data or {"on": False}, on_room_change=lambda: None, height="content")
