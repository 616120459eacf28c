"""What the Tokenize page says about its encodings: per tokenizer, the metric row and the round trip in
words (:func:`stats_html`) and the special-token strings it met (:func:`specials_html`); across tokenizers,
a bar chart of token counts (:func:`counts_figure`) and a summary table (:func:`summary_frame`).

All user text is escaped (a tokenizer's name too, in the chart's labels).
"""
from __future__ import annotations

import html
from typing import Sequence

import pandas as pd
import plotly.graph_objects as go

from .encoded import Encoded
from .theme import accent_colors
from .token_boxes import TOK_CSS

__all__ = ["stats_html", "specials_html", "counts_figure", "summary_frame"]


def _fmt(x: float | int) -> str:
    return f"{x:,}" if isinstance(x, int) else f"{x:,.2f}"


def stats_html(enc: Encoded) -> str:
    """The metric row of one tokenizer: tokens, characters, bytes, characters per token; the round trip
    and the special-token difference in words."""
    if enc.error:
        return TOK_CSS + f'<div class="tokv-bad">Cannot encode this text: {html.escape(enc.error)}</div>'
    items = [("tokens", enc.n_tokens), ("chars", enc.n_chars), ("bytes", enc.n_bytes),
             ("chars/token", enc.chars_per_token)]
    parts = [TOK_CSS, '<div class="tokv-stats">']
    for label, value in items:
        key = label.split("/")[0] if label != "chars/token" else "cpt"
        parts.append(f'<div class="tokv-stat" data-stat="{key}"><span class="tokv-v">{_fmt(value)}</span>'
                     f'<span class="tokv-l">{label}</span></div>')
    parts.append("</div>")
    lossy = not enc.roundtrip_ok and enc.unknown and "unknown character" in enc.roundtrip_note
    cls = "tokv-ok" if enc.roundtrip_ok else "tokv-unknote" if lossy else "tokv-bad"
    mark = "✓" if enc.roundtrip_ok else "≈" if lossy else "✗"
    parts.append(f'<div class="{cls}" data-roundtrip="{str(enc.roundtrip_ok).lower()}">{mark} '
                 f'{html.escape(enc.roundtrip_note)}</div>')
    if enc.normalized:
        parts.append('<div class="tokv-special">This tokenizer normalizes text (Unicode NFC) before encoding; '
                     'counts are for the normalized text.</div>')
    if enc.unknown:
        n_chars = sum(len(t) for _, t in enc.unknown)
        parts.append(f'<div class="tokv-unknote" data-unknown="{len(enc.unknown)}">{len(enc.unknown):,} unknown '
                     f"token{'s' if len(enc.unknown) != 1 else ''} (dashed red, marked ?): {n_chars:,} "
                     f"character{'s' if n_chars != 1 else ''} outside this tokenizer's alphabet.</div>")
    if enc.other_count is not None:
        if enc.specials_as_special:
            msg = (f"{enc.special_count} special token{'s' if enc.special_count != 1 else ''} (drawn dark); "
                   f"as plain text the same text is {enc.other_count:,} tokens "
                   f"({enc.other_count - enc.n_tokens:+,}).")
        else:
            msg = (f"Special-token strings encoded as plain text; treated as special tokens the text is "
                   f"{enc.other_count:,} tokens ({enc.other_count - enc.n_tokens:+,}).")
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
        parts.append(f'<div class="tokv-specials" data-own="{len(own)}">This vocabulary\'s special tokens in the '
                     f"text, {how}: {_codes(own)}</div>")
    if others:
        parts.append(f'<div class="tokv-specials" data-foreign="{len(others)}">Special to another tokenizer here, '
                     f"ordinary text to this one: {_codes(others)}</div>")
    return TOK_CSS + "".join(parts)


def counts_figure(encs: Sequence[Encoded], palette: str = "default", height: int | None = None) -> go.Figure:
    """A horizontal bar per tokenizer (first on top): its token count for the text, labelled; characters
    and bytes per token on hover."""
    ok = [e for e in encs if not e.error]
    colors = accent_colors(palette)
    # plotly draws <b>, <a href=…> and friends in labels: a name (an uploaded file's) is escaped, &lt; shows "<"
    fig = go.Figure(go.Bar(
        y=[html.escape(e.name, quote=False) for e in ok], x=[e.n_tokens for e in ok], orientation="h",
        text=[f"{e.n_tokens:,}" for e in ok], textposition="outside", cliponaxis=False,
        marker_color=colors["other"],
        customdata=[[e.chars_per_token, e.bytes_per_token] for e in ok],
        hovertemplate="%{y}: %{x:,} tokens<br>%{customdata[0]:.2f} chars/token<br>"
                      "%{customdata[1]:.2f} bytes/token<extra></extra>",
    ))
    top = max((e.n_tokens for e in ok), default=1)
    fig.update_layout(height=height or 70 + 48 * max(1, len(ok)), margin=dict(l=10, r=30, t=34, b=10),
                      title="Tokens for this text",
                      xaxis=dict(range=[0, top * 1.2 + 1], gridcolor="#eee"),
                      yaxis=dict(autorange="reversed"), showlegend=False, plot_bgcolor="white")
    return fig


def summary_frame(encs: Sequence[Encoded], vocab_sizes: Sequence[int] | None = None) -> pd.DataFrame:
    """One row per tokenizer: vocabulary size, tokens, characters/token, bytes/token, round trip."""
    rows = []
    for k, e in enumerate(encs):
        rows.append({
            "tokenizer": e.name,
            "vocabulary": vocab_sizes[k] if vocab_sizes else None,
            "tokens": None if e.error else e.n_tokens,
            "chars/token": None if e.error else round(e.chars_per_token, 2),
            "bytes/token": None if e.error else round(e.bytes_per_token, 2),
            "special tokens": None if e.error else e.special_count,
            "round trip": "error" if e.error else ("exact" if e.roundtrip_ok else
                                                    "exact but unknown characters" if e.unknown else "differs"),
        })
    frame = pd.DataFrame(rows)
    if not vocab_sizes:
        frame = frame.drop(columns=["vocabulary"])
    return frame
