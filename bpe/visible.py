"""Bytes <-> visible text: GPT-2's ``bytes_to_unicode`` map.

Byte-level tokenizers work on raw bytes, and many bytes (space, newline, control bytes, the pieces of a
multi-byte UTF-8 character) have no printable glyph of their own. GPT-2 maps each of the 256 byte values
to one printable character: the 188 printable Latin-1 bytes map to themselves, the other 68 to
``chr(256 + n)``. So a space becomes ``Ġ`` and a newline ``Ċ``. This is the notation of every
``vocab.json`` / ``merges.txt`` / ``tokenizer.json`` produced by Hugging Face ``tokenizers``.

>>> to_visible(b"hello world\\n")
'helloĠworldĊ'
>>> from_visible('helloĠworldĊ')
b'hello world\\n'
"""

from __future__ import annotations

import unicodedata
from typing import Literal, Sequence, TypeAlias

__all__ = [
    "BYTE_TO_CHAR",
    "CHAR_TO_BYTE",
    "to_visible",
    "from_visible",
    "normalize_text",
    "hf_rank_table",
    "char_groups",
    "METASPACE",
    "METASPACE_CHAR",
    "split_metaspace",
    "unicode_form",
    "NormalForm",
]


def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's table: byte value -> one printable character."""
    printable = (
        list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    )
    table: dict[int, str] = {b: chr(b) for b in printable}
    shift = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + shift)
            shift += 1
    return table


BYTE_TO_CHAR: dict[int, str] = _bytes_to_unicode()
CHAR_TO_BYTE: dict[str, int] = {c: b for b, c in BYTE_TO_CHAR.items()}
_ENCODE_TABLE = [BYTE_TO_CHAR[b] for b in range(256)]


def to_visible(data: bytes) -> str:
    """Spell raw bytes in GPT-2's visible alphabet, one character per byte.

    >>> to_visible(" the".encode())
    'Ġthe'
    """
    return "".join([_ENCODE_TABLE[b] for b in data])


def from_visible(text: str) -> bytes:
    """Inverse of :func:`to_visible`.

    >>> from_visible("Ġthe")
    b' the'

    Raises ``ValueError`` naming the first character that is not in the alphabet.
    """
    try:
        return bytes([CHAR_TO_BYTE[c] for c in text])
    except KeyError as exc:
        raise ValueError(
            f"{exc.args[0]!r} (U+{ord(exc.args[0]):04X}) is not one of GPT-2's 256 visible byte characters"
        ) from None


def normalize_text(text: str, form: str | None) -> str:
    """Apply a Unicode normalization form (``None`` or ``"NFC"``; ``"NFKC"``/``"NFD"``/``"NFKD"`` too).

    >>> normalize_text("cafe\\u0301", "NFC") == "caf\\u00e9"
    True
    """
    if form is None:
        return text
    form, metaspace = split_metaspace(form)
    if form is not None:
        form = form.upper()
        if form not in ("NFC", "NFD", "NFKC", "NFKD"):
            raise ValueError(
                f"unknown normalization {form!r}: use None, 'NFC', 'NFD', 'NFKC' or 'NFKD' (optionally "
                "followed by '+metaspace'), or 'metaspace'"
            )
        text = unicodedata.normalize(unicode_form(form), text)
    if metaspace:
        # SentencePiece-style: spaces become ▁ and the text starts with one (HF Metaspace, prepend "always")
        text = text.replace(" ", METASPACE_CHAR)
        if text and not text.startswith(METASPACE_CHAR):
            text = METASPACE_CHAR + text
    return text


#: SentencePiece's stand-in for a space (U+2581 LOWER ONE EIGHTH BLOCK)
METASPACE_CHAR = "\u2581"
#: the normalization suffix of a SentencePiece-style tokenizer ("NFKC+metaspace", or "metaspace" alone)
METASPACE = "metaspace"


def unicode_form(form: str) -> NormalForm:
    """``form`` as :func:`unicodedata.normalize` takes it (``"nfc"`` -> ``"NFC"``); ``ValueError`` when it
    is none of the four.

    >>> unicode_form("nfkc")
    'NFKC'
    """
    try:
        return _FORMS[form.upper()]
    except KeyError:
        raise ValueError(f"unknown Unicode normalization form {form!r}") from None


#: the Unicode normalization forms, as :func:`unicodedata.normalize` names them
NormalForm: TypeAlias = Literal["NFC", "NFD", "NFKC", "NFKD"]
_FORMS: dict[str, NormalForm] = {"NFC": "NFC", "NFD": "NFD", "NFKC": "NFKC", "NFKD": "NFKD"}


def split_metaspace(form: str | None) -> tuple[str | None, bool]:
    """``(Unicode form or None, whether spaces become ▁)`` of a normalization setting.

    >>> split_metaspace("NFKC+metaspace"), split_metaspace("metaspace"), split_metaspace("NFC")
    (('NFKC', True), (None, True), ('NFC', False))
    """
    if form is None:
        return None, False
    if form == METASPACE:
        return None, True
    if form.endswith("+" + METASPACE):
        return form[: -len(METASPACE) - 1], True
    return form, False


def hf_rank_table() -> dict[int, int]:
    """Byte value -> its id in a Hugging Face ``tokenizers`` byte-level BpeTrainer.

    HF gives the 256 byte tokens ids in the order of their visible characters sorted by code point
    (``!`` first, ``Ġ`` for space far later), so among tied counts it prefers pairs in that order.

    >>> table = hf_rank_table()
    >>> table[ord("!")], table[ord("a")] < table[ord(" ")]
    (0, True)
    """
    order = sorted(range(256), key=lambda b: BYTE_TO_CHAR[b])
    return {b: rank for rank, b in enumerate(order)}


def char_groups(pieces: Sequence[bytes]) -> list[tuple[int, int]]:
    """Consecutive byte pieces (a text's tokens, in order) in runs that hold whole UTF-8 characters:
    ``(first, last)`` index pairs covering every piece once, in order. A piece that ends inside a
    character runs on into the pieces that complete it: the next piece then starts with a continuation
    byte (``10xxxxxx``). A byte-level tokenizer splits characters (emoji, CJK) this way; drawn per group,
    each character shows whole.

    >>> "é".encode(), char_groups([b"\\xc3", b"\\xa9a", b"b"])
    (b'\\xc3\\xa9', [(0, 1), (2, 2)])
    >>> char_groups([b"\\xf0\\x9f", b"\\x91", b"\\x8d", b" "])    # 👍 in three tokens, then a space
    [(0, 2), (3, 3)]
    """
    groups: list[tuple[int, int]] = []
    i, n = 0, len(pieces)
    while i < n:
        j = i
        while j + 1 < n and pieces[j + 1][:1] and 0x80 <= pieces[j + 1][0] < 0xC0:
            j += 1
        groups.append((i, j))
        i = j + 1
    return groups
