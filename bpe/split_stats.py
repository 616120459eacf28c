"""Measuring how a pattern cuts a text: a split that never raises, whole-text statistics, and where two
patterns cut differently. What the Pre-tokenizer lab shows, computed here (:mod:`views.lab_measure` only
turns it into rows).

* :func:`safe_split` splits with a registry name or a custom regex; a pattern that does not compile or runs
  past its time limit (:func:`interactive_timeout`) comes back as an error sentence, never as an exception
  or a hang.
* :func:`pattern_stats` measures the whole text (chunk count, unmatched characters, cut positions) fast;
  :func:`cut_differences` counts the cuts two patterns do not share.
* :func:`boundary_marks` compares two splits' cuts; :func:`branch_counts` counts chunks per branch.

>>> gpt2, gpt4o = pattern_stats("I'm here", "gpt2"), pattern_stats("I'm here", "gpt4o")
>>> gpt2.chunks, gpt2.boundaries.tolist(), gpt4o.boundaries.tolist(), cut_differences(gpt2, gpt4o)
(3, [1, 3], [3], (1, 0))
"""

from __future__ import annotations

import time
from array import array
from dataclasses import dataclass
from itertools import accumulate
from typing import Sequence

import regex

from .patterns import Pattern, PatternError, PatternTimeout, get_pattern
from .splitting import SplitResult, pretokenize, split

__all__ = [
    "INTERACTIVE_TIMEOUT",
    "interactive_timeout",
    "SafeSplit",
    "safe_split",
    "PatternStats",
    "pattern_stats",
    "cut_differences",
    "boundaries_of",
    "boundary_marks",
    "branch_counts",
]

#: Seconds a custom pattern may run on a text someone is waiting for (plus a little per 100 KB; see
#: :func:`interactive_timeout`).
INTERACTIVE_TIMEOUT = 1.0
_CUT = regex.compile(b"\x01")


def interactive_timeout(text: str) -> float:
    """The time limit for a custom pattern on ``text`` while a person waits: 1 s plus 1 s per 500,000
    characters.

    >>> interactive_timeout("x" * 250_000)
    1.5
    """
    return INTERACTIVE_TIMEOUT + len(text) / 500_000


@dataclass(frozen=True)
class SafeSplit:
    """A pattern applied to a text: the split, or an error sentence (``result`` is then ``None``)."""

    key: str  # registry name or "custom"
    label: str
    pattern: Pattern | None
    result: SplitResult | None
    error: str | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """Whether the pattern split the text (else :attr:`error` says why)."""
        return self.result is not None


def _label(pattern: Pattern) -> str:
    return "Custom" if pattern.custom else pattern.label


def safe_split(text: str, pattern: str, *, timeout: float | None = None) -> SafeSplit:
    """Split ``text`` with a registry name or a custom regex; errors come back in words. A custom pattern
    stops after ``timeout`` seconds (default: :func:`interactive_timeout`).

    >>> safe_split("ab", "(").error
    'The pattern does not compile: missing ) at position 1.'
    >>> safe_split("ab", "").error
    'The pattern is empty: type a regex, e.g. \\\\w+|\\\\s+|[^\\\\w\\\\s]+'
    >>> safe_split("a1", "gpt2").result.texts
    ['a', '1']
    """
    if pattern is None or pattern == "":
        return SafeSplit(
            "custom", "Custom", None, None, "The pattern is empty: type a regex, e.g. \\w+|\\s+|[^\\w\\s]+"
        )
    try:
        entry = get_pattern(pattern)
    except PatternError as exc:
        return SafeSplit("custom", "Custom", None, None, _sentence(str(exc)))
    key = "custom" if entry.custom else entry.name
    limit = timeout if timeout is not None else (interactive_timeout(text) if entry.custom else None)
    t0 = time.perf_counter()
    try:
        result = split(text, entry, timeout=limit)
    except (PatternTimeout, PatternError) as exc:
        return SafeSplit(key, _label(entry), entry, None, _sentence(str(exc)), time.perf_counter() - t0)
    except RecursionError:  # pragma: no cover - defensive
        return SafeSplit(
            key, _label(entry), entry, None, "The pattern is too deeply nested to run.", time.perf_counter() - t0
        )
    return SafeSplit(key, _label(entry), entry, result, None, time.perf_counter() - t0)


def _sentence(msg: str) -> str:
    msg = msg.strip()
    if not msg:
        return "The pattern cannot be used."
    msg = msg[0].upper() + msg[1:]
    return msg if msg.endswith((".", ")")) else msg + "."


@dataclass(frozen=True)
class PatternStats:
    """Whole-text measurements of one pattern (cheap enough for a 1 MB paste).

    ``cut_mask`` holds the cut positions as an int with one byte per character (byte ``i`` is 1 where a
    chunk ends at character ``i``): about as small as an array of the positions, and two patterns' cuts
    compare in a few big-int operations (:func:`cut_differences`).
    """

    chunks: int = 0
    unmatched_chars: int = 0
    cut_mask: int = 0
    seconds: float = 0.0
    error: str | None = None
    empty_only: bool = False  # the pattern matched no text at all (e.g. only empty matches)

    @property
    def boundaries(self) -> memoryview:
        """The sorted character offsets where a chunk ends and the next begins (read-only)."""
        flags = self.cut_mask.to_bytes((self.cut_mask.bit_length() + 7) // 8, "little")
        return _positions([m.start() for m in _CUT.finditer(flags)])


def _positions(values: Sequence[int]) -> memoryview:
    code = "i" if not values or values[-1] < 2**31 else "q"  # 4 bytes an offset when they fit
    return memoryview(array(code, values)).toreadonly()


def boundaries_of(texts: Sequence[str]) -> memoryview:
    """Cut positions of consecutive chunk texts (read-only).

    >>> boundaries_of(["ab", "c", "de"]).tolist()
    [2, 3]
    """
    return _positions(list(accumulate(map(len, texts[:-1]))))


def _cut_mask(texts: Sequence[str]) -> int:
    if len(texts) < 2:
        return 0
    cuts = list(accumulate(map(len, texts[:-1])))
    flags = bytearray(cuts[-1] + 1)
    for p in cuts:
        flags[p] = 1
    return int.from_bytes(flags, "little")


def pattern_stats(text: str, pattern: str, *, timeout: float | None = None) -> PatternStats:
    """Chunk count, unmatched characters and cut positions of ``pattern`` on all of ``text``; a pattern
    that fails gives :attr:`PatternStats.error` (a sentence).

    Registry patterns use the library's fast path (they match every character); custom patterns a full
    :func:`bpe.split` with a time limit (default :func:`interactive_timeout`), to count what no branch
    matched.

    >>> stats = pattern_stats("banana", r"(?=a)")     # only empty matches: nothing is matched
    >>> stats.chunks, stats.unmatched_chars, stats.empty_only
    (1, 6, True)
    """
    t0 = time.perf_counter()
    try:
        entry = get_pattern(pattern)
        if entry.custom:
            limit = timeout if timeout is not None else interactive_timeout(text)
            res = split(text, entry, timeout=limit)
            texts = res.texts
            unmatched = sum(e - s for s, e in res.unmatched)
        else:
            texts = pretokenize(text, entry)
            unmatched = 0
    except PatternError as exc:
        return PatternStats(error=_sentence(str(exc)), seconds=time.perf_counter() - t0)
    return PatternStats(
        chunks=len(texts),
        unmatched_chars=unmatched,
        cut_mask=_cut_mask(texts),
        seconds=time.perf_counter() - t0,
        empty_only=bool(text) and unmatched == len(text),
    )


def cut_differences(stats: PatternStats, reference: PatternStats) -> tuple[int, int]:
    """``(cuts of stats not in reference, cuts of reference not in stats)``, counted on the whole text.

    GPT-2 cuts "ab 12" into ``ab| 12``, ``\\w+|\\s`` into ``ab| |12``: it has one cut GPT-2 lacks.

    >>> cut_differences(pattern_stats("ab 12", "gpt2"), pattern_stats("ab 12", r"\\w+|\\s"))
    (0, 1)
    """
    mine, ref = stats.cut_mask, reference.cut_mask
    return (mine & ~ref).bit_count(), (ref & ~mine).bit_count()


def boundary_marks(result: SplitResult, reference: SplitResult) -> tuple[set[int], set[int]]:
    """(cuts this split makes that the reference does not, cuts of the reference this split lacks).

    >>> boundary_marks(split("I'm here", "gpt2"), split("I'm here", "gpt4o"))
    ({1}, set())
    """
    mine = result.boundaries()
    ref = reference.boundaries()
    return mine - ref, ref - mine


def branch_counts(result: SplitResult) -> dict[int | None, int]:
    """How many chunks each branch matched (``None``: unmatched pieces; for a multi-stage pattern, the
    branch the library credits, see :class:`bpe.Chunk`).

    >>> branch_counts(split("ab 12", "gpt2"))
    {1: 1, 2: 1}
    """
    counts: dict[int | None, int] = {}
    for c in result:
        counts[c.branch] = counts.get(c.branch, 0) + 1
    return counts
