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
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

import regex

from .deadline import Deadline, get_pattern_runner, in_process
from .pattern_registry import ALIASES, BRANCH_KINDS, REGISTRY, branch_kind
from .regex_size import compiled_size
from .regex_syntax import top_level_branches

__all__ = [
    "Pattern",
    "ALIASES",
    "PATTERNS",
    "PatternError",
    "PatternTimeout",
    "get_pattern",
    "BRANCH_KINDS",
    "branch_kind",
    "MAX_PATTERN_CHARS",
    "MAX_PATTERN_SIZE",
    "check_size",
    "compile_user",
    "probe_compile",
]

#: Longest custom pattern accepted, in characters.
MAX_PATTERN_CHARS = 10_000
#: Largest custom pattern accepted, in :func:`bpe.regex_size.compiled_size` units (counted repeats written
#: out): ``regex`` would compile ``a{1000000000}`` -- 14 characters -- into gigabytes. 50,000 units compile to
#: at most ~15 MB (measured; the bound allows 50 MB), and the GPT-4 pattern is 63 units.
MAX_PATTERN_SIZE = 50_000
#: Custom patterns kept compiled, in bytes in all (``sys.getsizeof`` of each compiled regex: what the
#: ``regex`` module really holds; the process's memory grows ~2.5x that): ~120 MB at most.
MAX_CACHED_BYTES = 48 * 2**20
#: Address space a compile may take where the pattern runner can bound it (:func:`probe_compile`): a pattern
#: within :data:`MAX_PATTERN_SIZE`, its branches too, needs at most ~100 MB by the bound.
PROBE_MEMORY = 512 * 2**20
#: Seconds a compile may take there (a pattern within the limits compiles in well under a second).
PROBE_SECONDS = 10.0
#: CPU seconds a compile may take there, or it is refused: the ``regex`` module compiles holding the GIL, so
#: a slow compile in the server would stop every session (a 50,000-unit pattern takes ~0.06 s).
PROBE_CPU_SECONDS = 1.0


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


def _does_not_compile(exc: BaseException) -> PatternError:
    """The one-line error for what ``regex`` raised (or our parse of the pattern, the same)."""
    if isinstance(exc, regex.error):
        where = f" at position {exc.pos}" if getattr(exc, "pos", None) is not None else ""
        return PatternError(f"the pattern does not compile: {exc.msg}{where}")
    if isinstance(exc, RecursionError):
        return PatternError("the pattern does not compile: its groups are nested too deeply")
    text = str(exc)
    if "VERSION0 and VERSION1" in text:
        text = "its flags conflict: (?V0) and (?V1) cannot be used together (patterns here are VERSION1)"
    elif "ASCII, LOCALE and UNICODE" in text:
        text = "its flags conflict: only one of (?a), (?L) and (?u) can be used"
    return PatternError(f"the pattern does not compile: {text}")


def _compile(pattern: str, *, cache: bool = True, flags: int = regex.V1) -> "regex.Pattern[str]":
    try:
        # a custom pattern stays out of regex's own cache (500 patterns, unbounded in bytes): ours is bounded
        compiled = regex.compile(pattern, flags=flags, cache_pattern=cache)
    except (regex.error, TypeError, ValueError, KeyError, OverflowError, RecursionError) as exc:
        raise _does_not_compile(exc) from None
    if not cache:  # regex remembers every pattern it compiles in a dict of its own (locale): not ours
        getattr(getattr(regex, "_main", None), "_locale_sensitive", {}).pop((type(pattern), pattern), None)
    return compiled


def _branch_sources(stage: str) -> tuple[str, str, list[str]]:
    """``(global flags prefix, body, top-level branches of the body)`` of one stage."""
    prefix_match = _GLOBAL_FLAGS.match(stage)
    prefix = prefix_match.group(0) if prefix_match else ""
    body = stage[len(prefix) :]
    return prefix, body, top_level_branches(body)


def _branch_fits(source: str) -> bool:
    """Whether a custom pattern's branch (``prefix + branch``, cut by reading the text) may be compiled: cut
    wrongly (a ``|`` in a verbose-mode comment) it could be larger than the whole; then it is not compiled."""
    try:
        check_size(source)
        return True
    except PatternError:
        return False


def _build(
    name: str,
    label: str,
    stages: Sequence[str],
    *,
    source: str = "",
    summary: str = "",
    notes: Sequence[str] = (),
    custom: bool = False,
) -> Pattern:
    if not stages or any(not isinstance(s, str) for s in stages):
        raise PatternError("a pattern must be a non-empty regex string")
    compiled = tuple(_compile(s, cache=not custom) for s in stages)
    flat = []
    for s, stage in enumerate(stages):
        prefix, body, branches = _branch_sources(stage)
        for i, branch in enumerate(branches):
            try:
                if custom and not _branch_fits(prefix + branch):
                    raise regex.error("too large")
                flat.append((s, i, branch, _compile(prefix + branch, cache=not custom)))
            except (regex.error, PatternError):
                # A branch that only compiles in context (e.g. a backreference to another branch):
                # fall back to the whole stage, so branch attribution says "stage matched".
                flat = [x for x in flat if x[0] != s]
                flat.append((s, 0, body, compiled[s]))
                break
    return Pattern(
        name=name,
        label=label,
        stages=tuple(stages),
        source=source,
        summary=summary,
        branch_notes=tuple(notes),
        custom=custom,
        _compiled=compiled,
        _branches=tuple(flat),
    )


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


_custom_cache: dict[str, tuple[Pattern, int]] = {}  # pattern -> (entry, its size), oldest first


def check_size(pattern: str, flags: int = regex.V1) -> int:
    """The pattern's :func:`~bpe.regex_size.compiled_size` (with ``flags``), or :class:`PatternError` saying why
    it is refused (longer than :data:`MAX_PATTERN_CHARS`, larger than :data:`MAX_PATTERN_SIZE` once its counted
    repeats are written out, or not a pattern ``regex`` compiles) -- before anything is compiled. The size is
    read from the ``regex`` module's own parse of the pattern: comments, verbose mode and every other syntax
    count as the compiler reads them.

    >>> check_size(r"\\p{L}{1,3}")
    5
    >>> check_size("a{1000000000}")
    Traceback (most recent call last):
    ...
    bpe.patterns.PatternError: the pattern is too large to compile: its counted repeats ({n} and {m,n}) write it out to at least 1,000,000,002 units, and the limit is 50,000 (a{1000} alone is 1,002)
    >>> check_size("(?#[)a{4000000}(?#])")
    Traceback (most recent call last):
    ...
    bpe.patterns.PatternError: the pattern is too large to compile: its counted repeats ({n} and {m,n}) write it out to at least 4,000,002 units, and the limit is 50,000 (a{1000} alone is 1,002)
    >>> check_size("(?a)(?u)x")
    Traceback (most recent call last):
    ...
    bpe.patterns.PatternError: the pattern does not compile: its flags conflict: only one of (?a), (?L) and (?u) can be used
    """
    if not isinstance(pattern, str):
        raise PatternError(f"a pattern must be a regex string, not {type(pattern).__name__}")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternError(f"the pattern is longer than {MAX_PATTERN_CHARS:,} characters")
    try:
        size = compiled_size(pattern, flags)
    except ValueError as exc:
        if "digits" not in str(exc):  # a count of thousands of digits: int() refuses it (a huge count)
            raise _does_not_compile(exc) from None
        size = 10**9
    except (regex.error, TypeError, KeyError, OverflowError, RecursionError) as exc:
        raise _does_not_compile(exc) from None
    if size > MAX_PATTERN_SIZE:
        raise PatternError(
            f"the pattern is too large to compile: its counted repeats ({{n}} and {{m,n}}) write it "
            f"out to at least {size:,} units, and the limit is {MAX_PATTERN_SIZE:,} (a{{1000}} alone "
            f"is 1,002)"
        )
    return size


def probe_compile(sources: Sequence[str], flags: int, deadline: Deadline) -> list[tuple[int, float]]:
    """Compile each regex of ``sources`` (with ``flags``) and return, for each, what it holds in bytes
    (``sys.getsizeof``) and the CPU seconds its compile took: run by the pattern runner *before* the caller
    compiles them, where a runner that can bound memory and time does (``memory_budget``; BPE Lab's worker
    process, the CLI's own limit), so a pattern that costs more than :func:`check_size` says fails there, not
    in the caller's process."""
    out = []
    for source in sources:
        t0 = time.process_time()
        compiled = _compile(source, cache=False, flags=flags)
        out.append((sys.getsizeof(compiled), time.process_time() - t0))
    return out


#: what the work may allocate, for a runner that can bound it (see :func:`bpe.set_pattern_runner`)
probe_compile.memory_budget = PROBE_MEMORY


def _probe(sources: Sequence[str], flags: int) -> None:
    """:func:`probe_compile` through the pattern runner, unless that is the default (in this process, with
    no bound: compiling twice here would only cost twice). Errors in one sentence."""
    runner = get_pattern_runner()
    if runner is in_process:
        return
    deadline = Deadline(PROBE_SECONDS)
    try:
        measured = runner(probe_compile, (tuple(sources), flags), deadline)
    except MemoryError:
        raise PatternError(f"the pattern needs more than {PROBE_MEMORY // 2**20:,} MB to compile") from None
    except TimeoutError:
        raise PatternError(f"the pattern took longer than {PROBE_SECONDS:g} s to compile") from None
    slowest = max((seconds for _, seconds in measured), default=0.0)
    if slowest > PROBE_CPU_SECONDS:
        raise PatternError(
            f"the pattern takes too long to compile ({slowest:.1f} s; the limit is {PROBE_CPU_SECONDS:g} s)"
        )


def compile_user(pattern: str, *, flags: int = 0) -> "regex.Pattern[str]":
    """The one way a regex from outside (a ``tokenizer.json``'s Split / Replace, a user's box) is compiled:
    :func:`check_size` first, then compiled where the pattern runner can bound it (:func:`probe_compile`),
    then here, outside the ``regex`` module's own cache. :class:`PatternError` in one sentence otherwise.
    ``flags`` as ``regex.compile`` takes them (0: the module's default, VERSION0, as Hugging Face files are
    read).

    >>> compile_user(r"\\s+").sub("_", "a  b")
    'a_b'
    >>> compile_user("b{2000000}")
    Traceback (most recent call last):
    ...
    bpe.patterns.PatternError: the pattern is too large to compile: its counted repeats ({n} and {m,n}) write it out to at least 2,000,002 units, and the limit is 50,000 (a{1000} alone is 1,002)
    """
    check_size(pattern, flags)
    _probe((pattern,), flags)
    return _compile(pattern, cache=False, flags=flags)


def _cost(entry: Pattern) -> int:
    """What a custom pattern holds compiled, in bytes: the whole and its branches."""
    seen = {id(c): c for c in entry._compiled}
    seen.update((id(c), c) for *_, c in entry._branches)
    return sum(sys.getsizeof(c) for c in seen.values())


def _custom(pattern: str) -> Pattern:
    if pattern in _custom_cache:
        entry, size = _custom_cache.pop(pattern)
        _custom_cache[pattern] = (entry, size)  # most recently used last
        return entry
    check_size(pattern)
    prefix, _, branches = _branch_sources(pattern)
    _probe([pattern] + [prefix + b for b in branches if len(branches) > 1 and _branch_fits(prefix + b)], regex.V1)
    entry = _build("custom", "Custom", [pattern], source="typed by you", summary="Your own pattern.", custom=True)
    _custom_cache[pattern] = (entry, _cost(entry))
    while len(_custom_cache) > 64 or sum(s for _, s in _custom_cache.values()) > MAX_CACHED_BYTES:
        del _custom_cache[next(iter(_custom_cache))]
    return entry
