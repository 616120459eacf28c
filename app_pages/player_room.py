"""The merge player's live room: glue for ``app_pages/player.py`` (not a page).

* The teacher (presenter view): "Start a live room" -> the code, the join link (this page with
  ``?join=CODE``), its QR code, "Close the room"; "Ask the room" opens "which pair is merged next?" for the
  next merge, a histogram of the answers (counts only) updates every second, "Reveal" shows the answer to
  everyone and steps to that merge. The teacher's player reports its steps, jumps, play and pause to the room
  (``liveroom.teacher.lead_report``, from the player's callback).
* A student (``?join=CODE``): the room's run (same text and settings) and a player that follows the
  teacher: :func:`student_bar` shows the room and hands its code and play state to the player
  (``components.merge_player.follow_box``), whose mailbox then asks the room for its play state (a long poll of
  ``liveroom.endpoint.play_endpoint``, answered when the teacher acts: no script run, nothing while the teacher
  is idle); the player plays the frames itself and reports the merge it stops on, as after a step, once the
  panels below it are on the screen (the player's fragment reruns: they follow the room); when the poll or the run changes, the element's state
  changes and this fragment reruns. Detach / Rejoin; the room's question, its answer and the student's own result.

State and the store: ``liveroom`` (session, teacher, student; the store); drawing: ``views.live_room``.
"""

from __future__ import annotations

import functools
import html
import time

import streamlit as st

import bpe
from app_pages.live_room import closed_download, closed_line, store_down
from appstate import caches, keys, player_state
from appstate.query import share_url
from components.merge_player import follow_box
from components.reveal import reveal
from liveroom import RoomError, Unavailable, poll_counts, present, session, student, teacher
from views.live_room import LIVE_CSS, histogram_html, join_panel_html, qr_data_uri, status_html
from views.messages import markdown_literal, message_html
from views.quiz import QUIZ_CSS, QUIZ_OPTIONS, grade, next_merge_quiz, verdict_html
from views.room_record import CSV_MIME, csv_name, record_csv
from views.theme import MONO

__all__ = ["teacher_panel", "student_bar", "replay_bar", "TEACHER_POLL"]

ss = st.session_state
#: seconds between the teacher's looks at the room (histogram, heartbeat)
TEACHER_POLL = 1.0
RESULTS = "_room_results"  # {poll id: right?}: this student's graded answers
RERUN = "_room_rerun"  # a reveal or a close changed the teacher's player: the whole page reruns
SEEN = "_room_polls_seen"  # ids of the room's questions this student saw open
#: rooms this teacher started and questions asked: each new count brings the panel (the histogram) into view
#: once (components.reveal: sent on every run, acted on once per new value)
STARTED, ASKED = "_room_started", "_room_asked"
#: brought into view, the panel stays clear of Streamlit's fixed header (taller in presenter view)
PANEL_CSS = (
    "<style>.st-key-room_panel{scroll-margin-top:5.5rem;scroll-margin-bottom:.5rem;}"
    ".st-key-room_poll_box{scroll-margin-top:5.5rem;scroll-margin-bottom:1rem;}</style>"
)
SHOWN = "_room_polls_shown"  # questions that opened on this student's screen: each comes into view once
#: a student's question: the pairs in the mono font, two a row on a phone (question, options and status line on
#: one 390x844 screen, the player close below: issue 34), clear of the header when brought into view
POLL_CSS = (
    "<style>.st-key-room_student{scroll-margin-top:4rem;}"
    f".st-key-room_poll button p{{font-family:{MONO};font-size:1.15rem;}}"
    "@media (max-width:640px){.st-key-room_poll [data-testid=stHorizontalBlock]"
    "{flex-flow:row wrap !important;gap:.5rem !important;}"
    ".st-key-room_poll [data-testid=stColumn]{flex:1 1 calc(50% - .25rem) !important;"
    "min-width:calc(50% - .25rem) !important;max-width:calc(50% - .25rem) !important;}}</style>"
)


@functools.lru_cache(maxsize=64)
def _qr(url: str) -> str:
    return qr_data_uri(url)


def _quiz(run: "bpe.Run", code: str, poll: dict):
    k = int(poll["k"])
    return next_merge_quiz(
        run,
        k,
        quiz_id=f"room:{code}:{poll['id']}",
        n_options=QUIZ_OPTIONS,
        question=f"Which pair is merged next (merge {k + 1:,})?",
    )


def _note() -> None:
    if ss.get(keys.ROOM_NOTE):
        st.html(message_html(ss[keys.ROOM_NOTE], "warning", css_class="lr-note"))


# ----------------------------------------------------------------------------------------------------
# The teacher


def _close() -> None:
    teacher.close_room()
    ss[RERUN] = True  # the player is told it no longer leads (its control), in the full run


def _start() -> None:
    teacher.start_room()
    ss[STARTED] = ss.get(STARTED, 0) + 1  # the panel comes into view once (the button was wherever it was scrolled)


def _ask(run: "bpe.Run") -> None:
    """Open the question about the merge after the one the teacher's player shows now (read at the click:
    the button's label may be a second old).

    Once per question: *Ask* is drawn only while no question is open, so a click that arrives while one is
    open is a repeat (under load, one click in the browser test once opened two questions in the same
    second) and opens nothing: a second question would replace the first, its answers filed apart."""
    try:
        room = teacher.lead_room()
    except Unavailable:
        return  # the panel says so; the teacher asks again
    if teacher.poll_hides_counts(room, len(run.merges)):
        return
    step = int(ss.get(keys.PLAYER_STEP, 0))
    if step < len(run.merges):
        quiz = next_merge_quiz(run, step, quiz_id="ask", n_options=QUIZ_OPTIONS)
        right = sorted(
            (i for i, o in enumerate(quiz.options) if o.pair == quiz.winner or o.pair in quiz.ties),
            key=lambda i: quiz.options[i].pair != quiz.winner,
        )  # the merged pair first
        teacher.open_poll(step, len(quiz.options), [o.label for o in quiz.options], right)
        ss[RERUN] = True  # the player hides its pair counts (they show the answer), in the full run
        ss[ASKED] = ss.get(ASKED, 0) + 1  # the histogram and Reveal come into view once


def _reveal(step_to: int) -> None:
    teacher.reveal_poll()
    player_state.seek(keys.PLAYER_STEP, step_to)
    teacher.lead_seeked(step_to, force=True)
    ss[RERUN] = True


def teacher_panel(run: "bpe.Run", rid: str) -> None:
    """Presenter view's live room: "Start a live room", or the room (a fragment that looks at it every
    second: the histogram, the heartbeat). Without a room nothing polls."""
    with st.container(key="room_panel"):
        if session.lead() is None:
            st.button(
                "Start a live room",
                key="room_start",
                on_click=_start,
                icon=":material/groups:",
                help="Students open the link or scan the QR code: their player follows yours, and they "
                'can answer "which pair is merged next?" on their own devices.',
            )
            _note()
            closed_download()
            return
        # the every-second fragment alone in a container of its own: the Streamlit frontend can lose the
        # fragment's block from its parent for a moment; a sibling after it then moved into its place, and the
        # fragment's next run replaced it there -- kept only as a hidden ("retained") copy until the next
        # full run: the CSV button stayed in the page, invisible (issue 34's flaky browser test)
        with st.container(key="room_live"):
            _live_panel(run, rid)
        _live_download()


def _live_download() -> None:
    """While the room is open and has been asked a question: its questions as a CSV, made at the click (the
    counts of that moment). Drawn by the full run, not by the panel's every-second fragment: a download
    button redrawn every second can lose its file between the draw and the click (streamlit#8932)."""
    reader = teacher.record_reader()
    try:
        room = teacher.lead_room()
    except Unavailable:
        return  # the panel says so
    if reader and room and (room.get("poll") or room.get("asked")):
        st.download_button(
            "Download the questions (CSV)",
            data=_csv_of(reader),
            file_name=csv_name(room["code"], time.time()),
            mime=CSV_MIME,
            on_click="ignore",
            key="room_csv",
            icon=":material/download:",
            help="Every question asked in this room: the merge, the options and how many picked "
            "each, the merged pair, when (UTC). Offered after you close the room, too.",
        )


def _csv_of(reader):
    """The room's CSV when the teacher clicks (Streamlit calls it then, outside the session: no ``ss``)."""

    def data() -> bytes:
        try:
            return record_csv(reader())
        except RoomError:  # closed or away at that very moment: the file says nothing rather than fail
            return record_csv([])

    return data


@st.fragment(run_every=TEACHER_POLL)
def _live_panel(run: "bpe.Run", rid: str) -> None:
    if ss.pop(RERUN, False):
        st.rerun(scope="app")  # the player moves (and tells the room) in the full run
    try:
        room = teacher.lead_room()
    except Unavailable:  # the store is away: one line says so, the teacher keeps the room
        store_down()
        return
    if room is None:  # it expired, or was closed elsewhere: the note says so
        st.rerun(scope="app")
    code = room["code"]
    url = share_url(st.context.url, {"join": code})
    # the code, the QR code and the join link side by side: one projector screen (1280x720) shows them whole
    left, right = st.columns([1.5, 1], gap="large")
    with left:
        st.html(LIVE_CSS + PANEL_CSS + join_panel_html(code, url, _qr(url), students=present(room, time.time())))
        st.button("Close the room", key="room_close", on_click=_close, icon=":material/close:")
    with right:
        _teacher_poll(run, code, room)
    _note()
    reveal(".st-key-room_panel", key="room_panel_reveal", seq=ss.get(STARTED, 0))


def _teacher_poll(run: "bpe.Run", code: str, room: dict) -> None:
    n = len(run.merges)
    step = int(ss.get(keys.PLAYER_STEP, 0))
    poll = room.get("poll")
    if poll and poll.get("k", -1) < n:
        quiz = _quiz(run, code, poll)
        revealed = bool(poll.get("revealed"))
        winners = (
            [i for i, o in enumerate(quiz.options) if o.pair == quiz.winner or o.pair in quiz.ties] if revealed else []
        )
        with st.container(key="room_poll_box"):
            st.html(
                LIVE_CSS
                + histogram_html(
                    [o.label for o in quiz.options],
                    poll_counts(room),
                    winners=winners,
                    title=quiz.question + (" — revealed" if revealed else ""),
                )
            )
            if not revealed:
                st.button(
                    "Reveal",
                    key="room_reveal",
                    on_click=_reveal,
                    args=(int(poll["k"]) + 1,),
                    type="primary",
                    icon=":material/visibility:",
                )
    if (not poll or poll.get("revealed")) and step < n:
        st.button(
            f"Ask the room about merge {step + 1:,}",
            key="room_ask",
            on_click=_ask,
            args=(run,),
            icon=":material/how_to_vote:",
        )
    # just asked: the histogram and Reveal into view once (the button may have been at the screen's bottom edge)
    reveal(".st-key-room_poll_box", key="room_poll_reveal", seq=ss.get(ASKED, 0))


# ----------------------------------------------------------------------------------------------------
# A student


def _rejoin() -> None:
    student.set_following(True)


def _detach() -> None:
    student.set_following(False)


@st.fragment
def student_bar(run: "bpe.Run", rid: str) -> None:
    """A student's room: where the teacher is, Detach / Rejoin, the room's question; the player follows."""
    with st.container(key="room_student"):
        try:
            room = student.joined_room()
        except Unavailable:  # the store is away: one line says so; the player keeps its own clock
            store_down()
            return
        if room is None:
            if ss.pop(keys.ROOM_POLL_OPEN, False):
                st.rerun(scope="app")  # the player shows its pair counts again
            closed_line("the player is")
            follow_box(None)
            return
        hide = teacher.poll_hides_counts(room, len(run.merges))
        if hide != bool(ss.get(keys.ROOM_POLL_OPEN)):  # a question opened or was revealed: the player hides
            ss[keys.ROOM_POLL_OPEN] = hide  # (or shows) its pair counts, in the full run
            st.rerun(scope="app")
        if session.settings_changed(room) or student.away_from_room(room, "player"):
            st.rerun(scope="app")  # the teacher picked another text or settings (the next run applies them
            #                         before the sidebar's widgets), or went to a Classroom lesson (app.py)
        following = bool(ss.get(keys.ROOM_FOLLOW))
        bar, button = st.columns([4, 1], vertical_alignment="center")
        bar.html(LIVE_CSS + status_html(room["code"], following=following))
        if following:
            button.button(
                "Detach",
                key="room_detach",
                on_click=_detach,
                icon=":material/explore:",
                help="Explore on your own; rejoin with one click.",
            )
        else:
            _rejoin_button(button, "Back to where the teacher is.")
        opened = _student_poll(run, room)
        if opened:
            ss[SHOWN] = ss.get(SHOWN, 0) + 1
        _note()
        # a question this student sees for the first time comes into view with the room's line (the student
        # may have scrolled to the player)
        reveal(".st-key-room_student", key="room_question_reveal", seq=ss.get(SHOWN, 0))
        follow_box(student.follow_data(room, caches.player_tag(rid)))


def _rejoin_button(where, help: str) -> None:
    """Rejoin, in ``where`` (a column): the student follows the teacher again."""
    where.button("Rejoin", key="room_rejoin", on_click=_rejoin, type="primary", icon=":material/sync:", help=help)


@st.fragment
def replay_bar() -> None:
    """A student who switched the player to "Replay a real vocabulary" (``liveroom.student.mode_changed``): one
    line says they stopped following, and Rejoin goes back to the teacher's player. The mailbox still watches
    the room (not followed: ``on`` is false), so the line says when it closes."""
    with st.container(key="room_student"):
        try:
            room = student.joined_room()
        except Unavailable:
            store_down()
            return
        if room is None:
            closed_line("the player is")
            follow_box(None)
            return
        if ss.get(keys.ROOM_FOLLOW):  # Rejoin (this fragment's button): the whole page goes back to the player
            st.rerun(scope="app")
        bar, button = st.columns([4, 1], vertical_alignment="center")
        bar.html(LIVE_CSS + status_html(room["code"], following=False, replay=True))
        _rejoin_button(button, "Back to the teacher's player, where the teacher is.")
        follow_box(student.follow_data(room, "replay"))


def _student_poll(run: "bpe.Run", room: dict) -> bool:
    """The room's question (open: its options; revealed: the verdict). Returns whether it opened for this
    student just now (the first run that shows it)."""
    poll = room.get("poll")
    if not poll or int(poll.get("k", -1)) >= len(run.merges):
        return False
    quiz = _quiz(run, room["code"], poll)
    if len(quiz.options) != int(poll["n"]):
        st.html(message_html("The teacher's question is about another run: rejoin the room.", "info"))
        return False
    pid = int(poll["id"])
    mine = ss.get(keys.ROOM_ANSWERS, {}).get(pid)
    seen = ss.setdefault(SEEN, set())
    opened = bool(poll.get("open")) and pid not in seen
    if poll.get("open"):
        seen.add(pid)
    elif mine is None and pid not in seen:
        return False  # revealed before this student saw it (a late join): no "you did not answer"
    with st.container(key="room_poll"):
        st.html(
            f'{POLL_CSS}<div class="lr-question" data-poll="{pid}"><b>The teacher asks:</b> '
            f"{html.escape(quiz.question)}</div>"
        )
        if poll.get("open"):
            for i, (col, option) in enumerate(zip(st.columns(len(quiz.options)), quiz.options)):
                col.button(
                    markdown_literal(option.label),
                    key=f"room_opt_{i}",
                    on_click=student.answer,
                    args=(pid, i),
                    type="primary" if mine == i else "secondary",
                    width="stretch",
                )
            st.caption(
                "Your answer is in: you can change it until the teacher reveals."
                if mine is not None
                else "Tap the pair you think is merged next."
            )
        elif poll.get("revealed"):
            if mine is None:
                win = next(o.label for o in quiz.options if o.pair == quiz.winner)
                st.html(message_html(f"You did not answer. The pair merged: {win}.", "info", css_class="lr-verdict"))
            else:
                st.html(QUIZ_CSS + verdict_html(grade(quiz, mine)))
            given = ss.get(keys.ROOM_ANSWERS, {})
            right = sum(1 for p, c in given.items() if c is not None and _was_right(run, room, p, c))
            st.html(
                f'<div class="cls-score lr-score" data-right="{right}" data-answered="{len(given)}">'
                f"Your answers in this room: {right} right of {len(given)}</div>"
            )
    return opened


def _was_right(run: "bpe.Run", room: dict, poll_id: int, choice: int) -> bool:
    """Whether this session's answer to poll ``poll_id`` was right (graded when revealed, kept per session)."""
    results = ss.setdefault(RESULTS, {})
    poll = room.get("poll") or {}
    if poll_id not in results and poll.get("id") == poll_id and poll.get("revealed"):
        results[poll_id] = grade(_quiz(run, room["code"], poll), choice).right
    return bool(results.get(poll_id))
