"""The app's trainings in worker processes: one deadline, progress, shared, abandoned when nobody waits.

A training runs in a :mod:`bpe.isolation` worker process, so a CPU-heavy one (a 2 MB text, a custom regex
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

from bpe import isolation

__all__ = ["TRAIN_SECONDS", "WORKER_NICE", "train_in_worker", "SharedTraining", "TrainingTooLong", "TrainingAbandoned", "script_should_stop",
           "too_long_message", "available"]

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
    return (f"The training was stopped after {seconds:g} s, the app’s limit for one training. Ask for fewer "
            "merges or train on a shorter text (or, for a custom pre-tokenizer, a simpler regex). The command "
            "line (python -m bpe train) has no such limit.")


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


class SharedTraining:
    """``fn(*args, **kwargs)`` (``bpe.train``) in a worker process, waited for by one or more sessions.

    A background thread waits for the worker (:meth:`bpe.isolation.Job.wait` with the deadline) and keeps
    the latest progress. Each session :meth:`join`\\ s, then :meth:`wait`\\ s: it gets the progress through its
    own callback and the result (or the exception) when the worker answers; when its ``should_stop()``
    says so it leaves (:class:`TrainingAbandoned`), and the worker is killed once nobody waits.

    ``on_result(run)`` is called in the background thread with a result (e.g. to put it in a cache), even
    when every waiter has left by then.
    """

    def __init__(self, fn: Callable, args: tuple, kwargs: dict, *, seconds: float | None = TRAIN_SECONDS,
                 on_result: Callable[[Any], None] | None = None, on_end: Callable[["SharedTraining"], None] | None = None):
        self.seconds = seconds
        self.started = time.monotonic()
        self.progress: tuple = ()
        self.result: Any = None
        self.error: BaseException | None = None
        self.cancelled = False
        self.watchers = 0
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._on_result, self._on_end = on_result, on_end
        self._job = isolation.start(fn, *args, wants_progress=True, **kwargs)
        self._thread = threading.Thread(target=self._follow, name="bpe-lab-training", daemon=True)
        self._thread.start()

    # -- the background thread

    def _report(self, *args: Any) -> None:
        self.progress = args

    def _follow(self) -> None:
        try:
            self.result = self._job.wait(isolation.Deadline(self.seconds), progress=self._report)
        except isolation.WorkerTimeout:
            self.error = TrainingTooLong(too_long_message(self.seconds or 0))
        except isolation.WorkerCancelled:
            self.error = TrainingAbandoned("nobody waits for this training any more: its worker was stopped")
        except BaseException as exc:  # noqa: BLE001 -- handed to every waiter
            self.error = exc
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

    # -- the sessions

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def join(self) -> bool:
        """Count one more waiter; False when the training was already cancelled (start a new one)."""
        with self._lock:
            if self.cancelled:
                return False
            self.watchers += 1
            return True

    def leave(self) -> None:
        """One waiter fewer; the last one to leave a training still running kills its worker."""
        with self._lock:
            self.watchers -= 1
            if self.watchers > 0 or self._done.is_set():
                return
            self.cancelled = True
        self._job.cancel()

    def wait(self, progress: Callable[..., Any] | None = None, should_stop: Callable[[], bool] | None = None,
             poll: float = POLL) -> Any:
        """The result, after :meth:`join`. ``progress(*args)`` gets the worker's progress when it changes
        (at each look, and its last report before the result);
        ``should_stop()`` is asked every ``poll`` seconds. Raises what the training raised,
        :class:`TrainingTooLong`, or :class:`TrainingAbandoned` (this waiter left)."""
        seen: tuple = ()
        left = False
        try:
            while not self._done.wait(poll):
                if should_stop is not None and should_stop():
                    left = True
                    self.leave()
                    raise TrainingAbandoned("this session stopped waiting for the training")
                if progress is not None and self.progress != seen:
                    seen = self.progress
                    progress(*seen)
            if progress is not None and self.progress != seen:
                # the last report too (a short training may end between two looks)
                progress(*self.progress)
        finally:  # every way out (the result, or an exception of the caller's progress callback) leaves once
            if not left:
                self.leave()
        if self.error is not None:
            try:
                exc = copy.copy(self.error)  # each waiter its own exception object (tracebacks differ)
            except Exception:  # noqa: BLE001 -- an exception that does not copy: the one object
                exc = self.error
            raise exc
        return self.result
