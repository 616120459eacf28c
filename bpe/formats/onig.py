"""Regex dialects: Python ``regex`` (ours, tiktoken's fancy-regex) <-> Oniguruma (Hugging Face).

Hugging Face compiles ``Split`` patterns with Oniguruma (Ruby syntax), where ``X{1,3}+`` is *not*
possessive but means ``(?:X{1,3})+``, and ``$``/``^`` match at every line end/start. Exports rewrite our
patterns into an Oniguruma pattern with the same matches (:func:`to_onig`), imports rewrite the other way
(:func:`from_onig`). Shorthand classes keep each engine's own Unicode meaning: ``\\w`` includes the
zero-width joiner in ``regex`` but not in Oniguruma, so prefer ``\\p{L}``-style classes (as every registry
pattern does) in patterns meant for export.
"""

from __future__ import annotations

import re
from typing import Sequence

from ..patterns import PATTERNS, Pattern, PatternError, get_pattern
from ..regex_syntax import class_end
from .errors import UnsupportedFormatError

__all__ = ["to_onig", "from_onig", "pattern_from_onig"]

_INTERVAL = re.compile(r"\{\d+(?:,\d*)?\}")


def _rewrite(pattern: str, *, wrap: tuple[str, str], dollar: str, caret: str) -> str:
    """Rewrite every ``ATOM{n,m}+`` as ``wrap[0] + ATOM{n,m} + wrap[1]`` and every bare ``$`` and ``^``.

    A forward scan that knows where each atom (escape, class, group, character) starts; the rewrites are
    insertions before a position and replacements of one character, so nested ones compose.
    """
    inserts: dict[int, str] = {}
    replace: dict[int, str] = {}
    groups: list[int] = []
    last_atom: int | None = None
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            j = i + 2
            if pattern[i + 1 : i + 2] in ("p", "P", "x", "N", "u", "U", "k", "g") and pattern[j : j + 1] == "{":
                j = pattern.find("}", j) + 1 or n
            last_atom, i = i, j
        elif c == "[":
            last_atom, i = i, class_end(pattern, i)
        elif c == "(":
            groups.append(i)
            last_atom, i = None, i + 1
            prefix = _GROUP_PREFIX.match(pattern, i)  # (?:  (?i:  (?=  (?<name> ...
            if prefix:
                i = prefix.end()
        elif c == ")":
            last_atom, i = (groups.pop() if groups else None), i + 1
        elif c == "{" and last_atom is not None and (interval := _INTERVAL.match(pattern, i)):
            end = interval.end()
            if pattern[end : end + 1] == "+":
                inserts[last_atom] = wrap[0] + inserts.get(last_atom, "")
                replace[end] = wrap[1]
                end += 1
            last_atom, i = None, end
        elif c in "$^":
            replace[i] = dollar if c == "$" else caret
            last_atom, i = None, i + 1
        elif c in "*+?|":
            last_atom = last_atom if c != "|" else None
            i += 1
        else:
            last_atom, i = i, i + 1
    if not inserts and not replace:
        return pattern
    return "".join(inserts.get(k, "") + replace.get(k, ch) for k, ch in enumerate(pattern))


_GROUP_PREFIX = re.compile(r"\?(?:P?<[A-Za-z_]\w*>|[A-Za-z\-]*:|[=!>|]|<[=!])?")


def to_onig(pattern: str) -> str:
    """A Python-``regex`` pattern as an Oniguruma pattern with the same matches (for ``tokenizer.json``).

    ``X{n,m}+`` (possessive) becomes the atomic group ``(?>X{n,m})``; ``$`` (end, or before a final newline)
    becomes ``(?=\\n?\\z)``; ``^`` becomes ``\\A``.

    >>> to_onig(r"\\p{N}{1,3}+|\\s++$")
    '(?>\\\\p{N}{1,3})|\\\\s++(?=\\\\n?\\\\z)'
    """
    return _rewrite(pattern, wrap=("(?>", ")"), dollar=r"(?=\n?\z)", caret=r"\A")


def from_onig(pattern: str) -> str:
    """An Oniguruma (``tokenizer.json``) pattern as a Python-``regex`` pattern with the same matches.

    >>> from_onig(r"\\p{N}{1,3}+")
    '(?:\\\\p{N}{1,3})+'
    """
    return _rewrite(pattern, wrap=("(?:", ")+"), dollar="(?m:$)", caret="(?m:^)")


def pattern_from_onig(stages: Sequence[str]) -> Pattern:
    """The registry entry whose exported (Oniguruma) stages are exactly ``stages``, else a custom pattern."""
    for entry in PATTERNS.values():
        if tuple(stages) == tuple(to_onig(s) for s in entry.stages):
            return entry
    if len(stages) != 1:
        raise UnsupportedFormatError(
            f"{len(stages)} Split pre-tokenizers in a row are supported only for the registry's multi-stage "
            "patterns (deepseek_v3)"
        )
    try:
        return get_pattern(from_onig(stages[0]))
    except PatternError as exc:
        raise UnsupportedFormatError(f"the pre-tokenizer regex {stages[0]!r} cannot be used here: {exc}") from None
