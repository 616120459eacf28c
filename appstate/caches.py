"""What the player derives from a trained run, cached for every session: the merge index, the replay of a
text window, the held-out token counts, the export files and the component's packed payloads.

Each cache is keyed by the run's id (:func:`appstate.runs.run_id`) and small values; the run and the texts
themselves are passed as ``_``-prefixed arguments, which Streamlit does not hash (nor keep a second copy of).
"""

from __future__ import annotations

import streamlit as st

import bpe
from bpe.replay import MergeIndex, Replay, heldout_token_counts
from views.player import export_file as write_export
from views.player_payload import pack, run_payload, window_payload
from views.spans import window

from .runs import RUN_CACHE_ENTRIES, text_key

#: Characters of the training text drawn as token spans.
WINDOW_CHARS = 1_500


@st.cache_resource(show_spinner=False, max_entries=RUN_CACHE_ENTRIES)
def merge_index(rid: str, _run: "bpe.Run") -> MergeIndex:
    """The run's :class:`bpe.replay.MergeIndex` (built once per run)."""
    return MergeIndex(_run)


@st.cache_resource(show_spinner=False, max_entries=32)
def window_replay(rid: str, start: int, size: int, _run: "bpe.Run", _text: str, end: int | None = None) -> Replay:
    """The token replay of the window ``[start, start + size)`` (cut at a line or space) of the text the run
    trained on, ``_text[:end]`` (the whole text when ``end`` is None)."""
    end = len(_text) if end is None else end
    piece = bpe.normalize_text(_text[start : min(start + size + 200, end)], _run.normalize)
    if start:
        # begin after a line break or space near the start, so the first chunk is whole
        for sep in ("\n", " "):
            j = piece.find(sep, 0, 200)
            if j >= 0:
                piece = piece[j + 1 :]
                break
    piece, _cut = window(piece, size)
    return Replay.build(_run, merge_index(rid, _run), piece)


@st.cache_resource(show_spinner=False, max_entries=RUN_CACHE_ENTRIES)
def heldout_counts(rid: str, heldout_key: str, _run: "bpe.Run", _heldout: str) -> tuple[int, ...]:
    """Tokens of the held-out text after each merge (0..len(merges))."""
    return tuple(heldout_token_counts(_run, merge_index(rid, _run), _heldout))


@st.cache_resource(show_spinner=False, max_entries=6)
def export_file(rid: str, fmt: str, _run: "bpe.Run") -> "bytes | str":
    """The run written in ``fmt`` (bytes), or why the format cannot hold it (str)."""
    try:
        return write_export(_run, fmt)
    except ValueError as exc:
        return str(exc)


def player_tag(rid: str) -> str:
    """The short name of a run that the player's payloads and reports carry."""
    return text_key(rid)


@st.cache_resource(show_spinner=False, max_entries=RUN_CACHE_ENTRIES)
def player_run_data(rid: str, palette: str, heldout_key: str, _run: "bpe.Run", _heldout: str) -> bytes:
    """The run payload (every merge, label, color and both compression curves), packed."""
    held = heldout_counts(rid, heldout_key, _run, _heldout) if _heldout else None
    nbytes = len(bpe.normalize_text(_heldout, _run.normalize).encode("utf-8")) if _heldout else 0
    return pack(run_payload(_run, tag=player_tag(rid), heldout_counts=held, heldout_bytes=nbytes, palette=palette))


@st.cache_resource(show_spinner=False, max_entries=32)
def player_window_data(rid: str, start: int, _run: "bpe.Run", _text: str, end: int | None = None) -> bytes:
    """The replay of the window starting near character ``start`` of ``_text[:end]``, packed."""
    end = len(_text) if end is None else end
    rep = window_replay(rid, start, WINDOW_CHARS, _run, _text, end)
    return pack(
        window_payload(
            rep,
            tag=player_tag(rid),
            n_merges=len(_run.merges),
            level=_run.level,
            first_char=start,
            total_chars=end,
            byte_fallback=_run.byte_fallback,
        )
    )
