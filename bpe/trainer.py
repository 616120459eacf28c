"""Training: learn merges, and record everything a player needs to replay them.

The loop every tutorial writes — count all pairs, merge the most frequent, repeat — recounts the whole
corpus for every merge. This trainer counts once and then only touches what a merge changes:

* the corpus is held as its unique chunks with weights (see :mod:`bpe.corpus`);
* ``counts`` holds every pair's weighted count; the backend knows the chunks each pair occurs in;
* the best pairs sit in a small sorted *window* of exact entries, the others in a max-heap whose entries
  are corrected when they surface (see :class:`bpe.train_loop.TrainLoop`): the winner and the top-k pairs the player
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
from dataclasses import fields
from types import MappingProxyType
from typing import Callable, Iterator, Sequence

from .corpus import MAX_VOCAB_SIZE, Corpus, TrainingDataError, build_corpus
from .patterns import Pattern, get_pattern
from .run import KEY_BITS, Merge, Run
from .train_loop import LONG_CHUNK, TrainLoop
from .visible import METASPACE, split_metaspace

__all__ = ["train", "MergeStream", "TIE_BREAKS", "LONG_CHUNK", "FAMILIES"]

#: The tie rules :func:`train` knows (see its docstring).
TIE_BREAKS = ("lexical", "first", "hf", "max_bytes")
#: The two BPE families :func:`train` makes: byte level (GPT-2 onward: bytes are the base alphabet, a regex
#: pre-tokenizer) and SentencePiece-style (Llama 2, Mistral 7B, Gemma: characters are the base alphabet,
#: spaces are ▁ glued to the next word, byte fallback for the rest).
FAMILIES = ("byte-level", "sentencepiece")


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


def _merge_setters() -> tuple[Callable[[Merge, object], None], ...]:
    """The setters of :class:`Merge`'s nine slots, in field order: :meth:`MergeStream._generate` builds each
    record with ``object.__new__`` and these, inline (the frozen dataclass's ``__init__`` calls
    ``object.__setattr__`` per field: ~1.1 us a merge, this ~0.4 us). The same object with the same fields;
    ``__init__`` does nothing else."""
    names = [f.name for f in fields(Merge)]
    assert names == ["rank", "pair", "id", "count", "token", "_top", "tokens_after", "ties_capped", "_key_ids"]
    return tuple(getattr(Merge, n).__set__ for n in names)


_SETTERS = _merge_setters()


class MergeStream:
    """Merges one by one as they are learned: the trainer's loop, exposed for stepping and timing.

    Iterating yields :class:`Merge` objects; when it ends, :attr:`stop_reason` says why.

    >>> from bpe.corpus import build_corpus
    >>> stream = MergeStream(build_corpus("abab", pattern=None, level="byte"), 10)
    >>> [m.token for m in stream], stream.stop_reason
    ([b'ab', b'abab'], 'no pair left to merge')
    """

    def __init__(
        self,
        corpus: Corpus,
        n_merges: int,
        *,
        tie_break: str = "lexical",
        top_k: int = 20,
        min_frequency: int = 1,
        backend: str | None = None,
    ):
        self.base_len = 256 if corpus.level == "byte" else len(corpus.alphabet)
        self._trainer = TrainLoop(corpus, tie_break, self.base_len, backend, top_k)
        self._key_ids = getattr(self._trainer, "key_ids", None)
        self._tokens: list = [bytes([b]) for b in range(256)] if corpus.level == "byte" else list(corpus.alphabet)
        self.n_merges = n_merges
        self.top_k = top_k
        self.min_frequency = min_frequency
        self.done = 0
        self.stop_reason = ""
        self._merges = self._generate()

    def __iter__(self) -> Iterator[Merge]:
        return self._merges

    def __next__(self) -> Merge:
        return next(self._merges)

    def _generate(self) -> Iterator[Merge]:
        """The merges, in one frame: what :meth:`__next__` returns, one by one."""
        trainer, top_k, n_merges, base_len = self._trainer, self.top_k, self.n_merges, self.base_len
        steps = trainer.steps(top_k, self.min_frequency)
        tokens, key_ids = self._tokens, self._key_ids
        s0, s1, s2, s3, s4, s5, s6, s7, s8 = _SETTERS
        new, kb = object.__new__, KEY_BITS
        capped = top_k > 1
        for rank, (pair, count, top, _) in zip(range(self.done, n_merges), steps):
            a, b = ord(pair[0]), ord(pair[1])
            token = tokens[a] + tokens[b]
            tokens.append(token)
            self.done = rank + 1
            m = new(Merge)
            s0(m, rank)
            s1(m, (a, b))
            s2(m, base_len + rank)
            s3(m, count)
            s4(m, token)
            s5(m, top)
            s6(m, trainer.tokens)
            s7(m, capped and len(top) == top_k and top[-1] >> kb == top[0] >> kb)
            s8(m, key_ids)
            yield m
        self.stop_reason = trainer.stop_reason if self.done < n_merges else "reached the vocabulary size"


def train(
    data,
    vocab_size: int,
    *,
    pattern: "str | Pattern | None" = "gpt4",
    level: str = "byte",
    tie_break: str = "lexical",
    normalize: str | None = None,
    special_tokens: Sequence[str] = (),
    min_frequency: int = 1,
    top_k: int = 20,
    progress: Callable[[int, int], None] | None = None,
    backend: str | None = None,
    timeout: float | None = None,
    unk_token: str | None = None,
    fuse_unk: bool = False,
    family: str = "byte-level",
    character_coverage: float = 1.0,
    byte_fallback: bool | None = None,
) -> Run:
    """Train a BPE tokenizer and record every merge.

    ``data`` is a ``str``, a list of documents, or a ``{word: count}`` map. ``vocab_size`` counts the
    base tokens (256 bytes, or the corpus's distinct characters at char level), the merges and the
    special tokens. ``pattern`` is a registry name (``"gpt4"``...), any regex, or ``None`` for no
    pre-tokenizer. ``tie_break`` picks among equal counts: ``"lexical"`` (smaller id pair, like rustbpe),
    ``"first"`` (first seen in the text, like minbpe), ``"hf"`` (Hugging Face BpeTrainer) or ``"max_bytes"``
    (the lexicographically greatest pair of byte strings, ``(a_bytes, b_bytes)`` compared as tuples: a
    university course's rule; at char level the tokens' UTF-8 bytes; equal bytes: the smaller ids).
    ``progress(done, total)`` is called now and then. ``top_k`` pairs are recorded before each merge
    (:attr:`Merge.top_pairs`). ``timeout`` (seconds) bounds pre-tokenizing all of ``data`` -- one limit
    however the data is cut into documents and special tokens; by default 2 s + 4 s per million
    characters for a custom pattern (run by the pattern runner, see :func:`bpe.set_pattern_runner`) and none for a
    registry pattern. Past it: :class:`~bpe.PatternTimeout`.

    ``unk_token`` (char level only) names a special token that encodes every character outside the
    alphabet, as in Hugging Face BPE (``fuse_unk=True``: a run of such characters becomes one); it is added
    to ``special_tokens`` if missing. Without it, encoding an unseen character raises
    :class:`bpe.UnknownCharacterError`.

    >>> run = train({"low": 5, "lower": 2}, 9, level="char", special_tokens=["<pad>", "<unk>"], unk_token="<unk>")
    >>> tok = run.tokenizer()
    >>> [tok.token_text(i) for i in tok.encode("lowly")]
    ['low', 'l', '<unk>']

    ``family="sentencepiece"`` trains as Hugging Face's ``SentencePieceBPETokenizer`` does (its merges, with
    ``tie_break="hf"``): char level, spaces become ``▁`` and each document starts with one (``normalize``
    gets ``+metaspace``), each chunk is a ``▁`` and the word after it (the ``metaspace`` pattern, whatever
    ``pattern`` says). ``character_coverage`` (char level) keeps the most frequent characters that make
    that share of the text as the alphabet and skips the others; ``byte_fallback`` (default: on for
    ``sentencepiece``) adds the 256 tokens ``<0x00>``...``<0xFF>`` after the special tokens (not counted in
    ``vocab_size``), so a character outside the alphabet is encoded as its UTF-8 bytes.

    >>> run = train("low lower", 12, family="sentencepiece", tie_break="hf")
    >>> [m.token for m in run.merges], run.tokenizer().encode_pieces("lowé")
    (['lo', '▁lo', '▁low', 'er', '▁lower'], ['▁low', '<0xC3>', '<0xA9>'])
    >>> run.tokenizer().decode(run.tokenizer().encode("low lowé"))
    'low lowé'

    >>> [train("ab ba", 257, pattern=None, tie_break=rule).merges[0].token for rule in ("lexical", "max_bytes")]
    [b' b', b'ba']

    >>> run = train({"low": 5, "lower": 2, "newest": 6, "widest": 3}, 0, level="char", tie_break="first")
    Traceback (most recent call last):
    ...
    bpe.corpus.TrainingDataError: vocab_size 0 is below the base vocabulary: 10 characters + 0 special tokens = 10; ask for at least 10
    """
    if family not in FAMILIES:
        raise TrainingDataError(f"family must be one of {', '.join(FAMILIES)}, not {family!r}")
    if family == "sentencepiece":
        level, pattern = "char", "metaspace"
        if normalize is None or not normalize.endswith(METASPACE):
            normalize = METASPACE if normalize is None else f"{normalize}+{METASPACE}"
    if byte_fallback is None:
        # a char-level run with spaces as ▁ is SentencePiece-style however it was asked for
        byte_fallback = level == "char" and split_metaspace(normalize)[1]
    byte_fallback = bool(byte_fallback)
    if byte_fallback and level != "char":
        raise TrainingDataError("byte_fallback is for char-level training: a byte-level tokenizer has every byte")
    if (
        isinstance(character_coverage, bool)
        or not isinstance(character_coverage, (int, float))
        or not (0 < character_coverage <= 1)
    ):
        raise TrainingDataError(f"character_coverage must be above 0 and at most 1, not {character_coverage!r}")
    _validate(vocab_size, tie_break, level, top_k, min_frequency)
    specials = _special_ids(special_tokens)
    if unk_token is not None:
        if level != "char":
            raise TrainingDataError(
                "unk_token is for char-level training: a byte-level tokenizer never meets an "
                "unknown character (every text is bytes)"
            )
        specials = _special_ids([*specials, unk_token])
    entry = None if pattern is None else get_pattern(pattern)
    # Training makes no reference cycles, only many lists and strings: the cyclic collector would walk the
    # growing index again and again for nothing (~5% of the time). It is off meanwhile, and what training
    # built goes straight to the oldest generation (freeze + unfreeze), not through the young ones' passes.
    collecting = gc.isenabled()
    gc.disable()
    try:
        corpus = build_corpus(
            data,
            pattern=entry,
            level=level,
            normalize=normalize,
            special_tokens=specials,
            timeout=timeout,
            character_coverage=character_coverage,
        )
        base: tuple = tuple(bytes([b]) for b in range(256)) if level == "byte" else corpus.alphabet
        floor = len(base) + len(specials)
        if vocab_size < floor:
            unit = "bytes" if level == "byte" else "characters"
            raise TrainingDataError(
                f"vocab_size {vocab_size} is below the base vocabulary: {len(base)} {unit} + "
                f"{len(specials)} special tokens = {floor}; ask for at least {floor}"
            )
        n_merges = vocab_size - floor
        tokens_before = corpus.tokens
        stream = MergeStream(
            corpus, n_merges, tie_break=tie_break, top_k=top_k, min_frequency=min_frequency, backend=backend
        )
        merges: list[Merge] = []
        every = max(1, n_merges // 200)
        if progress is None:
            merges.extend(stream)
        else:
            for merge in stream:
                merges.append(merge)
                if merge.rank % every == 0:
                    progress(merge.rank + 1, n_merges)
    finally:
        if collecting:
            gc.freeze()
            gc.unfreeze()
            gc.enable()
    if progress is not None:
        progress(len(merges), n_merges)
    reason = stream.stop_reason or "reached the vocabulary size"
    first_special = len(base) + len(merges)
    return Run(
        merges=tuple(merges),
        level=level,
        pattern=entry,
        tie_break=tie_break,
        normalize=normalize,
        special_tokens=MappingProxyType({s: first_special + i for i, s in enumerate(specials)}),
        base=base,
        vocab_size_requested=vocab_size,
        tokens_before=tokens_before,
        stop_reason=reason,
        n_bytes=corpus.n_bytes,
        n_chars=corpus.n_chars,
        n_chunks=corpus.n_chunks,
        n_unique_chunks=len(corpus.chunks),
        unk_token=unk_token,
        fuse_unk=bool(fuse_unk),
        byte_fallback=byte_fallback,
    )
