"""Training: learn merges, and record everything a player needs to replay them.

The loop every tutorial writes — count all pairs, merge the most frequent, repeat — recounts the whole
corpus for every merge. This trainer counts once and then only touches what a merge changes:

* the corpus is held as its unique chunks with weights (see :mod:`bpe.corpus`);
* ``counts`` holds every pair's weighted count, ``where`` the chunks each pair occurs in;
* a max-heap of ``(-count, tie key, pair)`` with lazy deletion finds the best pair; entries whose count is
  out of date are dropped when they surface;
* a merge rewrites only the chunks in ``where[pair]`` and adjusts the counts of the pairs they lose/gain.

Without a pre-tokenizer the text is one huge chunk and rewriting it would cost the whole text per merge;
then a second backend keeps a linked list of token positions and a pair -> positions index instead.

Both give exactly the merges of :func:`bpe.reference.train_reference` (the recount-everything loop),
which the tests check on random inputs for every tie rule.

>>> run = train("aaabdaaabac", 258, pattern=None, tie_break="lexical")
>>> [m.pair for m in run.merges], [m.tokens_after for m in run.merges]
([(97, 97), (97, 98)], [9, 7])
"""
from __future__ import annotations

import gc
import heapq
from array import array
from dataclasses import dataclass
from types import MappingProxyType
from typing import Callable, Sequence

from .backends import ChunkBackend, PositionBackend
from .corpus import MAX_VOCAB_SIZE, Corpus, TrainingDataError, build_corpus
from .patterns import Pattern, get_pattern
from .run import Merge, Run
from .visible import hf_rank_table

__all__ = ["train", "MergeStream", "TIE_BREAKS", "LONG_CHUNK"]

#: The tie rules :func:`train` knows (see its docstring).
TIE_BREAKS = ("lexical", "first", "hf")
#: Chunks longer than this (in base tokens) switch training to the position-list backend.
LONG_CHUNK = 2048
#: byte id -> its Hugging Face rank, as a ``str.translate`` table for the ``"hf"`` tie key
_HF_TRANSLATE = hf_rank_table()


# ----------------------------------------------------------------------------------------------------
# The training loop

@dataclass
class _Step:
    pair: str
    count: int
    top: list
    ties: list
    ties_capped: bool
    removed: int


class _Trainer:
    def __init__(self, corpus: Corpus, tie_break: str, first_new_id: int, backend: str | None = None):
        self.stop_reason = ""
        if backend is None:
            longest = max((len(c) for c in corpus.chunks), default=0)
            backend = "positions" if longest > LONG_CHUNK else "chunks"
        self.backend = PositionBackend(corpus) if backend == "positions" else ChunkBackend(corpus)
        # At char level HF's ids are code-point order, which is our char ids' order: same as "lexical".
        self.tie_break = "lexical" if (tie_break == "hf" and corpus.level == "char") else tie_break
        self.next_id = first_new_id
        base_len = 256 if corpus.level == "byte" else len(corpus.alphabet)
        self.lens: list[int] = [1] * base_len  # base tokens per token id
        self.counts, self.where, first = self.backend.initial_counts()
        self.first = first if tie_break == "first" else {}
        self.heap: list = []
        for p, n in self.counts.items():
            self.heap.append((-n, self._key(p), p))
        heapq.heapify(self.heap)
        self.tokens = corpus.tokens

    def _key(self, p: str):
        if self.tie_break == "lexical":
            return p
        if self.tie_break == "hf":
            return p.translate(_HF_TRANSLATE)
        return self.first[p]

    # Heap invariant: one entry per live pair, whose count is an *upper bound* of the pair's count. A
    # pair's count only ever falls after the merge that creates it (tokens are never re-created), so an
    # entry is pushed when a pair is born and corrected only when it surfaces with an out-of-date count.
    # For the "first" rule the key (first occurrence) is likewise a lower bound, corrected on surfacing.

    def _pop_best(self):
        """Pop the best pair's entry, correcting out-of-date entries on the way; None when no pair is left."""
        heap, counts = self.heap, self.counts
        is_first = self.tie_break == "first"
        while heap:
            negc, key, p = heapq.heappop(heap)
            n = counts.get(p)
            if n is None:
                continue  # the pair is gone
            if n != -negc:
                heapq.heappush(heap, (-n, key, p))
                continue
            if is_first:
                exact = self.backend.first_key(p, self.where, self.lens)
                if exact != key:
                    self.first[p] = exact
                    heapq.heappush(heap, (negc, exact, p))
                    continue
            return negc, key, p
        return None

    def step(self, top_k: int, min_frequency: int) -> _Step | None:
        best = self._pop_best()
        if best is None:
            self.stop_reason = "no pair left to merge"
            return None
        if -best[0] < min_frequency:
            heapq.heappush(self.heap, best)
            self.stop_reason = f"the best pair occurs {-best[0]} times, below min_frequency={min_frequency}"
            return None
        negc, _, pair = best
        count = -negc
        top: list = self._peek_top(top_k - 1) if top_k > 1 else []  # the winner is already off the heap
        ties = [p for p, n in top if n == count]
        # Every tied pair sorts before any lower count, so ties are complete unless the list ran full.
        ties_capped = bool(top) and len(top) == top_k - 1 and top[-1][1] == count
        new = chr(self.next_id)
        self.lens.append(self.lens[ord(pair[0])] + self.lens[ord(pair[1])])
        deltas, new_first, removed = self.backend.merge(pair, new, self.where, self.lens)
        counts, heap, where, first = self.counts, self.heap, self.where, self.first
        is_first = self.tie_break == "first"
        for p, d in deltas.items():
            if d == 0:
                continue
            old = counts.get(p, 0)
            n = old + d
            if n <= 0:
                counts.pop(p, None)
                where.pop(p, None)
                first.pop(p, None)
                continue
            counts[p] = n
            if old == 0:  # a pair born in this merge: its first (and only) push
                if is_first:
                    first[p] = new_first[p]
                    heapq.heappush(heap, (-n, first[p], p))
                else:
                    heapq.heappush(heap, (-n, self._key(p), p))
        counts.pop(pair, None)
        where.pop(pair, None)
        first.pop(pair, None)
        self.next_id += 1
        self.tokens -= removed
        if len(heap) > 2 * len(counts) + 10_000:
            self._compact()
        return _Step(pair, count, top, ties, ties_capped, removed)

    def _peek_top(self, k: int) -> list[tuple[str, int]]:
        """The best ``k`` pairs left in the heap with their counts, best first (the heap keeps them).

        Out-of-date entries met on the way are corrected for good, which ``_pop_best`` would do anyway.
        """
        heap, counts = self.heap, self.counts
        push, pop = heapq.heappush, heapq.heappop
        taken: list = []
        while heap and len(taken) < k:
            negc, key, p = pop(heap)
            n = counts.get(p)
            if n is None:
                continue
            if n != -negc:
                push(heap, (-n, key, p))
                continue
            taken.append((negc, key, p))
        for entry in taken:
            push(heap, entry)
        return [(p, -negc) for negc, _, p in taken]

    def _compact(self) -> None:
        """Drop stale heap entries: rebuild the heap from the live counts."""
        if self.tie_break == "first":
            self.heap = [(-n, self.first[p], p) for p, n in self.counts.items()]
        else:
            self.heap = [(-n, self._key(p), p) for p, n in self.counts.items()]
        heapq.heapify(self.heap)


def _validate(vocab_size, tie_break: str, level: str, top_k, min_frequency) -> None:
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise TrainingDataError(f"vocab_size must be a whole number, not {vocab_size!r}")
    if vocab_size > MAX_VOCAB_SIZE:
        raise TrainingDataError(f"vocab_size {vocab_size:,} is too large: at most {MAX_VOCAB_SIZE:,}")
    if tie_break not in TIE_BREAKS:
        raise TrainingDataError(f"tie_break must be one of {', '.join(TIE_BREAKS)}, not {tie_break!r}")
    if level not in ("byte", "char"):
        raise TrainingDataError(f"level must be 'byte' or 'char', not {level!r}")
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 0:
        raise TrainingDataError(f"top_k must be a whole number >= 0, not {top_k!r}")
    if isinstance(min_frequency, bool) or not isinstance(min_frequency, int) or min_frequency < 1:
        raise TrainingDataError(f"min_frequency must be a whole number >= 1, not {min_frequency!r}")


def _special_ids(special_tokens: Sequence[str]) -> list[str]:
    if isinstance(special_tokens, str):
        special_tokens = [special_tokens]
    out: list[str] = []
    for s in special_tokens:
        if not isinstance(s, str) or not s:
            raise TrainingDataError(f"special tokens must be non-empty strings, got {s!r}")
        if s not in out:
            out.append(s)
    return out


class MergeStream:
    """Merges one by one as they are learned: the trainer's loop, exposed for stepping and timing.

    Iterating yields :class:`Merge` objects; when it ends, :attr:`stop_reason` says why.

    >>> from bpe.corpus import build_corpus
    >>> stream = MergeStream(build_corpus("abab", pattern=None, level="byte"), 10)
    >>> [m.token for m in stream], stream.stop_reason
    ([b'ab', b'abab'], 'no pair left to merge')
    """

    def __init__(self, corpus: Corpus, n_merges: int, *, tie_break: str = "lexical", top_k: int = 20,
                 min_frequency: int = 1, backend: str | None = None):
        self.base_len = 256 if corpus.level == "byte" else len(corpus.alphabet)
        self._trainer = _Trainer(corpus, tie_break, self.base_len, backend)
        self._tokens: list = ([bytes([b]) for b in range(256)] if corpus.level == "byte"
                              else list(corpus.alphabet))
        self.n_merges = n_merges
        self.top_k = top_k
        self.min_frequency = min_frequency
        self.done = 0
        self.stop_reason = ""

    def __iter__(self) -> "MergeStream":
        return self

    def __next__(self) -> Merge:
        if self.done >= self.n_merges:
            self.stop_reason = self.stop_reason or "reached the vocabulary size"
            raise StopIteration
        step = self._trainer.step(self.top_k, self.min_frequency)
        if step is None:
            self.stop_reason = self._trainer.stop_reason
            raise StopIteration
        a, b = ord(step.pair[0]), ord(step.pair[1])
        self._tokens.append(self._tokens[a] + self._tokens[b])
        rank = self.done
        self.done += 1
        return Merge(
            rank=rank, pair=(a, b), id=self.base_len + rank, count=step.count, token=self._tokens[-1],
            _top=array("q", [a, b, step.count, *(x for p, n in step.top for x in (ord(p[0]), ord(p[1]), n))]),
            _ties=array("l", [x for p in step.ties for x in (ord(p[0]), ord(p[1]))]),
            tokens_after=self._trainer.tokens, ties_capped=step.ties_capped,
        )


def train(data, vocab_size: int, *, pattern: "str | Pattern | None" = "gpt4", level: str = "byte",
          tie_break: str = "lexical", normalize: str | None = None, special_tokens: Sequence[str] = (),
          min_frequency: int = 1, top_k: int = 20,
          progress: Callable[[int, int], None] | None = None, backend: str | None = None,
          timeout: float | None = None, unk_token: str | None = None, fuse_unk: bool = False) -> Run:
    """Train a BPE tokenizer and record every merge.

    ``data`` is a ``str``, a list of documents, or a ``{word: count}`` map. ``vocab_size`` counts the
    base tokens (256 bytes, or the corpus's distinct characters at char level), the merges and the
    special tokens. ``pattern`` is a registry name (``"gpt4"``...), any regex, or ``None`` for no
    pre-tokenizer. ``tie_break`` picks among equal counts: ``"lexical"`` (smaller id pair, like rustbpe),
    ``"first"`` (first seen in the text, like minbpe) or ``"hf"`` (Hugging Face BpeTrainer).
    ``progress(done, total)`` is called now and then.

    ``unk_token`` (char level only) names a special token that encodes every character outside the
    alphabet, as in Hugging Face BPE (``fuse_unk=True``: a run of such characters becomes one); it is added
    to ``special_tokens`` if missing. Without it, encoding an unseen character raises
    :class:`bpe.UnknownCharacterError`.

    >>> run = train({"low": 5, "lower": 2}, 9, level="char", special_tokens=["<pad>", "<unk>"], unk_token="<unk>")
    >>> tok = run.tokenizer()
    >>> [tok.token_text(i) for i in tok.encode("lowly")]
    ['low', 'l', '<unk>']

    >>> run = train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 0, level="char", tie_break="first")
    Traceback (most recent call last):
    ...
    bpe.corpus.TrainingDataError: vocab_size 0 is below the base vocabulary: 10 characters + 0 special tokens = 10; ask for at least 10
    """
    _validate(vocab_size, tie_break, level, top_k, min_frequency)
    specials = _special_ids(special_tokens)
    if unk_token is not None:
        if level != "char":
            raise TrainingDataError("unk_token is for char-level training: a byte-level tokenizer never meets an "
                                    "unknown character (every text is bytes)")
        specials = _special_ids([*specials, unk_token])
    entry = None if pattern is None else get_pattern(pattern)
    corpus = build_corpus(data, pattern=entry, level=level, normalize=normalize, special_tokens=specials,
                          timeout=timeout)
    base: tuple = tuple(bytes([b]) for b in range(256)) if level == "byte" else corpus.alphabet
    floor = len(base) + len(specials)
    if vocab_size < floor:
        unit = "bytes" if level == "byte" else "characters"
        raise TrainingDataError(
            f"vocab_size {vocab_size} is below the base vocabulary: {len(base)} {unit} + "
            f"{len(specials)} special tokens = {floor}; ask for at least {floor}")
    n_merges = vocab_size - floor
    tokens_before = corpus.tokens
    stream = MergeStream(corpus, n_merges, tie_break=tie_break, top_k=top_k, min_frequency=min_frequency,
                         backend=backend)
    merges: list[Merge] = []
    every = max(1, n_merges // 200)
    frozen = not gc.isenabled()
    gc.freeze()  # the corpus and index are built: the collector need not scan them again
    try:
        for merge in stream:
            merges.append(merge)
            if progress is not None and merge.rank % every == 0:
                progress(merge.rank + 1, n_merges)
    finally:
        if not frozen:
            gc.unfreeze()
    if progress is not None:
        progress(len(merges), n_merges)
    reason = stream.stop_reason or "reached the vocabulary size"
    first_special = len(base) + len(merges)
    return Run(
        merges=tuple(merges), level=level, pattern=entry, tie_break=tie_break, normalize=normalize,
        special_tokens=MappingProxyType({s: first_special + i for i, s in enumerate(specials)}),
        base=base, vocab_size_requested=vocab_size, tokens_before=tokens_before, stop_reason=reason,
        n_bytes=corpus.n_bytes, n_chars=corpus.n_chars, n_chunks=corpus.n_chunks,
        n_unique_chunks=len(corpus.chunks), unk_token=unk_token, fuse_unk=bool(fuse_unk),
    )
