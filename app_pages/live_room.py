"""A live room outside the merge player (not a page): the sidebar's badge on every page, and the Classroom's
teacher corner and student bar. The player's own room panels are ``app_pages/player_room.py``.

* Every page, in the sidebar (:func:`sidebar_badge`): the teacher's room with how many students joined, a
  fragment that looks at the room every :data:`CLASSROOM_POLL` seconds (and beats every
  :data:`liveroom.teacher.BEAT_EVERY`: the room lives while the teacher's session does, on whatever page);
  a student away from the room's pages, or exploring, with Rejoin.
* The Classroom, the teacher (presenter view): "Start a live room" in the lesson's controls row
  (:func:`classroom_start`), then under it the code, the join link and its QR code, "Close the room"
  (:func:`classroom_teacher`). The page tells the room its lesson and step on every run
  (``liveroom.teacher.lead_screen``).
* The Classroom, a student (:func:`classroom_student`): which room and where the teacher is, Detach /
  Rejoin; the follow element's mailbox long-polls the room (no script run while the teacher is idle) and
  reruns this fragment when the teacher moves: a following student then goes to the teacher's lesson and
  step, or back to the player.
"""

from __future__ import annotations

import functools
import html
import json
import time

import streamlit as st

import liveroom as rooms
from appstate import keys
from appstate.query import share_url
from components.merge_player import follow_box
from liveroom import session, student, teacher
from views import lessons
from views.live_room import LIVE_CSS, badge_html, join_panel_html, lesson_status_html, qr_data_uri, spaced_code
from views.messages import message_html
from views.room_record import CSV_MIME, csv_name, record_csv

__all__ = [
    "sidebar_badge",
    "keep_in_browser",
    "classroom_start",
    "classroom_teacher",
    "classroom_student",
    "CLASSROOM_POLL",
    "store_down",
    "DOWN_POLL",
    "join_note",
    "closed_download",
    "closed_line",
]

ss = st.session_state
#: seconds between the teacher's Classroom corner's looks at the room (how many joined)
CLASSROOM_POLL = 5.0
#: seconds between the looks of the "unavailable" notice at the rooms' store
DOWN_POLL = 2.0


@functools.lru_cache(maxsize=64)
def _qr(url: str) -> str:
    return qr_data_uri(url)


# ----------------------------------------------------------------------------------------------------
# Every page: the sidebar


def store_down() -> None:
    """A room's part of the page (a fragment) found the store unavailable (``liveroom.session.down``): one line
    says so here, and a page that did not know yet reruns once, for the sidebar's notice (:func:`sidebar_badge`),
    which looks again every :data:`DOWN_POLL` seconds and brings the room back."""
    first = not ss.get(keys.ROOM_DOWN_SHOWN)
    session.down()
    st.html(message_html(rooms.UNAVAILABLE, "warning", css_class="lr-unavailable"))
    if first:
        ss[keys.ROOM_DOWN_SHOWN] = True
        st.rerun(scope="app")


def join_note(where) -> None:
    """Why the link's ``join=`` did not join (``where``: a container, or ``st``): no such room, a refusal (an
    error), or the store away for a moment (a warning: the page joins when it is back)."""
    text = ss.get(keys.ROOM_JOIN_NOTE)
    if text:
        down = text == rooms.UNAVAILABLE
        where.html(
            message_html(
                text,
                "warning" if down else "error",
                css_class="lr-join-error lr-unavailable" if down else "lr-join-error",
            )
        )


def closed_line(yours: str) -> None:
    """A student's one line once the room they joined has closed (``yours``: what is theirs now, with its verb:
    "the player is", "the lessons are")."""
    st.html(
        message_html(
            f"The live room {spaced_code(ss[keys.ROOM_JOIN])} has closed: {yours} yours now.",
            "info",
            css_class="lr-closed",
        )
    )


@st.fragment(run_every=DOWN_POLL)
def _down_notice() -> None:
    if session.store_back():
        ss.pop(keys.ROOM_DOWN_SHOWN, None)
        st.rerun(scope="app")  # the room's parts are drawn again (a join that waited is made)
    st.html(message_html(rooms.UNAVAILABLE, "warning", css_class="lr-unavailable lr-down"))


def sidebar_badge(page: str) -> None:
    """In the sidebar: the room this session leads (and its heartbeat), or, for a student on a page the room
    does not show (``page``: the url path), the room and Rejoin; while the rooms' store does not answer, one
    line says so (and the notice looks again every :data:`DOWN_POLL` seconds)."""
    if ss.get(keys.ROOM_DOWN):
        ss[keys.ROOM_DOWN_SHOWN] = True
        _down_notice()
        return
    if session.lead() is not None:
        _lead_badge()
    elif ss.get(keys.ROOM_JOIN) and ((page or "player") not in session.SCREENS or not ss.get(keys.ROOM_FOLLOW)):
        # (on the room's own pages only while exploring: a phone's open sidebar covers the page's Rejoin)
        following = bool(ss.get(keys.ROOM_FOLLOW))
        st.html(LIVE_CSS + badge_html(ss[keys.ROOM_JOIN], following=following))
        if not following:
            st.button(
                "Rejoin the room",
                key="room_rejoin_side",
                on_click=student.set_following,
                args=(True,),
                icon=":material/sync:",
                help="Back to where the teacher is.",
            )


@st.fragment(run_every=CLASSROOM_POLL)
def _lead_badge() -> None:
    try:
        room = teacher.lead_room()  # a heartbeat when one is due
    except rooms.Unavailable:
        store_down()
        return
    if room is None:  # it ended (the note says why, on the player): the pages redraw
        st.rerun(scope="app")
    st.html(LIVE_CSS + badge_html(room["code"], students=rooms.present(room, time.time())))


def keep_in_browser() -> None:
    """Have the browser keep (or drop) this session's room cookies when they changed (``liveroom.session.
    browser_cookies``): a small script, no user string in it (codes, tokens and ids are of fixed alphabets);
    SameSite=Strict, 12 hours, Secure on https."""
    want = session.browser_cookies()
    sent = ss.get(keys.ROOM_COOKIES_SENT, {})
    changed = {k: v for k, v in want.items() if sent.get(k, "") != v}
    if not changed:
        return
    ss[keys.ROOM_COOKIES_SENT] = {**sent, **changed}
    lines = "".join(
        f"document.cookie = '{k}=' + {json.dumps(v)} + '; path=/; SameSite=Strict; max-age="
        f"{43200 if v else 0}' + (location.protocol === 'https:' ? '; Secure' : '');"
        for k, v in changed.items()
    )
    # the script then takes itself out of the page: the teacher's key is not left in the document
    st.html(
        f"<script>{lines} document.currentScript && document.currentScript.remove();</script>",
        unsafe_allow_javascript=True,
    )


def closed_download() -> None:
    """After class (where "Start a live room" is, on the player and the Classroom): the questions of the room
    this teacher closed, with the room's answers, as a CSV file -- until a new room starts."""
    closed = teacher.closed_record()
    if closed:
        code, entries, when = closed
        n = len(entries)
        st.html(
            f'<div class="lr-meta lr-closed-record" data-questions="{n}">The live room '
            f"{html.escape(spaced_code(code))} has closed; its {n} question{'s' if n != 1 else ''} and the "
            "room's answers can still be downloaded.</div>"
        )
        st.download_button(
            "Download the questions (CSV)",
            data=record_csv(entries),
            file_name=csv_name(code, when),
            mime=CSV_MIME,
            on_click="ignore",
            key="room_csv_closed",
            icon=":material/download:",
        )


# ----------------------------------------------------------------------------------------------------
# The Classroom


def classroom_start() -> None:
    """Presenter view, in the lesson's controls row (where a teacher looks first): "Start a live room" while
    this session leads none."""
    if session.lead() is None:
        st.button(
            "Start a live room",
            key="room_start",
            on_click=teacher.start_room,
            icon=":material/groups:",
            help="Students open the link or scan the QR code: their Classroom follows your lesson "
            "and step (and their player yours, on the Merge player).",
        )


def classroom_teacher() -> None:
    """Presenter view, under the lesson's controls: the room's code, link and QR code (in an expander the
    teacher folds once the class has joined: the lesson keeps the screen), or, with no room, why a start
    failed and the closed room's questions (:func:`closed_download`)."""
    with st.container(key="room_panel"):
        code = session.lead()
        if code is None:
            if ss.get(keys.ROOM_NOTE):
                st.html(message_html(ss[keys.ROOM_NOTE], "warning", css_class="lr-note"))
            closed_download()
            return
        with st.expander(
            f"Live room {spaced_code(code[0])}: the code, link and QR code",
            expanded=True,
            key=f"room_expander_{code[0]}",  # a new room opens unfolded
            icon=":material/groups:",
        ):
            _classroom_panel()


@st.fragment(run_every=CLASSROOM_POLL)
def _classroom_panel() -> None:
    try:
        room = teacher.lead_room()
    except rooms.Unavailable:
        store_down()
        return
    if room is None:
        st.rerun(scope="app")
    code = room["code"]
    url = share_url(st.context.url, {"join": code})
    st.html(LIVE_CSS + join_panel_html(code, url, _qr(url), students=rooms.present(room, time.time()), small=True))
    st.button("Close the room", key="room_close", on_click=teacher.close_room, icon=":material/close:")


@st.fragment
def classroom_student() -> None:
    """A student's bar on the Classroom: the room, where the teacher is, Detach / Rejoin (see the module)."""
    with st.container(key="room_student"):
        try:
            room = student.joined_room()
        except rooms.Unavailable:
            store_down()
            return
        if room is None:
            closed_line("the lessons are")
            follow_box(None, key="classroom")
            return
        if student.away_from_room(room, "classroom"):
            st.rerun(scope="app")  # the teacher moved: this page goes there (app.py, then the page)
        following = bool(ss.get(keys.ROOM_FOLLOW))
        where = session.lesson_of(room)
        title = lessons.LESSON_TITLES[where[0] - 1] if where and 1 <= where[0] <= lessons.lesson_count() else ""
        bar, button = st.columns([4, 1], vertical_alignment="center")
        bar.html(
            LIVE_CSS
            + lesson_status_html(
                room["code"], following=following, lesson=where and where[0], step=where and where[1], title=title
            )
        )
        if following:
            button.button(
                "Detach",
                key="room_detach",
                on_click=student.set_following,
                args=(False,),
                icon=":material/explore:",
                help="Explore on your own; rejoin with one click.",
            )
        else:
            button.button(
                "Rejoin",
                key="room_rejoin",
                on_click=student.set_following,
                args=(True,),
                type="primary",
                icon=":material/sync:",
                help="Back to where the teacher is.",
            )
        if ss.get(keys.ROOM_NOTE):
            st.html(message_html(ss[keys.ROOM_NOTE], "warning", css_class="lr-note"))
        follow_box(student.follow_data(room, "classroom"), key="classroom")
