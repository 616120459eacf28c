"""One text encoded by one tokenizer, measured as the Tokenize page shows it: :func:`encode_view` gives an
:class:`Encoded` (ids, characters, bytes, characters per token, the decode round trip, the token count under
the *other* special-token treatment, the unknown tokens of a char-level tokenizer and what they stand for).
Errors are reported in the record, not raised.

>>> enc = encode_view(bpe.train("hello hello", 260, pattern=None).tokenizer(), "hello")
>>> enc.n_tokens < enc.n_bytes, enc.roundtrip_ok
(True, True)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import bpe
from bpe.corpus import special_splitter
from bpe.visible import normalize_text

from .spans import visible_whitespace

__all__ = ["Encoded", "encode_view", "unknown_pieces"]


@dataclass(frozen=True)
class Encoded:
    """A text encoded by one tokenizer, with what the page shows about it."""

    name: str
    text: str                  # the text as encoded (after the tokenizer's normalization)
    ids: tuple[int, ...] = ()
    specials_as_special: bool = True
    special_count: int = 0     # special-token ids in ``ids``
    #: token count with the other special-token treatment, when the text holds special-token strings
    other_count: int | None = None
    roundtrip_ok: bool = True
    roundtrip_note: str = ""
    error: str | None = None
    normalized: bool = False   # the tokenizer changed the text (e.g. NFC) before encoding
    #: (index in ``ids``, the text it stands for) of every unknown token (char level with an unk token)
    unknown: tuple[tuple[int, str], ...] = ()
    #: this tokenizer's special-token strings found in the text, in order of first appearance
    specials_found: tuple[str, ...] = ()

    @property
    def n_tokens(self) -> int:
        return len(self.ids)

    @property
    def n_chars(self) -> int:
        return len(self.text)

    @property
    def n_bytes(self) -> int:
        return len(self.text.encode("utf-8"))

    @property
    def chars_per_token(self) -> float:
        return self.n_chars / self.n_tokens if self.ids else 0.0

    @property
    def bytes_per_token(self) -> float:
        return self.n_bytes / self.n_tokens if self.ids else 0.0


def _encode(tok: bpe.Tokenizer, text: str, specials: bool) -> list[int]:
    if specials and tok.special_tokens:
        return tok.encode(text, allowed_special="all")
    return tok.encode_ordinary(text)


def encode_view(tok: bpe.Tokenizer, text: str, *, specials_as_special: bool = True, name: str = "") -> Encoded:
    """Encode ``text`` with ``tok`` as the page shows it.

    ``specials_as_special=True``: special-token strings of this tokenizer become their one reserved id
    (tiktoken's ``allowed_special="all"``); ``False``: they are encoded as ordinary text
    (``encode_ordinary``). Errors (a char-level tokenizer meeting an unknown character) are reported in
    ``error``, not raised.
    """
    name = name or getattr(tok, "name", "") or "tokenizer"
    try:
        norm = normalize_text(text, tok.normalize)
        ids = _encode(tok, text, specials_as_special)
    except (ValueError, TypeError) as exc:
        msg = str(exc)
        if isinstance(exc, bpe.UnknownCharacterError):
            msg += (". A character-level tokenizer knows only the characters of its training text; "
                    "one trained at byte level can encode any text.")
        return Encoded(name=name, text=text, error=msg, roundtrip_ok=False,
                       specials_as_special=specials_as_special)
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
    unknown = unknown_pieces(tok, norm, ids, specials_as_special)
    special_count -= len(unknown)     # an unknown token is special to the vocabulary, not in the text
    decoded = tok.decode(ids)
    ok = decoded == norm
    if ok:
        note = "decode(encode(text)) gives the text back exactly"
    elif unknown and _decode_with(tok, ids, dict(unknown)) == norm:
        n = sum(len(t) for _, t in unknown)
        note = (f"decode(encode(text)) gives the text back except its {n:,} unknown character"
                f"{'s' if n != 1 else ''}, which come back as {tok.unk_token}")
    else:
        at = _first_difference(decoded, norm)
        note = (f"decode(encode(text)) differs from the text at character {at:,}: "
                f"{visible_whitespace(decoded[at:at + 12])!r} instead of {visible_whitespace(norm[at:at + 12])!r}")
    return Encoded(name=name, text=norm, ids=tuple(ids), specials_as_special=specials_as_special,
                   special_count=special_count, other_count=other, roundtrip_ok=ok, roundtrip_note=note,
                   normalized=norm != text, unknown=unknown, specials_found=found)


def _decode_with(tok: bpe.Tokenizer, ids: Sequence[int], unknown: dict[int, str]) -> str:
    """The decoded text with each unknown token replaced by the characters it stood for."""
    return "".join(unknown[n] if n in unknown else tok.decode([i]) for n, i in enumerate(ids))


def unknown_pieces(tok: bpe.Tokenizer, text: str, ids: Sequence[int],
                   specials: bool = True) -> tuple[tuple[int, str], ...]:
    """``(index, text)`` of each unknown token in ``ids`` (``text`` encoded by a char-level tokenizer with an
    ``unk_token``): which characters of the text each ``<unk>`` stands for. The text is cut at special
    tokens as :func:`encode_view` cut it, and each plain piece is lined up with
    :meth:`bpe.Tokenizer.encode_pieces`.

    >>> tok = bpe.train("hello hello", 270, level="char", special_tokens=["<unk>"], unk_token="<unk>").tokenizer()
    >>> tok.encode_pieces("hex"), unknown_pieces(tok, "hex", tok.encode("hex"))
    (['h', 'e', 'x'], ((2, 'x'),))
    """
    unk = tok.unk_id
    if unk is None or unk not in ids:
        return ()
    pieces: list[str] = []
    splitter = special_splitter(list(tok.special_tokens)) if specials and tok.special_tokens else None
    pos = 0
    for m in (splitter.finditer(text) if splitter is not None else ()):
        if m.start() > pos:
            pieces.extend(tok.encode_pieces(text[pos:m.start()]))
        pieces.append(m.group())
        pos = m.end()
    if pos < len(text):
        pieces.extend(tok.encode_pieces(text[pos:]))
    if len(pieces) != len(ids):     # cannot line them up: draw the unknown tokens as ordinary ones
        return ()
    return tuple((n, piece) for n, (i, piece) in enumerate(zip(ids, pieces))
                 if i == unk and piece != tok.unk_token)


def _first_difference(a: str, b: str) -> int:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))
