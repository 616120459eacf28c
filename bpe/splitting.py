"""Cutting text with a pre-tokenizer pattern: :func:`split` gives :class:`Chunk` s that cover the text, each
with the branch that matched it (text no branch matched is reported too: ``regex.findall`` would silently
drop it); :func:`pretokenize` and :func:`pretokenize_pieces` give only the chunk texts, the fast path that
training and encoding use.

A request gets one deadline for all its text (:func:`request_deadline`); a custom pattern runs through the
pattern runner (:func:`bpe.deadline.set_pattern_runner`: in this process by default, stopped by the ``regex``
module's ``timeout=``), a registry pattern here, without a limit unless one is given (they are written not
to backtrack).

>>> [c.text for c in split("I'm here!", "gpt4")]
['I', "'m", ' here', '!']
>>> split("I'm here!", "gpt4")[1].branch
0
"""

from __future__ import annotations

from array import array
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator, Sequence, overload

from .deadline import Deadline, run_pattern
from .fast_split import Splitter, splitter
from .patterns import Pattern, PatternTimeout, get_pattern

__all__ = [
    "Chunk",
    "SplitResult",
    "split",
    "pretokenize",
    "pretokenize_pieces",
    "chunk_texts",
    "prepare_splitters",
    "DEFAULT_TIMEOUT",
    "default_timeout",
    "request_deadline",
    "timeout_error",
    "stopped_at",
]

#: Seconds a custom pattern may spend on a short text before we give up (catastrophic backtracking);
#: longer texts get more (see :func:`default_timeout`).
DEFAULT_TIMEOUT = 2.0


def default_timeout(text: "str | int") -> float:
    """The time limit for a custom pattern on ``text`` (or on that many characters): 2 s plus 4 s per
    million characters. One request (a training, a split, an encode) gets one such limit for all its text,
    however it is cut (documents, special tokens, stages).

    >>> default_timeout("x" * 1_000_000), default_timeout(250_000)
    (6.0, 3.0)
    """
    n = text if isinstance(text, int) else len(text)
    return DEFAULT_TIMEOUT + n / 250_000


def request_deadline(timeout: "float | Deadline | None", entry: "Pattern | None", n_chars: int) -> Deadline:
    """The one :class:`~bpe.deadline.Deadline` of a request on ``n_chars`` characters: ``timeout`` as
    given (seconds or a deadline already running), else :func:`default_timeout` for a custom pattern and
    none for a registry pattern (they are written not to backtrack).

    >>> request_deadline(None, get_pattern("gpt4"), 10).seconds is None
    True
    >>> request_deadline(None, get_pattern("[a-z]+"), 250_000).seconds
    3.0
    """
    if isinstance(timeout, Deadline):
        return timeout
    if timeout is None and entry is not None and entry.custom:
        timeout = default_timeout(n_chars)
    return Deadline(timeout)


def _left(deadline: Deadline) -> float | None:
    """Seconds a regex call may still take (the ``regex`` module's ``timeout=``); past the deadline, stop."""
    left = deadline.remaining()
    if left == 0.0:
        raise TimeoutError
    return left


def timeout_error(deadline: Deadline) -> "PatternTimeout":
    """The error for a pattern that ran past ``deadline``."""
    return PatternTimeout(
        f"the pattern took longer than {round(deadline.seconds or 0.0, 1):g} s on this text and was stopped "
        "(catastrophic backtracking? try possessive quantifiers like \\p{L}++ or atomic groups)"
    )


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

    @overload
    def __getitem__(self, i: int) -> Chunk: ...

    @overload
    def __getitem__(self, i: slice) -> list[Chunk]: ...

    def __getitem__(self, i: int | slice) -> Chunk | list[Chunk]:
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


# ----------------------------------------------------------------------------------------------------
# Splitting


def split(text: str, pattern: "str | Pattern | None", *, timeout: "float | Deadline | None" = None) -> SplitResult:
    """Cut ``text`` with ``pattern`` into chunks that cover it completely, each with the branch that matched.

    ``pattern=None`` gives the whole text as one chunk. ``timeout`` (seconds, or a running
    :class:`~bpe.deadline.Deadline`) is one limit for the whole call -- every stage, piece and branch
    test; it defaults to :func:`default_timeout` for custom patterns and to no limit for registry
    patterns. Running over it raises :class:`PatternTimeout`.

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
    deadline = request_deadline(timeout, entry, len(text))
    with stopped_at(deadline):
        if entry.custom:
            return SplitResult(text, entry, _unpack(text, run_pattern(_split_packed, (entry.regex, text), deadline)))
        return SplitResult(text, entry, _split_chunks(text, entry, deadline))


def _split_chunks(text: str, entry: Pattern, deadline: Deadline) -> list[Chunk]:
    pieces = [Chunk(text, 0, len(text), None)] if text else []
    for stage, compiled in enumerate(entry._compiled):
        new_pieces: list[Chunk] = []
        for piece in pieces:
            new_pieces.extend(_split_piece(text, piece, stage, compiled, entry, deadline))
        pieces = new_pieces
    return pieces


def _split_packed(regex_source: str, text: str, deadline: Deadline) -> tuple[Any, ...]:
    """:func:`split` of a custom pattern, through the pattern runner (maybe in another process), packed:
    chunk ends, branches (-1: none), stages."""
    chunks = _split_chunks(text, get_pattern(regex_source), deadline)
    return (
        array("q", [c.end for c in chunks]),
        array("q", [-1 if c.branch is None else c.branch for c in chunks]),
        array("q", [c.stage for c in chunks]),
    )


def _unpack(text: str, packed: tuple[Any, ...]) -> list[Chunk]:
    ends, branches, stages = packed
    starts = [0, *ends[:-1]]
    return [Chunk(text[s:e], s, e, None if b < 0 else b, st) for s, e, b, st in zip(starts, ends, branches, stages)]


def _split_piece(text: str, piece: Chunk, stage: int, compiled: Any, entry: Pattern, deadline: Deadline) -> list[Chunk]:
    out: list[Chunk] = []
    sub = text[piece.start : piece.end]
    base = piece.start
    pos = 0
    for m in compiled.finditer(sub, timeout=_left(deadline)):
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
            out.append(Chunk(m.group(), base + s, base + e, _which_branch(entry, stage, sub, s, e, deadline), stage))
        pos = e
    if pos < len(sub):
        out.append(Chunk(sub[pos:], base + pos, base + len(sub), piece.branch, piece.stage))
    return out


def _which_branch(
    entry: Pattern, stage: int, sub: str, start: int, end: int, deadline: Deadline | None = None
) -> int | None:
    """The first top-level branch that matches at ``start``: alternation tries branches in order, and
    nothing follows the alternation, so the first branch that matches is the one that did."""
    fallback = None
    for flat_index, (s, _i, _b, branch_re) in enumerate(entry._branches):
        if s != stage:
            continue
        m = branch_re.match(sub, start, timeout=None if deadline is None else _left(deadline))
        if m is not None:
            if m.end() == end:
                return flat_index
            if fallback is None:
                fallback = flat_index
    return fallback


def pretokenize(text: str, pattern: "str | Pattern | None", *, timeout: "float | Deadline | None" = None) -> list[str]:
    """The chunk texts of :func:`split` (same cut, same ``timeout`` rule), without branch attribution:
    the fast path training and encoding use.

    >>> pretokenize("dog dog. dog!", "gpt4")
    ['dog', ' dog', '.', ' dog', '!']
    >>> pretokenize("ab12", r"[a-z]+")   # text no branch matches is kept as a chunk of its own
    ['ab', '12']
    """
    if pattern is None:
        return [text] if text else []
    return pretokenize_pieces([text], pattern, timeout=timeout)[0]


def pretokenize_pieces(
    pieces: Sequence[str], pattern: "str | Pattern | None", *, timeout: "float | Deadline | None" = None
) -> list[list[str]]:
    """:func:`pretokenize` of each piece (text cut at special tokens, documents), with one deadline for
    them all: ``timeout``, else :func:`default_timeout` of their total length for a custom pattern.

    A custom pattern runs through the pattern runner (:func:`bpe.deadline.set_pattern_runner`); the default
    runs it here with the regex module's ``timeout=``, which costs ~3x on every match and stops late
    (measured 1.2 s past a 2 s deadline on 1 KB of ``(a|a)+$``, where even 22 characters backtrack for
    seconds). BPE Lab's server plugs in a runner that kills a worker process at the deadline instead.

    >>> pretokenize_pieces(["a b", "c"], "gpt4")
    [['a', ' b'], ['c']]
    """
    if pattern is None:
        return [[p] if p else [] for p in pieces]
    entry = get_pattern(pattern)
    deadline = request_deadline(timeout, entry, sum(map(len, pieces)))
    with stopped_at(deadline):
        if entry.custom:
            return list(run_pattern(_pieces, (entry.regex, list(pieces)), deadline))
        return [chunk_texts(p, entry, deadline) for p in pieces]


def prepare_splitters(entry: "Pattern | None") -> None:
    """Build a registry pattern's :class:`~bpe.fast_split.Splitter` s now (when a tokenizer is loaded, as
    tiktoken compiles its regex then), not inside the first encode."""
    if entry is not None and not entry.custom:
        for source in entry.stages:
            splitter(source)


def _pieces(regex_source: str, pieces: list[str], deadline: Deadline) -> list[list[str]]:
    """:func:`pretokenize_pieces` of a custom pattern, through the pattern runner."""
    entry = get_pattern(regex_source)
    return [chunk_texts(p, entry, deadline) for p in pieces]


@contextmanager
def stopped_at(deadline: Deadline) -> Iterator[None]:
    """Turn running out of time (here or in the pattern runner) into :class:`PatternTimeout`."""
    try:
        yield
    except TimeoutError:
        raise timeout_error(deadline) from None


def chunk_texts(text: str, entry: Pattern, deadline: Deadline) -> list[str]:
    """The chunks of ``text`` (see :func:`pretokenize`); ``TimeoutError`` past ``deadline``.

    Registry patterns match every character, so ``findall`` is the cut. So is it for a custom pattern
    without capturing groups whose matches cover the whole text (checked by adding up their lengths);
    otherwise the text between matches is kept as chunks of its own.

    >>> chunk_texts("ab 12", get_pattern(r"[a-z]+| "), Deadline(None))
    ['ab', ' ', '12']
    """
    if len(entry._compiled) > 1:
        # stage after stage, each piece cut on its own, as :func:`split` cuts it but without asking which
        # branch matched (the lab's question: it was ~60% of DeepSeek-V3's encode when asked here)
        pieces = [text] if text else []
        for source, compiled in zip(entry.stages, entry._compiled):
            fast = None if entry.custom else splitter(source)
            if fast is not None and len(pieces) > 1 and not text.isascii() and not fast.learn(text):
                # (the whole text's characters at once: one compile, not one per piece); not listed: regex cuts
                # every piece, without asking the splitter again for each (~300,000 on every Unicode letter)
                fast = None
            pieces = [c for piece in pieces for c in _cut(piece, compiled, deadline, fast)]
        return pieces
    compiled = entry._compiled[0]
    if not entry.custom:
        # registry patterns match every character and do not backtrack: the rewrite for ``re``
        # (:mod:`bpe.fast_split`, the same chunks ~2x faster) when it applies, else ``regex``
        fast = splitter(entry.stages[0])
        out = None if fast is None else fast.findall(text)
        if out is not None:
            _left(deadline)
            return out
        return list(compiled.findall(text, timeout=_left(deadline)))
    return _cut(text, compiled, deadline)


def _cut(text: str, compiled: Any, deadline: Deadline, fast: "Splitter | None" = None) -> list[str]:
    """``text`` cut by one compiled pattern: its matches, and the text between them as chunks of their own
    (``fast``: the same pattern's :class:`~bpe.fast_split.Splitter`, tried first)."""
    if compiled.groups == 0:
        out = None if fast is None else fast.findall(text)
        if out is None:
            out = compiled.findall(text, timeout=_left(deadline))
        if not out:
            return [text] if text else []  # nothing matched: the text is one chunk between matches
        if sum(map(len, out)) == len(text):
            return [c for c in out if c] if "" in out else out
    out = []
    pos = 0
    for m in compiled.finditer(text, timeout=_left(deadline)):
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
