"""Trainers with the mistakes people make, for :mod:`bpe.compare`'s diagnosis: a simple loop with knobs.

:class:`VariantLoop` trains over a corpus's unique chunks (see :mod:`bpe.corpus`) and can count a pair
once per occurrence (right) or once per chunk (the exercise notebook's ``set`` of pairs), keep the counts
a merge should lower (``stale``), and break ties by any rule in :data:`VARIANT_RULES` -- ``bpe``'s four
and ``"visible"`` (the smaller pair of GPT-2 visible strings, the exercise notebook's ``min``). It also
replays a given merge list, so the counts at any step can be read (:meth:`VariantLoop.count`).

Each merge rescans only the chunks that hold the pair; the best pair is a scan of the counts, so it is
meant for the texts of a lesson or a check (it takes seconds for a megabyte), not for training at scale.

>>> from bpe.corpus import build_corpus
>>> loop = VariantLoop(build_corpus("aaa aaa", pattern="gpt2", level="byte"), counting="per_chunk")
>>> loop.count((97, 97)), loop.best("lexical")
(2, ((97, 97), 2))
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterator, Sequence

from .corpus import Corpus
from .visible import hf_rank_table, to_visible

__all__ = ["VariantLoop", "VARIANT_RULES", "train_variant", "replay", "token_counts"]

#: The tie rules a variant knows: bpe's and the exercise notebook's ``min`` over visible strings.
VARIANT_RULES = ("lexical", "first", "hf", "max_bytes", "visible")
_HF = hf_rank_table()


class VariantLoop:
    """A recount-what-changed BPE loop with knobs (see the module docstring)."""

    def __init__(self, corpus: Corpus, *, counting: str = "occurrence", stale: bool = False):
        if counting not in ("occurrence", "per_chunk"):
            raise ValueError(f"counting must be 'occurrence' or 'per_chunk', not {counting!r}")
        self.per_chunk = counting == "per_chunk"
        self.stale = stale
        self.level = corpus.level
        self.chunks: list[list[int]] = [[ord(c) for c in chunk] for chunk in corpus.chunks]
        self.weights = corpus.weights
        if corpus.level == "byte":
            self.tokens: list[bytes] = [bytes([b]) for b in range(256)]
            self.texts: list[str] = [to_visible(t) for t in self.tokens]
        else:
            self.texts = list(corpus.alphabet)
            self.tokens = [t.encode("utf-8") for t in self.texts]
        self.lens = [1] * len(self.tokens)
        #: base tokens rescanned so far (what a merge costs): callers bound it
        self.work = 0
        #: tokens in the corpus now (repeats counted)
        self.n_tokens = sum(len(c) * w for c, w in zip(self.chunks, self.weights))
        self.ids_by_bytes = {t: i for i, t in enumerate(self.tokens)}
        self.counts: dict[tuple[int, int], int] = {}
        self.where: dict[tuple[int, int], set[int]] = {}
        for i in range(len(self.chunks)):
            self._add(i, self._pairs(i), 1)

    def _pairs(self, i: int) -> Counter[tuple[int, int]]:
        ids = self.chunks[i]
        found = Counter(zip(ids, ids[1:]))
        if self.per_chunk:
            for p in found:
                found[p] = 1
        return found

    def _add(self, i: int, pairs: Counter[tuple[int, int]], sign: int) -> None:
        w, counts, where = self.weights[i] * sign, self.counts, self.where
        for p, n in pairs.items():
            counts[p] = counts.get(p, 0) + n * w
            if sign > 0:
                where.setdefault(p, set()).add(i)

    def count(self, pair: tuple[int, int]) -> int:
        """The pair's count now (0 when it does not occur)."""
        return self.counts.get(pair, 0)

    def pair_bytes(self, pair: tuple[int, int]) -> tuple[bytes, bytes]:
        """The two tokens' bytes."""
        return self.tokens[pair[0]], self.tokens[pair[1]]

    def first_seen(self, pair: tuple[int, int]) -> tuple[int, int]:
        """(chunk, base offset) of the pair's first occurrence (chunks in order of first appearance)."""
        for i in sorted(self.where.get(pair, ())):
            ids = self.chunks[i]
            for j in range(len(ids) - 1):
                if (ids[j], ids[j + 1]) == pair:
                    return i, sum(self.lens[t] for t in ids[:j])
        return len(self.chunks), 0

    def rule_key(self, rule: str, pair: tuple[int, int]) -> Any:
        """The key ``rule`` takes the smallest of among tied pairs."""
        a, b = pair
        if rule == "lexical":
            return pair
        if rule == "hf":
            return (_HF.get(a, a), _HF.get(b, b)) if self.level == "byte" else pair
        if rule == "max_bytes":
            return (
                tuple(255 - x for x in self.tokens[a]) + (256,),
                tuple(255 - x for x in self.tokens[b]) + (256,),
                pair,
            )
        if rule == "visible":
            return self.texts[a], self.texts[b], pair
        if rule == "first":
            return self.first_seen(pair)
        raise ValueError(f"unknown tie rule {rule!r}; one of {', '.join(VARIANT_RULES)}")

    def best(self, rule: str) -> tuple[tuple[int, int], int] | None:
        """The most frequent pair (ties broken by ``rule``) and its count; None when no pair is left."""
        counts = self.counts
        top = max(counts.values(), default=0)
        if top <= 0:
            return None
        tied = [p for p, n in counts.items() if n == top]
        return min(tied, key=lambda p: self.rule_key(rule, p)) if len(tied) > 1 else tied[0], top

    def merge(self, pair: tuple[int, int]) -> int:
        """Merge ``pair`` everywhere (left to right); returns the new token's id."""
        new = len(self.tokens)
        a, b = pair
        self.tokens.append(self.tokens[a] + self.tokens[b])
        self.texts.append(self.texts[a] + self.texts[b])
        self.lens.append(self.lens[a] + self.lens[b])
        self.ids_by_bytes[self.tokens[new]] = new
        lowered: set[tuple[int, int]] = set()
        for i in sorted(self.where.pop(pair, ())):
            ids = self.chunks[i]
            if len(ids) < 2:
                continue
            self.work += len(ids)
            before = self._pairs(i)
            if pair not in before:
                continue
            out, j = [], 0
            while j < len(ids):
                if j + 1 < len(ids) and ids[j] == a and ids[j + 1] == b:
                    out.append(new)
                    j += 2
                else:
                    out.append(ids[j])
                    j += 1
            self.chunks[i] = out
            self.n_tokens -= (len(ids) - len(out)) * self.weights[i]
            after = self._pairs(i)
            if self.stale:  # the mistake: only gains are added, losses never taken off
                after.subtract(before)
                self._add(i, +after, 1)
            else:
                self._add(i, before, -1)
                self._add(i, after, 1)
                lowered.update(before)
        counts = self.counts
        counts.pop(pair, None)
        for p in lowered:
            if counts.get(p, 1) <= 0:
                del counts[p]
        return new

    def find(self, pair_bytes: tuple[bytes, bytes]) -> tuple[int, int] | None:
        """The ids of a pair given as bytes (the latest token with those bytes), or None."""
        a, b = self.ids_by_bytes.get(pair_bytes[0]), self.ids_by_bytes.get(pair_bytes[1])
        return None if a is None or b is None else (a, b)


def train_variant(
    corpus: Corpus, rule: str, *, counting: str = "occurrence", stale: bool = False, budget: int | None = None
) -> Iterator[tuple[tuple[bytes, bytes], int]]:
    """Merges one at a time, as ``((left bytes, right bytes), count)``, until no pair is left (or the
    base tokens rescanned pass ``budget``).

    >>> from bpe.corpus import build_corpus
    >>> c = build_corpus("abc abd", pattern=None, level="byte")
    >>> list(train_variant(c, "max_bytes"))[:2]
    [((b'a', b'b'), 2), ((b'c', b' '), 1)]
    """
    loop = VariantLoop(corpus, counting=counting, stale=stale)
    while budget is None or loop.work <= budget:
        found = loop.best(rule)
        if found is None:
            return
        pair, count = found
        yield loop.pair_bytes(pair), count
        loop.merge(pair)


def replay(
    corpus: Corpus, merges: Sequence[tuple[bytes, bytes]], budget: int | None = None, counting: str = "occurrence"
) -> VariantLoop | None:
    """A loop after the given merges, each found by its bytes; None past ``budget``."""
    loop = VariantLoop(corpus, counting=counting)
    for pb in merges:
        pair = loop.find(pb)
        if pair is None:
            break
        loop.merge(pair)
        if budget is not None and loop.work > budget:
            return None
    return loop


def token_counts(corpus: Corpus, merges: Sequence[tuple[bytes, bytes]], budget: int | None = None) -> list[int]:
    """The corpus's token count after 0, 1, 2... of ``merges`` (each found by its bytes); it ends early at a
    merge of tokens not made yet, or past ``budget``.

    >>> from bpe.corpus import build_corpus
    >>> token_counts(build_corpus("aaabdaaabac", pattern=None, level="byte"), [(b"a", b"a"), (b"a", b"b")])
    [11, 9, 7]
    """
    loop = VariantLoop(corpus)
    out = [loop.n_tokens]
    for pb in merges:
        pair = loop.find(pb)
        if pair is None or (budget is not None and loop.work > budget):
            break
        loop.merge(pair)
        out.append(loop.n_tokens)
    return out
