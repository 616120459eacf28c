"""The quiz's short list of options (issue 34, item 2): at most ``QUIZ_OPTIONS`` pairs however many tie.

Worked by hand, bytes without a pre-tokenizer, "xy xy zw zw" (x=120, y=121, z=122, w=119, space=32): the pairs
(x,y) (y,·) (·,z) (z,w) occur twice, (·,x) and (w,·) once. Lexical ties: the smallest ids win, (32, 122) =
(·, z); its ties in id order (x, y), (y, ·), (z, w). A short list keeps the winner, one tied pair and the best
pairs below them -- two right answers, two wrong -- rather than four right ones.
"""

from __future__ import annotations

import bpe
from bpe.excerpt import heldout_start
from views.quiz import QUIZ_OPTIONS, grade, next_merge_quiz

#: the lecturer's pasted paragraph of the issue's repro (tests/browser/test_lecturer_browser.py)
PARAGRAPH = (
    "The quick brown fox jumps over the lazy dog near the river bank. Another paragraph of plain English "
    "text, written as a lecturer would paste it: a story about tokenizers, their merges, and the pairs "
    "they learn."
)


def labels(q) -> list[str]:
    return [o.label for o in q.options]


def test_four_options_two_right_two_wrong_when_four_pairs_tie():
    run = bpe.train("xy xy zw zw", 257, pattern=None)
    q = next_merge_quiz(run, 0, quiz_id="t", n_options=4)
    assert labels(q) == ["(w, ·)", "(x, y)", "(·, x)", "(·, z)"]  # by label, never by count
    right = [lab for i, lab in enumerate(labels(q)) if grade(q, i).right]
    assert right == ["(x, y)", "(·, z)"]
    v = grade(q, labels(q).index("(x, y)"))
    assert v.tie and "(x, y), (·, z) and 2 other pairs occur 2 times each" in v.message
    assert "The lexical rule takes (·, z)" in v.message
    v = grade(q, labels(q).index("(w, ·)"))
    assert not v.right and "(w, ·) occurs 1 time" in v.message


def test_every_pair_listed_when_asked_for_all():
    run = bpe.train("xy xy zw zw", 257, pattern=None)
    q = next_merge_quiz(run, 0, quiz_id="t", n_options=None)
    assert labels(q) == ["(w, ·)", "(x, y)", "(y, ·)", "(z, w)", "(·, x)", "(·, z)"]
    assert "(x, y) and (y, ·) and (z, w) and (·, z) occur 2 times" in grade(q, 1).message


def test_the_paragraph_at_merge_25_offers_four_pairs():
    """The issue's repro: merge 25 of a pasted paragraph offered 20 pairs (19 tied with the winner: every pair
    left occurs once). Now four, the merged pair among them, each right (each occurs once, as the winner)."""
    text = PARAGRAPH[: heldout_start(PARAGRAPH)]
    run = bpe.train(text, 256 + 30, pattern="gpt4")
    m = run.merges[24]
    assert m.count == 1 and len(m.ties) >= 9
    q = next_merge_quiz(run, 24, quiz_id="t", n_options=QUIZ_OPTIONS)
    assert len(q.options) == QUIZ_OPTIONS == 4
    assert q.winner == m.pair and m.pair in {o.pair for o in q.options}
    assert all(grade(q, i).right for i in range(4))
    assert "other pairs occur 1 time each" in grade(q, 0).message


def test_every_merge_of_the_paragraph_has_at_most_four_options_with_the_winner():
    text = PARAGRAPH[: heldout_start(PARAGRAPH)]
    run = bpe.train(text, 256 + 60, pattern="gpt4")
    for k, m in enumerate(run.merges):
        q = next_merge_quiz(run, k, quiz_id="t", n_options=QUIZ_OPTIONS)
        assert 1 <= len(q.options) <= 4 and len({o.pair for o in q.options}) == len(q.options)
        assert m.pair in {o.pair for o in q.options}
        # a wrong option whenever a pair below the winner's count is among the trainer's top pairs
        if any(c < m.count for _, c in m.top_pairs) and len(q.options) == 4:
            assert not all(grade(q, i).right for i in range(4)), k
