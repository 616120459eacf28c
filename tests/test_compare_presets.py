"""The Compare page's "Check my BPE" presets reproduce the trainers they name, written here as the tutorials
(``shared/seeds/``) and minbpe write them: each loop below follows its source's algorithm (its dict order, its
``max``/``most_common``/``min``; the merge step they all share is ``testkit.naive_bpe.merge_pair``), sharing no
code with ``bpe``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

import pytest
import regex

from appstate.compare_state import PRESETS
from testkit.naive_bpe import merge_pair

ROOT = Path(__file__).resolve().parents[1]
TEXT = (ROOT / "sample_texts" / "english.txt").read_text(encoding="utf-8")[:2500]
N = 30


def blog_post(text: str, n: int) -> list[tuple[bytes, bytes]]:
    """Seed 000: get_stats over the whole byte list, ``max(dic.items(), key=lambda x: x[1])``."""
    tokens, vocab, merges = list(text.encode("utf-8")), {b: bytes([b]) for b in range(256)}, []
    for new in range(256, 256 + n):
        dic: dict = {}
        for i, j in zip(tokens[:-1], tokens[1:]):
            dic[(i, j)] = dic.get((i, j), 0) + 1
        best = max(dic.items(), key=lambda x: x[1])[0]
        vocab[new] = vocab[best[0]] + vocab[best[1]]
        merges.append((vocab[best[0]], vocab[best[1]]))
        tokens = merge_pair(tokens, best, new)
    return merges


def byte_tuples(text: str, n: int) -> list[tuple[bytes, bytes]]:
    """Seed 003: tokens as tuples of byte values, ``Counter.most_common(1)`` over all texts' pairs."""
    corpus = [[(b,) for b in text.encode("utf-8")]]
    merges = []
    for _ in range(n):
        freqs: Counter = Counter()
        for tokens in corpus:
            freqs.update(Counter((tokens[i], tokens[i + 1]) for i in range(len(tokens) - 1)))
        if not freqs:
            break
        best = freqs.most_common(1)[0][0]
        merges.append((bytes(best[0]), bytes(best[1])))
        corpus = [[t for t in merge_pair(tokens, best, best[0] + best[1])] for tokens in corpus]
    return merges


def lesson_notebook(text: str, n: int) -> list[tuple[bytes, bytes]]:
    """Seed 002: word counts, words as space-separated characters, ``max(stats, key=stats.get)``."""
    counts: dict = {}
    for word in text.split():
        counts[word] = counts.get(word, 0) + 1
    vocab = {" ".join(word): c for word, c in counts.items()}
    merges = []
    for _ in range(n):
        stats: dict = defaultdict(int)
        for word, freq in vocab.items():
            symbols = word.split()
            for i in range(len(symbols) - 1):
                stats[(symbols[i], symbols[i + 1])] += freq
        if not stats:
            break
        best = max(stats, key=stats.get)
        merges.append((best[0].encode(), best[1].encode()))
        vocab = {" ".join(merge_pair(word.split(), best, best[0] + best[1])): f for word, f in vocab.items()}
    return merges


#: minbpe's GPT4_SPLIT_PATTERN (minbpe/regex.py), as shared/patterns.md quotes it
MINBPE_GPT4 = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]"""
    r"""|\s+(?!\S)|\s+"""
)


def minbpe_regex(text: str, n: int) -> list[tuple[bytes, bytes]]:
    """minbpe's RegexTokenizer.train: every chunk's ids, stats over the chunks in order, max(stats, key=stats.get)."""
    ids = [list(chunk.encode("utf-8")) for chunk in regex.findall(MINBPE_GPT4, text)]
    vocab = {b: bytes([b]) for b in range(256)}
    merges = []
    for new in range(256, 256 + n):
        stats: dict = {}
        for chunk in ids:
            for pair in zip(chunk, chunk[1:]):
                stats[pair] = stats.get(pair, 0) + 1
        if not stats:
            break
        best = max(stats, key=stats.get)
        vocab[new] = vocab[best[0]] + vocab[best[1]]
        merges.append((vocab[best[0]], vocab[best[1]]))
        ids = [merge_pair(chunk, best, new) for chunk in ids]
    return merges


@pytest.mark.parametrize(
    "preset,trainer",
    [
        ("seed_blog", blog_post),
        ("minbpe_basic", blog_post),
        ("minbpe_regex", minbpe_regex),
        ("seed_tuples", byte_tuples),
        ("seed_lesson", lesson_notebook),
    ],
)
def test_a_preset_reproduces_its_tutorial(preset, trainer):
    assert list(PRESETS[preset].reference.train(TEXT, N)) == trainer(TEXT, N)
