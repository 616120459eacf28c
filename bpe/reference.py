"""The reference trainer: the recount-everything loop from the tutorials, kept deliberately simple.

Every merge counts every pair in the whole corpus again, picks the best, and rewrites every chunk. It is
slow (seconds per merge on a megabyte) and obviously right, which makes it the oracle the fast trainer is
tested against, and the "naive" mode shown for small inputs.

>>> [m for m, _ in train_reference("aaabdaaabac", 2, pattern=None)]
[(97, 97), (97, 98)]
"""

from __future__ import annotations

from typing import Sequence

from .corpus import TrainingData, build_corpus
from .merging import replace_pair
from .patterns import Pattern
from .visible import hf_rank_table

__all__ = ["train_reference", "get_stats", "merge_ids"]


def get_stats(chunks: Sequence[list[int]], weights: Sequence[int]) -> dict[tuple[int, int], int]:
    """Weighted count of every adjacent pair, in order of first appearance.

    >>> get_stats([[1, 2, 1, 2]], [1])
    {(1, 2): 2, (2, 1): 1}
    """
    stats: dict[tuple[int, int], int] = {}
    for ids, w in zip(chunks, weights):
        for pair in zip(ids, ids[1:]):
            stats[pair] = stats.get(pair, 0) + w
    return stats


def merge_ids(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    """Replace every occurrence of ``pair`` (left to right, not overlapping) by ``new_id``.

    >>> merge_ids([97, 97, 97, 98], (97, 97), 256)
    [256, 97, 98]
    """
    return replace_pair(ids, pair, new_id)[0]


def train_reference(
    data: TrainingData,
    n_merges: int,
    *,
    pattern: "str | Pattern | None" = "gpt4",
    level: str = "byte",
    tie_break: str = "lexical",
    normalize: str | None = None,
    special_tokens: Sequence[str] = (),
    min_frequency: int = 1,
) -> list[tuple[tuple[int, int], int]]:
    """Learn up to ``n_merges`` merges the slow way; returns ``[(pair, count), ...]`` in order.

    Tie rules: ``"first"`` is ``max(stats, key=stats.get)`` (first pair seen wins), ``"lexical"`` the
    smallest id pair, ``"hf"`` the smallest pair in Hugging Face's byte-id order, ``"max_bytes"`` the
    greatest ``(a_bytes, b_bytes)`` (then the smaller ids, for two tokens with the same bytes).

    >>> train_reference("aaabdaaabac", 3, pattern=None, tie_break="lexical")
    [((97, 97), 4), ((97, 98), 2), ((256, 257), 2)]
    """
    corpus = build_corpus(data, pattern=pattern, level=level, normalize=normalize, special_tokens=special_tokens)
    chunks = [[ord(c) for c in chunk] for chunk in corpus.chunks]
    weights = corpus.weights
    next_id = 256 if level == "byte" else len(corpus.alphabet)
    hf = hf_rank_table() if level == "byte" else {}
    token_bytes = (
        [bytes([b]) for b in range(256)] if level == "byte" else [ch.encode("utf-8") for ch in corpus.alphabet]
    )

    def hf_key(pair: tuple[int, int]) -> tuple[int, int]:
        return (hf.get(pair[0], pair[0]), hf.get(pair[1], pair[1]))

    merges: list[tuple[tuple[int, int], int]] = []
    for _ in range(n_merges):
        stats = get_stats(chunks, weights)
        if not stats:
            break
        if tie_break == "first":
            best = max(stats, key=stats.__getitem__)
        elif tie_break == "lexical":
            best = min(stats, key=lambda p: (-stats[p], p))
        elif tie_break == "hf":
            best = min(stats, key=lambda p: (-stats[p], hf_key(p)))
        elif tie_break == "max_bytes":
            top = max(stats.values())
            best = max(
                (p for p in stats if stats[p] == top),
                key=lambda p: ((token_bytes[p[0]], token_bytes[p[1]]), (-p[0], -p[1])),
            )
        else:
            raise ValueError(f"unknown tie_break {tie_break!r}")
        if stats[best] < min_frequency:
            break
        merges.append((best, stats[best]))
        chunks = [merge_ids(ids, best, next_id) for ids in chunks]
        token_bytes.append(token_bytes[best[0]] + token_bytes[best[1]])
        next_id += 1
    return merges
