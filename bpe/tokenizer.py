"""The tokenizer: text -> ids -> text, and a trace of how one chunk is built.

Encoding cuts the text at special tokens, pre-tokenizes each piece, and turns every chunk into ids by
merging pairs inside it. Two merge rules exist in the wild, and a tokenizer uses one:

* ``"merges"`` (what we train, minbpe, Hugging Face): apply the learned merge of lowest rank present,
  i.e. replay the merges in the order they were learned;
* ``"ranks"`` (tiktoken): merge the adjacent pair whose *concatenated bytes* is the lowest-ranked token,
  after first looking the whole chunk up in the vocabulary.

>>> from bpe import train
>>> tok = train("aaabdaaabac", 256 + 2, pattern=None).tokenizer()
>>> tok.encode("aaab")
[256, 257]
>>> tok.decode([256, 257])
'aaab'
"""

from __future__ import annotations

from typing import Literal, Mapping, cast

from .chunk_cache import ChunkCache, RankCache
from .corpus import check_text
from .encoding_api import EncodingAPI, UnknownTokenError
from .encoding_trace import TraceAPI
from .hf_pipeline import Pipeline
from .merging import TraceStep, apply_merges
from .patterns import Pattern, get_pattern
from .rank_merge import RankMerge, ordinary_ranks
from .special_tokens import DisallowedSpecialError, SpecialChoice, allowed_specials, cut_at_specials, refuse_disallowed
from .splitting import prepare_splitters, pretokenize, pretokenize_pieces
from .token_lookup import TokenLookup
from .tokenizer_tables import TrainedRun, byte_unit_ids, char_unit_ids, fallback_ids, run_tables, with_specials
from .visible import normalize_text

__all__ = ["Tokenizer", "TraceStep", "DisallowedSpecialError", "UnknownCharacterError", "UnknownTokenError"]


class UnknownCharacterError(ValueError):
    """A char-level tokenizer met a character that is not in its alphabet."""


class Tokenizer(TokenLookup, EncodingAPI, TraceAPI):
    """A byte- or char-level BPE tokenizer.

    Build one with a named constructor -- :meth:`from_merges` (a byte-level merge list), :meth:`from_char_merges`
    (a char-level one), :meth:`from_ranks` (tiktoken's ranks), :meth:`from_pipeline` (a Hugging Face
    tokenizer.json's own steps), :meth:`from_run` (a training run, as :meth:`bpe.Run.tokenizer`) -- or with
    :func:`bpe.load_pretrained` or :func:`bpe.load`; :func:`bpe.save` writes it for other tools.

    >>> tok = Tokenizer.from_merges({b: bytes([b]) for b in range(256)} | {256: b"ab"}, {(97, 98): 256},
    ...                             pattern=None, special_tokens={"<|end|>": 257})
    >>> tok.encode("abc"), tok.vocab_size, tok.n_merges
    ([256, 99], 258, 1)
    """

    def __init__(
        self,
        *,
        vocab: Mapping[int, bytes | str],
        merges: Mapping[tuple[int, int], int] | None = None,
        pattern: "str | Pattern | None" = "gpt4",
        level: str = "byte",
        special_tokens: Mapping[str, int] | None = None,
        normalize: str | None = None,
        name: str = "",
        ignore_merges: bool = False,
    ):
        """The core the named constructors share: a merge-list tokenizer at ``level`` that has no way yet to
        encode a character outside its alphabet (the constructors add ranks, an unknown token, byte fallback
        or a pipeline). ``Tokenizer(vocab=..., merges=..., pattern=..., special_tokens=...)`` is
        :meth:`from_merges`."""
        if level not in ("byte", "char"):
            raise ValueError(f"level must be 'byte' or 'char', not {level!r}")
        self.level = level
        self.mode: Literal["merges", "ranks"] = "merges"
        #: a Hugging Face tokenizer.json's normalizers, pre-tokenizers, model options and decoders
        #: (SentencePiece-style BPE, the quicktour's Whitespace BPE); None for our own kinds
        self.pipeline: Pipeline | None = None
        self.name = name
        self.normalize = normalize
        self.pattern: Pattern | None = None if pattern is None else get_pattern(pattern)
        prepare_splitters(self.pattern)
        self.special_tokens: dict[str, int] = dict(special_tokens or {})
        self._special_by_id = {i: s for s, i in reversed(self.special_tokens.items())}  # two names: the first
        self.vocab: dict[int, bytes | str] = with_specials(vocab, self.special_tokens, level)
        #: (left id, right id) -> new id, in rank order
        self.merges: dict[tuple[int, int], int] = dict(merges or {})
        #: rank of each merge pair (its learning order), and merge rank -> the id it creates
        self._rank = {pair: r for r, pair in enumerate(self.merges)}
        self._merge_result = list(self.merges.values())
        # Base units -> ids
        self._byte_ids = byte_unit_ids(self.vocab, self._special_by_id) if level == "byte" else []
        self._char_ids = char_unit_ids(self.vocab, self._special_by_id) if level == "char" else {}
        #: look a whole chunk up in the vocabulary before merging (Hugging Face ``ignore_merges``;
        #: tiktoken always does)
        self.ignore_merges = bool(ignore_merges)
        self._ids_by_token = (
            {t: i for i, t in self.vocab.items() if i not in self._special_by_id} if ignore_merges else {}
        )
        #: char level: the special token that encodes characters outside the alphabet (Hugging Face BPE's
        #: ``unk_token``); ``fuse_unk`` makes a run of them one token
        self.unk_token: str | None = None
        self.unk_id: int | None = None
        self.fuse_unk = False
        #: char level: a character outside the alphabet becomes its UTF-8 bytes as tokens ``<0xNN>``
        #: (SentencePiece's byte_fallback); byte -> id and id -> byte
        self.byte_fallback = False
        self._fallback_ids: list[int] = []
        self._id_bytes: dict[int, int] = {}
        self._cache = ChunkCache(self._encode_chunk)

    # ------------------------------------------------------------------------------------------------
    @classmethod
    def from_merges(
        cls,
        vocab: Mapping[int, bytes],
        merges: Mapping[tuple[int, int], int],
        *,
        pattern: "str | Pattern | None" = "gpt4",
        special_tokens: Mapping[str, int] | None = None,
        normalize: str | None = None,
        name: str = "",
        ignore_merges: bool = False,
    ) -> Tokenizer:
        """A byte-level tokenizer that replays a merge list (minbpe, GPT-2, Hugging Face byte-level BPE).

        ``vocab``: id -> bytes, all 256 single bytes among them (ValueError otherwise); ``merges``:
        ``(left id, right id) -> new id`` in the order learned; ``special_tokens``: string -> id;
        ``pattern``: the pre-tokenizer (a registry name, a :class:`Pattern`, or None); ``normalize``: a
        normalization applied first; ``ignore_merges``: look a whole chunk up before merging (Hugging Face).

        >>> tok = Tokenizer.from_merges({b: bytes([b]) for b in range(256)} | {256: b"ab"}, {(97, 98): 256})
        >>> tok.encode("abab"), tok.level, tok.mode
        ([256, 256], 'byte', 'merges')
        """
        return cls(
            vocab=vocab,
            merges=merges,
            pattern=pattern,
            special_tokens=special_tokens,
            normalize=normalize,
            name=name,
            ignore_merges=ignore_merges,
        )

    @classmethod
    def from_char_merges(
        cls,
        vocab: Mapping[int, str],
        merges: Mapping[tuple[int, int], int],
        *,
        pattern: "str | Pattern | None" = "gpt4",
        special_tokens: Mapping[str, int] | None = None,
        normalize: str | None = None,
        name: str = "",
        ignore_merges: bool = False,
        unk_token: str | None = None,
        fuse_unk: bool = False,
        byte_fallback: bool = False,
    ) -> Tokenizer:
        """A char-level tokenizer that replays a merge list (Hugging Face's BPE on characters).

        As :meth:`from_merges` with ``vocab`` id -> text; a character outside the alphabet raises
        :class:`UnknownCharacterError` unless ``unk_token`` (one of ``special_tokens``) encodes it (a run of
        them as one with ``fuse_unk``) or ``byte_fallback`` spells its UTF-8 bytes with the vocabulary's
        ``<0x00>``...``<0xFF>`` tokens. ValueError when either is missing.

        >>> tok = Tokenizer.from_char_merges({0: "a", 1: "b", 2: "ab"}, {(0, 1): 2}, pattern=None,
        ...                                  special_tokens={"<unk>": 3}, unk_token="<unk>")
        >>> tok.encode("abc"), tok.encode_pieces("abc")
        ([2, 3], ['ab', 'c'])
        """
        tok = cls(
            vocab=vocab,
            merges=merges,
            pattern=pattern,
            level="char",
            special_tokens=special_tokens,
            normalize=normalize,
            name=name,
            ignore_merges=ignore_merges,
        )
        if unk_token is not None:
            if unk_token not in tok.special_tokens:
                raise ValueError(f"the unk_token {unk_token!r} must be one of the special tokens")
            tok.unk_token, tok.unk_id = unk_token, tok.special_tokens[unk_token]
        tok.fuse_unk = bool(fuse_unk)
        if byte_fallback:
            tok.byte_fallback = True
            tok._fallback_ids = fallback_ids(tok.vocab, tok._special_by_id)
            tok._id_bytes = {i: b for b, i in enumerate(tok._fallback_ids)}
        return tok

    @classmethod
    def from_ranks(
        cls,
        ranks: Mapping[bytes, int],
        *,
        pattern: "str | Pattern | None" = "gpt4",
        special_tokens: Mapping[str, int] | None = None,
        normalize: str | None = None,
        name: str = "",
    ) -> Tokenizer:
        """A tiktoken-style tokenizer: ``ranks`` maps token bytes to their rank, which is their id (all 256
        single bytes among them); a chunk is looked up whole, else the adjacent pair whose concatenation has
        the lowest rank merges first. ValueError when two tokens share a rank or a byte is missing.

        >>> tok = Tokenizer.from_ranks({bytes([b]): b for b in range(256)} | {b"ab": 256}, pattern=None)
        >>> tok.encode("abc"), tok.mode, tok.n_merges
        ([256, 99], 'ranks', 1)
        """
        vocab = dict(zip(ranks.values(), ranks))
        if len(vocab) != len(ranks):
            raise ValueError("two tokens share one rank: a ranks vocabulary needs one rank per token")
        tok = cls(vocab=vocab, pattern=pattern, special_tokens=special_tokens, normalize=normalize, name=name)
        tok.mode, tok.ignore_merges = "ranks", True
        tok._ranks = ordinary_ranks(ranks, tok.vocab, tok._special_by_id)
        tok._rank_merge = RankMerge(tok._ranks)
        tok._cache = RankCache(tok._rank_merge.merged, tok._ranks)
        return tok

    @classmethod
    def from_pipeline(
        cls,
        vocab: Mapping[int, str],
        merges: Mapping[tuple[int, int], int],
        pipeline: Pipeline,
        *,
        special_tokens: Mapping[str, int] | None = None,
        name: str = "",
        ignore_merges: bool = False,
    ) -> Tokenizer:
        """A char-level merge list behind a Hugging Face tokenizer.json's own normalizers, pre-tokenizers,
        unknown-token and byte-fallback options and decoders (``pipeline``, see
        :func:`bpe.formats.hf.from_hf_json`); it has no pattern or normalization of its own.

        >>> from bpe.hf_pipeline import Pipeline
        >>> vocab = {0: "a", 1: "b", 2: "ab"}
        >>> tok = Tokenizer.from_pipeline(vocab, {(0, 1): 2}, Pipeline(vocab={t: i for i, t in vocab.items()}))
        >>> tok.encode("abab"), tok.decode([2, 0])
        ([2, 2], 'aba')
        """
        tok = cls(
            vocab=vocab,
            merges=merges,
            pattern=None,
            level="char",
            special_tokens=special_tokens,
            name=name,
            ignore_merges=ignore_merges,
        )
        tok.pipeline = pipeline
        tok.unk_token, tok.unk_id, tok.fuse_unk = pipeline.unk_token, pipeline.unk_id, pipeline.fuse_unk
        tok._id_bytes = pipeline.id_bytes
        return tok

    @classmethod
    def from_run(cls, run: TrainedRun, k: int | None = None) -> Tokenizer:
        """The tokenizer of a training run (:func:`bpe.train`'s :class:`bpe.Run`) after its first ``k``
        merges, all of them by default; ValueError unless ``0 <= k <= len(run.merges)``.

        >>> import bpe
        >>> run = bpe.train("aaabdaaabac", 258, pattern=None)
        >>> Tokenizer.from_run(run, 1).encode("aaab"), Tokenizer.from_run(run).name
        ([256, 97, 98], 'trained (2 merges)')
        """
        vocab, merges, k = run_tables(run, k)
        specials, name = dict(run.special_tokens), f"trained ({k} merges)"
        if run.level == "byte":
            return cls(
                vocab=vocab,
                merges=merges,
                pattern=run.pattern,
                special_tokens=specials,
                normalize=run.normalize,
                name=name,
            )
        return cls.from_char_merges(
            cast("dict[int, str]", vocab),
            merges,
            pattern=run.pattern,
            special_tokens=specials,
            normalize=run.normalize,
            name=name,
            unk_token=run.unk_token,
            fuse_unk=run.fuse_unk,
            byte_fallback=run.byte_fallback,
        )

    # ------------------------------------------------------------------------------------------------
    # ------------------------------------------------------------------------------------------------
    def _base_ids(self, chunk: str, unknown: dict[int, str] | None = None) -> list[int]:
        """Base ids of a chunk. At char level an unseen character becomes :attr:`unk_id` (a run of them one
        id with ``fuse_unk``); without an unknown token it raises, unless ``unknown`` is given: then it gets
        a negative placeholder id (no merge involves it) recorded in ``unknown``."""
        if self.level == "byte":
            ids = self._byte_ids
            return [ids[b] for b in chunk.encode("utf-8")]
        if self.pipeline is not None:
            return list(self.pipeline.base_ids(chunk, unknown))
        out: list[int] = []
        unk = self.unk_id if unknown is None else None
        prev_unknown = False
        for ch in chunk:
            i = self._char_ids.get(ch)
            if i is None and self.byte_fallback:
                out.extend(self._fallback_ids[b] for b in ch.encode("utf-8"))
                prev_unknown = False
                continue
            if i is None:
                if unk is not None:
                    if not (self.fuse_unk and prev_unknown):
                        out.append(unk)
                    prev_unknown = True
                    continue
                if unknown is None:
                    raise UnknownCharacterError(
                        f"{ch!r} (U+{ord(ch):04X}) is not in this char-level tokenizer's alphabet (train with "
                        "unk_token='<unk>' to encode such characters as an unknown token)"
                    )
                i = -1 - ord(ch)
                unknown[i] = ch
            prev_unknown = False
            out.append(i)
        return out

    def _encode_chunk(self, chunk: str) -> tuple[int, ...]:
        """One pre-tokenizer chunk -> its ids (the cache calls this on a miss)."""
        if self.mode == "ranks":
            return self._encode_chunk_ranks(chunk)
        if self.ignore_merges:
            whole = self._ids_by_token.get(chunk.encode("utf-8") if self.level == "byte" else chunk)
            if whole is not None:
                return (whole,)
        return tuple(self._merge_ids(self._base_ids(chunk)))

    def _merge_ids(self, ids: list[int]) -> list[int]:
        """Apply the learned merges to base ids (the merge-list rule, see :func:`bpe.merging.apply_merges`)."""
        return apply_merges(ids, self._rank, self._merge_result)

    def _encode_chunk_ranks(self, chunk: str) -> tuple[int, ...]:
        """tiktoken's rule: the whole chunk if it is a token, else :class:`bpe.rank_merge.RankMerge`'s loop."""
        return self._rank_merge.chunk_ids(chunk)

    def encode_ordinary(self, text: str) -> list[int]:
        """Encode ``text`` treating special-token strings as plain text.

        >>> from bpe import load_pretrained
        >>> load_pretrained("cl100k_base").encode_ordinary("hi <|endoftext|>")
        [6151, 83739, 8862, 728, 428, 91, 29]
        """
        return self._encode_plain(self._prepare(text))

    def _prepare(self, text: str) -> str:
        """Check and normalize input text.

        Lone surrogates have no UTF-8 bytes: a merge-list tokenizer refuses them; a ranks (tiktoken)
        tokenizer does what tiktoken does: re-reads the text as UTF-16, so a surrogate pair becomes its
        character and a lone surrogate becomes U+FFFD.
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, not {type(text).__name__}")
        if self.mode == "ranks":
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        else:
            check_text(text)
        if self.pipeline is not None:
            return text  # Hugging Face normalizes each piece between special tokens (see chunks())
        return normalize_text(text, self.normalize)

    def _encode_plain(self, text: str) -> list[int]:
        if self.pipeline is not None:
            return self._encode_chunks(self.pipeline.chunks([text])[0])
        return self._encode_chunks(pretokenize(text, self.pattern))

    def chunks(self, text: str) -> list[str]:
        """The chunks BPE merges inside: ``text`` normalized and pre-tokenized (special-token strings are
        plain text here).

        >>> from bpe import train
        >>> train("ab ab", 257, pattern="gpt4").tokenizer().chunks("ab ab")
        ['ab', ' ab']
        """
        check_text(text)
        if self.pipeline is not None:
            return list(self.pipeline.chunks([text])[0])
        return pretokenize(normalize_text(text, self.normalize), self.pattern)

    def _encode_chunks(self, chunks: list[str]) -> list[int]:
        return self._cache.encode_all(chunks)

    def encode(
        self, text: str, *, allowed_special: SpecialChoice = (), disallowed_special: SpecialChoice = "all"
    ) -> list[int]:
        """Text -> token ids, with tiktoken's rules for special tokens.

        Special-token strings in ``text`` raise :class:`DisallowedSpecialError` unless they are in
        ``allowed_special`` (then they become their one special id) or ``disallowed_special`` leaves them
        out (then they are encoded as ordinary text). ``allowed_special="all"`` allows every one.

        >>> from bpe import load_pretrained
        >>> tok = load_pretrained("cl100k_base")
        >>> tok.encode("hi <|endoftext|>", allowed_special="all")
        [6151, 220, 100257]
        >>> tok.encode("hi <|endoftext|>")
        Traceback (most recent call last):
        ...
        bpe.special_tokens.DisallowedSpecialError: the text contains the special token '<|endoftext|>'. To encode it as that special token pass allowed_special={'<|endoftext|>'}; to encode it as plain text pass disallowed_special=()
        """
        text = self._prepare(text)
        allowed = allowed_specials(self.special_tokens, allowed_special)
        refuse_disallowed(text, self.special_tokens, allowed, disallowed_special)
        if not allowed:
            return self._encode_plain(text)
        # Cut at the allowed special tokens; the pieces between them are pre-tokenized in one go (one
        # time limit for the whole text, whatever the number of special tokens).
        pieces, specials = cut_at_specials(text, allowed)
        out: list[int] = []
        chunked = (
            self.pipeline.chunks(pieces) if self.pipeline is not None else pretokenize_pieces(pieces, self.pattern)
        )
        for i, chunks in enumerate(chunked):
            out.extend(self._encode_chunks(chunks))
            if i < len(specials):
                out.append(self.special_tokens[specials[i]])
        return out

    def __repr__(self) -> str:
        pat = None if self.pattern is None else self.pattern.name
        return (
            f"Tokenizer({self.name or 'bpe'}: {self.level} level, {len(self.vocab)} tokens, "
            f"pattern={pat}, mode={self.mode})"
        )
