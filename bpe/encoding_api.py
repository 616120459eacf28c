"""tiktoken's ``Encoding`` surface on :class:`bpe.Tokenizer`: same names, arguments and semantics.

:class:`EncodingAPI` is a mixin of :class:`bpe.Tokenizer`, so every tokenizer -- trained, loaded from a file
or pretrained -- answers a tiktoken program: batches (run one after another; ``num_threads`` is accepted),
single tokens, offsets, raw bytes, ``n_vocab``. Errors are tiktoken's types where a caller may catch them:
``KeyError`` for an unknown single token or id (:class:`UnknownTokenError` is also a ``ValueError``, what
``bpe`` raised before), ``ValueError`` for a disallowed special token.

``n_vocab`` and ``vocab_size`` differ when ids have holes: ``n_vocab`` is the largest id + 1 (the size of an
embedding table, tiktoken's meaning); ``vocab_size`` counts the tokens.

>>> import bpe
>>> enc = bpe.get_encoding("cl100k_base")
>>> enc.n_vocab, enc.vocab_size, enc.max_token_value
(100277, 100261, 100276)
>>> enc.encode_batch(["hello world", "goodbye world"])
[[15339, 1917], [19045, 29474, 1917]]
>>> enc.decode_with_offsets([15339, 1917])
('hello world', [0, 5])
>>> enc.encode_single_token("hello"), enc.decode_single_token_bytes(15339)
(15339, b'hello')
"""

from __future__ import annotations

from abc import abstractmethod
from typing import TYPE_CHECKING, AbstractSet, Any, Collection, Iterable, Iterator, Literal, Mapping, Sequence

from .special_tokens import SpecialChoice, allowed_specials
from .streaming import safe_cut

if TYPE_CHECKING:
    from .patterns import Pattern
    from .rank_merge import RankMerge

__all__ = ["EncodingAPI", "UnknownTokenError"]

#: How much text :meth:`EncodingAPI.encode_iterable` gathers before it looks for a cut (characters).
STREAM_WINDOW = 1 << 16


class UnknownTokenError(KeyError, ValueError):
    """A token id or token that is not in the vocabulary: a ``KeyError`` (tiktoken's type) and a
    ``ValueError`` (``bpe``'s earlier one), so either ``except`` catches it."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class EncodingAPI:
    """The methods tiktoken's ``Encoding`` has, on top of :class:`bpe.Tokenizer`'s own."""

    #: the pattern a ``.tiktoken`` file was loaded with although nothing named it (see
    #: :func:`bpe.formats.tiktoken.loads`), else ``None``
    assumed_pattern: str | None = None

    if TYPE_CHECKING:  # what the tokenizer provides
        name: str
        mode: str
        level: str
        pattern: Pattern | None
        normalize: str | None
        pipeline: Any
        vocab: dict[int, bytes | str]
        special_tokens: dict[str, int]
        merges: dict[tuple[int, int], int]
        _ranks: dict[bytes, int]
        _rank_merge: RankMerge
        _byte_ids: list[int]

        @abstractmethod
        def encode(
            self, text: str, *, allowed_special: SpecialChoice = (), disallowed_special: SpecialChoice = "all"
        ) -> list[int]:
            """(the tokenizer's)"""

        @abstractmethod
        def encode_ordinary(self, text: str) -> list[int]:
            """(the tokenizer's)"""

        @abstractmethod
        def decode(self, ids: Sequence[int], errors: str = "replace") -> str:
            """(the tokenizer's)"""

        @abstractmethod
        def decode_bytes(self, ids: Sequence[int]) -> bytes:
            """(the tokenizer's)"""

        @abstractmethod
        def token_bytes(self, token_id: int) -> bytes:
            """(the tokenizer's)"""

        @abstractmethod
        def is_special(self, token_id: int) -> bool:
            """(the tokenizer's)"""

        @abstractmethod
        def _merge_ids(self, ids: list[int]) -> list[int]:
            """(the tokenizer's)"""

        @abstractmethod
        def _prepare(self, text: str) -> str:
            """(the tokenizer's)"""

        @abstractmethod
        def _encode_chunks(self, chunks: list[str]) -> list[int]:
            """(the tokenizer's)"""

        @abstractmethod
        def chunks(self, text: str) -> list[str]:
            """(the tokenizer's)"""

    # --- sizes -------------------------------------------------------------------------------------
    @property
    def max_token_value(self) -> int:
        """The largest id, special tokens included (tiktoken's ``max_token_value``)."""
        return max(self.vocab)

    @property
    def n_vocab(self) -> int:
        """The largest id + 1 (tiktoken's ``n_vocab``): the size of an embedding table indexed by id.

        :attr:`vocab_size` counts the tokens instead; they differ when ids have holes (cl100k_base: 100,261
        tokens, ids up to 100,276).
        """
        return max(self.vocab) + 1

    @property
    def eot_token(self) -> int:
        """The id of ``<|endoftext|>`` (``KeyError`` when the tokenizer has no such special token)."""
        return self.special_tokens["<|endoftext|>"]

    @property
    def special_tokens_set(self) -> set[str]:
        """The special-token strings, as a set."""
        return set(self.special_tokens)

    def is_special_token(self, token: int) -> bool:
        """Whether ``token`` is a special token's id (tiktoken's name for :meth:`is_special`)."""
        if not isinstance(token, int):
            raise TypeError(f"a token id is an int, not {type(token).__name__}")
        return self.is_special(token)

    def token_byte_values(self) -> list[bytes]:
        """The bytes of every ordinary token, sorted (special tokens left out), as tiktoken gives them."""
        return sorted(self.token_bytes(i) for i in self.vocab if not self.is_special(i))

    # --- tiktoken's private names that programs and its tests use --------------------------------------
    @property
    def _special_tokens(self) -> dict[str, int]:
        return self.special_tokens

    @property
    def _mergeable_ranks(self) -> dict[bytes, int]:
        if self.mode == "ranks":
            return self._ranks
        return {self.token_bytes(i): i for i in self.vocab if not self.is_special(i)}

    @property
    def _pat_str(self) -> str | None:
        return None if self.pattern is None else self.pattern.regex

    # --- encoding ----------------------------------------------------------------------------------
    def encode_ordinary_batch(self, text: list[str], *, num_threads: int = 8) -> list[list[int]]:
        """:meth:`encode_ordinary` of each text (one after another; ``num_threads`` is accepted)."""
        return [self.encode_ordinary(t) for t in text]

    def encode_batch(
        self,
        text: list[str],
        *,
        num_threads: int = 8,
        allowed_special: Literal["all"] | AbstractSet[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> list[list[int]]:
        """:meth:`encode` of each text, with the same special-token rules (one after another)."""
        return [self.encode(t, allowed_special=allowed_special, disallowed_special=disallowed_special) for t in text]

    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        """The id of the token whose text or bytes is exactly ``text_or_bytes``, special tokens included.

        Raises ``KeyError`` when no single token is that (as tiktoken).
        """
        data = text_or_bytes.encode("utf-8") if isinstance(text_or_bytes, str) else bytes(text_or_bytes)
        found = self._ids_by_bytes().get(data)
        if found is None:
            raise UnknownTokenError(data)
        return found

    def _ids_by_bytes(self) -> dict[bytes, int]:
        table: dict[bytes, int] | None = self.__dict__.get("_single_token_ids")
        if table is None:
            if self.mode == "ranks":
                table = dict(self._ranks)
            else:
                table = {}
                for i in sorted(self.vocab):
                    if not self.is_special(i):
                        table.setdefault(self.token_bytes(i), i)
            for s, i in self.special_tokens.items():
                table[s.encode("utf-8")] = i
            self.__dict__["_single_token_ids"] = table
        return table

    def _encode_single_piece(self, text_or_bytes: str | bytes) -> list[int]:
        """BPE on the bytes as one chunk, without the pre-tokenizer (special tokens are plain text)."""
        data = text_or_bytes.encode("utf-8") if isinstance(text_or_bytes, str) else bytes(text_or_bytes)
        return self._bytes_ids(data)

    def _bytes_ids(self, data: bytes) -> list[int]:
        if not data:
            return []
        if self.level != "byte":
            raise ValueError("a char-level tokenizer encodes text, not raw bytes")
        if self.mode == "ranks":
            whole = self._ranks.get(data)
            if whole is not None:
                return [whole]
            return self._rank_merge(data)
        return self._merge_ids([self._byte_ids[b] for b in data])

    def _encode_bytes(self, text: bytes) -> list[int]:
        """Encode raw bytes, which may not be valid UTF-8, as tiktoken does: the valid prefix is encoded as
        text (special-token strings as plain text); the tokens of its last chunk -- with the whitespace-only
        tokens before them -- are merged again together with the invalid rest."""
        try:
            return self.encode_ordinary(text.decode("utf-8"))
        except UnicodeDecodeError as exc:
            valid = exc.start
        head = text[:valid].decode("utf-8")
        tokens = self.encode_ordinary(head)
        last = 0
        if tokens:
            chunks = self.chunks(head)
            last = len(self._bytes_ids(chunks[-1].encode("utf-8"))) if chunks else 0

            def all_space(token: int) -> bool:
                return all(b in b" \n\t" for b in self.token_bytes(token))

            if last and all_space(tokens[-last]):
                while last < len(tokens) and all_space(tokens[-last - 1]):
                    last += 1
        rest = self.decode_bytes(tokens[len(tokens) - last :]) + text[valid:] if last else text[valid:]
        return tokens[: len(tokens) - last] + self._bytes_ids(rest)

    def encode_iterable(
        self, iterable: Iterable[str], *, allowed_special: SpecialChoice = (), disallowed_special: SpecialChoice = "all"
    ) -> Iterator[int]:
        """Encode a stream of text pieces lazily: yields the ids of ``encode("".join(iterable))``, exactly.

        Memory stays bounded whatever the stream's length (the text not yet encoded is kept, about 64K
        characters): a chunk that spans two pieces (``"\\n"`` + ``"\\n"``, a word cut in two, a special token
        cut in two) is carried over, not split (see :mod:`bpe.streaming`). One pre-tokenizer chunk is never
        cut, so a tokenizer without a pattern, or a Hugging Face pipeline, keeps the whole text.

        >>> import bpe
        >>> tok = bpe.load_pretrained("cl100k_base")
        >>> list(tok.encode_iterable(["hel", "lo wor", "ld\\n", "\\n"])) == tok.encode("hello world\\n\\n")
        True
        """
        allowed = allowed_specials(self.special_tokens, allowed_special)
        if disallowed_special == "all":
            watched = set(self.special_tokens)
        else:
            watched = allowed | set(disallowed_special)
        pattern = None if self.pipeline is not None else self.pattern
        buffer: list[str] = []
        size = 0
        window = STREAM_WINDOW
        for piece in iterable:
            if not isinstance(piece, str):
                raise TypeError(f"encode_iterable reads str pieces, not {type(piece).__name__}")
            buffer.append(piece)
            size += len(piece)
            if size < window:
                continue
            text = "".join(buffer)
            cut = safe_cut(text, pattern, self._prepare, self.normalize, watched)
            if cut.at:
                if cut.head:
                    yield from self.encode(
                        text[: cut.head], allowed_special=allowed, disallowed_special=disallowed_special
                    )
                yield from self._encode_chunks(cut.chunks)
                text = text[cut.at :]
                window = max(STREAM_WINDOW, 2 * len(text))
            else:
                window = 2 * len(text)  # one long chunk: look again when the buffer has doubled
            buffer, size = [text], len(text)
        yield from self.encode("".join(buffer), allowed_special=allowed, disallowed_special=disallowed_special)

    # --- decoding ----------------------------------------------------------------------------------
    def decode_single_token_bytes(self, token: int) -> bytes:
        """The bytes of one token, special tokens included; ``KeyError`` for an unknown id (as tiktoken)."""
        if token not in self.vocab:
            raise UnknownTokenError(f"unknown token id {token!r}")
        return self.token_bytes(token)

    def decode_tokens_bytes(self, tokens: Sequence[int]) -> list[bytes]:
        """The bytes of each token: ``[b"hello", b" world"]``."""
        return [self.decode_single_token_bytes(t) for t in tokens]

    def decode_with_offsets(self, tokens: Sequence[int]) -> tuple[str, list[int]]:
        """``(text, offsets)``: each offset is the index in ``text`` where its token starts (a token that
        starts inside a character gets that character's index). Raises when the bytes are not valid UTF-8,
        as tiktoken does."""
        token_bytes = self.decode_tokens_bytes(tokens)
        text_len = 0
        offsets: list[int] = []
        for data in token_bytes:
            offsets.append(max(0, text_len - (1 if data and 0x80 <= data[0] < 0xC0 else 0)))
            text_len += sum(1 for c in data if not 0x80 <= c < 0xC0)
        return b"".join(token_bytes).decode("utf-8", errors="strict"), offsets

    def decode_batch(
        self, batch: Sequence[Sequence[int]], *, errors: str = "replace", num_threads: int = 8
    ) -> list[str]:
        """:meth:`decode` of each id list."""
        return [self.decode(ids, errors=errors) for ids in batch]

    def decode_bytes_batch(self, batch: Sequence[Sequence[int]], *, num_threads: int = 8) -> list[bytes]:
        """:meth:`decode_bytes` of each id list."""
        return [self.decode_bytes(ids) for ids in batch]

    # --- pickling ----------------------------------------------------------------------------------
    def __reduce_ex__(self, protocol: Any) -> Any:
        # a registry vocabulary is pickled by its name (bpe.pretrained sets _reducer), as tiktoken pickles
        # registered encodings; any other tokenizer with its state
        reducer: tuple[Any, ...] | None = self.__dict__.get("_reducer")
        if reducer is not None:
            return reducer
        return super().__reduce_ex__(protocol)

    def __getstate__(self) -> Mapping[str, Any]:
        state = dict(self.__dict__)
        state.pop("_single_token_ids", None)
        return state
