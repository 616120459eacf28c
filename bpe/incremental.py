"""Re-encoding a text after an edit without encoding it all again: an editor's tokenizer.

:class:`IncrementalEncoder` keeps a text, its ids and where each *unit* starts -- a unit is one pre-tokenizer
chunk or one special token, the pieces BPE merges never cross. After an edit (:meth:`IncrementalEncoder.edit`)
it re-cuts the text from a unit a little before the edit to the first unit boundary after it where the new cut
agrees with the old one (the text after that point is the same and the cut only looks forward from a unit
start), encodes those chunks and splices their ids in. The ids always equal ``tok.encode(text,
allowed_special="all")`` (``specials=True``) or ``tok.encode_ordinary(text)`` (``specials=False``): a
one-character edit of a 1 MB text re-encodes a few chunks instead of ~250,000.

Contract:

* Only tokenizers whose cut is local can be edited in place (:func:`can_edit_incrementally`): no Hugging Face
  pipeline (its normalizers and pre-tokenizers are not ours to re-run on a slice), no ``unk_token`` (a run of
  unknown characters fuses across chunks), no normalization but NFC -- and NFC only while the text is NFC
  already (then normalizing changes nothing and positions are the text's own) -- and a registry pattern or
  none (a custom regex may look behind, or use ``\\b``/``^``). Anything else is encoded whole on every edit by
  the caller, as before.
* Positions are indices into the Python string (code points).
* A pattern that leaves text unmatched keeps it as a chunk of its own (as :func:`bpe.pretokenize` does), so the
  units always cover the text.

>>> import bpe
>>> tok = bpe.load_pretrained("cl100k_base")
>>> inc = IncrementalEncoder(tok, "hello world<|endoftext|> and more", specials=True)
>>> inc.edit(5, 0, ",")       # (first token re-encoded, tokens replaced, their new ids)
(0, 3, [15339, 11, 1917, 100257])
>>> list(inc.ids) == tok.encode("hello, world<|endoftext|> and more", allowed_special="all")
True
>>> first, deleted, new = inc.edit(12, 3, "")   # cut into the special token: it becomes plain text
>>> 100257 in inc.ids, inc.special_count
(False, 0)
>>> list(inc.ids) == tok.encode("hello, worldndoftext|> and more", allowed_special="all")
True
"""

from __future__ import annotations

import unicodedata
from array import array
from bisect import bisect_left, bisect_right
from itertools import accumulate, chain

from .special_tokens import cut_at_specials
from .splitting import pretokenize_pieces
from .tokenizer import Tokenizer

__all__ = ["IncrementalEncoder", "can_edit_incrementally", "NotIncremental"]

#: units encoded after an edit's end before the new cut is compared with the old one (doubled until they agree)
_AHEAD = 8
#: units at the end of a re-cut slice that are not trusted (the slice's end is not the text's: a pattern's
#: lookahead, ``$`` or a special token could see past it there)
_UNTRUSTED = 3


class NotIncremental(ValueError):
    """This tokenizer, or this text, cannot be re-encoded in place (the caller encodes it whole)."""


def can_edit_incrementally(tok: Tokenizer) -> bool:
    """Whether :class:`IncrementalEncoder` takes ``tok`` (see the module's contract).

    >>> import bpe
    >>> can_edit_incrementally(bpe.load_pretrained("cl100k_base"))
    True
    """
    if tok.pipeline is not None or tok.unk_id is not None:
        return False
    if tok.normalize not in (None, "NFC"):
        return False
    return tok.pattern is None or not tok.pattern.custom


class IncrementalEncoder:
    """A text and its ids, kept up to date edit by edit (see the module docstring).

    ``ids``: the ids (``array('I')``); ``text``: the text. Raises :class:`NotIncremental` for a tokenizer
    :func:`can_edit_incrementally` refuses or a text it cannot take (not NFC for an NFC tokenizer), and
    whatever encoding raises (``UnknownCharacterError`` of a char-level tokenizer, a pattern's timeout).
    """

    def __init__(self, tok: Tokenizer, text: str, *, specials: bool = True):
        if not can_edit_incrementally(tok):
            raise NotIncremental(f"{tok!r} cannot be re-encoded in place")
        self.tok = tok
        self.allowed: tuple[str, ...] = tuple(tok.special_tokens) if specials else ()
        self._longest = max(map(len, self.allowed), default=0)
        self._lookup = tok._cache.__getitem__  # chunk -> ids, remembered per tokenizer
        self._special_ids = frozenset(tok.special_tokens.values())
        self.text = ""
        self.ids = array("I")
        # where each unit starts, then the text's length; the first token of each unit, then the token count
        # (4-byte integers: texts of up to 2**31 characters).
        # Stored lazily shifted: entries from index _pivot on are _dchars (_dtoks) short of their value, so an
        # edit shifts only the entries between it and the previous edit, not the whole tail (typing in one
        # place shifts next to nothing).
        self._starts = array("i", [0])
        self._toks = array("i", [0])
        self._pivot = 0
        self._dchars = self._dtoks = 0
        self.special_count = 0  # special-token ids among ids
        self.edit(0, 0, text)

    def unit_count(self) -> int:
        """How many units (pre-tokenizer chunks and special tokens) the text is cut into."""
        return len(self._starts) - 1

    def unit_start(self, i: int) -> int:
        """Where unit ``i`` starts in the text (``unit_count()``: the text's length)."""
        return self._start(i)

    def unit_token(self, i: int) -> int:
        """The index in :attr:`ids` of unit ``i``'s first token (``unit_count()``: the token count)."""
        return self._tok(i)

    def _start(self, i: int) -> int:
        return self._starts[i] + (self._dchars if i >= self._pivot else 0)

    def _tok(self, i: int) -> int:
        return self._toks[i] + (self._dtoks if i >= self._pivot else 0)

    def _find(self, x: int) -> int:
        """``bisect_right`` of ``x`` in the unit starts (as they are, shifts applied)."""
        s, p = self._starts, self._pivot
        if p >= len(s) or x < s[p] + self._dchars:
            return bisect_right(s, x, 0, p)
        return bisect_right(s, x - self._dchars, p, len(s))

    def _check(self, text: str, at: int = 0, end: int | None = None) -> None:
        """Refuse a text NFC would change. After an edit (``text[at:end]`` inserted into a text that was NFC) only
        the stretch between the nearest ASCII characters around the edit is checked: NFC never looks across
        the start of an ASCII character (it combines with nothing before it and blocks what follows), so the
        pieces on either side stay as they were."""
        if self.tok.normalize != "NFC":
            return
        if end is not None and self.text and text:
            lo, hi, n = max(0, at - 1), end, len(text)  # (text[lo] is the old text's: lo < at)
            limit = 4096
            while lo > 0 and ord(text[lo]) >= 128 and at - lo < limit:
                lo -= 1
            while hi < n and ord(text[hi]) >= 128 and hi - end < limit:
                hi += 1
            if (lo == 0 or ord(text[lo]) < 128) and (hi == n or ord(text[hi]) < 128):
                text = text[lo:hi]
        if not unicodedata.is_normalized("NFC", text):
            raise NotIncremental("the text changes under NFC")

    def _cut(self, text: str, start: int, end: int) -> tuple[list[int], list[tuple[int, ...]]]:
        """Units of ``text[start:end]`` cut as if it were the whole text: their starts (in ``text``) and ids."""
        region = text[start:end]
        if self.allowed:
            pieces, found = cut_at_specials(region, self.allowed)
        else:
            pieces, found = [region], []
        chunked = pretokenize_pieces(pieces, self.tok.pattern)
        self.tok._cache.trim()
        starts: list[int] = []
        units: list[tuple[int, ...]] = []
        pos = start
        lookup = self._lookup
        special = self.tok.special_tokens
        for i, chunks in enumerate(chunked):
            lengths = list(map(len, chunks))
            if chunks:
                starts.extend(accumulate(lengths[:-1], initial=pos))
            units.extend(map(lookup, chunks))
            pos += sum(lengths)
            if i < len(found):
                starts.append(pos)
                units.append((special[found[i]],))
                pos += len(found[i])
        if pos != end:
            raise NotIncremental("the pattern's chunks do not cover the text")
        return starts, units

    def edit(self, at: int, removed: int, inserted: str) -> tuple[int, int, list[int]]:
        """Replace ``removed`` characters at ``at`` by ``inserted``; returns how the ids changed: ``(first, deleted,
        new)``, i.e. ``ids = ids[:first] + new + ids[first + deleted:]``."""
        old = self.text
        if not (0 <= at <= len(old) and 0 <= removed <= len(old) - at):
            raise ValueError(f"an edit at {at} removing {removed} of {len(old)} characters")
        text = old[:at] + inserted + old[at + removed :]
        self._check(text, at, at + len(inserted))
        delta = len(inserted) - removed
        starts, toks = self._starts, self._toks
        n_units = len(starts) - 1
        find, start_of = self._find, self._start
        # the slice re-cut starts two units before the one holding the first character a special token
        # through the edit could begin at (a chunk's match may have looked one unit ahead)
        left = max(0, at - max(self._longest - 1, 0))
        k = min(max(0, find(left) - 1 - 2), n_units)
        start = start_of(k)
        edit_end = at + len(inserted)  # in the new text
        agree_from = edit_end + self._longest  # a boundary that far past the edit can be trusted
        first_after = min(find(at + removed), n_units)  # old unit index past the edit
        ahead = _AHEAD
        while True:
            last = min(n_units, first_after + ahead)
            end_old = start_of(last)
            whole = last >= n_units
            end = len(text) if whole else end_old + delta
            new_starts, new_units = self._cut(text, start, end)
            trusted = len(new_starts) if whole else len(new_starts) - _UNTRUSTED
            stop = None  # (new unit index, old unit index) where the cuts agree
            for m in range(bisect_left(new_starts, agree_from, 0, max(0, trusted)), max(0, trusted)):
                p = new_starts[m]  # (the starts before agree_from cannot be trusted: skipped)
                q = find(p - delta) - 1
                if 0 <= q < n_units and start_of(q) == p - delta and q >= first_after:
                    stop = (m, q)
                    break
            if stop is None and whole:
                stop = (len(new_starts), n_units)
            if stop is not None:
                break
            ahead *= 4
        m, q = stop
        units = new_units[:m]
        first = self._tok(k)
        deleted = self._tok(q) - first
        new_ids: list[int] = list(chain.from_iterable(units))
        if self.allowed:
            # (special ids come only from special units: a special token's string encoded as text never gives
            # one; counted with C-level lookups: a 1 MB paste has ~250,000 ids)
            is_special = self._special_ids.__contains__
            gone = sum(map(is_special, self.ids[first : first + deleted])) if self.special_count else 0
            self.special_count += sum(map(is_special, new_ids)) - gone
        self.ids[first : first + deleted] = array("I", new_ids)
        shift = len(new_ids) - deleted
        pivot, dchars, dtoks = self._pivot, self._dchars, self._dtoks
        if dchars or dtoks:
            # entries between this edit and the last one take the last one's shift now (see __init__)
            if pivot <= k:
                lo, hi, sc, st = pivot, k, dchars, dtoks  # before this edit: their whole shift
            else:
                lo, hi, sc, st = q, max(q, pivot), -dchars, -dtoks  # after it: the pivot moves back over them
            if hi > lo:
                starts[lo:hi] = array("i", map(sc.__add__, starts[lo:hi]))
                toks[lo:hi] = array("i", map(st.__add__, toks[lo:hi]))
        self._starts = starts[:k] + array("i", new_starts[:m]) + starts[q:]  # (with the end)
        self._toks = toks[:k] + array("i", accumulate(map(len, units[:-1]), initial=first) if units else ()) + toks[q:]
        self._pivot = k + m
        self._dchars, self._dtoks = dchars + delta, dtoks + shift
        self.text = text
        return first, deleted, new_ids
