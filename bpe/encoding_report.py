"""One text encoded by one tokenizer, with what a reader checks about it: the ids, the special tokens found,
the token count under the *other* special-token treatment, the unknown tokens of a char-level tokenizer and
what they stand for, and whether decoding gives the text back. Errors are reported in the record, not raised.

>>> import bpe
>>> tok = bpe.load_pretrained("cl100k_base")
>>> rep = encoding_report(tok, "hi <|endoftext|>")
>>> rep.ids, rep.specials_found, rep.special_count, rep.other_count, rep.roundtrip
((6151, 220, 100257), ('<|endoftext|>',), 1, 7, 'exact')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .corpus import special_splitter
from .special_tokens import cut_at_specials
from .tokenizer import Tokenizer, UnknownCharacterError
from .visible import normalize_text

__all__ = ["EncodingReport", "encoding_report", "unknown_pieces", "first_difference", "ROUNDTRIPS"]

#: How decoding compares with the text: ``"exact"``; ``"unknown"``, exact but for the characters unknown
#: tokens stand for; ``"differs"``; ``"error"`` (the text could not be encoded).
ROUNDTRIPS = ("exact", "unknown", "differs", "error")


@dataclass(frozen=True)
class EncodingReport:
    """A text encoded by one tokenizer (see the module docstring); ``text`` is the text as encoded (after the
    tokenizer's normalization)."""

    text: str
    ids: tuple[int, ...] = ()
    specials_as_special: bool = True
    #: special-token ids in ``ids`` (unknown tokens not counted: they are not in the text)
    special_count: int = 0
    #: token count with the other special-token treatment, when the text holds special-token strings
    other_count: int | None = None
    #: this tokenizer's special-token strings found in the text, in order of first appearance
    specials_found: tuple[str, ...] = ()
    #: (index in ``ids``, the text it stands for) of every unknown token (char level with an unk token)
    unknown: tuple[tuple[int, str], ...] = ()
    #: one of :data:`ROUNDTRIPS`
    roundtrip: str = "exact"
    #: where ``decode(ids)`` first differs from ``text`` (``roundtrip == "differs"``), and what it decodes to
    difference_at: int | None = None
    decoded: str | None = None
    error: str | None = None
    #: the error is a char-level tokenizer meeting a character outside its alphabet
    unknown_character: bool = False
    normalized: bool = False
    #: what ``decode(ids)`` is compared with when it is not ``text``: the text typed, for a tokenizer.json
    #: pipeline (``text`` is then the tokens' own text, ``▁`` for spaces)
    compared_with: str | None = None

    @property
    def roundtrip_ok(self) -> bool:
        """Whether ``decode(encode(text))`` is exactly the text."""
        return self.roundtrip == "exact"

    @property
    def unknown_chars(self) -> int:
        """How many characters of the text the unknown tokens stand for."""
        return sum(len(t) for _, t in self.unknown)


def _encode(tok: Tokenizer, text: str, specials: bool) -> list[int]:
    if specials and tok.special_tokens:
        return tok.encode(text, allowed_special="all")
    return tok.encode_ordinary(text)


def encoding_report(tok: Tokenizer, text: str, *, specials_as_special: bool = True) -> EncodingReport:
    """Encode ``text`` with ``tok`` and check the result.

    ``specials_as_special=True``: special-token strings of this tokenizer become their one reserved id
    (tiktoken's ``allowed_special="all"``); ``False``: they are encoded as ordinary text
    (``encode_ordinary``). Errors (a char-level tokenizer meeting an unknown character) are reported in
    ``error``, not raised.

    >>> import bpe
    >>> tok = bpe.train("aab", 257, level="char").tokenizer()
    >>> encoding_report(tok, "abc").error
    "'c' (U+0063) is not in this char-level tokenizer's alphabet (train with unk_token='<unk>' to encode such characters as an unknown token)"
    """
    try:
        norm = normalize_text(text, tok.normalize)
        ids = _encode(tok, text, specials_as_special)
    except (ValueError, TypeError) as exc:
        return EncodingReport(
            text=text,
            specials_as_special=specials_as_special,
            roundtrip="error",
            error=str(exc),
            unknown_character=isinstance(exc, UnknownCharacterError),
        )
    special_count = sum(1 for i in ids if tok.is_special(i))
    other = None
    splitter = special_splitter(list(tok.special_tokens)) if tok.special_tokens else None
    found: tuple[str, ...] = ()
    if splitter is not None and splitter.search(norm):
        found = tuple(dict.fromkeys(splitter.findall(norm)))
        try:
            other = len(_encode(tok, text, not specials_as_special))
        except (ValueError, TypeError):
            other = None
    if tok.pipeline is not None:
        return _pipeline_report(tok, text, ids, specials_as_special, special_count, other, found)
    unknown = unknown_pieces(tok, norm, ids, specials_as_special)
    special_count -= len(unknown)  # an unknown token is special to the vocabulary, not in the text
    decoded = tok.decode(ids)
    at = None
    if decoded == norm:
        roundtrip = "exact"
    elif unknown and _decode_with(tok, ids, dict(unknown)) == norm:
        roundtrip = "unknown"
    else:
        roundtrip, at = "differs", first_difference(decoded, norm)
    return EncodingReport(
        text=norm,
        ids=tuple(ids),
        specials_as_special=specials_as_special,
        special_count=special_count,
        other_count=other,
        specials_found=found,
        unknown=unknown,
        roundtrip=roundtrip,
        difference_at=at,
        decoded=None if at is None else decoded,
        normalized=norm != text,
    )


def _pipeline_report(
    tok: Tokenizer,
    text: str,
    ids: list[int],
    specials_as_special: bool,
    special_count: int,
    other: int | None,
    found: tuple[str, ...],
) -> EncodingReport:
    """A tokenizer.json pipeline (SentencePiece-style, Whitespace...) changes the text in ways a normalization
    form does not (spaces become ``▁``, are dropped, characters become ``<0xNN>`` bytes): the text shown is the
    tokens' own text one after the other (a byte-fallback token: its byte), so every token lies on it; the
    round trip compares the file's decoder's output with the text typed."""
    shown = tok.decode_bytes(ids).decode("utf-8", errors="replace")
    decoded = tok.decode(ids)
    at = None if decoded == text else first_difference(decoded, text)
    return EncodingReport(
        text=shown,
        ids=tuple(ids),
        specials_as_special=specials_as_special,
        special_count=special_count,
        other_count=other,
        specials_found=found,
        roundtrip="exact" if at is None else "differs",
        difference_at=at,
        decoded=None if at is None else decoded,
        normalized=shown != text,
        compared_with=text,
    )


def _decode_with(tok: Tokenizer, ids: Sequence[int], unknown: dict[int, str]) -> str:
    """The decoded text with each unknown token replaced by the characters it stood for."""
    return "".join(unknown[n] if n in unknown else tok.decode([i]) for n, i in enumerate(ids))


def unknown_pieces(tok: Tokenizer, text: str, ids: Sequence[int], specials: bool = True) -> tuple[tuple[int, str], ...]:
    """``(index, text)`` of each unknown token in ``ids`` (``text`` encoded by a char-level tokenizer with an
    ``unk_token``): which characters of the text each ``<unk>`` stands for. The text is cut at special
    tokens as :func:`encoding_report` cut it, and each plain piece is lined up with
    :meth:`bpe.Tokenizer.encode_pieces`; ``()`` when they cannot be lined up.

    >>> import bpe
    >>> tok = bpe.train("hello hello", 270, level="char", special_tokens=["<unk>"], unk_token="<unk>").tokenizer()
    >>> tok.encode_pieces("hex"), unknown_pieces(tok, "hex", tok.encode("hex"))
    (['h', 'e', 'x'], ((2, 'x'),))
    """
    unk = tok.unk_id
    if unk is None or unk not in ids:
        return ()
    plain, found = cut_at_specials(text, tok.special_tokens if specials else ())
    pieces: list[str] = []
    for i, piece in enumerate(plain):
        if piece:
            pieces.extend(tok.encode_pieces(piece))
        if i < len(found):
            pieces.append(found[i])
    if len(pieces) != len(ids):  # cannot line them up
        return ()
    return tuple((n, piece) for n, (i, piece) in enumerate(zip(ids, pieces)) if i == unk and piece != tok.unk_token)


def first_difference(a: str, b: str) -> int:
    """The first index where ``a`` and ``b`` differ (the shorter one's length if one starts the other).

    >>> first_difference("hello", "help"), first_difference("ab", "abc"), first_difference("", "")
    (3, 2, 0)
    """
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))
