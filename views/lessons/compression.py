"""Lesson 2 — tokenization is compression: every merge makes a text shorter.

``hello hello hello world`` merge by merge, then the compression curve of an essay: bytes per token for
the training text and for its held-out end (:func:`bpe.excerpt.split_heldout`, counted by
:func:`bpe.replay.heldout_token_counts`).
"""

from __future__ import annotations

import bpe
from bpe.excerpt import split_heldout
from bpe.replay import MergeIndex, heldout_token_counts

from ..compression_chart import compression_curve_figure
from ..spans import run_token_label
from ..theme import color_for
from .blocks import SAMPLES, big, chip, spans_html, step_div
from .model import Lesson, Step, Visual

TITLE = "Tokenization is compression"
HELLO = "hello hello hello world"
#: The essay's end held out of training (a larger share than the player's: the essay is short).
HELDOUT_FRACTION = 0.15


def build() -> Lesson:
    hello = HELLO
    run_h = bpe.train(hello, 256 + 5, pattern=None, tie_break="lexical")
    counts_h = run_h.token_counts()
    essay = (SAMPLES / "english.txt").read_text(encoding="utf-8")
    train_part, held = split_heldout(essay, HELDOUT_FRACTION, min_chars=0)
    n_merges = 300
    run_e = bpe.train(train_part, 256 + n_merges, pattern="gpt4", tie_break="lexical")
    held_counts = heldout_token_counts(run_e, MergeIndex(run_e), held)
    counts_e = run_e.token_counts()
    k_e = len(run_e.merges)
    bpt_train = run_e.n_bytes / counts_e[-1]
    held_bytes = len(held.encode("utf-8"))
    bpt_held = held_bytes / held_counts[-1]
    half = next(k for k, c in enumerate(counts_e) if counts_e[0] - c >= (counts_e[0] - counts_e[-1]) / 2)

    def d_start(p):
        html_, ids = spans_html(run_h.tokenizer(0), hello, p)
        return Visual(
            step_div(html_ + big([len(ids)], "tokens = bytes")),
            facts={"tokens": len(ids), "bytes": len(hello.encode())},
        )

    def label(token_id: int) -> str:
        return run_token_label(run_h, token_id)

    def d_merges(p):
        k = len(run_h.merges)
        html_, ids = spans_html(run_h.tokenizer(k), hello, p, highlight={run_h.merges[-1].id})
        rows = "".join(
            f"<tr><td>{m.rank + 1}</td><td>{chip(label(m.pair[0]))} + {chip(label(m.pair[1]))}</td>"
            f"<td>{chip(label(m.id), bg=color_for(m.id, p))}</td><td>{m.count}</td>"
            f"<td><b>{m.tokens_after}</b></td></tr>"
            for m in run_h.merges
        )
        table = (
            '<table class="cls-table"><tr><th>merge</th><th>pair</th><th>new token</th><th>count</th>'
            f"<th>tokens after</th></tr>{rows}</table>"
        )
        return Visual(
            step_div(table + html_ + big(counts_h)),
            facts={"tokens": len(ids), "counts": counts_h, "new_tokens": [label(m.id) for m in run_h.merges]},
        )

    def d_curve(p):
        fig = compression_curve_figure(counts_e, run_e.n_bytes, held_counts, held_bytes, palette=p)
        note = (
            f'<div class="cls-big" data-counts="{counts_e[0]},{counts_e[-1]}">{counts_e[0]:,}'
            f'<span class="cls-arrow">→</span>{counts_e[-1]:,} tokens</div>'
            f'<div class="cls-note">{bpt_train:.2f} bytes per token on the training text, '
            f"{bpt_held:.2f} on the held-out end of the essay.</div>"
        )
        return Visual(
            step_div(note),
            figure=fig,
            facts={
                "tokens_before": counts_e[0],
                "tokens_after": counts_e[-1],
                "merges": k_e,
                "half_at": half,
                "bytes_per_token": round(bpt_train, 2),
                "heldout_bytes_per_token": round(bpt_held, 2),
            },
        )

    steps = (
        Step(
            "Start: one token per byte",
            f"`{hello}` is {counts_h[0]} bytes, so {counts_h[0]} tokens before any merge.",
            d_start,
        ),
        Step(
            "Each merge shortens the text",
            f"{len(run_h.merges)} merges later `hello·` is one token. A merge removes one token per "
            f"occurrence of its pair: here 3 each time, {counts_h[0]} → {counts_h[-1]} tokens.",
            d_merges,
        ),
        Step(
            "The compression curve",
            f"On a longer text the first merges save the most: half of the saving comes from the first "
            f"{half} of {k_e} merges. Held-out text, never trained on, shrinks too: {bpt_held:.2f} bytes per "
            f"token against {bpt_train:.2f}.",
            d_curve,
        ),
    )
    return Lesson(2, TITLE, "Every merge makes the text shorter: fewer tokens, more bytes per token.", steps)
