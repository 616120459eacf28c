"""The errors of reading and writing tokenizer files, in one place."""

from __future__ import annotations

__all__ = ["FormatError", "UnsupportedFormatError"]


class FormatError(ValueError):
    """A tokenizer file that cannot be read or written: missing, corrupt, or not what it claims.

    The message names the file as the caller named it (the path given, or the upload's name).
    """


class UnsupportedFormatError(FormatError):
    """A valid tokenizer file of a kind we do not support (WordPiece, Unigram, non-byte-level BPE...)."""
