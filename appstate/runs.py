"""Trained runs, shared by every session: one bounded LRU cache for the server process.

Session state holds only small things (settings, the step, a text's key). Trained runs are immutable and
shared by every session through a small LRU cache; a per-key lock makes ten students who open the same
sample at once train it once.

>>> text_key("hello")
'aaf4c61ddcc5e8a2'
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable

import streamlit as st

import bpe
from guard import trainjobs

#: Runs kept in memory for all sessions together...
RUN_CACHE_ENTRIES = 24
#: ...and at most this many merges in all of them (a merge with its recorded top-20 pairs is ~1.3 KB, so
#: this bounds the cache near 400 MB however large the runs are; the newest run is always kept).
RUN_CACHE_MERGES = 300_000


@dataclass(frozen=True)
class TrainSettings:
    """Everything that changes a training run (besides the text)."""

    vocab_size: int = 512
    pattern: str | None = "gpt4"  # registry name, a custom regex, or None
    level: str = "byte"
    tie_break: str = "lexical"
    normalize: str | None = None
    special_tokens: tuple[str, ...] = ()
    #: char level: the share of the text's characters the alphabet keeps (the rest: byte fallback)
    character_coverage: float = 1.0
    #: training stops when the best pair occurs fewer times (the Compare page's side B may set it)
    min_frequency: int = 1


def text_key(text: str) -> str:
    """A short stable key for a text (sha1 prefix)."""
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


class _RunCache:
    """A bounded LRU of trained runs (by count and by total merges), safe across Streamlit's threads.

    :meth:`get_or_start` trains in a worker process (``trainjobs.SharedTraining``): sessions asking for
    the same key at once share one worker, and it is killed when none of them waits any more.
    :meth:`get_or_train` trains in this process (where no worker can run), one training per key.
    """

    def __init__(self, entries: int, max_merges: int = RUN_CACHE_MERGES):
        self.entries = entries
        self.max_merges = max_merges
        self.merges = 0
        self._runs: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        self._key_locks: dict = {}
        self._pending: dict = {}  # key -> the SharedTraining running for it

    def get(self, key):
        with self._lock:
            run = self._runs.get(key)
            if run is not None:
                self._runs.move_to_end(key)
            return run

    def _store(self, key, run) -> None:
        with self._lock:
            if key in self._runs:
                self.merges -= len(self._runs[key].merges)
            self._runs[key] = run
            self._runs.move_to_end(key)
            self.merges += len(run.merges)
            while len(self._runs) > 1 and (len(self._runs) > self.entries or self.merges > self.max_merges):
                _, old = self._runs.popitem(last=False)
                self.merges -= len(old.merges)

    def get_or_train(self, key, train: Callable[[], "bpe.Run"]) -> "bpe.Run":
        run = self.get(key)
        if run is not None:
            return run
        with self._lock:
            key_lock = self._key_locks.setdefault(key, threading.Lock())
        with key_lock:
            run = self.get(key)
            if run is None:
                run = train()
                self._store(key, run)
            with self._lock:
                self._key_locks.pop(key, None)
            return run

    def get_or_start(
        self,
        key,
        start: "Callable[..., trainjobs.SharedTraining]",
        progress: Callable[..., None] | None = None,
        should_stop: Callable[[], bool] | None = None,
        queued: Callable[[int, int, int], None] | None = None,
        owner: str | None = None,
    ) -> "bpe.Run":
        """The cached run, or the result of the training running for ``key`` (joined), or of a new one:
        ``start(on_result=..., on_end=...)`` returns a started ``SharedTraining``. ``owner`` names the waiting
        session (one training at a time each); ``queued(position, running, slots)`` hears its place in line
        (see ``trainjobs``). Raises what the training raises, ``TrainingTooLong``, ``TrainingAbandoned``
        (``should_stop()`` said so)."""
        with self._lock:
            run = self._runs.get(key)
            if run is not None:
                self._runs.move_to_end(key)
                return run
            training = self._pending.get(key)
            if training is None or not training.join(owner):
                training = start(on_result=lambda r: self._store(key, r), on_end=lambda t: self._ended(key, t))
                training.join(owner)
                self._pending[key] = training
        return training.wait(progress, should_stop, queued=queued, owner=owner)

    def _ended(self, key, training) -> None:
        with self._lock:
            if self._pending.get(key) is training:
                del self._pending[key]

    def training(self, key):
        """The training running for ``key`` (a ``SharedTraining``), or None."""
        with self._lock:
            return self._pending.get(key)

    def __len__(self) -> int:
        return len(self._runs)


_run_cache: "_RunCache | None" = None
_run_cache_lock = threading.Lock()


def run_cache() -> _RunCache:
    """The one run cache of this server process.

    Not an ``st.cache_resource``: any websocket client can send Streamlit's clear-cache message, which
    empties every ``st.cache_resource`` for every user (Streamlit 1.67 has no setting to refuse it), and
    every session would then train its run again. Held here, the trained runs survive it (issue 21)."""
    global _run_cache
    with _run_cache_lock:
        if _run_cache is None:
            trainjobs.isolation.warm_up()  # the worker helper imports bpe now, not at the first training
            _run_cache = _RunCache(RUN_CACHE_ENTRIES)
        return _run_cache


#: The app's limit for one training, in seconds (one deadline per request: see ``trainjobs``).
TRAIN_SECONDS = trainjobs.TRAIN_SECONDS


def get_run(
    text: str,
    settings: TrainSettings,
    progress: Callable[[int, int], None] | None = None,
    queued: Callable[[int, int, int], None] | None = None,
) -> "bpe.Run":
    """Train (or fetch) the run for ``text`` with ``settings``. Raises the library's ValueErrors and
    ``trainjobs.TrainingTooLong`` (a ValueError: past :data:`TRAIN_SECONDS`).

    The training runs in a worker process (``trainjobs``): it waits in line for one (at most
    ``trainjobs.MAX_TRAININGS`` at once, one per session; ``queued(position, running, slots)`` hears its
    place), this session waits for it, gets its progress, and leaves it when its script run is asked to
    stop or rerun (then the worker is killed, or the training leaves the line, unless another session waits
    for the same run, and Streamlit's stop or rerun goes on)."""
    key = (text_key(text), settings)
    kwargs = dict(
        pattern=settings.pattern,
        level=settings.level,
        tie_break=settings.tie_break,
        normalize=settings.normalize,
        special_tokens=settings.special_tokens,
    )
    if settings.character_coverage < 1.0:
        kwargs["character_coverage"] = settings.character_coverage
    if settings.min_frequency > 1:
        kwargs["min_frequency"] = settings.min_frequency
    cache = run_cache()
    if not trainjobs.available():
        return cache.get_or_train(key, lambda: bpe.train(text, settings.vocab_size, progress=progress, **kwargs))

    def start(**hooks) -> trainjobs.SharedTraining:
        return trainjobs.SharedTraining(
            trainjobs.train_in_worker, (text, settings.vocab_size), kwargs, seconds=TRAIN_SECONDS, **hooks
        )

    try:
        return cache.get_or_start(
            key, start, progress, trainjobs.script_should_stop, queued=queued, owner=trainjobs.current_session()
        )
    except trainjobs.TrainingAbandoned:
        st.empty()  # a yield point: Streamlit acts on the stop or rerun it was asked for (raises)
        raise


def peek_run(text: str, settings: TrainSettings) -> "bpe.Run | None":
    """The cached run for ``text`` and ``settings``, or None when it still has to be trained."""
    return run_cache().get((text_key(text), settings))


def run_id(text: str, settings: TrainSettings) -> str:
    """A short string naming a run (for caches keyed on it)."""
    return f"{text_key(text)}:{settings!r}"
