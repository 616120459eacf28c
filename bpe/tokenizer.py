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

from typing import Literal, Mapping, Sequence

from .chunk_cache import ChunkCache
from .corpus import check_text
from .encoding_api import EncodingAPI, UnknownTokenError
from .hf_pipeline import Pipeline, byte_token
from .merging import TraceStep, apply_merges, trace_merges, trace_ranks
from .patterns import Pattern, get_pattern
from .rank_merge import RankMerge
from .special_tokens import DisallowedSpecialError, SpecialChoice, allowed_specials, cut_at_specials, refuse_disallowed
from .splitting import prepare_splitters, pretokenize, pretokenize_pieces
from .visible import METASPACE_CHAR, normalize_text, split_metaspace, to_visible

__all__ = ["Tokenizer", "TraceStep", "DisallowedSpecialError", "UnknownCharacterError", "UnknownTokenError"]

class UnknownCharacterError(ValueError):
    """A char-level tokenizer met a character that is not in its alphabet."""


class Tokenizer(EncodingAPI):
    """A byte- or char-level BPE tokenizer.

    Build one with :meth:`bpe.Run.tokenizer`, :func:`bpe.load_pretrained`, :func:`bpe.load`, or
    directly from ``vocab`` (id -> bytes / str) and ``merges`` (``(left, right) -> new id`` in rank order).
    ``ignore_merges=True`` looks each whole chunk up in the vocabulary before merging (Hugging Face's
    option of that name; ``mode="ranks"`` always does, as tiktoken). :func:`bpe.save` writes it for other
    tools.

    >>> tok = Tokenizer(vocab={b: bytes([b]) for b in range(256)} | {256: b"ab"}, merges={(97, 98): 256},
    ...                 pattern=None, special_tokens={"<|end|>": 257})
    >>> tok.encode("abc"), tok.vocab_size, tok.n_merges
    ([256, 99], 258, 1)
    """

    def __init__(self, *, vocab: Mapping[int, bytes | str], merges: Mapping[tuple[int, int], int] | None = None,
                 pattern: "str | Pattern | None" = "gpt4", level: str = "byte",
                 special_tokens: Mapping[str, int] | None = None, mode: Literal["merges", "ranks"] = "merges",
                 normalize: str | None = None, name: str = "", ignore_merges: bool = False,
                 unk_token: str | None = None, fuse_unk: bool = False, pipeline: "Pipeline | None" = None,
                 byte_fallback: bool = False):
        if level not in ("byte", "char"):
            raise ValueError(f"level must be 'byte' or 'char', not {level!r}")
        if mode not in ("merges", "ranks"):
            raise ValueError(f"mode must be 'merges' or 'ranks', not {mode!r}")
        if pipeline is not None and (level != "char" or mode != "merges" or pattern is not None or normalize):
            raise ValueError("a Hugging Face pipeline is for char-level merge-list tokenizers without a pattern or "
                             "normalization of their own")
        self.level = level
        self.mode = mode
        #: a Hugging Face tokenizer.json's normalizers, pre-tokenizers, model options and decoders
        #: (SentencePiece-style BPE, the quicktour's Whitespace BPE); None for our own kinds
        self.pipeline = pipeline
        self.name = name
        self.normalize = normalize
        self.pattern: Pattern | None = None if pattern is None else get_pattern(pattern)
        prepare_splitters(self.pattern)
        self.special_tokens: dict[str, int] = dict(special_tokens or {})
        self._special_by_id = {i: s for s, i in reversed(self.special_tokens.items())}  # two names: the first
        self.vocab: dict[int, bytes | str] = dict(vocab)
        for s, i in self.special_tokens.items():
            self.vocab.setdefault(i, s.encode("utf-8") if level == "byte" else s)
        #: (left id, right id) -> new id, in rank order
        self.merges: dict[tuple[int, int], int] = dict(merges or {})
        #: rank of each merge pair (its learning order)
        self._rank = {pair: r for r, pair in enumerate(self.merges)}
        # Base units -> ids
        if level == "byte":
            self._byte_ids = [-1] * 256
            for i, tok in self.vocab.items():
                if i in self._special_by_id:
                    continue
                if isinstance(tok, (bytes, bytearray)) and len(tok) == 1:
                    self._byte_ids[tok[0]] = i
            missing = [b for b in range(256) if self._byte_ids[b] < 0]
            if missing:
                raise ValueError(f"a byte-level vocabulary needs all 256 single bytes; missing {len(missing)}, "
                                 f"e.g. {bytes([missing[0]])!r}")
            self._char_ids: dict[str, int] = {}
        else:
            self._char_ids = {t: i for i, t in self.vocab.items()
                              if isinstance(t, str) and len(t) == 1 and i not in self._special_by_id}
        #: look a whole chunk up in the vocabulary before merging (Hugging Face ``ignore_merges``;
        #: tiktoken always does)
        self.ignore_merges = bool(ignore_merges) or mode == "ranks"
        if mode == "ranks":
            # tiktoken: token bytes -> rank (= id); merges are found through concatenations.
            self._ranks = {t: i for i, t in self.vocab.items() if i not in self._special_by_id and isinstance(t, bytes)}
            self._rank_merge = RankMerge(self._ranks)
        elif self.ignore_merges:
            self._ids_by_token = {t: i for i, t in self.vocab.items() if i not in self._special_by_id}
        #: merge rank -> the id it creates
        self._merge_result = list(self.merges.values())
        #: char level: the special token that encodes characters outside the alphabet (Hugging Face BPE's
        #: ``unk_token``); ``fuse_unk`` makes a run of them one token
        self.unk_token = unk_token
        self.fuse_unk = bool(fuse_unk)
        self.unk_id: int | None = None
        if unk_token is not None:
            if level != "char":
                raise ValueError("unk_token is for char-level tokenizers: a byte-level one never meets an unknown "
                                 "character")
            if unk_token not in self.special_tokens:
                raise ValueError(f"the unk_token {unk_token!r} must be one of the special tokens")
            self.unk_id = self.special_tokens[unk_token]
        #: id -> the byte of a byte-fallback token ``<0xNN>`` (char level: a character outside the alphabet
        #: becomes its UTF-8 bytes as such tokens, as SentencePiece's byte_fallback)
        self._id_bytes: dict[int, int] = {}
        self._fallback_ids: list[int] = []
        self.byte_fallback = bool(byte_fallback)
        if byte_fallback:
            if level != "char" or pipeline is not None:
                raise ValueError("byte_fallback is for char-level tokenizers")
            by_text = {t: i for i, t in self.vocab.items() if isinstance(t, str) and i not in self._special_by_id}
            try:
                self._fallback_ids = [by_text[byte_token(b)] for b in range(256)]
            except KeyError as exc:
                raise ValueError(f"byte_fallback needs the 256 tokens <0x00>...<0xFF>; {exc.args[0]} is missing") from None
            self._id_bytes = {i: b for b, i in enumerate(self._fallback_ids)}
        if pipeline is not None:
            self.unk_token, self.unk_id, self.fuse_unk = pipeline.unk_token, pipeline.unk_id, pipeline.fuse_unk
            self._id_bytes = pipeline.id_bytes
        self._cache = ChunkCache(self._rank_merge.chunk_ids if mode == "ranks" else self._encode_chunk)

    # ------------------------------------------------------------------------------------------------
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
                        "unk_token='<unk>' to encode such characters as an unknown token)")
                i = -1 - ord(ch)
                unknown[i] = ch
            prev_unknown = False
            out.append(i)
        return out

    def encode_pieces(self, text: str) -> list[str]:
        """The text's tokens as strings (char level) or GPT-2 visible strings (byte level).

        At char level, characters the alphabet lacks stay as pieces of their own instead of raising:
        how the tutorials show an unseen word falling back to smaller pieces. With an ``unk_token`` the
        pieces line up with :meth:`encode`'s ids (an unknown piece is the text the unknown id stands for).

        >>> from bpe import train
        >>> tok = train({"ab": 3}, 3, level="char").tokenizer()
        >>> tok.encode_pieces("aby")
        ['ab', 'y']
        """
        if self.level == "byte" or self.mode == "ranks" or self.pipeline is not None:
            return [self.token_text(i) for i in self.encode_ordinary(text)]
        text = normalize_text(text, self.normalize)
        pieces: list[str] = []
        for chunk in pretokenize(text, self.pattern):
            unknown: dict[int, str] = {}
            ids = self._merge_ids(self._base_ids(chunk, unknown))
            for n, i in enumerate(ids):
                if i >= 0:
                    pieces.append(self.token_text(i))
                elif self.fuse_unk and self.unk_id is not None and n and ids[n - 1] < 0:
                    pieces[-1] += unknown[i]  # one unknown token for the run, as encode() gives
                else:
                    pieces.append(unknown[i])
        return pieces

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

    def encode(self, text: str, *, allowed_special: SpecialChoice = (),
               disallowed_special: SpecialChoice = "all") -> list[int]:
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
        chunked = (self.pipeline.chunks(pieces) if self.pipeline is not None
                   else pretokenize_pieces(pieces, self.pattern))
        for i, chunks in enumerate(chunked):
            out.extend(self._encode_chunks(chunks))
            if i < len(specials):
                out.append(self.special_tokens[specials[i]])
        return out

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

    # ------------------------------------------------------------------------------------------------
    def encode_trace(self, chunk: str) -> list[TraceStep]:
        """How one chunk is encoded, merge by merge.

        The first step holds the base tokens; each later step names the pair merged, the new id, its rank
        and where the new tokens sit. The last step's ids equal ``encode_ordinary(chunk)`` when the chunk is
        one pre-tokenizer chunk.

        >>> from bpe import train
        >>> tok = train("aaabdaaabac", 258, pattern=None).tokenizer()
        >>> [(s.ids, s.pair) for s in tok.encode_trace("aaab")]
        [((97, 97, 97, 98), None), ((256, 97, 98), (97, 97)), ((256, 257), (97, 98))]
        """
        check_text(chunk)
        chunk = normalize_text(chunk, self.normalize)
        if self.mode == "ranks":
            return trace_ranks(chunk.encode("utf-8"), self._ranks)
        steps = trace_merges(self._base_ids(chunk), self.merges, self._rank)
        if self.ignore_merges:
            whole = self._ids_by_token.get(chunk.encode("utf-8") if self.level == "byte" else chunk)
            if whole is not None and steps[-1].ids != (whole,):
                # looked up whole before merging (ignore_merges): that shortcut wins over the merge path
                steps.append(TraceStep((whole,), None, whole, None, (0,)))
        return steps

    def __repr__(self) -> str:
        pat = None if self.pattern is None else self.pattern.name
        return (f"Tokenizer({self.name or 'bpe'}: {self.level} level, {len(self.vocab)} tokens, "
                f"pattern={pat}, mode={self.mode})")
