"""Run a function in a worker process that can be stopped: a deadline, cancellation, progress.

A regex that backtracks catastrophically, or a training that takes too long, cannot be interrupted inside
the interpreter that runs it (the ``regex`` module's ``timeout=`` can, at ~3x the cost of every match).
This module runs such work in a *worker process* and kills it when its deadline passes or the caller
cancels it. Standard library only.

How: one helper process per interpreter, started on first use (a fresh ``python`` that imports ``bpe``
once: the *zygote*). Each job is a ``fork()`` of the zygote -- a single-threaded process, so forking it is
safe even when the caller runs many threads (a plain fork of a Streamlit server could deadlock in the
child), and it costs a few milliseconds instead of a new interpreter. The caller and the worker talk over
a private socket pair: the job (function and arguments, pickled) goes in; progress messages and the result
or the exception come out. The zygote reaps every worker and then closes its end of that socket, so the
caller's end reaches end-of-file exactly when the worker is gone *and reaped*: :meth:`Job.wait` always
returns after that, whatever happened (result, exception, deadline, cancellation, or an exception raised
by the caller's own progress callback). When the calling process exits, the zygote kills its workers and
exits too, so nothing is left behind.

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
>>> from bpe import isolation
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
import socket
import struct
import subprocess
import sys
import threading
import time
import traceback
from contextlib import contextmanager
from typing import Any, Callable, Iterator

__all__ = ["Deadline", "Job", "run", "start", "report", "available", "in_worker", "warm_up",
           "interrupt_at", "WorkerError", "WorkerUnavailable", "WorkerTimeout", "WorkerCancelled"]

#: Seconds between two checks of ``should_stop()`` / cancellation while waiting for a worker.
POLL = 0.05
#: Seconds a worker that has sent its answer may take to exit before it is killed.
EXIT_GRACE = 5.0


class WorkerError(RuntimeError):
    """The worker process stopped without an answer (it crashed, or was killed from outside), or its
    job or answer could not be sent."""


class WorkerUnavailable(WorkerError):
    """No worker could be started here (no fork, or the helper process cannot run): run in-process."""


class WorkerTimeout(TimeoutError):
    """The worker ran past its deadline and was killed."""


class WorkerCancelled(Exception):
    """The job was cancelled (:meth:`Job.cancel` or ``should_stop()``) and its worker killed."""


class Deadline:
    """A point in time shared by every step of one request: "stop 2 s from now", whatever the steps.

    ``seconds=None`` never expires. :meth:`remaining` is what a step may still use.

    >>> d = Deadline(2.0)
    >>> 1.9 < d.remaining() <= 2.0, d.expired, Deadline(None).remaining()
    (True, False, None)
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
        return self.at is not None and time.monotonic() >= self.at

    def __repr__(self) -> str:
        return f"Deadline({self.seconds!r}, remaining={self.remaining()!r})"


# ----------------------------------------------------------------------------------------------------
# Messages: an 8-byte length, then a pickle

_HEADER = struct.Struct("!Q")


def _send(sock: socket.socket, obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    sock.sendall(_HEADER.pack(len(data)))
    sock.sendall(data)


def _recv_exactly(sock: socket.socket, n: int) -> bytes | None:
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        k = sock.recv_into(view[got:])
        if k == 0:
            return None
        got += k
    return bytes(buf)


def _recv(sock: socket.socket) -> Any:
    """The next message, or ``EOFError`` when the other side closed (also in the middle of a message)."""
    header = _recv_exactly(sock, _HEADER.size)
    if header is None:
        raise EOFError
    data = _recv_exactly(sock, _HEADER.unpack(header)[0])
    if data is None:
        raise EOFError
    return pickle.loads(data)


# ----------------------------------------------------------------------------------------------------
# The worker side

#: In a worker: the socket to the caller (``report`` writes to it). None elsewhere.
_channel: socket.socket | None = None


def report(*args: Any) -> None:
    """In a worker: send ``args`` to the caller's progress callback (call it from the worker's main
    thread). Anywhere else: do nothing.

    >>> report(1, 10)   # not in a worker: nothing happens
    """
    if _channel is not None:
        _send(_channel, ("progress", args))


def in_worker() -> bool:
    """True in a worker process started by this module (its code runs in the worker's main thread).

    >>> in_worker()
    False
    """
    return _channel is not None


@contextmanager
def interrupt_at(deadline: Deadline) -> Iterator[None]:
    """In a worker: raise ``TimeoutError`` inside the block when ``deadline`` passes (a ``SIGALRM`` timer;
    the ``regex`` module checks for signals while it matches, so a runaway match stops too). Anywhere else
    it does nothing: signals are not ours to take in someone else's process, nor usable off the main
    thread.

    >>> with interrupt_at(Deadline(1.0)):
    ...     pass
    """
    left = deadline.remaining()
    if left is None or not in_worker() or threading.current_thread() is not threading.main_thread():
        yield
        return
    if left == 0.0:
        raise TimeoutError("the deadline has passed")

    def ring(*_):
        raise TimeoutError("the deadline has passed")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, left)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _picklable(exc: BaseException) -> BaseException:
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        return WorkerError(f"{type(exc).__name__}: {exc}")


def _worker_main(conn: socket.socket) -> None:
    """Run one job from ``conn`` and send its answer; never returns."""
    global _channel
    try:
        try:
            job = _recv(conn)
        except EOFError:
            os._exit(0)
        except Exception as exc:  # the function cannot be imported here, an argument does not unpickle
            _send(conn, ("error", WorkerError(f"the job could not be read in the worker: {exc}"), ""))
            os._exit(0)
        fn, args, kwargs, wants_progress = job
        _channel = conn
        if wants_progress:
            kwargs = dict(kwargs, progress=report)
        try:
            answer = ("result", fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - everything goes back to the caller
            answer = ("error", _picklable(exc), traceback.format_exc())
        try:
            _send(conn, answer)
        except Exception as exc:
            _send(conn, ("error", WorkerError(f"the worker's answer could not be sent back: {exc}"), ""))
    finally:
        os._exit(0)


def _zygote_main(control_fd: int) -> None:
    """The helper process: fork one worker per job received on the control socket; reap them; when the
    caller goes away (the control socket closes), kill every worker and exit."""
    control = socket.socket(fileno=control_fd)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler, so SIGCHLD wakes the select below
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # Ctrl-C is the caller's to handle
    jobs: dict[int, socket.socket] = {}              # worker pid -> our end of its job socket

    def reap(block: bool = False) -> None:
        while jobs:
            try:
                pid, _ = os.waitpid(-1, 0 if block else os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = jobs.pop(pid, None)
            if conn is not None:
                conn.close()  # the caller sees end-of-file: its worker is gone and reaped

    while True:
        ready, _, _ = select.select([control, wake_r], [], [])
        if wake_r in ready:
            try:
                while os.read(wake_r, 512):
                    pass
            except BlockingIOError:
                pass
        reap()
        if control not in ready:
            continue
        try:
            msg, fds, _, _ = socket.recv_fds(control, 1, 1)
        except OSError:
            msg, fds = b"", []
        if not msg:  # the caller exited (or closed us): leave nothing behind
            for pid in list(jobs):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            reap(block=True)
            os._exit(0)
        if not fds:
            continue
        conn = socket.socket(fileno=fds[0])
        pid = os.fork()
        if pid == 0:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            os.close(wake_r)
            os.close(wake_w)
            control.close()
            for other in jobs.values():
                other.close()  # else the other jobs' callers would not see end-of-file when they end
            _worker_main(conn)
        jobs[pid] = conn
        try:
            conn.sendall(struct.pack("!q", pid))
        except OSError:
            pass


# ----------------------------------------------------------------------------------------------------
# The caller side


class _Zygote:
    """The running helper process and our end of its control socket (one per interpreter)."""

    lock = threading.Lock()
    current: "_Zygote | None" = None
    failed = False

    def __init__(self) -> None:
        ours, theirs = socket.socketpair()
        code = ("import sys; sys.path[:] = %r; from bpe.isolation import _zygote_main; _zygote_main(%d)"
                % (list(sys.path), theirs.fileno()))
        try:
            self.proc = subprocess.Popen([sys.executable, "-c", code], pass_fds=[theirs.fileno()],
                                         stdin=subprocess.DEVNULL, cwd=os.getcwd())
        finally:
            theirs.close()
        self.control = ours
        self.send_lock = threading.Lock()
        self.owner = os.getpid()  # a forked copy of this process must start its own helper

    @classmethod
    def get(cls) -> "_Zygote":
        with cls.lock:
            z = cls.current
            if z is not None and z.owner != os.getpid():
                z = None  # inherited through fork(): that helper belongs to our parent
            elif z is not None and z.proc.poll() is not None:
                z.control.close()
                z = None
            if z is None:
                try:
                    z = cls.current = cls()
                except OSError as exc:
                    cls.failed = True
                    raise WorkerUnavailable(f"could not start the worker helper process: {exc}") from None
            return z

    def launch(self) -> tuple[socket.socket, int]:
        """A new worker: our end of its socket and its pid."""
        mine, theirs = socket.socketpair()
        try:
            with self.send_lock:
                socket.send_fds(self.control, [b"J"], [theirs.fileno()])
        except OSError as exc:
            mine.close()
            raise WorkerUnavailable(f"the worker helper process is gone: {exc}") from None
        finally:
            theirs.close()
        pid = _recv_exactly(mine, 8)
        if pid is None:
            mine.close()
            raise WorkerUnavailable("the worker helper process did not start a worker")
        return mine, struct.unpack("!q", pid)[0]


def warm_up() -> None:
    """Start the helper process now (it imports ``bpe`` in the background), so the first job does not
    wait for it. Does nothing where workers are not :func:`available`.

    >>> warm_up()
    """
    if available():
        try:
            _Zygote.get()
        except WorkerError:
            pass


def available() -> bool:
    """Whether jobs can run in worker processes here (fork, Unix sockets, a Python executable).

    >>> isinstance(available(), bool)
    True
    """
    return (hasattr(os, "fork") and hasattr(socket, "send_fds") and hasattr(socket, "AF_UNIX")
            and bool(sys.executable) and not _Zygote.failed)


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

    def __init__(self, fn: Callable, args: tuple = (), kwargs: dict | None = None, *,
                 wants_progress: bool = False):
        try:
            self._sock, self.pid = _Zygote.get().launch()
        except WorkerUnavailable:
            try:  # the helper died since (killed from outside?): one more try with a fresh one
                self._sock, self.pid = _Zygote.get().launch()
            except WorkerUnavailable:
                _Zygote.failed = True
                raise
        self._cancelled = False
        self._reaped = False
        self._closed = False
        self._kill_lock = threading.Lock()
        try:
            _send(self._sock, (fn, tuple(args), dict(kwargs or {}), wants_progress))
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

    def wait(self, timeout: "float | Deadline | None" = None,
             progress: Callable[..., Any] | None = None, should_stop: Callable[[], bool] | None = None,
             poll: float = POLL) -> Any:
        """Wait for the result; see the module docstring for what is raised. The worker is always dead and
        reaped when this returns or raises."""
        if self._closed:
            raise WorkerError("this job is over: wait() gives its result once")
        deadline = timeout if isinstance(timeout, Deadline) else Deadline(timeout)
        try:
            while True:
                if self._cancelled or (should_stop is not None and should_stop()):
                    self._cancelled = True
                    raise WorkerCancelled("the job was cancelled and its worker process stopped")
                left = deadline.remaining()
                if left == 0.0:
                    raise WorkerTimeout(f"the worker ran past its {deadline.seconds:g} s deadline and was "
                                        "stopped")
                ready, _, _ = select.select([self._sock], [], [], poll if left is None else min(poll, left))
                if not ready:
                    continue
                try:
                    msg = _recv(self._sock)
                except (EOFError, OSError):
                    self._reaped = True
                    if self._cancelled:
                        raise WorkerCancelled("the job was cancelled and its worker process stopped") from None
                    raise WorkerError("the worker process stopped without an answer (killed from outside, "
                                      "or out of memory?)") from None
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
                        exc.add_note("raised in a bpe.isolation worker process:\n" + tb.rstrip())
                    raise exc
        finally:
            self._close()


def start(fn: Callable, /, *args: Any, wants_progress: bool = False, **kwargs: Any) -> Job:
    """Start ``fn(*args, **kwargs)`` in a worker process; returns the :class:`Job` (see :func:`run`)."""
    return Job(fn, args, kwargs, wants_progress=wants_progress)


def run(fn: Callable, /, *args: Any, timeout: "float | Deadline | None" = None,
        progress: Callable[..., Any] | None = None, should_stop: Callable[[], bool] | None = None,
        **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` in a worker process, killed at ``timeout`` or when ``should_stop()`` says so.

    See the module docstring for the contract (``progress`` adds a ``progress=`` keyword to the call).

    >>> import regex
    >>> run(regex.findall, r"(a|a)+$", "a" * 30 + "!", timeout=0.5)   # exponential backtracking
    Traceback (most recent call last):
    ...
    bpe.isolation.WorkerTimeout: the worker ran past its 0.5 s deadline and was stopped
    """
    with Job(fn, args, kwargs, wants_progress=progress is not None) as job:
        return job.wait(timeout, progress=progress, should_stop=should_stop)
