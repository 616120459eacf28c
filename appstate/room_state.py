"""A live room from a session's side: the teacher's session leads one, a student's joins one.

The rooms themselves (codes, tokens, limits, the poll) are :mod:`appstate.rooms`' store, one per process
(in Redis behind the nginx front); this module keeps in session state what a session holds: the teacher's
code and token (:data:`~appstate.keys.ROOM_LEAD`, never shown to anyone else), a student's code, random
id, whether its player follows, its answers. Messages for the page go to :data:`~appstate.keys.ROOM_NOTE`
as plain text (escape them).

* the teacher: :func:`start_room`, :func:`close_room`, :func:`lead_sync` (every full run: the run's settings),
  :func:`lead_report` (the player's report: step, jump, play, pause), :func:`lead_seeked` (Python moved the
  player), :func:`lead_screen` (the Classroom's lesson and step, or the player), :func:`lead_room` (the room,
  and a heartbeat every :data:`BEAT_EVERY` seconds: the sidebar's badge calls it on every page), the poll;
* a student: :func:`read_join` (the link's ``join=``, once per session), :func:`sync_join` (every full run,
  before the widgets: the teacher's new run), :func:`follow_route` (every full run: to the page the room
  shows), :func:`sync_lesson` (the Classroom: the teacher's lesson and step), :func:`joined_room`,
  :func:`apply_room_settings`, :func:`follow_data`, :func:`set_following`, :func:`explored`, :func:`answer`.
"""
from __future__ import annotations

import re
import secrets
import threading
import time
from collections import OrderedDict

import streamlit as st

from . import room_presence, rooms
from .keys import (
    CLASSROOM_LESSON,
    CLASSROOM_STEP,
    PLAYER_PASTE,
    PLAYER_SOURCE,
    PLAYER_SPEED,
    PLAYER_STEP,
    PLAYER_UPLOAD_TEXT,
    PLAYER_UPLOAD_TRUNCATE,
    ROOM_ANSWERS,
    ROOM_APPLIED,
    ROOM_COOKIES_READ,
    ROOM_DOWN,
    ROOM_FOLLOW,
    ROOM_FOLLOW_SENT,
    ROOM_FOLLOW_SEQ,
    ROOM_GOING,
    ROOM_JOIN,
    ROOM_JOIN_NOTE,
    ROOM_JOIN_READ,
    ROOM_LEAD,
    ROOM_LEAD_BEAT,
    ROOM_LEAD_SCREEN,
    ROOM_LEAD_SENT,
    ROOM_LEAD_TEXT,
    ROOM_NOTE,
    ROOM_PAGE,
    ROOM_POLL_OPEN,
    ROOM_STUDENT,
)
from .links import apply_player_link, player_link_params
from .player_link import read_link
from .player_state import init_player_state
from .query import first_value, shown
from .sources import MAX_APP_VOCAB, SourceError, check_train_text, samples, upload_source

#: seconds between the teacher's heartbeats (the room outlives the last one by rooms.GRACE)
BEAT_EVERY = 15.0
#: the pages a room shows, by their url path: the merge player (its play state) or the Classroom (a lesson
#: and step); a following student's session is sent to the one the teacher shows (:func:`follow_route`)
SCREENS = {"player": "app_pages/player.py", "classroom": "app_pages/classroom.py"}
#: the run settings a room carries: the share link's, without the merge and the speed (those are play state)
_NOT_SETTINGS = ("merge", "speed")


#: the browser's cookies that carry a room across a reload (a reload is a new session): the teacher's
#: ``CODE.TOKEN`` (the token is the room's key: never shown, only this browser holds it) and a student's id
#: (a reload is the same student: counted once, their answers kept)
LEAD_COOKIE, STUDENT_COOKIE = "bpe_lab_lead", "bpe_lab_student"
_TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{20,64}$")
_STUDENT_RE = re.compile(r"^[0-9a-f]{16}$")


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
        return      # a join link opened in the teacher's browser (to see the students' side): a student
    code, token = held.split(".", 1)
    code = rooms.normalize_code(code)
    if code is None or not _TOKEN_RE.match(token):
        return
    try:
        room = rooms.store().beat(code, token)
    except rooms.Unavailable:
        ss[ROOM_COOKIES_READ] = False    # the store is away: the next run tries again (the cookie is kept)
        down()
        return
    except rooms.RoomError:
        return      # closed, expired, or not this browser's: the cookie is dropped (browser_cookies)
    ss[ROOM_LEAD], ss[ROOM_LEAD_BEAT] = (code, token), time.time()
    ss[ROOM_LEAD_SENT] = (int((room.get("play") or {}).get("merge", 0)), False)
    ss[ROOM_LEAD_SCREEN] = lesson_of(room)
    init_player_state()
    ss[PLAYER_STEP] = ss[ROOM_LEAD_SENT][0]
    try:
        apply_room_settings(room)        # the teacher's run is the room's (an upload is gone from a new session)
    except rooms.Unavailable:
        down()
    if (room.get("settings") or {}).get("text_digest"):
        ss[ROOM_LEAD_TEXT] = (code, room["settings"]["text_digest"])


def browser_cookies() -> dict[str, str]:
    """The room cookies this browser should hold now (``""``: delete it)."""
    ss = st.session_state
    if not ss.get(ROOM_COOKIES_READ):
        return {}       # not read yet (the store was away): the browser keeps what it holds
    held = lead()
    want = {LEAD_COOKIE: f"{held[0]}.{held[1]}" if held else ""}
    if ss.get(ROOM_JOIN):
        want[STUDENT_COOKIE] = student_id()
    return want


def note(text: str) -> None:
    st.session_state[ROOM_NOTE] = text


def down() -> None:
    """The rooms' store did not answer (``rooms.Unavailable``): the page says so in one line (the sidebar's
    notice, ``app_pages.live_room``, which looks again every few seconds and reruns the page when it is back);
    the session keeps its room."""
    st.session_state[ROOM_DOWN] = True


def store_back() -> bool:
    """Whether the rooms' store answers again (then the page's notice goes: :func:`down`)."""
    if rooms.store().available():
        st.session_state.pop(ROOM_DOWN, None)
        return True
    return False


# ----------------------------------------------------------------------------------------------------
# The teacher

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
    room (``rooms.RoomStore.put_text``), which the settings name by its digest (``text_digest``, ``text_name``);
    and why the run cannot be carried ("" when it can)."""
    init_player_state()     # a room started from the Classroom, before the player was opened: its defaults
    params, why = player_link_params(0)
    settings = {k: v for k, v in params.items() if k not in _NOT_SETTINGS and v is not None}
    if not why:
        return settings, None, ""
    try:
        carried = teacher_text()
    except SourceError as exc:
        return settings, None, str(exc)
    settings.update(text_digest=rooms.text_digest(carried[1]), text_name=carried[0])
    return settings, carried, ""


def _put_text(held: tuple[str, str], settings: dict, carried: tuple[str, str] | None) -> None:
    """The teacher's text beside the room, once per text (before the settings naming it reach students)."""
    ss = st.session_state
    if carried and ss.get(ROOM_LEAD_TEXT) != (held[0], settings["text_digest"]):
        rooms.store().put_text(*held, carried[1], carried[0])
        ss[ROOM_LEAD_TEXT] = (held[0], settings["text_digest"])


def lead() -> tuple[str, str] | None:
    """(code, token) of the room this session leads, or None."""
    return st.session_state.get(ROOM_LEAD)


def start_room() -> None:
    """Open a room for the run on the player (a button's callback)."""
    ss = st.session_state
    settings, carried, why = room_settings()
    if why:
        note(f"The player's text cannot go to a live room: {why}")
        return
    try:
        code, token = rooms.store().create(settings, merge=int(ss.get(PLAYER_STEP, 0)),
                                           speed=ss.get(PLAYER_SPEED, 2))
        _put_text((code, token), settings, carried)
    except rooms.RoomError as exc:
        note(str(exc))
        return
    ss[ROOM_LEAD], ss[ROOM_LEAD_SENT], ss[ROOM_LEAD_BEAT] = (code, token), (int(ss.get(PLAYER_STEP, 0)), False), time.time()
    ss[ROOM_LEAD_SCREEN] = None     # a room starts on the player; the Classroom tells it its lesson
    note("")


def close_room() -> None:
    """Close the room this session leads (a button's callback)."""
    ss = st.session_state
    held = ss.pop(ROOM_LEAD, None)
    ss.pop(ROOM_POLL_OPEN, None)
    if held:
        try:
            rooms.store().close(*held)
        except rooms.RoomError:
            pass
    note("")


def _lost(exc: Exception) -> None:
    if isinstance(exc, rooms.Unavailable):
        down()          # the store is away for a moment: the teacher keeps the room
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
        return      # no text to carry (an upload that failed): the students keep the last run
    try:
        _put_text(held, settings, carried)
        if rooms.store().set_settings(*held, settings):
            st.session_state[ROOM_LEAD_SENT] = (0, False)
    except rooms.RoomError as exc:
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
        rooms.store().set_lesson(*held, None if screen is None else screen[0], 1 if screen is None else screen[1])
        ss[ROOM_LEAD_SCREEN], ss[ROOM_LEAD_BEAT] = screen, time.time()
    except rooms.RoomError as exc:
        _lost(exc)


def _send(merge: int, playing: bool, at: float | None = None) -> None:
    ss = st.session_state
    held = lead()
    if not held:
        return
    try:
        rooms.store().set_play(*held, merge=merge, speed=ss.get(PLAYER_SPEED, 2), playing=playing, at=at)
        ss[ROOM_LEAD_SENT] = (merge, playing)
        ss[ROOM_LEAD_BEAT] = time.time()
    except rooms.RoomError as exc:
        _lost(exc)


def lead_report(view: dict) -> None:
    """The teacher's player reported (a step, a jump, play, pause, a speed; the report is already in
    session state): the room's play state follows. The report's ``at`` (ms, the server's clock as the browser
    estimates it from the control's ``clock``) dates it: the report itself may wait while the teacher's
    session finishes a run, and students who start playing would lag by that wait."""
    if lead() and isinstance(view, dict):
        at = view.get("at")   # when the teacher acted, on the server's clock as the browser estimates it
        _send(int(st.session_state.get(PLAYER_STEP, 0)), bool(view.get("playing")),
              at / 1000 if type(at) in (int, float) else None)


def lead_seeked(step: int, *, force: bool = False) -> None:
    """Python moved the teacher's player (a quiz answer, a reveal): the room follows (not while it plays,
    unless ``force``: the player then stops there)."""
    sent = st.session_state.get(ROOM_LEAD_SENT)
    if lead() and sent and (force or (not sent[1] and sent[0] != step)):
        _send(step, False)


def lead_room() -> dict | None:
    """The room this session leads (None: none, or it ended: then a note says so); a heartbeat every
    :data:`BEAT_EVERY` seconds keeps it alive. ``rooms.Unavailable`` when the store does not answer (the
    session keeps its room: :func:`down`)."""
    ss = st.session_state
    held = lead()
    if not held:
        return None
    store = rooms.store()
    try:
        if time.time() - ss.get(ROOM_LEAD_BEAT, 0) >= BEAT_EVERY:
            room = store.beat(*held)
            ss[ROOM_LEAD_BEAT] = time.time()
            return room
        room = store.room(held[0])
        if room is None:
            raise rooms.NoSuchRoom("it expired.")
        return room
    except rooms.Unavailable:
        down()
        raise
    except rooms.RoomError as exc:
        _lost(exc)
        return None


def open_poll(k: int, n: int) -> None:
    """Ask the room about merge ``k + 1`` (``n`` options); the teacher's player hides its pair counts (the
    answer) until the reveal."""
    held = lead()
    if held:
        try:
            rooms.store().open_poll(*held, k=k, n=n)
            st.session_state[ROOM_POLL_OPEN] = True
        except rooms.RoomError as exc:
            _lost(exc)


def reveal_poll() -> None:
    held = lead()
    st.session_state.pop(ROOM_POLL_OPEN, None)
    if held:
        try:
            rooms.store().reveal(*held)
        except rooms.RoomError as exc:
            note(str(exc))


def poll_hides_counts(room: dict | None, n: int) -> bool:
    """Whether the room's poll is open (about a merge of this run: ``n`` merges): players hide the pair
    counts, which show the answer.

    >>> poll_hides_counts({"poll": {"open": True, "k": 3}}, 10), poll_hides_counts({"poll": None}, 10)
    (True, False)
    """
    poll = (room or {}).get("poll") or {}
    return bool(poll.get("open")) and 0 <= int(poll.get("k", -1)) < n


# ----------------------------------------------------------------------------------------------------
# A student

def student_id() -> str:
    """This session's random id in rooms (no name: the teacher sees counts only)."""
    return st.session_state.setdefault(ROOM_STUDENT, secrets.token_hex(8))


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
        ss[ROOM_JOIN_READ] = False     # the store was away: the next run (when it is back) joins


def join(raw: str) -> bool:
    """Join the room ``raw`` names (as typed or linked); False and a note when it cannot."""
    ss = st.session_state
    address = room_presence.client_address()
    try:
        room = rooms.store().join(raw, student_id(), address)
        room_presence.here(room["code"], student_id(), address)
        ss.pop(ROOM_JOIN_NOTE, None)
        ss[ROOM_JOIN], ss[ROOM_FOLLOW] = room["code"], True
        ss[ROOM_FOLLOW_SEQ] = int(ss.get(ROOM_FOLLOW_SEQ, 0)) + 1
        ss.setdefault(ROOM_ANSWERS, {})
        note("")
        apply_room_settings(room)
    except rooms.Unavailable as exc:
        down()
        ss[ROOM_JOIN_NOTE] = str(exc)
        return False
    except rooms.NoSuchRoom:
        ss[ROOM_JOIN_NOTE] = (f"There is no live room with the code {shown(raw)}: check the code with your teacher. "
                              "(A room closes when its teacher closes it or leaves.)")
        return False
    except rooms.RoomError as exc:
        ss[ROOM_JOIN_NOTE] = str(exc)
        return False
    return True


def joined_room() -> dict | None:
    """The room this session joined, if it is still live; ``rooms.Unavailable`` (and :func:`down`) when the
    store does not answer."""
    code = st.session_state.get(ROOM_JOIN)
    try:
        return rooms.store().room(code) if code else None
    except rooms.Unavailable:
        down()
        raise


def settings_changed(room: dict) -> bool:
    """Whether the room's run differs from the one this following session last applied."""
    ss = st.session_state
    return bool(ss.get(ROOM_FOLLOW)) and ss.get(ROOM_APPLIED) != (room.get("settings") or {})


def sync_join() -> None:
    """Every full run of a student's player, before the sidebar's widgets: the room's run, if it changed
    (while following: a student exploring keeps their own until Rejoin); then :func:`left_the_run`."""
    ss = st.session_state
    if ss.get(ROOM_JOIN) and ss.get(ROOM_FOLLOW) and not ss.get(ROOM_JOIN_NOTE):
        try:
            room = joined_room()
            if room is not None and not apply_room_settings(room):
                left_the_run()
        except rooms.Unavailable:
            pass        # the store is away: the student keeps the run they have


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
        note("You picked a text or settings of your own: you are exploring on your own. Rejoin brings back "
             "the teacher's run.")


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
        ss[PLAYER_UPLOAD_TEXT] = {"name": str(settings.get("text_name") or "the teacher's text"),
                                  "size": len(text.encode("utf-8", "surrogatepass")), "text": text,
                                  "truncated": False, "error": "", "room": room["code"]}
        note("")
    link, _notes = read_link({k: str(int(v)) if isinstance(v, bool) else str(v) for k, v in settings.items()
                              if k not in ("text_digest", "text_name")},
                             samples=[s.key for s in samples()], merges=256, max_vocab=MAX_APP_VOCAB)
    link.merge = None
    apply_player_link(link)
    ss[ROOM_APPLIED] = settings
    return True


_TEXTS: "OrderedDict[str, str]" = OrderedDict()     # digest -> a room's text: one copy a process, not a session
_TEXTS_LOCK = threading.Lock()


def _room_text(code: str, digest: str) -> str | None:
    """The room's text with this digest (from the store once, then shared by this process's sessions)."""
    with _TEXTS_LOCK:
        if digest in _TEXTS:
            _TEXTS.move_to_end(digest)
            return _TEXTS[digest]
    doc = rooms.store().text(code)
    if not doc or doc.get("digest") != digest or rooms.text_digest(doc.get("text", "")) != digest:
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


def follow_route(page: str) -> None:
    """Every full run of a student's page (``page``: its url path; app.py, before the page): a student who
    follows is sent to the page the room shows (``st.switch_page``); a student who went to another page on
    their own explores on their own from then on (Rejoin, in the sidebar or the room's bar, goes back)."""
    ss = st.session_state
    if not ss.get(ROOM_JOIN):
        return
    room_presence.here(ss[ROOM_JOIN], student_id(), room_presence.client_address())   # counted while here
    page = page or "player"
    last, ss[ROOM_PAGE] = ss.get(ROOM_PAGE), page
    going = ss.pop(ROOM_GOING, None)
    if not ss.get(ROOM_FOLLOW):
        return
    if last is not None and page != last and page != going:
        ss[ROOM_FOLLOW] = False      # the student left the room's page: exploring
        return
    try:
        room = joined_room()
    except rooms.Unavailable:
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
        except rooms.Unavailable:
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
    """Detach (explore on one's own) or rejoin (the player jumps to where the teacher is)."""
    ss = st.session_state
    ss[ROOM_FOLLOW] = bool(on)
    if on:
        note("")
        ss[ROOM_FOLLOW_SEQ] = int(ss.get(ROOM_FOLLOW_SEQ, 0)) + 1
        ss.pop(ROOM_APPLIED, None)   # the teacher's run again, if the student picked another meanwhile


def follow_data(room: dict, tag: str) -> dict:
    """What the student's player gets (``components.merge_player.follow_box``): the room's code (the player
    then asks ``appstate.rooms.play_endpoint`` for the play state, a few times a second) and the teacher's
    play state as it is now, computed anew only when it or the following changed (so an unchanged one is not
    sent again)."""
    ss = st.session_state
    p = room.get("play") or {}
    key = (bool(ss.get(ROOM_FOLLOW)), int(ss.get(ROOM_FOLLOW_SEQ, 0)), int(p.get("v", 0)), tag,
           int(room.get("sig", 0)))
    sent = ss.get(ROOM_FOLLOW_SENT)
    if sent and sent[0] == key:
        return sent[1]
    data = {"on": key[0], "tag": tag, "seq": key[1], "code": room["code"], **rooms.follow_state(room, time.time())}
    ss[ROOM_FOLLOW_SENT] = (key, data)
    return data


def answer(poll_id: int, choice: int) -> None:
    """The student's answer to the room's poll (a button's callback)."""
    ss = st.session_state
    code = ss.get(ROOM_JOIN)
    if not code:
        return
    try:
        rooms.store().answer(code, student_id(), poll_id, choice)
    except rooms.RoomError as exc:
        note(str(exc))
        return
    ss[ROOM_ANSWERS] = {**ss.get(ROOM_ANSWERS, {}), poll_id: choice}
    note("")
