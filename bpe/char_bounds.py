"""Where no merge can ever cross: the places a chunk may be cut before tiktoken's merge rule runs.

Under the ranks rule (:mod:`bpe.rank_merge`) every merge makes a token out of two neighbouring parts. So if
no token of the vocabulary *holds* a boundary between two characters -- has bytes on both sides of it --
no merge ever joins a part on its left to a part on its right, and the merges on each side are exactly the
merges that side makes alone: the chunk's ids (after its whole-chunk lookup) are the ids of the two sides
merged apart, one after the other. Whichever side merges first at equal ranks does not matter: the sides
never meet. This holds for any ranks vocabulary, not only tiktoken's.

A token holds the boundary between the characters ``p`` and ``c`` if it is ``u + v`` with ``u`` a suffix of
what stands before the boundary (it ends with the whole ``p``, or it is a proper suffix of ``p``'s bytes,
i.e. continuation bytes) and ``v`` a prefix of what follows (it starts with the whole ``c``, or it is a
proper prefix of ``c``'s bytes). What stands further away is not looked at: a boundary is called free only
if no token holds it in any context. Decoding a token with ``surrogateescape`` shows its whole characters
and its stray bytes (the decoder starts afresh at every lead byte, so each character embedded in a token
decodes as itself).

Non-Latin text has many free boundaries (measured, 1 MB of eight languages: 33 % of the boundaries inside
the non-ASCII chunks that need merging for ``o200k_base``, 55 % for ``cl100k_base``), and the pieces between
them repeat across chunks, so each distinct piece is merged once.

>>> ranks = {bytes([b]): b for b in range(256)} | {"ab".encode(): 256, "é".encode(): 257}
>>> cross = Crossable(ranks)
>>> cross["ab"], cross["bé"], cross["éa"], cross["ba"]
(True, False, False, True)
"""

from __future__ import annotations

import re
from typing import Mapping

__all__ = ["Crossable", "token_boundaries", "JUDGED_SIZE"]

#: Two-character strings whose verdict is remembered; the table is emptied when it grows past this.
JUDGED_SIZE = 200_000

_CONT_LO, _CONT_HI = "\udc80", "\udcbf"  # a stray continuation byte, decoded with surrogateescape
_LEAD_LO, _LEAD_HI = "\udcc2", "\udcf4"  # a stray lead byte


#: every two neighbouring characters of the joined tokens, one of them not ASCII, neither the NUL between tokens
_PAIR = re.compile("(?=([^\x00-\x7f][^\x00]|[^\x00][^\x00-\x7f]))")
#: a token (between NULs) with a stray byte
_STRAYED = re.compile("[^\x00]*[\udc80-\udcff][^\x00]*")


def _stray(ch: str) -> bool:
    return "\udc80" <= ch <= "\udcff"


def token_boundaries(ranks: Mapping[bytes, int]) -> tuple[set[str], dict[str | bytes, set[str | bytes]]]:
    """The boundaries the tokens of ``ranks`` hold, next to a non-ASCII byte (a boundary between two ASCII
    characters is never free: :class:`Crossable` does not ask).

    Returns ``(pairs, partial)``: ``pairs`` holds every two-character string ``p + c`` met inside a token
    (and some strings no text holds, which only ever make a boundary look held); ``partial`` maps a left
    piece (a whole character, or a proper suffix of one's bytes) to the right pieces (a whole character, or
    a proper prefix of one's bytes) that a token with stray bytes holds a boundary between.

    Built in C-level passes over all non-ASCII tokens joined by NUL bytes (o200k_base: ~0.05 s); only the
    tokens with stray bytes or a NUL of their own are read one by one."""
    toks = [t for t in ranks if not t.isascii()]
    blob = b"\x00".join(toks).decode("utf-8", "surrogateescape")
    pairs = set(_PAIR.findall(blob))
    partial: dict[str | bytes, set[str | bytes]] = {}
    for s in _STRAYED.findall(blob) + [t.decode("utf-8", "surrogateescape") for t in toks if b"\x00" in t]:
        _read_one(s, s.encode("utf-8", "surrogateescape"), pairs, partial)
    return pairs, partial


def _read_one(s: str, tok: bytes, pairs: set[str], partial: dict[str | bytes, set[str | bytes]]) -> None:
    """The boundaries one token holds, ``s`` its ``surrogateescape`` decoding."""
    n = len(s)
    k = 0  # the stray continuation bytes it starts with: the end of a character before
    while k < n and _CONT_LO <= s[k] <= _CONT_HI:
        k += 1
    j = n - 1  # the last byte that is not a stray continuation: a stray lead there starts a character
    while j >= 0 and _CONT_LO <= s[j] <= _CONT_HI:
        j -= 1
    tail = j >= 1 and _LEAD_LO <= s[j] <= _LEAD_HI and n - j <= 3
    for i in range(max(1, k), n):
        left: str | bytes
        right: str | bytes
        if not _stray(s[i - 1]):
            left = s[i - 1]
        elif i == k and k <= 3:
            left = tok[:k]
        else:
            continue  # stray bytes no valid text has before a character boundary
        if not _stray(s[i]):
            right = s[i]
        elif tail and i == j:
            right = tok[len(tok) - (n - j) :]
        else:
            continue
        if isinstance(left, str) and isinstance(right, str):
            pairs.add(left + right)
        else:
            partial.setdefault(left, set()).add(right)


class Crossable(dict[str, bool]):
    """``cross[p + c]``: whether some token of ``ranks`` holds the boundary between the characters ``p`` and
    ``c`` (``False``: the chunk may be cut there). Judged once per two characters, then one C-level lookup
    (at most :data:`JUDGED_SIZE` remembered)."""

    __slots__ = ("_pairs", "_partial", "_lefts", "_fresh")

    def __init__(self, ranks: Mapping[bytes, int]):
        super().__init__()
        pairs, self._partial = token_boundaries(ranks)
        self._pairs = dict.fromkeys(pairs, True)  # each pair met inside a token: held
        self._lefts: dict[str, set[str | bytes]] = {}
        self._fresh = True

    def clear(self) -> None:
        """Forget the verdicts judged."""
        super().clear()
        self._fresh = True

    def _rights(self, p: str) -> set[str | bytes]:
        """Every right piece some token holds a boundary with, after ``p`` (itself or its bytes' tail)."""
        got = self._lefts.get(p)
        if got is None:
            got = set(self._partial.get(p, ()))
            data = p.encode("utf-8")
            for m in range(1, len(data)):
                got |= self._partial.get(data[-m:], set())
            self._lefts[p] = got
        return got

    def __missing__(self, pair: str) -> bool:
        if self._fresh:  # the first judgment: every pair met inside a token is held, copied in at once
            self._fresh = False  # (~22,000 for o200k_base: ~30 % of a cold multilingual text's judgments)
            self.update(self._pairs)
            if pair in self._pairs:
                return True
        elif len(self) >= JUDGED_SIZE + len(self._pairs):
            self.clear()
        p, c = pair[0], pair[1]
        held = pair in self._pairs or (p < "\x80" and c < "\x80")
        if not held:
            rights = self._rights(p)
            if rights:
                data = c.encode("utf-8")
                held = c in rights or any(data[:m] in rights for m in range(1, len(data)))
        self[pair] = held
        return held
