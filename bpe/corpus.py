"""From training data to weighted chunks of base-token ids.

Training data comes in three shapes — one text, a list of documents, or a ``{word: count}`` map — and BPE
only ever needs one: the *unique* chunks with how often each occurs, in order of first appearance. A chunk
is stored as a ``str`` with one character per token id (``chr(id)``): merging a pair is then a single
``str.replace`` and a pair is a 2-character string.

>>> c = build_corpus("hello hello", pattern="gpt2", level="byte")
>>> c.chunks, c.weights
(['hello', ' hello'], [1, 1])
"""

from __future__ import annotations

import functools
import operator
from collections import Counter
from dataclasses import dataclass
from typing import Mapping, Sequence, TypeAlias

import regex

from .deadline import Deadline, run_pattern
from .patterns import Pattern, get_pattern
from .splitting import chunk_texts, request_deadline, stopped_at
from .visible import normalize_text

__all__ = [
    "Corpus",
    "build_corpus",
    "count_chunks",
    "check_text",
    "special_splitter",
    "base_vocab_size",
    "TrainingDataError",
    "MAX_VOCAB_SIZE",
    "TrainingData",
]

#: Token ids live in ``chr(id)``: keep well below the last code point.
MAX_VOCAB_SIZE = 1_000_000


#: What :func:`bpe.train` learns from: a text, a list of documents, or a ``{word: count}`` map.
TrainingData: TypeAlias = "str | Sequence[str] | Mapping[str, int]"


class TrainingDataError(ValueError):
    """Training data that cannot be used, with a message that says why."""


@dataclass
class Corpus:
    """Unique chunks (``chr(id)`` strings), their weights, and the base alphabet.

    >>> c = build_corpus("ab ab", pattern="gpt2", level="char")
    >>> c.chunks, c.weights, c.alphabet, c.tokens
    (['\\x01\\x02', '\\x00\\x01\\x02'], [1, 1], (' ', 'a', 'b'), 5)
    """

    chunks: list[str]
    weights: list[int]
    level: str
    #: char level: the distinct characters in code-point order (their ids are their positions)
    alphabet: tuple[str, ...]
    n_bytes: int
    n_chars: int
    n_chunks: int

    @property
    def tokens(self) -> int:
        """Base tokens in the corpus, counting repeats."""
        return sum(map(operator.mul, map(len, self.chunks), self.weights))


def check_text(text: str, what: str = "the text") -> None:
    """Raise :class:`TrainingDataError` (a ``ValueError``) for text that cannot be UTF-8 encoded.

    >>> check_text("a\\ud800")
    Traceback (most recent call last):
    ...
    bpe.corpus.TrainingDataError: the text contains a lone surrogate U+D800 at position 1; it is not valid Unicode text and has no UTF-8 bytes
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        ch = text[exc.start]
        raise TrainingDataError(
            f"{what} contains a lone surrogate U+{ord(ch):04X} at position {exc.start}; "
            "it is not valid Unicode text and has no UTF-8 bytes"
        ) from None


def special_splitter(special_tokens: Sequence[str]) -> "regex.Pattern[str] | None":
    """A regex that finds any of the special-token strings (longest first), or ``None`` for none.

    Compiled once per set of strings (Llama 4 has 2,048 special tokens: compiling their alternation on
    every ``encode`` call cost ~60 ms).

    >>> special_splitter(["<|a|>", "<|ab|>"]).split("x<|ab|>y")
    ['x', 'y']
    """
    if not special_tokens:
        return None
    return _compiled_splitter(tuple(sorted(set(special_tokens), key=lambda s: (-len(s), s))))


@functools.lru_cache(maxsize=64)
def _compiled_splitter(ordered: tuple[str, ...]) -> "regex.Pattern[str]":
    return regex.compile("|".join(regex.escape(s) for s in ordered))


def base_vocab_size(
    text: str,
    level: str,
    *,
    normalize: str | None = None,
    special_tokens: Sequence[str] = (),
    character_coverage: float = 1.0,
) -> int:
    """The base tokens a run on ``text`` starts from, before training: 256 at byte level; at char level the
    distinct characters of the text, normalized, with the special-token strings cut out -- the size of
    :attr:`Run.base <bpe.Run.base>` for ``train(text, ..., pattern=None)``. ``vocab_size = base + merges +
    special tokens`` then asks for a number of merges. (A custom pre-tokenizer that leaves characters
    unmatched drops them from training, so the run's base can be smaller; registry patterns match every
    character.)

    >>> base_vocab_size("hello", "byte")
    256
    >>> base_vocab_size("héllo<|x|>hé", "char", special_tokens=["<|x|>"])
    4
    >>> base_vocab_size("e\u0301", "char"), base_vocab_size("e\u0301", "char", normalize="NFC")
    (2, 1)

    ``character_coverage`` (below 1) counts only the characters training keeps (see :func:`build_corpus`):

    >>> base_vocab_size("aaaa bb c", "char", normalize="metaspace", character_coverage=0.8)
    3
    """
    if level not in ("byte", "char"):
        raise TrainingDataError(f"level must be 'byte' or 'char', not {level!r}")
    if level == "byte":
        return 256
    text = normalize_text(text, normalize)
    splitter = special_splitter(special_tokens)
    pieces = splitter.split(text) if splitter is not None else (text,)
    if character_coverage < 1.0:
        freq: Counter[str] = Counter()
        for piece in pieces:
            freq.update(piece)
        return len(freq) - len(_dropped(freq, character_coverage))
    return len(set().union(*pieces))


def _documents(data: TrainingData) -> tuple[list[str], list[int], bool]:
    """Normalize the three data shapes to (texts, weights, is_word_map)."""
    if isinstance(data, str):
        return [data], [1], False
    if isinstance(data, (bytes, bytearray, memoryview)):
        raise TrainingDataError(
            "training data must be text (str), not bytes: decode it first, e.g. data.decode('utf-8')"
        )
    if isinstance(data, Mapping):
        texts, weights = [], []
        for word, count in data.items():
            if not isinstance(word, str):
                raise TrainingDataError(f"word-count maps need str keys, got {type(word).__name__}")
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise TrainingDataError(f"the count of {word!r} must be a whole number >= 0, got {count!r}")
            if count and word:
                texts.append(word)
                weights.append(count)
        return texts, weights, True
    if isinstance(data, Sequence) or hasattr(data, "__iter__"):
        texts = list(data)
        for i, t in enumerate(texts):
            if not isinstance(t, str):
                raise TrainingDataError(f"document {i} is a {type(t).__name__}, not a str")
        return texts, [1] * len(texts), False
    raise TrainingDataError(
        f"training data must be a str, a list of str or a {{word: count}} map, not {type(data).__name__}"
    )


def build_corpus(
    data: TrainingData,
    *,
    pattern: "str | Pattern | None",
    level: str,
    normalize: str | None = None,
    special_tokens: Sequence[str] = (),
    timeout: "float | Deadline | None" = None,
    character_coverage: float = 1.0,
) -> Corpus:
    """Pre-tokenize and count: the unique chunks of ``data`` as base-id strings with their weights.

    Special-token strings are cut out of the text (they are never merged with anything); each document
    and each map word is pre-tokenized on its own, so no chunk crosses a document. A ``{word: count}``
    map is not pre-tokenized: each word is one chunk. ``timeout`` is one limit for pre-tokenizing all of
    it (see :func:`count_chunks`).

    >>> build_corpus({"low": 5, "lower": 2}, pattern="gpt4", level="byte").weights
    [5, 2]
    """
    if level not in ("byte", "char"):
        raise TrainingDataError(f"level must be 'byte' or 'char', not {level!r}")
    texts, weights, is_map = _documents(data)
    entry = None if (pattern is None or is_map) else get_pattern(pattern)
    splitter = special_splitter(special_tokens)
    pieces: list[str] = []
    piece_weights: list[int] = []
    n_bytes = n_chars = 0
    for doc_index, (text, weight) in enumerate(zip(texts, weights)):
        check_text(text, "the training text" if len(texts) == 1 else f"document {doc_index}")
        text = normalize_text(text, normalize)
        n_chars += len(text) * weight
        n_bytes += len(text.encode("utf-8")) * weight
        for piece in splitter.split(text) if splitter is not None else (text,):
            if piece:
                pieces.append(piece)
                piece_weights.append(weight)
    del texts
    counts, n_chunks = count_chunks(pieces, piece_weights, entry, timeout)
    del pieces
    if not counts:
        raise TrainingDataError("the training text is empty (after removing special tokens)")
    if level == "char" and character_coverage < 1.0:
        counts = _cover(counts, character_coverage)
    if level == "byte":
        # latin-1 maps every byte value b to chr(b): the chunk's base ids are its UTF-8 bytes (an ASCII
        # chunk's are its characters already).
        chunks = [c if c.isascii() else c.encode("utf-8").decode("latin-1") for c in counts]
        alphabet: tuple[str, ...] = ()
    else:
        alphabet = tuple(sorted({ch for c in counts for ch in c}))
        table = {ord(ch): i for i, ch in enumerate(alphabet)}
        chunks = [c.translate(table) for c in counts]
    return Corpus(
        chunks=chunks,
        weights=list(counts.values()),
        level=level,
        alphabet=alphabet,
        n_bytes=n_bytes,
        n_chars=n_chars,
        n_chunks=n_chunks,
    )


def _cover(counts: "Counter[str]", coverage: float) -> "Counter[str]":
    """The chunks with the rarest characters left out: the alphabet keeps the most frequent characters (ties:
    the smaller code point first) until they make ``coverage`` of all characters (SentencePiece's
    ``character_coverage``). As Hugging Face's trainer does with characters beyond ``limit_alphabet``, a
    dropped character is skipped: its neighbours become adjacent. Encoding gives such characters to byte
    fallback (or the unknown token).

    >>> _cover(Counter({"aab": 3, "ac": 1}), 0.9)
    Counter({'aab': 3, 'a': 1})
    """
    freq: Counter[str] = Counter()
    for chunk, w in counts.items():
        for ch in chunk:
            freq[ch] += w
    dropped = _dropped(freq, coverage)
    if not dropped:
        return counts
    out: Counter[str] = Counter()
    for chunk, w in counts.items():
        rest = chunk.translate(dropped)
        if rest:
            out[rest] += w
    return out


def _dropped(freq: "Counter[str]", coverage: float) -> dict[int, None]:
    """The code points of the rarest characters of ``freq`` left out at ``coverage`` (see :func:`_cover`)."""
    if not 0 < coverage <= 1:
        raise TrainingDataError(f"character_coverage must be above 0 and at most 1, not {coverage!r}")
    total = sum(freq.values())
    kept = 0
    dropped: dict[int, None] = {}
    for ch, n in sorted(freq.items(), key=lambda kv: (-kv[1], kv[0])):
        if kept >= coverage * total:
            dropped[ord(ch)] = None
        else:
            kept += n
    return dropped


def count_chunks(
    pieces: Sequence[str], weights: Sequence[int], entry: "Pattern | None", timeout: "float | Deadline | None" = None
) -> "tuple[Counter[str], int]":
    """The chunks of all ``pieces`` with their weighted counts (first appearance first), and how many
    chunks there were in all; ``entry=None`` keeps each piece whole.

    One deadline covers all the pieces (:func:`bpe.splitting.request_deadline`: ``timeout``, else 2 s + 4 s
    per million characters for a custom pattern); past it, :class:`~bpe.patterns.PatternTimeout`. A
    custom pattern runs through the pattern runner, as in :func:`bpe.splitting.pretokenize_pieces`; only
    the counts come back.

    >>> count_chunks(["ab ab", "ab"], [1, 2], get_pattern("[a-z]+| "))
    (Counter({'ab': 4, ' ': 1}), 5)
    """
    counts: Counter[str] = Counter()
    if entry is None:
        for piece, w in zip(pieces, weights):
            counts[piece] += w
        return counts, sum(weights)
    total = sum(map(len, pieces))
    deadline = request_deadline(timeout, entry, total)
    with stopped_at(deadline):
        if entry.custom:
            counted: tuple[Counter[str], int] = run_pattern(
                _count_pieces, (entry, list(pieces), list(weights)), deadline
            )
            return counted
        return counts, _count(pieces, weights, entry, counts, deadline)


def _count(
    pieces: Sequence[str], weights: Sequence[int], entry: Pattern, counts: "Counter[str]", deadline: Deadline
) -> int:
    n_chunks = 0
    for piece, w in zip(pieces, weights):
        chunks = chunk_texts(piece, entry, deadline)
        n_chunks += len(chunks) * w
        if w == 1:
            counts.update(chunks)
        else:
            for c in chunks:
                counts[c] += w
    return n_chunks


def _count_pieces(
    entry: Pattern, pieces: list[str], weights: list[int], deadline: Deadline
) -> "tuple[Counter[str], int]":
    """:func:`count_chunks` of a custom pattern, through the pattern runner (maybe in another process)."""
    counts: Counter[str] = Counter()
    n_chunks = _count(pieces, weights, entry, counts, deadline)
    return counts, n_chunks
