"""A live room from a session's side, what the teacher's and a student's share: the room cookies that carry
it across a reload, the page's notes, the run a room carries, and what the room shows. The teacher's side is
:mod:`liveroom.teacher`, a student's :mod:`liveroom.student`; the states they move through: docs/live-room.md.
Messages for the page go to :data:`~appstate.keys.ROOM_NOTE` as plain text (escape them).
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections import OrderedDict

import streamlit as st

from appstate.keys import (
    PLAYER_PASTE,
    PLAYER_SOURCE,
    PLAYER_STEP,
    PLAYER_UPLOAD_TEXT,
    PLAYER_UPLOAD_TRUNCATE,
    ROOM_APPLIED,
    ROOM_COOKIES_READ,
    ROOM_DOWN,
    ROOM_FOLLOW,
    ROOM_JOIN,
    ROOM_LEAD,
    ROOM_LEAD_BEAT,
    ROOM_LEAD_SCREEN,
    ROOM_LEAD_SENT,
    ROOM_LEAD_TEXT,
    ROOM_NOTE,
    ROOM_STUDENT,
)
from appstate.links import apply_player_link, player_link_params
from appstate.player_link import read_link
from appstate.player_state import init_player_state
from appstate.query import first_value
from appstate.sources import MAX_APP_VOCAB, SourceError, check_train_text, samples, upload_source

from . import model
from .roomstore import store as room_store

#: the browser's cookies that carry a room across a reload (a reload is a new session): the teacher's
#: ``CODE.TOKEN`` (the token is the room's key: never shown, only this browser holds it) and a student's id
#: (a reload is the same student: counted once, their answers kept)
LEAD_COOKIE, STUDENT_COOKIE = "bpe_lab_lead", "bpe_lab_student"

#: the pages a room shows, by their url path: the merge player (its play state) or the Classroom (a lesson
#: and step); a following student's session is sent to the one the teacher shows (:func:`liveroom.student.follow_route`)
SCREENS = {"player": "app_pages/player.py", "classroom": "app_pages/classroom.py"}

#: the run settings a room carries: the share link's, without the merge and the speed (those are play state)
_NOT_SETTINGS = ("merge", "speed")

_TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{20,64}$")

_STUDENT_RE = re.compile(r"^[0-9a-f]{16}$")


def note(text: str) -> None:
    st.session_state[ROOM_NOTE] = text


def down() -> None:
    """The rooms' store did not answer (``model.Unavailable``): the page says so in one line (the sidebar's
    notice, ``app_pages.live_room``, which looks again every few seconds and reruns the page when it is back);
    the session keeps its room."""
    st.session_state[ROOM_DOWN] = True


def store_back() -> bool:
    """Whether the rooms' store answers again (then the page's notice goes: :func:`down`)."""
    if room_store().available():
        st.session_state.pop(ROOM_DOWN, None)
        return True
    return False


def lead() -> tuple[str, str] | None:
    """(code, token) of the room this session leads, or None."""
    return st.session_state.get(ROOM_LEAD)


def student_id() -> str:
    """This session's random id in rooms (no name: the teacher sees counts only)."""
    return st.session_state.setdefault(ROOM_STUDENT, secrets.token_hex(8))


def teacher_text() -> tuple[str, str]:
    """(name, text) of the teacher's upload or pasted text (what the player trains on); SourceError when there
    is none to carry (an upload that failed, an empty box)."""
    ss = st.session_state
    if ss.get(PLAYER_SOURCE) == "upload":
        return upload_source(ss.get(PLAYER_UPLOAD_TEXT), bool(ss.get(PLAYER_UPLOAD_TRUNCATE)))
    return "the teacher's pasted text", check_train_text(ss.get(PLAYER_PASTE, ""), "the pasted text")


def room_settings() -> tuple[dict, tuple[str, str] | None, str]:
    """The teacher's run as a room carries it: the share link's parameters (without merge and speed); when a
    link cannot carry the text (an upload, a paste over 2,000 characters) the (name, text) to keep beside the
    room (``model.RoomStore.put_text``), which the settings name by its digest (``text_digest``, ``text_name``);
    and why the run cannot be carried ("" when it can)."""
    init_player_state()  # a room started from the Classroom, before the player was opened: its defaults
    params, why = player_link_params(0)
    settings = {k: v for k, v in params.items() if k not in _NOT_SETTINGS and v is not None}
    if not why:
        return settings, None, ""
    try:
        carried = teacher_text()
    except SourceError as exc:
        return settings, None, str(exc)
    settings.update(text_digest=model.text_digest(carried[1]), text_name=carried[0])
    return settings, carried, ""


def adopt_from_cookies(cookies) -> None:
    """Once per session, before the page: this browser's room cookies (``st.context.cookies``). A teacher who
    reloads leads the room again -- if the store still takes the token -- with its run (an uploaded text too:
    the room holds it); a student keeps their id. A cookie the store refuses is forgotten."""
    ss = st.session_state
    if ss.get(ROOM_COOKIES_READ):
        return
    ss[ROOM_COOKIES_READ] = True
    sid = cookies.get(STUDENT_COOKIE) if cookies else None
    if isinstance(sid, str) and _STUDENT_RE.match(sid):
        ss.setdefault(ROOM_STUDENT, sid)
    held = cookies.get(LEAD_COOKIE) if cookies else None
    if not isinstance(held, str) or "." not in held or lead():
        return
    if first_value(st.query_params.get("join")) is not None:
        return  # a join link opened in the teacher's browser (to see the students' side): a student
    code, token = held.split(".", 1)
    code = model.normalize_code(code)
    if code is None or not _TOKEN_RE.match(token):
        return
    try:
        room = room_store().beat(code, token)
    except model.Unavailable:
        ss[ROOM_COOKIES_READ] = False  # the store is away: the next run tries again (the cookie is kept)
        down()
        return
    except model.RoomError:
        return  # closed, expired, or not this browser's: the cookie is dropped (browser_cookies)
    ss[ROOM_LEAD], ss[ROOM_LEAD_BEAT] = (code, token), time.time()
    ss[ROOM_LEAD_SENT] = (int((room.get("play") or {}).get("merge", 0)), False)
    ss[ROOM_LEAD_SCREEN] = lesson_of(room)
    init_player_state()
    ss[PLAYER_STEP] = ss[ROOM_LEAD_SENT][0]
    try:
        apply_room_settings(room)  # the teacher's run is the room's (an upload is gone from a new session)
    except model.Unavailable:
        down()
    if (room.get("settings") or {}).get("text_digest"):
        ss[ROOM_LEAD_TEXT] = (code, room["settings"]["text_digest"])


def browser_cookies() -> dict[str, str]:
    """The room cookies this browser should hold now (``""``: delete it)."""
    ss = st.session_state
    if not ss.get(ROOM_COOKIES_READ):
        return {}  # not read yet (the store was away): the browser keeps what it holds
    held = lead()
    want = {LEAD_COOKIE: f"{held[0]}.{held[1]}" if held else ""}
    if ss.get(ROOM_JOIN):
        want[STUDENT_COOKIE] = student_id()
    return want


def apply_room_settings(room: dict) -> bool:
    """Put the room's run (text and settings) into the player's session state, if it changed since this
    session last did; returns whether it did (then the page must rerun to train it). A text kept beside the
    room (an upload, a long paste) becomes this session's upload, named after it; until it has reached this
    server, nothing changes (a note says so) and the next run tries again."""
    ss = st.session_state
    settings = room.get("settings") or {}
    if ss.get(ROOM_APPLIED) == settings:
        return False
    digest = settings.get("text_digest")
    if digest:
        text = _room_text(room["code"], str(digest))
        if text is None:
            note("The teacher's text has not reached this server yet: it will in a moment (or reload the page).")
            return False
        ss[PLAYER_SOURCE], ss[PLAYER_UPLOAD_TRUNCATE] = "upload", False
        ss[PLAYER_UPLOAD_TEXT] = {
            "name": str(settings.get("text_name") or "the teacher's text"),
            "size": len(text.encode("utf-8", "surrogatepass")),
            "text": text,
            "truncated": False,
            "error": "",
            "room": room["code"],
        }
        note("")
    link, _notes = read_link(
        {
            k: str(int(v)) if isinstance(v, bool) else str(v)
            for k, v in settings.items()
            if k not in ("text_digest", "text_name")
        },
        samples=[s.key for s in samples()],
        merges=256,
        max_vocab=MAX_APP_VOCAB,
    )
    link.merge = None
    apply_player_link(link)
    ss[ROOM_APPLIED] = settings
    return True


_TEXTS: "OrderedDict[str, str]" = OrderedDict()  # digest -> a room's text: one copy a process, not a session

_TEXTS_LOCK = threading.Lock()


def _room_text(code: str, digest: str) -> str | None:
    """The room's text with this digest (from the store once, then shared by this process's sessions)."""
    with _TEXTS_LOCK:
        if digest in _TEXTS:
            _TEXTS.move_to_end(digest)
            return _TEXTS[digest]
    doc = room_store().text(code)
    if not doc or doc.get("digest") != digest or model.text_digest(doc.get("text", "")) != digest:
        return None
    with _TEXTS_LOCK:
        _TEXTS[digest] = doc["text"]
        while len(_TEXTS) > 8:
            _TEXTS.popitem(last=False)
    return doc["text"]


def screen_of(room: dict) -> str:
    """The page the room shows now (a key of :data:`SCREENS`).

    >>> screen_of({"lesson": None}), screen_of({"lesson": {"lesson": 2, "step": 1}})
    ('player', 'classroom')
    """
    return "classroom" if room.get("lesson") else "player"


def lesson_of(room: dict) -> tuple[int, int] | None:
    """The Classroom's (lesson, step) the room shows, or None (it shows the player).

    >>> lesson_of({"lesson": {"lesson": 2, "step": 3}}), lesson_of({})
    ((2, 3), None)
    """
    shown_lesson = room.get("lesson")
    return (int(shown_lesson["lesson"]), int(shown_lesson["step"])) if shown_lesson else None


def settings_changed(room: dict) -> bool:
    """Whether the room's run differs from the one this following session last applied."""
    ss = st.session_state
    return bool(ss.get(ROOM_FOLLOW)) and ss.get(ROOM_APPLIED) != (room.get("settings") or {})
