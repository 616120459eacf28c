"""A live room from a student's session: :func:`read_join` (the link's ``join=``, until it joined or was
refused), :func:`sync_join` (every full run, before the widgets: the teacher's new run), :func:`follow_route`
(every full run: to the page the room shows), :func:`sync_lesson` (the Classroom: the teacher's lesson and
step), :func:`joined_room`, :func:`follow_data`, :func:`set_following`, :func:`explored`, :func:`mode_changed`
(the player's Replay), :func:`answer`.
The session holds the room's code, a random id, whether its player follows, its answers.
"""

from __future__ import annotations

import time

import streamlit as st

from appstate.keys import (
    CLASSROOM_LESSON,
    CLASSROOM_STEP,
    PLAYER_MODE,
    ROOM_ANSWERS,
    ROOM_APPLIED,
    ROOM_DOWN,
    ROOM_FOLLOW,
    ROOM_FOLLOW_SENT,
    ROOM_FOLLOW_SEQ,
    ROOM_GOING,
    ROOM_JOIN,
    ROOM_JOIN_NOTE,
    ROOM_JOIN_READ,
    ROOM_PAGE,
)
from appstate.query import first_value, shown

from . import model, presence
from .roomstore import store as room_store
from .session import (
    SCREENS,
    apply_room_settings,
    down,
    lesson_of,
    note,
    room_settings,
    screen_of,
    student_id,
)


def read_join() -> None:
    """Once per session: the link's ``join=CODE`` joins that room (the room's run goes into the player's
    settings) or says why it cannot (a note)."""
    ss = st.session_state
    if ss.get(ROOM_JOIN_READ):
        return
    ss[ROOM_JOIN_READ] = True
    raw = first_value(st.query_params.get("join"))
    if raw is None:
        return
    if not join(raw) and ss.get(ROOM_DOWN):
        ss[ROOM_JOIN_READ] = False  # the store was away: the next run (when it is back) joins


def join(raw: str) -> bool:
    """Join the room ``raw`` names (as typed or linked); False and a note when it cannot."""
    ss = st.session_state
    address = presence.client_address()
    try:
        room = room_store().join(raw, student_id(), address)
        presence.here(room["code"], student_id(), address)
        ss.pop(ROOM_JOIN_NOTE, None)
        ss[ROOM_JOIN], ss[ROOM_FOLLOW] = room["code"], True
        ss[PLAYER_MODE] = "train"  # the teacher's run (a session that was replaying a vocabulary too)
        ss[ROOM_FOLLOW_SEQ] = int(ss.get(ROOM_FOLLOW_SEQ, 0)) + 1
        ss.setdefault(ROOM_ANSWERS, {})
        note("")
        apply_room_settings(room)
    except model.Unavailable as exc:
        down()
        ss[ROOM_JOIN_NOTE] = str(exc)
        return False
    except model.NoSuchRoom:
        ss[ROOM_JOIN_NOTE] = (
            f"There is no live room with the code {shown(raw)}: check the code with your teacher. "
            "(A room closes when its teacher closes it or leaves.)"
        )
        return False
    except model.RoomError as exc:
        ss[ROOM_JOIN_NOTE] = str(exc)
        return False
    return True


def joined_room() -> dict | None:
    """The room this session joined, if it is still live; ``model.Unavailable`` (and :func:`down`) when the
    store does not answer."""
    code = st.session_state.get(ROOM_JOIN)
    try:
        return room_store().room(code) if code else None
    except model.Unavailable:
        down()
        raise


def sync_join() -> None:
    """Every full run of a student's player, before the sidebar's widgets: the room's run, if it changed
    (while following: a student exploring keeps their own until Rejoin); then :func:`left_the_run`."""
    ss = st.session_state
    if ss.get(ROOM_JOIN) and ss.get(ROOM_FOLLOW) and not ss.get(ROOM_JOIN_NOTE):
        try:
            room = joined_room()
            if room is not None and not apply_room_settings(room):
                left_the_run()
        except model.Unavailable:
            pass  # the store is away: the student keeps the run they have


def left_the_run() -> None:
    """A following student who picked a text or settings of their own in the sidebar (the widgets' new values
    are in session state before the script runs) explores on their own from then on: their player no longer
    follows a run that is not on their screen. Rejoin brings the teacher's run back."""
    ss = st.session_state
    if ss.get(ROOM_APPLIED) is None:
        return
    mine, _carried, why = room_settings()
    if why or mine != ss[ROOM_APPLIED]:
        ss[ROOM_FOLLOW] = False
        note(
            "You picked a text or settings of your own: you are exploring on your own. Rejoin brings back "
            "the teacher's run."
        )


def follow_route(page: str) -> None:
    """Every full run of a student's page (``page``: its url path; app.py, before the page): a student who
    follows is sent to the page the room shows (``st.switch_page``); a student who went to another page on
    their own explores on their own from then on (Rejoin, in the sidebar or the room's bar, goes back)."""
    ss = st.session_state
    if not ss.get(ROOM_JOIN):
        return
    presence.here(ss[ROOM_JOIN], student_id(), presence.client_address())  # counted while here
    page = page or "player"
    last, ss[ROOM_PAGE] = ss.get(ROOM_PAGE), page
    going = ss.pop(ROOM_GOING, None)
    if not ss.get(ROOM_FOLLOW):
        return
    if last is not None and page != last and page != going:
        ss[ROOM_FOLLOW] = False  # the student left the room's page: exploring
        return
    try:
        room = joined_room()
    except model.Unavailable:
        return
    if room is None:
        return
    target = screen_of(room)
    if target != page:
        ss[ROOM_GOING] = target
        st.switch_page(SCREENS[target])


def sync_lesson() -> None:
    """Every full run of a student's Classroom: a following student's lesson and step are the teacher's."""
    ss = st.session_state
    if ss.get(ROOM_JOIN) and ss.get(ROOM_FOLLOW):
        try:
            room = joined_room()
        except model.Unavailable:
            return
        where = lesson_of(room) if room is not None else None
        if where is not None:
            ss[CLASSROOM_LESSON], ss[CLASSROOM_STEP] = where


def explored() -> None:
    """A student moved on their own in the Classroom (a step, the lesson picker): no longer following."""
    ss = st.session_state
    if ss.get(ROOM_JOIN) and ss.get(ROOM_FOLLOW):
        ss[ROOM_FOLLOW] = False


def away_from_room(room: dict, page: str) -> bool:
    """Whether a following student's ``page`` no longer shows what the room shows (a fragment then reruns
    the app, whose :func:`follow_route` and :func:`sync_lesson` go there)."""
    ss = st.session_state
    if not ss.get(ROOM_FOLLOW):
        return False
    if screen_of(room) != page:
        return True
    return page == "classroom" and lesson_of(room) != (ss.get(CLASSROOM_LESSON), ss.get(CLASSROOM_STEP))


def set_following(on: bool) -> None:
    """Detach (explore on one's own) or rejoin (the player jumps to where the teacher is: the trained run's
    player, out of Replay)."""
    ss = st.session_state
    ss[ROOM_FOLLOW] = bool(on)
    if on:
        ss[PLAYER_MODE] = "train"
        note("")
        ss[ROOM_FOLLOW_SEQ] = int(ss.get(ROOM_FOLLOW_SEQ, 0)) + 1
        ss.pop(ROOM_APPLIED, None)  # the teacher's run again, if the student picked another meanwhile


def mode_changed() -> None:
    """The player's "What to play" switched (its callback): a following student who picks "Replay a real
    vocabulary" no longer follows -- the teacher's run is not on their screen -- and their room's line says so
    (``views.live_room.status_html``); Rejoin (:func:`set_following`) brings the teacher's player back."""
    ss = st.session_state
    if ss.get(ROOM_JOIN) and ss.get(PLAYER_MODE) == "replay":
        ss[ROOM_FOLLOW] = False


def follow_data(room: dict, tag: str) -> dict:
    """What the student's player gets (``components.merge_player.follow_box``): the room's code (the player
    then asks ``appstate.model.play_endpoint`` for the play state, a few times a second) and the teacher's
    play state as it is now, computed anew only when it or the following changed (so an unchanged one is not
    sent again)."""
    ss = st.session_state
    p = room.get("play") or {}
    key = (bool(ss.get(ROOM_FOLLOW)), int(ss.get(ROOM_FOLLOW_SEQ, 0)), int(p.get("v", 0)), tag, int(room.get("sig", 0)))
    sent = ss.get(ROOM_FOLLOW_SENT)
    if sent and sent[0] == key:
        return sent[1]
    data = {"on": key[0], "tag": tag, "seq": key[1], "code": room["code"], **model.follow_state(room, time.time())}
    ss[ROOM_FOLLOW_SENT] = (key, data)
    return data


def answer(poll_id: int, choice: int) -> None:
    """The student's answer to the room's poll (a button's callback)."""
    ss = st.session_state
    code = ss.get(ROOM_JOIN)
    if not code:
        return
    try:
        room_store().answer(code, student_id(), poll_id, choice)
    except model.RoomError as exc:
        note(str(exc))
        return
    ss[ROOM_ANSWERS] = {**ss.get(ROOM_ANSWERS, {}), poll_id: choice}
    note("")
