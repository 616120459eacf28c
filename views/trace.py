"""One chunk encoded merge by merge, as the Tokenize page shows it.

* :func:`trace_rows` turns a tokenizer's ``encode_trace`` into rows with readable descriptions;
* :func:`trace_html` draws them (the tokens after each merge, the new ones outlined);
* :func:`trace_order_note` says whether the merges went left to right (by rank, they need not);
* :func:`candidate_chunks` and :func:`default_chunk` offer chunks of a text to trace.

No Streamlit here; all user text is escaped.
"""
from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Sequence

import bpe

from .spans import SPAN_CSS, Span, token_label
from .token_boxes import TOK_CSS, token_box

__all__ = ["MAX_TRACE_BYTES", "TraceRow", "trace_rows", "trace_order_note", "trace_html", "candidate_chunks",
           "default_chunk", "token_trace_html"]

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
        rows.append(TraceRow(step=n, ids=st.ids, new_positions=tuple(st.positions), pair=st.pair,
                             new_id=st.new_id, rank=st.rank, description=desc, labels=labels))
    return rows


def trace_order_note(rows: Sequence[TraceRow]) -> str:
    """A sentence on the order of the merges: by rank, not left to right.

    >>> trace_order_note([TraceRow(0, (1, 2, 3)), TraceRow(1, (4, 3), (0,), (1, 2), 4, 0),
    ...                   TraceRow(2, (5,), (0,), (4, 3), 5, 1)])
    'Merges follow rank order and happen to go left to right here.'
    """
    firsts = [r.new_positions[0] for r in rows[1:] if r.pair is not None and r.new_positions]
    if len(firsts) < 2:
        return ("One merge or none: nothing to order." if len(firsts) < 1 else
                "A single merge builds this chunk.") if len(rows) < 3 else "Merges follow rank order."
    back = [(i + 2, firsts[i + 1]) for i in range(len(firsts) - 1) if firsts[i + 1] < firsts[i]]
    if not back:
        return "Merges follow rank order and happen to go left to right here."
    step, _ = back[0]
    return (f"Merges follow rank order, not reading order: step {step} merges further left than the step "
            f"before it. Each step merges the lowest-ranked pair anywhere in the chunk.")


def trace_html(tok: bpe.Tokenizer, chunk: str, *, palette: str = "default", max_steps: int = 80) -> str:
    """The trace of one chunk as a table: step, the tokens (new ones outlined), the merge."""
    data = chunk.encode("utf-8")
    if len(data) > MAX_TRACE_BYTES:
        return (TOK_CSS + f'<div class="bpe-more">This chunk is {len(data):,} bytes; traces are drawn for '
                f'chunks up to {MAX_TRACE_BYTES} bytes.</div>')
    rows = trace_rows(tok, chunk)
    parts = [SPAN_CSS, TOK_CSS, '<div class="tokv-trace">']
    if len(rows) > max_steps:
        shown: list[TraceRow | None] = [*rows[: max_steps - 1], None, rows[-1]]
    else:
        shown = list(rows)
    for row in shown:
        if row is None:
            parts.append(f'<div class="tokv-row"><span></span><span class="bpe-more">… '
                         f'{len(rows) - max_steps} steps not drawn</span></div>')
            continue
        new = set(row.new_positions) if row.step > 0 else set()
        boxes = []
        for pos, i in enumerate(row.ids):
            sp = Span(i, tok.token_bytes(i), 0, tok.is_special(i))
            boxes.append(token_box(sp, palette, ["bpe-new"] if pos in new else ()))
        parts.append(f'<div class="tokv-row" data-step="{row.step}"><span class="tokv-step">{row.step}</span>'
                     f'<div><div class="bpe-tokens">{"<wbr>".join(boxes)}</div>'
                     f'<div class="tokv-merge">{html.escape(row.description)}</div></div></div>')
    parts.append("</div>")
    return "".join(parts)


def candidate_chunks(text: str, pattern="gpt4", *, limit: int = 300, scan_chars: int = 20_000) -> list[str]:
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


def token_trace_html(piece: str, columns: Sequence[tuple[str, bpe.Tokenizer]], *, clicked: str = "",
                     palette: str = "default", max_chunks: int = 4) -> str:
    """How every tokenizer on the page builds ``piece`` (the characters of a clicked token), merge by merge: per
    column its title, then each of its pre-tokenizer chunks traced (:func:`trace_html`); the tokenizer clicked
    (``clicked``, a title) first. Everything escaped; no stylesheet (the Tokenize view has it).

    >>> tok = bpe.train("hello hello", 260, pattern=None).tokenizer()
    >>> out = token_trace_html("hello", [("<i>t</i>", tok)])
    >>> "&lt;i&gt;t&lt;/i&gt;" in out and 'data-step="0"' in out
    True
    """
    ordered = sorted(columns, key=lambda c: c[0] != clicked)
    shown = html.escape("".join(_VISIBLE.get(c, c) for c in piece), quote=True)
    parts = [f'<div class="tkz-trace-head">How each tokenizer builds “<b>{shown}</b>”, merge by merge '
             f"(the lowest-ranked pair first, anywhere in the chunk):</div>"]
    for title, tok in ordered:
        parts.append(f'<div class="tkz-trace-col"><div class="tkz-trace-title">{html.escape(title, quote=True)}</div>')
        if piece in tok.special_tokens:
            parts.append(f'<div class="tokv-special">A special token of this vocabulary: one reserved id '
                         f'({tok.special_tokens[piece]}), never built by merges.</div></div>')
            continue
        try:
            pieces = tok.chunks(piece)
        except ValueError as exc:
            parts.append(f'<div class="tokv-bad">{html.escape(str(exc), quote=True)}</div></div>')
            continue
        if len(pieces) > 1:
            parts.append(f'<div class="tokv-special">Cut into {len(pieces)} chunks by its pre-tokenizer; merges never '
                         f'cross a chunk boundary.</div>')
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
