"""Lesson 8 — the two BPE families on the same text: byte level (GPT-2 onward: 256 bytes, the space glued to
the front of a word as ``Ġ``) and SentencePiece-style (Llama 2, Mistral 7B, Gemma: the text's characters, every
space a ``▁``, byte fallback ``<0xNN>`` for a character it never saw).
"""

from __future__ import annotations

import bpe

from .blocks import chip, esc, lesson_colors, step_div
from .model import Lesson, Step, Visual

TITLE = "Two families: byte level and SentencePiece"

FAMILY_TEXT = "low low lower"
UNSEEN = "lowest"
MERGES = 3


def _runs() -> tuple[bpe.Run, bpe.Run]:
    byte_run = bpe.train(FAMILY_TEXT, 256 + MERGES, pattern="gpt4", tie_break="hf")
    sp_run = bpe.train(FAMILY_TEXT, 6 + MERGES, family="sentencepiece", tie_break="hf")
    return byte_run, sp_run


def _label(tok: bpe.Tokenizer, i: int) -> str:
    return tok.token_text(i)


def _row(label: str, pieces: list[str], bg: str | None = None) -> str:
    chips = " ".join(chip(p, bg=bg if p.startswith(("Ġ", "▁", "<0x")) else None) for p in pieces)
    return f'<div class="cls-row"><span class="cls-rowlabel">{esc(label)}</span>{chips}</div>'


def build() -> Lesson:
    byte_run, sp_run = _runs()
    byte_tok, sp_tok = byte_run.tokenizer(), sp_run.tokenizer()
    byte_chunks = bpe.pretokenize(FAMILY_TEXT, "gpt4")
    sp_text = bpe.normalize_text(FAMILY_TEXT, sp_run.normalize)
    sp_chunks = sp_tok.chunks(FAMILY_TEXT)
    byte_merges = [byte_tok.token_text(m.id) for m in byte_run.merges]
    sp_merges = [sp_tok.token_text(m.id) for m in sp_run.merges]
    byte_unseen = [_label(byte_tok, i) for i in byte_tok.encode(UNSEEN)]
    sp_unseen = [_label(sp_tok, i) for i in sp_tok.encode(UNSEEN)]

    def d_start(p):
        colors = lesson_colors(p)
        body = (
            _row("byte level: chunks", [bpe.to_visible(c.encode()) for c in byte_chunks], colors[1])
            + _row("SentencePiece: the text", [sp_text], colors[1])
            + _row("SentencePiece: chunks", sp_chunks, colors[1])
            + _row("SentencePiece: alphabet", list(sp_run.base), colors[1])
        )
        return Visual(
            step_div(body),
            facts={
                "byte_chunks": byte_chunks,
                "sp_text": sp_text,
                "sp_chunks": sp_chunks,
                "byte_base": len(byte_run.base),
                "sp_base": list(sp_run.base),
            },
        )

    def d_merges(p):
        colors = lesson_colors(p)
        body = _row(f"byte level, first {MERGES} merges", byte_merges, colors[2]) + _row(
            f"SentencePiece, first {MERGES} merges", sp_merges, colors[2]
        )
        return Visual(step_div(body), facts={"byte_merges": byte_merges, "sp_merges": sp_merges})

    def d_unseen(p):
        colors = lesson_colors(p)
        body = _row(f"byte level: {UNSEEN}", byte_unseen, colors[3]) + _row(
            f"SentencePiece: {UNSEEN}", sp_unseen, colors[3]
        )
        return Visual(
            step_div(body),
            facts={
                "byte_unseen": byte_unseen,
                "sp_unseen": sp_unseen,
                "sp_decoded": sp_tok.decode(sp_tok.encode(UNSEEN)),
            },
        )

    steps = (
        Step(
            "Where does the space go?",
            f"Byte level starts from {len(byte_run.base)} bytes; a regex puts each space in front of a word "
            f"(spelled `Ġ`). SentencePiece-style starts from the text's {len(sp_run.base)} characters; every "
            "space becomes `▁`, glued to the next word, the first word included.",
            d_start,
        ),
        Step(
            "The same counting, other pieces",
            "Both merge the most frequent neighbouring pair. Byte level learns "
            f"`{'`, `'.join(byte_merges)}`; SentencePiece-style learns `{'`, `'.join(sp_merges)}`: its words always "
            "start with `▁`, so the first word of a text looks like every other.",
            d_merges,
        ),
        Step(
            "A word with new letters",
            f"`{UNSEEN}` has `s` and `t`, never seen in training. Byte level always has their bytes. "
            "SentencePiece-style has no such characters: byte fallback writes each as its UTF-8 bytes, "
            f"`{'`, `'.join(t for t in sp_unseen if t.startswith('<0x'))}`, and decoding gives the word back.",
            d_unseen,
        ),
    )
    return Lesson(8, TITLE, "Byte-level vs SentencePiece-style BPE on the same text: ▁ and <0xNN>.", steps)
