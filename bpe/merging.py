"""Merging inside one chunk: the two merge rules, one heap for long chunks, and traces.

A tokenizer turns each pre-tokenizer chunk into ids by merging neighbours until no merge applies. Two
rules exist in the wild:

* the **merge-list** rule (what we train, minbpe, Hugging Face): merge the adjacent pair of lowest
  *learned* rank, leftmost first (:func:`apply_merges`);
* the **ranks** rule (tiktoken): merge the adjacent pair whose concatenated bytes form the lowest-ranked
  token, leftmost first (:func:`apply_ranks`).

Short chunks rescan a list of pair ranks after each merge; chunks longer than :data:`LONG_CHUNK` units go
through :func:`merge_by_rank`, a heap with lazy deletion, which the replay forest
(:func:`bpe.replay.chunk_forest`) uses too. :func:`trace_merges` and :func:`trace_ranks` record every
state of a chunk for the "merge by merge" views.

>>> apply_merges([97, 97, 97, 98], {(97, 97): 0, (97, 98): 1}, [256, 257])
[256, 257]
>>> apply_ranks(b"aaab", {b"a": 0, b"b": 1, b"aa": 2, b"ab": 3})
[b'aa', b'ab']
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from itertools import repeat
from typing import Callable, Mapping, Sequence, TypeVar

__all__ = [
    "LONG_CHUNK",
    "merge_by_rank",
    "apply_merges",
    "apply_ranks",
    "merge_parts",
    "byte_pair_ranks",
    "lower_rank_parts",
    "replace_pair",
    "TraceStep",
    "trace_merges",
    "trace_ranks",
]

#: Chunks with more units than this are merged with the heap (O(n log n)) instead of a rescan per merge.
LONG_CHUNK = 256
#: "No merge here": larger than any rank.
_NO_RANK = 1 << 62
_SINGLE_BYTES = [bytes([b]) for b in range(256)]

U = TypeVar("U")


def merge_by_rank(
    units: Sequence[U], rank_of: Callable[[U, U], "int | None"], join: Callable[[U, U, int], U]
) -> list[U]:
    """Merge neighbours by lowest rank, leftmost first, until none merges; O(n log n).

    ``rank_of(left, right)`` is the rank of merging two neighbouring units (``None``: they do not merge);
    ``join(left, right, rank)`` makes the merged unit (it may record the merge: the replay forest does).
    Same result as rescanning for the best pair after every merge, but each merge touches only its
    neighbours. Heap entries ``(rank, place, left, right)`` go stale when a neighbour changes; a popped
    entry is used only if the same two units still stand at that place (then the rank is the same).

    >>> merge_by_rank(list("aaab"), lambda a, b: {"aa": 0, "ab": 1}.get(a + b), lambda a, b, r: a + b)
    ['aa', 'ab']
    """
    n = len(units)
    units = list(units)
    nxt = list(range(1, n + 1))  # index of the next live unit (n: none)
    prv = list(range(-1, n - 1))  # index of the previous live unit (-1: none)
    alive = [True] * n
    heap = []
    for i in range(n - 1):
        left, right = units[i], units[i + 1]
        r = rank_of(left, right)
        if r is not None:
            heap.append((r, i, left, right))
    if not heap:
        return units
    heapq.heapify(heap)
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        r, i, left, right = pop(heap)
        j = nxt[i]
        if not alive[i] or j >= n or units[i] != left or units[j] != right:
            continue  # stale: a neighbour changed since this entry was pushed
        new = units[i] = join(left, right, r)
        alive[j] = False
        k = nxt[j]
        nxt[i] = k
        if k < n:
            prv[k] = i
            after = units[k]
            rk = rank_of(new, after)
            if rk is not None:
                push(heap, (rk, i, new, after))
        p = prv[i]
        if p >= 0:
            before = units[p]
            rp = rank_of(before, new)
            if rp is not None:
                push(heap, (rp, p, before, new))
    return [u for u, live in zip(units, alive) if live]


def apply_merges(ids: list[int], ranks: Mapping[tuple[int, int], int], made: Sequence[int]) -> list[int]:
    """The merge-list rule: merge the lowest-ranked learned pair present, leftmost first, until none is left.

    ``ranks`` maps a pair of ids to its merge rank, ``made[rank]`` is the id that merge creates. For any
    merge list learned by BPE this equals replaying the merges in order. ``ids`` is changed in place
    (short chunks) and returned.

    >>> apply_merges([1, 2, 1, 2], {(1, 2): 0, (3, 3): 1}, [3, 4])
    [4]
    """
    rank_of = ranks.get
    if len(ids) > LONG_CHUNK:
        return merge_by_rank(ids, lambda a, b: rank_of((a, b)), lambda a, b, r: made[r])
    pair_ranks = list(map(rank_of, zip(ids, ids[1:]), repeat(_NO_RANK)))
    while pair_ranks:
        best = min(pair_ranks)
        if best == _NO_RANK:
            break
        i = pair_ranks.index(best)
        ids[i] = made[best]
        del ids[i + 1]
        del pair_ranks[i]
        if i:
            pair_ranks[i - 1] = rank_of((ids[i - 1], ids[i]), _NO_RANK)
        if i < len(pair_ranks):
            pair_ranks[i] = rank_of((ids[i], ids[i + 1]), _NO_RANK)
    return ids


def byte_pair_ranks(ranks: Mapping[bytes, int]) -> list[int]:
    """The rank of every two-byte token, as a list indexed by ``first << 8 | second`` (:data:`_NO_RANK`
    where two bytes are not a token): the first round of :func:`apply_ranks` without building 2-byte
    strings and looking them up.

    >>> table = byte_pair_ranks({b"a": 0, b"b": 1, b"ab": 2})
    >>> table[ord("a") << 8 | ord("b")], table[ord("b") << 8 | ord("a")] == _NO_RANK
    (2, True)
    """
    table = [_NO_RANK] * 65536
    for token, rank in ranks.items():
        if len(token) == 2:
            table[token[0] << 8 | token[1]] = rank
    return table


def apply_ranks(data: bytes, ranks: Mapping[bytes, int], pair_table: Sequence[int] | None = None) -> list[bytes]:
    """The ranks rule (tiktoken): merge the neighbours whose bytes form the lowest-ranked token, leftmost
    first, until no two neighbours form a token; returns the tokens' bytes.

    (tiktoken looks the whole chunk up first; that shortcut is the caller's.) ``pair_table`` is
    :func:`byte_pair_ranks` of ``ranks``, if the caller keeps one.

    >>> apply_ranks(b"abc", {b"a": 0, b"b": 1, b"c": 2, b"bc": 3, b"ab": 4})
    [b'a', b'bc']
    """
    parts = list(map(_SINGLE_BYTES.__getitem__, data))
    if len(parts) > LONG_CHUNK:
        token_rank = ranks.get
        return merge_by_rank(parts, lambda a, b: token_rank(a + b), lambda a, b, _rank: a + b)
    if pair_table is None:
        return merge_parts(parts, ranks)
    return merge_parts(parts, ranks, [pair_table[a << 8 | b] for a, b in zip(data, data[1:])])


def merge_parts(parts: list[bytes], ranks: Mapping[bytes, int], pair_ranks: list[int] | None = None) -> list[bytes]:
    """The ranks rule's loop on any starting parts (single bytes, or pieces already merged): rescan for the
    lowest-ranked neighbours after each merge. ``pair_ranks[i]``, if given, is the rank of
    ``parts[i] + parts[i + 1]`` (:data:`_NO_RANK` where that is no token). ``parts`` is changed in place and
    returned; :func:`apply_ranks` calls it for chunks up to :data:`LONG_CHUNK` bytes.

    >>> merge_parts([b"a", b"bc", b"d"], {b"abc": 5, b"bcd": 3, b"a": 0, b"bc": 1, b"d": 2})
    [b'a', b'bcd']
    """
    token_rank = ranks.get
    if pair_ranks is None:
        pair_ranks = list(map(token_rank, map(bytes.__add__, parts, parts[1:]), repeat(_NO_RANK)))
    while pair_ranks:
        best = min(pair_ranks)
        if best == _NO_RANK:
            break
        i = pair_ranks.index(best)
        parts[i] += parts[i + 1]
        del parts[i + 1]
        del pair_ranks[i]
        if i:
            pair_ranks[i - 1] = token_rank(parts[i - 1] + parts[i], _NO_RANK)
        if i < len(pair_ranks):
            pair_ranks[i] = token_rank(parts[i] + parts[i + 1], _NO_RANK)
    return parts


def lower_rank_parts(ranks: Mapping[bytes, int], token: bytes, max_rank: int) -> list[bytes]:
    """The ranks rule on ``token`` using only tokens ranked below ``max_rank``, stopped at two parts.

    A ranks vocabulary has no merge list; the two parts are the pair that made ``token`` (minbpe's
    ``recover_merges``).

    >>> lower_rank_parts({b"a": 0, b"b": 1, b"ab": 2, b"abb": 3}, b"abb", 3)
    [b'ab', b'b']
    """
    parts = [token[i : i + 1] for i in range(len(token))]
    while len(parts) > 2:
        best = _best_pair(parts, ranks, max_rank)
        if best is None:
            break
        _, i = best
        parts[i : i + 2] = [parts[i] + parts[i + 1]]
    return parts


def _best_pair(parts: Sequence[bytes], ranks: Mapping[bytes, int], below: int = _NO_RANK) -> tuple[int, int] | None:
    """``(rank, index)`` of the leftmost neighbours whose bytes form the lowest-ranked token (ranked below
    ``below``), or ``None``: one step of the ranks rule, written plainly for traces."""
    best: tuple[int, int] | None = None
    for i in range(len(parts) - 1):
        r = ranks.get(parts[i] + parts[i + 1])
        if r is not None and r < below and (best is None or r < best[0]):
            best = (r, i)
    return best


def replace_pair(ids: Sequence[int], pair: tuple[int, int], new_id: int) -> tuple[list[int], list[int]]:
    """Replace every occurrence of ``pair``, left to right, not overlapping, by ``new_id``; return the new
    ids and the positions (in them) of the new tokens. (One merge applied to a whole sequence.)

    >>> replace_pair([97, 97, 97, 98], (97, 97), 256)
    ([256, 97, 98], [0])
    """
    a, b = pair
    out: list[int] = []
    positions: list[int] = []
    i, n = 0, len(ids)
    while i < n:
        if i + 1 < n and ids[i] == a and ids[i + 1] == b:
            positions.append(len(out))
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out, positions


# ----------------------------------------------------------------------------------------------------
# Traces: every state of one chunk


@dataclass(frozen=True, slots=True)
class TraceStep:
    """One state of a chunk while it is encoded: the ids after ``pair`` was merged into ``new_id``.

    The first step of a trace has ``pair=None``: the chunk as base tokens.
    """

    ids: tuple[int, ...]
    pair: tuple[int, int] | None = None
    new_id: int | None = None
    rank: int | None = None
    #: positions (in ``ids``) of the tokens this step created
    positions: tuple[int, ...] = ()


def trace_merges(
    ids: Sequence[int], merges: Mapping[tuple[int, int], int], ranks: Mapping[tuple[int, int], int]
) -> list[TraceStep]:
    """The merge-list rule, one step per merge: each step merges *every* occurrence of the lowest-ranked
    pair (left to right, not overlapping), as replaying the merges in order does.

    ``merges`` maps a pair to the id it makes, ``ranks`` a pair to its rank.

    >>> [s.ids for s in trace_merges([97, 97, 97, 98], {(97, 97): 256, (97, 98): 257},
    ...                             {(97, 97): 0, (97, 98): 1})]
    [(97, 97, 97, 98), (256, 97, 98), (256, 257)]
    """
    ids = list(ids)
    steps = [TraceStep(tuple(ids))]
    while len(ids) >= 2:
        candidates = [(ranks[p], p) for p in zip(ids, ids[1:]) if p in ranks]
        if not candidates:
            break
        r, pair = min(candidates)
        new = merges[pair]
        ids, positions = replace_pair(ids, pair, new)
        steps.append(TraceStep(tuple(ids), pair, new, r, tuple(positions)))
    return steps


def trace_ranks(data: bytes, ranks: Mapping[bytes, int]) -> list[TraceStep]:
    """The ranks rule (tiktoken), one step per merge, ids being ranks; a last step shows tiktoken's
    whole-chunk lookup when it gives a different result than merging.

    >>> [s.ids for s in trace_ranks(b"aab", {b"a": 0, b"b": 1, b"ab": 2, b"aa": 3})]
    [(0, 0, 1), (0, 2)]
    """
    parts = [data[i : i + 1] for i in range(len(data))]
    steps = [TraceStep(tuple(ranks[p] for p in parts))]
    while len(parts) > 1:
        best = _best_pair(parts, ranks)
        if best is None:
            break
        rank, i = best
        pair = (ranks[parts[i]], ranks[parts[i + 1]])
        parts[i : i + 2] = [parts[i] + parts[i + 1]]
        steps.append(TraceStep(tuple(ranks[p] for p in parts), pair, rank, rank, (i,)))
    whole = ranks.get(data)
    if whole is not None and steps[-1].ids != (whole,):
        # tiktoken looks the whole chunk up first: that shortcut wins over the merge path.
        steps.append(TraceStep((whole,), None, whole, whole, (0,)))
    return steps
