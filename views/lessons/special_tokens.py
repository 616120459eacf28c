"""Lesson 7 — special tokens: chat markers and ``<|endoftext|>`` get reserved ids, are never split and
never merged in training.
"""

from __future__ import annotations

import bpe

from ..spans import render_spans, run_token_label, spans_from_ids, token_label
from .blocks import SAMPLES, chip, esc, spans_html, step_div
from .model import Lesson, Step, Visual

TITLE = "Special tokens"

CHAT_SNIPPET = "<|im_start|>user\nHi!<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n<|endoftext|>"
CHAT_SPECIALS = ("<|im_start|>", "<|im_end|>", "<|endoftext|>")


def build() -> Lesson:
    chat = (SAMPLES / "chat.txt").read_text(encoding="utf-8")
    n = 150
    with_specials = bpe.train(chat, 256 + n + len(CHAT_SPECIALS), pattern="gpt4", special_tokens=CHAT_SPECIALS)
    without = bpe.train(chat, 256 + n, pattern="gpt4")
    tok = with_specials.tokenizer()
    gpt4 = bpe.load_pretrained("cl100k_base")
    eot = "<|endoftext|>"
    eot_special = gpt4.encode(eot, allowed_special={eot})
    eot_plain = gpt4.encode_ordinary(eot)
    marker_chars = set("<|>")

    def touches(run: bpe.Run) -> list[str]:
        """The learned tokens holding a piece of a marker."""
        learned = [run_token_label(run, m.id) for m in run.merges]
        return [t for t in learned if any(c in marker_chars for c in t) or "im_" in t]

    def d_chat(p):
        html_, ids = spans_html(tok, CHAT_SNIPPET, p, font_px=24)
        specials = [tok.token_text(i) for i in ids if tok.is_special(i)]
        legend = "".join(chip(f"{s} = {i}", cls="cls-special") for s, i in with_specials.special_tokens.items())
        return Visual(
            step_div(html_ + f'<div class="cls-note">Reserved ids: {legend}</div>'),
            facts={"tokens": len(ids), "specials": specials, "special_ids": dict(with_specials.special_tokens)},
        )

    def d_gpt4(p):
        a = render_spans(spans_from_ids(gpt4, eot_special), palette=p, font_px=26)
        b = render_spans(spans_from_ids(gpt4, eot_plain), palette=p, font_px=26)
        body = (
            f'<div class="cls-cols"><div><h4>as the special token</h4>{a}'
            f'<div class="cls-note">id {", ".join(map(str, eot_special))} — 1 token</div></div>'
            f'<div><h4>as plain text</h4>{b}<div class="cls-note">ids {esc(", ".join(map(str, eot_plain)))} — '
            f"{len(eot_plain)} tokens</div></div></div>"
        )
        return Visual(
            step_div(body),
            facts={
                "special": eot_special,
                "plain": eot_plain,
                "plain_pieces": [token_label(gpt4.token_bytes(i)) for i in eot_plain],
            },
        )

    def d_training(p):
        t_without = touches(without)
        t_with = touches(with_specials)

        def chips(ts: list[str]) -> str:
            return "".join(chip(t) for t in ts) or '<span class="cls-note">none</span>'

        body = (
            f'<div class="cls-cols"><div><h4>markers as plain text</h4>{chips(t_without)}</div>'
            f"<div><h4>markers declared special</h4>{chips(t_with)}</div></div>"
            f'<div class="cls-note">Learned tokens containing <code>&lt;</code>, <code>|</code>, '
            f"<code>&gt;</code> or <code>im_</code>, after {n} merges on a chat transcript.</div>"
        )
        return Visual(step_div(body), facts={"without": t_without, "with": t_with})

    steps = (
        Step(
            "Special tokens mark structure",
            "Chat models see markers for who speaks and where a text ends. Each marker is one token with a "
            "reserved id, never split.",
            d_chat,
        ),
        Step(
            "Typed as text, a marker falls apart",
            f"In GPT-4 `{eot}` is id {eot_special[0]} only when the application allows it. Typed by a user "
            f"it is ordinary text: {len(eot_plain)} tokens.",
            d_gpt4,
        ),
        Step(
            "Never merged in training",
            "Declared special, markers are cut out before counting pairs, so no merge learns pieces of them.",
            d_training,
        ),
    )
    return Lesson(7, TITLE, "<|endoftext|> and chat markers: reserved ids, never split.", steps)
