"""What the Pre-tokenizer lab measures: a pattern applied to a text safely, and whole-text statistics.

* :func:`lab_split` splits safely: a pattern that does not compile or runs past its time limit
  (:func:`lab_timeout`) comes back as an error sentence, never as an exception or a hang.
* :func:`pattern_stats` measures the whole text (chunk count, unmatched characters, cut positions) fast.
* :func:`boundary_marks` compares two splits' cuts; :func:`branch_counts` counts chunks per branch;
  :func:`stats_row` is one row of the lab's comparison table.

These compute rather than draw: they are meant to move into the library once its split/time-limit API
settles (see the app-refactor report). No Streamlit here.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Sequence

import numpy as np

import bpe
from bpe.splitting import pretokenize

__all__ = ["LAB_TIMEOUT", "lab_timeout", "LabSplit", "lab_split", "PatternStats", "pattern_stats",
           "boundaries_of", "boundary_marks", "branch_counts", "stats_row"]

#: Seconds a custom pattern may run on the lab's text (plus a little per 100 KB; see :func:`lab_timeout`).
LAB_TIMEOUT = 1.0


def lab_timeout(text: str) -> float:
    """The lab's time limit for a custom pattern on ``text``: 1 s plus 1 s per 500,000 characters.

    >>> lab_timeout("x" * 250_000)
    1.5
    """
    return LAB_TIMEOUT + len(text) / 500_000


@dataclass(frozen=True)
class LabSplit:
    """A pattern applied to a text for the lab: the split, or an error sentence."""

    key: str                       # registry name or "custom"
    label: str
    pattern: bpe.Pattern | None
    result: bpe.SplitResult | None
    error: str | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.result is not None


def _label(pattern: bpe.Pattern) -> str:
    return "Custom" if pattern.custom else pattern.label


def lab_split(text: str, pattern: str, *, timeout: float | None = None) -> LabSplit:
    """Split ``text`` with a registry name or a custom regex; errors come back in words.

    >>> lab_split("ab", "(").error
    'The pattern does not compile: missing ) at position 1.'
    >>> lab_split("ab", "").error
    'The pattern is empty: type a regex, e.g. \\\\w+|\\\\s+|[^\\\\w\\\\s]+'
    """
    if pattern is None or pattern == "":
        return LabSplit("custom", "Custom", None, None,
                        "The pattern is empty: type a regex, e.g. \\w+|\\s+|[^\\w\\s]+")
    try:
        entry = bpe.get_pattern(pattern)
    except bpe.PatternError as exc:
        return LabSplit("custom", "Custom", None, None, _sentence(str(exc)))
    key = "custom" if entry.custom else entry.name
    limit = timeout if timeout is not None else (lab_timeout(text) if entry.custom else None)
    t0 = time.perf_counter()
    try:
        result = bpe.split(text, entry, timeout=limit)
    except bpe.PatternTimeout as exc:
        return LabSplit(key, _label(entry), entry, None, _sentence(str(exc)), time.perf_counter() - t0)
    except bpe.PatternError as exc:  # pragma: no cover - defensive
        return LabSplit(key, _label(entry), entry, None, _sentence(str(exc)), time.perf_counter() - t0)
    except RecursionError:  # pragma: no cover - defensive
        return LabSplit(key, _label(entry), entry, None, "The pattern is too deeply nested to run.",
                        time.perf_counter() - t0)
    return LabSplit(key, _label(entry), entry, result, None, time.perf_counter() - t0)


def _sentence(msg: str) -> str:
    msg = msg.strip()
    if not msg:
        return "The pattern cannot be used."
    msg = msg[0].upper() + msg[1:]
    return msg if msg.endswith((".", ")")) else msg + "."


@dataclass(frozen=True)
class PatternStats:
    """Whole-text measurements of one pattern (cheap enough for a 1 MB paste)."""

    chunks: int = 0
    unmatched_chars: int = 0
    #: sorted character offsets where a chunk ends and the next begins
    boundaries: np.ndarray = None  # type: ignore[assignment]
    seconds: float = 0.0
    error: str | None = None
    empty_only: bool = False   # the pattern matched no text at all (e.g. only empty matches)


def boundaries_of(texts: Sequence[str]) -> np.ndarray:
    """Cut positions of consecutive chunk texts.

    >>> boundaries_of(["ab", "c", "de"]).tolist()
    [2, 3]
    """
    if len(texts) < 2:
        return np.zeros(0, dtype=np.int64)
    lens = np.fromiter((len(t) for t in texts[:-1]), dtype=np.int64, count=len(texts) - 1)
    out = np.cumsum(lens)
    if out[-1] < 2**31:
        out = out.astype(np.int32)      # half the memory in the shared cache
    out.setflags(write=False)
    return out


def pattern_stats(text: str, pattern: str, *, timeout: float | None = None) -> PatternStats:
    """Chunk count, unmatched characters and cut positions of ``pattern`` on all of ``text``.

    Registry patterns use the library's fast path (they match every character); custom patterns a full
    :func:`bpe.split` with a time limit, to count what no branch matched.
    """
    t0 = time.perf_counter()
    try:
        entry = bpe.get_pattern(pattern)
        if entry.custom:
            limit = timeout if timeout is not None else lab_timeout(text)
            res = bpe.split(text, entry, timeout=limit)
            texts = res.texts
            unmatched = sum(e - s for s, e in res.unmatched)
        else:
            texts = pretokenize(text, entry)
            unmatched = 0
    except bpe.PatternError as exc:
        return PatternStats(boundaries=np.zeros(0, dtype=np.int64), error=_sentence(str(exc)),
                            seconds=time.perf_counter() - t0)
    return PatternStats(chunks=len(texts), unmatched_chars=unmatched, boundaries=boundaries_of(texts),
                        seconds=time.perf_counter() - t0,
                        empty_only=bool(text) and unmatched == len(text))


def boundary_marks(result: bpe.SplitResult, reference: bpe.SplitResult) -> tuple[set[int], set[int]]:
    """(cuts this split makes that the reference does not, cuts of the reference this split lacks).

    >>> a = bpe.split("I'm here", "gpt2"); b = bpe.split("I'm here", "gpt4o")
    >>> boundary_marks(a, b)
    ({1}, set())
    """
    mine = result.boundaries()
    ref = reference.boundaries()
    return mine - ref, ref - mine


def branch_counts(result: bpe.SplitResult) -> dict[int | None, int]:
    """How many chunks each branch matched (``None``: unmatched pieces; for a multi-stage pattern, the
    branch the library credits, see :class:`bpe.Chunk`).

    >>> branch_counts(bpe.split("ab 12", "gpt2"))
    {1: 1, 2: 1}
    """
    counts: dict[int | None, int] = {}
    for c in result:
        counts[c.branch] = counts.get(c.branch, 0) + 1
    return counts


def stats_row(label: str, stats: PatternStats, n_chars: int, ref: PatternStats | None) -> dict:
    """A row of :func:`counts_frame` from whole-text stats (``ref``: the reference pattern's stats)."""
    if stats.error:
        return {"pattern": label, "chunks": None, "chars / chunk": None, "unmatched chars": None,
                "cuts not in reference": None, "reference cuts missing": None, "ms": round(stats.seconds * 1000)}
    extra = missing = None
    if ref is not None and not ref.error:
        extra = int(np.setdiff1d(stats.boundaries, ref.boundaries, assume_unique=True).size)
        missing = int(np.setdiff1d(ref.boundaries, stats.boundaries, assume_unique=True).size)
    return {"pattern": label, "chunks": stats.chunks,
            "chars / chunk": round(n_chars / stats.chunks, 2) if stats.chunks else None,
            "unmatched chars": stats.unmatched_chars, "cuts not in reference": extra,
            "reference cuts missing": missing, "ms": round(stats.seconds * 1000, 1)}
