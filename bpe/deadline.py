"""One request's time limit (:class:`Deadline`), and who runs a custom pattern against it (the *pattern
runner*, :func:`set_pattern_runner`).

A custom regex can backtrack catastrophically: ``(a|a)+$`` on 30 ``a`` and a ``!`` runs for minutes. The
library gives every request one :class:`Deadline` (a split, a training, an encode: however the text is cut)
and runs the custom pattern's work through the pattern runner. The default runner, :func:`in_process`,
runs it here, stopped by the ``regex`` module's own ``timeout=``: no thread, no process. That timeout counts
this process's CPU time (C's ``clock()``), so on a busy machine the stop comes later by the clock (a 1 s
limit: 1.0 s of CPU, 6-14 s of wall time on 2 cores at load 17). An application that takes regexes from
strangers (BPE Lab's server) plugs in a runner of its own that runs the work where it can be killed at the
deadline by the clock (the app's ``guard`` package: a worker process). Registry patterns never go through the
runner: they are written not to backtrack.

>>> d = Deadline(2.0)
>>> 1.9 < d.remaining() <= 2.0, d.expired, Deadline(None).remaining()
(True, False, None)
"""

from __future__ import annotations

import time
from typing import Any, Callable, Protocol

__all__ = ["Deadline", "PatternRunner", "set_pattern_runner", "get_pattern_runner", "in_process", "run_pattern"]


class Deadline:
    """A point in time shared by every step of one request: "stop 2 s from now", whatever the steps.

    ``seconds=None`` never expires. :meth:`remaining` is what a step may still use.

    >>> Deadline(None).expired, Deadline(0).expired
    (False, True)
    """

    __slots__ = ("seconds", "at")

    def __init__(self, seconds: float | None):
        self.seconds = seconds
        self.at = None if seconds is None else time.monotonic() + seconds

    def remaining(self) -> float | None:
        """Seconds left (never negative), or None without a limit."""
        return None if self.at is None else max(0.0, self.at - time.monotonic())

    @property
    def expired(self) -> bool:
        """Whether the time is up (never, without a limit)."""
        return self.at is not None and time.monotonic() >= self.at

    def __repr__(self) -> str:
        return f"Deadline({self.seconds!r}, remaining={self.remaining()!r})"


class PatternRunner(Protocol):
    """What :func:`set_pattern_runner` takes: ``runner(fn, args, deadline)``; see there."""

    def __call__(self, fn: Callable[..., Any], args: tuple[Any, ...], deadline: Deadline) -> Any:
        """Return ``fn(*args, deadline)``, run where the runner chooses, stopped at ``deadline``."""


def in_process(fn: Callable[..., Any], args: tuple[Any, ...], deadline: Deadline) -> Any:
    """The default runner: ``fn(*args, deadline)`` here; the ``regex`` module's ``timeout=`` stops it.

    >>> in_process(lambda text, deadline: text.split(), ("a b",), Deadline(1.0))
    ['a', 'b']
    """
    return fn(*args, deadline)


_runner: PatternRunner | None = None


def set_pattern_runner(runner: PatternRunner | None) -> PatternRunner | None:
    """Choose where custom pre-tokenizer patterns run; returns the runner it replaces (None: the default).

    ``None`` restores the default, :func:`in_process`. The contract of a runner, ``runner(fn, args,
    deadline)``:

    * it returns what ``fn(*args, deadline)`` returns, or raises what that raises;
    * ``fn`` is a module-level function of ``bpe`` (importable by name) and ``args`` and the result pickle,
      so a runner may call it in another process;
    * ``fn`` honours the :class:`Deadline` it is given (the ``regex`` module's ``timeout=``, which costs ~3x
      on every match); a runner that stops the work itself -- a worker process killed when ``deadline``
      passes -- may pass ``Deadline(None)`` instead, for full speed;
    * past ``deadline`` it raises ``TimeoutError`` (the library turns that into
      :class:`~bpe.PatternTimeout`); if it cannot run the work at all, it raises
      :class:`~bpe.PatternError` with a message that says why.

    It is called from the caller's thread, maybe from several threads at once.

    >>> import bpe
    >>> def noisy(fn, args, deadline):
    ...     print("custom pattern, limit", deadline.seconds, "s")
    ...     return fn(*args, deadline)
    >>> previous = bpe.set_pattern_runner(noisy)
    >>> bpe.pretokenize("ab 12", r"[a-z]+|[ ]", timeout=1.5)  # compiled first (its own limit), then run
    custom pattern, limit 10.0 s
    custom pattern, limit 1.5 s
    ['ab', ' ', '12']
    >>> bpe.pretokenize("ab 12", "gpt4")       # a registry pattern: no runner
    ['ab', ' ', '12']
    >>> bpe.set_pattern_runner(previous) is noisy
    True
    """
    global _runner
    previous, _runner = _runner, runner
    return previous


def get_pattern_runner() -> PatternRunner:
    """The runner custom patterns go through now (:func:`in_process` unless one was set)."""
    return _runner or in_process


def run_pattern(fn: Callable[..., Any], args: tuple[Any, ...], deadline: Deadline) -> Any:
    """``fn(*args, deadline)`` through the current runner (see :func:`set_pattern_runner`)."""
    return (_runner or in_process)(fn, args, deadline)
