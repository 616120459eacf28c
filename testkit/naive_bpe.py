"""The textbook BPE loop, written plainly for the tests' independent trainers: recount every pair of every
word each merge, pick one, merge it everywhere. It shares no code with ``bpe`` (the tests use it to check
``bpe``), and each test still says its own rules: how a text becomes words, which pair wins.

A word is a tuple of symbols that ``+`` joins (bytes, or str such as GPT-2's visible characters), or of ids.

>>> words = Counter({tuple(b"aaab"): 2, tuple(b"ab"): 1})
>>> pair_counts(words)
Counter({(97, 97): 4, (97, 98): 3})
>>> merge_pair((1, 2, 1, 2, 3), (1, 2), 9)
(9, 9, 3)
>>> naive_train(Counter({(b"a", b"a", b"a", b"b"): 1}), 2, lambda c: max(c, key=lambda p: (c[p], p)))
[(b'a', b'a'), (b'aa', b'a')]
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Hashable, Mapping, Sequence, TypeVar

__all__ = ["pair_counts", "merge_pair", "naive_train", "gpt2_bytes_to_unicode"]

T = TypeVar("T", bound=Hashable)


def pair_counts(words: Mapping[tuple[T, ...], int], *, once_per_word: bool = False) -> Counter[tuple[T, T]]:
    """Each adjacent pair's count over ``words`` (word -> how often it occurs), overlapping pairs counted
    (``aaa`` has 2 ``(a, a)``), or each pair once per word with ``once_per_word`` (the exercise notebook's
    ``get_pairs``, a set). Pairs come in the order they are first met."""
    counts: Counter[tuple[T, T]] = Counter()
    for word, n in words.items():
        pairs = list(zip(word, word[1:]))
        for pair in dict.fromkeys(pairs) if once_per_word else pairs:
            counts[pair] += n
    return counts


def merge_pair(word: Sequence[T], pair: tuple[T, T], new: T) -> tuple[T, ...]:
    """``word`` with every occurrence of ``pair`` replaced by ``new``, left to right."""
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
            out.append(new)
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


def naive_train(
    words: Mapping[tuple, int], n_merges: int, pick: Callable[[Counter], tuple], *, once_per_word: bool = False
) -> list[tuple]:
    """Up to ``n_merges`` merges of symbols that ``+`` joins: each round recounts (:func:`pair_counts`),
    ``pick`` chooses from the counts, and the pair becomes its concatenation in every word."""
    merges: list[tuple] = []
    for _ in range(n_merges):
        counts = pair_counts(words, once_per_word=once_per_word)
        if not counts:
            break
        best = pick(counts)
        merges.append(best)
        merged: Counter = Counter()
        for word, n in words.items():
            merged[merge_pair(word, best, best[0] + best[1])] += n
        words = merged
    return merges


def gpt2_bytes_to_unicode() -> dict[int, str]:
    """GPT-2's ``bytes_to_unicode`` (its encoder.py), copied: byte -> the visible character that spells it.

    >>> b2u = gpt2_bytes_to_unicode()
    >>> b2u[ord("a")], b2u[ord(" ")], b2u[ord("\\n")], len(set(b2u.values()))
    ('a', 'Ġ', 'Ċ', 256)
    """
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))
