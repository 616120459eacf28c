"""Run a function in a worker process that can be stopped: a deadline, cancellation, progress.

A regex that backtracks catastrophically, or a training that takes too long, cannot be interrupted inside
the interpreter that runs it (the ``regex`` module's ``timeout=`` can, at ~3x the cost of every match).
This module runs such work in a *worker process* and kills it when its deadline passes or the caller
cancels it. Standard library only.

How the worker processes start and talk to the caller: :mod:`guard.forkserver`. The library's pattern runner
built on this: :mod:`guard.runner`.

Contract of :func:`run` (and :meth:`Job.wait`):

* ``fn`` must be importable by name (a module-level function such as :func:`bpe.train`), and the
  arguments and the result must pickle;
* with ``progress=callback``, ``fn`` is called with an extra keyword ``progress=``: a function that sends
  its arguments to the caller, where ``callback(*args)`` runs (so ``bpe.train``'s ``progress(done,
  total)`` streams to the caller as it is);
* ``timeout`` (seconds, or a :class:`Deadline` shared by a whole request): past it the worker is killed
  and :class:`WorkerTimeout` (a ``TimeoutError``) is raised;
* ``should_stop()`` is polled every ``poll`` seconds while waiting; when it returns true, or when
  another thread calls :meth:`Job.cancel`, the worker is killed and :class:`WorkerCancelled` is raised;
* an exception raised by ``fn`` is raised again in the caller, same type and message, with the worker's
  traceback as a note; a worker that dies without answering raises :class:`WorkerError`.

Where fork is not available (Windows), :func:`available` is False and callers keep their in-process
path (the library then uses the regex module's own ``timeout=``).

>>> import bpe
>>> from guard import isolation
>>> run = isolation.run(bpe.train, "aaabdaaabac", 258, pattern=None, timeout=30)
>>> [m.pair for m in run.merges]
[(97, 97), (97, 98)]
>>> seen = []
>>> run = isolation.run(bpe.train, "hello world " * 50, 266, progress=lambda done, total: seen.append(done))
>>> seen[-1], run.vocab_size
(10, 266)
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import threading
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from bpe.cli_limits import alarm_at
from bpe.deadline import Deadline

from .forkserver import WorkerError, WorkerUnavailable, Zygote, available, in_worker, recv, report, send, warm_up

#: The whole API of worker processes: what comes from :mod:`guard.forkserver` (and the library's
#: :class:`~bpe.deadline.Deadline`) is part of it.
__all__ = [
    "Deadline",
    "Job",
    "run",
    "start",
    "report",
    "available",
    "in_worker",
    "warm_up",
    "interrupt_at",
    "WorkerError",
    "WorkerUnavailable",
    "WorkerTimeout",
    "WorkerCancelled",
]

#: Seconds between two checks of ``should_stop()`` / cancellation while waiting for a worker.
POLL = 0.05
#: Seconds a worker that has sent its answer may take to exit before it is killed.
EXIT_GRACE = 5.0

#: With ``cpu_time=True`` a job waits past its deadline while its worker has used less CPU than the time the
#: deadline gave it (a busy machine gives a worker a fraction of a core), up to this many times that time in
#: all: a pattern's limit is its own CPU time, and a machine stalled for good still ends the wait.
CPU_WAIT_FACTOR = 3.0
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_seconds(pid: int) -> "float | None":
    """The CPU time (user + system) process ``pid`` has used so far, or None where /proc cannot say.

    >>> cpu_seconds(os.getpid()) is not None or not os.path.exists("/proc/self/stat")
    True
    """
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICK  # utime, stime: fields 14 and 15 of stat(5)
    except (OSError, IndexError, ValueError):
        return None


class WorkerTimeout(TimeoutError):
    """The worker ran past its deadline and was killed."""


class WorkerCancelled(Exception):
    """The job was cancelled (:meth:`Job.cancel` or ``should_stop()``) and its worker killed."""


@contextmanager
def interrupt_at(deadline: Deadline) -> Iterator[None]:
    """In a worker: raise ``TimeoutError`` inside the block when ``deadline`` passes (a ``SIGALRM`` timer;
    the ``regex`` module checks for signals while it matches, so a runaway match stops too). Anywhere else
    it does nothing: signals are not ours to take in someone else's process, nor usable off the main
    thread.

    >>> with interrupt_at(Deadline(1.0)):
    ...     pass
    """
    if not in_worker():
        yield
        return
    with alarm_at(deadline):  # the CLI's own clock stop, the same SIGALRM timer
        yield


class Job:
    """One function call running in a worker process.

    :meth:`wait` streams progress and returns the result; :meth:`cancel` (from any thread) kills the
    worker. Use it as a context manager, so the worker is killed and reaped even if the caller stops
    waiting (an exception of its own):

    >>> import bpe
    >>> with start(bpe.train, "abab", 257, pattern=None) as job:
    ...     run = job.wait(timeout=10)
    >>> job.done, run.merges[0].token
    (True, b'ab')
    """

    def __init__(self, fn: Callable, args: tuple = (), kwargs: dict | None = None, *, wants_progress: bool = False):
        try:
            self._sock, self.pid = Zygote.get().launch()
        except WorkerUnavailable:
            try:  # the helper died since (killed from outside?): one more try with a fresh one
                self._sock, self.pid = Zygote.get().launch()
            except WorkerUnavailable:
                Zygote.failed = True
                raise
        self._cancelled = False
        self._reaped = False
        self._closed = False
        self._kill_lock = threading.Lock()
        try:
            send(self._sock, (fn, tuple(args), dict(kwargs or {}), wants_progress))
        except BaseException as exc:
            self._close()
            if isinstance(exc, (pickle.PicklingError, TypeError, AttributeError)):
                raise WorkerError(f"the job cannot be sent to a worker: {exc}") from None
            if isinstance(exc, OSError):
                raise WorkerError(f"the worker process is gone: {exc}") from None
            raise

    def __enter__(self) -> "Job":
        return self

    def __del__(self) -> None:
        # Dropped without wait() or a with block: do not leave a runaway worker behind.
        if not getattr(self, "_closed", True):
            self._kill()

    def __exit__(self, *exc_info) -> None:
        self._close()

    @property
    def done(self) -> bool:
        """True once the worker is gone and reaped."""
        return self._reaped

    def cancel(self) -> None:
        """Kill the worker now (thread-safe); a :meth:`wait` in progress raises :class:`WorkerCancelled`."""
        self._cancelled = True
        self._kill()

    def _kill(self) -> None:
        with self._kill_lock:
            if self._reaped or self._closed:
                return  # never signal a pid that may already belong to another process
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def _drain(self, limit: float | None) -> bool:
        """Read and drop until end-of-file (the worker is gone and reaped); False if ``limit`` ran out."""
        end = None if limit is None else time.monotonic() + limit
        while True:
            left = None if end is None else max(0.0, end - time.monotonic())
            ready, _, _ = select.select([self._sock], [], [], left)
            if not ready:
                return False
            try:
                if not self._sock.recv(1 << 16):
                    self._reaped = True
                    return True
            except OSError:
                self._reaped = True
                return True

    def _cpu_left(self, deadline: Deadline, budget: float, began: float) -> float:
        """Past ``deadline``: the seconds the worker may still run, by the CPU it has used of ``budget``
        (0.0 when it used it all, or waited ``CPU_WAIT_FACTOR`` times ``budget``); moves the deadline on."""
        used = cpu_seconds(self.pid)
        now = time.monotonic()
        if used is None or used >= budget:
            return 0.0
        left = min(budget - used, began + CPU_WAIT_FACTOR * budget - now)
        if left <= 0.0:
            return 0.0
        left = max(left, 0.01)  # /proc counts in ticks: look again soon
        deadline.at = now + left
        return left

    def _close(self, gently: bool = False) -> None:
        """Make sure the worker is dead and reaped, then close our socket."""
        if self._closed:
            return
        try:
            if not self._reaped and not (gently and self._drain(EXIT_GRACE)):
                self._kill()
                self._drain(None)
        finally:
            with self._kill_lock:
                self._closed = True
            self._sock.close()

    def wait(
        self,
        timeout: "float | Deadline | None" = None,
        progress: Callable[..., Any] | None = None,
        should_stop: Callable[[], bool] | None = None,
        poll: float = POLL,
        cpu_time: bool = False,
    ) -> Any:
        """Wait for the result; see the module docstring for what is raised. The worker is always dead and
        reaped when this returns or raises.

        ``cpu_time=True`` measures the deadline in the worker's CPU time: past the deadline the wait goes on
        while the worker has used less CPU than the time that was left when the wait began, moving the
        (shared) deadline along, up to :data:`CPU_WAIT_FACTOR` times that time in all."""
        if self._closed:
            raise WorkerError("this job is over: wait() gives its result once")
        deadline = timeout if isinstance(timeout, Deadline) else Deadline(timeout)
        budget = deadline.remaining() if cpu_time else None
        began = time.monotonic()
        try:
            while True:
                if self._cancelled or (should_stop is not None and should_stop()):
                    self._cancelled = True
                    raise WorkerCancelled("the job was cancelled and its worker process stopped")
                left = deadline.remaining()
                if left == 0.0 and budget is not None:
                    left = self._cpu_left(deadline, budget, began)
                if left == 0.0:
                    raise WorkerTimeout(
                        f"the worker ran past its {round(deadline.seconds, 1):g} s deadline and was stopped"
                    )
                ready, _, _ = select.select([self._sock], [], [], poll if left is None else min(poll, left))
                if not ready:
                    continue
                try:
                    msg = recv(self._sock)
                except (EOFError, OSError):
                    self._reaped = True
                    if self._cancelled:
                        raise WorkerCancelled("the job was cancelled and its worker process stopped") from None
                    raise WorkerError(
                        "the worker process stopped without an answer (killed from outside, or out of memory?)"
                    ) from None
                kind = msg[0]
                if kind == "progress":
                    if progress is not None:
                        progress(*msg[1])
                elif kind == "result":
                    self._close(gently=True)
                    return msg[1]
                else:
                    exc, tb = msg[1], msg[2]
                    self._close(gently=True)
                    if tb and hasattr(exc, "add_note"):
                        exc.add_note("raised in a guard.isolation worker process:\n" + tb.rstrip())
                    raise exc
        finally:
            self._close()


def start(fn: Callable, /, *args: Any, wants_progress: bool = False, **kwargs: Any) -> Job:
    """Start ``fn(*args, **kwargs)`` in a worker process; returns the :class:`Job` (see :func:`run`)."""
    return Job(fn, args, kwargs, wants_progress=wants_progress)


def run(
    fn: Callable,
    /,
    *args: Any,
    timeout: "float | Deadline | None" = None,
    progress: Callable[..., Any] | None = None,
    should_stop: Callable[[], bool] | None = None,
    cpu_time: bool = False,
    **kwargs: Any,
) -> Any:
    """``fn(*args, **kwargs)`` in a worker process, killed at ``timeout`` or when ``should_stop()`` says so.

    See the module docstring for the contract (``progress`` adds a ``progress=`` keyword to the call).

    >>> import regex
    >>> run(regex.findall, r"(a|a)+$", "a" * 30 + "!", timeout=0.5)   # exponential backtracking
    Traceback (most recent call last):
    ...
    guard.isolation.WorkerTimeout: the worker ran past its 0.5 s deadline and was stopped
    """
    with Job(fn, args, kwargs, wants_progress=progress is not None) as job:
        return job.wait(timeout, progress=progress, should_stop=should_stop, cpu_time=cpu_time)
