"""The merge player's "Predict the next merge" quiz: glue for ``app_pages/player.py`` (not a page).

Before each merge the user picks the pair they think is merged next (``views.quiz.next_merge_quiz`` builds
the question from the run); checking it scores it (shared with the Classroom, ``keys.QUIZ_RESULTS``) and
steps the player one merge to reveal it.
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
RESULTS = keys.QUIZ_RESULTS    # {quiz id: right?}, shared with the Classroom


def quiz_on() -> bool:
    """Whether the quiz is on (the player then pauses before each merge)."""
    return bool(ss.get(QUIZ))


def _quiz_check(quiz: Quiz) -> None:
    """Grade the pick, score it (shared with the Classroom), then reveal the merge (one step)."""
    if ss.get(QUIZ_PICK) is None:
        ss[QUIZ_MSG] = "Pick a pair first, then check."
        return
    verdict = grade(quiz, ss.pop(QUIZ_PICK))
    ss[RESULTS] = {**ss.get(RESULTS, {}), quiz.id: verdict.right}
    ss[QUIZ_MSG] = ""
    player_state.seek(keys.PLAYER_STEP, ss[keys.PLAYER_STEP] + 1)
    ss[QUIZ_VERDICT] = (ss[keys.PLAYER_STEP], verdict)


def predict_next_merge(run: "bpe.Run", rid: str, step: int) -> None:
    """The quiz's toggle and, when it is on, the question about merge ``step + 1``, the verdict and the score."""
    n = len(run.merges)
    st.toggle("Predict the next merge", key=QUIZ, persist_state="session", on_change=ss.pop, args=(QUIZ_PICK, None),
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
                # option labels render Markdown and hold tokens of the user's text: made literal
                st.radio(quiz.question, range(len(quiz.options)), key=QUIZ_PICK, index=None, horizontal=True,
                         persist_state="session", format_func=lambda i: markdown_literal(quiz.options[i].label))
                st.button("Check and reveal", key="player_quiz_check", on_click=_quiz_check, args=(quiz,),
                          type="primary", icon=":material/visibility:")
                if ss.get(QUIZ_MSG):
                    st.caption(ss[QUIZ_MSG])
            st.html(score_html(ss.get(RESULTS, {}), score_text(ss.get(RESULTS, {}))))
