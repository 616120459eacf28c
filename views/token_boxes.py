"""Ids drawn as colored token boxes, as the Tokenize page shows them: :func:`render_tokens` (a character
split across tokens drawn whole, striped with its tokens' colors, or as its bytes, hex chips -- never as
``�``; an unknown token dashed red), :func:`ids_list_html` (the ids in the same colors), and
``TOK_CSS``, the stylesheet of the page's ``tokv-`` classes (boxes, metrics, trace).

All user text is escaped; a ``<b>`` in the text shows as ``<b>``.

>>> tok = bpe.train("hello hello", 260, pattern=None).tokenizer()
>>> "bpe-tok" in render_tokens(tok, tok.encode("hello"), css=False)
True
"""

from __future__ import annotations

import html
from typing import Sequence

import bpe
from bpe.visible import char_groups

from .spans import SPAN_CSS, Span, ids_html, piece_html, spans_from_ids, token_label
from .theme import color_for

__all__ = [
    "MAX_DRAW_TOKENS",
    "TOK_CSS",
    "group_whole_chars",
    "token_box",
    "unknown_box",
    "render_tokens",
    "ids_list_html",
    "column_title_html",
    "facts_html",
]

#: Tokens drawn per tokenizer; the counts always cover the whole text.
MAX_DRAW_TOKENS = 2000

#: The Tokenize page's stylesheet: token boxes, the metric row, the ids list, special tokens, the trace.
TOK_CSS = """
<style>
.tokv-stats{display:flex;flex-wrap:wrap;gap:.3rem .9rem;margin:.2rem 0 .4rem 0;font-family:inherit;}
.tokv-stat{display:flex;flex-direction:column;}
.tokv-stat .tokv-v{font-size:1.55rem;font-weight:650;line-height:1.15;color:#111;font-variant-numeric:tabular-nums;}
.tokv-stat .tokv-l{font-size:.72rem;color:#555;text-transform:uppercase;letter-spacing:.02em;}
.tokv-ids{max-height:9.5rem;overflow-y:auto;border:1px solid #e6e6e6;border-radius:6px;}
.tokv-ids .bpe-tokens{font-size:13px;line-height:1.9;}
.tokv-ok{color:#1a7f37;font-size:.9rem;}
.tokv-bad{color:#b42318;font-size:.9rem;font-weight:600;}
.tokv-special{font-size:.9rem;color:#333;}
.tokv-spans .bpe-tok,.tokv-trace .bpe-tok{word-break:normal;overflow-wrap:normal;}
.tokv-spans,.tokv-trace .bpe-tokens{overflow-wrap:anywhere;}
.bpe-tok.tokv-multi{box-shadow:inset 0 0 0 1px rgba(0,0,0,.10),0 0 0 1px #8a63b8;}
.bpe-tok.tokv-unk{background:#fff !important;color:#b42318;border:2px dashed #b42318;box-shadow:none;
  font-weight:700;padding:0 2px;}
.bpe-tok.tokv-unk::after{content:"?";font-size:.62em;vertical-align:super;margin-left:1px;}
.tokv-unknote{color:#b42318;font-size:.9rem;}
.tokv-specials{font-size:.88rem;color:#333;margin:.15rem 0;}
.tokv-specials code{font-size:.85em;background:#f0f0f2;border-radius:3px;padding:0 3px;}
.tokv-trace{width:100%;font-size:.92rem;}
.tokv-row{display:grid;grid-template-columns:2rem 1fr;column-gap:.4rem;border-top:1px solid #e6e6e6;
  padding:.2rem 0;align-items:start;}
.tokv-row .tokv-step{color:#666;text-align:right;font-variant-numeric:tabular-nums;padding-top:.35rem;}
.tokv-row .tokv-merge{color:#444;font-size:.8rem;line-height:1.3;}
.tokv-trace .bpe-tokens{padding:0;line-height:1.8;}
</style>
"""


def group_whole_chars(spans: Sequence[Span]) -> list[list[Span]]:
    """Group consecutive spans so that every group covers whole UTF-8 characters
    (:func:`bpe.visible.char_groups`): a character split across tokens can be drawn whole (tiktokenizer's
    ``segments``).

    >>> s = [Span(1, "é".encode()[:1], 0), Span(2, "é".encode()[1:] + b"a", 1), Span(3, b"b", 3)]
    >>> [[x.id for x in g] for g in group_whole_chars(s)]
    [[1, 2], [3]]
    """
    return [list(spans[i : j + 1]) for i, j in char_groups([sp.data for sp in spans])]


def _span_title(sp: Span) -> str:
    n = len(sp.data)
    kind = "special token · " if sp.special else ""
    return f"id {sp.id} · {kind}{token_label(sp.data)} · {n} byte{'s' if n != 1 else ''}"


def token_box(sp: Span, palette: str, extra_classes: Sequence[str] = ()) -> str:
    """One token as a colored box (hover: id, bytes); ``extra_classes`` e.g. ``bpe-new`` to outline it."""
    classes = ["bpe-tok", *extra_classes]
    if sp.special:
        classes.append("bpe-special")
    return (
        f'<span class="{" ".join(classes)}" data-id="{sp.id}" style="background:{color_for(sp.id, palette)}" '
        f'title="{html.escape(_span_title(sp), quote=True)}">{piece_html(sp.data)}</span>'
    )


def _group_box(group: Sequence[Span], palette: str) -> str:
    total = sum(len(s.data) for s in group)
    stops = []
    pos = 0
    for s in group:
        a = 100 * pos / total
        pos += len(s.data)
        b = 100 * pos / total
        c = color_for(s.id, palette)
        stops.append(f"{c} {a:.1f}% {b:.1f}%")
    ids = " ".join(str(s.id) for s in group)
    tip = f"{len(group)} tokens share a character (drawn whole): " + " + ".join(
        f"id {s.id} ({token_label(s.data)})" for s in group
    )
    data = b"".join(s.data for s in group)
    return (
        f'<span class="bpe-tok tokv-multi" data-ids="{ids}" '
        f'style="background:linear-gradient(90deg,{",".join(stops)})" '
        f'title="{html.escape(tip, quote=True)}">{piece_html(data)}</span>'
    )


def unknown_box(sp: Span, text: str) -> str:
    """An unknown token (char level, ``unk_token``) drawn apart from every known one: the characters it
    stands for, in red on white with a dashed border and a ``?``; the hover says which id replaced them."""
    chars = ", ".join(f"{c!r} (U+{ord(c):04X})" for c in text[:8]) + (" …" if len(text) > 8 else "")
    tip = (
        f"unknown: {chars} {'is' if len(text) == 1 else 'are'} not in this tokenizer's alphabet, so "
        f"{'it becomes' if len(text) == 1 else 'they become'} id {sp.id} ({token_label(sp.data)})"
    )
    return (
        f'<span class="bpe-tok tokv-unk" data-id="{sp.id}" data-unk="{html.escape(text, quote=True)}" '
        f'title="{html.escape(tip, quote=True)}">{piece_html(text.encode("utf-8"))}</span>'
    )


def render_tokens(
    tok: bpe.Tokenizer,
    ids: Sequence[int],
    *,
    whole_chars: bool = True,
    palette: str = "default",
    max_tokens: int = MAX_DRAW_TOKENS,
    font_px: int | None = None,
    css: bool = True,
    unknown: "Sequence[tuple[int, str]]" = (),
) -> str:
    """The ids of a text as colored spans (at most ``max_tokens`` of them, with a note for the rest).

    ``whole_chars``: a character split across tokens is drawn once, in a box striped with its tokens'
    colors; otherwise each token shows its own bytes, the partial ones as hex chips (``E2 80``).
    ``unknown``: ``(index, text)`` of unknown tokens (:func:`unknown_pieces`), drawn with :func:`unknown_box`.
    """
    shown = list(ids[:max_tokens])
    spans = spans_from_ids(tok, shown)
    unk = dict(unknown)
    out = [SPAN_CSS, TOK_CSS] if css else []
    style = f' style="--bpe-font:{int(font_px)}px"' if font_px else ""
    out.append(f'<div class="bpe-tokens tokv-spans"{style}>')
    # <wbr> between boxes: lines wrap between tokens, not inside one (unless a token is wider than a line)
    boxes: list[str] = []
    index = 0
    for group in group_whole_chars(spans) if whole_chars else [[sp] for sp in spans]:
        if len(group) == 1:
            sp = group[0]
            boxes.append(unknown_box(sp, unk[index]) if index in unk else token_box(sp, palette))
        else:
            boxes.append(_group_box(group, palette))
        index += len(group)
    out.append("<wbr>".join(boxes))
    if out[-1].endswith("\n</span>"):  # the text's final line break: no empty line under the spans
        out[-1] = out[-1][: -len("\n</span>")] + "</span>"
    if len(ids) > len(shown):
        out.append(
            f'<span class="bpe-more"> … {len(ids) - len(shown):,} more tokens not drawn '
            f"(showing the first {len(shown):,} of {len(ids):,})</span>"
        )
    if not ids:
        out.append('<span class="bpe-more">(no tokens: the text is empty)</span>')
    out.append("</div>")
    return "".join(out)


def ids_list_html(ids: Sequence[int], *, palette: str = "default", max_ids: int = MAX_DRAW_TOKENS) -> str:
    """The ids as a colored list (same colors as the spans) in a scrolling box, at most ``max_ids``."""
    body = ids_html(list(ids[:max_ids]), palette=palette)
    more = f'<div class="bpe-more">… and {len(ids) - max_ids:,} more</div>' if len(ids) > max_ids else ""
    return TOK_CSS + f'<div class="tokv-ids">{body}</div>{more}'


def column_title_html(title: str, *, heading: bool = True) -> str:
    """A column's title that may be the user's (a file name, a trained run), escaped: as a heading sized like
    the registry columns' Markdown ``####``, or (``heading=False``) as the bold line over a trace.

    >>> column_title_html("<b>x</b>.json", heading=False)
    '<div class="tokv-title" style="font-weight:700">&lt;b&gt;x&lt;/b&gt;.json</div>'
    """
    if not heading:
        return f'<div class="tokv-title" style="font-weight:700">{html.escape(title, quote=True)}</div>'
    return (
        f'<h4 class="tokv-title" style="font-size:1.5rem;font-weight:600;line-height:1.2;'
        f'margin:0;padding:.75rem 0 .5rem 0;overflow-wrap:anywhere">{html.escape(title, quote=True)}</h4>'
    )


def facts_html(text: str, *, css_class: str = "tokv-special tokv-facts") -> str:
    """A line of facts under a column's title (a custom pattern's label is the user's regex: escaped),
    with the page's stylesheet."""
    return TOK_CSS + f'<div class="{css_class}">{html.escape(text, quote=True)}</div>'
