"""The tables a :class:`bpe.Tokenizer` is built from: which id each base unit (a byte, a character) has,
the 256 byte-fallback tokens, and a training run's vocabulary after its first ``k`` merges.

Plain functions over plain mappings, so each of the tokenizer's named constructors stays a few lines.

>>> byte_unit_ids({i: bytes([i]) for i in range(256)}, set())[97]
97
"""

from __future__ import annotations

from itertools import repeat
from typing import Mapping, Protocol, Sequence

from .hf_pipeline import byte_token
from .patterns import Pattern

#: every single byte, indexed by itself
_SINGLE_BYTES = [bytes([b]) for b in range(256)]

__all__ = [
    "TrainedMerge",
    "TrainedRun",
    "byte_unit_ids",
    "char_unit_ids",
    "fallback_ids",
    "run_tables",
    "with_specials",
]


class TrainedMerge(Protocol):
    """What :func:`run_tables` reads of a merge (:class:`bpe.Merge` has it)."""

    @property
    def pair(self) -> tuple[int, int]:
        """The two ids merged."""

    @property
    def id(self) -> int:
        """The id the merge makes."""

    @property
    def token(self) -> bytes | str:
        """The new token's bytes (text at char level)."""


class TrainedRun(Protocol):
    """What :meth:`bpe.Tokenizer.from_run` reads of a training run (:class:`bpe.Run` has it)."""

    @property
    def merges(self) -> Sequence[TrainedMerge]:
        """The merges, in the order learned."""

    @property
    def base(self) -> Sequence[bytes | str]:
        """The base tokens, by id: bytes at byte level, characters at char level."""

    @property
    def level(self) -> str:
        """``"byte"`` or ``"char"``."""

    @property
    def pattern(self) -> Pattern | None:
        """The pre-tokenizer pattern (None: none)."""

    @property
    def normalize(self) -> str | None:
        """The normalization applied before encoding."""

    @property
    def special_tokens(self) -> Mapping[str, int]:
        """Special token -> id."""

    @property
    def unk_token(self) -> str | None:
        """Char level: the special token for characters outside the alphabet."""

    @property
    def fuse_unk(self) -> bool:
        """Whether a run of unknown characters becomes one token."""

    @property
    def byte_fallback(self) -> bool:
        """Whether the 256 ``<0xNN>`` tokens follow the vocabulary."""

    @property
    def vocab_size(self) -> int:
        """Tokens in the vocabulary (the byte-fallback tokens are numbered from here)."""


def with_specials(
    vocab: Mapping[int, bytes | str], special_tokens: Mapping[str, int], level: str
) -> dict[int, bytes | str]:
    """``vocab`` plus each special token its id lacks (as UTF-8 bytes at byte level, as text at char level).

    >>> with_specials({0: "a"}, {"<s>": 1}, "char")
    {0: 'a', 1: '<s>'}
    """
    out = dict(vocab)
    for s, i in special_tokens.items():
        out.setdefault(i, s.encode("utf-8") if level == "byte" else s)
    return out


def byte_unit_ids(vocab: Mapping[int, bytes | str], special_ids: Mapping[int, str] | set[int]) -> list[int]:
    """The id of each of the 256 single bytes, indexed by the byte; ValueError naming a missing one.

    >>> byte_unit_ids({b: bytes([b]) for b in range(256)} | {256: b"ab"}, set())[97]
    97
    """
    try:  # token -> its last id, in C (200,000 tokens: a loop over them took ~20 ms)
        ids = list(map(dict(zip(vocab.values(), vocab)).get, _SINGLE_BYTES, repeat(-1)))
        plain = not any(i in special_ids for i in ids)  # else a special token of one byte, which the loop skips
    except TypeError:  # an unhashable token (bytearray)
        plain = False
    if not plain:
        ids = [-1] * 256
        for i, tok in vocab.items():
            if i not in special_ids and isinstance(tok, (bytes, bytearray)) and len(tok) == 1:
                ids[tok[0]] = i
    missing = [b for b in range(256) if ids[b] < 0]
    if missing:
        raise ValueError(
            f"a byte-level vocabulary needs all 256 single bytes; missing {len(missing)}, e.g. {bytes([missing[0]])!r}"
        )
    return ids


def char_unit_ids(vocab: Mapping[int, bytes | str], special_ids: Mapping[int, str] | set[int]) -> dict[str, int]:
    """The id of each single character (a char-level tokenizer's alphabet).

    >>> char_unit_ids({0: "a", 1: "ab", 2: "<s>"}, {2})
    {'a': 0}
    """
    return {t: i for i, t in vocab.items() if isinstance(t, str) and len(t) == 1 and i not in special_ids}


def fallback_ids(vocab: Mapping[int, bytes | str], special_ids: Mapping[int, str] | set[int]) -> list[int]:
    """The ids of the 256 byte-fallback tokens ``<0x00>``...``<0xFF>`` (SentencePiece's ``byte_fallback``),
    indexed by the byte; ValueError naming a missing one."""
    by_text = {t: i for i, t in vocab.items() if isinstance(t, str) and i not in special_ids}
    try:
        return [by_text[byte_token(b)] for b in range(256)]
    except KeyError as exc:
        raise ValueError(f"byte_fallback needs the 256 tokens <0x00>...<0xFF>; {exc.args[0]} is missing") from None


def run_tables(run: TrainedRun, k: int | None) -> tuple[dict[int, bytes | str], dict[tuple[int, int], int], int]:
    """A run's vocabulary and merge list after its first ``k`` merges (all when ``k`` is None), and ``k``.

    >>> import bpe
    >>> vocab, merges, k = run_tables(bpe.train("aaabdaaabac", 258, pattern=None), 1)
    >>> vocab[256], merges, k
    (b'aa', {(97, 97): 256}, 1)
    """
    n = len(run.merges)
    if k is None:
        k = n
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= n:
        raise ValueError(f"k must be a whole number from 0 to {n}, not {k!r}")
    vocab: dict[int, bytes | str] = dict(enumerate(run.base))
    merges: dict[tuple[int, int], int] = {}
    for m in run.merges[:k]:
        vocab[m.id] = m.token
        merges[m.pair] = m.id
    if run.byte_fallback:
        first = run.vocab_size
        vocab.update((first + b, byte_token(b)) for b in range(256))
    return vocab, merges, k
