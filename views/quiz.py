"""The "predict the next merge" quiz, for any run: the Classroom's lessons and the merge player both ask it.

:func:`next_merge_quiz` builds the question for one merge of a run (the options are the most frequent
pairs before it, never listed by count), :func:`grade` answers it (a pair tied with the winner counts as
right, with the tie rule explained), :func:`verdict_html` draws the answer and :func:`score_text` the
score. :data:`QUIZ_CSS` styles the verdict and the score.

No Streamlit here; every piece of text that reaches HTML is escaped.

>>> import bpe
>>> run = bpe.train("aaabdaaabac", 258, pattern=None)
>>> q = next_merge_quiz(run, 0, quiz_id="first")
>>> [o.label for o in q.options][:2], q.winner
(['(a, a)', '(a, b)'], (97, 97))
>>> grade(q, 0).message
'Right! (a, a) occurs 4 times, more than any other pair.'
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Mapping, Sequence

import bpe

from .spans import run_token_label
from .theme import MONO

__all__ = [
    "Quiz",
    "QuizOption",
    "Verdict",
    "next_merge_quiz",
    "grade",
    "verdict_html",
    "score_text",
    "TIE_RULE_TEXT",
    "TIE_RULE_NAMES",
    "QUIZ_CSS",
    "QUIZ_OPTIONS",
]

#: How each tie rule decides between pairs with equal counts.
TIE_RULE_TEXT = {
    "lexical": "the pair with the smaller token ids wins (as in rustbpe)",
    "first": "the pair that occurs first in the text wins (as in minbpe)",
    "hf": "Hugging Face's order wins: byte tokens by their visible character, then by creation order",
    "max_bytes": "the lexicographically greatest pair of byte strings wins (a university course's rule)",
}
#: How many pairs the merge player's quiz and its live room's question offer: a short list (a phone shows it
#: whole), the merged pair and one tied pair always among them (:func:`next_merge_quiz`).
QUIZ_OPTIONS = 4
#: Each tie rule's name in a sentence.
TIE_RULE_NAMES = {"lexical": "lexical", "first": "first-seen", "hf": "Hugging Face", "max_bytes": "greatest-bytes"}

QUIZ_CSS = """
<style>
.st-key-quiz label p{font-size:1.3rem !important;font-family:%(mono)s;}
.st-key-quiz [data-testid="stWidgetLabel"] p{font-family:inherit;font-weight:600;}
.cls-verdict{font-size:1.2rem;padding:.5em .8em;border-radius:6px;margin:.4em 0;color:#111;}
.cls-verdict.cls-right{background:#e6f4ea;border-left:8px solid #1e7b34;}
.cls-verdict.cls-wrong{background:#fdecea;border-left:8px solid #b3261e;}
.cls-score{font-size:1.05rem;color:#222;}
</style>
""" % {"mono": MONO}


@dataclass(frozen=True)
class QuizOption:
    label: str
    pair: tuple[int, int]
    count: int


@dataclass(frozen=True)
class Quiz:
    """ "Which pair is merged next?" for merge ``rank`` of a run."""

    id: str
    question: str
    options: tuple[QuizOption, ...]
    #: the pair training merged
    winner: tuple[int, int]
    #: other options with the winner's count (each counts as a right answer)
    ties: tuple[tuple[int, int], ...]
    count: int
    #: one sentence: how the tie rule chose the winner ("" when there is no tie)
    rule: str
    #: pairs tied with the winner that are not options (a short list leaves them out): ``"2"``, ``"19+"`` (the
    #: trainer's top pairs may not hold them all), or ``""``
    more_ties: str = ""


@dataclass(frozen=True)
class Verdict:
    right: bool
    tie: bool
    message: str


def _pick_options(m: bpe.Merge, n: int | None) -> list[tuple[tuple[int, int], int]]:
    """The pairs a question on merge ``m`` offers, ``(pair, count)``: with ``n`` None, the winner and every
    pair among the top pairs (every tie with them); else at most ``n`` (at least 1): the winner, one pair
    tied with it (a tie is right too, and its rule is worth a question), then the most frequent pairs below the
    winner's count, and more tied pairs only when too few pairs are below it. A merge late in a small text
    ties dozens of pairs: listing them all made the live room's question screens long (issue 34).

    >>> m = bpe.train("aaabdaaabac", 258, pattern=None).merges[1]     # (a, b) and (aa, a) tie at 2
    >>> _pick_options(m, 3)
    [((97, 98), 2), ((256, 97), 2), ((97, 99), 1)]
    """
    top = list(m.top_pairs)
    if not any(p == m.pair for p, _ in top):
        top.insert(0, (m.pair, m.count))
    if n is None:
        have = {p for p, _ in top}
        return top + [(p, m.count) for p in m.ties if p not in have]
    n = max(n, 1)
    tied = [(p, c) for p, c in top if p != m.pair and c == m.count]
    below = [(p, c) for p, c in top if c < m.count]
    chosen = [(m.pair, m.count), *tied[:1]]
    chosen += below[: n - len(chosen)]
    chosen += tied[1 : 1 + n - len(chosen)]
    return chosen[:n]


def next_merge_quiz(
    run: bpe.Run,
    rank: int,
    *,
    quiz_id: str,
    names: Mapping[int, str] | None = None,
    n_options: int | None = 6,
    order: Sequence[tuple[int, int]] | None = None,
    question: str = "Which pair is merged next?",
) -> Quiz:
    """A quiz on merge ``rank`` of ``run``: the options are the most frequent pairs before that merge, at
    most ``n_options`` of them (:func:`_pick_options`: the winner and one tied pair always among them; None:
    every top pair), listed in ``order`` (e.g. first appearance in the text) or else alphabetically — never
    by count, which would give the answer away. ``names``: how to call tokens (default: their readable bytes).
    """
    m = run.merges[rank]

    def name(token_id: int) -> str:
        return names[token_id] if names and token_id in names else run_token_label(run, token_id)

    chosen = _pick_options(m, n_options)
    if order is not None:
        pos = {p: i for i, p in enumerate(order)}
        chosen.sort(key=lambda pc: (pos.get(pc[0], len(pos)), name(pc[0][0]), name(pc[0][1])))
    else:
        chosen.sort(key=lambda pc: (name(pc[0][0]), name(pc[0][1])))
    options = tuple(QuizOption(f"({name(p[0])}, {name(p[1])})", p, c) for p, c in chosen)
    ties = tuple(p for p, c in chosen if p != m.pair and c == m.count)
    rule = ""
    if ties:
        win = f"({name(m.pair[0])}, {name(m.pair[1])})"
        if run.tie_break == "lexical":
            others = ", ".join(str(p) for p in ties)
            rule = f"The lexical rule takes {win}: its ids {m.pair} are smaller than {others}."
        elif run.tie_break == "first":
            rule = f"The first-seen rule takes {win}: it occurs first in the text."
        elif run.tie_break == "max_bytes":
            rule = (
                f"The greatest-bytes rule takes {win}: its bytes (left token, then right) sort after the "
                "other tied pairs' bytes."
            )
        else:
            rule = (
                f"The {TIE_RULE_NAMES.get(run.tie_break, run.tie_break)} rule takes {win}: "
                f"{TIE_RULE_TEXT.get(run.tie_break, '')}."
            )
    left_out = len(set(m.ties) - {p for p, _ in chosen})
    more = f"{left_out}{'+' if m.ties_capped else ''}" if left_out else ""
    return Quiz(
        id=quiz_id,
        question=question,
        options=options,
        winner=m.pair,
        ties=ties,
        count=m.count,
        rule=rule,
        more_ties=more,
    )


def _times(n: int) -> str:
    return f"{n} time{'s' if n != 1 else ''}"


def grade(quiz: Quiz, choice: int | None) -> Verdict:
    """Right when option ``choice`` (an index into ``quiz.options``) is the merged pair or tied with it
    (then the rule is explained); ``None`` or an index out of range is not an answer.

    >>> r = bpe.train("aaabdaaabac", 258, pattern=None)
    >>> q = next_merge_quiz(r, 1, quiz_id="t")
    >>> [o.label for o in q.options if o.count == 2]
    ['(a, b)', '(aa, a)']
    >>> v = grade(q, [o.label for o in q.options].index("(aa, a)")); v.right, v.tie
    (True, True)
    """
    if choice is None or not 0 <= choice < len(quiz.options):
        return Verdict(False, False, "Pick a pair first.")
    picked = quiz.options[choice]
    win = next(o for o in quiz.options if o.pair == quiz.winner)
    tie = bool(quiz.ties)
    tied_labels = [o.label for o in quiz.options if o.pair == quiz.winner or o.pair in quiz.ties]
    tied = " and ".join(tied_labels)
    if quiz.more_ties:  # tied pairs left out of the options: "(x, y), (·, z) and 2 other pairs"
        tied = f"{', '.join(tied_labels)} and {quiz.more_ties} other pair{'s' if quiz.more_ties != '1' else ''}"
    if picked.pair == quiz.winner or picked.pair in quiz.ties:
        if not tie:
            return Verdict(True, False, f"Right! {win.label} occurs {_times(win.count)}, more than any other pair.")
        return Verdict(True, True, f"Right — a tie: {tied} occur {_times(win.count)} each. {quiz.rule}")
    if not tie:
        return Verdict(
            False,
            False,
            f"Not this time: {picked.label} occurs {_times(picked.count)}; {win.label} occurs {_times(win.count)}.",
        )
    return Verdict(
        False,
        True,
        f"Not this time: {picked.label} occurs {_times(picked.count)}; {tied} occur "
        f"{_times(win.count)} each, a tie. {quiz.rule}",
    )


def verdict_html(v: Verdict) -> str:
    """The verdict as a green (right) or red (wrong) box, its message escaped (styles: :data:`QUIZ_CSS`).

    >>> verdict_html(Verdict(False, False, "<b>no</b>"))
    '<div class="cls-verdict cls-wrong" data-right="0"><b>✗</b> &lt;b&gt;no&lt;/b&gt;</div>'
    """
    cls = "cls-right" if v.right else "cls-wrong"
    mark = "✓" if v.right else "✗"
    return (
        f'<div class="cls-verdict {cls}" data-right="{int(v.right)}">'
        f"<b>{mark}</b> {html.escape(v.message, quote=True)}</div>"
    )


def score_text(results: Mapping[str, bool]) -> str:
    """``"Quiz score: 1 / 2"`` from ``{quiz id: right}``.

    >>> score_text({"a": True, "b": False})
    'Quiz score: 1 / 2'
    """
    return f"Quiz score: {sum(1 for r in results.values() if r)} / {len(results)}"
