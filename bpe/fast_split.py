"""A faster ``findall`` for the registry's pre-tokenizer patterns: the same pattern rewritten over explicit
character classes and run by the standard library's ``re``, whose engine is faster than ``regex`` on them.

``re`` has no ``\\p{L}``, so every character set of the pattern (an *atom*: ``\\p{L}``, ``[^\\r\\n\\p{L}\\p{N}]``,
``\\s``, the letter ``s`` under ``(?i)``...) is replaced by the list of the characters it holds, tested with
``regex`` itself (so the Unicode tables are the ones ``regex.findall`` uses). Which characters to list:

* every ASCII character, always, and the non-ASCII characters of the texts met so far (English or code
  has a few dozen; a multilingual megabyte ~2,000), classified once each.

A text whose non-ASCII characters would take the lists past :data:`DIRECT_LIMIT` gets ``None``: ``regex``
then (long lists cost more to compile than they save). A compile costs ~5 ms with the seed listed (more as the
lists grow), what ``regex`` costs more than ``re`` on ~25,000 characters: so past :data:`EAGER_LIMIT` listed
characters, a text shorter than :data:`LONG_TEXT` that brings new characters gets ``None`` too, and its
characters wait to be listed with the next long text or once :data:`PENDING_BATCH` wait (one compile, not
one per short text, as before: a compile each). Translating each character to a class code first (as
``puretiktoken`` does) measured slower than ``regex`` on multilingual text, because the chunks must be cut out
of the text again; listing the characters lets ``re`` return the chunks themselves.

The rest of the pattern -- alternation, quantifiers (possessive ones too: ``re`` has them since 3.11),
lookaheads, ``$`` -- is copied (``(?i:`` becomes ``(?:``: case folding is inside the atoms), so the matches
are the same. A pattern with anything else (a capturing group, a backreference, ``\\b``...) gets no splitter
(:func:`splitter` returns ``None``) and stays with ``regex``. ``tests/test_fast_split.py`` checks every
registry pattern chunk for chunk against ``regex.findall``.

>>> splitter(r"'(?i:[sdmt]|ll|ve|re)| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+").findall("I'LL pay 5€ für Ωmega")
['I', "'LL", ' pay', ' 5', '€', ' für', ' Ωmega']
"""

from __future__ import annotations

import re
import threading
from typing import Callable

import regex

__all__ = ["Splitter", "splitter", "DIRECT_LIMIT", "EAGER_LIMIT", "LONG_TEXT", "PENDING_BATCH"]

#: Non-ASCII characters a splitter lists at most (with those of the texts met before); past that, ``regex``.
DIRECT_LIMIT = 8000
#: Non-ASCII characters listed from the start (built with the tokenizer, not on its first text): Latin-1,
#: Latin Extended-A/B, general punctuation, currency, letterlike symbols, arrows, the common emoji blocks --
#: what English and code use beyond ASCII. Contiguous, so they cost a few ranges in the pattern.
SEED = "".join(
    chr(c)
    for a, b in (
        (0x80, 0x250),
        (0x2000, 0x2070),
        (0x20A0, 0x20C1),
        (0x2100, 0x2200),
        (0x1F300, 0x1F650),
        (0x1F900, 0x1FA00),
    )
    for c in range(a, b)
)
#: Non-ASCII characters listed up to which every text's new characters are listed at once (the seed and ~500
#: more: a text's own characters, a compile of ~5 ms each time).
EAGER_LIMIT = len(SEED) + 512
#: Past :data:`EAGER_LIMIT`, a text this long or longer still lists its new characters at once: ``regex``
#: (~180 ns a character slower than ``re``) would cost more on it than the compile.
LONG_TEXT = 50_000
#: Past :data:`EAGER_LIMIT`, new characters of short texts are listed once this many are waiting.
PENDING_BATCH = 256
_ASCII = [chr(c) for c in range(128)]
_ASCII_SET = frozenset(_ASCII)
_NON_ASCII = re.compile("[^\x00-\x7f]+")
_QUANT = re.compile(r"\{\d*(?:,\d*)?\}")
_GROUP_OPENERS = ("(?:", "(?!", "(?=", "(?<!", "(?<=", "(?>")


class Unsupported(ValueError):
    """A pattern construct the rewrite does not handle (the pattern stays with ``regex``)."""


def _class_end(src: str, i: int) -> int:
    """The index just past the character class opening at ``src[i] == "["`` (nested sets, escapes)."""
    depth, j = 0, i
    while j < len(src):
        c = src[j]
        if c == "\\":
            j += 2
            continue
        if c == "[":
            depth += 1
            if src.startswith("^", j + 1):
                j += 1
        elif c == "]" and depth:
            depth -= 1
            if not depth:
                return j + 1
        j += 1
    raise Unsupported("unclosed character class")


def _escape_end(src: str, i: int) -> int:
    """The index just past the escape at ``src[i] == "\\\\"``."""
    c = src[i + 1 : i + 2]
    if c in ("p", "P"):
        end = src.find("}", i)
        if end < 0:
            raise Unsupported("\\p without a closing brace")
        return end + 1
    lengths = {"u": 6, "x": 4, "U": 10}
    if c in lengths:
        return i + lengths[c]
    if c.isdigit() or c.isalpha() and c not in "sSdDwWrntfvZA":
        raise Unsupported(f"the escape \\{c}")
    return i + 2


def parse(src: str) -> tuple[list[str | int], list[tuple[str, bool]]]:
    """``(template, atoms)``: the pattern as a list of copied strings and atom indexes, and each atom's
    ``(source, case-insensitive)``.

    >>> parse(r"(?i:'s)|\\p{N}+$")
    (['(?:', 0, 1, ')', '|', 2, '+', '$'], [("'", True), ('s', True), ('\\\\p{N}', False)])
    """
    template: list[str | int] = []
    atoms: dict[tuple[str, bool], int] = {}
    stack: list[bool] = []
    icase = False

    def atom(text: str) -> None:
        template.append(atoms.setdefault((text, icase), len(atoms)))

    i = 0
    while i < len(src):
        c = src[i]
        if c == "[":
            j = _class_end(src, i)
            atom(src[i:j])
        elif c == "\\":
            j = _escape_end(src, i)
            if src[i + 1] == "Z" or src[i + 1] == "A":
                template.append(src[i:j])
            else:
                atom(src[i:j])
        elif c == "(":
            opener = next((o for o in _GROUP_OPENERS if src.startswith(o, i)), None)
            stack.append(icase)
            if opener is not None:
                template.append(opener)
                j = i + len(opener)
            elif src.startswith("(?i:", i):
                template.append("(?:")
                icase, j = True, i + 4
            else:
                raise Unsupported("a capturing group or inline flags")
        elif c == ")":
            if not stack:
                raise Unsupported("unbalanced parenthesis")
            icase = stack.pop()
            template.append(c)
            j = i + 1
        elif c in "|?*+$^":
            template.append(c)
            j = i + 1
        elif c == "{" and (quant := _QUANT.match(src, i)) is not None:
            j = quant.end()
            template.append(src[i:j])
        else:
            atom(c)
            j = i + 1
        i = j
    if stack:
        raise Unsupported("unbalanced parenthesis")
    return template, [a for a, _ in sorted(atoms.items(), key=lambda kv: kv[1])]


def _class(chars: "list[str]") -> str:
    """A ``re`` character class listing ``chars`` (runs of code points as ranges); one that matches
    nothing if empty."""
    if not chars:
        return "[^\x00-\U0010ffff]"
    cps = sorted(set(map(ord, chars)))
    out, k = [], 0
    while k < len(cps):
        end = k
        while end + 1 < len(cps) and cps[end + 1] == cps[end] + 1:
            end += 1
        first = re.escape(chr(cps[k]))
        out.append(first if end == k else first + ("" if end == k + 1 else "-") + re.escape(chr(cps[end])))
        k = end + 1
    return "[" + "".join(out) + "]"


#: pattern source -> (its atoms of each ASCII and seed character, the pattern listing them): ~20 ms a pattern
_SEEDED: "dict[str, tuple[dict[str, tuple[bool, ...]], re.Pattern[str]]]" = {}


class Splitter:
    """``findall`` of one registry pattern (see the module): the same list of chunks, faster."""

    def __init__(self, source: str, direct_limit: int = DIRECT_LIMIT):
        self.source = source
        self.direct_limit = direct_limit
        self._template, atoms = parse(source)
        flags = regex.V1
        self._finders: list[Callable[[str], list[str]]] = [
            regex.compile(("(?i)" if ic else "") + a, flags).findall for a, ic in atoms
        ]
        self._lock = threading.Lock()
        self._sig: dict[str, tuple[bool, ...]] = {}  # character -> the atoms it belongs to
        self._direct_chars: frozenset[str] = frozenset(SEED)
        self._pending: set[str] = set()  # new characters of short texts, not listed yet (see the module)
        seeded = _SEEDED.get(source)
        if seeded is None:  # the seed's classes and pattern: the same for every splitter of this pattern
            self._classify(set(_ASCII) | set(SEED))
            seeded = _SEEDED.setdefault(source, (dict(self._sig), self._compile(set(_ASCII) | self._direct_chars)))
        self._sig = dict(seeded[0])
        self._direct = seeded[1]

    def _compile(self, chars: "set[str]") -> "re.Pattern[str]":
        """The pattern with each atom listing those of ``chars`` that belong to it."""
        sigs = {ch: self._sig[ch] for ch in chars}
        classes = [_class([ch for ch, s in sigs.items() if s[k]]) for k in range(len(self._finders))]
        source = "".join(classes[p] if isinstance(p, int) else p for p in self._template)
        compiled = re.compile(source)
        # re keeps its last 512 patterns; a splitter keeps its own, and each text with new characters makes
        # a new one: out of re's cache, the old ones are freed
        getattr(re, "_cache", {}).pop((str, source, 0), None)
        return compiled

    def _classify(self, chars: "set[str]") -> None:
        """Record which atoms each of ``chars`` belongs to: one ``regex.findall`` per atom over them all."""
        joined = "".join(chars)
        members = []
        for t in self._finders:
            found = t(joined)
            if any(len(m) != 1 for m in found):
                raise Unsupported("an atom matched more than one character")
            members.append(set(found))
        for ch in chars:
            self._sig[ch] = tuple(ch in m for m in members)

    def _grow(self, new: "set[str]") -> None:
        with self._lock:
            chars = self._direct_chars | new
            self._classify(new - self._sig.keys())
            self._direct = self._compile(set(_ASCII) | chars)
            self._direct_chars = chars  # after the pattern: a reader that sees the characters sees it

    def findall(self, text: str) -> "list[str] | None":
        """What ``regex.findall(pattern, text)`` gives (the pattern has no capturing group), or ``None``
        for a text with more distinct non-ASCII characters than :data:`DIRECT_LIMIT` (with those met
        before): then ``regex`` is the faster (the long character lists cost more to compile than they save).
        """
        if text.isascii():
            return self._direct.findall(text)
        return self._direct.findall(text) if self.learn(text) else None

    def learn(self, text: str) -> bool:
        """List the characters of ``text`` (all at once: one compile), unless that takes the lists past
        :data:`DIRECT_LIMIT` or a character cannot be listed (then False). A caller about to cut a text's
        pieces one by one (a pattern of several stages) learns the whole text first: one compile, not one per
        piece that brings new characters (~200 on a multilingual megabyte)."""
        known = self._direct_chars
        new = (
            set(text).difference(known)
            if len(text) < 1 << 18
            else set("".join(_NON_ASCII.findall(text))).difference(known)
        )
        new.difference_update(_ASCII_SET)
        if new:
            if len(known) + len(new) > self.direct_limit:
                return False
            pending = (self._pending | new) - known
            if len(known) + len(pending) > self.direct_limit:
                pending = new  # (the waiting ones do not fit with these: only this text's own)
            if len(known) + len(new) > EAGER_LIMIT and len(text) < LONG_TEXT and len(pending) < PENDING_BATCH:
                self._pending = pending
                return False  # ``regex`` cuts this short text; its characters wait to be listed with others
            try:
                self._grow(pending)
            except Unsupported:
                return False
            finally:
                self._pending = set()
        return True


_SPLITTERS: dict[str, "Splitter | None"] = {}


def splitter(source: str) -> "Splitter | None":
    """The :class:`Splitter` of a pattern (built once), or ``None`` if it uses what the rewrite does not
    handle."""
    try:
        return _SPLITTERS[source]
    except KeyError:
        pass
    try:
        made: Splitter | None = Splitter(source)
    except (Unsupported, re.error, regex.error):
        made = None
    return _SPLITTERS.setdefault(source, made)
