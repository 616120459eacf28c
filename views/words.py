"""Counts in words: "1 chunk", "2 chunks" (a page and a lesson are read aloud and projected). No Streamlit here.

>>> count_of(1, "chunk"), count_of(1_200, "chunk"), count_of(1, "branch", "branches"), count_of(0, "token")
('1 chunk', '1,200 chunks', '1 branch', '0 tokens')
"""

from __future__ import annotations

__all__ = ["count_of", "plural"]


def plural(n: int, word: str, many: str | None = None) -> str:
    """``word`` for one, else ``many`` (``word + "s"`` unless given).

    >>> plural(1, "cut"), plural(3, "cut"), plural(2, "branch", "branches")
    ('cut', 'cuts', 'branches')
    """
    return word if n == 1 else (many or word + "s")


def count_of(n: int, word: str, many: str | None = None) -> str:
    """``n`` with thousands separators and the word that goes with it."""
    return f"{n:,} {plural(n, word, many)}"
