"""Remembering the ids of the chunks a tokenizer has encoded: most chunks of a text repeat (" the", " of"),
so each distinct one is merged once and looked up afterwards.

>>> cache = ChunkCache(lambda chunk: (len(chunk),))
>>> cache.encode_all(["ab", " cd", "ab"]), len(cache)
([2, 3, 2], 2)
"""

from __future__ import annotations

import gc
from itertools import chain
from typing import Any, Callable, Mapping, Sequence

__all__ = ["ChunkCache", "RankCache", "CACHE_SIZE", "BATCH"]

#: Chunks whose ids are remembered (per tokenizer); the cache is cleared when it grows past this.
CACHE_SIZE = 200_000
#: Chunks are looked up in batches of this many, so one huge text cannot grow the cache without bound.
BATCH = 1 << 16
#: A batch's first this many chunks decide how it is looked up (see :meth:`ChunkCache._add`).
PROBE = 1024


class ChunkCache(dict[str, tuple[int, ...]]):
    """chunk -> ids; a miss encodes the chunk with ``encode`` (``__missing__``), so a hit costs one C-level
    lookup. Bounded: it forgets everything past :data:`CACHE_SIZE` chunks (checked every :data:`BATCH`).

    Chunks that are one token are kept a second time, chunk -> id, so that a batch of mostly such chunks
    (English: ~93 % of them) becomes its ids in one C-level pass, with no tuple to flatten per chunk."""

    __slots__ = ("_encode", "_single")

    def __init__(self, encode: Callable[[str], tuple[int, ...]]):
        super().__init__()
        self._encode = encode
        self._single: dict[str, int] = {}

    def __missing__(self, chunk: str) -> tuple[int, ...]:
        ids = self[chunk] = self._encode(chunk)
        if len(ids) == 1:
            self._single[chunk] = ids[0]
        return ids

    def clear(self) -> None:
        """Forget every chunk (both tables)."""
        super().clear()
        self._single.clear()

    def trim(self) -> None:
        """Forget everything once the cache holds more than :data:`CACHE_SIZE` chunks."""
        if len(self) > CACHE_SIZE:
            self.clear()

    def _add(self, chunks: Sequence[str], out: list[int]) -> None:
        """Append the ids of ``chunks`` to ``out``.

        A cache smaller than the batch (a cold start: most chunks new, each new one met many times) looks up
        with ``__missing__``: one call per new chunk, its repeats C-level hits. A fuller one looks every chunk
        up among the one-token chunks in one C-level pass; if most are found (English: judged on the first
        :data:`PROBE`), the rest -- chunks of
        several tokens, and new chunks (found by ``list.index``, in C too) -- are spliced in here; else (text
        of many several-token chunks: non-Latin scripts) every chunk's ids are looked up and flattened.
        (Measured: each way is the faster one in its case.)"""
        if len(self) < len(chunks):
            out.extend(chain.from_iterable(map(self.__getitem__, chunks)))
            return
        single = self._single.get
        found: list[Any] = list(map(single, chunks[:PROBE]))  # a None for each chunk not one known token
        if found.count(None) * 4 > len(found):  # judged on the batch's first chunks: the text's kind
            out.extend(chain.from_iterable(map(self.__getitem__, chunks)))
            return
        found += map(single, chunks[PROBE:])
        index, i, done = found.index, -1, 0
        while True:
            try:
                i = index(None, i + 1)
            except ValueError:  # no chunk left (only list.index's error: an encoder's own ValueError,
                break  # e.g. an unknown character, must reach the caller)
            out += found[done:i]
            out += self[chunks[i]]
            done = i + 1
        out += found[done:]

    def encode_all(self, chunks: Sequence[str]) -> list[int]:
        """The ids of ``chunks``, one after the other: remembered ones looked up, new ones encoded.

        Encoding makes no reference cycles, only tuples and lists of ints, so the cyclic collector is off
        meanwhile: a short text's collections would walk its chunk list and the cache's new tuples (~4 of
        them in 100 KB of English, ~2 % of a cold encode); past one batch (it walked the growing cache and
        output ~40 times a 2 MB text, ~3 % of the time) what was built also goes straight to the oldest
        generation, as :func:`bpe.train` does."""
        collecting = gc.isenabled()
        if len(chunks) <= BATCH:
            out: list[int] = []
            self.trim()
            gc.disable()
            try:
                self._add(chunks, out)
            finally:
                if collecting:
                    gc.enable()
            return out
        gc.disable()
        try:
            out = []
            for start in range(0, len(chunks), BATCH):
                self.trim()
                self._add(chunks[start : start + BATCH], out)
        finally:
            if collecting:
                gc.freeze()
                gc.unfreeze()
                gc.enable()
        return out


class RankCache(ChunkCache):
    """A :class:`ChunkCache` for a ranks vocabulary (tiktoken's rule): a new chunk whose bytes are one token
    (most new chunks of English) is looked up here, one call fewer than through ``merge``, which then only
    sees chunks that are not one token.

    >>> cache = RankCache(lambda chunk: tuple(map(ord, chunk)), {b"ab": 7})
    >>> cache.encode_all(["ab", "cd", "ab"])
    [7, 99, 100, 7]
    """

    __slots__ = ("_whole",)

    def __init__(self, merge: Callable[[str], tuple[int, ...]], ranks: Mapping[bytes, int]):
        super().__init__(merge)
        self._whole = ranks.get

    def __missing__(self, chunk: str) -> tuple[int, ...]:
        whole = self._whole(chunk.encode())
        if whole is None:
            ids = self[chunk] = self._encode(chunk)
            return ids
        self._single[chunk] = whole
        ids = self[chunk] = (whole,)
        return ids
