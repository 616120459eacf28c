"""Hugging Face ``tokenizers``' decoders for the BPE models of :mod:`bpe.hf_pipeline`: each maps the list of
token strings to a list of strings (HF's ``decode_chain``), joined at the end: ``ByteFallback``,
``Metaspace``, ``Fuse``, ``Strip``, ``Replace``, ``BPEDecoder``.

>>> FuseDecoder()(ByteFallbackDecoder()(["<0x68>", "<0x69>", "!"]))
['hi!']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .deadline import Deadline
from .hf_normalizers import Replace

__all__ = ["ByteFallbackDecoder", "MetaspaceDecoder", "FuseDecoder", "StripDecoder", "ReplaceDecoder", "BPEDecoder"]


def _byte_of(token: str) -> int | None:
    if len(token) == 6 and token.startswith("<0x") and token.endswith(">"):
        try:
            return int(token[3:5], 16)
        except ValueError:
            return None
    return None


@dataclass(frozen=True)
class ByteFallbackDecoder:
    """``ByteFallback``: runs of ``<0xNN>`` tokens back to text (invalid UTF-8: one U+FFFD per byte token)."""

    def __call__(self, tokens: list[str], deadline: Deadline | None = None) -> list[str]:
        """``tokens`` after this decoder step (as Hugging Face tokenizers does it)."""
        out: list[str] = []
        pending: list[int] = []

        def flush() -> None:
            try:
                out.append(bytes(pending).decode("utf-8"))
            except UnicodeDecodeError:
                out.extend("\ufffd" for _ in pending)  # one U+FFFD per byte token, as HF
            pending.clear()

        for t in tokens:
            b = _byte_of(t)
            if b is not None:
                pending.append(b)
                continue
            if pending:
                flush()
            out.append(t)
        if pending:
            flush()
        return out


@dataclass(frozen=True)
class MetaspaceDecoder:
    """``Metaspace`` decoder: ``▁`` back to spaces; the first token loses its ``▁`` unless the scheme is never."""

    replacement: str = "▁"
    prepend_scheme: str = "always"

    def __call__(self, tokens: list[str], deadline: Deadline | None = None) -> list[str]:
        """``tokens`` after this decoder step (as Hugging Face tokenizers does it)."""
        out = []
        for i, t in enumerate(tokens):
            if i == 0 and self.prepend_scheme != "never":
                out.append(t.replace(self.replacement, ""))  # HF drops every replacement of the first token
            else:
                out.append(t.replace(self.replacement, " "))
        return out


@dataclass(frozen=True)
class FuseDecoder:
    """``Fuse``: all tokens joined into one string."""

    def __call__(self, tokens: list[str], deadline: Deadline | None = None) -> list[str]:
        """``tokens`` after this decoder step (as Hugging Face tokenizers does it)."""
        return ["".join(tokens)]


@dataclass(frozen=True)
class StripDecoder:
    """``Strip``: up to ``start`` leading and ``stop`` trailing ``content`` characters off each token."""

    content: str
    start: int
    stop: int

    def __call__(self, tokens: list[str], deadline: Deadline | None = None) -> list[str]:
        """``tokens`` after this decoder step (as Hugging Face tokenizers does it)."""
        out = []
        for t in tokens:
            chars = list(t)
            lead = 0
            while lead < min(self.start, len(chars)) and chars[lead] == self.content:
                lead += 1
            trail = 0
            while trail < min(self.stop, len(chars) - lead) and chars[len(chars) - 1 - trail] == self.content:
                trail += 1
            out.append("".join(chars[lead : len(chars) - trail]))
        return out


@dataclass(frozen=True)
class ReplaceDecoder:
    """``Replace`` decoder: ``pattern`` (a literal, or a :class:`~bpe.hf_regex.FileRegex`, stopped at the
    decode's deadline) replaced by ``content`` in each token."""

    pattern: Any
    content: str

    def __call__(self, tokens: list[str], deadline: Deadline | None = None) -> list[str]:
        """``tokens`` after this decoder step (as Hugging Face tokenizers does it)."""
        return Replace(self.pattern, self.content).many(tokens, deadline)


@dataclass(frozen=True)
class BPEDecoder:
    """``BPEDecoder``: the end-of-word suffix becomes a space (nothing after the last token)."""

    suffix: str = "</w>"

    def __call__(self, tokens: list[str], deadline: Deadline | None = None) -> list[str]:
        """``tokens`` after this decoder step (as Hugging Face tokenizers does it)."""
        n = len(tokens)
        return [t.replace(self.suffix, "" if i == n - 1 else " ") for i, t in enumerate(tokens)]
