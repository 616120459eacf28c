"""The app's trainings in worker processes: one deadline, progress, shared, abandoned when nobody waits.

A training runs in a :mod:`guard.isolation` worker process, so a CPU-heavy one (a 2 MB text, a custom regex
that backtracks) never holds the server's interpreter: every other session keeps its share of the CPU and
its page runs. The worker is killed when

* the app's limit for one training (:data:`TRAIN_SECONDS`, one deadline for the whole request, whatever
  the special tokens or documents cut it into) runs out: :class:`TrainingTooLong`, a message naming the
  limit and what to do;
* nobody waits for it any more: every session that asked for it went away (tab closed) or asked for
  something else (its settings changed). Streamlit marks such a script run with a stop or rerun request
  (:func:`script_should_stop` reads it); the waiting session then leaves the training
  (:class:`TrainingAbandoned`), and the last one to leave kills the worker.

Sessions that ask for the same training at the same time share one worker (:class:`SharedTraining`:
each waiter gets the progress and the result; the result is unpickled once and shared).

Trainings wait in line for a worker (:class:`TrainingQueue`, :data:`QUEUE`): at most :data:`MAX_TRAININGS`
run at once in this server process (one per core unless ``BPE_LAB_MAX_TRAININGS`` says otherwise), and a
session never holds two: a training all of whose sessions already have one running waits until one ends
(issue 21: N sessions used to start N workers on 2 cores). A waiting session is told its place in line
(``queued(position, running, slots)``); the 60 s limit starts when its worker does. A training that nobody
waits for any more leaves the line without ever starting a worker.

No Streamlit import at module level (:func:`script_should_stop` imports it lazily), so this module is
tested without a server.

>>> import bpe
>>> t = SharedTraining(bpe.train, ("aaabdaaabac", 258), {"pattern": None}, seconds=30)
>>> t.join()
True
>>> [m.pair for m in t.wait().merges]
[(97, 97), (97, 98)]
"""

from __future__ import annotations

import copy
import os
import threading
import time
from typing import Any, Callable

from . import isolation
from .trainqueue import TrainingQueue

__all__ = [
    "TRAIN_SECONDS",
    "WORKER_NICE",
    "MAX_TRAININGS",
    "QUEUE",
    "train_in_worker",
    "SharedTraining",
    "TrainingQueue",
    "TrainingTooLong",
    "TrainingAbandoned",
    "script_should_stop",
    "current_session",
    "too_long_message",
    "queue_message",
    "available",
]

#: The app's limit for one training, in seconds (the worker is killed past it). The largest training the
#: app allows (2 MB, 20,000 merges) takes a few seconds here; the CLI has no such limit.
TRAIN_SECONDS = 60.0
#: Niceness a training worker adds to its own: on a busy machine the server's page runs (and the browsers
#: of a lecture hall on the same machine) come before a training's CPU. Measured with the catastrophic
#: link of issue 14 on 2 cores (load ~5): another session's page load 3.0-3.5 s with the worker at the
#: server's priority, 2.1-3.0 s with it niced, 1.6-1.9 s with no training running.
WORKER_NICE = 10
#: Seconds between two looks at the waiting session (stop or rerun requested?) and the progress.
POLL = 0.1


def _max_trainings() -> int:
    """``BPE_LAB_MAX_TRAININGS`` (a whole number >= 1), else the number of cores this process may use."""
    raw = os.environ.get("BPE_LAB_MAX_TRAININGS", "").strip()
    if raw.isascii() and raw.isdigit() and len(raw) <= 4 and 0 < int(raw) <= 1024:
        return int(raw)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


#: Trainings that run at once in this server process; the others wait in line. ``deploy.serve`` divides
#: the machine's cores among its processes through ``BPE_LAB_MAX_TRAININGS``.
MAX_TRAININGS = _max_trainings()


def train_in_worker(*args: Any, **kwargs: Any):
    """:func:`bpe.train` at a lower CPU priority (:data:`WORKER_NICE`): what :class:`SharedTraining` runs
    in its worker for the app."""
    import bpe

    if isolation.in_worker():
        try:
            os.nice(WORKER_NICE)
        except OSError:  # not allowed here: the same priority as the server
            pass
    return bpe.train(*args, **kwargs)


class TrainingTooLong(ValueError):
    """The training ran past the app's limit and was stopped (a message for the page)."""


class TrainingAbandoned(Exception):
    """This session stopped waiting: its script run was asked to stop or to rerun (tab closed, settings
    changed). The worker is killed when no other session waits for the same training."""


def too_long_message(seconds: float) -> str:
    """What the page says when a training hits the limit (plain words: safe for Markdown).

    >>> too_long_message(60)[:54]
    'The training was stopped after 60 s, the app’s limit f'
    """
    return (
        f"The training was stopped after {seconds:g} s, the app’s limit for one training. Ask for fewer "
        "merges or train on a shorter text (or, for a custom pre-tokenizer, a simpler regex). The command "
        "line (python -m bpe train) has no such limit."
    )


def queue_message(position: int, running: int, slots: int) -> str:
    """What the page says while a training waits in line (numbers only: safe for Markdown).

    >>> queue_message(3, 2, 2)
    'Waiting for a free training slot: 3rd in line (2 trainings running, at most 2 at once)…'
    >>> queue_message(1, 1, 1)
    'Waiting for a free training slot: next in line (1 training running, at most 1 at once)…'
    """
    if position == 1:
        place = "next"
    else:
        suffix = "th" if 10 <= position % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(position % 10, "th")
        place = f"{position:,}{suffix}"
    return (
        f"Waiting for a free training slot: {place} in line ({running:,} training{'s' if running != 1 else ''} "
        f"running, at most {slots:,} at once)…"
    )


def available() -> bool:
    """Whether trainings can run in worker processes here (else the app trains in its own process)."""
    return isolation.available()


def script_should_stop() -> bool:
    """In a Streamlit script thread: True when this script run has been asked to stop (the session went
    away: the tab closed or the connection dropped) or to rerun from the top (a widget changed). Anywhere
    else: False.

    Streamlit 1.67 records those requests in the run context's ``script_requests`` and acts on them at the
    script's next ``st`` call; a script waiting for a worker makes no ``st`` call, so it looks itself.
    Only reads the request (the script runner still handles it): a rerun that only concerns a fragment
    (which does not interrupt the full run) is not a reason to stop.
    """
    try:
        from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequestType
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
    except ImportError:  # another Streamlit: never stop early (the deadline still holds)
        return False
    ctx = get_script_run_ctx(suppress_warning=True)
    requests = getattr(ctx, "script_requests", None)
    state = getattr(requests, "_state", None)
    if state is ScriptRequestType.STOP:
        return True
    if state is ScriptRequestType.RERUN:
        data = getattr(requests, "_rerun_data", None)
        # a fragment's rerun that is not fragment-scoped does not preempt the full run (Streamlit's rule)
        return not (data is not None and data.fragment_id_queue and not data.is_fragment_scoped_rerun)
    return False


def current_session() -> str | None:
    """The id of the Streamlit session whose script runs in this thread, or None (tests, other threads)."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
    except ImportError:
        return None
    ctx = get_script_run_ctx(suppress_warning=True)
    return getattr(ctx, "session_id", None)


#: The line every training of this server process waits in.
QUEUE = TrainingQueue(MAX_TRAININGS)


class SharedTraining:
    """``fn(*args, **kwargs)`` (``bpe.train``) in a worker process, waited for by one or more sessions.

    Its first :meth:`join` puts it in line (:data:`QUEUE`, or ``queue=``); its worker starts when the line
    gives it a slot, and the slot is freed once the worker is reaped.

    A background thread waits for the worker (:meth:`guard.isolation.Job.wait` with the deadline) and keeps
    the latest progress. Each session :meth:`join`\\ s, then :meth:`wait`\\ s: it gets the progress through its
    own callback and the result (or the exception) when the worker answers; when its ``should_stop()``
    says so it leaves (:class:`TrainingAbandoned`), and the worker is killed once nobody waits.

    ``on_result(run)`` is called in the background thread with a result (e.g. to put it in a cache), even
    when every waiter has left by then.
    """

    def __init__(
        self,
        fn: Callable,
        args: tuple,
        kwargs: dict,
        *,
        seconds: float | None = TRAIN_SECONDS,
        on_result: Callable[[Any], None] | None = None,
        on_end: Callable[["SharedTraining"], None] | None = None,
        queue: TrainingQueue | None = None,
    ):
        self.seconds = seconds
        self.started = time.monotonic()
        self.progress: tuple = ()
        self.result: Any = None
        self.error: BaseException | None = None
        self.cancelled = False
        self.watchers = 0
        #: the sessions waiting for it (a tuple: replaced, never changed in place, as the queue reads it)
        self.owners: tuple = ()
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._go = threading.Event()  # set when the queue gives it a slot (or it is cancelled in line)
        self._on_result, self._on_end = on_result, on_end
        self._fn, self._args, self._kwargs = fn, tuple(args), dict(kwargs)
        self._job: isolation.Job | None = None
        self._entered = False
        self.queue = QUEUE if queue is None else queue
        self._thread = threading.Thread(target=self._follow, name="bpe-lab-training", daemon=True)
        self._thread.start()

    # -- the queue

    def _grant(self) -> None:
        """Called by the queue (under its lock): a slot is ours."""
        self._go.set()

    @property
    def position(self) -> int:
        """Its place in line (1 = next), 0 once it runs (or ended)."""
        return self.queue.position(self)

    # -- the background thread

    def _report(self, *args: Any) -> None:
        self.progress = args

    def _follow(self) -> None:
        try:
            self._run()
        finally:
            self.queue.release(self)  # the worker is reaped (Job.wait returns only then): the slot is free
        if self.error is None and self._on_result is not None:
            try:
                self._on_result(self.result)
            except Exception as exc:  # noqa: BLE001
                self.error = exc
        try:
            if self._on_end is not None:
                self._on_end(self)
        finally:
            self._done.set()  # after the hooks: a waiter that wakes up finds the cache up to date

    def _run(self) -> None:
        """Wait for a slot, start the worker, wait for it (sets ``result`` or ``error``)."""
        abandoned = TrainingAbandoned("nobody waits for this training any more: its worker was stopped")
        try:
            self._go.wait()  # the first join() put it in line
            with self._lock:
                if self.cancelled:  # everyone left while it was in line: no worker was ever started
                    self.error = abandoned
                    return
                self._job = isolation.start(self._fn, *self._args, wants_progress=True, **self._kwargs)
            self.result = self._job.wait(isolation.Deadline(self.seconds), progress=self._report)
        except isolation.WorkerTimeout:
            self.error = TrainingTooLong(too_long_message(self.seconds or 0))
        except isolation.WorkerCancelled:
            self.error = abandoned
        except BaseException as exc:  # noqa: BLE001 -- handed to every waiter
            self.error = exc

    # -- the sessions

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def join(self, owner: str | None = None) -> bool:
        """Count one more waiter (the session ``owner``, if known); False when the training was already
        cancelled (start a new one)."""
        with self._lock:
            if self.cancelled:
                return False
            self.watchers += 1
            if owner is not None:
                self.owners = self.owners + (owner,)
            first, self._entered = not self._entered, True
        if first:  # in line from its first waiter on, with that waiter's session known to the queue
            self.queue.enter(self)
        elif owner is not None:
            self.queue.changed()
        return True

    def leave(self, owner: str | None = None) -> None:
        """One waiter fewer; the last one to leave a training still running kills its worker (or takes it out
        of the line)."""
        with self._lock:
            self.watchers -= 1
            if owner is not None and owner in self.owners:
                i = self.owners.index(owner)
                self.owners = self.owners[:i] + self.owners[i + 1 :]
            if self.watchers > 0 or self._done.is_set():
                job = None
            else:
                self.cancelled = True
                job = self._job
                if job is None:
                    self._go.set()  # still in line: its thread wakes up, sees it cancelled, starts nothing
        if self.cancelled and job is None:
            self.queue.withdraw(self)
        elif job is not None:
            job.cancel()
        elif owner is not None:
            self.queue.changed()

    def wait(
        self,
        progress: Callable[..., Any] | None = None,
        should_stop: Callable[[], bool] | None = None,
        poll: float = POLL,
        queued: Callable[[int, int, int], Any] | None = None,
        owner: str | None = None,
    ) -> Any:
        """The result, after :meth:`join` (with the same ``owner``). ``progress(*args)`` gets the worker's
        progress when it changes (at each look, and its last report before the result); ``queued(position,
        running, slots)`` gets the training's place in line when it changes, and ``(0, ...)`` once it leaves
        the line; ``should_stop()`` is asked every ``poll`` seconds. Raises what the training raised,
        :class:`TrainingTooLong`, or :class:`TrainingAbandoned` (this waiter left)."""
        seen: tuple = ()
        place = -1
        left = False
        try:
            while True:
                if queued is not None and place != 0:
                    now = self.position
                    if now != place and (now or place > 0):  # its place, and 0 once when it leaves the line
                        queued(now, self.queue.running_count(), self.queue.slots)
                    place = now
                if self._done.wait(poll):
                    break
                if should_stop is not None and should_stop():
                    left = True
                    self.leave(owner)
                    raise TrainingAbandoned("this session stopped waiting for the training")
                if progress is not None and self.progress != seen:
                    seen = self.progress
                    progress(*seen)
            if progress is not None and self.progress != seen:
                # the last report too (a short training may end between two looks)
                progress(*self.progress)
        finally:  # every way out (the result, or an exception of the caller's progress callback) leaves once
            if not left:
                self.leave(owner)
        if self.error is not None:
            try:
                exc = copy.copy(self.error)  # each waiter its own exception object (tracebacks differ)
            except Exception:  # noqa: BLE001 -- an exception that does not copy: the one object
                exc = self.error
            raise exc
        return self.result
