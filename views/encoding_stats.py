"""What the Tokenize page says about its encodings: per tokenizer, the metric row and the round trip in
words (:func:`stats_html`) and the special-token strings it met (:func:`specials_html`); across tokenizers,
the token counts as bars and the summary table in plain HTML (:func:`compare_html`; :func:`summary_frame` is
the same table as a data frame).

All user text is escaped (a tokenizer's name too, in the bars' labels). The comparison is HTML, not a plotly
chart and a data grid: those made every fresh Tokenize page download Streamlit's plotly chunk (4.7 MB, 1.4 MB
compressed) and its data grid (~1 MB, ~0.3 MB compressed) for six bars and six rows.
"""
from __future__ import annotations

import html
from typing import Sequence

import pandas as pd

from .encoded import Encoded
from .theme import accent_colors
from .token_boxes import TOK_CSS

__all__ = ["stats_html", "specials_html", "compare_html", "summary_frame"]


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


COMPARE_CSS = """
<style>
.tokv-compare{display:flex;flex-wrap:wrap;gap:1rem 2.5rem;align-items:flex-start;}
.tokv-bars{flex:1 1 18rem;max-width:34rem;}
.tokv-bars h5,.tokv-bars .tokv-bars-title{margin:0 0 .4rem 0;font-weight:600;font-size:1rem;}
.tokv-bar-row{display:grid;grid-template-columns:minmax(6rem,11rem) 1fr;gap:.6rem;align-items:center;
  margin:.25rem 0;}
.tokv-bar-name{overflow-wrap:anywhere;font-size:.92rem;line-height:1.2;}
.tokv-bar-track{display:flex;align-items:center;gap:.35rem;min-width:0;}
.tokv-bar{height:1.15rem;border-radius:3px;min-width:2px;}
.tokv-bar-n{font-variant-numeric:tabular-nums;font-size:.92rem;white-space:nowrap;}
.tokv-summary{flex:2 1 24rem;overflow-x:auto;}
.tokv-summary table{border-collapse:collapse;font-size:.92rem;width:100%;}
.tokv-summary th,.tokv-summary td{padding:.25rem .6rem;border-bottom:1px solid #e6e6e6;text-align:right;
  font-variant-numeric:tabular-nums;}
.tokv-summary th{font-weight:600;border-bottom:2px solid #ccc;white-space:nowrap;}
.tokv-summary th:first-child,.tokv-summary td:first-child{text-align:left;min-width:10rem;overflow-wrap:break-word;}
</style>
"""


def compare_html(encs: Sequence[Encoded], vocab_sizes: Sequence[int] | None = None,
                 palette: str = "default") -> str:
    """The tokenizers side by side: a bar per tokenizer that encoded the text (its token count, the longest
    bar the most tokens; characters and bytes per token in its tooltip), and the table of
    :func:`summary_frame` (every tokenizer, errors included). Names are escaped.

    >>> from views.encoded import Encoded
    >>> out = compare_html([Encoded(name="<b>a</b>", text="xy", ids=(1, 2)), Encoded(name="b", text="xy", ids=(3,))])
    >>> "&lt;b&gt;a&lt;/b&gt;" in out and "<b>a" not in out, out.count('class="tokv-bar-row"')
    (True, 2)
    >>> 'data-tokens="2" style="width:85.0%' in out and 'data-tokens="1" style="width:42.5%' in out
    True
    """
    ok = [e for e in encs if not e.error]
    color = accent_colors(palette)["other"]
    top = max((e.n_tokens for e in ok), default=1) or 1
    rows = []
    for e in ok:
        name = html.escape(e.name)
        tip = html.escape(f"{e.name}: {e.n_tokens:,} tokens, {e.chars_per_token:.2f} characters and "
                          f"{e.bytes_per_token:.2f} bytes per token", quote=True)
        rows.append(f'<div class="tokv-bar-row" title="{tip}"><div class="tokv-bar-name">{name}</div>'
                    f'<div class="tokv-bar-track"><div class="tokv-bar" data-tokens="{e.n_tokens}" '
                    f'style="width:{85 * e.n_tokens / top:.1f}%;background:{color}"></div>'
                    f'<span class="tokv-bar-n">{e.n_tokens:,}</span></div></div>')
    table = summary_rows(encs, vocab_sizes)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in table[0]) if table else ""
    body = []
    for record in table:
        cells = []
        for v in record.values():
            if v is None:
                cells.append("<td>–</td>")
            elif isinstance(v, float):
                cells.append(f"<td>{v:,.2f}</td>")
            elif isinstance(v, int):
                cells.append(f"<td>{v:,}</td>")
            else:
                cells.append(f"<td>{html.escape(str(v))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (COMPARE_CSS + '<div class="tokv-compare">'
            f'<div class="tokv-bars" role="figure" aria-label="Tokens for this text, per tokenizer">'
            f'<div class="tokv-bars-title">Tokens for this text</div>{"".join(rows)}</div>'
            f'<div class="tokv-summary"><table><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody>'
            "</table></div></div>")


def summary_rows(encs: Sequence[Encoded], vocab_sizes: Sequence[int] | None = None) -> list[dict]:
    """One row per tokenizer: vocabulary size (when ``vocab_sizes`` is given), tokens, characters/token,
    bytes/token, special tokens, round trip (None where the text could not be encoded)."""
    rows = []
    for k, e in enumerate(encs):
        row = {"tokenizer": e.name, "vocabulary": vocab_sizes[k] if vocab_sizes else None,
               "tokens": None if e.error else e.n_tokens,
               "chars/token": None if e.error else round(e.chars_per_token, 2),
               "bytes/token": None if e.error else round(e.bytes_per_token, 2),
               "special tokens": None if e.error else e.special_count,
               "round trip": "error" if e.error else ("exact" if e.roundtrip_ok else
                                                       "exact but unknown characters" if e.unknown else "differs")}
        if not vocab_sizes:
            del row["vocabulary"]
        rows.append(row)
    return rows


def summary_frame(encs: Sequence[Encoded], vocab_sizes: Sequence[int] | None = None) -> pd.DataFrame:
    """:func:`summary_rows` as a data frame."""
    return pd.DataFrame(summary_rows(encs, vocab_sizes))
