"""Lesson 6 — bytes, not characters: UTF-8 bytes, GPT-2's visible bytes (``Ġ``, ``Ċ``), an emoji split
across GPT-4's tokens.
"""

from __future__ import annotations

from typing import Callable

import bpe

from ..spans import render_spans, spans_from_ids, token_label
from ..theme import color_for
from .blocks import big, chip, esc, lesson_colors, step_div
from .model import Lesson, Step, Visual

TITLE = "Bytes, not characters"

BYTES_TEXT = "Café 👋\nnaïve"


def build() -> Lesson:
    text = BYTES_TEXT
    data = text.encode("utf-8")
    gpt4 = bpe.load_pretrained("cl100k_base")
    ids = gpt4.encode(text)
    visible = bpe.to_visible(data)
    space, newline, e_acute = bpe.to_visible(b" "), bpe.to_visible(b"\n"), bpe.to_visible("é".encode())

    def columns(bottom: Callable[[bytes], str]) -> str:
        """One column per character: the character on top, ``bottom(its bytes)`` below."""
        cols = []
        for ch in text:
            b = ch.encode("utf-8")
            cols.append(
                f'<div class="cls-col" data-char="{esc(ch)}" data-bytes="{len(b)}">'
                f'<span class="cls-tok">{esc(token_label(b))}</span>'
                f'<div class="cls-under">{bottom(b)}</div></div>'
            )
        return f'<div class="cls-row cls-cols-row">{"".join(cols)}</div>'

    def d_chars(p):
        colors = lesson_colors(p)

        def hex_chips(b: bytes) -> str:
            return "".join(chip(f"{x:02X}", bg=colors[1] if len(b) > 1 else None) for x in b)

        body = (
            columns(hex_chips) + f'<div class="cls-big" data-counts="{len(text)},{len(data)}">{len(text)} characters'
            f'<span class="cls-arrow">→</span>{len(data)} bytes</div>'
        )
        return Visual(
            step_div(body),
            facts={
                "characters": len(text),
                "bytes": len(data),
                "utf8": {ch: ch.encode().hex(" ").upper() for ch in text},
            },
        )

    def d_visible(p):
        colors = lesson_colors(p)

        def vis_chips(b: bytes) -> str:
            return "".join(
                f'<span class="cls-pairv">{chip(f"{x:02X}")}<span>↓</span>'
                f"{chip(bpe.to_visible(bytes([x])), bg=colors[1] if len(b) > 1 or x in (10, 32) else None)}</span>"
                for x in b
            )

        body = (
            columns(vis_chips) + f'<div class="cls-row"><span class="cls-rowlabel">as GPT-2 spells it</span>'
            f'<span class="cls-tok" data-visible="{esc(visible)}">{esc(visible)}</span></div>'
        )
        return Visual(step_div(body), facts={"visible": visible, "space": space, "newline": newline})

    def d_gpt4(p):
        html_ = render_spans(spans_from_ids(gpt4, ids), palette=p, font_px=26)
        chips = " ".join(chip(str(i), bg=color_for(i, p)) for i in ids)
        return Visual(
            step_div(
                html_
                + f'<div class="cls-row"><span class="cls-rowlabel">ids</span>{chips}</div>'
                + big([len(data), len(ids)], "tokens")
            ),
            facts={"ids": ids, "tokens": len(ids), "pieces": [token_label(gpt4.token_bytes(i)) for i in ids]},
        )

    steps = (
        Step(
            "Text is bytes",
            "UTF-8 writes `a` as 1 byte, `é` as 2, `👋` as 4. Byte-level BPE starts from these bytes: a base "
            "vocabulary of only 256 tokens.",
            d_chars,
        ),
        Step(
            "GPT-2's visible bytes",
            f"Vocabulary files spell every byte as one printable character: space is "
            f"`{space}`, newline `{newline}`, `é` is `{e_acute}`.",
            d_visible,
        ),
        Step(
            "GPT-4's tokens",
            "A token may hold part of a character: the emoji is split between two tokens (bytes in boxes). "
            "No text is ever unknown.",
            d_gpt4,
        ),
    )
    return Lesson(6, TITLE, "UTF-8 bytes, GPT-2's Ġ and Ċ, emoji split across tokens.", steps)
