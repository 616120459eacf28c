"""The line trainings wait in for a worker (:class:`TrainingQueue`): at most ``slots`` at once, first come first
served, one per session. :mod:`guard.trainjobs` keeps this server process's line (``QUEUE``) and re-exports
the class. No Streamlit here."""

from __future__ import annotations

import threading

__all__ = ["TrainingQueue"]


class TrainingQueue:
    """Trainings in line for at most ``slots`` workers at once, first come first served, one per session.

    :meth:`enter` puts a training in line; it starts (its ``_grant`` is called) as soon as a slot is free and
    no earlier training in line may start. A training may start when it has a session (an *owner*) with no
    other training running, or no owner at all (tests, trainings started outside a session). :meth:`release`
    frees its slot (call it once its worker is reaped); :meth:`withdraw` takes back one still in line.

    >>> q = TrainingQueue(1)
    >>> class T:
    ...     owners = set()
    ...     def _grant(self): pass
    >>> a, b = T(), T()
    >>> q.enter(a); q.enter(b)
    >>> q.position(a), q.position(b), q.running_count()
    (0, 1, 1)
    >>> q.release(a); q.position(b)
    0
    """

    def __init__(self, slots: int):
        self.slots = max(1, int(slots))
        self._lock = threading.Lock()
        self._running: list = []
        self._waiting: list = []

    def enter(self, training) -> None:
        with self._lock:
            self._waiting.append(training)
            self._dispatch()

    def withdraw(self, training) -> bool:
        """Take ``training`` out of the line; False when it is not waiting (running, ended)."""
        with self._lock:
            if training in self._waiting:
                self._waiting.remove(training)
                self._dispatch()  # it may have been the one holding back a later one of another session
                return True
            return False

    def release(self, training) -> None:
        with self._lock:
            if training in self._running:
                self._running.remove(training)
            elif training in self._waiting:
                self._waiting.remove(training)
            self._dispatch()

    def changed(self) -> None:
        """A training's owners changed (a session joined or left it): maybe another may start now."""
        with self._lock:
            self._dispatch()

    def position(self, training) -> int:
        """1 for the next training to start, 2 after it...; 0 when ``training`` is not waiting."""
        with self._lock:
            try:
                return self._waiting.index(training) + 1
            except ValueError:
                return 0

    def running_count(self) -> int:
        with self._lock:
            return len(self._running)

    def waiting_count(self) -> int:
        with self._lock:
            return len(self._waiting)

    def _dispatch(self) -> None:
        busy = set()
        for t in self._running:
            busy |= set(t.owners)
        i = 0
        while len(self._running) < self.slots and i < len(self._waiting):
            t = self._waiting[i]
            owners = set(t.owners)
            if owners and owners <= busy:
                i += 1  # every session waiting for it already has a training running: it waits
                continue
            del self._waiting[i]
            self._running.append(t)
            busy |= owners
            t._grant()
