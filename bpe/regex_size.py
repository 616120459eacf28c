"""What a regex costs to compile, read with the ``regex`` module's own parser, before it is compiled.

The ``regex`` module writes a counted repeat out in full when it compiles: ``a{1000000}`` takes ~250 MB and
a 20-byte ``a{1000000000}`` gigabytes. :func:`compiled_size` bounds that cost from the *parse tree* of the
pattern -- the tree the compiler itself would build -- so comments (``(?#...)``), verbose mode (``(?x)``,
scoped ``(?x:...)``, ``#`` to the end of the line), escapes, nested sets of the V1 syntax, flags and every
syntax the module accepts are read exactly as the compiler reads them (an earlier textual scanner took a
``[`` inside a comment for a character class and missed ``a{100000000}``). Parsing is pure Python and
linear in the pattern's length; nothing is written out.

The size is in *units*: one a node of the tree (a character, a set member, a group, a repeat...; five a
case-insensitive node or a grapheme ``\\X``, 96 a case-insensitive property or set holding one); a counted
repeat ``x{m,n}`` costs ``1 + max(m, n, 1)`` times ``x`` (so nested repeats multiply), and a pattern with
group calls (``(?1)``, ``(?R)``, ``(?&name)``) is counted 5 times (the compiler adds up to 4 copies of a
called group); a repeated empty capture group (``(){n}``) adds ``n * n / 200``: the compiler takes time
quadratic in ``n`` for it. Measured with ``regex`` 2026.5 (``a{N}``: ~270 bytes a unit; the property test
``tests/test_regex_guard.py``): compiling costs at most :data:`BYTES_PER_UNIT` bytes a unit plus a few MB.

>>> compiled_size("abc"), compiled_size(r"\\p{L}{1,3}"), compiled_size("a{1000}")
(4, 5, 1002)
>>> compiled_size("(?#[)a{100000000}(?#])") > 10 ** 8, compiled_size("(?x)a#[\\n{100000000}#]") > 10 ** 8
(True, True)
>>> compiled_size("(?x) a  # a comment [ { \\n b") == compiled_size("ab")
True
"""

from __future__ import annotations

import regex
from regex import _regex_core as _core

__all__ = ["compiled_size", "parse_flags", "BYTES_PER_UNIT"]

#: Bytes of memory one unit of :func:`compiled_size` may take to compile (peak, measured: ~250 for a
#: repeated character, less for anything else), with headroom.
BYTES_PER_UNIT = 1024

_REPEAT = _core.GreedyRepeat  # LazyRepeat and PossessiveRepeat are subclasses
_GROUP = _core.Group
_SEQUENCE = _core.Sequence
#: ``(){n}``: n * n / this many units more (the limit of 50,000 units then allows n ~ 3,000: ~0.1 s)
_EMPTY_GROUP_DIVISOR = 200
_CALLS = tuple(c for c in (getattr(_core, "CallGroup", None), getattr(_core, "CallRef", None)) if c)
_NODE = _core.RegexBase
#: a case-insensitive node compiles to its case variants (full case folding: ``ß`` also matches ``ss``), a
#: grapheme ``\\X`` to a small program: such a node counts this many units (measured: up to 4.3)
_WEIGHT = 5
_HEAVY = tuple(c for c in (getattr(_core, "Grapheme", None),) if c)
_SET = _core.SetBase
_PROPERTY = _core.Property
#: a case-insensitive set holding a property (``(?i)[\\p{L}\\d]``), or a case-insensitive property that the
#: optimiser may merge into one (``(?i:\\w|b)``), compiles to its case closure written out: ~25-55 KB each
#: copy (measured; found by the property test)
_CASELESS_PROPERTY_SET = 96
#: the compiler compiles a called group again for each (reverse, fuzzy) use: at most 4 copies more
_CALL_FACTOR = 5


def _parse(pattern: str, flags: int):
    """``(tree, info)`` as :func:`regex.compile` parses ``pattern`` (same retry for global inline flags, same
    checks of conflicting flags); raises what the compiler would: ``regex.error`` or ``ValueError``."""
    global_flags = flags
    for _ in range(8):  # the compiler retries once per global inline flag group found late; a few at most
        try:
            source = _core.Source(pattern)
            info = _core.Info(global_flags, source.char_type, {})
        except KeyError:  # both VERSION0 and VERSION1 (``(?V0)`` in a V1 pattern): the module's own KeyError
            raise ValueError("VERSION0 and VERSION1 flags are mutually incompatible") from None
        info.guess_encoding = _core.UNICODE
        source.ignore_space = bool(info.flags & _core.VERBOSE)
        try:
            tree = _core._parse_pattern(source, info)
            break
        except _core._UnscopedFlagSet:
            global_flags = info.global_flags
    else:
        raise ValueError("too many global flag groups")
    if not source.at_end():
        raise regex.error("unbalanced parenthesis", pattern, source.pos)
    version = info.flags & _core._ALL_VERSIONS
    if version not in (0, _core.VERSION0, _core.VERSION1):
        raise ValueError("VERSION0 and VERSION1 flags are mutually incompatible")
    if (info.flags & _core._ALL_ENCODINGS) not in (0, _core.ASCII, _core.LOCALE, _core.UNICODE):
        raise ValueError("ASCII, LOCALE and UNICODE flags are mutually incompatible")
    return tree, info


def parse_flags(pattern: str, flags: int = 0) -> int:
    """The flags ``pattern`` compiles with (its inline global flags added to ``flags``); raises as the
    compiler would (``regex.error``, ``ValueError`` for conflicting flags).

    >>> bool(parse_flags("(?x)a b") & regex.VERBOSE)
    True
    >>> parse_flags("(?a)(?u)x")
    Traceback (most recent call last):
    ...
    ValueError: ASCII, LOCALE and UNICODE flags are mutually incompatible
    """
    return _parse(pattern, flags)[1].flags


def _empty_groups(node: object) -> int:
    """How many capture groups ``node`` is made of when it is made of nothing else (``()``, ``(())``,
    ``(?:()(?#c))``); 0 when it matches anything or holds anything else."""
    if isinstance(node, _GROUP):
        inner = _empty_groups(node.subpattern)
        return 1 + inner if inner or _is_empty(node.subpattern) else 0
    if isinstance(node, _SEQUENCE):
        counts = [_empty_groups(item) for item in node.items if not _is_empty(item)]
        return sum(counts) if counts and all(counts) else 0
    return 0


def _is_empty(node: object) -> bool:
    return isinstance(node, _SEQUENCE) and all(_is_empty(item) for item in node.items)


def _has_property(node: object) -> bool:
    """Whether a set holds a property (``\\p{L}``, ``\\w``, ``\\d``...), at any depth."""
    if isinstance(node, _PROPERTY):
        return True
    return isinstance(node, _SET) and any(_has_property(item) for item in getattr(node, "items", ()))


def _size(node: object, calls: list) -> int:
    if isinstance(node, _REPEAT):
        high = node.max_count if isinstance(node.max_count, int) else 0
        times = max(node.min_count or 0, high, 1)
        # the compiler takes time (not memory) quadratic in the copies of a repeated empty capture group,
        # holding the GIL: (){10000} 1.3 s, (){20000} 7 s. Counted as units, so the limit bounds the time too.
        empty = _empty_groups(node.subpattern) * times
        return 1 + _size(node.subpattern, calls) * times + empty * empty // _EMPTY_GROUP_DIVISOR
    if isinstance(node, _CALLS):
        calls.append(node)
    caseless = (getattr(node, "case_flags", 0) or 0) & _core.IGNORECASE
    if caseless and (isinstance(node, _PROPERTY) or isinstance(node, _SET) and _has_property(node)):
        total = _CASELESS_PROPERTY_SET
    else:
        total = _WEIGHT if caseless or isinstance(node, _HEAVY) else 1
    for name, value in vars(node).items():
        if name != "_key":
            total += _value_size(value, calls)
    return total


def _value_size(value: object, calls: list) -> int:
    if isinstance(value, _NODE):
        return _size(value, calls)
    if isinstance(value, (list, tuple, set, frozenset)):
        # members of a set, branches, items; characters of a string (one unit each)
        return sum(_value_size(v, calls) if isinstance(v, (_NODE, list, tuple, set, frozenset)) else 1 for v in value)
    return 0


def compiled_size(pattern: str, flags: int = regex.V1) -> int:
    """An upper bound of what ``regex.compile(pattern, flags)`` costs, in units (see the module's note):
    at most :data:`BYTES_PER_UNIT` bytes each.

    Raises what compiling would raise for a pattern that does not compile (``regex.error``; ``ValueError``
    for conflicting flags such as ``(?a)(?u)`` or a count of thousands of digits; ``RecursionError`` for
    groups nested thousands deep).

    >>> compiled_size("(?:a{1000}){1000}") > 10 ** 6, compiled_size("(a{10})b"), compiled_size("(a{10})(?1)")
    (True, 15, 75)
    >>> compiled_size("a{,x}")   # not a counted repeat: literal characters
    6
    >>> compiled_size("(){10000}") > 500_000   # slow to compile: 1.3 s holding the GIL
    True
    """
    tree, info = _parse(pattern, flags)
    calls: list = []
    size = _size(tree, calls)
    if calls or getattr(info, "group_calls", None):
        size *= _CALL_FACTOR
    return size
