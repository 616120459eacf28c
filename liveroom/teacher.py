"""A live room from the teacher's session: :func:`start_room`, :func:`close_room`, :func:`lead_sync` (every
full run: the run's settings), :func:`lead_report` (the player's report: step, jump, play, pause),
:func:`lead_seeked` (Python moved the player), :func:`lead_screen` (the Classroom's lesson and step, or the
player), :func:`lead_room` (the room, and a heartbeat every :data:`BEAT_EVERY` seconds: the sidebar's badge
calls it on every page), the poll. The session holds the code and the token
(:data:`~appstate.keys.ROOM_LEAD`, never shown to anyone else).
"""

from __future__ import annotations

import time

import streamlit as st

from appstate.keys import (
    PLAYER_SPEED,
    PLAYER_STEP,
    ROOM_CLOSED,
    ROOM_LEAD,
    ROOM_LEAD_BEAT,
    ROOM_LEAD_SCREEN,
    ROOM_LEAD_SENT,
    ROOM_LEAD_TEXT,
    ROOM_POLL_OPEN,
)

from . import model
from .presence import client_address
from .roomstore import store as room_store
from .session import (
    down,
    lead,
    note,
    room_settings,
)

#: seconds between the teacher's heartbeats (the room outlives the last one by model.GRACE)
BEAT_EVERY = 15.0


def _put_text(held: tuple[str, str], settings: dict, carried: tuple[str, str] | None) -> None:
    """The teacher's text beside the room, once per text (before the settings naming it reach students)."""
    ss = st.session_state
    if carried and ss.get(ROOM_LEAD_TEXT) != (held[0], settings["text_digest"]):
        room_store().put_text(*held, carried[1], carried[0])
        ss[ROOM_LEAD_TEXT] = (held[0], settings["text_digest"])


def start_room() -> None:
    """Open a room for the run on the player (a button's callback)."""
    ss = st.session_state
    settings, carried, why = room_settings()
    if why:
        note(f"The player's text cannot go to a live room: {why}")
        return
    try:
        code, token = room_store().create(
            settings, merge=int(ss.get(PLAYER_STEP, 0)), speed=ss.get(PLAYER_SPEED, 2), address=client_address()
        )
        _put_text((code, token), settings, carried)
    except model.RoomError as exc:
        note(str(exc))
        return
    ss[ROOM_LEAD], ss[ROOM_LEAD_SENT], ss[ROOM_LEAD_BEAT] = (
        (code, token),
        (int(ss.get(PLAYER_STEP, 0)), False),
        time.time(),
    )
    ss[ROOM_LEAD_SCREEN] = None  # a room starts on the player; the Classroom tells it its lesson
    ss.pop(ROOM_CLOSED, None)
    note("")


def close_room() -> None:
    """Close the room this session leads (a button's callback); its questions stay in the session
    (:data:`~appstate.keys.ROOM_CLOSED`: the teacher downloads them after class)."""
    ss = st.session_state
    held = ss.pop(ROOM_LEAD, None)
    ss.pop(ROOM_POLL_OPEN, None)
    if held:
        try:
            ss[ROOM_CLOSED] = (held[0], room_store().close(*held), time.time())
        except model.RoomError:
            pass
    note("")


def closed_record() -> tuple[str, list[dict], float] | None:
    """(code, questions, when it closed) of the room this session closed last, if it asked any."""
    kept = st.session_state.get(ROOM_CLOSED)
    return kept if kept and kept[1] else None


def record_reader():
    """A function that reads the questions of the room this session leads (``liveroom.model.poll_entry``
    dicts) when called, from any thread (a download made when clicked: Streamlit calls it outside the session);
    None without a room."""
    held = lead()
    if not held:
        return None
    store = room_store()
    return lambda: store.record(*held)


def _lost(exc: Exception) -> None:
    if isinstance(exc, model.Unavailable):
        down()  # the store is away for a moment: the teacher keeps the room
        return
    st.session_state.pop(ROOM_LEAD, None)
    st.session_state.pop(ROOM_POLL_OPEN, None)
    note(f"The live room ended: {exc}")


def lead_sync() -> None:
    """Every full run of the teacher's page: a new text or new settings go to the room (students get the
    new run, from merge 0; an upload's or a long paste's text first, beside the room)."""
    held = lead()
    if not held:
        return
    settings, carried, why = room_settings()
    if why:
        return  # no text to carry (an upload that failed): the students keep the last run
    try:
        _put_text(held, settings, carried)
        if room_store().set_settings(*held, settings):
            st.session_state[ROOM_LEAD_SENT] = (0, False)
    except model.RoomError as exc:
        _lost(exc)


def lead_screen(lesson: int | None, step: int = 1) -> None:
    """What the teacher's session shows: a Classroom ``lesson`` and ``step`` (1-based), or the merge player
    (``lesson`` None). Called on every full run of those two pages; the room hears of it when it changed, and
    its following students go there."""
    ss = st.session_state
    held = lead()
    if not held:
        return
    screen = None if lesson is None else (int(lesson), int(step))
    if ROOM_LEAD_SCREEN in ss and ss[ROOM_LEAD_SCREEN] == screen:
        return
    try:
        room_store().set_lesson(*held, None if screen is None else screen[0], 1 if screen is None else screen[1])
        ss[ROOM_LEAD_SCREEN], ss[ROOM_LEAD_BEAT] = screen, time.time()
    except model.RoomError as exc:
        _lost(exc)


def _send(merge: int, playing: bool, at: float | None = None) -> None:
    ss = st.session_state
    held = lead()
    if not held:
        return
    try:
        room_store().set_play(*held, merge=merge, speed=ss.get(PLAYER_SPEED, 2), playing=playing, at=at)
        ss[ROOM_LEAD_SENT] = (merge, playing)
        ss[ROOM_LEAD_BEAT] = time.time()
    except model.RoomError as exc:
        _lost(exc)


def lead_report(view: dict) -> None:
    """The teacher's player reported (a step, a jump, play, pause, a speed; the report is already in
    session state): the room's play state follows. The report's ``at`` (ms, the server's clock as the browser
    estimates it from the control's ``clock``) dates it: the report itself may wait while the teacher's
    session finishes a run, and students who start playing would lag by that wait."""
    if lead() and isinstance(view, dict):
        at = view.get("at")  # when the teacher acted, on the server's clock as the browser estimates it
        _send(
            int(st.session_state.get(PLAYER_STEP, 0)),
            bool(view.get("playing")),
            at / 1000 if type(at) in (int, float) else None,
        )


def lead_seeked(step: int, *, force: bool = False) -> None:
    """Python moved the teacher's player (a quiz answer, a reveal): the room follows (not while it plays,
    unless ``force``: the player then stops there)."""
    sent = st.session_state.get(ROOM_LEAD_SENT)
    if lead() and sent and (force or (not sent[1] and sent[0] != step)):
        _send(step, False)


def lead_room() -> dict | None:
    """The room this session leads (None: none, or it ended: then a note says so); a heartbeat every
    :data:`BEAT_EVERY` seconds keeps it alive. ``model.Unavailable`` when the store does not answer (the
    session keeps its room: :func:`down`)."""
    ss = st.session_state
    held = lead()
    if not held:
        return None
    store = room_store()
    try:
        if time.time() - ss.get(ROOM_LEAD_BEAT, 0) >= BEAT_EVERY:
            room = store.beat(*held)
            ss[ROOM_LEAD_BEAT] = time.time()
            return room
        room = store.room(held[0])
        if room is None:
            raise model.NoSuchRoom("it expired.")
        return room
    except model.Unavailable:
        down()
        raise
    except model.RoomError as exc:
        _lost(exc)
        return None


def open_poll(k: int, n: int, options: list[str] | None = None, right: list[int] | None = None) -> None:
    """Ask the room about merge ``k + 1`` (``n`` options: ``options`` their labels, ``right`` the right ones'
    indices, the merged pair first, for the record); the teacher's player hides its pair counts (the answer)
    until the reveal."""
    held = lead()
    if held:
        try:
            room_store().open_poll(*held, k=k, n=n, options=options, right=right)
            st.session_state[ROOM_POLL_OPEN] = True
        except model.RoomError as exc:
            _lost(exc)


def reveal_poll() -> None:
    held = lead()
    st.session_state.pop(ROOM_POLL_OPEN, None)
    if held:
        try:
            room_store().reveal(*held)
        except model.RoomError as exc:
            note(str(exc))


def poll_hides_counts(room: dict | None, n: int) -> bool:
    """Whether the room's poll is open (about a merge of this run: ``n`` merges): players hide the pair
    counts, which show the answer.

    >>> poll_hides_counts({"poll": {"open": True, "k": 3}}, 10), poll_hides_counts({"poll": None}, 10)
    (True, False)
    """
    poll = (room or {}).get("poll") or {}
    return bool(poll.get("open")) and 0 <= int(poll.get("k", -1)) < n
