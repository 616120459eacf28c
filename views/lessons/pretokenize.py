"""Lesson 4 — why pre-tokenize: ``dog``, ``dog.`` and ``dog!`` should share one token for ``dog``.

Trained on the raw text, merges glue words to their punctuation; with GPT-4's regex first, merges stay
inside chunks.
"""

from __future__ import annotations

import bpe

from ..spans import run_token_label, token_label
from ..theme import color_for
from .blocks import chip, esc, spans_html, step_div
from .model import Lesson, Step, Visual

TITLE = "Why pre-tokenize"

DOG_TEXT = " ".join(["dog dog. dog!"] * 3)


def build() -> Lesson:
    n = 6
    plain = bpe.train(DOG_TEXT, 256 + n, pattern=None, tie_break="lexical")
    split = bpe.train(DOG_TEXT, 256 + n, pattern="gpt4", tie_break="lexical")
    chunks = bpe.pretokenize(DOG_TEXT, "gpt4")
    learned_plain = [run_token_label(plain, m.id) for m in plain.merges]
    learned_split = [run_token_label(split, m.id) for m in split.merges]
    glued = [t for t in learned_plain if "dog" in t and any(c in t for c in ".!")]

    def tokens_of(run: bpe.Run, p: str) -> tuple[str, list[str]]:
        html_, ids = spans_html(run.tokenizer(), DOG_TEXT, p)
        return html_, [run_token_label(run, i) for i in ids]

    def learned_list(run: bpe.Run, p: str) -> str:
        return "".join(chip(run_token_label(run, m.id), bg=color_for(m.id, p)) for m in run.merges)

    def d_plain(p):
        html_, toks = tokens_of(plain, p)
        return Visual(
            step_div(f'<div class="cls-note">Learned tokens: {learned_list(plain, p)}</div>' + html_),
            facts={"learned": learned_plain, "tokens": toks, "glued": glued},
        )

    def d_chunks(p):
        chips = "".join(chip(token_label(c.encode())) for c in chunks)
        return Visual(
            step_div(
                f'<div class="cls-row">{chips}</div>'
                f'<div class="cls-note">{len(chunks)} chunks; merges never cross a chunk '
                f"boundary.</div>"
            ),
            facts={"chunks": chunks},
        )

    def d_side(p):
        left_html, left_toks = tokens_of(plain, p)
        right_html, right_toks = tokens_of(split, p)
        body = (
            f'<div class="cls-cols"><div><h4>No pre-tokenizer</h4>{learned_list(plain, p)}{left_html}</div>'
            f"<div><h4>GPT-4 regex first</h4>{learned_list(split, p)}{right_html}"
            f'<div class="cls-note">Stopped after {len(split.merges)} merges: {esc(split.stop_reason)}.</div>'
            f"</div></div>"
        )
        return Visual(
            step_div(body),
            facts={
                "learned_plain": learned_plain,
                "learned_split": learned_split,
                "tokens_plain": left_toks,
                "tokens_split": right_toks,
            },
        )

    steps = (
        Step(
            "Without a pre-tokenizer",
            f"`dog dog. dog!` three times, {n} merges on the raw text. Words get glued to their neighbours "
            f"and punctuation: {', '.join(f'`{t}`' for t in glued)}.",
            d_plain,
        ),
        Step(
            "A regex splits the text first",
            "GPT-4's pattern cuts words, punctuation and spaces into chunks; BPE runs inside each chunk.",
            d_chunks,
        ),
        Step(
            "Side by side",
            f"With the regex only {', '.join(f'`{t}`' for t in learned_split)} are learned: `dog` is one "
            "word whatever follows it, and the punctuation stays its own token.",
            d_side,
        ),
    )
    return Lesson(4, TITLE, "dog, dog. and dog! should share one token for dog.", steps)
