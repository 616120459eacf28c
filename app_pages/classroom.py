"""Classroom: short lessons a teacher clicks through, a "predict the next merge" quiz, a presenter view and
a link that reopens the exact lesson and step.

Glue only: the lessons and everything they draw live in :mod:`views.lessons`, the quiz in
:mod:`views.quiz`; the link is read once per session (:func:`appstate.links.read_link_once`). A live room
(``app_pages/live_room.py``): the teacher's lesson and step go to the room; a following student's page shows
them (a step of their own: exploring on their own, Rejoin goes back). Widgets:
``lesson_pick``, ``lesson_back``, ``lesson_next`` (and ``lesson_back_page`` / ``lesson_next_page``, not drawn: a
clicker's PageUp / PageDown), ``quiz_pick_<quiz id>``, ``quiz_check``, ``quiz_reset``. The
URL carries ``?lesson=N&step=M`` (and ``presenter=1``: the presenter toggle, its URL parameter and its CSS
are the shared sidebar's, in app.py).
"""

from __future__ import annotations

import streamlit as st

from app_pages.live_room import classroom_start, classroom_student, classroom_teacher, join_note
from appstate import keys, links, pageguard
from appstate.query import parse_int, share_url
from components.copy_link import copy_link
from liveroom import student, teacher
from views import lessons
from views.lessons.model import CLASSROOM_CSS, inline_html, step_html
from views.notes import notes_html
from views.presenter import enlarge_figure
from views.quiz import Quiz, grade, score_text, verdict_html

ss = st.session_state
# Session keys
LESSON, STEP = keys.CLASSROOM_LESSON, keys.CLASSROOM_STEP  # the lesson and step shown (1-based)
PICK = "lesson_pick"  # the lesson picker (a widget)
RESULTS = keys.QUIZ_RESULTS  # {quiz id: right?}, shared with the merge player
NOTES = "_classroom_notes"  # what was wrong with the link, until the user moves on
URL_READ = "_classroom_url_read"  # the link has been read (once per session)
QUIZ_MSG = "_classroom_quiz_msg"  # "pick a pair first"
QUIZ_PICK = "quiz_pick_"  # + quiz id: the answer radio (a widget)
QUIZ_CHOICE = "_quiz_choice_"  # + quiz id: the answer checked

#: the clicker's PageDown / PageUp buttons are not drawn (nor the html element holding this style)
CLICKER_CSS = (
    "<style>.st-key-lesson_next_page,.st-key-lesson_back_page{display:none !important;}"
    ".st-key-lesson_controls [data-testid=stElementContainer]:has(> .stHtml style:only-child)"
    "{display:none;}</style>"
)
#: the step is not shown before the buttons are: Streamlit draws its buttons (and binds their shortcuts) once
#: their lazily loaded module has arrived, which on a slow machine is seconds after the step's html. A
#: clicker's PageDown pressed on a step already shown would then step nothing. In the step's own html
#: element, so it holds from the step's first frame.
STEP_GATE_CSS = "<style>body:not(:has(.st-key-lesson_next_page button)) .st-key-lesson_step{visibility:hidden;}</style>"


def read_link() -> list[str]:
    """Lesson and step from the URL (presenter: app.py); bad values -> defaults, and notes returned."""
    qp = st.query_params
    notes = []
    lesson, note = parse_int(qp.get("lesson"), 1, lessons.lesson_count(), 1, name="lesson")
    if note:
        notes.append(note)
        step = 1
    else:
        n_steps = len(lessons.lesson(lesson).steps)
        step, note = parse_int(qp.get("step"), 1, n_steps, 1, name="step")
        if note:
            notes.append(note)
    ss[LESSON], ss[STEP] = lesson, step
    return notes


def setup() -> None:
    """Once per session the link's lesson and step (with the shared sidebar's notes: presenter, palette);
    defaults for the page's keys."""
    links.read_link_once(URL_READ, NOTES, read_link)
    ss.setdefault(LESSON, 1)
    ss.setdefault(STEP, 1)
    ss.setdefault(RESULTS, {})
    ss.setdefault(NOTES, [])
    student.sync_lesson()  # a live room's student who follows: the teacher's lesson and step


# ----------------------------------------------------------------------------------------------------
# Callbacks (they run before the script and only touch session state)


def _go(delta: int) -> None:
    """Step forward or back; past a lesson's last step to the next lesson, before its first to the previous
    lesson's last step (a presenter's clicker only has two keys)."""
    lesson_no, step_no = ss[LESSON], ss[STEP] + delta
    if step_no > len(lessons.lesson(lesson_no).steps):
        last = lesson_no == lessons.lesson_count()
        lesson_no, step_no = (lesson_no, step_no - 1) if last else (lesson_no + 1, 1)
    elif step_no < 1:
        lesson_no, step_no = (lesson_no - 1, len(lessons.lesson(lesson_no - 1).steps)) if lesson_no > 1 else (1, 1)
    ss[LESSON], ss[STEP] = lesson_no, step_no
    ss[NOTES] = []
    student.explored()  # a live room's student who steps on their own explores on their own


def _pick_lesson() -> None:
    ss[LESSON] = int(ss[PICK])
    ss[STEP] = 1
    ss[NOTES] = []
    student.explored()


def _check(quiz: Quiz) -> None:
    choice = ss.get(QUIZ_PICK + quiz.id)
    if choice is None:
        ss[QUIZ_MSG] = "Pick a pair first, then check."
        return
    ss[QUIZ_MSG] = ""
    ss[RESULTS] = {**ss[RESULTS], quiz.id: grade(quiz, choice).right}
    ss[QUIZ_CHOICE + quiz.id] = choice


def _reset_score() -> None:
    """Score and answers forgotten; every question opens with nothing selected. A pick is set to None, not
    deleted: a deleted key leaves the browser showing the old pick, and "Check" would score it again."""
    for key in list(ss.keys()):
        if str(key).startswith(QUIZ_CHOICE):
            del ss[key]
        elif str(key).startswith(QUIZ_PICK):
            ss[key] = None
    ss[RESULTS] = {}
    ss[QUIZ_MSG] = ""


# ----------------------------------------------------------------------------------------------------
# Page


def main() -> None:
    setup()
    lesson_no = max(1, min(lessons.lesson_count(), int(ss[LESSON])))
    lesson = lessons.lesson(lesson_no)
    step_no = max(1, min(len(lesson.steps), int(ss[STEP])))
    ss[LESSON], ss[STEP] = lesson_no, step_no
    step = lesson.steps[step_no - 1]
    palette = keys.palette()
    teacher.lead_screen(lesson_no, step_no)  # a live room's teacher: its students come here

    presenting = keys.presenting()  # the toggle is in the shared sidebar (app.py)
    teaching = presenting and not ss.get(keys.ROOM_JOIN)  # presenter view offers a live room

    st.html(CLASSROOM_CSS)
    join_note(st)  # the link's join= named no live room (or was refused, or must wait)
    if ss.get(keys.ROOM_JOIN):
        classroom_student()

    if ss[NOTES]:
        with st.container(key="share_note"):
            st.html(notes_html(ss[NOTES]))

    ss[PICK] = lesson_no
    with st.container(horizontal=True, vertical_alignment="bottom", key="lesson_controls"):
        st.selectbox(
            "Lesson",
            list(range(1, lessons.lesson_count() + 1)),
            key=PICK,
            on_change=_pick_lesson,
            format_func=lambda n: f"{n}. {lessons.LESSON_TITLES[n - 1]}",
            width=420,
        )
        first, last = step_no == 1, step_no == len(lesson.steps)
        st.button(
            "◀ Previous lesson" if first and lesson_no > 1 else "◀ Back",
            key="lesson_back",
            on_click=_go,
            args=(-1,),
            disabled=first and lesson_no == 1,
            shortcut="Left",
        )
        st.button(
            "Next lesson ▶" if last and lesson_no < lessons.lesson_count() else "Next ▶",
            key="lesson_next",
            on_click=_go,
            args=(1,),
            disabled=last and lesson_no == lessons.lesson_count(),
            type="primary",
            shortcut="Right",
        )
        if teaching:
            classroom_start()  # where the teacher looks first, not below the lesson
        # presentation clickers send PageDown / PageUp: two more shortcuts for the same steps, on buttons
        # that are not drawn (a button takes one shortcut; display:none keeps its shortcut working)
        st.html(CLICKER_CSS)
        st.button(
            "Next (clicker)",
            key="lesson_next_page",
            on_click=_go,
            args=(1,),
            shortcut="PageDown",
            disabled=last and lesson_no == lessons.lesson_count(),
        )
        st.button(
            "Back (clicker)",
            key="lesson_back_page",
            on_click=_go,
            args=(-1,),
            shortcut="PageUp",
            disabled=first and lesson_no == 1,
        )

    if teaching:
        classroom_teacher()  # the live room's code and QR code (foldable), above the lesson

    with st.container(key="lesson_step"):
        st.html(STEP_GATE_CSS + step_html(lesson, step_no - 1))
        visual = step.draw(palette)
        if visual.html:
            st.html(visual.html)
        if visual.figure is not None:
            fig = enlarge_figure(visual.figure) if presenting else visual.figure
            st.plotly_chart(fig, width="stretch", config={"displayModeBar": False}, key="lesson_figure")

    quiz = step.quiz
    if quiz is not None:
        with st.container(key="quiz"):
            answered = quiz.id in ss[RESULTS]
            pick_key = QUIZ_PICK + quiz.id
            if answered and pick_key not in ss:
                ss[pick_key] = ss.get(QUIZ_CHOICE + quiz.id)
            st.radio(
                quiz.question,
                list(range(len(quiz.options))),
                key=pick_key,
                index=None,
                horizontal=True,
                format_func=lambda i: quiz.options[i].label,
                disabled=answered,
                persist_state="session",
            )
            if answered:
                st.html(verdict_html(grade(quiz, ss.get(QUIZ_CHOICE + quiz.id))))
            else:
                st.button("Check my answer", key="quiz_check", on_click=_check, args=(quiz,))
                if ss.get(QUIZ_MSG):
                    st.caption(ss[QUIZ_MSG])

    if ss[RESULTS] or quiz is not None:
        with st.container(horizontal=True, vertical_alignment="center", key="quiz_score"):
            st.html(
                f'<div class="cls-score" data-right="{sum(ss[RESULTS].values())}" '
                f'data-answered="{len(ss[RESULTS])}">{inline_html(score_text(ss[RESULTS]))} '
                f"(this session; a tie counts as right)</div>"
            )
            if ss[RESULTS]:
                st.button("Reset score", key="quiz_reset", on_click=_reset_score, type="tertiary")

    # The state, in the URL: a reload or a shared link reopens this exact step.
    params = {"lesson": lesson_no, "step": step_no, "presenter": 1 if presenting else None}
    # a live room's student keeps its join= (a reload rejoins); a join= that joined nothing goes
    links.write_query({**params, "join": ss.get(keys.ROOM_JOIN)})

    with st.container(key="share_link"):
        st.caption("Link to this step — the icon on the right copies it:")
        copy_link(share_url(st.context.url, params), key="share_link_box")


pageguard.run_page(main, page="Classroom")
