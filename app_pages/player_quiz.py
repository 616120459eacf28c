"""The merge player's "Predict the next merge" quiz: glue for ``app_pages/player.py`` (not a page).

Before each merge the user picks the pair they think is merged next (``views.quiz.next_merge_quiz`` builds
the question from the run); checking it scores it (shared with the Classroom, ``keys.QUIZ_RESULTS``) and
steps the player one merge to reveal it.

A pick belongs to the question it was made for: each question is a radio of its own (widget key
``player_quiz_pick:<quiz id>``, in a container keyed ``player_quiz_pick``), so the next question opens with nothing
selected, whatever moved the player (a check, a step, a seek, a new run). One radio for every question (issue 25's
fix cleared its value) still opened the next question with the old pick at times (issue 34): the browser keeps
a radio's value as its option's label, and a report the player sent before the browser had drawn the cleared
radio carried the old label back, which the next question's options often hold too. A new widget has no value
in the browser to send. When a question opens (another than the one asked last), every pick is dropped, so a
question asked again opens empty too; a page switch keeps the pick of the question still open.
So does "Pick a pair first": it is said about one question and shown with it only (a Check with nothing
picked then always shows an answer, where a message left from the last question made the click look ignored).
"""

from __future__ import annotations

import streamlit as st

import bpe
from appstate import keys, player_state, runs
from views.messages import markdown_literal
from views.player import score_html
from views.quiz import QUIZ_CSS, QUIZ_OPTIONS, Quiz, grade, next_merge_quiz, score_text, verdict_html

__all__ = ["pick_key", "predict_next_merge", "quiz_on"]

ss = st.session_state
QUIZ, QUIZ_PICK, QUIZ_MSG, QUIZ_VERDICT = "player_quiz", "player_quiz_pick", "_player_quiz_msg", "_player_quiz_verdict"
QUIZ_ASKED = "_player_quiz_asked"  # the id of the question asked last
RESULTS = keys.QUIZ_RESULTS  # {quiz id: right?}, shared with the Classroom


def quiz_on() -> bool:
    """Whether the quiz is on (the player then pauses before each merge)."""
    return bool(ss.get(QUIZ))


def pick_key(quiz_id: str) -> str:
    """The widget key of the radio of question ``quiz_id``."""
    return f"{QUIZ_PICK}:{quiz_id}"


def _clear_pick() -> None:
    """No pair picked for any question (their radios are not on screen when this runs: it runs as a question
    opens, or when the quiz is turned on or off)."""
    for key in [k for k in ss if str(k).startswith(QUIZ_PICK + ":")]:
        del ss[key]
    ss.pop(QUIZ_ASKED, None)


def _quiz_check(quiz: Quiz) -> None:
    """Grade the pick made for this question, score it (shared with the Classroom), then reveal the merge
    (one step)."""
    pick = ss.get(pick_key(quiz.id))
    if pick is None:
        ss[QUIZ_MSG] = (quiz.id, "Pick a pair first, then check.")
        return
    verdict = grade(quiz, pick)
    ss[RESULTS] = {**ss.get(RESULTS, {}), quiz.id: verdict.right}
    ss[QUIZ_MSG] = None
    player_state.seek(keys.PLAYER_STEP, ss[keys.PLAYER_STEP] + 1)
    ss[QUIZ_VERDICT] = (ss[keys.PLAYER_STEP], verdict)


def predict_next_merge(run: "bpe.Run", rid: str, step: int) -> None:
    """The quiz's toggle and, when it is on, the question about merge ``step + 1``, the verdict and the score."""
    n = len(run.merges)
    st.toggle(
        "Predict the next merge",
        key=QUIZ,
        persist_state="session",
        on_change=_clear_pick,
        help="Before each merge, pick the pair you think is merged next; then it is revealed.",
    )
    if ss.get(QUIZ):
        with st.container(key="player_quiz_box"):
            last = ss.get(QUIZ_VERDICT)
            st.html(QUIZ_CSS + (verdict_html(last[1]) if last and last[0] == step else ""))
            if step >= n:
                st.caption("That was the last merge: reset to predict again.")
            else:
                quiz = next_merge_quiz(
                    run,
                    step,
                    quiz_id=f"player:{runs.text_key(rid)}:{step + 1}",
                    n_options=QUIZ_OPTIONS,
                    question=f"Which pair is merged next (merge {step + 1})?",
                )
                if ss.get(QUIZ_ASKED) != quiz.id:
                    _clear_pick()  # a question opens (the player moved): nothing picked, for any question
                    ss[QUIZ_ASKED] = quiz.id
                # option labels render Markdown and hold tokens of the user's text: made literal
                with st.container(key=QUIZ_PICK):
                    st.radio(
                        quiz.question,
                        range(len(quiz.options)),
                        key=pick_key(quiz.id),
                        index=None,
                        horizontal=True,
                        persist_state="session",
                        format_func=lambda i: markdown_literal(quiz.options[i].label),
                    )
                st.button(
                    "Check and reveal",
                    key="player_quiz_check",
                    on_click=_quiz_check,
                    args=(quiz,),
                    type="primary",
                    icon=":material/visibility:",
                )
                said = ss.get(QUIZ_MSG)
                if said and said[0] == quiz.id:  # (quiz id, message): about this question only
                    st.caption(said[1])
            st.html(score_html(ss.get(RESULTS, {}), score_text(ss.get(RESULTS, {}))))
