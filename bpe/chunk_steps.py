"""The common case's training loop in one frame: the window rules over :class:`~bpe.backends.ChunkBackend`.

:meth:`bpe.train_loop.TrainLoop.step` for the ``"lexical"`` and ``"hf"`` rules over unique chunks is this
generator: the same window, heap and chunk rewrite as :meth:`TrainLoop.step` + :meth:`ChunkBackend.merge
<bpe.backends.ChunkBackend.merge>`, but with every table a local of one frame that lives across merges. Late
in a long run a merge touches one or two chunks, and then what costs is the bookkeeping around them: two
method calls, a dozen attribute loads and five containers per merge; here a merge pays a generator resume.

>>> from bpe.corpus import build_corpus
>>> from bpe.train_loop import TrainLoop
>>> loop = TrainLoop(build_corpus("aaabdaaabac", pattern="gpt2", level="byte"), "lexical", 256)
>>> [(step[0], step[1]) for step in chunk_steps(loop, 1, 1)][:2]
[('aa', 4), ('ab', 2)]
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections import defaultdict
from heapq import heapify, heappop, heappush, heappushpop
from typing import Any, Iterator, Protocol

from .backends import ChunkBackend
from .run import ID_BITS, KEY_BITS

__all__ = ["chunk_steps", "Step", "keyed_queue", "LOW_COUNTS"]

#: ``(pair, count, top entries, tokens removed)``: one merge, as :meth:`bpe.train_loop.TrainLoop.step` returns it
Step = tuple[str, int, tuple[int, ...], int]

_KEY_MASK = (1 << KEY_BITS) - 1
_ID_MASK = (1 << ID_BITS) - 1
#: Pairs counted at most this many times wait outside the window in plain lists, one per count, not in the
#: heap: a long run makes thousands of such pairs (14,982 born with count 1 in 1 MB -> 16,384 merges) and
#: most never win, so each costs one ``append`` instead of a push and, later, a pop and a check.
LOW_COUNTS = 16


class Loop(Protocol):
    """What :func:`chunk_steps` uses of :class:`bpe.train_loop.TrainLoop` (see there)."""

    backend: Any
    counts: dict[int, int]
    heap: list[Any]
    top: list[int]
    top_entry: dict[int, int]
    chars: list[str]
    rank: list[int]
    want: int
    bound: int
    next_id: int
    tokens: int
    stop_reason: str

    low: int
    buckets: list[list[int]]
    fill: int

    def _compact(self) -> None: ...


def keyed_queue(counts: dict[int, int], window: dict[int, int], low: int) -> tuple[list[int], list[list[int]]]:
    """The entries of every pair of ``counts`` outside ``window``: a heap of those counted more than ``low``
    times, and a list per count ``1 ... low`` of the others (see :func:`refill`)."""
    heap: list[int] = []
    buckets: list[list[int]] = [[] for _ in range(low + 1)]
    kb = KEY_BITS
    for k, n in counts.items():
        if k not in window:
            (heap if n > low else buckets[n]).append(-n << kb | k)
    heapify(heap)
    return heap, buckets


def refill(loop: Loop) -> None:
    """Top the window up to ``loop.fill`` entries, best first after its own (every entry outside the window
    is worse than the window's).

    Every live pair outside the window has one entry: in the heap if it was counted more than ``loop.low``
    times when the entry was made, else in ``loop.buckets[count]``. An entry's count is an upper bound
    (counts only fall), corrected when the entry is met: a gone pair's entry is dropped, an out-of-date one
    goes back with its count, to the heap or to its bucket. When the heap runs dry, the bucket of count
    ``low`` becomes the heap (its entries checked as they move) and ``low`` one less: so the heap holds
    only pairs counted more than ``low`` times, and the buckets only pairs counted at most ``low``, and the
    heap's best exact entry is the best pair outside the window."""
    heap, counts, top, top_entry, buckets = loop.heap, loop.counts, loop.top, loop.top_entry, loop.buckets
    pop, pushpop = heappop, heappushpop
    kb, km = KEY_BITS, _KEY_MASK
    low = loop.low
    need = loop.fill - len(top)
    while True:
        code = pop(heap) if heap and need else 0
        while code:
            k = code & km
            n = counts.get(k)
            if n is None:  # the pair is gone
                code = pop(heap) if heap else 0
            elif n != -(code >> kb):  # an out-of-date count: back in with the right one
                if n > low:
                    code = pushpop(heap, -n << kb | k)
                else:
                    buckets[n].append(-n << kb | k)
                    code = pop(heap) if heap else 0
            else:
                top.append(code)
                top_entry[k] = code
                need -= 1
                code = pop(heap) if heap and need else 0
        if heap or not low:
            break
        # the heap ran dry: the pairs counted ``low`` times are the best left outside the window
        bucket = buckets[low]
        buckets[low] = []
        for code in bucket:
            k = code & km
            n = counts.get(k)
            if n == low:
                heap.append(code)
            elif n is not None:
                buckets[n].append(-n << kb | k)
        heapify(heap)
        low -= 1
    loop.low = low
    loop.bound = top[-1] if heap and top else 0


def chunk_steps(loop: Loop, top_k: int, min_frequency: int) -> Iterator[Step]:
    """The merges of ``loop`` (window rules, chunk backend) one by one; when it ends, ``loop.stop_reason``
    says why. ``loop.next_id``, ``loop.tokens`` and the tables are kept up to date after every merge.

    A pair is named by its int tie key ``rank[left] << 21 | rank[right]`` (an entry's low bits) in ``counts``,
    the window and the backend's index: a pair's string is built once a merge, for the merged pair only."""
    backend: ChunkBackend = loop.backend
    chunks, where, weight = backend.chunks, backend.where, backend.weights.__getitem__
    counts, top, top_entry, chars, rank = loop.counts, loop.top, loop.top_entry, loop.chars, loop.rank
    want = loop.want
    merge_repeated = backend._merge_repeated
    join = "".join
    kb, ib, km, im = KEY_BITS, ID_BITS, _KEY_MASK, _ID_MASK
    every_pair = 0
    # per merge, emptied before each: chunks by neighbour character, the pairs born in chunks holding the
    # merged pair more than once (key -> [count, chunk index, ...]), the window's pairs whose count fell
    lefts: defaultdict[str, list[int]] = defaultdict(list)
    rights: defaultdict[str, list[int]] = defaultdict(list)
    repeated: dict[int, Any] = {}
    touched: set[int] = set()
    # the window's bound and the queue outside it: changed only by refill and _compact, read again after them
    heap, bound, low, buckets = loop.heap, loop.bound, loop.low, loop.buckets
    while True:
        if len(top) < want and bound != every_pair:
            refill(loop)
            bound, low = loop.bound, loop.low
        if not top:
            loop.stop_reason = "no pair left to merge"
            return
        code = top[0]
        count = -(code >> kb)
        if count < min_frequency:
            loop.stop_reason = f"the best pair occurs {count} times, below min_frequency={min_frequency}"
            return
        shown = tuple(top[:top_k]) if top_k > 1 else (code,)
        key = code & km
        ra, rb = key >> ib, code & im  # the pair's two tie key parts
        pair = chars[ra] + chars[rb]
        new_id = loop.next_id
        new = chr(new_id)
        del top[0]
        del top_entry[key]
        # every occurrence removes a token, but for overlaps ("aaa" holds (a, a) twice, merges once)
        removed = counts.pop(key)
        rank.append(new_id)  # a new token's tie key part is its id
        chars.append(new)
        # As ChunkBackend.merge: a chunk holding the pair once changes only next to it; the chunks are
        # gathered per neighbour character and the counts updated once per distinct neighbour.
        places = where.pop(key, ())
        if len(places) == 1:
            # One chunk holds the pair (most late merges): its two neighbours, without the grouping below
            i = places[0]
            old = chunks[i]
            head, found, tail = old.partition(pair)
            if found and pair not in tail:
                chunks[i] = join((head, new, tail))
                w = weight(i)
                fallen = []  # the window's pairs whose count fell
                if head:
                    rx = rank[ord(head[-1])]
                    p = rx << ib | ra
                    m = counts[p] - w
                    if m:
                        counts[p] = m
                    else:
                        del counts[p]
                        del where[p]
                    if p in top_entry:
                        fallen.append(p)
                    q = rx << ib | new_id
                    where[q] = places
                    counts[q] = w
                    code = -w << kb | q
                    if code < bound:
                        insort(top, code)
                        top_entry[q] = code
                    elif w > low:
                        heappush(heap, code)
                    else:
                        buckets[w].append(code)
                if tail:
                    rx = rank[ord(tail[0])]
                    p = rb << ib | rx
                    if p == key:  # "aaa" merging (a, a): see below
                        removed -= w
                    else:
                        m = counts[p] - w
                        if m:
                            counts[p] = m
                        else:
                            del counts[p]
                            del where[p]
                        if p in top_entry and p not in fallen:
                            fallen.append(p)
                    q = new_id << ib | rx
                    where[q] = [i]
                    counts[q] = w
                    code = -w << kb | q
                    if code < bound:
                        insort(top, code)
                        top_entry[q] = code
                    elif w > low:
                        heappush(heap, code)
                    else:
                        buckets[w].append(code)
                for p in fallen:  # as for touched below: move down, or out to the heap
                    code = top_entry.pop(p)
                    del top[bisect_left(top, code)]
                    left = counts.get(p)
                    if left is not None:
                        code = -left << kb | p
                        if code < bound:
                            insort(top, code)
                            top_entry[p] = code
                        elif left > low:
                            heappush(heap, code)
                        else:
                            buckets[left].append(code)
                loop.next_id = new_id + 1
                loop.tokens -= removed
                if len(heap) > 2 * len(counts) + 10_000:
                    loop._compact()
                    heap, buckets = loop.heap, loop.buckets
                yield pair, count, shown, removed
                continue
        lefts.clear()
        rights.clear()
        repeated.clear()
        touched.clear()
        for i in places:
            old = chunks[i]
            head, found, tail = old.partition(pair)
            if not found:
                continue  # the pair left this chunk in an earlier merge (``where`` is never pruned)
            if pair in tail:
                removed -= merge_repeated(i, old, pair, new, counts, top_entry, repeated, touched, rank, ib)
                continue
            chunks[i] = join((head, new, tail))
            if head:
                lefts[head[-1]].append(i)
            if tail:
                rights[tail[0]].append(i)
        # The pairs born, (x, new) and (new, x), go straight to the window or the heap; those born in a
        # chunk holding the pair more than once join them first (``repeated``: key -> [count, index, ...]).
        for x, places in lefts.items():
            n = sum(map(weight, places)) if len(places) > 1 else weight(places[0])
            rx = rank[ord(x)]
            p = rx << ib | ra  # never the merged pair: its first occurrence would start at x
            m = counts[p] - n
            if m:
                counts[p] = m
            else:
                del counts[p]
                del where[p]
            if p in top_entry:
                touched.add(p)
            q = rx << ib | new_id
            if repeated and q in repeated:
                entry = repeated.pop(q)
                n += entry[0]
                places.extend(entry[1:])
            where[q] = places
            counts[q] = n
            code = -n << kb | q
            if code < bound:
                insort(top, code)
                top_entry[q] = code
            elif n > low:
                heappush(heap, code)
            else:
                buckets[n].append(code)
        for x, places in rights.items():
            n = sum(map(weight, places)) if len(places) > 1 else weight(places[0])
            rx = rank[ord(x)]
            p = rb << ib | rx
            if p == key:  # "aaa" merging (a, a): the right neighbour's pair is the merged one,
                removed -= n  # counted in its count but not merged
            else:
                m = counts[p] - n
                if m:
                    counts[p] = m
                else:
                    del counts[p]
                    del where[p]
                if p in top_entry:
                    touched.add(p)
            q = new_id << ib | rx
            if repeated and q in repeated:
                entry = repeated.pop(q)
                n += entry[0]
                places.extend(entry[1:])
            where[q] = places
            counts[q] = n
            code = -n << kb | q
            if code < bound:
                insort(top, code)
                top_entry[q] = code
            elif n > low:
                heappush(heap, code)
            else:
                buckets[n].append(code)
        for q, entry in repeated.items():  # born only in chunks holding the pair more than once
            n = entry[0]
            del entry[0]
            where[q] = entry
            counts[q] = n
            code = -n << kb | q
            if code < bound:
                insort(top, code)
                top_entry[q] = code
            elif n > low:
                heappush(heap, code)
            else:
                buckets[n].append(code)
        for p in touched:  # counts in the window that fell: move down, or out to the heap
            code = top_entry.pop(p)
            del top[bisect_left(top, code)]
            left = counts.get(p)
            if left is not None:
                code = -left << kb | p
                if code < bound:
                    insort(top, code)
                    top_entry[p] = code
                elif left > low:
                    heappush(heap, code)
                else:
                    buckets[left].append(code)
        loop.next_id = new_id + 1
        loop.tokens -= removed
        if len(heap) > 2 * len(counts) + 10_000:
            loop._compact()
            heap, buckets = loop.heap, loop.buckets
        yield pair, count, shown, removed
