"""Replaying a trained run on a piece of text, fast enough for a player step.

Encoding with the first ``k`` merges is the same as encoding with all of them and stopping early: the
merges an encoder applies come in rising rank order (a merge can only create pairs that hold its new
token, and every such pair was learned later). So each chunk is encoded **once**, recording every merge
it goes through as a node of a small forest: leaves are the base tokens, an inner node is made by merge
``r`` from its two children. At step ``k`` the tokens are exactly the nodes made before ``k`` whose parent
is made at ``k`` or later. A step is then a filter over a few thousand nodes, not an encode.

* :class:`MergeIndex`: a run's ``pair -> rank`` table and every token's bytes (built once per run);
* :func:`chunk_forest`: the forest of one chunk, merged by :func:`bpe.merging.merge_by_rank` (the
  tokenizer's heap), so a long chunk (no pre-tokenizer) costs ``n log n``, not ``n`` per merge;
* :class:`Replay`: a window of text encoded once; :meth:`Replay.tokens_at` gives ``(id, byte offset,
  special)`` at any step (the app turns them into drawn spans);
* :func:`heldout_token_counts`: the token count of another text after every number of merges (exact).

>>> import bpe
>>> run = bpe.train("aaabdaaabac", 258, pattern=None)
>>> rep = Replay.build(run, MergeIndex(run), "aaabdaaabac")
>>> [rep.count_at(k) for k in (0, 1, 2)]
[11, 9, 7]
>>> rep.tokens_at(2)[:3]
[(256, 0, False), (257, 2, False), (100, 4, False)]
"""

from __future__ import annotations

from array import array
from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence

from .corpus import special_splitter
from .merging import merge_by_rank
from .run import Run
from .splitting import pretokenize_pieces
from .visible import normalize_text

__all__ = ["MergeIndex", "chunk_forest", "Replay", "heldout_token_counts", "NEVER"]

#: "made at merge NEVER": the parent rank of a token that is never merged into anything.
NEVER = 1 << 40


class MergeIndex:
    """What replaying needs from a run: ``pair -> rank``, base-unit ids and each token's bytes.

    >>> import bpe
    >>> index = MergeIndex(bpe.train("abab", 257, pattern=None))
    >>> index.ranks, index.data(256)
    ({(97, 98): 0}, b'ab')
    """

    def __init__(self, run: Run):
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
        self.char_ids = {t: i for i, t in enumerate(run.base)} if run.level == "char" else {}
        #: char level with byte fallback (SentencePiece-style): the id of ``<0x00>``; byte ``b`` is this + ``b``
        #: (the 256 byte tokens follow the special tokens, see :meth:`bpe.Run.tokenizer`); None without
        self.fallback_first: int | None = run.vocab_size if run.byte_fallback else None
        self._splitter = special_splitter(list(self.special_ids))

    def data(self, token_id: int) -> bytes:
        """The bytes of any token id of the run (specials included; ``b""`` for an unknown id)."""
        if 0 <= token_id < len(self.token_bytes):
            return self.token_bytes[token_id]
        byte = self.fallback_byte(token_id)
        if byte is not None:
            return bytes([byte])
        return self.special_bytes.get(token_id, b"")

    def fallback_byte(self, token_id: int) -> int | None:
        """The byte a byte-fallback token ``<0xNN>`` stands for, or None when ``token_id`` is no such token.

        >>> import bpe
        >>> index = MergeIndex(bpe.train("ab ab", 6, family="sentencepiece"))
        >>> index.fallback_byte(index.fallback_first + 0xE2), index.fallback_byte(0)
        (226, None)
        """
        if self.fallback_first is None:
            return None
        b = token_id - self.fallback_first
        return b if 0 <= b < 256 else None

    def base_units(self, chunk: str) -> tuple[list[int], list[int]]:
        """(base ids, byte width of each): bytes at byte level, characters at char level.

        Characters a char-level alphabet lacks get id -1: they never merge and count as one token; with byte
        fallback (SentencePiece-style) they become their UTF-8 bytes, one ``<0xNN>`` token each, as
        :meth:`bpe.Tokenizer.encode` gives.

        >>> import bpe
        >>> MergeIndex(bpe.train("ab", 2, pattern=None, level="char")).base_units("abé")
        ([0, 1, -1], [1, 1, 2])
        >>> index = MergeIndex(bpe.train("ab", 3, family="sentencepiece"))
        >>> ids, widths = index.base_units("▁é")
        >>> [i - index.fallback_first for i in ids[1:]], widths
        ([195, 169], [3, 1, 1])
        """
        if self.level == "byte":
            raw = chunk.encode("utf-8")
            return list(raw), [1] * len(raw)
        get = self.char_ids.get
        if self.fallback_first is None:
            ids = [get(ch, -1) for ch in chunk]
            return ids, [len(ch.encode("utf-8")) for ch in chunk]
        ids, widths = [], []
        for ch in chunk:
            i = get(ch)
            data = ch.encode("utf-8")
            if i is None:
                ids.extend(self.fallback_first + b for b in data)
                widths.extend([1] * len(data))
            else:
                ids.append(i)
                widths.append(len(data))
        return ids, widths

    def pieces(self, text: str) -> list[tuple[str, bool]]:
        """``text`` cut at special-token strings: ``(piece, is_special)`` in order."""
        if self._splitter is None:
            return [(text, False)] if text else []
        out: list[tuple[str, bool]] = []
        pos = 0
        for m in self._splitter.finditer(text):
            if m.start() > pos:
                out.append((text[pos : m.start()], False))
            out.append((m.group(), True))
            pos = m.end()
        if pos < len(text):
            out.append((text[pos:], False))
        return out


def chunk_forest(
    ids: Sequence[int], ranks: dict[tuple[int, int], int], base_len: int, widths: Sequence[int] | None = None
) -> list[tuple[int, int, int, int, int]]:
    """Encode one chunk with every merge, keeping the history.

    Returns nodes ``(start, end, id, made_at, parent_made_at)``: offsets in bytes (``widths`` gives each
    base unit's byte width; 1 by default), ``made_at`` the merge rank that made the node (-1 for a base
    unit) and ``parent_made_at`` the rank of the merge that consumed it (:data:`NEVER` if none).

    >>> nodes = chunk_forest([97, 97, 97], {(97, 97): 0}, 256)
    >>> sorted((s, e, i, m) for s, e, i, m, _ in nodes)
    [(0, 1, 97, -1), (0, 2, 256, 0), (1, 2, 97, -1), (2, 3, 97, -1)]
    """
    n = len(ids)
    if widths is None:
        starts = list(range(n))
        ends = list(range(1, n + 1))
    else:
        starts, ends = [], []
        pos = 0
        for w in widths:
            starts.append(pos)
            pos += w
            ends.append(pos)
    tok_id = list(ids)
    made = [-1] * n
    parent = [NEVER] * n
    get = ranks.get

    def rank_of(a: int, b: int) -> int | None:
        return get((tok_id[a], tok_id[b]))

    def join(a: int, b: int, r: int) -> int:
        """Record the node merge ``r`` makes from nodes ``a`` and ``b``; the heap carries its index."""
        parent[a] = parent[b] = r
        starts.append(starts[a])
        ends.append(ends[b])
        tok_id.append(base_len + r)
        made.append(r)
        parent.append(NEVER)
        return len(tok_id) - 1

    if n > 1:
        merge_by_rank(range(n), rank_of, join)
    return list(zip(starts, ends, tok_id, made, parent))


@dataclass(frozen=True)
class Replay:
    """A text (a window of the training text) encoded once, ready to show at any merge step.

    Nodes are sorted by byte offset, longest first; the columns are parallel arrays.

    >>> import bpe
    >>> run = bpe.train("ab ab", 257, pattern="gpt2")
    >>> rep = Replay.build(run, MergeIndex(run), "ab ab")
    >>> rep.ids_at(0), rep.ids_at(1), sorted(rep.chunk_starts)
    ([97, 98, 32, 97, 98], [256, 32, 256], [2])
    """

    text: str
    index: MergeIndex
    start: array[int]  # byte offset of each node
    ids: array[int]
    made: array[int]  # merge rank that made the node (-1: base unit or special token)
    parent: array[int]  # merge rank that consumed it (NEVER: none)
    special: bytes  # 1 where the node is a special token
    chunk_starts: frozenset[int]  # byte offsets where a pre-tokenizer chunk (or a special token) starts
    n_bytes: int

    @classmethod
    def build(cls, run: Run, index: MergeIndex, text: str) -> "Replay":
        """Encode ``text`` (already normalized like the training text) with the run's pattern."""
        rows: list[tuple[int, int, int, int, int, bool]] = []
        chunk_starts: set[int] = set()
        memo: dict[str, list[Any]] = {}
        offset = 0
        cut = index.pieces(text)
        # one pre-tokenizer call (one time limit) for all the ordinary pieces
        chunked = iter(pretokenize_pieces([p for p, special in cut if not special], run.pattern))
        for piece, is_special in cut:
            if is_special:
                n = len(piece.encode("utf-8"))
                rows.append((offset, offset + n, index.special_ids[piece], -1, NEVER, True))
                if offset:
                    chunk_starts.add(offset)
                offset += n
                continue
            for chunk in next(chunked):
                nodes = memo.get(chunk)
                if nodes is None:
                    ids, widths = index.base_units(chunk)
                    nodes = memo[chunk] = chunk_forest(ids, index.ranks, index.base_len, widths)
                if offset:
                    chunk_starts.add(offset)
                rows.extend((offset + s, offset + e, i, m, p, False) for s, e, i, m, p in nodes)
                offset += len(chunk.encode("utf-8"))
        # sort by start, then longest first (stable: the choice at a step is unique anyway)
        rows.sort(key=lambda r: (r[0], -r[1]))
        start, _end, ids, made, parent, special = (list(col) for col in zip(*rows)) if rows else ([],) * 6
        return cls(
            text=text,
            index=index,
            start=array("q", start),
            ids=array("q", ids),
            made=array("q", made),
            parent=array("q", parent),
            special=bytes(special),
            chunk_starts=frozenset(chunk_starts),
            n_bytes=offset,
        )

    def tokens_at(self, k: int) -> list[tuple[int, int, bool]]:
        """``(id, byte offset, is special)`` of each token of the text after the first ``k`` merges."""
        return [
            (i, s, bool(sp))
            for i, s, sp, m, p in zip(self.ids, self.start, self.special, self.made, self.parent)
            if m < k <= p
        ]

    def ids_at(self, k: int) -> list[int]:
        """The token ids of the text after the first ``k`` merges."""
        return [i for i, m, p in zip(self.ids, self.made, self.parent) if m < k <= p]

    def count_at(self, k: int) -> int:
        """How many tokens the text has after the first ``k`` merges."""
        return sum(1 for m, p in zip(self.made, self.parent) if m < k <= p)


def heldout_token_counts(run: Run, index: MergeIndex, text: str) -> list[int]:
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
    cut = index.pieces(text)
    base_total += sum(1 for _, special in cut if special)
    for chunks in pretokenize_pieces([p for p, special in cut if not special], run.pattern):
        counts.update(chunks)
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
