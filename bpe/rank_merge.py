"""tiktoken's merge rule, the hot loop of encoding with a ranks vocabulary.

The rule (:func:`bpe.merging.apply_ranks` writes it plainly): merge the neighbours whose concatenated bytes
form the lowest-ranked token, leftmost first, until no two neighbours form a token. Here the parts are ids
(a token's id is its rank) and their places in the chunk's bytes; the rank two neighbours make is the rank
of the chunk's bytes from the first one's start to the second one's end (one slice, one lookup). The
first round takes the ranks of two-byte tokens from a table indexed by the two bytes, without a slice.

Why slices and not a cache keyed by the two ids (``left << 20 | right``): measured on cold encodes
(every new chunk of a text that never repeats), most pairs are met once, and a miss of such a cache costs
more (a concatenation, three lookups in big dicts) than a slice and one lookup: the id-pair cache was ~15 %
slower on 1 MB of multilingual text and no faster on English.

Chunks longer than :data:`bpe.merging.LONG_CHUNK` bytes merge through the heap of
:func:`bpe.merging.merge_by_rank` (a rescan per merge would be quadratic).

A chunk that is not ASCII is first cut where no token can cross (:mod:`bpe.char_bounds`); its pieces are
merged apart, each distinct piece once (:attr:`RankMerge.pieces`): on 1 MB of eight languages that leaves
50 % (o200k_base) to 66 % (cl100k_base) fewer bytes to merge.

>>> merge = RankMerge({b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"bc": 4, b"abc": 5} | {bytes([i]): 6 + i for i in range(256) if i not in b"abc"})
>>> merge(b"abcab"), merge(b"cc"), merge.chunk_ids("abc")
([5, 3], [2, 2], (5,))
"""

from __future__ import annotations

from itertools import repeat
from operator import add
from typing import Mapping

from .char_bounds import Crossable
from .merging import _NO_RANK, LONG_CHUNK, apply_ranks, byte_pair_ranks

__all__ = ["RankMerge", "PIECES_SIZE", "ordinary_ranks"]

#: Pieces whose ids are remembered; the table is emptied when it grows past this.
PIECES_SIZE = 100_000


class _Pieces(dict[str, tuple[int, ...]]):
    """piece -> its ids under the rule alone (no whole-piece lookup: a piece is not a chunk)."""

    __slots__ = ("_merge",)

    def __init__(self, merge: RankMerge):
        super().__init__()
        self._merge = merge

    def __missing__(self, piece: str) -> tuple[int, ...]:
        if len(self) >= PIECES_SIZE:
            self.clear()
        ids = self[piece] = tuple(self._merge(piece.encode("utf-8")))
        return ids


class RankMerge:
    """``merge(data) -> ids``: tiktoken's rule on a chunk's bytes (without its whole-chunk lookup: that is
    :meth:`chunk_ids`), for the vocabulary ``ranks`` (token bytes -> rank = id)."""

    def __init__(self, ranks: Mapping[bytes, int]):
        self._ranks = ranks
        self._byte_ids = [ranks[bytes([b])] for b in range(256)]
        self._pair_table = byte_pair_ranks(ranks)
        self._cross = Crossable(ranks)
        self.pieces = _Pieces(self)

    def forget(self) -> None:
        """Forget the pieces merged and the boundaries judged (a cold start; the token tables stay)."""
        self.pieces.clear()
        self._cross.clear()

    def chunk_ids(self, chunk: str) -> tuple[int, ...]:
        """The ids of one pre-tokenizer chunk, as tiktoken gives them: the whole chunk if it is a token,
        else the rule."""
        whole = self._ranks.get(chunk.encode("utf-8"))
        return (whole,) if whole is not None else self.merged(chunk)

    def merged(self, chunk: str) -> tuple[int, ...]:
        """:meth:`chunk_ids` of a chunk that is not one token (the caller looked it up)."""
        data = chunk.encode("utf-8")
        if chunk.isascii():
            return tuple(self(data))
        held = list(map(self._cross.__getitem__, map(add, chunk, chunk[1:])))
        if False not in held:
            return tuple(self(data))
        out: list[int] = []
        pieces, index, start = self.pieces, held.index, 0
        while True:
            try:
                end = index(False, start) + 1
            except ValueError:
                break
            out += pieces[chunk[start:end]]
            start = end
        out += pieces[chunk[start:]]
        return tuple(out)

    def __call__(self, data: bytes) -> list[int]:
        """The ids of one chunk's bytes under the rule."""
        ids = list(map(self._byte_ids.__getitem__, data))
        if len(ids) < 2:
            return ids
        if len(ids) > LONG_CHUNK:
            return list(map(self._ranks.__getitem__, apply_ranks(data, self._ranks, self._pair_table)))
        table = self._pair_table
        ranks = [table[a << 8 | b] for a, b in zip(data, data[1:])]
        starts = list(range(len(data) + 1))  # where each part begins (and the end)
        rank_of = self._ranks.get
        k = len(ranks)
        while k:
            best = min(ranks)
            if best == _NO_RANK:
                break
            i = ranks.index(best)
            ids[i] = best
            del ids[i + 1]
            del ranks[i]
            del starts[i + 1]
            k -= 1
            if i:
                ranks[i - 1] = rank_of(data[starts[i - 1] : starts[i + 1]], _NO_RANK)
            if i < k:
                ranks[i] = rank_of(data[starts[i] : starts[i + 2]], _NO_RANK)
        return ids


def ordinary_ranks(
    ranks: Mapping[bytes, int], vocab: Mapping[int, bytes | str], special_ids: Mapping[int, str] | set[int]
) -> dict[bytes, int]:
    """``ranks`` (token bytes -> id, each id once) without the ids ``special_ids`` holds and the tokens that
    are not bytes: ``{t: i for i, t in vocab.items() if i not in special_ids and isinstance(t, bytes)}`` for a
    ``vocab`` made of ``ranks`` inverted and the special tokens, in C-level passes.

    >>> ordinary_ranks({b"a": 0, b"b": 1}, {0: b"a", 1: b"b"}, {1: "<s>"})
    {b'a': 0}
    """
    out = dict(ranks)
    for i in special_ids:
        token = vocab.get(i)
        if token is not None and out.get(token) == i:  # type: ignore[arg-type]
            del out[token]  # type: ignore[arg-type]
    if not all(map(isinstance, out, repeat(bytes))):
        out = {t: i for t, i in out.items() if isinstance(t, bytes)}
    return out
