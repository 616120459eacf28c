"""The merge player's "Predict the next merge" quiz: glue for ``app_pages/player.py`` (not a page).

Before each merge the user picks the pair they think is merged next (``views.quiz.next_merge_quiz`` builds
the question from the run); checking it scores it (shared with the Classroom, ``keys.QUIZ_RESULTS``) and
steps the player one merge to reveal it.

A pick belongs to the question it was made for (``_player_quiz_pick_for``): the next question opens with
nothing selected, whatever moved the player (a check, a step, a seek, a new run). So does "Pick a pair
first": it is said about one question and shown with it only (a Check with nothing picked then always shows
an answer, where a message left from the last question made the click look ignored). The radio is cleared by
setting its value to None; deleting its key would leave the browser showing the old pick, and the next
question, whose options often hold the same pair, would score it.
"""
from __future__ import annotations

import streamlit as st

import bpe
from appstate import keys, player_state, runs
from views.messages import markdown_literal
from views.player import score_html
from views.quiz import QUIZ_CSS, Quiz, grade, next_merge_quiz, score_text, verdict_html

__all__ = ["predict_next_merge", "quiz_on"]

ss = st.session_state
QUIZ, QUIZ_PICK, QUIZ_MSG, QUIZ_VERDICT = "player_quiz", "player_quiz_pick", "_player_quiz_msg", "_player_quiz_verdict"
QUIZ_PICK_FOR = "_player_quiz_pick_for"   # the id of the question the pick was made for
RESULTS = keys.QUIZ_RESULTS    # {quiz id: right?}, shared with the Classroom


def quiz_on() -> bool:
    """Whether the quiz is on (the player then pauses before each merge)."""
    return bool(ss.get(QUIZ))


def _clear_pick() -> None:
    """No pair selected, in the browser too (a deleted key would leave the radio showing the old pick)."""
    ss[QUIZ_PICK] = None
    ss.pop(QUIZ_PICK_FOR, None)


def _picked(quiz_id: str) -> None:
    ss[QUIZ_PICK_FOR] = quiz_id if ss.get(QUIZ_PICK) is not None else None


def _quiz_check(quiz: Quiz) -> None:
    """Grade the pick made for this question, score it (shared with the Classroom), then reveal the merge
    (one step)."""
    pick = ss.get(QUIZ_PICK) if ss.get(QUIZ_PICK_FOR) == quiz.id else None
    if pick is None:
        _clear_pick()
        ss[QUIZ_MSG] = (quiz.id, "Pick a pair first, then check.")
        return
    verdict = grade(quiz, pick)
    _clear_pick()
    ss[RESULTS] = {**ss.get(RESULTS, {}), quiz.id: verdict.right}
    ss[QUIZ_MSG] = None
    player_state.seek(keys.PLAYER_STEP, ss[keys.PLAYER_STEP] + 1)
    ss[QUIZ_VERDICT] = (ss[keys.PLAYER_STEP], verdict)


def predict_next_merge(run: "bpe.Run", rid: str, step: int) -> None:
    """The quiz's toggle and, when it is on, the question about merge ``step + 1``, the verdict and the score."""
    n = len(run.merges)
    st.toggle("Predict the next merge", key=QUIZ, persist_state="session", on_change=_clear_pick,
              help="Before each merge, pick the pair you think is merged next; then it is revealed.")
    if ss.get(QUIZ):
        with st.container(key="player_quiz_box"):
            last = ss.get(QUIZ_VERDICT)
            st.html(QUIZ_CSS + (verdict_html(last[1]) if last and last[0] == step else ""))
            if step >= n:
                st.caption("That was the last merge: reset to predict again.")
            else:
                quiz = next_merge_quiz(run, step, quiz_id=f"player:{runs.text_key(rid)}:{step + 1}", n_options=4,
                                       question=f"Which pair is merged next (merge {step + 1})?")
                if ss.get(QUIZ_PICK) is not None and ss.get(QUIZ_PICK_FOR) != quiz.id:
                    _clear_pick()    # a pick for another question (the player moved): nothing selected
                # option labels render Markdown and hold tokens of the user's text: made literal
                st.radio(quiz.question, range(len(quiz.options)), key=QUIZ_PICK, index=None, horizontal=True,
                         persist_state="session", format_func=lambda i: markdown_literal(quiz.options[i].label),
                         on_change=_picked, args=(quiz.id,))
                st.button("Check and reveal", key="player_quiz_check", on_click=_quiz_check, args=(quiz,),
                          type="primary", icon=":material/visibility:")
                said = ss.get(QUIZ_MSG)
                if said and said[0] == quiz.id:      # (quiz id, message): about this question only
                    st.caption(said[1])
            st.html(score_html(ss.get(RESULTS, {}), score_text(ss.get(RESULTS, {}))))
