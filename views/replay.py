"""Replaying a trained run on a piece of text, fast enough for a player step.

Encoding with the first ``k`` merges is the same as encoding with all of them and stopping early: the
merges an encoder applies come in rising rank order (a merge can only create pairs that hold its new
token, and every such pair was learned later). So each chunk is encoded **once**, recording every merge
it goes through as a node of a small forest: leaves are the base tokens, an inner node is made by merge
``r`` from its two children. At step ``k`` the tokens are exactly the nodes made before ``k`` whose parent
is made at ``k`` or later. A step is then a mask over a few thousand nodes, not an encode.

* :class:`MergeIndex`: a run's ``pair -> rank`` table and every token's bytes (built once per run);
* :func:`chunk_forest`: the forest of one chunk (a heap of ``(rank, position)`` with lazy deletion, so a
  long chunk -- no pre-tokenizer -- costs ``n log n``, not ``n`` per merge);
* :class:`Replay`: a window of text, ready to give its :class:`views.spans.Span` list at any step;
* :func:`heldout_token_counts`: the token count of another text after every number of merges (exact).

Nothing here imports Streamlit.

>>> import bpe
>>> run = bpe.train("aaabdaaabac", 258, pattern=None)
>>> rep = Replay.build(run, MergeIndex(run), "aaabdaaabac")
>>> [len(rep.spans_at(k)) for k in (0, 1, 2)]
[11, 9, 7]
"""
from __future__ import annotations

import heapq
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from bpe.corpus import special_splitter
from bpe.patterns import chunk_texts
from bpe.visible import normalize_text

from .spans import Span

__all__ = ["MergeIndex", "chunk_forest", "Replay", "heldout_token_counts", "NEVER"]

#: "made at merge NEVER": the parent rank of a token that is never merged into anything.
NEVER = 1 << 40


class MergeIndex:
    """What replaying needs from a run: ``pair -> rank``, base-unit ids and each token's bytes."""

    def __init__(self, run):
        self.run = run
        self.level = run.level
        self.base_len = len(run.base)
        self.ranks: dict[tuple[int, int], int] = {m.pair: m.rank for m in run.merges}
        self.n_merges = len(run.merges)
        data: list[bytes] = []
        for t in run.base:
            data.append(t if isinstance(t, bytes) else t.encode("utf-8"))
        for m in run.merges:
            data.append(m.token if isinstance(m.token, bytes) else m.token.encode("utf-8"))
        self.special_ids: dict[str, int] = dict(run.special_tokens)
        self.token_bytes: list[bytes] = data
        self.special_bytes: dict[int, bytes] = {i: s.encode("utf-8") for s, i in self.special_ids.items()}
        self.char_ids = ({t: i for i, t in enumerate(run.base)} if run.level == "char" else {})
        self._splitter = special_splitter(list(self.special_ids))

    def data(self, token_id: int) -> bytes:
        if 0 <= token_id < len(self.token_bytes):
            return self.token_bytes[token_id]
        return self.special_bytes.get(token_id, b"")

    def base_units(self, chunk: str) -> tuple[list[int], list[int]]:
        """(base ids, byte width of each): bytes at byte level, characters at char level.

        Characters a char-level alphabet lacks get id -1: they never merge and count as one token.
        """
        if self.level == "byte":
            raw = chunk.encode("utf-8")
            return list(raw), [1] * len(raw)
        ids = [self.char_ids.get(ch, -1) for ch in chunk]
        return ids, [len(ch.encode("utf-8")) for ch in chunk]

    def pieces(self, text: str) -> list[tuple[str, bool]]:
        """``text`` cut at special-token strings: ``(piece, is_special)`` in order."""
        if self._splitter is None:
            return [(text, False)] if text else []
        out: list[tuple[str, bool]] = []
        pos = 0
        for m in self._splitter.finditer(text):
            if m.start() > pos:
                out.append((text[pos:m.start()], False))
            out.append((m.group(), True))
            pos = m.end()
        if pos < len(text):
            out.append((text[pos:], False))
        return out


def chunk_forest(ids: Sequence[int], ranks: dict, base_len: int,
                 widths: Sequence[int] | None = None) -> list[tuple[int, int, int, int, int]]:
    """Encode one chunk with every merge, keeping the history.

    Returns nodes ``(start, end, id, made_at, parent_made_at)``: offsets in bytes (``widths`` gives each
    base unit's byte width; 1 by default), ``made_at`` the merge rank that made the node (-1 for a base
    unit) and ``parent_made_at`` the rank of the merge that consumed it (:data:`NEVER` if none).

    >>> nodes = chunk_forest([97, 97, 97], {(97, 97): 0}, 256)
    >>> sorted((s, e, i, m) for s, e, i, m, _ in nodes)
    [(0, 1, 97, -1), (0, 2, 256, 0), (1, 2, 97, -1), (2, 3, 97, -1)]
    """
    n = len(ids)
    starts: list[int] = []
    ends: list[int] = []
    pos = 0
    if widths is None:
        starts = list(range(n))
        ends = list(range(1, n + 1))
    else:
        for w in widths:
            starts.append(pos)
            pos += w
            ends.append(pos)
    tok_id = list(ids)
    made = [-1] * n
    parent = [NEVER] * n
    if n < 2:
        return list(zip(starts, ends, tok_id, made, parent))
    cur = list(ids)                 # token id at each live position
    node_at = list(range(n))        # node index at each live position
    nxt = list(range(1, n + 1))
    nxt[-1] = -1
    prv = list(range(-1, n - 1))
    alive = [True] * n
    get = ranks.get
    heap = []
    for i in range(n - 1):
        r = get((cur[i], cur[i + 1]))
        if r is not None:
            heap.append((r, i))
    if not heap:
        return list(zip(starts, ends, tok_id, made, parent))
    heapq.heapify(heap)
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        r, i = pop(heap)
        if not alive[i]:
            continue
        j = nxt[i]
        if j < 0 or get((cur[i], cur[j])) != r:
            continue
        new = base_len + r
        a, b = node_at[i], node_at[j]
        parent[a] = r
        parent[b] = r
        node_at[i] = len(tok_id)
        starts.append(starts[a])
        ends.append(ends[b])
        tok_id.append(new)
        made.append(r)
        parent.append(NEVER)
        cur[i] = new
        alive[j] = False
        nj = nxt[j]
        nxt[i] = nj
        if nj >= 0:
            prv[nj] = i
            r2 = get((new, cur[nj]))
            if r2 is not None:
                push(heap, (r2, i))
        p = prv[i]
        if p >= 0:
            r2 = get((cur[p], new))
            if r2 is not None:
                push(heap, (r2, p))
    return list(zip(starts, ends, tok_id, made, parent))


@dataclass(frozen=True)
class Replay:
    """A text (a window of the training text) encoded once, ready to show at any merge step."""

    text: str
    index: MergeIndex
    start: np.ndarray      # byte offset of each node, nodes sorted by start
    ids: np.ndarray
    made: np.ndarray
    parent: np.ndarray
    special: np.ndarray    # bool
    chunk_starts: frozenset  # byte offsets where a pre-tokenizer chunk (or a special token) starts
    n_bytes: int

    @classmethod
    def build(cls, run, index: MergeIndex, text: str) -> "Replay":
        """Encode ``text`` (already normalized like the training text) with the run's pattern."""
        rows: list[tuple[int, int, int, int, int, bool]] = []
        chunk_starts: set[int] = set()
        memo: dict[str, list] = {}
        offset = 0
        for piece, is_special in index.pieces(text):
            if is_special:
                sid = index.special_ids[piece]
                n = len(piece.encode("utf-8"))
                rows.append((offset, offset + n, sid, -1, NEVER, True))
                if offset:
                    chunk_starts.add(offset)
                offset += n
                continue
            for chunk in chunk_texts(piece, run.pattern):
                nodes = memo.get(chunk)
                if nodes is None:
                    ids, widths = index.base_units(chunk)
                    nodes = chunk_forest(ids, index.ranks, index.base_len, widths)
                    memo[chunk] = nodes
                if offset:
                    chunk_starts.add(offset)
                for s, e, i, m, p in nodes:
                    rows.append((offset + s, offset + e, i, m, p, False))
                offset += len(chunk.encode("utf-8"))
        # sort by start, then longest first (stable: the choice at a step is unique anyway)
        rows.sort(key=lambda r: (r[0], -r[1]))
        if rows:
            start, _end, ids, made, parent, special = (np.array(col) for col in zip(*rows))
        else:
            start = ids = made = parent = np.zeros(0, dtype=np.int64)
            special = np.zeros(0, dtype=bool)
        return cls(text=text, index=index, start=start.astype(np.int64), ids=ids.astype(np.int64),
                   made=made.astype(np.int64), parent=parent.astype(np.int64), special=special.astype(bool),
                   chunk_starts=frozenset(chunk_starts), n_bytes=offset)

    def mask_at(self, k: int) -> np.ndarray:
        return (self.made < k) & (self.parent >= k)

    def ids_at(self, k: int) -> list[int]:
        """The token ids of the text after the first ``k`` merges."""
        return self.ids[self.mask_at(k)].tolist()

    def spans_at(self, k: int) -> list[Span]:
        """The text's tokens after the first ``k`` merges, as spans (byte offsets within the text)."""
        m = self.mask_at(k)
        data = self.index.data
        return [Span(i, data(i), s, sp) for i, s, sp in
                zip(self.ids[m].tolist(), self.start[m].tolist(), self.special[m].tolist())]

    def count_at(self, k: int) -> int:
        return int(self.mask_at(k).sum())


def heldout_token_counts(run, index: MergeIndex, text: str) -> list[int]:
    """Tokens in ``text`` after 0, 1, ..., ``len(run.merges)`` merges (exact, one encode).

    Special-token strings count as one token each (allowed specials); at char level, characters the
    alphabet lacks count as one token each.

    >>> import bpe
    >>> run = bpe.train("aaabdaaabac", 258, pattern=None)
    >>> heldout_token_counts(run, MergeIndex(run), "aaab")
    [4, 3, 2]
    """
    text = normalize_text(text, run.normalize)
    n = len(run.merges)
    drops = [0] * (n + 1)
    base_total = 0
    counts: Counter[str] = Counter()
    for piece, is_special in index.pieces(text):
        if is_special:
            base_total += 1
            continue
        counts.update(chunk_texts(piece, run.pattern))
    for chunk, w in counts.items():
        ids, _ = index.base_units(chunk)
        base_total += len(ids) * w
        for _s, _e, _i, made, _p in chunk_forest(ids, index.ranks, index.base_len):
            if made >= 0:
                drops[made + 1] += w
    out = []
    total = base_total
    for k in range(n + 1):
        total -= drops[k]
        out.append(total)
    return out
