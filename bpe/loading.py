"""``bpe.load`` / ``bpe.loads``: any tokenizer, by path, by name or from its files in memory.

This sits above both :mod:`bpe.formats` (which reads files) and :mod:`bpe.pretrained` (which knows the
real vocabularies): a pretrained name loads that vocabulary, and the official ``.tiktoken`` files
(``r50k_base``, ``p50k_base``, ``cl100k_base``, ``o200k_base``, Llama's ``tokenizer.model``, Qwen's) are
recognized by their sha256, so they get their model's pattern, special tokens and normalization even
without a ``bpe_lab.json`` next to them. Another ``.tiktoken`` file takes the ``pattern`` the caller names;
without one it is GPT-4's, with a :class:`~bpe.formats.AssumedPatternWarning` saying so.

>>> load("cl100k_base").encode("hello world")
[15339, 1917]
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from . import formats
from .formats.tiktoken import UNSET, _Unset
from .patterns import Pattern
from .pretrained import KNOWN_FILES, load_pretrained, resolve_name
from .tokenizer import Tokenizer

__all__ = ["load", "loads"]


def load(path: "str | Path", *, pattern: "str | Pattern | None | _Unset" = UNSET) -> Tokenizer:
    """Load a tokenizer from a file, a folder, or the name of a pretrained vocabulary.

    ``path`` is a ``tokenizer.json``, a ``.tiktoken`` file, a ``vocab.json`` or ``merges.txt``, a folder
    holding one of them (see :func:`bpe.formats.load`), or the name of a pretrained vocabulary
    (``"cl100k_base"``, ``"llama3"``, ``"qwen2.5"``...) when no such path exists (see
    :func:`bpe.load_pretrained`). ``pattern`` is the pre-tokenizer of a ``.tiktoken`` file that is neither
    known nor described by a ``bpe_lab.json`` (a registry name, a regex, or ``None``).
    """
    if isinstance(path, str) and resolve_name(path) is not None and not Path(path).exists():
        return load_pretrained(path)
    return formats.load(path, known=KNOWN_FILES, pattern=pattern)


def loads(files: Mapping[str, bytes], *, pattern: "str | Pattern | None | _Unset" = UNSET) -> Tokenizer:
    """A tokenizer from its files in memory, ``{file name: bytes}`` (see :func:`bpe.formats.loads`),
    recognizing the official cl100k/o200k ``.tiktoken`` files.

    >>> import bpe
    >>> tok = bpe.train("hug hug hugs", 260).tokenizer()
    >>> loads(bpe.dumps(tok, "tiktoken")).encode("hugs") == tok.encode("hugs")
    True
    """
    return formats.loads(files, known=KNOWN_FILES, pattern=pattern)
