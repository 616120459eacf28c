"""One chunk encoded merge by merge, as the Tokenize page shows it.

* :func:`trace_rows` turns a tokenizer's ``encode_trace`` into rows with readable descriptions;
* :func:`trace_html` draws them (the tokens after each merge, the new ones outlined);
* :func:`trace_order_note` says whether the merges went left to right (by rank, they need not);
* :func:`candidate_chunks` and :func:`default_chunk` offer chunks of a text to trace.

No Streamlit here; all user text is escaped.
"""

from __future__ import annotations

import html
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Sequence

import bpe

from .spans import SPAN_CSS, Span, token_label
from .token_boxes import TOK_CSS, token_box
from .words import count_of

__all__ = [
    "MAX_TRACE_BYTES",
    "TraceRow",
    "trace_rows",
    "trace_order_note",
    "trace_summary",
    "trace_html",
    "candidate_chunks",
    "SCAN_CHARS",
    "default_chunk",
    "token_trace_html",
    "covering_trace_html",
    "covering_pieces",
]

#: Longest chunk (bytes) the page traces merge by merge.
MAX_TRACE_BYTES = 256


@dataclass(frozen=True)
class TraceRow:
    """One line of a trace: the tokens after a merge (step 0: the base tokens)."""

    step: int
    ids: tuple[int, ...]
    new_positions: tuple[int, ...] = ()
    pair: tuple[int, int] | None = None
    new_id: int | None = None
    rank: int | None = None
    description: str = ""
    labels: tuple[str, ...] = field(default=())


def trace_rows(tok: bpe.Tokenizer, chunk: str) -> list[TraceRow]:
    """The trace of one chunk as rows with readable descriptions (``"·t" + "he" → id 1234``).

    The chunk should be one pre-tokenizer chunk of ``tok`` (see :func:`bpe.pretokenize`).
    """
    steps = tok.encode_trace(chunk)
    rows: list[TraceRow] = []
    for n, st in enumerate(steps):
        labels = tuple(token_label(tok.token_bytes(i)) for i in st.ids)
        if st.pair is None and n == 0:
            desc = f"start: {len(st.ids)} base token{'s' if len(st.ids) != 1 else ''}"
        elif st.pair is None:
            desc = f"the whole chunk is one vocabulary entry: id {st.new_id} (tiktoken looks it up first)"
        else:
            a, b = st.pair
            la = token_label(tok.token_bytes(a))
            lb = token_label(tok.token_bytes(b))
            times = len(st.positions)
            desc = f"“{la}” + “{lb}” → id {st.new_id}"
            if tok.mode == "merges":
                desc += f" (merge #{st.rank + 1})"
            else:
                desc += f" (rank {st.rank:,})"
            if times > 1:
                desc += f", {times}×"
        rows.append(
            TraceRow(
                step=n,
                ids=st.ids,
                new_positions=tuple(st.positions),
                pair=st.pair,
                new_id=st.new_id,
                rank=st.rank,
                description=desc,
                labels=labels,
            )
        )
    return rows


def trace_order_note(rows: Sequence[TraceRow]) -> str:
    """A sentence on the order of the merges: by rank, not left to right.

    >>> trace_order_note([TraceRow(0, (1, 2, 3)), TraceRow(1, (4, 3), (0,), (1, 2), 4, 0),
    ...                   TraceRow(2, (5,), (0,), (4, 3), 5, 1)])
    'Merges follow rank order and happen to go left to right here.'
    """
    firsts = [r.new_positions[0] for r in rows[1:] if r.pair is not None and r.new_positions]
    if len(firsts) < 2:
        return (
            ("One merge or none: nothing to order." if len(firsts) < 1 else "A single merge builds this chunk.")
            if len(rows) < 3
            else "Merges follow rank order."
        )
    back = [(i + 2, firsts[i + 1]) for i in range(len(firsts) - 1) if firsts[i + 1] < firsts[i]]
    if not back:
        return "Merges follow rank order and happen to go left to right here."
    step, _ = back[0]
    return (
        f"Merges follow rank order, not reading order: step {step} merges further left than the step "
        f"before it. Each step merges the lowest-ranked pair anywhere in the chunk."
    )


def trace_summary(rows: Sequence[TraceRow]) -> str:
    """The caption under a chunk's trace, in words (issue 14: "0 steps: One merge or none: nothing to order.").

    >>> trace_summary([TraceRow(0, (1,))])
    'Already one token: nothing to merge.'
    >>> trace_summary([TraceRow(0, (1, 2, 3))])
    'No merge applies: this tokenizer joins none of these pairs, so the chunk stays 3 base tokens.'
    >>> trace_summary([TraceRow(0, (1, 2)), TraceRow(1, (7,), (0,), (1, 2), 7, 0)])
    '1 step: a single merge joins the 2 base tokens into 1 token.'
    >>> trace_summary([TraceRow(0, (1, 2)), TraceRow(1, (9,), new_id=9)])
    'Looked up whole: the chunk is one vocabulary entry (id 9), no merge needed.'
    """
    merges = [r for r in rows[1:] if r.pair is not None]
    base, final = len(rows[0].ids), len(rows[-1].ids)
    lookup = next((r for r in rows[1:] if r.pair is None), None)
    if lookup is not None:
        return f"Looked up whole: the chunk is one vocabulary entry (id {lookup.new_id}), no merge needed."
    if not merges:
        if base == 1:
            return "Already one token: nothing to merge."
        stays = count_of(base, "base token")
        return f"No merge applies: this tokenizer joins none of these pairs, so the chunk stays {stays}."
    if len(merges) == 1:
        return f"1 step: a single merge joins the {count_of(base, 'base token')} into {count_of(final, 'token')}."
    return (
        f"{count_of(len(merges), 'step')}: {count_of(base, 'base token')} become {count_of(final, 'token')}. "
        + trace_order_note(rows)
    )


def trace_html(tok: bpe.Tokenizer, chunk: str, *, palette: str = "default", max_steps: int = 80) -> str:
    """The trace of one chunk as a table: step, the tokens (new ones outlined), the merge."""
    data = chunk.encode("utf-8")
    if len(data) > MAX_TRACE_BYTES:
        return (
            TOK_CSS + f'<div class="bpe-more">This chunk is {len(data):,} bytes; traces are drawn for '
            f"chunks up to {MAX_TRACE_BYTES} bytes.</div>"
        )
    rows = trace_rows(tok, chunk)
    parts = [SPAN_CSS, TOK_CSS, '<div class="tokv-trace">']
    if len(rows) > max_steps:
        shown: list[TraceRow | None] = [*rows[: max_steps - 1], None, rows[-1]]
    else:
        shown = list(rows)
    for row in shown:
        if row is None:
            parts.append(
                f'<div class="tokv-row"><span></span><span class="bpe-more">… '
                f"{len(rows) - max_steps} steps not drawn</span></div>"
            )
            continue
        new = set(row.new_positions) if row.step > 0 else set()
        boxes = []
        for pos, i in enumerate(row.ids):
            sp = Span(i, tok.token_bytes(i), 0, tok.is_special(i))
            boxes.append(token_box(sp, palette, ["bpe-new"] if pos in new else ()))
        parts.append(
            f'<div class="tokv-row" data-step="{row.step}"><span class="tokv-step">{row.step}</span>'
            f'<div><div class="bpe-tokens">{"<wbr>".join(boxes)}</div>'
            f'<div class="tokv-merge">{html.escape(row.description)}</div></div></div>'
        )
    parts.append("</div>")
    return "".join(parts)


#: characters of a text the chunk picker reads (the first ones: a big text's chunks are not all offered)
SCAN_CHARS = 20_000


def candidate_chunks(text: str, pattern="gpt4", *, limit: int = 300, scan_chars: int = SCAN_CHARS) -> list[str]:
    """Distinct pre-tokenizer chunks of (the start of) a text, in order of appearance, for the trace picker.

    Only chunks with at least two bytes (one byte has nothing to merge).

    >>> candidate_chunks("the cat, the hat")
    ['the', ' cat', ' the', ' hat']
    """
    seen: dict[str, None] = {}
    for c in bpe.pretokenize(text[:scan_chars], pattern):
        if len(c.encode("utf-8")) >= 2 and c not in seen and len(c.encode("utf-8")) <= MAX_TRACE_BYTES:
            seen[c] = None
            if len(seen) >= limit:
                break
    return list(seen)


def default_chunk(chunks: Sequence[str]) -> str | None:
    """A good first chunk to trace: the longest one made of letters (first on ties), else the longest."""
    if not chunks:
        return None
    wordy = [c for c in chunks if any(ch.isalpha() for ch in c) and len(c.encode("utf-8")) <= 32]
    pool = wordy or list(chunks)
    return max(pool, key=lambda c: len(c.encode("utf-8")))


def token_trace_html(
    piece: str,
    columns: Sequence[tuple[str, bpe.Tokenizer]],
    *,
    clicked: str = "",
    palette: str = "default",
    max_chunks: int = 4,
) -> str:
    """How every tokenizer on the page builds ``piece`` (the same characters in every column), merge by merge: per
    column its title, then each of its pre-tokenizer chunks traced (:func:`trace_html`); the tokenizer clicked
    (``clicked``, a title) first. Everything escaped; no stylesheet (the Tokenize view has it). The page traces
    each column's own tokens instead (:func:`covering_trace_html`).

    >>> tok = bpe.train("hello hello", 260, pattern=None).tokenizer()
    >>> out = token_trace_html("hello", [("<i>t</i>", tok)])
    >>> "&lt;i&gt;t&lt;/i&gt;" in out and 'data-step="0"' in out
    True
    """
    ordered = sorted(columns, key=lambda c: c[0] != clicked)
    parts = [
        f'<div class="tkz-trace-head">How each tokenizer builds “<b>{_shown(piece)}</b>”, merge by merge '
        f"(the lowest-ranked pair first, anywhere in the chunk):</div>"
    ]
    parts += [_column_trace(title, tok, piece, palette, max_chunks) for title, tok in ordered]
    return "".join(parts)


def covering_trace_html(
    clicked_piece: str,
    columns: Sequence[tuple[str, bpe.Tokenizer, str, int]],
    *,
    clicked: str = "",
    palette: str = "default",
    max_chunks: int = 4,
) -> str:
    """The answer to a click on a token (``clicked_piece``, in the column titled ``clicked``): for every column
    ``(title, tokenizer, piece, n)`` the ``n`` tokens of its own that cover those characters (their characters
    ``piece``; n = 0: the column could not be laid on the page's text, so ``piece`` is the clicked one) and how
    that tokenizer builds them, merge by merge. The clicked column first. Everything escaped.

    >>> tok = bpe.train("hello hello", 260, pattern=None).tokenizer()
    >>> out = covering_trace_html("l", [("a", tok, "l", 1), ("b", tok, "hello", 1)], clicked="a")
    >>> "“<b>l</b>”" in out and "1 token: “hello”" in out
    True
    """
    ordered = sorted(columns, key=lambda c: c[0] != clicked)
    parts = [
        f'<div class="tkz-trace-head">The characters “<b>{_shown(clicked_piece)}</b>” in each column: the '
        f"token(s) that cover them, and how that tokenizer builds them, merge by merge (the lowest-ranked pair "
        f"first, anywhere in the chunk):</div>"
    ]
    for title, tok, piece, n in ordered:
        if n:
            said = f"{n:,} token{'s' if n != 1 else ''}: “{_shown(piece)}”"
        else:
            said = (
                f"the clicked “{_shown(piece)}” (its tokens are not laid on the same characters: a tokenizer "
                f"here changes the text first, e.g. NFC)"
            )
        parts.append(_column_trace(title, tok, piece, palette, max_chunks, said=said))
    return "".join(parts)


def covering_pieces(
    text: str,
    clicked: tuple[str | None, Sequence[int]],
    index: int,
    columns: Sequence[tuple[str | None, Sequence[int]]],
) -> list[tuple[str, int] | None]:
    """Which tokens of each column cover the characters of token ``index`` of the ``clicked`` column: per
    column ``(its characters, how many tokens)``, or None for a column not laid on ``text``.

    A column is ``(the text it encoded when the tokenizer changed the page's text, else None; its tokens'
    UTF-8 byte lengths)``. The clicked token's bytes are widened to whole characters (a token holding part
    of a character), then every token of a column overlapping them is taken. A clicked column with a text of
    its own: its token's characters only, no other column is laid on them (all None).

    >>> covering_pieces("a Family", (None, [1, 1, 1, 1, 1, 1, 1, 1]), 4, [(None, [1, 7]), (None, [1, 1, 6])])
    [(' Family', 1), ('Family', 1)]
    >>> covering_pieces("né", (None, [1, 1, 1]), 1, [(None, [1, 2])])     # é is 2 bytes: one clicked, both taken
    [('é', 1)]
    """
    own, lens = clicked
    if own is not None:
        return [None] * len(columns)
    data = text.encode("utf-8", "surrogatepass")
    offsets = list(accumulate(lens, initial=0))
    start, end = offsets[index], offsets[index + 1]
    while start > 0 and (data[start] & 0xC0) == 0x80:
        start -= 1
    while end < len(data) and (data[end] & 0xC0) == 0x80:
        end += 1
    out: list[tuple[str, int] | None] = []
    for own_text, col_lens in columns:
        ends = list(accumulate(col_lens))
        if own_text is not None or not ends or ends[-1] != len(data):
            out.append(None)
            continue
        first = bisect_right(ends, start)  # the first token ending after start
        last = bisect_left(ends, end) + 1  # through the token that reaches end
        lo = ends[first - 1] if first else 0
        hi = ends[min(last, len(ends)) - 1]
        out.append((data[lo:hi].decode("utf-8", "replace"), min(last, len(ends)) - first))
    return out


def _shown(piece: str) -> str:
    return html.escape("".join(_VISIBLE.get(c, c) for c in piece), quote=True)


def _column_trace(title: str, tok: bpe.Tokenizer, piece: str, palette: str, max_chunks: int, *, said: str = "") -> str:
    parts = [
        f'<div class="tkz-trace-col"><div class="tkz-trace-title">{html.escape(title, quote=True)}</div>'
        + (f'<div class="tkz-trace-covers">{said}</div>' if said else "")
    ]
    if piece in tok.special_tokens:
        parts.append(
            f'<div class="tokv-special">A special token of this vocabulary: one reserved id '
            f"({tok.special_tokens[piece]}), never built by merges.</div></div>"
        )
        return "".join(parts)
    try:
        pieces = tok.chunks(piece)
    except ValueError as exc:
        parts.append(f'<div class="tokv-bad">{html.escape(str(exc), quote=True)}</div></div>')
        return "".join(parts)
    if len(pieces) > 1:
        parts.append(
            f'<div class="tokv-special">Cut into {len(pieces)} chunks by its pre-tokenizer; merges never '
            f"cross a chunk boundary.</div>"
        )
    for chunk in pieces[:max_chunks]:
        try:
            parts.append(_no_css(trace_html(tok, chunk, palette=palette, max_steps=40)))
        except ValueError as exc:
            parts.append(f'<div class="tokv-bad">{html.escape(str(exc), quote=True)}</div>')
    if len(pieces) > max_chunks:
        parts.append(f'<div class="bpe-more">… {len(pieces) - max_chunks} more chunks not traced.</div>')
    parts.append("</div>")
    return "".join(parts)


_VISIBLE = {" ": "·", "\t": "→", "\n": "↵"}


def _no_css(markup: str) -> str:
    return markup.replace(SPAN_CSS, "").replace(TOK_CSS, "")
