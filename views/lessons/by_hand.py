"""Lesson 1 — merging by hand: ``aaabdaaabac``, the classic example, merge by merge.

Count every adjacent pair, merge the most frequent into a new token (named Z, then Y), repeat; the second
merge is a tie, and each tie rule's pick is shown. Two quiz steps ask for the next merge first.
"""

from __future__ import annotations

import bpe
from bpe.reference import get_stats, merge_ids

from ..quiz import TIE_RULE_NAMES, TIE_RULE_TEXT, next_merge_quiz
from ..spans import run_token_label
from ..theme import accent_colors
from .blocks import big, chip, esc, letter_names, pair_colors, pair_strip, pair_text, row, step_div, tally
from .model import Lesson, Step, Visual

TITLE = "Merging by hand: aaabdaaabac"
TEXT = "aaabdaaabac"


def build() -> Lesson:
    text = TEXT
    run = bpe.train(text, 256 + 2, pattern=None, tie_break="lexical")
    names = letter_names(run)
    spelled = {m.id: run_token_label(run, m.id) for m in run.merges}
    seqs = [list(text.encode("utf-8"))]
    for m in run.merges:
        seqs.append(merge_ids(seqs[-1], m.pair, m.id))
    counts = [run.tokens_before] + [m.tokens_after for m in run.merges]
    m1, m2 = run.merges
    picks = {rule: bpe.train(text, 256 + 2, pattern=None, tie_break=rule).merges[1].pair for rule in bpe.TIE_BREAKS}

    def colors_for(palette: str):
        pc = pair_colors(seqs, palette)
        tok = {m.id: pc[m.pair] for m in run.merges}
        return pc, tok

    def first_seen(seq):
        return list(dict.fromkeys(zip(seq, seq[1:])))

    def stats(seq):
        return get_stats([seq], [1])

    def new_positions(seq, new_id):
        return {i for i, t in enumerate(seq) if t == new_id}

    def d_start(p):
        _, tok = colors_for(p)
        return Visual(
            step_div(row(seqs[0], names, colors=tok, label="the text")),
            facts={"tokens": len(seqs[0]), "seq": [names[i] for i in seqs[0]]},
        )

    def d_predict(k):
        def draw(p):
            _, tok = colors_for(p)
            return Visual(
                step_div(row(seqs[k], names, spelled=spelled, colors=tok, label="now" if k else "the text")),
                facts={"tokens": len(seqs[k]), "seq": [names[i] for i in seqs[k]]},
            )

        return draw

    def d_count(k):
        def draw(p):
            pc, tok = colors_for(p)
            m = run.merges[k]
            st_ = stats(seqs[k])
            body = (
                row(seqs[k], names, spelled=spelled, colors=tok, label="now" if k else "the text")
                + pair_strip(seqs[k], names, pc)
                + tally(st_, names, pc, m.pair, tied=m.ties)
            )
            if m.ties:
                items = "".join(
                    f"<li><b>{esc(TIE_RULE_NAMES[r])}</b>: {esc(TIE_RULE_TEXT[r])} → "
                    f"<b>{esc(pair_text(picks[r], names))}</b></li>"
                    for r in bpe.TIE_BREAKS
                )
                body += f'<ul class="cls-rules">{items}</ul>'
            return Visual(
                step_div(body),
                facts={
                    "tokens": len(seqs[k]),
                    "counts": {pair_text(pp, names): n for pp, n in st_.items()},
                    "winner": pair_text(m.pair, names),
                    "ties": [pair_text(t, names) for t in m.ties],
                    "rule_picks": {r: pair_text(pp, names) for r, pp in picks.items()},
                },
            )

        return draw

    def d_merge(k):
        def draw(p):
            _, tok = colors_for(p)
            m = run.merges[k - 1]
            acc = accent_colors(p)["winner"]
            body = (
                row(seqs[k - 1], names, spelled=spelled, colors=tok, label="before", faded=True)
                + row(
                    seqs[k],
                    names,
                    spelled=spelled,
                    colors=tok,
                    label=f"after merge {k}",
                    new=new_positions(seqs[k], m.id),
                    accent=acc,
                )
                + big(counts[: k + 1])
            )
            if k == len(run.merges):
                vocab = "".join(chip(f"{names[mm.id]} = {spelled[mm.id]}", bg=tok[mm.id]) for mm in run.merges)
                body += f'<div class="cls-note">New tokens: {vocab}</div>'
            return Visual(
                step_div(body),
                facts={
                    "tokens": len(seqs[k]),
                    "counts": counts[: k + 1],
                    "seq": [names[i] for i in seqs[k]],
                    "merge": f"{pair_text(m.pair, names)} → {names[m.id]}",
                    "new_token": spelled[m.id],
                },
            )

        return draw

    order1, order2 = first_seen(seqs[0]), first_seen(seqs[1])
    q1 = next_merge_quiz(
        run, 0, quiz_id="l1s2", names=names, n_options=None, order=order1, question="Which pair will be merged first?"
    )
    q2 = next_merge_quiz(
        run, 1, quiz_id="l1s5", names=names, n_options=None, order=order2, question="Which pair will be merged second?"
    )
    st1 = stats(seqs[0])
    st2 = stats(seqs[1])
    tie_names = " and ".join(pair_text(pp, names) for pp in (m2.pair, *m2.ties))
    Z, Y = names[m1.id], names[m2.id]
    steps = (
        Step(
            "Start: every character is a token",
            f"The text `{text}` is {counts[0]} tokens, one per character. BPE will glue the most frequent "
            f"neighbours together, one pair at a time.",
            d_start,
        ),
        Step(
            "Predict: which pair is merged first?",
            "Look at neighbouring characters. Which pair of neighbours occurs most often?",
            d_predict(0),
            q1,
        ),
        Step(
            "Count every adjacent pair",
            f"Same color, same pair. {pair_text(m1.pair, names)} occurs {st1[m1.pair]} times — "
            f"inside each `aaa` it occurs twice, overlapping — so it is merged first.",
            d_count(0),
        ),
        Step(
            f"Merge 1: {pair_text(m1.pair, names)} → {Z}",
            f"Every `{spelled[m1.id]}`, left to right, becomes the new token **{Z}**. Counted {m1.count} times, "
            f"replaced {counts[0] - counts[1]} times (overlaps merge once): {counts[0]} → {counts[1]} tokens.",
            d_merge(1),
        ),
        Step(
            "Predict: which pair is merged second?",
            f"Count again on the new sequence: {Z} is a token now, like any other.",
            d_predict(1),
            q2,
        ),
        Step(
            "A tie!",
            f"{tie_names} both occur {st2[m2.pair]} times. Counts cannot decide, so a tie rule does. "
            f"Each rule gives a valid tokenizer; they just differ.",
            d_count(1),
        ),
        Step(
            f"Merge 2: {pair_text(m2.pair, names)} → {Y}",
            f"With the lexical rule `{spelled[m2.id]}` becomes **{Y}**: {counts[1]} → {counts[2]} tokens. "
            f"The vocabulary grew by 2 tokens; the text shrank from {counts[0]} to {counts[2]}.",
            d_merge(2),
        ),
    )
    return Lesson(1, TITLE, "Count pairs, merge the most frequent, repeat — and what happens on a tie.", steps)
