"""Pre-tokenizer patterns: what one is (:class:`Pattern`: its regex stages, source, one note per top-level
alternation branch) and the registry compiled (:data:`PATTERNS`, from the data in
:mod:`bpe.pattern_registry`); :func:`get_pattern` turns a name, an alias or any regex into one. Cutting text
with a pattern is :mod:`bpe.splitting`'s job.

No merge ever crosses a chunk boundary, so the pattern decides what a token *can* be: with GPT-4's
pattern `` dog`` and ``.`` are separate chunks, so no token ``dog.`` can be learned.

>>> get_pattern("gpt4").name, get_pattern("cl100k_base").name, len(get_pattern("deepseek_v3").stages)
('gpt4', 'gpt4', 3)
"""
from __future__ import annotations

import re as _stdlib_re
from dataclasses import dataclass, field
from typing import Any, Sequence

import regex

from .pattern_registry import ALIASES, BRANCH_KINDS, REGISTRY, branch_kind
from .regex_syntax import expanded_size, top_level_branches

__all__ = ["Pattern", "ALIASES", "PATTERNS", "PatternError", "PatternTimeout", "get_pattern", "BRANCH_KINDS",
           "branch_kind", "MAX_PATTERN_CHARS", "MAX_PATTERN_SIZE", "check_size"]

#: Longest custom pattern accepted, in characters.
MAX_PATTERN_CHARS = 10_000
#: Largest custom pattern accepted, in :func:`bpe.regex_syntax.expanded_size` units (counted repeats written
#: out): ``regex`` would compile ``a{1000000000}`` -- 14 characters -- into gigabytes. 50,000 units compile to
#: at most ~40 MB (measured), and the GPT-4 pattern is 36 units.
MAX_PATTERN_SIZE = 50_000
#: Custom patterns kept compiled, in units in all (the registry's are always kept): ~200 MB at most.
MAX_CACHED_SIZE = 4 * MAX_PATTERN_SIZE


class PatternError(ValueError):
    """A pre-tokenizer pattern that cannot be used (does not compile, unknown name)."""


class PatternTimeout(PatternError):
    """Matching took longer than the allowed time: usually catastrophic backtracking."""


@dataclass(frozen=True)
class Pattern:
    """A named pre-tokenizer: one regex, or several applied one after another (DeepSeek-V3).

    ``stages`` holds the regex strings. With one stage, chunks are the regex's matches (as tiktoken does);
    text between matches is kept as its own chunk and reported as unmatched. With several stages, each
    stage splits every piece of the previous one, keeping the text between matches as pieces
    (Hugging Face ``Split(behavior="Isolated")``).

    >>> p = get_pattern("gpt2")
    >>> p.name, len(p.stages), p.branches[1]
    ('gpt2', 1, (0, 1, ' ?\\\\p{L}++'))
    >>> p.describe_branch(1)
    'a run of letters, with an optional leading space'
    """

    name: str
    label: str
    stages: tuple[str, ...]
    source: str = ""
    summary: str = ""
    #: one sentence per top-level branch, stage after stage (flattened)
    branch_notes: tuple[str, ...] = ()
    custom: bool = False
    _compiled: tuple[Any, ...] = field(default=(), repr=False, compare=False)
    _branches: tuple[Any, ...] = field(default=(), repr=False, compare=False)

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled by name (or, custom, by its regex) and compiled again on the other side.
        return (get_pattern, (self.regex if self.custom else self.name,))

    @property
    def regex(self) -> str:
        """The pattern as one string (stages joined by a newline for multi-stage patterns)."""
        return "\n".join(self.stages)

    @property
    def branches(self) -> tuple[tuple[int, int, str], ...]:
        """``(stage, index in stage, branch regex)`` for every top-level alternation branch."""
        return tuple((s, i, b) for s, i, b, _ in self._branches)

    def describe_branch(self, branch: int) -> str:
        """The note for a flattened branch index, or the branch's regex when there is no note."""
        if 0 <= branch < len(self.branch_notes) and self.branch_notes[branch]:
            return self.branch_notes[branch]
        if 0 <= branch < len(self._branches):
            return f"matches {self._branches[branch][2]}"
        return "no branch matched this text"

    def branch_kind(self, branch: int) -> str | None:
        """What a flattened branch does, one of :data:`BRANCH_KINDS` (from its note; ``None`` for a custom
        pattern's branches, which have no notes).

        >>> [get_pattern("gpt2").branch_kind(i) for i in range(4)]
        ['contraction', 'letters', 'digits', 'punctuation']
        """
        if 0 <= branch < len(self.branch_notes) and self.branch_notes[branch]:
            return branch_kind(self.branch_notes[branch])
        return None


_GLOBAL_FLAGS = _stdlib_re.compile(r"^\(\?[aiLmsuxV0-9]+\)")


def _compile(pattern: str, *, cache: bool = True) -> "regex.Pattern[str]":
    try:
        # a custom pattern stays out of regex's own cache (500 patterns, unbounded in bytes): ours is bounded
        return regex.compile(pattern, flags=regex.V1, cache_pattern=cache)
    except regex.error as exc:
        pos, msg = getattr(exc, "pos", None), getattr(exc, "msg", str(exc))
        where = f" at position {pos}" if pos is not None else ""
        raise PatternError(f"the pattern does not compile: {msg}{where}") from None
    except (TypeError, OverflowError, RecursionError) as exc:
        raise PatternError(f"the pattern does not compile: {exc}") from None


def _build(name: str, label: str, stages: Sequence[str], *, source: str = "", summary: str = "",
           notes: Sequence[str] = (), custom: bool = False) -> Pattern:
    if not stages or any(not isinstance(s, str) for s in stages):
        raise PatternError("a pattern must be a non-empty regex string")
    compiled = tuple(_compile(s, cache=not custom) for s in stages)
    flat = []
    for s, stage in enumerate(stages):
        prefix_match = _GLOBAL_FLAGS.match(stage)
        prefix = prefix_match.group(0) if prefix_match else ""
        body = stage[len(prefix):]
        for i, branch in enumerate(top_level_branches(body)):
            try:
                flat.append((s, i, branch, regex.compile(prefix + branch, flags=regex.V1, cache_pattern=not custom)))
            except regex.error:
                # A branch that only compiles in context (e.g. a backreference to another branch):
                # fall back to the whole stage, so branch attribution says "stage matched".
                flat = [x for x in flat if x[0] != s]
                flat.append((s, 0, body, compiled[s]))
                break
    return Pattern(name=name, label=label, stages=tuple(stages), source=source, summary=summary,
                   branch_notes=tuple(notes), custom=custom, _compiled=compiled, _branches=tuple(flat))


#: name -> :class:`Pattern`, in display order.
PATTERNS: dict[str, Pattern] = {}
for _spec in REGISTRY:
    PATTERNS[_spec["name"]] = _build(**_spec)


def get_pattern(pattern: "str | Pattern") -> Pattern:
    """A registry name, an alias or any regex string -> :class:`Pattern`.

    >>> get_pattern("gpt4").label
    'GPT-4 (cl100k)'
    >>> get_pattern(r"\\w+|\\W").custom
    True

    Raises :class:`PatternError` with the regex's own complaint, in words, if it does not compile.
    """
    if isinstance(pattern, Pattern):
        return pattern
    if not isinstance(pattern, str):
        raise PatternError(f"a pattern must be a registry name or a regex string, not {type(pattern).__name__}")
    key = pattern.strip().lower()
    if key in PATTERNS:
        return PATTERNS[key]
    if key in ALIASES:
        return PATTERNS[ALIASES[key]]
    if pattern == "":
        raise PatternError("the pattern is empty: use None for no pre-tokenizer")
    return _custom(pattern)


_custom_cache: dict[str, tuple[Pattern, int]] = {}   # pattern -> (entry, its size), oldest first


def check_size(pattern: str) -> int:
    """The pattern's :func:`~bpe.regex_syntax.expanded_size`, or :class:`PatternError` saying why it is refused
    (longer than :data:`MAX_PATTERN_CHARS`, or larger than :data:`MAX_PATTERN_SIZE` once its counted repeats are
    written out) -- before anything is compiled.

    >>> check_size(r"\\p{L}{1,3}")
    4
    >>> check_size("a{1000000000}")
    Traceback (most recent call last):
    ...
    bpe.patterns.PatternError: the pattern is too large to compile: its counted repeats ({n} and {m,n}) write it out to at least 1,000,000,001 units, and the limit is 50,000 (a{1000} alone is 1,001)
    """
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternError(f"the pattern is longer than {MAX_PATTERN_CHARS:,} characters")
    size = expanded_size(pattern, stop_above=MAX_PATTERN_SIZE)
    if size > MAX_PATTERN_SIZE:
        raise PatternError(f"the pattern is too large to compile: its counted repeats ({{n}} and {{m,n}}) write it "
                           f"out to at least {size:,} units, and the limit is {MAX_PATTERN_SIZE:,} (a{{1000}} alone "
                           f"is 1,001)")
    return size


def _custom(pattern: str) -> Pattern:
    if pattern in _custom_cache:
        entry, size = _custom_cache.pop(pattern)
        _custom_cache[pattern] = (entry, size)      # most recently used last
        return entry
    size = check_size(pattern)
    entry = _build("custom", "Custom", [pattern], source="typed by you", summary="Your own pattern.",
                   custom=True)
    _custom_cache[pattern] = (entry, 2 * size + 1)   # the whole pattern and its branches
    while len(_custom_cache) > 64 or sum(s for _, s in _custom_cache.values()) > MAX_CACHED_SIZE:
        del _custom_cache[next(iter(_custom_cache))]
    return entry
