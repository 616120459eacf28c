"""tiktoken's merge rule on integer ids: the hot loop of encoding with a ranks vocabulary.

The rule (:func:`bpe.merging.apply_ranks` writes it on bytes): merge the neighbours whose concatenated bytes
form the lowest-ranked token, leftmost first, until no two neighbours form a token. Here the parts are ids
(a token's id is its rank), and the rank two neighbours make is looked up by one integer key,
``left << shift | right``, in :class:`PairRanks`: a dict that concatenates the two tokens' bytes only the
first time it meets a pair, so the loop itself builds and hashes no bytes. The first round takes the ranks
of two-byte tokens from a table indexed by the two bytes; chunks longer than
:data:`bpe.merging.LONG_CHUNK` bytes merge through the heap of :func:`bpe.merging.merge_by_rank`.

>>> merge = RankMerge({b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"bc": 4, b"abc": 5} | {bytes([i]): 6 + i for i in range(256) if i not in b"abc"})
>>> merge(b"abcab"), merge(b"cc")
([5, 3], [2, 2])
"""
from __future__ import annotations

from typing import Mapping

from .merging import _NO_RANK, LONG_CHUNK, byte_pair_ranks, merge_by_rank

__all__ = ["PairRanks", "RankMerge", "MAX_PAIRS"]

#: Pairs :class:`PairRanks` remembers before it starts again (~100 bytes each).
MAX_PAIRS = 2_000_000


class PairRanks(dict[int, int]):
    """``left << shift | right`` -> the rank of the token the two tokens' bytes make (:data:`_NO_RANK`: none),
    found on a miss (``__missing__``), so a hit costs one C-level lookup.

    >>> pr = PairRanks({b"a": 0, b"b": 1, b"ab": 2}, {0: b"a", 1: b"b", 2: b"ab"}, 20)
    >>> pr[0 << 20 | 1], pr[1 << 20 | 0] == _NO_RANK, len(pr)
    (2, True, 2)
    """

    __slots__ = ("_ranks", "_bytes", "_shift", "_mask")

    def __init__(self, ranks: Mapping[bytes, int], token_bytes: Mapping[int, bytes], shift: int):
        super().__init__()
        self._ranks, self._bytes, self._shift, self._mask = ranks, token_bytes, shift, (1 << shift) - 1

    def __missing__(self, key: int) -> int:
        tb = self._bytes
        rank = self[key] = self._ranks.get(tb[key >> self._shift] + tb[key & self._mask], _NO_RANK)
        return rank


class RankMerge:
    """``merge(data) -> ids``: tiktoken's rule on a chunk's bytes (without its whole-chunk lookup, which is
    the caller's), for the vocabulary ``ranks`` (token bytes -> rank = id)."""

    def __init__(self, ranks: Mapping[bytes, int], token_bytes: Mapping[int, bytes] | None = None):
        self._ranks = ranks
        if token_bytes is None:
            token_bytes = {r: t for t, r in ranks.items()}
        self._shift = max(20, max(ranks.values(), default=0).bit_length())
        self._byte_ids = [ranks[bytes([b])] for b in range(256)]
        self._pair_table = byte_pair_ranks(ranks)
        self._pairs = PairRanks(ranks, token_bytes, self._shift)

    def __call__(self, data: bytes) -> list[int]:
        """The ids of one chunk's bytes under the rule."""
        ids = list(map(self._byte_ids.__getitem__, data))
        if len(ids) < 2:
            return ids
        table = self._pair_table
        ranks = [table[a << 8 | b] for a, b in zip(data, data[1:])]
        pr, s = self._pairs, self._shift
        if len(pr) > MAX_PAIRS:
            pr.clear()
        if len(ids) > LONG_CHUNK:
            return merge_by_rank(ids, lambda a, b: None if (r := pr[a << s | b]) == _NO_RANK else r,
                                 lambda a, b, r: r)
        k = len(ranks)
        while k:
            best = min(ranks)
            if best == _NO_RANK:
                break
            i = ranks.index(best)
            ids[i] = best
            del ids[i + 1]
            del ranks[i]
            k -= 1
            if i:
                ranks[i - 1] = pr[ids[i - 1] << s | best]
            if i < k:
                ranks[i] = pr[best << s | ids[i + 1]]
        return ids
