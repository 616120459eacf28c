"""``tiktoken.registry``: :func:`get_encoding` and :func:`list_encoding_names` over ``bpe``'s registry.

>>> list_encoding_names()
['gpt2', 'r50k_base', 'p50k_base', 'p50k_edit', 'cl100k_base', 'o200k_base', 'o200k_harmony']
"""

from __future__ import annotations

from ..encodings import OPENAI_ENCODINGS, get_encoding
from ..pretrained import is_installed

__all__ = ["get_encoding", "list_encoding_names"]


def list_encoding_names() -> list[str]:
    """tiktoken's encodings, installed here (``bpe.get_encoding`` loads every other registry name too)."""
    return [name for name in OPENAI_ENCODINGS if is_installed(name)]
