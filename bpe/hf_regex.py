"""A regex from a ``tokenizer.json`` (``Split``, ``Replace`` normalizer, ``Replace`` decoder,
``CharDelimiterSplit``): compiled through the library's one guard for regexes from outside
(:func:`bpe.patterns.compile_user`: size bound, compiled first where the pattern runner can bound it, never in
the ``regex`` module's own cache) and run through the pattern runner with the request's deadline, as a custom
pre-tokenizer is (:func:`bpe.set_pattern_runner`: BPE Lab's server runs it in a worker process killed at the
deadline, the CLI under a wall-clock alarm, the library's default here with the ``regex`` module's
``timeout=``). Each call is a batch (every piece of a step, every token of a decode): one runner job.

A file is a stranger's: a 692-byte ``tokenizer.json`` with a ``Replace`` of ``b{2000000}`` used to cost the
server 600 MB for good, and a ``Split`` of ``(a|aa)+$`` on 60 ``a`` and a ``b`` to spin for weeks.

>>> r = FileRegex(r"\\s+")
>>> r.spans(["a  b", "c d"], Deadline(1.0)), r.sub("_", ["a  b"], Deadline(1.0))
([[(1, 3)], [(1, 2)]], ['a_b'])
>>> FileRegex("(a|aa)+$").sub("", ["a" * 60 + "b"], Deadline(0.2))
Traceback (most recent call last):
...
bpe.patterns.PatternTimeout: the pattern took longer than 0.2 s on this text and was stopped (catastrophic backtracking? try possessive quantifiers like \\p{L}++ or atomic groups)
"""

from __future__ import annotations

import weakref
from typing import Sequence

from .deadline import Deadline, run_pattern
from .patterns import _compile, compile_user
from .splitting import _left, default_timeout, stopped_at

__all__ = ["FileRegex", "Deadline", "deadline_for", "spans_job", "sub_job"]


def deadline_for(n_chars: int) -> Deadline:
    """One request's deadline for ``n_chars`` characters of text (as a custom pre-tokenizer gets it)."""
    return Deadline(default_timeout(n_chars))


#: source -> the live FileRegex of that source in this process (its compiled regex is reused by a job run
#: here; a worker process has none and compiles the source again)
_LIVE: "weakref.WeakValueDictionary[str, FileRegex]" = weakref.WeakValueDictionary()


def _compiled_here(source: str):
    live = _LIVE.get(source)
    return live._compiled if live is not None else _compile(source, cache=False, flags=0)


def spans_job(source: str, texts: list[str], deadline: Deadline) -> list[list[tuple[int, int]]]:
    """The pattern runner's job: the non-empty match spans of ``source`` in each of ``texts`` (``source`` was
    size-checked by the caller; compiled again in a worker, outside the module's cache)."""
    compiled = _compiled_here(source)
    return [[m.span() for m in compiled.finditer(t, timeout=_left(deadline)) if m.end() > m.start()] for t in texts]


def sub_job(source: str, content: str, texts: list[str], deadline: Deadline) -> list[str]:
    """The pattern runner's job: each of ``texts`` with every match of ``source`` replaced by ``content``
    taken literally (as Hugging Face's ``Replace``)."""
    compiled = _compiled_here(source)
    return [compiled.sub(lambda m: content, t, timeout=_left(deadline)) for t in texts]


class FileRegex:
    """A regex from a file, checked and compiled once through :func:`bpe.patterns.compile_user` (``flags=0``:
    VERSION0, the ``regex`` default, as ``tokenizer.json`` regexes were always read here); raises
    :class:`bpe.PatternError` if it is refused. Its work runs through the pattern runner, stopped at the
    deadline (:class:`bpe.PatternTimeout`); a ``literal`` (an escaped ``String`` pattern, a delimiter: it cannot
    backtrack) runs here.

    >>> FileRegex("(a|aa)+$").literal, FileRegex(" ", literal=True).spans(["a b"])
    (False, [[(1, 2)]])
    """

    __slots__ = ("source", "literal", "_compiled", "__weakref__")

    def __init__(self, source: str, *, literal: bool = False):
        self.source = source
        self.literal = literal
        self._compiled = compile_user(source)
        _LIVE[source] = self

    def __repr__(self) -> str:
        return f"FileRegex({self.source!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FileRegex) and other.source == self.source

    def __hash__(self) -> int:
        return hash(self.source)

    def __reduce__(self):
        return (_rebuild, (self.source, self.literal))

    def spans(self, texts: Sequence[str], deadline: Deadline | None = None) -> list[list[tuple[int, int]]]:
        """The non-empty match spans in each of ``texts``; one deadline for all (by default the one for their
        length)."""
        texts = list(texts)
        if not any(texts):
            return [[] for _ in texts]
        if self.literal:
            return spans_job(self.source, texts, Deadline(None))
        deadline = deadline if deadline is not None else deadline_for(sum(map(len, texts)))
        with stopped_at(deadline):
            return run_pattern(spans_job, (self.source, texts), deadline)

    def sub(self, content: str, texts: Sequence[str], deadline: Deadline | None = None) -> list[str]:
        """Each of ``texts`` with every match replaced by ``content`` taken literally (as Hugging Face's
        ``Replace``); one deadline for all."""
        texts = list(texts)
        if not any(texts):
            return [self._compiled.sub(lambda m: content, t) for t in texts]  # empty texts: nothing to run
        if self.literal:
            return sub_job(self.source, content, texts, Deadline(None))
        deadline = deadline if deadline is not None else deadline_for(sum(map(len, texts)))
        with stopped_at(deadline):
            return run_pattern(sub_job, (self.source, content, texts), deadline)


def _rebuild(source: str, literal: bool) -> FileRegex:
    return FileRegex(source, literal=literal)
