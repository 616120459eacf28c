"""Worker processes that can be killed: the fork server (*zygote*), the worker's main loop, and the
messages between a worker and its caller. :mod:`guard.isolation` runs jobs on top of this; use that.

How: one helper process per interpreter, started on first use (a fresh ``python`` that imports ``bpe``
once and plugs in the guarded pattern runner, :func:`guard.install`: the *zygote*). Each job is a ``fork()``
of the zygote -- a single-threaded process, so forking it is safe even when the caller runs many threads (a
plain fork of a Streamlit server could deadlock in the child), and it costs a few milliseconds instead of a new interpreter. The caller and the worker talk over
a private socket pair: the job (function and arguments, pickled) goes in; progress messages and the result
or the exception come out. The zygote reaps every worker and then closes its end of that socket, so the
caller's end reaches end-of-file exactly when the worker is gone *and reaped*:
:meth:`guard.isolation.Job.wait` always returns after that, whatever happened (result, exception, deadline,
cancellation, or an exception raised by the caller's own progress callback). When the calling process
exits, the zygote kills its workers and exits too, so nothing is left behind.

Messages are an 8-byte length, then a pickle: the job ``(fn, args, kwargs, wants_progress)`` goes in;
``("progress", args)``, then ``("result", value)`` or ``("error", exception, traceback)`` come out.

>>> in_worker(), isinstance(available(), bool)
(False, True)
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
import traceback
from typing import Any

__all__ = [
    "Zygote",
    "available",
    "in_worker",
    "report",
    "warm_up",
    "send",
    "recv",
    "recv_exactly",
    "zygote_main",
    "WorkerError",
    "WorkerUnavailable",
]


class WorkerError(RuntimeError):
    """The worker process stopped without an answer (it crashed, or was killed from outside), or its
    job or answer could not be sent."""


class WorkerUnavailable(WorkerError):
    """No worker could be started here (no fork, or the helper process cannot run): run in-process."""


# ----------------------------------------------------------------------------------------------------
# Messages: an 8-byte length, then a pickle

_HEADER = struct.Struct("!Q")


def send(sock: socket.socket, obj: Any) -> None:
    """Send ``obj`` as one message (its pickle's length, then the pickle)."""
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    sock.sendall(_HEADER.pack(len(data)))
    sock.sendall(data)


def recv_exactly(sock: socket.socket, n: int) -> bytes | None:
    """The next ``n`` bytes, or None when the other side closed first."""
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        k = sock.recv_into(view[got:])
        if k == 0:
            return None
        got += k
    return bytes(buf)


def recv(sock: socket.socket) -> Any:
    """The next message, or ``EOFError`` when the other side closed (also in the middle of a message)."""
    header = recv_exactly(sock, _HEADER.size)
    if header is None:
        raise EOFError
    data = recv_exactly(sock, _HEADER.unpack(header)[0])
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
        send(_channel, ("progress", args))


def in_worker() -> bool:
    """True in a worker process started by this module (its code runs in the worker's main thread).

    >>> in_worker()
    False
    """
    return _channel is not None


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
            job = recv(conn)
        except EOFError:
            os._exit(0)
        except Exception as exc:  # the function cannot be imported here, an argument does not unpickle
            send(conn, ("error", WorkerError(f"the job could not be read in the worker: {exc}"), ""))
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
            send(conn, answer)
        except Exception as exc:
            send(conn, ("error", WorkerError(f"the worker's answer could not be sent back: {exc}"), ""))
    finally:
        os._exit(0)


def zygote_main(control_fd: int) -> None:
    """The helper process: fork one worker per job received on the control socket; reap them; when the
    caller goes away (the control socket closes), kill every worker and exit."""
    control = socket.socket(fileno=control_fd)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler, so SIGCHLD wakes the select below
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the caller's to handle
    jobs: dict[int, socket.socket] = {}  # worker pid -> our end of its job socket

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
# The caller's handle on the zygote


class Zygote:
    """The running helper process and our end of its control socket (one per interpreter)."""

    lock = threading.Lock()
    current: "Zygote | None" = None
    failed = False

    def __init__(self) -> None:
        ours, theirs = socket.socketpair()
        code = (
            "import sys; sys.path[:] = %r; import guard; guard.install(); "
            "from guard.forkserver import zygote_main; zygote_main(%d)" % (list(sys.path), theirs.fileno())
        )
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", code], pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, cwd=os.getcwd()
            )
        finally:
            theirs.close()
        self.control = ours
        self.send_lock = threading.Lock()
        self.owner = os.getpid()  # a forked copy of this process must start its own helper
        self.dead = False
        # The helper never writes on the control socket: it becomes readable only at end-of-file, when the
        # helper is gone (killed from outside, crashed). A watcher thread waits for that and reaps it at once,
        # so a killed helper is not left a zombie until the next job happens to look (issue 21, item 4).
        threading.Thread(target=self._watch, name="guard-forkserver-reaper", daemon=True).start()

    def _watch(self) -> None:
        try:  # poll, not select: a server's descriptors may be numbered past select's 1,024
            watch = select.poll()
            watch.register(self.control, select.POLLIN | select.POLLHUP | select.POLLERR)
            while not watch.poll():
                pass
        except (OSError, ValueError):  # our end was closed (a helper replaced): Popen reaps it as before
            pass
        self.dead = True  # before wait(): get() must not trust poll() while wait() holds Popen's lock
        try:
            self.proc.wait()
        except Exception:  # noqa: BLE001 -- a daemon thread has no one to tell
            pass

    @classmethod
    def get(cls) -> "Zygote":
        """This process's fork server, started on first use (and again if it died or belongs to the parent
        process we were forked from)."""
        with cls.lock:
            z = cls.current
            if z is not None and z.owner != os.getpid():
                z = None  # inherited through fork(): that helper belongs to our parent
            elif z is not None and (z.dead or z.proc.poll() is not None):
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
        pid = recv_exactly(mine, 8)
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
            Zygote.get()
        except WorkerError:
            pass


def available() -> bool:
    """Whether jobs can run in worker processes here (fork, Unix sockets, a Python executable).

    >>> isinstance(available(), bool)
    True
    """
    return (
        hasattr(os, "fork")
        and hasattr(socket, "send_fds")
        and hasattr(socket, "AF_UNIX")
        and bool(sys.executable)
        and not Zygote.failed
    )
