"""Where rooms live: a few JSON documents with atomic updates and expiry, and counters in time windows.

:class:`MemoryBackend`: one process (a dict under a lock: Streamlit's sessions are threads of one process).
:class:`RedisBackend`: several processes behind the nginx front (one Redis: ``deploy/`` starts it), each
document a JSON string with Redis's own expiry, updated in WATCH/MULTI transactions; Redis down or frozen is
:class:`~liveroom.model.Unavailable`, at once for :data:`~liveroom.model.REDIS_PAUSE` s after a failure.
"""

from __future__ import annotations

import copy
import json
import threading
import time
from typing import Any, Callable

from .model import (
    REDIS_PAUSE,
    UNAVAILABLE,
    Unavailable,
)

#: the documents :meth:`insert_if_room`'s limit counts: rooms, not what lives beside them (a text, a record)
COUNTED = "room:"


class MemoryBackend:
    """Rooms in this process: a dict under a lock (every Streamlit session is a thread of one process)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._docs: dict[str, tuple[dict, float]] = {}
        self._counters: dict[str, tuple[int, float]] = {}

    def get(self, key: str, now: float) -> dict | None:
        with self._lock:
            doc = self._live(key, now)
            return copy.deepcopy(doc) if doc is not None else None

    def _live(self, key: str, now: float) -> dict | None:
        item = self._docs.get(key)
        if item is None:
            return None
        if item[1] <= now:
            del self._docs[key]
            return None
        return item[0]

    def update(self, key: str, fn: Callable[[dict | None], tuple[dict | None, float, Any]], now: float) -> Any:
        """``fn(doc or None) -> (new doc or None to delete, expires at, result)``, atomically."""
        with self._lock:
            doc = self._live(key, now)
            new, expires, result = fn(copy.deepcopy(doc) if doc is not None else None)
            if new is None:
                self._docs.pop(key, None)
            else:
                self._docs[key] = (new, expires)
            return result

    def touch(self, key: str, expires: float, now: float) -> None:
        """The document ``key`` (if it lives) expires at ``expires`` instead."""
        with self._lock:
            if self._live(key, now) is not None:
                self._docs[key] = (self._docs[key][0], expires)

    def insert_if_room(self, key: str, doc: dict, expires: float, limit: int, now: float) -> bool:
        """Add ``doc`` under a new ``key`` unless ``limit`` documents live (or ``key`` is taken)."""
        with self._lock:
            for k in [k for k, (_, exp) in self._docs.items() if exp <= now]:
                del self._docs[k]
            if key in self._docs or sum(1 for k in self._docs if k.startswith(COUNTED)) >= limit:
                return False
            self._docs[key] = (copy.deepcopy(doc), expires)
            return True

    def available(self) -> bool:
        return True

    def count(self, key: str, window: float, now: float) -> int:
        """Raise the counter ``key`` of the current ``window`` and return its value."""
        with self._lock:
            start = now - now % window
            n, since = self._counters.get(key, (0, start))
            n = n + 1 if since == start else 1
            self._counters[key] = (n, start)
            if len(self._counters) > 10_000:  # old windows' counters
                for k in [k for k, (_, s) in self._counters.items() if s != start]:
                    del self._counters[k]
            return n


class RedisBackend:
    """Rooms in Redis, shared by every process behind the nginx front: each document a JSON string with
    Redis's own expiry, updated in WATCH/MULTI transactions; a sorted set of live codes bounds their number.

    Redis down or frozen: a call fails after the client's socket timeout (:func:`store_from_url`:
    :data:`REDIS_TIMEOUT`) with :class:`Unavailable`, and for the next ``pause`` seconds every call fails at
    once (so a page run waits at most once); then the next call asks Redis again."""

    def __init__(self, client, prefix: str = "bpe-lab:", *, pause: float = REDIS_PAUSE) -> None:
        self.r = client
        self.prefix = prefix
        self.pause = pause
        self.down_until = 0.0

    def _call(self, fn: Callable[[], Any]) -> Any:
        import redis

        if time.monotonic() < self.down_until:
            raise Unavailable(UNAVAILABLE)
        try:
            return fn()
        except (redis.RedisError, OSError) as exc:  # the client's errors (timeouts, refused): not RoomError
            self.down_until = time.monotonic() + self.pause
            raise Unavailable(UNAVAILABLE) from exc

    def available(self) -> bool:
        """Whether Redis answers (a PING, unless it failed in the last ``pause`` seconds)."""
        try:
            return bool(self._call(self.r.ping))
        except Unavailable:
            return False

    def get(self, key: str, now: float) -> dict | None:
        raw = self._call(lambda: self.r.get(self.prefix + key))
        return json.loads(raw) if raw is not None else None

    def update(self, key: str, fn, now: float) -> Any:
        return self._call(lambda: self._update(key, fn, now))

    def _update(self, key: str, fn, now: float) -> Any:
        import redis

        name = self.prefix + key
        while True:
            with self.r.pipeline() as pipe:
                try:
                    pipe.watch(name)
                    raw = pipe.get(name)
                    new, expires, result = fn(json.loads(raw) if raw is not None else None)
                    pipe.multi()
                    counted = key.startswith(COUNTED)  # the live set holds the rooms only
                    if new is None:
                        pipe.delete(name)
                        if counted:
                            pipe.zrem(self.prefix + "live", key)
                    else:
                        pipe.set(name, json.dumps(new), px=max(1, int((expires - now) * 1000)))
                        if counted:
                            pipe.zadd(self.prefix + "live", {key: expires})
                    pipe.execute()
                    return result
                except redis.WatchError:
                    continue

    def touch(self, key: str, expires: float, now: float) -> None:
        self._call(lambda: self.r.pexpire(self.prefix + key, max(1, int((expires - now) * 1000))))

    def insert_if_room(self, key: str, doc: dict, expires: float, limit: int, now: float) -> bool:
        return self._call(lambda: self._insert_if_room(key, doc, expires, limit, now))

    def _insert_if_room(self, key: str, doc: dict, expires: float, limit: int, now: float) -> bool:
        import redis

        live = self.prefix + "live"
        name = self.prefix + key
        while True:
            with self.r.pipeline() as pipe:
                try:
                    self.r.zremrangebyscore(live, "-inf", now)  # rooms expired by Redis
                    pipe.watch(live, name)
                    if pipe.exists(name) or pipe.zcard(live) >= limit:
                        pipe.unwatch()
                        return False
                    pipe.multi()
                    pipe.set(name, json.dumps(doc), px=max(1, int((expires - now) * 1000)))
                    pipe.zadd(live, {key: expires})
                    pipe.execute()
                    return True
                except redis.WatchError:
                    continue

    def count(self, key: str, window: float, now: float) -> int:
        name = f"{self.prefix}count:{key}:{int(now // window)}"

        def incr():
            with self.r.pipeline() as pipe:
                pipe.incr(name)
                pipe.expire(name, int(window) + 1)
                n, _ = pipe.execute()
            return int(n)

        return self._call(incr)
