"""What a tokenizer's ids stand for: a token's bytes and readable text, whether it is special, the
vocabulary's size, and decoding ids back to bytes and text -- the half of :class:`bpe.Tokenizer` that reads
its vocabulary (the other half turns text into ids).

>>> from bpe import train
>>> tok = train("ab ab", 257, pattern=None).tokenizer()
>>> tok.token_text(256), tok.decode([256, 32, 256])
('ab', 'ab ab')
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Mapping, Sequence

from .encoding_api import UnknownTokenError
from .visible import METASPACE_CHAR, split_metaspace, to_visible

if TYPE_CHECKING:
    from .hf_pipeline import Pipeline

__all__ = ["TokenLookup"]


class TokenLookup:
    """Token ids -> bytes and text, for :class:`bpe.Tokenizer` (which fills the tables below)."""

    if TYPE_CHECKING:  # what the tokenizer provides
        mode: Literal["merges", "ranks"]
        normalize: str | None
        pipeline: Pipeline | None
        vocab: dict[int, bytes | str]
        special_tokens: dict[str, int]
        merges: dict[tuple[int, int], int]
        _ranks: dict[bytes, int]
        _special_by_id: dict[int, str]
        _id_bytes: dict[int, int]

    @property
    def vocab_size(self) -> int:
        """Tokens in the vocabulary, special tokens included.

        >>> from bpe import load_pretrained
        >>> load_pretrained("cl100k_base").vocab_size
        100261
        """
        return len(self.vocab)

    @property
    def ranks(self) -> Mapping[bytes, int]:
        """tiktoken's ``{token bytes: rank}`` of a ``mode="ranks"`` tokenizer (its ids are the ranks).

        >>> import bpe
        >>> bpe.load_pretrained("cl100k_base").ranks[b"hello"]
        15339
        """
        if self.mode != "ranks":
            raise ValueError("only a ranks (tiktoken) tokenizer has token ranks; this one has a merge list")
        return self._ranks

    @property
    def n_merges(self) -> int:
        """Merges: the merge list's length, or (``mode="ranks"``) the tokens beyond the 256 bytes."""
        return len(self.merges) if self.mode == "merges" else len(self.vocab) - 256 - len(self.special_tokens)

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes of a token (char-level tokens: their UTF-8 bytes).

        >>> from bpe import train
        >>> train("ab ab", 257, pattern=None).tokenizer().token_bytes(256)
        b'ab'
        """
        try:
            t = self.vocab[token_id]
        except (KeyError, TypeError):
            raise UnknownTokenError(f"unknown token id {token_id!r} (vocabulary size {len(self.vocab)})") from None
        if token_id in self._id_bytes:
            return bytes([self._id_bytes[token_id]])  # a byte-fallback token <0xNN>
        return t if isinstance(t, bytes) else t.encode("utf-8")

    def fallback_byte(self, token_id: int) -> int | None:
        """The byte a byte-fallback token ``<0xNN>`` stands for (SentencePiece-style tokenizers), or None.

        >>> from bpe import train
        >>> tok = train("ab ab", 6, family="sentencepiece").tokenizer()
        >>> tok.fallback_byte(tok.encode("é")[-1]), tok.fallback_byte(0)
        (169, None)
        """
        return self._id_bytes.get(token_id)

    def token_text(self, token_id: int) -> str:
        """A token in readable form: char-level text, or GPT-2 visible bytes (``Ġthe``); a special token as
        its string.

        >>> from bpe import load_pretrained
        >>> tok = load_pretrained("cl100k_base")
        >>> tok.token_text(279), tok.token_text(100257)
        ('Ġthe', '<|endoftext|>')
        """
        t = self.vocab[token_id]
        if isinstance(t, str):
            return t
        if token_id in self._special_by_id:
            return self._special_by_id[token_id]
        return to_visible(t)

    def is_special(self, token_id: int) -> bool:
        """Whether ``token_id`` is one of the special tokens.

        >>> from bpe import load_pretrained
        >>> load_pretrained("cl100k_base").is_special(100257)
        True
        """
        return token_id in self._special_by_id

    def decode_bytes(self, ids: Sequence[int]) -> bytes:
        """Ids -> the raw bytes they stand for (a token may hold part of a character).

        >>> from bpe import load_pretrained
        >>> load_pretrained("cl100k_base").decode_bytes([9468, 99])
        b'\\xf0\\x9f\\xa6'
        """
        try:
            return b"".join(self.token_bytes(i) for i in ids)
        except TypeError:
            raise ValueError("ids must be a sequence of whole numbers") from None

    def decode(self, ids: Sequence[int], errors: str = "replace") -> str:
        """Ids -> text. Byte sequences that are not valid UTF-8 become U+FFFD unless ``errors="strict"``.

        >>> from bpe import train
        >>> tok = train("héllo", 256, pattern=None).tokenizer()
        >>> tok.decode(tok.encode("héllo")[:2])
        'h\\ufffd'
        """
        if self.pipeline is not None:
            # the file's decoders (Metaspace / Replace, ByteFallback, Fuse, Strip...), as Hugging Face decodes
            try:
                return str(self.pipeline.decode([self.token_text(i) for i in ids]))
            except (KeyError, TypeError):
                self.decode_bytes(ids)  # raises the usual "unknown token id" message
                raise
        text = self.decode_bytes(ids).decode("utf-8", errors=errors)
        if split_metaspace(self.normalize)[1]:
            # SentencePiece-style: ▁ back to spaces, less the one normalization put at the start
            text = text.replace(METASPACE_CHAR, " ")
            return text[1:] if text.startswith(" ") else text
        return text
