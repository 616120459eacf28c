"""Lesson 5 — merge order matters: applying two merges out of order misses a merge.

Two merges learned on ``aab aab aab``; applied in order ``aab`` is one token, out of order two; an
encoder's trace shows how it replays training's order. Then why two trainers' merge lists part at all:
:func:`bpe.compare` on two classic mistakes (another tie rule; a pair counted once per chunk), as the
Compare page shows a student's own merges.
"""

from __future__ import annotations

import bpe
from bpe.compare import Reference
from bpe.compare_causes import CATALOGUE
from bpe.reference import merge_ids

from ..compare import COMPARE_CSS, pair_html
from ..spans import run_token_label
from ..theme import accent_colors
from ..words import count_of
from .blocks import chip, esc, lesson_colors, letter_names, pair_text, row, step_div
from .model import Lesson, Step, Visual

TITLE = "Why merge order matters"


def build() -> Lesson:
    run = bpe.train("aab aab aab", 256 + 2, pattern=None, tie_break="lexical")
    names = letter_names(run)
    spelled = {m.id: run_token_label(run, m.id) for m in run.merges}
    word = "aab"
    start = list(word.encode())
    m1, m2 = run.merges

    def apply(order):
        rows = [start]
        for m in order:
            rows.append(merge_ids(rows[-1], m.pair, m.id))
        return rows

    in_order = apply([m1, m2])
    out_of_order = apply([m2, m1])
    trace = run.tokenizer().encode_trace(word)

    def rule_chip(m, p):
        return (
            f'<span class="cls-t">#{m.rank + 1}: {chip(pair_text(m.pair, names))} → '
            f"{chip(names[m.id], bg=lesson_colors(p)[m.rank])} "
            f'<span class="cls-note">({esc(spelled[m.id])})</span></span>'
        )

    def colors(p):
        return {m.id: lesson_colors(p)[m.rank] for m in run.merges}

    def d_rules(p):
        body = f'<div class="cls-tally">{rule_chip(m1, p)}{rule_chip(m2, p)}</div>'
        return Visual(
            step_div(body), facts={"merges": [f"{pair_text(m.pair, names)} → {names[m.id]}" for m in run.merges]}
        )

    def d_apply(rows, order, p):
        body = row(rows[0], names, colors=colors(p), label="start")
        for m, before, after in zip(order, rows, rows[1:]):
            changed = before != after
            new = {i for i, t in enumerate(after) if t == m.id} if changed else set()
            label = f"apply #{m.rank + 1}" + ("" if changed else " (nothing to merge)")
            body += row(
                after,
                names,
                spelled=spelled,
                colors=colors(p),
                label=label,
                new=new,
                faded=not changed,
                accent=accent_colors(p)["winner"],
            )
        return body

    def d_in(p):
        return Visual(
            step_div(d_apply(in_order, [m1, m2], p)),
            facts={"result": [names[i] for i in in_order[-1]], "tokens": len(in_order[-1])},
        )

    def d_out(p):
        return Visual(
            step_div(d_apply(out_of_order, [m2, m1], p)),
            facts={"result": [names[i] for i in out_of_order[-1]], "tokens": len(out_of_order[-1])},
        )

    def d_trace(p):
        body = row(list(trace[0].ids), names, colors=colors(p), label="start")
        for s in trace[1:]:
            body += row(
                list(s.ids),
                names,
                spelled=spelled,
                colors=colors(p),
                label=f"lowest rank: #{s.rank + 1}",
                new=set(s.positions),
                accent=accent_colors(p)["winner"],
            )
        return Visual(
            step_div(body), facts={"result": [names[i] for i in trace[-1].ids], "ranks": [s.rank for s in trace[1:]]}
        )

    cases = _differ_cases()

    def d_differ(p):
        head = "<tr><th>text</th><th>first difference</th><th>A merges</th><th>B merges</th><th>why</th></tr>"
        rows = "".join(
            f'<tr data-cause="{c.cause}"><td class="cls-mono">{esc(text)}</td><td>merge {c.first.number}</td>'
            f"<td>{pair_html(c.first.a_pair)} ({c.first.a_count}×)</td>"
            f"<td>{pair_html(c.first.b_pair)} ({c.first.b_count}×{', tied' if c.first.tied else ''})</td>"
            f"<td><b>{esc(CATALOGUE[c.cause].title)}</b></td></tr>"
            for text, c in cases
        )
        body = (
            COMPARE_CSS + f'<table class="cls-table">{head}{rows}</table><div class="cls-note">Check your own '
            "trainer on the Compare page: pick the reference you match, upload your merges.txt or a JSON list of "
            "pairs, and it names the first merge that differs and the most likely mistake.</div>"
        )
        return Visual(step_div(body), facts={"cases": [(text, c.first.number, c.cause) for text, c in cases]})

    Z, Y = names[m1.id], names[m2.id]
    steps = (
        Step(
            "Two merges, learned in this order",
            f"Training on `aab aab aab` learns #1 {pair_text(m1.pair, names)} → {Z}, then "
            f"#2 {pair_text(m2.pair, names)} → {Y}. Rule #2 needs the token {Z} that rule #1 makes.",
            d_rules,
        ),
        Step(
            "In order: #1, then #2",
            f"`{word}` → {' '.join(names[i] for i in in_order[1])} → "
            f"{' '.join(names[i] for i in in_order[-1])}: {len(in_order[-1])} token.",
            d_in,
        ),
        Step(
            "Out of order: #2, then #1",
            f"Rule #2 looks for {pair_text(m2.pair, names)} but there is no {Z} yet, so nothing happens. Result: "
            f"{' '.join(names[i] for i in out_of_order[-1])} — {count_of(len(out_of_order[-1]), 'token')}, a merge missed.",
            d_out,
        ),
        Step(
            "How an encoder gets it right",
            "It repeatedly merges the neighbouring pair that was learned earliest. That replays training's "
            "order, so the same text always gives the same tokens.",
            d_trace,
        ),
        Step(
            "Why your merges differ",
            "Same text, two trainers, two merge lists. Find the **first merge where they part**: a tie broken "
            "another way (Python's `max` keeps the first pair seen), or a pair counted once per chunk instead of "
            "at every occurrence.",
            d_differ,
        ),
    )
    return Lesson(5, TITLE, "Apply the merges in the order they were learned.", steps)


def _differ_cases() -> list:
    """Two classic mistakes, each compared with the right merges by :func:`bpe.compare`."""
    tie_text, chunk_text = "aaabdaaabac", "aaaa ab ab"
    a1 = bpe.train(tie_text, 256 + 3, pattern=None, tie_break="lexical")
    b1 = bpe.train(tie_text, 256 + 3, pattern=None, tie_break="first")
    a2 = bpe.train(chunk_text, 256 + 3, pattern="gpt2", tie_break="lexical")
    b2 = Reference(pattern="gpt2", counting="per_chunk").train(chunk_text, 3)
    return [(tie_text, bpe.compare(a1, b1, text=tie_text)), (chunk_text, bpe.compare(a2, b2, text=chunk_text))]
