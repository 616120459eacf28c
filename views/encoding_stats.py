"""What the Tokenize page says about each encoding: the metric row and the round trip in words
(:func:`stats_html`) and the special-token strings it met (:func:`specials_html`). The comparison across
tokenizers is :func:`views.tokenize_payload.compare_html` (an HTML table with bars: a plotly chart and a data
grid made every fresh Tokenize page download Streamlit's plotly chunk, 4.7 MB, and its data grid, ~1 MB).

All user text is escaped.
"""

from __future__ import annotations

import html
from typing import Sequence

from .encoded import Encoded
from .token_boxes import TOK_CSS

__all__ = ["stats_html", "specials_html"]


def _fmt(x: float | int) -> str:
    return f"{x:,}" if isinstance(x, int) else f"{x:,.2f}"


def stats_html(enc: Encoded) -> str:
    """The metric row of one tokenizer: tokens, characters, bytes, characters per token; the round trip
    and the special-token difference in words."""
    if enc.error:
        return TOK_CSS + f'<div class="tokv-bad">Cannot encode this text: {html.escape(enc.error)}</div>'
    items = [
        ("tokens", enc.n_tokens),
        ("chars", enc.n_chars),
        ("bytes", enc.n_bytes),
        ("chars/token", enc.chars_per_token),
    ]
    parts = [TOK_CSS, '<div class="tokv-stats">']
    for label, value in items:
        key = label.split("/")[0] if label != "chars/token" else "cpt"
        parts.append(
            f'<div class="tokv-stat" data-stat="{key}"><span class="tokv-v">{_fmt(value)}</span>'
            f'<span class="tokv-l">{label}</span></div>'
        )
    parts.append("</div>")
    lossy = not enc.roundtrip_ok and enc.unknown and "unknown character" in enc.roundtrip_note
    cls = "tokv-ok" if enc.roundtrip_ok else "tokv-unknote" if lossy else "tokv-bad"
    mark = "✓" if enc.roundtrip_ok else "≈" if lossy else "✗"
    parts.append(
        f'<div class="{cls}" data-roundtrip="{str(enc.roundtrip_ok).lower()}">{mark} '
        f"{html.escape(enc.roundtrip_note)}</div>"
    )
    if enc.normalized_note:
        parts.append(f'<div class="tokv-special">{html.escape(enc.normalized_note)}</div>')
    elif enc.normalized:
        parts.append(
            '<div class="tokv-special">This tokenizer normalizes text (Unicode NFC) before encoding; '
            "counts are for the normalized text.</div>"
        )
    if enc.unknown:
        n_chars = sum(len(t) for _, t in enc.unknown)
        parts.append(
            f'<div class="tokv-unknote" data-unknown="{len(enc.unknown)}">{len(enc.unknown):,} unknown '
            f"token{'s' if len(enc.unknown) != 1 else ''} (dashed red, marked ?): {n_chars:,} "
            f"character{'s' if n_chars != 1 else ''} outside this tokenizer's alphabet.</div>"
        )
    if enc.other_count is not None:
        if enc.specials_as_special:
            msg = (
                f"{enc.special_count} special token{'s' if enc.special_count != 1 else ''} (drawn dark); "
                f"as plain text the same text is {enc.other_count:,} tokens "
                f"({enc.other_count - enc.n_tokens:+,})."
            )
        else:
            msg = (
                f"Special-token strings encoded as plain text; treated as special tokens the text is "
                f"{enc.other_count:,} tokens ({enc.other_count - enc.n_tokens:+,})."
            )
        parts.append(f'<div class="tokv-special" data-other-count="{enc.other_count}">{html.escape(msg)}</div>')
    return "".join(parts)


def _codes(strings: Sequence[str], limit: int = 8) -> str:
    shown = " ".join(f"<code>{html.escape(t, quote=True)}</code>" for t in strings[:limit])
    return shown + (f" and {len(strings) - limit:,} more" if len(strings) > limit else "")


def specials_html(enc: Encoded, foreign: Sequence[str] = ()) -> str:
    """How this tokenizer treated special-token strings in the text: its own ones (one id each, or plain text
    when the toggle is off) and ``foreign`` ones (special to another tokenizer on the page, ordinary text
    here). Empty when there are none.

    >>> out = specials_html(Encoded("t", "<s>x", specials_found=("<s>",)))
    >>> "one id each: <code>&lt;s&gt;</code>" in out
    True
    """
    own = list(enc.specials_found)
    others = [t for t in foreign if t not in own]
    if enc.error or not (own or others):
        return ""
    parts = []
    if own:
        how = "one id each" if enc.specials_as_special else "encoded as plain text (the toggle is off)"
        parts.append(
            f'<div class="tokv-specials" data-own="{len(own)}">This vocabulary\'s special tokens in the '
            f"text, {how}: {_codes(own)}</div>"
        )
    if others:
        parts.append(
            f'<div class="tokv-specials" data-foreign="{len(others)}">Special to another tokenizer here, '
            f"ordinary text to this one: {_codes(others)}</div>"
        )
    return TOK_CSS + "".join(parts)
