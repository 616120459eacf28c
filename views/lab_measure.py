"""The Pre-tokenizer lab's measurements as the page uses them: the computing is :mod:`bpe.split_stats`'s,
re-exported here under the lab's names; :func:`stats_row` turns one pattern's whole-text statistics into a
row of the comparison table (:func:`views.lab.counts_frame`). No Streamlit here.

>>> from bpe.split_stats import pattern_stats
>>> row = stats_row("GPT-2", pattern_stats("I'm here", "gpt2"), 8, pattern_stats("I'm here", "gpt4o"))
>>> row["chunks"], row["chars / chunk"], row["cuts not in reference"], row["reference cuts missing"]
(3, 2.67, 1, 0)
"""
from __future__ import annotations

from bpe.split_stats import (INTERACTIVE_TIMEOUT as LAB_TIMEOUT, PatternStats, SafeSplit as LabSplit,
                             boundaries_of, boundary_marks, branch_counts, cut_differences,
                             interactive_timeout as lab_timeout, pattern_stats, safe_split as lab_split)

__all__ = ["LAB_TIMEOUT", "lab_timeout", "LabSplit", "lab_split", "PatternStats", "pattern_stats",
           "boundaries_of", "boundary_marks", "branch_counts", "stats_row"]


def stats_row(label: str, stats: PatternStats, n_chars: int, ref: PatternStats | None) -> dict:
    """A row of :func:`views.lab.counts_frame` from whole-text stats (``ref``: the reference pattern's stats)."""
    if stats.error:
        return {"pattern": label, "chunks": None, "chars / chunk": None, "unmatched chars": None,
                "cuts not in reference": None, "reference cuts missing": None, "ms": round(stats.seconds * 1000)}
    extra = missing = None
    if ref is not None and not ref.error:
        extra, missing = cut_differences(stats, ref)
    return {"pattern": label, "chunks": stats.chunks,
            "chars / chunk": round(n_chars / stats.chunks, 2) if stats.chunks else None,
            "unmatched chars": stats.unmatched_chars, "cuts not in reference": extra,
            "reference cuts missing": missing, "ms": round(stats.seconds * 1000, 1)}
