"""The Pre-tokenizer lab's comparison table, one row a pattern: :func:`stats_row` turns the whole-text
statistics :mod:`bpe.split_stats` computes into a row of :func:`views.lab.counts_frame`. No Streamlit here.

>>> from bpe.split_stats import pattern_stats
>>> row = stats_row("GPT-2", pattern_stats("I'm here", "gpt2"), 8, pattern_stats("I'm here", "gpt4o"))
>>> row["chunks"], row["chars / chunk"], row["cuts not in reference"], row["reference cuts missing"]
(3, 2.67, 1, 0)
"""

from __future__ import annotations

from bpe.split_stats import PatternStats, cut_differences

__all__ = ["stats_row"]


def stats_row(label: str, stats: PatternStats, n_chars: int, ref: PatternStats | None) -> dict:
    """A row of :func:`views.lab.counts_frame` from whole-text stats (``ref``: the reference pattern's stats)."""
    if stats.error:
        return {
            "pattern": label,
            "chunks": None,
            "chars / chunk": None,
            "unmatched chars": None,
            "cuts not in reference": None,
            "reference cuts missing": None,
            "ms": round(stats.seconds * 1000),
        }
    extra = missing = None
    if ref is not None and not ref.error:
        extra, missing = cut_differences(stats, ref)
    return {
        "pattern": label,
        "chunks": stats.chunks,
        "chars / chunk": round(n_chars / stats.chunks, 2) if stats.chunks else None,
        "unmatched chars": stats.unmatched_chars,
        "cuts not in reference": extra,
        "reference cuts missing": missing,
        "ms": round(stats.seconds * 1000, 1),
    }
