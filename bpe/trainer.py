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
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Callable, Iterator, Mapping, Sequence

from .corpus import MAX_VOCAB_SIZE, Corpus, TrainingDataError, build_corpus
from .patterns import Pattern, get_pattern
from .visible import BYTE_TO_CHAR

__all__ = ["Merge", "Run", "train", "MergeStream", "TIE_BREAKS", "hf_rank_table", "LONG_CHUNK"]

TIE_BREAKS = ("lexical", "first", "hf")
#: Chunks longer than this (in base tokens) switch training to the position-list backend.
LONG_CHUNK = 2048


@dataclass(frozen=True, slots=True)
class Merge:
    """One learned merge and the state of training at that moment.

    ``rank`` is its position (0-based); ``pair`` the two token ids merged into ``id``; ``count`` the
    pair's weighted count before the merge (overlapping occurrences counted: ``aaa`` has 2 ``(a, a)``);
    :attr:`top_pairs` the best ``top_k`` pairs before the merge, best first, the winner first; :attr:`ties`
    the other pairs that had the winner's count (those among the top-k; ``ties_capped`` says if there may
    be more); ``tokens_after`` the corpus's token count after this merge.

    The top pairs and ties are kept as flat integer arrays (a run of 20,000 merges would otherwise hold
    ~100 MB of small tuples); the properties build the tuples on access.
    """

    rank: int
    pair: tuple[int, int]
    id: int
    count: int
    token: bytes | str
    _top: array = field(repr=False)    # left, right, count, left, right, count, ...
    _ties: array = field(repr=False)   # left, right, left, right, ...
    tokens_after: int
    #: True when ``ties`` ran into the top-k limit: more pairs may have tied
    ties_capped: bool = False

    @property
    def top_pairs(self) -> tuple[tuple[tuple[int, int], int], ...]:
        t = self._top
        return tuple(((t[i], t[i + 1]), t[i + 2]) for i in range(0, len(t), 3))

    @property
    def ties(self) -> tuple[tuple[int, int], ...]:
        t = self._ties
        return tuple((t[i], t[i + 1]) for i in range(0, len(t), 2))


def hf_rank_table() -> dict[int, int]:
    """Byte value -> its id in a Hugging Face ``tokenizers`` byte-level BpeTrainer.

    HF gives the 256 byte tokens ids in the order of their visible characters sorted by code point
    (``!`` first, ``Ġ`` for space far later), so among tied counts it prefers pairs in that order.
    """
    order = sorted(range(256), key=lambda b: BYTE_TO_CHAR[b])
    return {b: rank for rank, b in enumerate(order)}


_HF_TRANSLATE = {b: r for b, r in hf_rank_table().items()}


# ----------------------------------------------------------------------------------------------------
# The run: an immutable record of training

@dataclass(frozen=True)
class Run:
    """The result of :func:`train`: every merge in order plus what is needed to rebuild a tokenizer.

    >>> run = train("hello hello hello world", 256 + 3, pattern=None)
    >>> len(run.merges), run.tokens_before
    (3, 23)
    """

    merges: tuple[Merge, ...]
    level: str
    pattern: Pattern | None
    tie_break: str
    normalize: str | None
    special_tokens: Mapping[str, int]
    #: base tokens: ``bytes([b])`` at byte level, the alphabet's characters at char level
    base: tuple
    vocab_size_requested: int
    tokens_before: int
    stop_reason: str
    n_bytes: int = 0
    n_chars: int = 0
    n_chunks: int = 0
    n_unique_chunks: int = 0

    @property
    def requested_merges(self) -> int:
        return self.vocab_size_requested - len(self.base) - len(self.special_tokens)

    @property
    def complete(self) -> bool:
        """True when training made every merge asked for."""
        return len(self.merges) >= self.requested_merges

    @property
    def vocab_size(self) -> int:
        return len(self.base) + len(self.merges) + len(self.special_tokens)

    @property
    def pattern_name(self) -> str | None:
        if self.pattern is None:
            return None
        return self.pattern.regex if self.pattern.custom else self.pattern.name

    def token(self, token_id: int) -> bytes | str:
        """The bytes (byte level) or text (char level) of any token id."""
        nb = len(self.base)
        if 0 <= token_id < nb:
            return self.base[token_id]
        if nb <= token_id < nb + len(self.merges):
            return self.merges[token_id - nb].token
        for s, i in self.special_tokens.items():
            if i == token_id:
                return s.encode("utf-8") if self.level == "byte" else s
        raise KeyError(f"token id {token_id} is not in this vocabulary (size {self.vocab_size})")

    @property
    def vocab(self) -> dict[int, bytes | str]:
        """Every id -> its bytes (byte level) or text (char level), specials included."""
        out: dict[int, bytes | str] = dict(enumerate(self.base))
        for m in self.merges:
            out[m.id] = m.token
        for s, i in self.special_tokens.items():
            out[i] = s.encode("utf-8") if self.level == "byte" else s
        return out

    def token_counts(self) -> list[int]:
        """Corpus token count after 0, 1, ... len(merges) merges."""
        return [self.tokens_before] + [m.tokens_after for m in self.merges]

    def merge_of(self, token_id: int) -> Merge | None:
        """The merge that created ``token_id`` (None for base and special tokens)."""
        k = token_id - len(self.base)
        return self.merges[k] if 0 <= k < len(self.merges) else None

    def tokenizer(self, k: int | None = None):
        """A :class:`bpe.Tokenizer` that uses only the first ``k`` merges (all by default)."""
        from .tokenizer import Tokenizer

        return Tokenizer.from_run(self, k)

    def summary(self) -> str:
        done = len(self.merges)
        text = f"{done} merges ({self.stop_reason})"
        if self.tokens_before:
            text += f", {self.tokens_before:,} -> {self.token_counts()[-1]:,} tokens"
        return text


# ----------------------------------------------------------------------------------------------------
# Backends: how the corpus is stored and rewritten

class _ChunkBackend:
    """Unique chunks as ``chr(id)`` strings: a merge is ``str.replace`` on the chunks holding the pair."""

    def __init__(self, corpus: Corpus):
        self.chunks = corpus.chunks
        self.weights = corpus.weights

    def initial_counts(self):
        counts: dict[str, int] = {}
        where: dict[str, set] = {}
        first: dict[str, tuple[int, int]] = {}
        for i, (chunk, w) in enumerate(zip(self.chunks, self.weights)):
            for j in range(len(chunk) - 1):
                p = chunk[j:j + 2]
                if p in counts:
                    counts[p] += w
                    where[p].add(i)
                else:
                    counts[p] = w
                    where[p] = {i}
                    first[p] = (i, j)
        return counts, where, first

    def merge(self, pair: str, new: str, where: dict[str, set], lens: list[int]):
        """Rewrite the chunks holding ``pair``; return (pair deltas, first-key bounds of new pairs, removed)."""
        chunks, weights = self.chunks, self.weights
        deltas: dict[str, int] = {}
        new_first: dict[str, tuple[int, int]] = {}
        removed = 0
        a, b = pair
        get = deltas.get

        def born(p: str, i: int) -> None:
            """Index a pair that contains the new token."""
            s = where.get(p)
            if s is None:
                where[p] = {i}
            else:
                s.add(i)
            key = (i, 0)
            if p not in new_first or key < new_first[p]:
                new_first[p] = key

        for i in where.pop(pair, ()):
            old = chunks[i]
            at = old.find(pair)
            if at < 0:
                continue  # the pair left this chunk in an earlier merge (``where`` is never pruned)
            w = weights[i]
            if old.find(pair, at + 2) < 0:
                # One occurrence (the common case): only its two neighbours change.
                chunks[i] = old[:at] + new + old[at + 2:]
                removed += w
                deltas[pair] = get(pair, 0) - w
                if at > 0:
                    left = old[at - 1]
                    p = left + a
                    deltas[p] = get(p, 0) - w
                    p = left + new
                    deltas[p] = get(p, 0) + w
                    born(p, i)
                if at + 2 < len(old):
                    right = old[at + 2]
                    p = b + right
                    deltas[p] = get(p, 0) - w
                    p = new + right
                    deltas[p] = get(p, 0) + w
                    born(p, i)
                continue
            merged = old.replace(pair, new)
            chunks[i] = merged
            removed += (len(old) - len(merged)) * w
            # Several occurrences (they may touch, as in "abab"): recount this short chunk both ways.
            for j in range(len(old) - 1):
                p = old[j:j + 2]
                deltas[p] = get(p, 0) - w
            for j in range(len(merged) - 1):
                p = merged[j:j + 2]
                deltas[p] = get(p, 0) + w
                if new in p:
                    born(p, i)
        return deltas, new_first, removed

    def first_key(self, pair: str, where: dict[str, set], lens: list[int]):
        """Exact (chunk index, base offset) of the pair's first occurrence, or None."""
        best = None
        for i in where.get(pair, ()):
            if (best is None or i < best) and pair in self.chunks[i]:
                best = i
        if best is None:
            return None
        chunk = self.chunks[best]
        j = chunk.find(pair)
        return (best, sum(lens[ord(c)] for c in chunk[:j]))


class _PositionBackend:
    """The corpus as linked lists of token positions (for very long chunks, e.g. ``pattern=None``).

    Positions are base-token offsets in the chunks laid end to end; a merge visits only the positions
    where the pair starts, left to right, so it costs the pair's occurrences, not the text's length.
    """

    def __init__(self, corpus: Corpus):
        tok: list[int] = []
        weight: list[int] = []
        nxt: list[int] = []
        prv: list[int] = []
        for chunk, w in zip(corpus.chunks, corpus.weights):
            start = len(tok)
            n = len(chunk)
            tok.extend(ord(c) for c in chunk)
            weight.extend([w] * n)
            prv.extend(range(start - 1, start + n - 1))
            nxt.extend(range(start + 1, start + n + 1))
            prv[start] = -1
            nxt[start + n - 1] = -1
        self.tok, self.weight, self.nxt, self.prv = tok, weight, nxt, prv
        self.alive = bytearray(b"\x01") * len(tok)

    def initial_counts(self):
        counts: dict[str, int] = {}
        where: dict[str, set] = {}
        first: dict[str, tuple[int, int]] = {}
        tok, nxt, weight = self.tok, self.nxt, self.weight
        for pos in range(len(tok)):
            q = nxt[pos]
            if q < 0:
                continue
            p = chr(tok[pos]) + chr(tok[q])
            if p in counts:
                counts[p] += weight[pos]
                where[p].add(pos)
            else:
                counts[p] = weight[pos]
                where[p] = {pos}
                first[p] = (0, pos)
        return counts, where, first

    def merge(self, pair: str, new: str, where: dict[str, set], lens: list[int]):
        a, b, c = ord(pair[0]), ord(pair[1]), ord(new)
        tok, nxt, prv, weight, alive = self.tok, self.nxt, self.prv, self.weight, self.alive
        deltas: dict[str, int] = {}
        new_first: dict[str, tuple[int, int]] = {}
        removed = 0

        def add(p: str, pos: int, w: int) -> None:
            deltas[p] = deltas.get(p, 0) + w
            s = where.get(p)
            if s is None:
                where[p] = {pos}
            else:
                s.add(pos)
            if p not in new_first or (0, pos) < new_first[p]:
                new_first[p] = (0, pos)

        for pos in sorted(where.pop(pair, ())):
            if not alive[pos] or tok[pos] != a:
                continue
            q = nxt[pos]
            if q < 0 or tok[q] != b:
                continue
            w = weight[pos]
            left, right = prv[pos], nxt[q]
            if left >= 0:
                p_old = chr(tok[left]) + pair[0]
                deltas[p_old] = deltas.get(p_old, 0) - w
                add(chr(tok[left]) + new, left, w)
            if right >= 0:
                p_old = pair[1] + chr(tok[right])
                deltas[p_old] = deltas.get(p_old, 0) - w
                add(new + chr(tok[right]), pos, w)
            deltas[pair] = deltas.get(pair, 0) - w
            tok[pos] = c
            alive[q] = 0
            nxt[pos] = right
            if right >= 0:
                prv[right] = pos
            removed += w
        return deltas, new_first, removed

    def first_key(self, pair: str, where: dict[str, set], lens: list[int]):
        a, b = ord(pair[0]), ord(pair[1])
        tok, nxt, alive = self.tok, self.nxt, self.alive
        best = None
        for pos in where.get(pair, ()):
            if (best is None or pos < best) and alive[pos] and tok[pos] == a:
                q = nxt[pos]
                if q >= 0 and tok[q] == b:
                    best = pos
        return None if best is None else (0, best)


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
        self.backend = _PositionBackend(corpus) if backend == "positions" else _ChunkBackend(corpus)
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
          timeout: float | None = None) -> Run:
    """Train a BPE tokenizer and record every merge.

    ``data`` is a ``str``, a list of documents, or a ``{word: count}`` map. ``vocab_size`` counts the
    base tokens (256 bytes, or the corpus's distinct characters at char level), the merges and the
    special tokens. ``pattern`` is a registry name (``"gpt4"``...), any regex, or ``None`` for no
    pre-tokenizer. ``tie_break`` picks among equal counts: ``"lexical"`` (smaller id pair, like rustbpe),
    ``"first"`` (first seen in the text, like minbpe) or ``"hf"`` (Hugging Face BpeTrainer).
    ``progress(done, total)`` is called now and then.

    >>> run = train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 0, level="char", tie_break="first")
    Traceback (most recent call last):
    ...
    bpe.corpus.TrainingDataError: vocab_size 0 is below the base vocabulary: 10 characters + 0 special tokens = 10; ask for at least 10
    """
    _validate(vocab_size, tie_break, level, top_k, min_frequency)
    specials = _special_ids(special_tokens)
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
        n_unique_chunks=len(corpus.chunks),
    )
