"""Test texts made on the spot from the repository's own sample texts (no download)."""

from __future__ import annotations

import random
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

__all__ = ["sample_words"]


def sample_words(size_bytes: int = 1_000_000, seed: int = 4) -> str:
    """At least ``size_bytes`` of text: lines of the sample texts' words in a seeded random order."""
    words = []
    for p in sorted((ROOT / "sample_texts").glob("*.txt")):
        words += p.read_text(encoding="utf-8").split()
    rng = random.Random(seed)
    out, size = [], 0
    while size < size_bytes:
        line = " ".join(rng.choice(words) for _ in range(rng.randint(6, 14))) + "\n"
        out.append(line)
        size += len(line.encode("utf-8"))
    return "".join(out)
