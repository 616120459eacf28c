"""How the trainer stores the corpus and rewrites it when a pair is merged: two backends.

* :class:`ChunkBackend` (the usual one): the unique chunks as ``chr(id)`` strings with their weights; a
  merge is ``str.replace`` on the chunks that hold the pair, and only the pairs next to each occurrence
  change count.
* :class:`PositionBackend` (chunks longer than :data:`bpe.train_loop.LONG_CHUNK`, e.g. no pre-tokenizer):
  linked lists of token positions, so a merge costs the pair's occurrences, not the text's length.

Both answer the same three questions for :mod:`bpe.train_loop`: the initial pair counts
(:meth:`~ChunkBackend.initial_counts`), what a merge changes (:meth:`~ChunkBackend.merge`: lowers the
counts of the pairs that lose occurrences in place, and returns the pairs born, the watched pairs that
fell, where the new pairs first occur and the tokens removed) and where a pair first occurs
(:meth:`~ChunkBackend.first_key`, for the ``"first"`` tie rule). A pair is a 2-character string.

>>> from bpe.corpus import build_corpus
>>> backend = ChunkBackend(build_corpus("abab", pattern=None, level="byte"))
>>> counts, _ = backend.initial_counts()
>>> counts
{'ab': 2, 'ba': 1}
>>> born, touched, _, removed = backend.merge("ab", chr(256), counts, watch={"ba"})
>>> backend.chunks, born, touched, removed
(['ĀĀ'], {'ĀĀ': 1}, {'ba'}, 2)
>>> counts   # "ba" is gone; "ab" is the caller's to remove
{'ab': 2}
"""

from __future__ import annotations

from collections import Counter, defaultdict
from operator import add
from typing import Any, Container, TypeAlias

from .corpus import Corpus

#: ``(counts, first)``: each pair's weighted count, and where it first occurs (``track_first``)
PairCounts: TypeAlias = "tuple[dict[str, int], dict[str, tuple[int, int]]]"
#: ``(born, touched, new_first, removed)`` of one merge (see :meth:`ChunkBackend.merge`)
MergeResult: TypeAlias = "tuple[dict[str, int], set[str], dict[str, tuple[int, int]], int]"

__all__ = ["ChunkBackend", "PositionBackend"]

#: ``new_first`` when it is not asked for (read only)
_NOTHING: dict[str, tuple[int, int]] = {}


class ChunkBackend:
    """Unique chunks as ``chr(id)`` strings: a merge is ``str.replace`` on the chunks holding the pair."""

    def __init__(self, corpus: Corpus):
        self.chunks = corpus.chunks
        self.weights = corpus.weights
        #: pair (its string, or its int key after :meth:`initial_key_counts`) -> the chunks holding it (or
        #: that held it: a chunk is checked before use; never pruned)
        self.where: dict[Any, list[int]] = {}

    def initial_counts(self, track_first: bool = False) -> PairCounts:
        """``(counts, first)``: every pair's weighted count and -- if ``track_first`` -- the (chunk index,
        offset) of its first occurrence."""
        if track_first:
            return self._initial_counts_first()
        self.where = where = self._index()
        # each occurrence listed once, so a pair's count is the weights of its list, summed in C
        weight = self.weights.__getitem__
        return {p: sum(map(weight, places)) for p, places in where.items()}, {}

    def initial_key_counts(self, rank: list[int], id_bits: int) -> dict[int, int]:
        """:meth:`initial_counts` with each pair named by an int, ``rank[left] << id_bits | rank[right]`` (the
        window rules' tie key; ``rank`` maps the base ids one to one), and :attr:`where` keyed alike: the
        window rules' loop (:mod:`bpe.chunk_steps`) then never builds a pair's string to look it up."""
        # renamed once per distinct pair (a few thousand), not per occurrence
        keyed = {rank[ord(p[0])] << id_bits | rank[ord(p[1])]: places for p, places in self._index().items()}
        self.where = keyed
        weight = self.weights.__getitem__
        return {k: sum(map(weight, places)) for k, places in keyed.items()}

    def _index(self) -> dict[str, list[int]]:
        """pair -> the indexes of the chunks holding it, once per occurrence (a chunk holding a pair twice is
        listed twice: the merge skips it the second time)."""
        where: defaultdict[str, list[int]] = defaultdict(list)
        for i, chunk in enumerate(self.chunks):
            for p in map(add, chunk, chunk[1:]):
                where[p].append(i)
        where.default_factory = None
        return where

    def _initial_counts_first(self) -> PairCounts:
        """:meth:`initial_counts` with each pair's first occurrence (the ``"first"`` tie rule)."""
        counts: dict[str, int] = {}
        where = self.where
        first: dict[str, tuple[int, int]] = {}
        get = counts.get
        for i, (chunk, w) in enumerate(zip(self.chunks, self.weights)):
            for j in range(len(chunk) - 1):
                p = chunk[j : j + 2]
                n = get(p)
                if n is None:
                    counts[p] = w
                    where[p] = [i]
                    first[p] = (i, j)
                else:
                    counts[p] = n + w
                    places = where[p]
                    if places[-1] != i:
                        places.append(i)
        return counts, first

    def merge(
        self, pair: str, new: str, counts: dict[str, int], watch: Container[str], track_first: bool = False
    ) -> MergeResult:
        """Merge ``pair`` into the token ``new`` in every chunk that holds it.

        Pairs that lose occurrences have their count lowered in ``counts`` in place (a pair whose count
        reaches 0 leaves it); ``pair`` itself is left for the caller to remove. Returns ``(born, touched,
        new_first, removed)``: the counts of the pairs the merge created (not yet in ``counts``), the pairs
        of ``watch`` whose count fell, the first-occurrence bounds of the new pairs (if ``track_first``)
        and the tokens removed.
        """
        chunks, where = self.chunks, self.where
        # A chunk holding the pair once (the common case) changes only next to it: its left neighbour x
        # turns (x, a) into (x, new), its right one (b, y) into (new, y). The chunks are gathered per
        # neighbour character -- x -> [chunk index, ...] -- and the counts and indexes updated once per
        # distinct neighbour afterwards, the weights summed in C (an early merge meets thousands of chunks
        # and a few dozen distinct neighbours).
        lefts: defaultdict[str, list[int]] = defaultdict(list)
        rights: defaultdict[str, list[int]] = defaultdict(list)
        # from the chunks holding the pair more than once: born pair -> [count, chunk index, ...]
        repeated: dict[str, Any] = {}
        touched: set[str] = set()
        # every occurrence removes a token, but for overlaps ("aaa" holds (a, a) twice, merges once)
        removed = counts[pair]
        join = "".join
        for i in where.pop(pair, ()):
            old = chunks[i]
            head, found, tail = old.partition(pair)
            if not found:
                continue  # the pair left this chunk in an earlier merge (``where`` is never pruned)
            if pair in tail:
                removed -= self._merge_repeated(i, old, pair, new, counts, watch, repeated, touched)
                continue
            chunks[i] = join((head, new, tail))  # one copy (widened once), not two
            if head:
                lefts[head[-1]].append(i)
            if tail:
                rights[tail[0]].append(i)
        weight = self.weights.__getitem__
        born: dict[str, int] = {}
        a, b = pair[0], pair[1]
        for x, places in lefts.items():
            n = sum(map(weight, places)) if len(places) > 1 else weight(places[0])
            q = x + new
            where[q] = places
            born[q] = n
            p = x + a  # never the merged pair: its first occurrence would start at x
            n = counts[p] - n
            if n:
                counts[p] = n
            else:
                del counts[p]
                del where[p]
            if p in watch:
                touched.add(p)
        for x, places in rights.items():
            n = sum(map(weight, places)) if len(places) > 1 else weight(places[0])
            q = new + x
            where[q] = places
            born[q] = n
            p = b + x
            if p == pair:  # "aaa" merging (a, a): the right neighbour's pair is the merged one,
                removed -= n  # counted in its count but not merged
                continue
            n = counts[p] - n
            if n:
                counts[p] = n
            else:
                del counts[p]
                del where[p]
            if p in watch:
                touched.add(p)
        for q, entry in repeated.items():
            into = where.get(q) if q in born else None
            if into is None:
                born[q] = entry[0]
                del entry[0]
                where[q] = entry
            else:
                born[q] += entry[0]
                into.extend(entry[1:])
        if track_first:
            return born, touched, {p: (min(where[p]), 0) for p in born}, removed
        return born, touched, _NOTHING, removed

    def _merge_repeated(
        self,
        i: int,
        old: str,
        pair: str,
        new: str,
        counts: dict[Any, int],
        watch: Container[Any],
        born: dict[Any, Any],
        touched: set[Any],
        rank: list[int] | None = None,
        id_bits: int = 0,
    ) -> int:
        """Merge a chunk that holds ``pair`` more than once (the occurrences may touch, as in "abab"): recount
        the pairs around the occurrences both ways. Lowers ``counts``, adds to ``born`` (pair -> [count, chunk index, ...]) and
        ``touched``; returns the pair's weighted occurrences in the chunk less the tokens removed (the
        overlaps: "aaa" holds (a, a) twice and loses one token). With ``rank``, the pairs in ``counts``, ``born``,
        ``touched`` and :attr:`where` are named by ints, as :meth:`initial_key_counts` names them."""
        merged = old.replace(pair, new)
        self.chunks[i] = merged
        w = self.weights[i]
        change: dict[str, int] = {}
        starts = []
        k = old.find(pair)
        while k >= 0:
            starts.append(k)
            k = old.find(pair, k + 2)
        if 4 * len(starts) >= len(old):  # a run ("    ", "===="): count both ways in C
            lose = Counter(map(add, old, old[1:]))
            for p, n in Counter(map(add, merged, merged[1:])).items():
                n -= lose.pop(p, 0)
                if n:
                    change[p] = n * w
            for p, n in lose.items():
                change[p] = -n * w
        else:
            # Only the pairs that overlap an occurrence change (the others are in both strings): in the old
            # chunk those starting just before, at or just after one (the overlaps str.replace skipped
            # too), in the merged one those holding the new token.
            last = len(old) - 2
            for j in {j for k in starts for j in (k - 1, k, k + 1) if 0 <= j <= last}:
                p = old[j : j + 2]
                change[p] = change.get(p, 0) - w
            last = len(merged) - 2
            at = []
            k = merged.find(new)
            while k >= 0:
                at.append(k)
                k = merged.find(new, k + 1)
            for j in {j for k in at for j in (k - 1, k) if 0 <= j <= last}:
                p = merged[j : j + 2]
                change[p] = change.get(p, 0) + w
        where = self.where
        for p, d in change.items():
            if d == 0 or p == pair:
                continue
            if rank is not None:
                p = rank[ord(p[0])] << id_bits | rank[ord(p[1])]
            if d > 0:  # only pairs holding the new token gain
                entry = born.get(p)
                if entry is None:
                    born[p] = [d, i]
                elif entry[-1] != i:
                    entry[0] += d
                    entry.append(i)
                else:
                    entry[0] += d
                continue
            n = counts[p] + d
            if n:
                counts[p] = n
            else:
                del counts[p]
                del where[p]
            if p in watch:
                touched.add(p)
        return -change[pair] - (len(old) - len(merged)) * w

    def first_key(self, pair: str, lens: list[int]) -> tuple[int, int] | None:
        """Exact (chunk index, base offset) of the pair's first occurrence, or None."""
        best = None
        chunks = self.chunks
        for i in self.where.get(pair, ()):
            if (best is None or i < best) and pair in chunks[i]:
                best = i
        if best is None:
            return None
        chunk = chunks[best]
        j = chunk.find(pair)
        return (best, sum(lens[ord(c)] for c in chunk[:j]))


class PositionBackend:
    """The corpus as linked lists of token positions (for very long chunks, e.g. ``pattern=None``).

    Positions are base-token offsets in the chunks laid end to end; a merge visits only the positions
    where the pair starts, left to right, so it costs the pair's occurrences, not the text's length.
    """

    def __init__(self, corpus: Corpus):
        tok: list[int] = []
        weight: list[int] = []
        nxt: list[int] = []
        prv: list[int] = []
        for chunk, w in zip(corpus.chunks, corpus.weights):
            start = len(tok)
            n = len(chunk)
            tok.extend(ord(c) for c in chunk)
            weight.extend([w] * n)
            prv.extend(range(start - 1, start + n - 1))
            nxt.extend(range(start + 1, start + n + 1))
            prv[start] = -1
            nxt[start + n - 1] = -1
        self.tok, self.weight, self.nxt, self.prv = tok, weight, nxt, prv
        self.alive = bytearray(b"\x01") * len(tok)
        #: pair -> positions where it starts (or started: a position is checked before use)
        self.where: dict[str, list[int]] = {}

    def initial_counts(self, track_first: bool = False) -> PairCounts:
        """``(counts, first)``: every pair's weighted count and (if ``track_first``) ``(0, position)`` of its
        first occurrence."""
        counts: dict[str, int] = {}
        where = self.where
        first: dict[str, tuple[int, int]] = {}
        tok, nxt, weight = self.tok, self.nxt, self.weight
        for pos in range(len(tok)):
            q = nxt[pos]
            if q < 0:
                continue
            p = chr(tok[pos]) + chr(tok[q])
            if p in counts:
                counts[p] += weight[pos]
                where[p].append(pos)
            else:
                counts[p] = weight[pos]
                where[p] = [pos]
                if track_first:
                    first[p] = (0, pos)
        return counts, first

    def merge(
        self, pair: str, new: str, counts: dict[str, int], watch: Container[str], track_first: bool = False
    ) -> MergeResult:
        """Merge every occurrence of ``pair`` left to right; same contract as :meth:`ChunkBackend.merge`."""
        a, b, c = ord(pair[0]), ord(pair[1]), ord(new)
        tok, nxt, prv, weight, alive, where = self.tok, self.nxt, self.prv, self.weight, self.alive, self.where
        born: dict[str, int] = {}
        touched: set[str] = set()
        new_first: dict[str, tuple[int, int]] = {}
        removed = 0

        def lose(p: str, w: int) -> None:
            n = born.get(p)
            if n is not None:  # the left neighbour was merged a moment ago ("aaaa"): a pair just born
                born[p] = n - w
                return
            n = counts[p] - w
            if n:
                counts[p] = n
            else:
                del counts[p]
                del where[p]
            if p in watch:
                touched.add(p)

        def gain(p: str, pos: int, w: int) -> None:
            n = born.get(p)
            if n is None:
                born[p] = w
                where[p] = [pos]
            else:
                born[p] = n + w
                where[p].append(pos)
            if track_first and (p not in new_first or (0, pos) < new_first[p]):
                new_first[p] = (0, pos)

        # Left to right, so overlapping occurrences ("aaa") merge as the reference does. ``where`` holds a
        # position once per birth, but a position can be listed again after its token changed.
        for pos in sorted(set(where.pop(pair, ()))):
            if not alive[pos] or tok[pos] != a:
                continue
            q = nxt[pos]
            if q < 0 or tok[q] != b:
                continue
            w = weight[pos]
            left, right = prv[pos], nxt[q]
            if left >= 0:
                lose(chr(tok[left]) + pair[0], w)
                gain(chr(tok[left]) + new, left, w)
            if right >= 0:
                p_old = pair[1] + chr(tok[right])
                if p_old != pair:
                    lose(p_old, w)
                gain(new + chr(tok[right]), pos, w)
            tok[pos] = c
            alive[q] = 0
            nxt[pos] = right
            if right >= 0:
                prv[right] = pos
            removed += w
        for p, n in born.items():
            if n <= 0:
                where.pop(p, None)  # born and merged away again in this merge ("aaaa")
        return born, touched, new_first, removed

    def first_key(self, pair: str, lens: list[int]) -> tuple[int, int] | None:
        """``(0, position)`` of the pair's first live occurrence, or None."""
        a, b = ord(pair[0]), ord(pair[1])
        tok, nxt, alive = self.tok, self.nxt, self.alive
        best = None
        for pos in self.where.get(pair, ()):
            if (best is None or pos < best) and alive[pos] and tok[pos] == a:
                q = nxt[pos]
                if q >= 0 and tok[q] == b:
                    best = pos
        return None if best is None else (0, best)
