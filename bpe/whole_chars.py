"""Characters that may start tiktoken's merge rule as their own token instead of their bytes.

A CJK character is three bytes, so the rule (:mod:`bpe.rank_merge`) spends two merges putting it back
together before any merge between characters. Those merges can be skipped for a character ``c`` when:

1. ``c``'s bytes, merged alone, become one token, and the highest rank on that way is ``c``'s own rank
   (its last merge): call it ``r(c)``;
2. no token that would join a *partial* ``c`` to its neighbour ranks at or below ``r(c)``: a token ending
   with the byte before ``c`` and then a proper prefix of ``c``'s bytes, or starting with a proper suffix of
   ``c``'s bytes and then the byte after ``c`` (such tokens hold stray bytes: a few hundred in a vocabulary);
3. while ``c`` stands whole, the rule never joins it to a neighbour at a rank at or below ``r(c)``: checked
   as the loop runs (:func:`merge_from_chars` falls back to the bytes if it would).

Why the ids are the same: while ``c`` is partial in the plain rule, one of its inner pairs ranks at most
``r(c)`` (the next step of its own way), and every pair joining a partial ``c`` to a neighbour ranks above
``r(c)`` (2), so none is ever the lowest: ``c``'s inner merges happen exactly as alone, interleaved with
merges elsewhere that they do not touch. The plain rule's merges that are not inside ``c`` are then the
ones made from ``c`` whole, in the same order: a pair joining whole ``c`` to a neighbour is chosen in one
run when it is in the other, because it ranks above ``r(c)`` (3), by which time the plain rule has finished
``c``. Each character so started is one such step; leftmost-first ties fall the same way (equal ranks are
the same token).

Measured on 1 MB of eight languages (``o200k_base``): 87 % of the multi-byte characters of the pieces to
merge start whole in their place, 57,000 of the 105,000 merges skipped; the rest start as bytes because a
token such as ``" \\xe8"`` (a space and a stray lead byte) ranks below the character.

>>> ranks = {bytes([b]): b for b in range(256)} | {b"a\\xc3": 256, "é".encode(): 300}
>>> chars = WholeChars(ranks, [b"a\\xc3"])
>>> chars["é"][:3], chars["a"][:2]
((2, 300, frozenset({97})), (1, -1))
>>> merge_from_chars("éé", chars, ranks), merge_from_chars("aé", chars, ranks)
([300, 300], None)
"""

from __future__ import annotations

from itertools import repeat
from typing import Iterable, Mapping

from .merging import _NO_RANK, LONG_CHUNK

__all__ = ["WholeChars", "merge_from_chars"]

_NONE: frozenset[int] = frozenset()
#: the bytes a lead byte's character has (0: not a lead byte)
_WIDTH = [0] * 0xC2 + [2] * (0xE0 - 0xC2) + [3] * 16 + [4] * 5 + [0] * (256 - 0xF5)

#: char -> (its bytes' count, its id if it may start whole (1 above) else -1, the bytes before it and the
#: bytes after it that keep it from starting whole (2 above), its bytes' ids)
CharInfo = tuple[int, int, frozenset[int], frozenset[int], tuple[int, ...]]


def _stray_edges(strays: Iterable[bytes], ranks: Mapping[bytes, int]) -> tuple[dict[bytes, dict[int, int]], ...]:
    """``(ends, starts)``: ``ends[k][b]`` the lowest rank of a token ending with byte ``b`` and then ``k``, a
    lead byte with fewer continuation bytes than its character needs; ``starts[k][b]`` the lowest rank of a
    token starting with ``k``, 1-3 continuation bytes, and then byte ``b``. Only ``strays`` (the tokens that
    are not valid UTF-8) can be either."""
    ends: dict[bytes, dict[int, int]] = {}
    starts: dict[bytes, dict[int, int]] = {}
    for tok in strays:
        r = ranks.get(tok)
        if r is None:
            continue
        n = len(tok)
        j = n - 1
        while j >= 0 and 0x80 <= tok[j] < 0xC0:
            j -= 1
        if j >= 1 and n - j < _WIDTH[tok[j]]:
            got = ends.setdefault(tok[j:], {})
            if r < got.get(tok[j - 1], _NO_RANK):
                got[tok[j - 1]] = r
        k = 0
        while k < n and 0x80 <= tok[k] < 0xC0:
            k += 1
        if 1 <= k <= 3 and k < n:
            got = starts.setdefault(tok[:k], {})
            if r < got.get(tok[k], _NO_RANK):
                got[tok[k]] = r
    return ends, starts


def _top_rank_alone(data: bytes, ranks: Mapping[bytes, int]) -> int:
    """The highest rank the rule uses to merge ``data`` alone into one token (-1: it ends in several)."""
    whole = ranks.get(data, -1)
    if len(data) == 2 or whole < 0:
        return whole
    if len(data) == 3:  # the lower of the two pairs first, then the whole
        first = min(ranks.get(data[:2], _NO_RANK), ranks.get(data[1:], _NO_RANK))
        return -1 if first == _NO_RANK else max(first, whole)
    parts = [data[i : i + 1] for i in range(len(data))]
    top = -1
    while len(parts) > 1:
        pair = list(map(ranks.get, map(bytes.__add__, parts, parts[1:]), repeat(_NO_RANK)))
        best = min(pair)
        if best == _NO_RANK:
            return -1
        i = pair.index(best)
        parts[i : i + 2] = [parts[i] + parts[i + 1]]
        top = max(top, best)
    return top


class WholeChars(dict[str, CharInfo]):
    """``chars[c]``: :data:`CharInfo` of the character ``c`` for the vocabulary ``ranks`` (``strays``: its
    tokens that are not valid UTF-8, or more). Judged once per character (the stray tables are built at the
    first), then one lookup."""

    __slots__ = ("_ranks", "_strays", "_ends", "_starts", "_byte_ids")

    def __init__(self, ranks: Mapping[bytes, int], strays: Iterable[bytes]):
        super().__init__()
        self._ranks = ranks
        self._strays: Iterable[bytes] | None = strays
        self._ends: dict[bytes, dict[int, int]] = {}
        self._starts: dict[bytes, dict[int, int]] = {}
        self._byte_ids = [ranks[bytes([b])] for b in range(256)]

    def __missing__(self, c: str) -> CharInfo:
        if self._strays is not None:
            self._ends, self._starts = _stray_edges(self._strays, self._ranks)
            self._strays = None
        data = c.encode("utf-8")
        n = len(data)
        info: CharInfo = (n, -1, _NONE, _NONE, tuple(map(self._byte_ids.__getitem__, data)))
        own = self._ranks.get(data, -1) if n > 1 else -1
        if own >= 0 and _top_rank_alone(data, self._ranks) == own:
            before, after = _NONE, _NONE
            for k in range(1, n):
                got = self._ends.get(data[:k])
                if got:
                    before = before.union(b for b, r in got.items() if r <= own)
                got = self._starts.get(data[k:])
                if got:
                    after = after.union(b for b, r in got.items() if r <= own)
            info = (n, own, before, after, info[4])
        self[c] = info
        return info


def merge_from_chars(piece: str, chars: WholeChars, ranks: Mapping[bytes, int]) -> list[int] | None:
    """The ids of ``piece``'s bytes under the rule (no whole-piece lookup), each character that may start
    whole in its place (:class:`WholeChars`) started as its token; ``None`` if none may, or if the loop would
    join a whole-started character at a rank it does not prove (the caller merges the bytes)."""
    data = piece.encode("utf-8")
    size = len(data)
    if size > LONG_CHUNK:
        return None
    ids: list[int] = []
    starts: list[int] = []
    pos = 0
    for c in piece:
        n, own, before, after, byte_ids = chars[c]
        if own >= 0 and (not pos or data[pos - 1] not in before) and (pos + n == size or data[pos + n] not in after):
            ids.append(own)
            starts.append(pos)
        elif n == 1:
            ids.append(byte_ids[0])
            starts.append(pos)
        else:
            ids += byte_ids
            starts += range(pos, pos + n)
        pos += n
    if len(ids) == size:
        return None
    starts.append(size)
    rank_of = ranks.get
    pair = list(map(rank_of, map(data.__getitem__, map(slice, starts, starts[2:])), repeat(_NO_RANK)))
    k = len(pair)
    while k:
        best = min(pair)
        if best == _NO_RANK:
            break
        i = pair.index(best)
        if best <= ids[i] or best <= ids[i + 1]:  # (3): never for a vocabulary learnt merge by merge
            return None
        ids[i] = best
        del ids[i + 1]
        del pair[i]
        del starts[i + 1]
        k -= 1
        if i:
            pair[i - 1] = rank_of(data[starts[i - 1] : starts[i + 1]], _NO_RANK)
        if i < k:
            pair[i] = rank_of(data[starts[i] : starts[i + 2]], _NO_RANK)
    return ids
