"""Hugging Face ``tokenizers``' normalizers for the BPE models of :mod:`bpe.hf_pipeline`: each maps a text to
a text (``NFC``..., ``Lowercase``, ``Prepend``, ``Replace``, ``Strip``), as the Rust step of the same name does.

>>> Replace(" ", "▁")(Prepend(" ")("a b"))
'▁a▁b'
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

from .deadline import Deadline
from .hf_regex import FileRegex

__all__ = ["NormalizationForm", "Lowercase", "Prepend", "Replace", "Strip", "WHITE_SPACE"]

# Rust's char::is_whitespace (the White_Space property); Python's str.isspace adds U+001C..U+001F.
WHITE_SPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


@dataclass(frozen=True)
class NormalizationForm:
    """A Unicode normalization form (``NFC``, ``NFD``, ``NFKC``, ``NFKD``)."""

    form: str

    def __call__(self, text: str, deadline: Deadline | None = None) -> str:
        """``text`` after this normalizer step (as Hugging Face tokenizers does it)."""
        return unicodedata.normalize(self.form, text)


@dataclass(frozen=True)
class Lowercase:
    """``Lowercase``: each character lowercased on its own, as Rust's ``char::to_lowercase``."""

    def __call__(self, text: str, deadline: Deadline | None = None) -> str:
        """``text`` after this normalizer step (as Hugging Face tokenizers does it)."""
        # Rust lowercases char by char (no final-sigma rule, unlike str.lower() on a whole word)
        return "".join(c.lower() for c in text) if not text.isascii() else text.lower()


@dataclass(frozen=True)
class Prepend:
    """``Prepend``: ``prepend`` before a text that is not empty (Llama 2's ``▁``)."""

    prepend: str

    def __call__(self, text: str, deadline: Deadline | None = None) -> str:
        """``text`` after this normalizer step (as Hugging Face tokenizers does it)."""
        return self.prepend + text if text else text


@dataclass(frozen=True)
class Replace:
    """``Replace``: a literal string, or a regex from the file (a :class:`~bpe.hf_regex.FileRegex`, stopped at
    the request's deadline), by ``content``."""

    pattern: Any
    content: str

    def __call__(self, text: str, deadline: Deadline | None = None) -> str:
        """``text`` after this normalizer step (as Hugging Face tokenizers does it)."""
        if isinstance(self.pattern, str):
            return text.replace(self.pattern, self.content) if self.pattern else text
        return self.many([text], deadline)[0]

    def many(self, texts: list[str], deadline: Deadline | None = None) -> list[str]:
        """Each of ``texts`` after this step, in one go (one runner job for a regex from the file)."""
        if isinstance(self.pattern, str):
            return [t.replace(self.pattern, self.content) if self.pattern else t for t in texts]
        if isinstance(self.pattern, FileRegex):
            return self.pattern.sub(self.content, texts, deadline)
        return [self.pattern.sub(lambda m: self.content, t) for t in texts]


@dataclass(frozen=True)
class Strip:
    """``Strip``: whitespace (Rust's ``char::is_whitespace``) removed at the left and/or right end."""

    left: bool = True
    right: bool = True

    def __call__(self, text: str, deadline: Deadline | None = None) -> str:
        """``text`` after this normalizer step (as Hugging Face tokenizers does it)."""
        if self.left:
            text = text.lstrip("".join(WHITE_SPACE))
        if self.right:
            text = text.rstrip("".join(WHITE_SPACE))
        return text
