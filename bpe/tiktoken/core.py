"""``tiktoken.core``: :class:`Encoding`, which builds a :class:`bpe.Tokenizer` from tiktoken's arguments.

>>> from bpe.tiktoken.core import Encoding
>>> enc = Encoding("tiny", pat_str=r"\\w+|\\s+|[^\\w\\s]+", special_tokens={"<|end|>": 257},
...                mergeable_ranks={bytes([b]): b for b in range(256)} | {b"ab": 256})
>>> enc.encode("abc<|end|>", allowed_special="all"), enc.n_vocab
([256, 99, 257], 258)
"""

from __future__ import annotations

from abc import ABCMeta
from typing import Any

from ..formats import tokenizer_from_ranks
from ..tokenizer import Tokenizer

__all__ = ["Encoding"]


class Encoding(metaclass=ABCMeta):  # noqa: B024  (an ABC for isinstance: Tokenizer is registered)
    """tiktoken's ``Encoding(name, *, pat_str, mergeable_ranks, special_tokens, explicit_n_vocab=None)``.

    Calling it returns a :class:`bpe.Tokenizer` in tiktoken's mode (``mode="ranks"``: ids are the ranks),
    which has every method of tiktoken's ``Encoding``; every :class:`bpe.Tokenizer` counts as an
    ``Encoding`` (``isinstance``). A tokenizer pickles with its state, a registry one by its name.
    """

    def __new__(
        cls,
        name: str,
        *,
        pat_str: str,
        mergeable_ranks: dict[bytes, int],
        special_tokens: dict[str, int],
        explicit_n_vocab: int | None = None,
    ) -> Any:
        """A :class:`bpe.Tokenizer` (``mode="ranks"``) from tiktoken's arguments; ``explicit_n_vocab`` is
        checked as tiktoken checks it."""
        if explicit_n_vocab:
            top = max(max(mergeable_ranks.values()), max(special_tokens.values(), default=0))
            if len(mergeable_ranks) + len(special_tokens) != explicit_n_vocab or top != explicit_n_vocab - 1:
                raise ValueError(
                    f"explicit_n_vocab={explicit_n_vocab}, but the encoding has "
                    f"{len(mergeable_ranks) + len(special_tokens)} tokens and ids up to {top}"
                )
        return tokenizer_from_ranks(mergeable_ranks, pattern=pat_str, special_tokens=special_tokens, name=name)


Encoding.register(Tokenizer)
