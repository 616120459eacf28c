"""How the trainer stores the corpus and rewrites it when a pair is merged: two backends.

* :class:`ChunkBackend` (the usual one): the unique chunks as ``chr(id)`` strings with their weights; a
  merge is ``str.replace`` on the chunks that hold the pair, and only the pairs next to each occurrence
  change count.
* :class:`PositionBackend` (chunks longer than :data:`bpe.trainer.LONG_CHUNK`, e.g. no pre-tokenizer):
  linked lists of token positions, so a merge costs the pair's occurrences, not the text's length.

Both answer the same three questions for :mod:`bpe.trainer`: the initial pair counts
(:meth:`~ChunkBackend.initial_counts`), what a merge changes (:meth:`~ChunkBackend.merge`: pair count
deltas, where the new pairs first occur, tokens removed) and where a pair first occurs
(:meth:`~ChunkBackend.first_key`, for the ``"first"`` tie rule). A pair is a 2-character string.

>>> from bpe.corpus import build_corpus
>>> backend = ChunkBackend(build_corpus("abab", pattern=None, level="byte"))
>>> counts, where, first = backend.initial_counts()
>>> counts
{'ab': 2, 'ba': 1}
>>> deltas, _, removed = backend.merge("ab", chr(256), where, [1] * 257)
>>> backend.chunks, removed
(['ĀĀ'], 2)
"""
from __future__ import annotations

from .corpus import Corpus

__all__ = ["ChunkBackend", "PositionBackend"]


class ChunkBackend:
    """Unique chunks as ``chr(id)`` strings: a merge is ``str.replace`` on the chunks holding the pair."""

    def __init__(self, corpus: Corpus):
        self.chunks = corpus.chunks
        self.weights = corpus.weights

    def initial_counts(self):
        """``(counts, where, first)``: every pair's weighted count, the chunks it occurs in, and the
        (chunk index, offset) of its first occurrence."""
        counts: dict[str, int] = {}
        where: dict[str, set] = {}
        first: dict[str, tuple[int, int]] = {}
        for i, (chunk, w) in enumerate(zip(self.chunks, self.weights)):
            for j in range(len(chunk) - 1):
                p = chunk[j:j + 2]
                if p in counts:
                    counts[p] += w
                    where[p].add(i)
                else:
                    counts[p] = w
                    where[p] = {i}
                    first[p] = (i, j)
        return counts, where, first

    def merge(self, pair: str, new: str, where: dict[str, set], lens: list[int]):
        """Rewrite the chunks holding ``pair``; return (pair deltas, first-key bounds of new pairs, removed)."""
        chunks, weights = self.chunks, self.weights
        deltas: dict[str, int] = {}
        new_first: dict[str, tuple[int, int]] = {}
        removed = 0
        a, b = pair
        get = deltas.get

        def born(p: str, i: int) -> None:
            """Index a pair that contains the new token."""
            s = where.get(p)
            if s is None:
                where[p] = {i}
            else:
                s.add(i)
            key = (i, 0)
            if p not in new_first or key < new_first[p]:
                new_first[p] = key

        for i in where.pop(pair, ()):
            old = chunks[i]
            at = old.find(pair)
            if at < 0:
                continue  # the pair left this chunk in an earlier merge (``where`` is never pruned)
            w = weights[i]
            if old.find(pair, at + 2) < 0:
                # One occurrence (the common case): only its two neighbours change.
                chunks[i] = old[:at] + new + old[at + 2:]
                removed += w
                deltas[pair] = get(pair, 0) - w
                if at > 0:
                    left = old[at - 1]
                    p = left + a
                    deltas[p] = get(p, 0) - w
                    p = left + new
                    deltas[p] = get(p, 0) + w
                    born(p, i)
                if at + 2 < len(old):
                    right = old[at + 2]
                    p = b + right
                    deltas[p] = get(p, 0) - w
                    p = new + right
                    deltas[p] = get(p, 0) + w
                    born(p, i)
                continue
            merged = old.replace(pair, new)
            chunks[i] = merged
            removed += (len(old) - len(merged)) * w
            # Several occurrences (they may touch, as in "abab"): recount this short chunk both ways.
            for j in range(len(old) - 1):
                p = old[j:j + 2]
                deltas[p] = get(p, 0) - w
            for j in range(len(merged) - 1):
                p = merged[j:j + 2]
                deltas[p] = get(p, 0) + w
                if new in p:
                    born(p, i)
        return deltas, new_first, removed

    def first_key(self, pair: str, where: dict[str, set], lens: list[int]):
        """Exact (chunk index, base offset) of the pair's first occurrence, or None."""
        best = None
        for i in where.get(pair, ()):
            if (best is None or i < best) and pair in self.chunks[i]:
                best = i
        if best is None:
            return None
        chunk = self.chunks[best]
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

    def initial_counts(self):
        """``(counts, where, first)``: every pair's weighted count, the positions where it starts, and
        ``(0, position)`` of its first occurrence."""
        counts: dict[str, int] = {}
        where: dict[str, set] = {}
        first: dict[str, tuple[int, int]] = {}
        tok, nxt, weight = self.tok, self.nxt, self.weight
        for pos in range(len(tok)):
            q = nxt[pos]
            if q < 0:
                continue
            p = chr(tok[pos]) + chr(tok[q])
            if p in counts:
                counts[p] += weight[pos]
                where[p].add(pos)
            else:
                counts[p] = weight[pos]
                where[p] = {pos}
                first[p] = (0, pos)
        return counts, where, first

    def merge(self, pair: str, new: str, where: dict[str, set], lens: list[int]):
        """Merge every occurrence of ``pair`` left to right; return (pair deltas, first-key bounds of new
        pairs, tokens removed), like :meth:`ChunkBackend.merge`."""
        a, b, c = ord(pair[0]), ord(pair[1]), ord(new)
        tok, nxt, prv, weight, alive = self.tok, self.nxt, self.prv, self.weight, self.alive
        deltas: dict[str, int] = {}
        new_first: dict[str, tuple[int, int]] = {}
        removed = 0

        def add(p: str, pos: int, w: int) -> None:
            deltas[p] = deltas.get(p, 0) + w
            s = where.get(p)
            if s is None:
                where[p] = {pos}
            else:
                s.add(pos)
            if p not in new_first or (0, pos) < new_first[p]:
                new_first[p] = (0, pos)

        for pos in sorted(where.pop(pair, ())):
            if not alive[pos] or tok[pos] != a:
                continue
            q = nxt[pos]
            if q < 0 or tok[q] != b:
                continue
            w = weight[pos]
            left, right = prv[pos], nxt[q]
            if left >= 0:
                p_old = chr(tok[left]) + pair[0]
                deltas[p_old] = deltas.get(p_old, 0) - w
                add(chr(tok[left]) + new, left, w)
            if right >= 0:
                p_old = pair[1] + chr(tok[right])
                deltas[p_old] = deltas.get(p_old, 0) - w
                add(new + chr(tok[right]), pos, w)
            deltas[pair] = deltas.get(pair, 0) - w
            tok[pos] = c
            alive[q] = 0
            nxt[pos] = right
            if right >= 0:
                prv[right] = pos
            removed += w
        return deltas, new_first, removed

    def first_key(self, pair: str, where: dict[str, set], lens: list[int]):
        """``(0, position)`` of the pair's first live occurrence, or None."""
        a, b = ord(pair[0]), ord(pair[1])
        tok, nxt, alive = self.tok, self.nxt, self.alive
        best = None
        for pos in where.get(pair, ()):
            if (best is None or pos < best) and alive[pos] and tok[pos] == a:
                q = nxt[pos]
                if q >= 0 and tok[q] == b:
                    best = pos
        return None if best is None else (0, best)
