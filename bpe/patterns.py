"""Pre-tokenizers: the regexes that cut text into chunks before BPE sees it.

No merge ever crosses a chunk boundary, so the pattern decides what a token *can* be: with GPT-4's
pattern `` dog`` and ``.`` are separate chunks, so no token ``dog.`` can be learned.

The registry :data:`PATTERNS` maps a short name to a :class:`Pattern`: the exact regex string(s) as their
tokenizer ships them, where they come from, and one sentence per top-level alternation branch.
:func:`split` cuts text and tells, for every chunk, which branch matched it; text that no branch matched
is reported too (``regex.findall`` would silently drop it).

>>> [c.text for c in split("I'm here!", "gpt4")]
['I', "'m", ' here', '!']
>>> split("I'm here!", "gpt4")[1].branch
0
"""
from __future__ import annotations

import re as _stdlib_re
from dataclasses import dataclass, field
from typing import Iterator, Sequence

import regex

from .pattern_registry import ALIASES, REGISTRY
from .regex_syntax import top_level_branches

__all__ = [
    "Pattern", "Chunk", "SplitResult", "PATTERNS", "PatternError", "PatternTimeout",
    "get_pattern", "split", "pretokenize", "DEFAULT_TIMEOUT",
]

#: Seconds a custom pattern may spend on a short text before we give up (catastrophic backtracking);
#: longer texts get more (see :func:`default_timeout`).
DEFAULT_TIMEOUT = 2.0


def default_timeout(text: str) -> float:
    """The time limit for a custom pattern on ``text``: 2 s plus 4 s per million characters.

    >>> default_timeout("x" * 1_000_000)
    6.0
    """
    return DEFAULT_TIMEOUT + len(text) / 250_000


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
    _compiled: tuple = field(default=(), repr=False, compare=False)
    _branches: tuple = field(default=(), repr=False, compare=False)

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


@dataclass(frozen=True, slots=True)
class Chunk:
    """One piece of pre-tokenized text: ``text == source[start:end]``.

    ``branch`` is the flattened index of the alternation branch that matched it (see
    :attr:`Pattern.branches`), or ``None`` for text no branch matched. ``stage`` is the stage of that
    branch (always 0 for single-regex patterns). With several stages, the credit goes to the earliest
    stage that cut out exactly this chunk.

    >>> split("hi!", "gpt4")[1]
    Chunk(text='!', start=2, end=3, branch=3, stage=0)
    """

    text: str
    start: int
    end: int
    branch: int | None
    stage: int = 0


class SplitResult(Sequence[Chunk]):
    """The chunks of a text, in order, covering it entirely, plus what no branch matched.

    >>> res = split("ab 12", r"[a-z]+| ")
    >>> res.texts, res.unmatched, res.boundaries()
    (['ab', ' ', '12'], [(3, 5)], {2, 3})
    """

    def __init__(self, text: str, pattern: Pattern | None, chunks: list[Chunk]):
        self.text = text
        self.pattern = pattern
        self.chunks = chunks

    def __getitem__(self, i):  # type: ignore[override]
        return self.chunks[i]

    def __len__(self) -> int:
        return len(self.chunks)

    def __iter__(self) -> Iterator[Chunk]:
        return iter(self.chunks)

    @property
    def unmatched(self) -> list[tuple[int, int]]:
        """``(start, end)`` spans of text that no branch of the pattern matched."""
        return [(c.start, c.end) for c in self.chunks if c.branch is None]

    @property
    def texts(self) -> list[str]:
        """The chunks' texts, in order (what :func:`pretokenize` returns)."""
        return [c.text for c in self.chunks]

    def boundaries(self) -> set[int]:
        """Character offsets where one chunk ends and the next begins."""
        return {c.end for c in self.chunks[:-1]}

    def __repr__(self) -> str:
        return f"SplitResult({self.texts!r})"


_GLOBAL_FLAGS = _stdlib_re.compile(r"^\(\?[aiLmsuxV0-9]+\)")


def _compile(pattern: str) -> "regex.Pattern[str]":
    try:
        return regex.compile(pattern, flags=regex.V1)
    except regex.error as exc:
        where = f" at position {exc.pos}" if getattr(exc, "pos", None) is not None else ""
        raise PatternError(f"the pattern does not compile: {exc.msg}{where}") from None
    except (TypeError, OverflowError, RecursionError) as exc:
        raise PatternError(f"the pattern does not compile: {exc}") from None


def _build(name: str, label: str, stages: Sequence[str], *, source: str = "", summary: str = "",
           notes: Sequence[str] = (), custom: bool = False) -> Pattern:
    if not stages or any(not isinstance(s, str) for s in stages):
        raise PatternError("a pattern must be a non-empty regex string")
    compiled = tuple(_compile(s) for s in stages)
    flat = []
    for s, stage in enumerate(stages):
        prefix_match = _GLOBAL_FLAGS.match(stage)
        prefix = prefix_match.group(0) if prefix_match else ""
        body = stage[len(prefix):]
        for i, branch in enumerate(top_level_branches(body)):
            try:
                flat.append((s, i, branch, regex.compile(prefix + branch, flags=regex.V1)))
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


_custom_cache: dict[str, Pattern] = {}


def _custom(pattern: str) -> Pattern:
    if pattern in _custom_cache:
        return _custom_cache[pattern]
    if len(pattern) > 10_000:
        raise PatternError("the pattern is longer than 10,000 characters")
    entry = _build("custom", "Custom", [pattern], source="typed by you", summary="Your own pattern.",
                   custom=True)
    if len(_custom_cache) > 64:
        _custom_cache.clear()
    _custom_cache[pattern] = entry
    return entry


# ----------------------------------------------------------------------------------------------------
# Splitting

def split(text: str, pattern: "str | Pattern | None", *, timeout: float | None = None) -> SplitResult:
    """Cut ``text`` with ``pattern`` into chunks that cover it completely, each with the branch that matched.

    ``pattern=None`` gives the whole text as one chunk. ``timeout`` (seconds, whole text) defaults to
    :data:`DEFAULT_TIMEOUT` for custom patterns and to no limit for registry patterns; running over it
    raises :class:`PatternTimeout`.

    >>> split("hello world", "gpt2").texts
    ['hello', ' world']
    >>> split("ab12", r"[a-z]+").unmatched
    [(2, 4)]
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    if pattern is None:
        return SplitResult(text, None, [Chunk(text, 0, len(text), None)] if text else [])
    entry = get_pattern(pattern)
    if timeout is None and entry.custom:
        timeout = default_timeout(text)
    pieces = [Chunk(text, 0, len(text), None)] if text else []
    try:
        for stage, compiled in enumerate(entry._compiled):
            new_pieces: list[Chunk] = []
            for piece in pieces:
                new_pieces.extend(_split_piece(text, piece, stage, compiled, entry, timeout))
            pieces = new_pieces
    except TimeoutError:
        raise PatternTimeout(
            f"the pattern took longer than {timeout:g} s on this text and was stopped "
            "(catastrophic backtracking? try possessive quantifiers like \\p{L}++ or atomic groups)"
        ) from None
    return SplitResult(text, entry, pieces)


def _split_piece(text: str, piece: Chunk, stage: int, compiled, entry: Pattern,
                 timeout: float | None) -> list[Chunk]:
    out: list[Chunk] = []
    sub = text[piece.start:piece.end]
    base = piece.start
    pos = 0
    for m in compiled.finditer(sub, timeout=timeout):
        s, e = m.span()
        if s == e:
            continue  # an empty match carries no text
        if s > pos:
            out.append(Chunk(sub[pos:s], base + pos, base + s, piece.branch, piece.stage))
        if s == 0 and e == len(sub) and piece.branch is not None:
            # An earlier stage already cut out exactly this piece (DeepSeek's CJK run, re-matched whole by
            # the word branch of stage 3): the earlier stage decided the cut, so it keeps the credit.
            out.append(piece)
        else:
            out.append(Chunk(m.group(), base + s, base + e,
                             _which_branch(entry, stage, sub, s, e, timeout), stage))
        pos = e
    if pos < len(sub):
        out.append(Chunk(sub[pos:], base + pos, base + len(sub), piece.branch, piece.stage))
    return out


def _which_branch(entry: Pattern, stage: int, sub: str, start: int, end: int,
                  timeout: float | None = None) -> int | None:
    """The first top-level branch that matches at ``start``: alternation tries branches in order, and
    nothing follows the alternation, so the first branch that matches is the one that did."""
    fallback = None
    for flat_index, (s, _i, _b, branch_re) in enumerate(entry._branches):
        if s != stage:
            continue
        m = branch_re.match(sub, start, timeout=timeout)
        if m is not None:
            if m.end() == end:
                return flat_index
            if fallback is None:
                fallback = flat_index
    return fallback


def pretokenize(text: str, pattern: "str | Pattern | None", *, timeout: float | None = None) -> list[str]:
    """The chunk texts of :func:`split` (same cut, same ``timeout`` rule), without branch attribution:
    the fast path training and encoding use.

    >>> pretokenize("dog dog. dog!", "gpt4")
    ['dog', ' dog', '.', ' dog', '!']
    >>> pretokenize("ab12", r"[a-z]+")   # text no branch matches is kept as a chunk of its own
    ['ab', '12']
    """
    if pattern is None:
        return [text] if text else []
    entry = get_pattern(pattern)
    if timeout is None and entry.custom:
        timeout = default_timeout(text)
    try:
        if len(entry._compiled) == 1:
            compiled = entry._compiled[0]
            if not entry.custom:
                # Registry patterns match every character, so findall loses nothing.
                return compiled.findall(text, timeout=timeout)
            out: list[str] = []
            pos = 0
            for m in compiled.finditer(text, timeout=timeout):
                s, e = m.span()
                if s == e:
                    continue
                if s > pos:
                    out.append(text[pos:s])
                out.append(m.group())
                pos = e
            if pos < len(text):
                out.append(text[pos:])
            return out
    except TimeoutError:
        raise PatternTimeout(
            f"the pattern took longer than {timeout:g} s on this text and was stopped "
            "(catastrophic backtracking? try possessive quantifiers like \\p{L}++ or atomic groups)"
        ) from None
    return split(text, entry, timeout=timeout).texts
