"""Special tokens in a text, with tiktoken's rules: which strings are allowed, refusing the others, and
cutting the text at the allowed ones.

A special token (``<|endoftext|>``) is a reserved id, not text: ``encode`` turns its string into that id only
when the caller allows it, and refuses a text holding a special-token string it did not allow, so a user's
text cannot smuggle one in. :meth:`bpe.Tokenizer.encode` and :func:`bpe.vocab_replay.replay` both cut texts
here.

>>> specials = {"<|endoftext|>": 100257}
>>> allowed = allowed_specials(specials, "all")
>>> cut_at_specials("hi<|endoftext|>there", allowed)
(['hi', 'there'], ['<|endoftext|>'])
>>> refuse_disallowed("hi<|endoftext|>", specials, set(), "all")
Traceback (most recent call last):
...
bpe.special_tokens.DisallowedSpecialError: the text contains the special token '<|endoftext|>'. To encode it as that special token pass allowed_special={'<|endoftext|>'}; to encode it as plain text pass disallowed_special=()
"""

from __future__ import annotations

import functools
from typing import AbstractSet, Collection, Literal, Mapping, TypeAlias, Union

import regex

from .corpus import special_splitter

__all__ = ["DisallowedSpecialError", "SpecialChoice", "allowed_specials", "refuse_disallowed", "cut_at_specials"]

#: How a caller names special tokens: a set of their strings, or ``"all"``.
SpecialChoice: TypeAlias = Union[AbstractSet[str], Literal["all"], Collection[str]]


class DisallowedSpecialError(ValueError):
    """The text contains a special-token string that was not allowed."""


def allowed_specials(special_tokens: Mapping[str, int], allowed_special: SpecialChoice) -> set[str]:
    """The special-token strings ``allowed_special`` names (``"all"``: every one); ``ValueError`` for a string
    that is not one of ``special_tokens``.

    >>> sorted(allowed_specials({"<s>": 1, "</s>": 2}, "all")), allowed_specials({"<s>": 1}, ["<s>"])
    (['</s>', '<s>'], {'<s>'})
    >>> allowed_specials({"<s>": 1}, ["<x>"])
    Traceback (most recent call last):
    ...
    ValueError: not special tokens of this tokenizer: ['<x>']
    """
    allowed = set(special_tokens) if allowed_special == "all" else set(allowed_special)
    unknown = allowed - set(special_tokens)
    if unknown:
        raise ValueError(f"not special tokens of this tokenizer: {sorted(unknown)}")
    return allowed


def refuse_disallowed(
    text: str, special_tokens: Mapping[str, int], allowed: AbstractSet[str], disallowed_special: SpecialChoice
) -> None:
    """Raise :class:`DisallowedSpecialError` if ``text`` holds a disallowed special-token string:
    ``disallowed_special="all"`` means every special token not in ``allowed``.

    >>> refuse_disallowed("a <s> b", {"<s>": 1}, set(), ())   # disallowing none: <s> is plain text
    """
    if disallowed_special == "all":
        disallowed = set(special_tokens) - set(allowed)
    else:
        disallowed = set(disallowed_special)
    if disallowed:
        splitter = special_splitter(sorted(disallowed))
        found = splitter.search(text) if splitter is not None else None
        if found:
            tok = found.group()
            raise DisallowedSpecialError(
                f"the text contains the special token {tok!r}. To encode it as that special token pass "
                f"allowed_special={{{tok!r}}}; to encode it as plain text pass disallowed_special=()"
            )


def cut_at_specials(text: str, specials: Collection[str]) -> tuple[list[str], list[str]]:
    """``(pieces, found)``: the text between the special-token strings ``specials`` (longest first where two
    overlap) and those strings in order; ``len(pieces) == len(found) + 1`` (pieces may be empty).

    >>> cut_at_specials("<s>a<s><s>", ["<s>"])
    (['', 'a', '', ''], ['<s>', '<s>', '<s>'])
    >>> cut_at_specials("x", [])
    (['x'], [])
    """
    splitter = _splitter(specials) if isinstance(specials, (tuple, frozenset)) else special_splitter(sorted(specials))
    pieces: list[str] = []
    found: list[str] = []
    pos = 0
    for m in splitter.finditer(text) if splitter is not None else ():
        pieces.append(text[pos : m.start()])
        found.append(m.group())
        pos = m.end()
    pieces.append(text[pos:])
    return pieces, found


@functools.lru_cache(maxsize=64)
def _splitter(specials: tuple[str, ...] | frozenset[str]) -> "regex.Pattern[str] | None":
    # (the regex of a tuple or frozenset, found again by it: an edit of a Tokenize column cuts a few hundred
    # characters with the same 1,000 strings of Mistral tekken's; sorting them every time took longer)
    return special_splitter(sorted(specials))
