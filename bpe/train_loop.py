"""The incremental training loop: count every pair once, then touch only what each merge changes.

:class:`TrainLoop` keeps every live pair's weighted count, the best pairs in a small sorted *window* of exact
entries and the others in a max-heap whose entries are corrected when they surface; the corpus itself lives
in a backend (:mod:`bpe.backends`) that rewrites only the chunks holding the merged pair.
:class:`bpe.trainer.MergeStream` turns its steps into :class:`bpe.Merge` records.

>>> from bpe.corpus import build_corpus
>>> loop = TrainLoop(build_corpus("aaabdaaabac", pattern=None, level="byte"), "lexical", 256)
>>> pair, count, _, removed = loop.step(top_k=1, min_frequency=1)
>>> [ord(c) for c in pair], count, removed, loop.tokens
([97, 97], 4, 2, 9)
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, insort
from functools import partial
from typing import Any, Iterator, cast

from .backends import ChunkBackend, PositionBackend
from .chunk_steps import LOW_COUNTS, Step, chunk_steps, keyed_queue
from .corpus import Corpus
from .run import ID_BITS, KEY_BITS
from .visible import hf_rank_table

__all__ = ["TrainLoop", "LONG_CHUNK", "HF_KEY_IDS"]

#: Chunks longer than this (in base tokens) switch training to the position-list backend.
LONG_CHUNK = 2048

_ID_BITS, _KEY_BITS = ID_BITS, KEY_BITS
_KEY_MASK = (1 << _KEY_BITS) - 1
_ID_MASK = (1 << _ID_BITS) - 1
#: A bound above every entry (counts are >= 1, so entries are negative): "the window holds every pair".
_EVERY_PAIR = 0
#: A bound below every entry: "the window is empty and must be filled".
_NO_PAIR = -1 << 200
_HF_RANK = hf_rank_table()
#: The ``"hf"`` rule's tie key part -> byte (the inverse of :data:`_HF_RANK`), for :attr:`bpe.Merge.top_pairs`
HF_KEY_IDS = tuple(sorted(range(256), key=_HF_RANK.__getitem__))


def _descending(token: bytes) -> tuple[int, ...]:
    """A key that sorts byte strings greatest first: each byte inverted, and an end mark above every byte
    (so a string sorts after the strings it is a prefix of, as ``b"ab" < b"abc"`` wants when reversed)."""
    return (*(255 - x for x in token), 256)


def _tie_ranks(tie_break: str, base_len: int) -> list[int]:
    """token id -> its part of a pair's tie key (smaller wins): the id itself (``"lexical"``), or its
    Hugging Face id, where the 256 bytes are ranked by their visible characters (``"hf"``). A pair's key
    is ``rank[left] << 21 | rank[right]``; the loop appends each new token's id."""
    if tie_break == "lexical":
        return list(range(base_len))
    return [_HF_RANK[b] for b in range(256)]


class TrainLoop:
    """The incremental training loop over one backend (see the module docstring).

    Every live pair is in exactly one of two places. The *window* ``top`` is a sorted list of exact
    entries, each one int ``code = -count << 42 | tie key`` (the key names the pair, see
    :func:`_tie_ranks`; one int comparison orders them): precisely the live pairs whose entry is at most
    ``bound``. Every other live pair has one entry in the min-heap ``heap`` whose count is an upper bound
    (it is corrected when it surfaces: a pair's count only falls after the merge that creates it).

    The winner and the top-k pairs are the window's first entries. A merge changes only a few counts: an
    entry of the window whose count fell moves down in it, or out to the heap once it passes ``bound``; a
    pair born in the merge enters the window if it beats ``bound``, else the heap. When fewer than
    ``top_k`` entries are left, the window is refilled from the heap. So a merge costs no heap traffic
    at all in the common case, and the top pairs come for free.

    The ``"first"`` rule's key (first occurrence) can change whenever a count does, and the ``"max_bytes"``
    rule's (the pair's bytes, greatest first) has no fixed width, so both keep the plain heap walk
    (:meth:`_step_heap`).
    """

    def __init__(self, corpus: Corpus, tie_break: str, first_new_id: int, backend: str | None = None, top_k: int = 20):
        self.stop_reason = ""
        if backend is None:
            longest = max(map(len, corpus.chunks), default=0)
            backend = "positions" if longest > LONG_CHUNK else "chunks"
        self.backend = PositionBackend(corpus) if backend == "positions" else ChunkBackend(corpus)
        # At char level HF's ids are code-point order, which is our char ids' order: same as "lexical".
        self.tie_break = "lexical" if (tie_break == "hf" and corpus.level == "char") else tie_break
        self.windowed = self.tie_break not in ("first", "max_bytes")
        self.next_id = first_new_id
        base_len = 256 if corpus.level == "byte" else len(corpus.alphabet)
        #: base tokens per token id (for the ``"first"`` rule's first-occurrence keys)
        self.lens: list[int] = [1] * base_len
        self.track_first = self.tie_break == "first"
        #: the window rules over chunks (:mod:`bpe.chunk_steps`) name a pair by its int tie key
        #: ``rank[left] << 21 | rank[right]`` in ``counts``, the window and the backend's index; the others by
        #: its 2-character string
        self.keyed = self.windowed and isinstance(self.backend, ChunkBackend)
        #: "max_bytes": every token id's bytes as a key that sorts the greatest bytes first
        self.desc: list[tuple[int, ...]] = []
        if self.windowed:
            # Entries code = -count << 42 | rank[left] << 21 | rank[right]: one int compare orders them,
            # and ``chars`` (tie key part -> token as a character) turns a code back into its pair.
            rank = self.rank = _tie_ranks(self.tie_break, base_len)
            self.chars = [""] * len(rank)
            for token_id, r in enumerate(rank):
                self.chars[r] = chr(token_id)
        #: pair (its int key when keyed, else its 2-character string) -> count; "first"/"max_bytes": pair -> key
        self.counts: dict[Any, int]
        self.first: dict[Any, Any]
        #: ints (windowed) or (-count, key, pair) tuples ("first"/"max_bytes")
        self.heap: list[Any]
        if self.keyed:
            assert isinstance(self.backend, ChunkBackend)
            self.counts = cast("dict[Any, int]", self.backend.initial_key_counts(rank, _ID_BITS))
            self.first = {}
        else:
            counts, self.first = self.backend.initial_counts(track_first=self.track_first)
            self.counts = cast("dict[Any, int]", counts)
        if self.tie_break == "max_bytes":
            base = (
                [bytes([b]) for b in range(256)]
                if corpus.level == "byte"
                else [ch.encode("utf-8") for ch in corpus.alphabet]
            )
            self.desc = [_descending(t) for t in base]
            self.first = {p: self._bytes_key(p) for p in self.counts}
        #: (keyed) the counts that wait in :attr:`buckets` (count -> entries) rather than in the heap
        self.low = 0
        self.buckets: list[list[int]] = []
        if self.keyed:
            self.low = LOW_COUNTS
            self.heap, self.buckets = keyed_queue(self.counts, {}, self.low)
        elif self.windowed:
            self.heap = [
                -n << _KEY_BITS | rank[ord(p[0])] << _ID_BITS | rank[ord(p[1])] for p, n in self.counts.items()
            ]
        else:
            self.heap = [(-n, self.first[p], p) for p, n in self.counts.items()]
        if not self.keyed:
            heapq.heapify(self.heap)
        self.tokens = corpus.tokens
        self.want = max(top_k, 1)
        #: entries a refill adds: enough that one refill serves many merges
        self.fill = 2 * self.want + 24
        self.top: list = []
        self.top_entry: dict = {}
        self.bound: int = _NO_PAIR
        #: how a top entry's tie key parts map back to token ids (:attr:`bpe.Merge.top_pairs`): None = as is
        self.key_ids = HF_KEY_IDS if self.tie_break == "hf" else None
        #: the window rules over chunks run as one generator (:mod:`bpe.chunk_steps`), made for these
        #: (top_k, min_frequency)
        self._steps: Iterator[Step] | None = None
        self._steps_for = (0, 0)

    def _refill(self) -> None:
        """Top the window up to :attr:`fill` entries from the heap (every heap entry is worse than the
        window's, so the new entries go at its end)."""
        heap, counts, top, top_entry, chars = self.heap, self.counts, self.top, self.top_entry, self.chars
        pop, pushpop = heapq.heappop, heapq.heappushpop
        kb, ib, km, im = _KEY_BITS, _ID_BITS, _KEY_MASK, _ID_MASK
        need = self.fill - len(top)
        code = pop(heap) if heap else 0
        while code:
            p = chars[code >> ib & im] + chars[code & im]
            n = counts.get(p)
            if n is None:  # the pair is gone
                code = pop(heap) if heap else 0
            elif n != -(code >> kb):  # an out-of-date count: back in with the right one
                code = pushpop(heap, -n << kb | code & km)
            else:
                top.append(code)
                top_entry[p] = code
                need -= 1
                code = pop(heap) if heap and need else 0
        self.bound = top[-1] if heap and top else _EVERY_PAIR

    def steps(self, top_k: int, min_frequency: int) -> Iterator[Step]:
        """:meth:`step` again and again until training stops (the cheapest way to call it)."""
        if self.keyed:
            return self._chunk_steps(top_k, min_frequency)
        return iter(partial(self.step, top_k, min_frequency), None)

    def _chunk_steps(self, top_k: int, min_frequency: int) -> Iterator[Step]:
        if self._steps is None or self._steps_for != (top_k, min_frequency):
            self._steps, self._steps_for = chunk_steps(self, top_k, min_frequency), (top_k, min_frequency)
        return self._steps

    def step(self, top_k: int, min_frequency: int):
        """One merge: ``(pair, count, top entries, tokens removed)``, or None when training stops."""
        if not self.windowed:
            return self._step_heap(top_k, min_frequency)
        if self.keyed:
            return next(self._chunk_steps(top_k, min_frequency), None)
        top = self.top
        if len(top) < self.want and self.bound != _EVERY_PAIR:
            self._refill()
        if not top:
            self.stop_reason = "no pair left to merge"
            return None
        code = top[0]
        count = -(code >> _KEY_BITS)
        if count < min_frequency:
            self.stop_reason = f"the best pair occurs {count} times, below min_frequency={min_frequency}"
            return None
        shown = tuple(top[:top_k]) if top_k > 1 else (code,)
        chars, rank = self.chars, self.rank
        pair = chars[code >> _ID_BITS & _ID_MASK] + chars[code & _ID_MASK]
        new_id = self.next_id
        new = chr(new_id)
        counts, heap, top_entry, bound = self.counts, self.heap, self.top_entry, self.bound
        born, touched, _, removed = self.backend.merge(pair, new, counts, top_entry)
        del top[0]
        del top_entry[pair]
        counts.pop(pair, None)
        touched.discard(pair)
        push = heapq.heappush
        for p in touched:  # counts in the window that fell: move down, or out to the heap
            code = top_entry.pop(p)
            del top[bisect_left(top, code)]
            n = counts.get(p)
            if n is not None:
                code = -n << _KEY_BITS | code & _KEY_MASK
                if code < bound:
                    insort(top, code)
                    top_entry[p] = code
                else:
                    push(heap, code)
        rank.append(new_id)
        chars.append(new)
        for p, n in born.items():
            if n <= 0:
                continue  # born and merged away again in the same merge ("aaaa")
            counts[p] = n
            code = -n << _KEY_BITS | rank[ord(p[0])] << _ID_BITS | rank[ord(p[1])]
            if code < bound:
                insort(top, code)
                top_entry[p] = code
            else:
                push(heap, code)
        self.next_id += 1
        self.tokens -= removed
        if len(heap) > 2 * len(counts) + 10_000:
            self._compact()
        return pair, count, shown, removed

    # The "first" rule: a plain lazy heap. Entries carry upper bounds of counts and lower bounds of the
    # first-occurrence key, both corrected when the entry surfaces.

    def _pop_best(self):
        """Pop the best pair's entry, correcting out-of-date entries on the way; None when no pair is left."""
        heap, counts, first = self.heap, self.counts, self.first
        while heap:
            negc, key, p = heapq.heappop(heap)
            n = counts.get(p)
            if n is None:
                first.pop(p, None)
                continue  # the pair is gone
            if n != -negc:
                heapq.heappush(heap, (-n, key, p))
                continue
            if not self.track_first:
                return negc, key, p  # "max_bytes": a pair's key never changes
            exact = self.backend.first_key(p, self.lens)
            if exact != key:
                first[p] = exact
                heapq.heappush(heap, (negc, exact, p))
                continue
            return negc, key, p
        return None

    def _bytes_key(self, p: str) -> tuple:
        """The ``"max_bytes"`` rule's key of a pair: its two tokens' bytes, greatest pair first."""
        desc = self.desc
        return (desc[ord(p[0])], desc[ord(p[1])])

    def _step_heap(self, top_k: int, min_frequency: int):
        """One merge for the ``"first"`` and ``"max_bytes"`` rules: the best pair and the top-k straight from
        the heap."""
        best = self._pop_best()
        if best is None:
            self.stop_reason = "no pair left to merge"
            return None
        if -best[0] < min_frequency:
            heapq.heappush(self.heap, best)
            self.stop_reason = f"the best pair occurs {-best[0]} times, below min_frequency={min_frequency}"
            return None
        negc, _, pair = best
        count = -negc
        shown = tuple(
            -n << _KEY_BITS | ord(p[0]) << _ID_BITS | ord(p[1])
            for n, p in [  # the winner is off the heap
                (count, pair),
                *((-e[0], e[2]) for e in self._peek_top(top_k - 1)),
            ]
        )
        new = chr(self.next_id)
        self.lens.append(self.lens[ord(pair[0])] + self.lens[ord(pair[1])])
        track = self.track_first
        if not track:  # "max_bytes": the new token's key, from its parts' (end marks dropped)
            desc = self.desc
            desc.append(desc[ord(pair[0])][:-1] + desc[ord(pair[1])])
        counts, heap, first = self.counts, self.heap, self.first
        born, _, new_first, removed = self.backend.merge(pair, new, counts, (), track_first=track)
        counts.pop(pair, None)
        first.pop(pair, None)
        for p, n in born.items():
            if n <= 0:
                continue
            counts[p] = n
            first[p] = new_first[p] if track else self._bytes_key(p)
            heapq.heappush(heap, (-n, first[p], p))
        self.next_id += 1
        self.tokens -= removed
        if len(heap) > 2 * len(counts) + 10_000:
            self._compact()
        return pair, count, shown, removed

    def _peek_top(self, k: int) -> list[tuple]:
        """The best ``k`` entries left in the heap, best first (the heap keeps them).

        Out-of-date counts met on the way are corrected for good, which ``_pop_best`` would do anyway.
        """
        heap, counts = self.heap, self.counts
        push, pop = heapq.heappush, heapq.heappop
        taken: list = []
        while heap and len(taken) < k:
            negc, key, p = pop(heap)
            n = counts.get(p)
            if n is None:
                continue
            if n != -negc:
                push(heap, (-n, key, p))
                continue
            taken.append((negc, key, p))
        for entry in taken:
            push(heap, entry)
        return taken

    def _compact(self) -> None:
        """Drop stale heap entries: rebuild the heap from the live counts (less the window's pairs)."""
        if self.keyed:
            self.heap, self.buckets = keyed_queue(self.counts, self.top_entry, self.low)
            return
        if self.windowed:
            window, rank = self.top_entry, self.rank
            self.heap = [
                -n << _KEY_BITS | rank[ord(p[0])] << _ID_BITS | rank[ord(p[1])]
                for p, n in self.counts.items()
                if p not in window
            ]
        else:
            self.heap = [(-n, self.first[p], p) for p, n in self.counts.items()]
        heapq.heapify(self.heap)
