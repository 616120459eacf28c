"""Remembering the ids of the chunks a tokenizer has encoded: most chunks of a text repeat (" the", " of"),
so each distinct one is merged once and looked up afterwards.

>>> cache = ChunkCache(lambda chunk: (len(chunk),))
>>> cache.encode_all(["ab", " cd", "ab"]), len(cache)
([2, 3, 2], 2)
"""

from __future__ import annotations

from itertools import chain
from typing import Any, Callable, Sequence

__all__ = ["ChunkCache", "CACHE_SIZE", "BATCH"]

#: Chunks whose ids are remembered (per tokenizer); the cache is cleared when it grows past this.
CACHE_SIZE = 200_000
#: Chunks are looked up in batches of this many, so one huge text cannot grow the cache without bound.
BATCH = 1 << 16


class ChunkCache(dict[str, tuple[int, ...]]):
    """chunk -> ids; a miss encodes the chunk with ``encode`` (``__missing__``), so a hit costs one C-level
    lookup. Bounded: it forgets everything past :data:`CACHE_SIZE` chunks (checked every :data:`BATCH`)."""

    __slots__ = ("_encode",)

    def __init__(self, encode: Callable[[str], tuple[int, ...]]):
        super().__init__()
        self._encode = encode

    def __missing__(self, chunk: str) -> tuple[int, ...]:
        ids = self[chunk] = self._encode(chunk)
        return ids

    def trim(self) -> None:
        """Forget everything once the cache holds more than :data:`CACHE_SIZE` chunks."""
        if len(self) > CACHE_SIZE:
            self.clear()

    def _lookup(self, chunks: Sequence[str]) -> list[tuple[int, ...]]:
        """Each chunk's ids. A cache smaller than the batch (a cold start: most chunks new, each new one met
        many times) looks up with ``__missing__``: one call per new chunk, its repeats C-level hits. A fuller
        one looks all up in one C-level pass, then encodes the few misses (found by ``list.index``, in C
        too) here. (Measured: each way is the faster one in its case.)"""
        if len(self) < len(chunks):
            return list(map(self.__getitem__, chunks))
        vals: list[Any] = list(map(self.get, chunks))  # a None for each miss, filled below
        get, encode, i = self.get, self._encode, -1
        while True:
            try:
                i = vals.index(None, i + 1)
            except ValueError:  # no miss left (only list.index's error: an encoder's own ValueError,
                return vals  # e.g. an unknown character, must reach the caller)
            chunk = chunks[i]
            ids = get(chunk)
            if ids is None:
                ids = self[chunk] = encode(chunk)
            vals[i] = ids

    def encode_all(self, chunks: Sequence[str]) -> list[int]:
        """The ids of ``chunks``, one after the other: remembered ones looked up, new ones encoded."""
        if len(chunks) <= BATCH:
            self.trim()
            return list(chain.from_iterable(self._lookup(chunks)))
        out: list[int] = []
        for start in range(0, len(chunks), BATCH):
            self.trim()
            out.extend(chain.from_iterable(self._lookup(chunks[start : start + BATCH])))
        return out
