"""Reading regex source text: where a character class ends, where the top-level alternation splits.

Pattern strings are scanned, not compiled, so the pre-tokenizer registry can name each top-level branch
(:mod:`bpe.patterns`) and the Oniguruma rewrite can find atoms (:mod:`bpe.formats.onig`). Escapes,
character classes (nested sets of ``regex.V1`` too) and groups are understood.

>>> top_level_branches(r"a|[|]|(b|c)")
['a', '[|]', '(b|c)']

:func:`expanded_size` bounds what a pattern costs to compile before it is compiled: the ``regex`` module
writes a counted repeat ``x{1000}`` out as 1,000 copies of ``x``, so a 20-byte ``a{1000000000}`` would take
gigabytes (:func:`bpe.patterns.get_pattern` refuses it first).
"""
from __future__ import annotations

import re
from typing import Iterator

__all__ = ["top_level_branches", "class_end", "expanded_size"]


def top_level_branches(pattern: str) -> list[str]:
    """Cut a regex at its top-level ``|`` (outside groups and character classes).

    >>> top_level_branches(r"'s|[a-z]+|(x|y)|[|]")
    ["'s", '[a-z]+', '(x|y)', '[|]']
    """
    branches: list[str] = []
    depth = 0          # parentheses
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
    nor inside a character class."""
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
        elif c == "[":
            i = class_end(pattern, i)
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


_COUNTED = re.compile(r"\{\s*([0-9]*)\s*(?:(,)\s*([0-9]*)\s*)?\}")
_BIG = 10 ** 9           # a count of more than 9 digits (never parsed: no int() of a 5,000-digit string)


def _count(digits: str) -> int:
    return _BIG if len(digits) > 9 else int(digits or 0)


def expanded_size(pattern: str, *, stop_above: int = 10 ** 12) -> int:
    """An upper estimate of a pattern's compiled size, in *units* (one a character, class or escape), with
    every counted repeat written out: ``x{m,n}`` costs ``max(m, n)`` times ``x`` (``max(m, 1)`` when unbounded),
    so nested repeats multiply. ``*``, ``+`` and ``?`` add one unit (nothing is written out for them).
    Measured with ``regex`` 2026.5: 100,000 units compile to about 25-80 MB, so the estimate is what to bound.

    Scanning stops once the size passes ``stop_above`` (the result is then only known to be larger).

    >>> expanded_size("abc"), expanded_size(r"\\p{L}+"), expanded_size("a{1000}")
    (3, 2, 1001)
    >>> expanded_size("(a{1000}){1000}") > 1_000_000, expanded_size("a{1000000000}") >= 10 ** 9
    (True, True)
    >>> expanded_size("a{,x}")   # not a counted repeat: literal characters
    5
    """
    frames: list[list[int]] = [[0, 0]]   # per open group: [size so far, size of its last item]
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        frame = frames[-1]
        if c == "\\":
            j = i + 2
            if j <= n and pattern[i + 1:i + 2] in ("p", "P", "N", "x", "u", "U", "g") and pattern[j:j + 1] == "{":
                close = pattern.find("}", j)
                j = n if close < 0 else close + 1
            frame[0] += 1
            frame[1] = 1
            i = j
            continue
        if c == "[":
            frame[0] += 1
            frame[1] = 1
            i = class_end(pattern, i)
            continue
        if c == "(":
            frames.append([0, 0])
        elif c == ")" and len(frames) > 1:
            inner = frames.pop()
            parent = frames[-1]
            parent[0] += inner[0] + 1
            parent[1] = inner[0] + 1
        elif c == "|":
            frame[1] = 0
        elif c in "*+?":
            if frame[1]:           # a repeat (or its lazy/possessive mark): one node more
                frame[0] += 1
                frame[1] += 1
        elif c == "{" and (m := _COUNTED.match(pattern, i)) and frame[1] and (m.group(1) or m.group(3)):
            low = _count(m.group(1))
            high = _count(m.group(3)) if m.group(2) else low
            times = max(low, high if m.group(3) else 0, 1)
            grown = frame[1] * times + 1
            frame[0] += grown - frame[1]
            frame[1] = grown
            i = m.end()
            if frame[0] > stop_above:
                return frame[0]
            continue
        else:
            frame[0] += 1
            frame[1] = 1
        if frame[0] > stop_above:
            return frame[0]
        i += 1
    while len(frames) > 1:   # unclosed groups (the compiler will refuse them): count what is there
        inner = frames.pop()
        frames[-1][0] += inner[0] + 1
    return frames[0][0]
