"""What the Tokenize page's browser component (``components/tokenize_view``) is sent: compact data, never
HTML per token.

The browser holds the text (it is its text box), so a column needs only its **ids** and each token's **length
in UTF-8 bytes** of the text it encoded: from those and the text the browser finds every token's characters,
colours, whitespace marks, split characters and byte chips itself (``core.js``). A column whose tokenizer
changed the text first (NFC) also sends that text; unknown tokens (a char-level tokenizer's ``unk``) send the
characters they stand for.

An edit resends a **splice** of each column (:func:`splice`): the tokens that changed between the version the
browser has and the new one (a one-character edit of a 1 KB text: a few tokens a column), and nothing for a
column whose tokens did not change. What a column says about itself (title, facts, counts, the round trip)
is a small **head** of escaped HTML built from the page's own views (:func:`head_html`).

>>> tok = bpe.train("hello hello", 260, pattern=None).tokenizer()
>>> col = column_tokens(tok, encode_view(tok, "héllo"))
>>> list(col.lens[:3]), sum(col.lens) == len("héllo".encode())   # h, then é's two bytes (never seen in training)
([1, 1, 1], True)
>>> splice((1, 2, 3, 4), (1, 9, 9, 3, 4))
(1, 1, [9, 9])
"""

from __future__ import annotations

import html
from array import array
from dataclasses import dataclass, field
from typing import Sequence
from weakref import WeakKeyDictionary

import bpe

from .encoded import Encoded, encode_view
from .encoding_stats import specials_html, stats_html
from .theme import PALETTES
from .token_boxes import TOK_CSS, column_title_html, facts_html

__all__ = [
    "ColumnTokens",
    "column_tokens",
    "byte_lengths",
    "splice",
    "text_splice",
    "head_html",
    "compare_html",
    "palette_colors",
    "token_text",
    "encode_view",
]


def _array(values: Sequence[int] = ()) -> array:
    return array("I", values)


@dataclass(frozen=True)
class ColumnTokens:
    """One column's tokens as the browser draws them: ids, UTF-8 byte lengths, special-token indices,
    unknown tokens ``(index, characters)``, and the text encoded when the tokenizer changed it (else None).
    Ids and lengths are compact arrays (4 bytes an id, 1-4 a length: a session keeps a few versions of every
    column)."""

    ids: array = field(default_factory=_array)
    lens: array = field(default_factory=_array)
    special: tuple[int, ...] = ()
    unknown: tuple[tuple[int, str], ...] = ()
    text: str | None = None


def column_tokens(tok: bpe.Tokenizer, enc: Encoded, source_text: str | None = None) -> ColumnTokens:
    """``enc``'s tokens laid on its text: each token's byte length (an unknown token: its characters'), so that
    the lengths add up to the text's UTF-8 length.

    ``source_text``: the text the page holds; when the tokenizer encoded another (normalized) text, that text
    travels with the column.
    """
    ids = enc.ids
    lengths_of = byte_lengths(tok)
    lens = _array(map(lengths_of.__getitem__, ids))  # (C loops: ~0.2-0.7 s a 1 MB text as a Python loop)
    for index, piece in enc.unknown:
        lens[index] = len(piece.encode("utf-8"))
    specials = {i for i in set(ids) if tok.is_special(i)} if tok.special_tokens else set()
    unk = {index for index, _ in enc.unknown}
    special = [index for index, i in enumerate(ids) if i in specials and index not in unk] if specials else []
    text = None if source_text is None or enc.text == source_text else enc.text
    return ColumnTokens(_array(ids), lens, tuple(special), tuple(enc.unknown), text)


_LENGTHS: "WeakKeyDictionary[bpe.Tokenizer, dict[int, int]]" = WeakKeyDictionary()


def byte_lengths(tok: bpe.Tokenizer) -> dict[int, int]:
    """Every token's length in UTF-8 bytes, worked out once per tokenizer (a tokenizer never changes)."""
    lengths = _LENGTHS.get(tok)
    if lengths is None:
        lengths = _LENGTHS[tok] = {i: len(tok.token_bytes(i)) for i in tok.vocab}
    return lengths


def _common_prefix(a: "Sequence[int] | str", b: "Sequence[int] | str") -> int:
    """Length of the common prefix, compared a block at a time (tuple slices compare in C)."""
    n = min(len(a), len(b))
    i, step = 0, 64
    while i < n:
        j = min(n, i + step)
        if a[i:j] == b[i:j]:
            i = j
            step *= 2
        elif step > 1:
            step //= 2
        else:
            break
    return i


def text_splice(old: str, new: str) -> tuple[int, int, str]:
    """:func:`splice` for two strings: ``(at, deleted, inserted)``.

    >>> text_splice("hello world", "hello, world")
    (5, 0, ',')
    """
    at = _common_prefix(old, new)
    rest = min(len(old), len(new)) - at
    tail = _common_suffix(old, new, rest)
    return at, len(old) - at - tail, new[at : len(new) - tail]


def splice(old: Sequence[int], new: Sequence[int]) -> tuple[int, int, list[int]]:
    """``(at, deleted, inserted)``: ``new == old[:at] + inserted + old[at + deleted:]``, with the common prefix
    and suffix left out. ``old`` and ``new`` are sequences of one kind (tuples, arrays) that slice and compare.

    >>> splice((5, 6, 7), (5, 6, 7))
    (3, 0, [])
    >>> splice((), (1, 2))
    (0, 0, [1, 2])
    >>> splice(array("I", [1, 2, 3]), array("I", [1, 3]))
    (1, 1, [])
    """
    at = _common_prefix(old, new)
    rest = min(len(old), len(new)) - at
    tail = _common_suffix(old, new, rest)
    return at, len(old) - at - tail, list(new[at : len(new) - tail])


def _common_suffix(a, b, limit: int) -> int:
    """Length of the common suffix of ``a`` and ``b``, at most ``limit``, compared a block at a time."""
    i, step = 0, 64
    la, lb = len(a), len(b)
    while i < limit:
        j = min(limit, i + step)
        if a[la - j : la - i] == b[lb - j : lb - i]:
            i = j
            step *= 2
        elif step > 1:
            step //= 2
        else:
            break
    return i


def _strip_css(markup: str) -> str:
    return markup.replace(TOK_CSS, "")


def head_html(
    title: str,
    *,
    facts: str = "",
    enc: Encoded | None = None,
    foreign_specials: Sequence[str] = (),
    problem_html: str = "",
    help_text: str = "",
) -> str:
    """A column's head: title, facts line, then either ``problem_html`` (not installed, failed to load; escaped
    already) or the metric row and notes of ``enc`` (:func:`views.encoding_stats.stats_html`,
    :func:`~views.encoding_stats.specials_html`). Every user string is escaped; the stylesheet is the
    component's.

    >>> "&lt;b&gt;" in head_html("<b>x</b>.json")
    True
    """
    tip = f' title="{html.escape(help_text, quote=True)}"' if help_text else ""
    parts = [column_title_html(title).replace('<h4 class="tokv-title"', f'<h4 class="tokv-title"{tip}', 1)]
    if facts:
        parts.append(_strip_css(facts_html(facts)))
    if problem_html:
        parts.append(problem_html)
    elif enc is not None:
        parts.append(_strip_css(stats_html(enc)))
        parts.append(_strip_css(specials_html(enc, foreign_specials)))
    return "".join(parts)


def compare_html(rows: Sequence[tuple[str, Encoded, int]]) -> str:
    """The comparison under the columns: per tokenizer (title, encoding, vocabulary size) a bar as long as its
    token count, the count, characters and bytes per token -- a table, every title escaped.

    >>> e = Encoded("a", "xy", ids=(1, 2))
    >>> "<td" in compare_html([("<i>a</i>", e, 300)]) and "&lt;i&gt;" in compare_html([("<i>a</i>", e, 300)])
    True
    """
    ok = [(t, e, v) for t, e, v in rows if not e.error]
    if not ok:
        return ""
    most = max(e.n_tokens for _, e, _ in ok) or 1
    fewest = min(e.n_tokens for _, e, _ in ok)
    out = [
        # (shown on a phone only, where the table scrolls sideways: components/tokenize_view/tokenize.css)
        '<p class="tokv-compare-hint">Swipe the table sideways for more columns (bytes/token, special tokens, '
        "vocabulary) →</p>"
        '<table class="tokv-compare"><thead><tr><th>Tokenizer</th><th>Tokens</th><th>vs fewest</th>'
        "<th>Chars/token</th><th>Bytes/token</th><th>Special tokens</th><th>Vocabulary</th></tr></thead><tbody>"
    ]
    for title, e, vocab in ok:
        width = 75 * e.n_tokens / most  # (the longest bar leaves room for its count beside it)
        ratio = f"{e.n_tokens / fewest:.2f}×" if fewest else "–"
        out.append(
            f'<tr data-tokens="{e.n_tokens}" data-special="{e.special_count}">'
            f'<td class="tokv-cname">{html.escape(title, quote=True)}</td>'
            f'<td class="tokv-cbar"><span class="tokv-bar" style="width:{width:.1f}%"></span>'
            f'<span class="tokv-n">{e.n_tokens:,}</span></td><td>{ratio}</td>'
            f"<td>{e.chars_per_token:.2f}</td><td>{e.bytes_per_token:.2f}</td><td>{e.special_count:,}</td>"
            f"<td>{vocab:,}</td></tr>"
        )
    out.append("</tbody></table>")
    return "".join(out)


def palette_colors(palette: str) -> list[str]:
    """The palette's token colours, in the order :func:`views.theme.color_for` indexes them (the browser picks
    ``colors[crc32(str(id)) % len(colors)]``, the same colour as the server's views)."""
    return list(PALETTES.get(palette, PALETTES["default"]))


def token_text(text: str, tokens: ColumnTokens, index: int) -> str:
    """The characters of token ``index`` of a column laid on ``text`` (the text it encoded); a token holding
    only part of a character takes its neighbours until the characters are whole.

    >>> token_text("héllo", ColumnTokens((1, 2, 3, 4, 5), (1, 1, 1, 1, 2)), 2)
    'é'
    >>> token_text("héllo", ColumnTokens((1, 2, 3, 4, 5), (1, 1, 1, 1, 2)), 4)
    'lo'
    """
    data = text.encode("utf-8", "surrogatepass")
    start = sum(tokens.lens[:index])
    end = start + tokens.lens[index]
    while start > 0 and (data[start] & 0xC0) == 0x80:
        start -= 1
    while end < len(data) and (data[end] & 0xC0) == 0x80:
        end += 1
    return data[start:end].decode("utf-8", "replace")
