"""Training: learn merges, and record everything a player needs to replay them.

The loop every tutorial writes — count all pairs, merge the most frequent, repeat — recounts the whole
corpus for every merge. This trainer counts once and then only touches what a merge changes:

* the corpus is held as its unique chunks with weights (see :mod:`bpe.corpus`);
* ``counts`` holds every pair's weighted count; the backend knows the chunks each pair occurs in;
* the best pairs sit in a small sorted *window* of exact entries, the others in a max-heap whose entries
  are corrected when they surface (see :class:`_Trainer`): the winner and the top-k pairs the player
  shows are the window's first entries;
* a merge rewrites only the chunks that hold the pair and adjusts the counts of the pairs they lose/gain.

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
from bisect import bisect_left, insort
from types import MappingProxyType
from typing import Callable, Sequence

from .backends import ChunkBackend, PositionBackend
from .corpus import MAX_VOCAB_SIZE, Corpus, TrainingDataError, build_corpus
from .patterns import Pattern, get_pattern
from .run import ID_BITS, KEY_BITS, Merge, Run
from .visible import hf_rank_table

__all__ = ["train", "MergeStream", "TIE_BREAKS", "LONG_CHUNK"]

#: The tie rules :func:`train` knows (see its docstring).
TIE_BREAKS = ("lexical", "first", "hf")
#: Chunks longer than this (in base tokens) switch training to the position-list backend.
LONG_CHUNK = 2048


# ----------------------------------------------------------------------------------------------------
# The training loop

_ID_BITS, _KEY_BITS = ID_BITS, KEY_BITS
_KEY_MASK = (1 << _KEY_BITS) - 1
#: A bound above every entry (counts are >= 1): "the window holds every pair".
_EVERY_PAIR = (0,)
#: A bound below every entry: "the window is empty and must be filled".
_NO_PAIR = (float("-inf"),)
_HF_RANK = hf_rank_table()


def _tie_key(tie_break: str) -> Callable[[str], int]:
    """pair -> its tie key as one int (smaller wins): the pair of ids (``"lexical"``) or of Hugging Face
    ids, where the 256 bytes are ranked by their visible characters (``"hf"``)."""
    if tie_break == "lexical":
        return lambda p: ord(p[0]) << _ID_BITS | ord(p[1])
    rank = [_HF_RANK[b] for b in range(256)]

    def hf_key(p: str) -> int:
        a, b = ord(p[0]), ord(p[1])
        return (rank[a] if a < 256 else a) << _ID_BITS | (rank[b] if b < 256 else b)
    return hf_key


class _Trainer:
    """The incremental training loop over one backend (see the module docstring).

    Every live pair is in exactly one of two places. The *window* ``top`` is a sorted list of exact
    entries ``(code, pair)``, ``code = -count << 42 | tie key`` (so one int comparison orders them):
    precisely the live pairs whose entry is at most ``bound``. Every other live pair has one entry in the
    min-heap ``heap`` whose count is an upper bound (it is corrected when it surfaces: a pair's count only
    falls after the merge that creates it).

    The winner and the top-k pairs are the window's first entries. A merge changes only a few counts: an
    entry of the window whose count fell moves down in it, or out to the heap once it passes ``bound``; a
    pair born in the merge enters the window if it beats ``bound``, else the heap. When fewer than
    ``top_k`` entries are left, the window is refilled from the heap. So a merge costs no heap traffic
    at all in the common case, and the top pairs come for free.

    The ``"first"`` rule's key (first occurrence) can change whenever a count does, so it keeps the plain
    heap walk (:meth:`_step_heap`).
    """

    def __init__(self, corpus: Corpus, tie_break: str, first_new_id: int, backend: str | None = None,
                 top_k: int = 20):
        self.stop_reason = ""
        if backend is None:
            longest = max(map(len, corpus.chunks), default=0)
            backend = "positions" if longest > LONG_CHUNK else "chunks"
        self.backend = PositionBackend(corpus) if backend == "positions" else ChunkBackend(corpus)
        # At char level HF's ids are code-point order, which is our char ids' order: same as "lexical".
        self.tie_break = "lexical" if (tie_break == "hf" and corpus.level == "char") else tie_break
        self.windowed = self.tie_break != "first"
        self.next_id = first_new_id
        base_len = 256 if corpus.level == "byte" else len(corpus.alphabet)
        self.lens: list[int] = [1] * base_len  # base tokens per token id
        self.counts, self.first = self.backend.initial_counts(track_first=not self.windowed)
        if self.windowed:
            # Entries (code, pair) with code = -count << 42 | tie key: one int compare orders them.
            key = self.tie_key = _tie_key(self.tie_break)
            self.heap: list = [(-n << _KEY_BITS | key(p), p) for p, n in self.counts.items()]
        else:
            self.heap = [(-n, self.first[p], p) for p, n in self.counts.items()]
        heapq.heapify(self.heap)
        self.tokens = corpus.tokens
        self.want = max(top_k, 1)
        #: entries a refill adds: enough that one refill serves many merges
        self.fill = 2 * self.want + 24
        self.top: list = []
        self.top_entry: dict[str, tuple] = {}
        self.bound: tuple = _NO_PAIR

    def _refill(self) -> None:
        """Top the window up to :attr:`fill` entries from the heap (every heap entry is worse than the
        window's, so the new entries go at its end)."""
        heap, counts, top, top_entry = self.heap, self.counts, self.top, self.top_entry
        pop, push = heapq.heappop, heapq.heappush
        need = self.fill - len(top)
        while heap and need:
            entry = pop(heap)
            code, p = entry
            n = counts.get(p)
            if n is None:
                continue  # the pair is gone
            if n != -(code >> _KEY_BITS):
                push(heap, (-n << _KEY_BITS | (code & _KEY_MASK), p))
                continue
            top.append(entry)
            top_entry[p] = entry
            need -= 1
        self.bound = top[-1] if heap and top else _EVERY_PAIR

    def step(self, top_k: int, min_frequency: int):
        """One merge: ``(pair, count, top entries, tokens removed)``, or None when training stops."""
        if not self.windowed:
            return self._step_heap(top_k, min_frequency)
        top = self.top
        if len(top) < self.want and self.bound is not _EVERY_PAIR:
            self._refill()
        if not top:
            self.stop_reason = "no pair left to merge"
            return None
        best = top[0]
        code, pair = best
        count = -(code >> _KEY_BITS)
        if count < min_frequency:
            self.stop_reason = f"the best pair occurs {count} times, below min_frequency={min_frequency}"
            return None
        shown = tuple(top[:top_k]) if top_k > 1 else (best,)
        new = chr(self.next_id)
        self.lens.append(self.lens[ord(pair[0])] + self.lens[ord(pair[1])])
        counts, heap, top_entry, bound = self.counts, self.heap, self.top_entry, self.bound
        born, touched, _, removed = self.backend.merge(pair, new, counts, top_entry)
        del top[0]
        del top_entry[pair]
        counts.pop(pair, None)
        touched.discard(pair)
        push = heapq.heappush
        for p in touched:  # counts in the window that fell: move down, or out to the heap
            entry = top_entry.pop(p)
            del top[bisect_left(top, entry)]
            n = counts.get(p)
            if n is not None:
                entry = (-n << _KEY_BITS | (entry[0] & _KEY_MASK), p)
                if entry < bound:
                    insort(top, entry)
                    top_entry[p] = entry
                else:
                    push(heap, entry)
        key = self.tie_key
        for p, n in born.items():
            if n <= 0:
                continue  # born and merged away again in the same merge ("aaaa")
            counts[p] = n
            entry = (-n << _KEY_BITS | key(p), p)
            if entry < bound:
                insort(top, entry)
                top_entry[p] = entry
            else:
                push(heap, entry)
        self.next_id += 1
        self.tokens -= removed
        if len(heap) > 2 * len(counts) + 10_000:
            self._compact()
        return pair, count, shown, removed

    # The "first" rule: a plain lazy heap. Entries carry upper bounds of counts and lower bounds of the
    # first-occurrence key, both corrected when the entry surfaces.

    def _pop_best(self):
        """Pop the best pair's entry, correcting out-of-date entries on the way; None when no pair is left."""
        heap, counts, first = self.heap, self.counts, self.first
        while heap:
            negc, key, p = heapq.heappop(heap)
            n = counts.get(p)
            if n is None:
                first.pop(p, None)
                continue  # the pair is gone
            if n != -negc:
                heapq.heappush(heap, (-n, key, p))
                continue
            exact = self.backend.first_key(p, self.lens)
            if exact != key:
                first[p] = exact
                heapq.heappush(heap, (negc, exact, p))
                continue
            return negc, key, p
        return None

    def _step_heap(self, top_k: int, min_frequency: int):
        """One merge for the ``"first"`` rule: the best pair and the top-k straight from the heap."""
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
        shown = tuple((-n << _KEY_BITS, p) for n, p in  # the winner is off the heap
                      [(count, pair), *((-e[0], e[2]) for e in self._peek_top(top_k - 1))])
        new = chr(self.next_id)
        self.lens.append(self.lens[ord(pair[0])] + self.lens[ord(pair[1])])
        counts, heap, first = self.counts, self.heap, self.first
        born, _, new_first, removed = self.backend.merge(pair, new, counts, (), track_first=True)
        counts.pop(pair, None)
        first.pop(pair, None)
        for p, n in born.items():
            if n <= 0:
                continue
            counts[p] = n
            first[p] = new_first[p]
            heapq.heappush(heap, (-n, first[p], p))
        self.next_id += 1
        self.tokens -= removed
        if len(heap) > 2 * len(counts) + 10_000:
            self._compact()
        return pair, count, shown, removed

    def _peek_top(self, k: int) -> list[tuple]:
        """The best ``k`` entries left in the heap, best first (the heap keeps them).

        Out-of-date counts met on the way are corrected for good, which ``_pop_best`` would do anyway.
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
        return taken

    def _compact(self) -> None:
        """Drop stale heap entries: rebuild the heap from the live counts (less the window's pairs)."""
        if self.windowed:
            window, key = self.top_entry, self.tie_key
            self.heap = [(-n << _KEY_BITS | key(p), p) for p, n in self.counts.items() if p not in window]
        else:
            self.heap = [(-n, self.first[p], p) for p, n in self.counts.items()]
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
        self._trainer = _Trainer(corpus, tie_break, self.base_len, backend, top_k)
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
        pair, count, top, _ = step
        a, b = ord(pair[0]), ord(pair[1])
        tokens = self._tokens
        token = tokens[a] + tokens[b]
        tokens.append(token)
        rank = self.done
        self.done += 1
        return Merge(rank, (a, b), self.base_len + rank, count, token, top, self._trainer.tokens,
                     len(top) == self.top_k > 1 and top[-1][0] >> _KEY_BITS == top[0][0] >> _KEY_BITS)


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
    ``progress(done, total)`` is called now and then. ``top_k`` pairs are recorded before each merge
    (:attr:`Merge.top_pairs`). ``timeout`` (seconds) bounds pre-tokenizing all of ``data`` -- one limit
    however the data is cut into documents and special tokens; by default 2 s + 4 s per million
    characters for a custom pattern (run in a worker process, see :mod:`bpe.isolation`) and none for a
    registry pattern. Past it: :class:`~bpe.PatternTimeout`.

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
