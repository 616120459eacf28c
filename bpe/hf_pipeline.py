"""Hugging Face ``tokenizers``' text pipeline for BPE models that are not byte level: the normalizers,
pre-tokenizers, model options and decoders of a ``tokenizer.json`` such as Llama 2's, Mistral 7B's, Gemma's
(SentencePiece-style: spaces as ``▁``, characters as the base alphabet, ``<0xNN>`` byte fallback) or the HF
quicktour's (``Whitespace`` + ``[UNK]``).

Each step does what the Rust step of the same name does (``tokenizers`` 0.2x), so ids equal Hugging Face's:

* normalizers map a text to a text (``NFC``..., ``Lowercase``, ``Prepend``, ``Replace``, ``Strip``);
* pre-tokenizers map pieces ``(text, start)`` to smaller pieces, with HF's split behaviours
  (``removed``, ``isolated``, ``merged_with_previous``, ``merged_with_next``, ``contiguous``);
* :meth:`Pipeline.base_ids` is HF BPE's ``merge_word`` start: each character is its token (with the
  continuing-subword prefix / end-of-word suffix), else its UTF-8 bytes as ``<0xNN>`` tokens (byte
  fallback), else the unknown token (a run of them one token with ``fuse_unk``), else nothing;
* decoders map the list of token strings to strings, joined at the end (``ByteFallback``, ``Metaspace``,
  ``Fuse``, ``Strip``, ``Replace``, ``BPEDecoder``); with no decoder tokens are joined with spaces.

``bpe.formats.hf`` builds a :class:`Pipeline` from a file; :class:`bpe.Tokenizer` runs it.

>>> p = Pipeline(normalizers=(Replace(" ", "▁"), Prepend("▁")), vocab={"▁": 0, "a": 1, "<0x62>": 2},
...              byte_fallback=True)
>>> p.chunks(["a b"])
[['▁a▁b']]
>>> p.base_ids("▁a▁b")
[0, 1, 0, 2]
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import regex

from .deadline import Deadline
from .hf_decoders import BPEDecoder, ByteFallbackDecoder, FuseDecoder, MetaspaceDecoder, ReplaceDecoder, StripDecoder
from .hf_normalizers import WHITE_SPACE as _WHITE_SPACE
from .hf_normalizers import Lowercase, NormalizationForm, Prepend, Replace, Strip
from .hf_regex import FileRegex, deadline_for

__all__ = [
    "Pipeline",
    "NormalizationForm",
    "Lowercase",
    "Prepend",
    "Replace",
    "Strip",
    "SplitFn",
    "whitespace",
    "whitespace_split",
    "punctuation",
    "digits",
    "metaspace",
    "split_regex",
    "ByteFallbackDecoder",
    "MetaspaceDecoder",
    "FuseDecoder",
    "StripDecoder",
    "ReplaceDecoder",
    "BPEDecoder",
    "BEHAVIORS",
    "byte_token",
]

#: HF's split delimiter behaviours, as written in tokenizer.json
BEHAVIORS = ("removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous")

# Rust regex's Unicode \w and \s (HF's Whitespace pre-tokenizer is r"\w+|[^\w\s]+" in the regex crate)
_W = r"\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}"
_WHITESPACE_RE = regex.compile(rf"[{_W}]+|[^{_W}\p{{White_Space}}]+")


def byte_token(b: int) -> str:
    """The byte-fallback token of one byte, as HF spells it (``format!("<{b:#04X}>")``).

    >>> byte_token(0x0a), byte_token(0xe2)
    ('<0x0A>', '<0xE2>')
    """
    return f"<0x{b:02X}>"


# ----------------------------------------------------------------------------------------------------
# Pre-tokenizers: list of (piece, start, first) -> list of (piece, start, first)
# ``start`` is the piece's offset in its normalized segment; ``first`` says the segment is the text's first
# one (Metaspace's prepend_scheme "first" prepends only at original offset 0).

Piece = tuple[str, int, bool]
#: a pre-tokenizer step: ``step(pieces, deadline)`` (the request's one deadline, for a file's regexes)
SplitFn = Callable[[list[Piece], "Deadline | None"], list[Piece]]


def _behave(spans: list[tuple[int, int, bool]], behavior: str) -> list[tuple[int, int]]:
    """HF's ``NormalizedString::split``: ``(start, end, is_match)`` spans covering a piece -> the kept spans."""
    out: list[list[int]] = []
    if behavior == "removed":
        return [(s, e) for s, e, m in spans if not m and e > s]
    if behavior == "isolated":
        return [(s, e) for s, e, _ in spans if e > s]
    previous = False
    if behavior == "merged_with_previous":
        for s, e, m in spans:
            if m and not previous and out:
                out[-1][1] = e
            else:
                out.append([s, e])
            previous = m
    elif behavior == "merged_with_next":
        for s, e, m in reversed(spans):
            if m and not previous and out:
                out[-1][0] = s
            else:
                out.append([s, e])
            previous = m
        out.reverse()
    elif behavior == "contiguous":
        for s, e, m in spans:
            if m == previous and out:
                out[-1][1] = e
            else:
                out.append([s, e])
            previous = m
    else:
        raise ValueError(f"unknown split behavior {behavior!r}")
    return [(s, e) for s, e in out if e > s]


def _char_spans(text: str, is_match: Callable[[str], bool]) -> list[tuple[int, int, bool]]:
    """Every matching character a match of its own, the runs between them non-matches (HF's char split)."""
    spans: list[tuple[int, int, bool]] = []
    last = 0
    for i, c in enumerate(text):
        if is_match(c):
            if i > last:
                spans.append((last, i, False))
            spans.append((i, i + 1, True))
            last = i + 1
    if last < len(text):
        spans.append((last, len(text), False))
    return spans


def _regex_spans(text: str, compiled: Any, invert: bool) -> list[tuple[int, int, bool]]:
    """:func:`_match_spans` of ``compiled``'s non-empty matches in ``text``."""
    return _match_spans(text, [m.span() for m in compiled.finditer(text) if m.end() > m.start()], invert)


def _splitter(make_spans: Callable[[str], list[tuple[int, int, bool]]], behavior: str) -> SplitFn:
    def split(pieces: list[Piece], deadline: Deadline | None = None) -> list[Piece]:
        out: list[Piece] = []
        for text, start, first in pieces:
            out.extend((text[s:e], start + s, first) for s, e in _behave(make_spans(text), behavior))
        return out

    return split


def _match_spans(text: str, matches: list[tuple[int, int]], invert: bool) -> list[tuple[int, int, bool]]:
    """``(start, end, is_match)`` spans covering ``text`` from its non-empty match spans (``invert``: the
    matches are the non-matches)."""
    spans: list[tuple[int, int, bool]] = []
    last = 0
    for s, e in matches:
        if s > last:
            spans.append((last, s, invert))
        spans.append((s, e, not invert))
        last = e
    if last < len(text):
        spans.append((last, len(text), invert))
    return spans


def _regex_splitter(compiled: FileRegex, behavior: str, invert: bool) -> SplitFn:
    def split(pieces: list[Piece], deadline: Deadline | None = None) -> list[Piece]:
        found = compiled.spans([text for text, _, _ in pieces], deadline)  # one runner job for all pieces
        out: list[Piece] = []
        for (text, start, first), matches in zip(pieces, found):
            spans = _match_spans(text, matches, invert)
            out.extend((text[s:e], start + s, first) for s, e in _behave(spans, behavior))
        return out

    return split


def whitespace() -> SplitFn:
    """``Whitespace``: runs of word characters and runs of other non-space characters; spaces dropped."""
    return _splitter(lambda t: _regex_spans(t, _WHITESPACE_RE, True), "removed")


def whitespace_split() -> SplitFn:
    """``WhitespaceSplit``: cut at (and drop) every whitespace character."""
    return _splitter(lambda t: _char_spans(t, _WHITE_SPACE.__contains__), "removed")


def _is_punctuation(c: str) -> bool:
    # Rust: char::is_ascii_punctuation || unicode punctuation (general category P*)
    return (c.isascii() and c in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~") or unicodedata.category(c).startswith("P")


def punctuation(behavior: str = "isolated") -> SplitFn:
    """``Punctuation``: cut at every punctuation character (ASCII punctuation or Unicode P*)."""
    return _splitter(lambda t: _char_spans(t, _is_punctuation), behavior)


def _is_numeric(c: str) -> bool:
    return unicodedata.category(c) in ("Nd", "Nl", "No")  # Rust's char::is_numeric


def digits(individual_digits: bool = False) -> SplitFn:
    """``Digits``: numeric characters cut out, one by one (``individual_digits``) or as runs."""
    return _splitter(lambda t: _char_spans(t, _is_numeric), "isolated" if individual_digits else "contiguous")


def split_regex(compiled: FileRegex, behavior: str, invert: bool) -> SplitFn:
    """``Split`` with a regex from the file (a :class:`~bpe.hf_regex.FileRegex`: rewritten from Oniguruma,
    compiled by the caller through the guard, run with the request's deadline)."""
    return _regex_splitter(compiled, behavior, invert)


def metaspace(replacement: str = "▁", prepend_scheme: str = "always", split: bool = True) -> SplitFn:
    """``Metaspace``: spaces become ``replacement``, one is prepended (``always``; ``first``: only to the
    piece at the text's very start; ``never``), and with ``split`` each piece is cut before every
    ``replacement`` (merged with the next)."""

    def step(pieces: list[Piece], deadline: Deadline | None = None) -> list[Piece]:
        out: list[Piece] = []
        for text, start, first in pieces:
            text = text.replace(" ", replacement)
            if (
                text
                and not text.startswith(replacement)
                and (prepend_scheme == "always" or (prepend_scheme == "first" and first and start == 0))
            ):
                text = replacement + text
            if split:
                spans = _char_spans(text, lambda c: c == replacement)
                out.extend((text[s:e], start + s, first) for s, e in _behave(spans, "merged_with_next"))
            elif text:
                out.append((text, start, first))
        return out

    return step


# ----------------------------------------------------------------------------------------------------


@dataclass
class Pipeline:
    """A ``tokenizer.json``'s normalizers, pre-tokenizers, BPE model options and decoders.

    ``vocab`` is the model's ``{token: id}``; ``decoders`` is ``None`` when the file has no decoder (HF then
    joins tokens with spaces). ``source`` keeps the parsed file, so saving it writes what was read.
    """

    normalizers: tuple = ()
    pre_tokenizers: tuple = ()
    decoders: "tuple | None" = ()
    vocab: dict = field(default_factory=dict)
    unk_token: str | None = None
    fuse_unk: bool = False
    byte_fallback: bool = False
    prefix: str | None = None
    suffix: str | None = None
    #: what the file is, in a few words ("SentencePiece-style BPE (Metaspace, byte fallback)")
    description: str = ""
    source: Any = None
    #: pre-tokenizer and normalizer names, for messages and the UI
    steps: tuple = ()

    def __post_init__(self) -> None:
        self.unk_id = self.vocab.get(self.unk_token) if self.unk_token is not None else None
        #: byte -> the id of its <0xNN> token (byte fallback), when the vocabulary has all of them
        self.byte_ids = {b: self.vocab[byte_token(b)] for b in range(256) if byte_token(b) in self.vocab}
        #: id -> the byte it stands for
        self.id_bytes = {i: b for b, i in self.byte_ids.items()}

    def normalize(self, text: str, deadline: Deadline | None = None) -> str:
        """``text`` through the normalizers, in order (a file's regexes stopped at ``deadline``, by default
        the one for ``text``'s length: :class:`bpe.PatternTimeout`)."""
        deadline = deadline if deadline is not None else deadline_for(len(text))
        for step in self.normalizers:
            text = step(text, deadline)
        return text

    def chunks(self, segments: Sequence[str], deadline: Deadline | None = None) -> list[list[str]]:
        """The pre-tokenized chunks of each segment (the text between special tokens; the first segment is
        the start of the text), after normalization; one deadline for all (see :meth:`normalize`)."""
        deadline = deadline if deadline is not None else deadline_for(sum(map(len, segments)))
        out = []
        for n, segment in enumerate(segments):
            pieces: list[Piece] = [(self.normalize(segment, deadline), 0, n == 0)]
            for step in self.pre_tokenizers:
                pieces = step(pieces, deadline)
            out.append([p for p, _, _ in pieces if p])
        return out

    def base_ids(self, word: str, unknown: "dict[int, str] | None" = None) -> list[int]:
        """HF BPE's ``merge_word`` before merging: the ids each character of ``word`` starts as."""
        vocab, prefix, suffix = self.vocab, self.prefix, self.suffix
        out: list[int] = []
        unk: list[int] | None = None  # [id] of the unknown token waiting to be added
        last = len(word) - 1
        for i, c in enumerate(word):
            s = c
            if i and prefix:
                s = prefix + s
            if i == last and suffix:
                s = s + suffix
            tid = vocab.get(s)
            if tid is not None:
                if unk is not None:
                    out.append(unk[0])
                    unk = None
                out.append(tid)
                continue
            if self.byte_fallback:
                ids = [self.byte_ids.get(b) for b in s.encode("utf-8")]
                if None not in ids:
                    out.extend(ids)  # type: ignore[arg-type]   (HF adds a waiting unk only later)
                    continue
            if self.unk_id is not None:
                if unk is not None and not self.fuse_unk:
                    out.append(unk[0])
                unk = [self.unk_id]
            elif unknown is not None:
                placeholder = -1 - ord(c)
                unknown[placeholder] = c
                out.append(placeholder)
            # no unk token: HF drops the character
        if unk is not None:
            out.append(unk[0])
        return out

    def decode(self, tokens: list[str], deadline: Deadline | None = None) -> str:
        """Token strings -> text through the decoders (no decoder: joined with spaces, as Hugging Face); a
        file's regexes stopped at ``deadline`` (by default the one for the tokens' length)."""
        if self.decoders is None:
            return " ".join(tokens)
        deadline = deadline if deadline is not None else deadline_for(sum(map(len, tokens)))
        for step in self.decoders:
            tokens = step(tokens, deadline)
        return "".join(tokens)
