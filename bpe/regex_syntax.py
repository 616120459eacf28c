"""Reading regex source text: where a character class ends, where the top-level alternation splits.

Pattern strings are scanned, not compiled, so the pre-tokenizer registry can name each top-level branch
(:mod:`bpe.patterns`) and the Oniguruma rewrite can find atoms (:mod:`bpe.formats.onig`). Escapes,
character classes (nested sets of ``regex.V1`` too) and groups are understood.

>>> top_level_branches(r"a|[|]|(b|c)")
['a', '[|]', '(b|c)']

What a pattern costs to compile is *not* read here but from the ``regex`` module's own parse
(:mod:`bpe.regex_size`): a textual scanner is blind to what the compiler ignores (comments, verbose mode),
so a size read here would not be a bound.
"""

from __future__ import annotations

from typing import Iterator

__all__ = ["top_level_branches", "class_end"]


def top_level_branches(pattern: str) -> list[str]:
    """Cut a regex at its top-level ``|`` (outside groups and character classes).

    >>> top_level_branches(r"'s|[a-z]+|(x|y)|[|]")
    ["'s", '[a-z]+', '(x|y)', '[|]']
    """
    branches: list[str] = []
    depth = 0  # parentheses
    start = 0
    for i, c in _outside_classes(pattern):
        if c == "(":
            depth += 1
        elif c == ")":
            depth = max(0, depth - 1)
        elif c == "|" and depth == 0:
            branches.append(pattern[start:i])
            start = i + 1
    branches.append(pattern[start:])
    return branches


def _outside_classes(pattern: str) -> Iterator[tuple[int, str]]:
    """``(index, character)`` of every character of ``pattern`` that is neither escaped, part of an escape,
    inside a character class nor inside a ``(?#...)`` comment. (Verbose mode's ``#`` comments are not
    understood: a branch cut here is only a name for part of the pattern; what a pattern costs is read by
    the ``regex`` module's own parser, :mod:`bpe.regex_size`.)

    >>> top_level_branches("a(?#[|)|b")
    ['a(?#[|)', 'b']
    """
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
        elif c == "[":
            i = class_end(pattern, i)
        elif pattern.startswith("(?#", i):  # a comment: to its first ")", whatever it holds ("[", "|", "(")
            close = pattern.find(")", i + 3)
            i = n if close < 0 else close + 1
        else:
            yield i, c
            i += 1


def class_end(pattern: str, i: int) -> int:
    """Index just past the character class that opens at ``pattern[i] == "["``.

    Nested sets (``regex.V1``: ``[\\p{L}&&[^\\p{Han}]]``), escapes, ``[^`` and a literal ``]`` right after the
    opening are understood; an unclosed class runs to the end.

    >>> class_end("[a-z]+", 0), class_end("[]|]x", 0), class_end(r"[\\]a]b", 0)
    (5, 4, 5)
    """
    depth = 0
    j, n = i, len(pattern)
    while j < n:
        c = pattern[j]
        j += 2 if c == "\\" else 1
        if c == "[":
            depth += 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1  # a literal "]" right after the opening
        elif c == "]":
            depth -= 1
            if depth == 0:
                return j
    return n
