"""One text encoded by one tokenizer, as the Tokenize page shows it: :func:`encode_view` turns
:func:`bpe.encoding_report.encoding_report`'s record (ids, the decode round trip, the token count under the
*other* special-token treatment, the unknown tokens of a char-level tokenizer and what they stand for) into an
:class:`Encoded` with the sentences the page shows (characters, bytes, characters per token as properties).
Errors are reported in the record, not raised.

>>> enc = encode_view(bpe.train("hello hello", 260, pattern=None).tokenizer(), "hello")
>>> enc.n_tokens < enc.n_bytes, enc.roundtrip_ok
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import bpe
from bpe.encoding_report import EncodingReport, encoding_report, unknown_pieces

from .spans import visible_whitespace

__all__ = ["Encoded", "encode_view", "unknown_pieces"]


@dataclass(frozen=True)
class Encoded:
    """A text encoded by one tokenizer, with what the page shows about it."""

    name: str
    text: str  # the text as encoded (after the tokenizer's normalization)
    ids: tuple[int, ...] = ()
    specials_as_special: bool = True
    special_count: int = 0  # special-token ids in ``ids``
    #: token count with the other special-token treatment, when the text holds special-token strings
    other_count: int | None = None
    roundtrip_ok: bool = True
    roundtrip_note: str = ""
    error: str | None = None
    normalized: bool = False  # the tokenizer changed the text (e.g. NFC) before encoding
    #: what the tokenizer does to the text, when more than a Unicode normalization (a tokenizer.json pipeline)
    normalized_note: str = ""
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

    @cached_property
    def n_bytes(self) -> int:  # (worked out once: a 1 MB text's encode is ~1 ms, and the page asks twice)
        return len(self.text.encode("utf-8"))

    @property
    def chars_per_token(self) -> float:
        return self.n_chars / self.n_tokens if self.ids else 0.0

    @property
    def bytes_per_token(self) -> float:
        return self.n_bytes / self.n_tokens if self.ids else 0.0


def encode_view(tok: bpe.Tokenizer, text: str, *, specials_as_special: bool = True, name: str = "") -> Encoded:
    """Encode ``text`` with ``tok`` as the page shows it: :func:`bpe.encoding_report.encoding_report`'s
    record, with the round trip said in a sentence and a hint for an unknown character.

    ``specials_as_special=True``: special-token strings of this tokenizer become their one reserved id
    (tiktoken's ``allowed_special="all"``); ``False``: they are encoded as ordinary text
    (``encode_ordinary``). Errors (a char-level tokenizer meeting an unknown character) are reported in
    ``error``, not raised.
    """
    name = name or tok.name or "tokenizer"
    rep = encoding_report(tok, text, specials_as_special=specials_as_special)
    if rep.error is not None:
        msg = rep.error
        if rep.unknown_character:
            msg += (
                ". A character-level tokenizer knows only the characters of its training text; "
                "one trained at byte level can encode any text."
            )
        return Encoded(name=name, text=text, error=msg, roundtrip_ok=False, specials_as_special=specials_as_special)
    return Encoded(
        name=name,
        text=rep.text,
        ids=rep.ids,
        specials_as_special=specials_as_special,
        special_count=rep.special_count,
        other_count=rep.other_count,
        roundtrip_ok=rep.roundtrip_ok,
        roundtrip_note=_roundtrip_note(tok, rep),
        normalized=rep.normalized,
        unknown=rep.unknown,
        normalized_note=(
            f"This {tok.pipeline.description} changes the text before merging: its tokens "
            "are drawn on the text they make (▁ for a space, one byte per <0xNN> token, "
            "spaces its pre-tokenizer drops left out); counts are for that text."
            if tok.pipeline is not None and rep.normalized
            else ""
        ),
        specials_found=rep.specials_found,
    )


def _roundtrip_note(tok: bpe.Tokenizer, rep: EncodingReport) -> str:
    """The round trip in a sentence."""
    if rep.roundtrip == "exact":
        return "decode(encode(text)) gives the text back exactly"
    if rep.roundtrip == "unknown":
        n = rep.unknown_chars
        return (
            f"decode(encode(text)) gives the text back except its {n:,} unknown character"
            f"{'s' if n != 1 else ''}, which come back as {tok.unk_token}"
        )
    at = rep.difference_at
    original = rep.text if rep.compared_with is None else rep.compared_with
    return (
        f"decode(encode(text)) differs from the text at character {at:,}: "
        f"{visible_whitespace(rep.decoded[at : at + 12])!r} instead of {visible_whitespace(original[at : at + 12])!r}"
    )
