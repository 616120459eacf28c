"""The record of a training run: every :class:`Merge` in order, and the :class:`Run` that holds them.

Both are immutable: a run is trained once and then shared (the app keeps runs in a cache used by every
session). :meth:`Run.tokenizer` turns a run, or its first ``k`` merges, into a :class:`bpe.Tokenizer`.

>>> import bpe
>>> run = bpe.train("aaabdaaabac", 258, pattern=None)
>>> [(m.pair, m.id, m.count) for m in run.merges]
[((97, 97), 256, 4), ((97, 98), 257, 2)]
>>> run.token_counts()
[11, 9, 7]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

from .patterns import Pattern
from .tokenizer import Tokenizer

__all__ = ["Merge", "Run"]

#: A token id fits in 21 bits (``bpe.MAX_VOCAB_SIZE`` is below 2**21), a pair's tie key in 42: a top-pair
#: entry's code is ``-count << 42 | tie key`` (see :mod:`bpe.train_loop`).
ID_BITS = 21
KEY_BITS = 2 * ID_BITS
_ID_MASK = (1 << ID_BITS) - 1


@dataclass(frozen=True, slots=True)
class Merge:
    """One learned merge and the state of training at that moment.

    ``rank`` is its position (0-based); ``pair`` the two token ids merged into ``id``; ``count`` the
    pair's weighted count before the merge (overlapping occurrences counted: ``aaa`` has 2 ``(a, a)``);
    :attr:`top_pairs` the best ``top_k`` pairs before the merge, best first, the winner first; :attr:`ties`
    the other pairs that had the winner's count (those among the top-k; ``ties_capped`` says if there may
    be more); ``tokens_after`` the corpus's token count after this merge.

    The top pairs are kept as the trainer's compact entries, shared between consecutive merges (a run of
    20,000 merges would otherwise hold ~100 MB of small tuples); the properties build the tuples on access.

    >>> import bpe
    >>> m = bpe.train("aaabdaaabac", 258, pattern=None).merges[1]
    >>> m.pair, m.count, m.ties, m.top_pairs[:2]
    ((97, 98), 2, ((256, 97),), (((97, 98), 2), ((256, 97), 2)))
    """

    rank: int
    pair: tuple[int, int]
    id: int
    count: int
    token: bytes | str
    #: the trainer's entries for the top pairs, best first: ints ``code = -count << 42 | left << 21 |
    #: right`` (the ints are shared with the next merges' records while unchanged, so a long run holds few)
    _top: tuple[int, ...] = field(repr=False)
    tokens_after: int
    #: True when ``ties`` ran into the top-k limit: more pairs may have tied
    ties_capped: bool = False
    #: how the codes' ``left``/``right`` parts below 256 map to byte ids (the ``"hf"`` rule keys bytes by
    #: Hugging Face's order); None: they are the ids
    _key_ids: tuple[int, ...] | None = field(default=None, repr=False)

    def _pair(self, code: int) -> tuple[int, int]:
        a, b = code >> ID_BITS & _ID_MASK, code & _ID_MASK
        ids = self._key_ids
        if ids is not None:
            a, b = ids[a] if a < 256 else a, ids[b] if b < 256 else b
        return a, b

    @property
    def top_pairs(self) -> tuple[tuple[tuple[int, int], int], ...]:
        """``((left, right), count)`` of the best pairs before this merge, best (the winner) first."""
        return tuple((self._pair(code), -(code >> KEY_BITS)) for code in self._top)

    @property
    def ties(self) -> tuple[tuple[int, int], ...]:
        """The other pairs that had the winner's count (among the top pairs)."""
        n = -self.count
        return tuple(self._pair(code) for code in self._top[1:] if code >> KEY_BITS == n)


def _rebuild_run(fields: dict[str, Any]) -> "Run":
    fields["special_tokens"] = MappingProxyType(fields["special_tokens"])
    return Run(**fields)


@dataclass(frozen=True)
class Run:
    """The result of :func:`train`: every merge in order plus what is needed to rebuild a tokenizer.

    >>> import bpe
    >>> run = bpe.train("hello hello hello world", 256 + 3, pattern=None)
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
    base: tuple[bytes | str, ...]
    vocab_size_requested: int
    tokens_before: int
    stop_reason: str
    n_bytes: int = 0
    n_chars: int = 0
    n_chunks: int = 0
    n_unique_chunks: int = 0
    #: char level: the special token that stands for characters outside the alphabet (Hugging Face's
    #: ``unk_token``), and whether a run of them becomes one (``fuse_unk``)
    unk_token: str | None = None
    fuse_unk: bool = False
    #: char level: the 256 byte tokens ``<0x00>``...``<0xFF>`` follow the special tokens (SentencePiece-style)
    byte_fallback: bool = False

    def __reduce__(self) -> tuple[Any, ...]:
        # A run pickles (to come back from an app's worker process, e.g. BPE Lab's guard): its read-only
        # special-token map travels as a plain dict.
        fields = {f: getattr(self, f) for f in self.__dataclass_fields__}
        fields["special_tokens"] = dict(self.special_tokens)
        return (_rebuild_run, (fields,))

    @property
    def requested_merges(self) -> int:
        """Merges asked for: the requested vocabulary size less the base and special tokens."""
        return self.vocab_size_requested - len(self.base) - len(self.special_tokens)

    @property
    def complete(self) -> bool:
        """True when training made every merge asked for."""
        return len(self.merges) >= self.requested_merges

    @property
    def vocab_size(self) -> int:
        """Tokens in the vocabulary: base + merges made + special tokens."""
        return len(self.base) + len(self.merges) + len(self.special_tokens)

    def token(self, token_id: int) -> bytes | str:
        """The bytes (byte level) or text (char level) of any token id.

        >>> import bpe
        >>> run = bpe.train("aaab", 258, pattern=None, special_tokens=["<|x|>"])
        >>> run.token(97), run.token(256), run.token(257)
        (b'a', b'aa', b'<|x|>')
        """
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
        """The merge that created ``token_id`` (None for base and special tokens).

        >>> import bpe
        >>> run = bpe.train("aaab", 257, pattern=None)
        >>> run.merge_of(256).pair, run.merge_of(97)
        ((97, 97), None)
        """
        k = token_id - len(self.base)
        return self.merges[k] if 0 <= k < len(self.merges) else None

    def tokenizer(self, k: int | None = None) -> Tokenizer:
        """A :class:`bpe.Tokenizer` that uses only the first ``k`` merges (all by default).

        >>> import bpe
        >>> run = bpe.train("aaabdaaabac", 258, pattern=None)
        >>> run.tokenizer(1).encode("aaab"), run.tokenizer().encode("aaab")
        ([256, 97, 98], [256, 257])
        """
        return Tokenizer.from_run(self, k)
