"""Live rooms: a teacher's run that students follow on their own devices, and a poll the room answers.

No Streamlit here: :class:`RoomStore` is the rooms' whole logic over a small backend of JSON documents,
:class:`MemoryBackend` (one process: a dict under a lock, Streamlit's sessions being threads) or
:class:`RedisBackend` (several processes behind the nginx front: one Redis, ``deploy/`` starts it and
passes its URL in ``BPE_LAB_ROOMS_URL``). :func:`store` is the process's store, picked by that variable.

A room is::

    {"code": "7KQ2MX", "token": sha256 of the teacher's token, "settings": {the share link's parameters},
     "play": {"merge", "speed", "playing", "t" (server clock when it was set), "v" (raised on each change)},
     "lesson": {"lesson", "step"} (a Classroom step) | None (the player), "poll": {"id", "open", "k", "n", "answers": {student: option},
     "revealed"} | None, "sig" (raised when the poll or the run changes: students' pages then rerun),
     "students": {student: last seen}, "addrs": {student: their address's key}, "answered": {student: answers given},
     "beat": last heartbeat of the teacher's session, "created"}

* the **code** is :data:`CODE_LEN` symbols from a 32-symbol alphabet without look-alikes (:data:`ALPHABET`:
  no 0/O, 1/I), drawn with :mod:`secrets` (32**6 > 10**9 codes for at most :data:`MAX_ROOMS` rooms);
* the **teacher's token** is a secret returned once by :meth:`RoomStore.create` and held only in the
  teacher's session; the room keeps its SHA-256. Every change but a join and an answer needs it: a student
  never drives a room;
* a room lives while its teacher's session beats (:meth:`RoomStore.beat`) and :data:`GRACE` seconds after
  the last beat; the teacher can close it at once;
* a student counts while their session is alive: its server process says so (:meth:`RoomStore.seen`, every
  few seconds: ``appstate.room_presence``), and :data:`STUDENT_TTL` seconds after the last time; a join
  prunes those who left, so a room fills only with people who are there;
* bounded: :data:`MAX_ROOMS` rooms, :data:`MAX_STUDENTS` students a room, :data:`SEATS_PER_ADDRESS` of them
  from one client address (:func:`address_key`), :data:`MAX_ANSWERS` answers a student; joins are
  rate-limited per student session (:data:`JOIN_LIMIT` a minute) and bad codes per address
  (:data:`BAD_CODE_PER_ADDRESS`) and per store (:data:`BAD_CODE_LIMIT` a minute), so codes cannot be guessed
  in practice and one client cannot spend everyone's budget.

Errors are :class:`RoomError`, whose message is plain text for the page (escape it); :class:`Unavailable`
when the store (Redis) does not answer within :data:`REDIS_TIMEOUT` s -- then for :data:`REDIS_PAUSE` s
every call fails at once, without waiting on it again.

>>> s = RoomStore(MemoryBackend(), clock=lambda: 1000.0)
>>> code, token = s.create({"sample": "english", "merges": 256})
>>> len(code), set(code) <= set(ALPHABET)
(6, True)
>>> s.join(code, "student-1")["settings"]["merges"]
256
>>> s.set_play(code, token, merge=5, speed=2, playing=False)["merge"]
5
>>> s.set_play(code, "not the token", merge=9, speed=2, playing=False)
Traceback (most recent call last):
...
appstate.rooms.NotTeacher: Only the teacher who started this room can change it.
"""
from __future__ import annotations

import copy
import hashlib
import hmac
import json
import os
import re
import secrets
import threading
import time
from typing import Any, Callable

__all__ = ["ALPHABET", "CODE_LEN", "GRACE", "MAX_ROOMS", "MAX_STUDENTS", "MAX_ANSWERS", "JOIN_LIMIT",
           "BAD_CODE_LIMIT", "ROOMS_URL_ENV", "RoomError", "NoSuchRoom", "RoomFull", "TooManyRooms",
           "RateLimited", "NotTeacher", "PollClosed", "TextTooLarge", "MAX_TEXT_BYTES", "text_digest", "MemoryBackend",
           "RedisBackend", "RoomStore", "normalize_code", "poll_counts", "follow_state", "store", "store_from_url",
           "play_endpoint", "PLAY_PATH", "PlayWatch", "Unavailable", "TooManyHere", "STUDENT_TTL",
           "SEATS_PER_ADDRESS", "SEATS_ENV", "BAD_CODE_PER_ADDRESS", "address_key", "present", "UNAVAILABLE",
           "REDIS_TIMEOUT", "REDIS_PAUSE"]

#: 32 symbols: digits and capitals without 0, 1, I and O (read aloud and typed from a projector).
ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
CODE_LEN = 6
#: seconds a room outlives its teacher's last heartbeat
GRACE = 180.0
MAX_ROOMS = 50
MAX_STUDENTS = 200
MAX_ANSWERS = 500
#: join attempts a student session may make in a minute
JOIN_LIMIT = 12
#: the largest text a room carries (UTF-8 bytes): the player's training limit (appstate.sources.MAX_TRAIN_BYTES)
MAX_TEXT_BYTES = 2_000_000
#: joins with a code that names no room, per store, in a minute
BAD_CODE_LIMIT = 600
#: ... per client address (one client cannot spend the store's budget alone)
BAD_CODE_PER_ADDRESS = 60
#: seconds a student counts after their session's last sign of life (its process says so every
#: appstate.room_presence.EVERY seconds)
STUDENT_TTL = 30.0
#: places in a room one client address may hold (0: no limit); the environment variable SEATS_ENV sets it --
#: a lecture hall whose students all reach the server through one NAT address sets it to 0 (or 200)
SEATS_PER_ADDRESS = 4
SEATS_ENV = "BPE_LAB_SEATS_PER_ADDRESS"
#: seconds a Redis call may take (connect, read) before the live room is unavailable, and the seconds it
#: then stays so without asking Redis again (every page run would wait otherwise)
REDIS_TIMEOUT = 0.5
REDIS_PAUSE = 2.0
UNAVAILABLE = "The live room is unavailable right now: it comes back by itself in a moment."
WINDOW = 60.0
#: how far back a teacher's report may date its action (s): the wait of a report in a busy session
MAX_AT_AGE = 3.0
#: the environment variable naming the rooms' store: unset or ``memory`` -> this process;
#: ``redis://host:port/db`` or ``unix:///path/redis.sock`` -> that Redis (deploy/ sets it)
ROOMS_URL_ENV = "BPE_LAB_ROOMS_URL"
_CODE_RE = re.compile(f"^[{ALPHABET}]{{{CODE_LEN}}}$")


class RoomError(Exception):
    """Something a page says to its user (plain text: escape it)."""


class NoSuchRoom(RoomError):
    pass


class RoomFull(RoomError):
    pass


class TooManyRooms(RoomError):
    pass


class RateLimited(RoomError):
    pass


class NotTeacher(RoomError):
    pass


class PollClosed(RoomError):
    pass


class TextTooLarge(RoomError):
    pass


class TooManyHere(RoomError):
    pass


class Unavailable(RoomError):
    """The store does not answer (Redis down or frozen): pages say :data:`UNAVAILABLE` and keep working."""


def address_key(ip: Any) -> str:
    """What limits per client call an address: an IPv4 address, an IPv6 address's /64 (one subscriber's
    network), ``local`` for loopback or none (a test, or a proxy that does not say).

    >>> address_key("203.0.113.7"), address_key("2001:db8:1:2:3:4:5:6"), address_key("127.0.0.1"), address_key(None)
    ('203.0.113.7', '2001:db8:1:2::/64', 'local', 'local')
    """
    import ipaddress

    try:
        ip_obj = ipaddress.ip_address(str(ip).strip()) if ip else None
    except ValueError:
        return "local" if not ip else "?" + hashlib.sha256(str(ip).encode("utf-8", "replace")).hexdigest()[:16]
    if ip_obj is None or ip_obj.is_loopback:
        return "local"
    if ip_obj.version == 6:
        if ip_obj.ipv4_mapped is not None:
            return str(ip_obj.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip_obj}/64", strict=False))
    return str(ip_obj)


def present(room: dict, now: float, ttl: float = STUDENT_TTL) -> int:
    """How many students are in the room now: those seen in the last ``ttl`` seconds.

    >>> present({"students": {"a": 100.0, "b": 60.0, "c": 95.0}}, 110.0)
    2
    """
    return sum(1 for seen in (room.get("students") or {}).values() if seen >= now - ttl)


def text_digest(text: str) -> str:
    """What a room's settings call its text by: the first 24 hex digits of the SHA-256 of its UTF-8.

    >>> text_digest("aaabdaaabac")
    '5db308a70a19458056963fb2'
    """
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def normalize_code(raw: Any) -> str | None:
    """A typed or linked code in canonical form (capitals, no spaces or dashes), or None if it cannot be one.

    >>> normalize_code(" 7kq-2mx "), normalize_code("7KQ2M0"), normalize_code(None)
    ('7KQ2MX', None, None)
    """
    if not isinstance(raw, str) or len(raw) > 40:
        return None
    code = re.sub(r"[\s-]", "", raw).upper()
    return code if _CODE_RE.match(code) else None


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def poll_counts(room: dict) -> list[int]:
    """How many students picked each option of the room's poll (counts only: no names).

    >>> poll_counts({"poll": {"n": 3, "answers": {"a": 0, "b": 2, "c": 2}}})
    [1, 0, 2]
    """
    poll = room.get("poll") or {}
    counts = [0] * int(poll.get("n", 0))
    for choice in (poll.get("answers") or {}).values():
        if 0 <= choice < len(counts):
            counts[choice] += 1
    return counts


def follow_state(room: dict, now: float) -> dict:
    """What a following player needs: ``{"merge", "speed", "playing", "age", "v", "sig"}``, ``age`` being the
    milliseconds since the teacher set it (so each browser, whatever its clock, starts from the server's),
    ``sig`` the version of the rest (the poll, the run): when it changes the student's page reruns.

    >>> follow_state({"play": {"merge": 4, "speed": 2, "playing": True, "t": 10.0, "v": 3}}, 10.5)
    {'merge': 4, 'speed': 2, 'playing': True, 'age': 500, 'v': 3, 'sig': 0}
    """
    p = room.get("play") or {}
    return {"merge": int(p.get("merge", 0)), "speed": p.get("speed", 2), "playing": bool(p.get("playing")),
            "age": max(0, int(round((now - float(p.get("t", now))) * 1000))), "v": int(p.get("v", 0)),
            "sig": int(room.get("sig", 0))}


# ----------------------------------------------------------------------------------------------------
# Backends: a few JSON documents with atomic updates and expiry, and counters in time windows

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
            if key in self._docs or len(self._docs) >= limit:
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
            if len(self._counters) > 10_000:   # old windows' counters
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
        except (redis.RedisError, OSError) as exc:      # the client's errors (timeouts, refused): not RoomError
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
                    if new is None:
                        pipe.delete(name)
                        pipe.zrem(self.prefix + "live", key)
                    else:
                        pipe.set(name, json.dumps(new), px=max(1, int((expires - now) * 1000)))
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
                    self.r.zremrangebyscore(live, "-inf", now)   # rooms expired by Redis
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


# ----------------------------------------------------------------------------------------------------

class RoomStore:
    """Every room operation (see the module's docstring); ``clock``: seconds (``time.time``; tests pass
    their own)."""

    def __init__(self, backend, *, clock: Callable[[], float] = time.time, grace: float = GRACE,
                 max_rooms: int = MAX_ROOMS, max_students: int = MAX_STUDENTS, max_answers: int = MAX_ANSWERS,
                 join_limit: int = JOIN_LIMIT, bad_code_limit: int = BAD_CODE_LIMIT,
                 bad_code_per_address: int = BAD_CODE_PER_ADDRESS, student_ttl: float = STUDENT_TTL,
                 seats_per_address: int | None = None) -> None:
        self.backend, self.clock, self.grace = backend, clock, grace
        self.max_rooms, self.max_students, self.max_answers = max_rooms, max_students, max_answers
        self.join_limit, self.bad_code_limit = join_limit, bad_code_limit
        self.bad_code_per_address, self.student_ttl = bad_code_per_address, student_ttl
        self.seats_per_address = _seats_from_env() if seats_per_address is None else seats_per_address

    def available(self) -> bool:
        """Whether the store answers now (Redis: a PING; see :class:`RedisBackend`)."""
        return self.backend.available()

    # ------------------------------------------------------------------ the teacher

    def create(self, settings: dict, *, merge: int = 0, speed: float = 2) -> tuple[str, str]:
        """A new room showing the run ``settings`` (the share link's parameters) at ``merge``; returns
        (code, the teacher's token). :class:`TooManyRooms` when :data:`MAX_ROOMS` rooms live."""
        now = self.clock()
        token = secrets.token_urlsafe(24)
        for _ in range(20):
            code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LEN))
            doc = {"code": code, "token": _digest(token), "settings": dict(settings),
                   "play": {"merge": int(merge), "speed": speed, "playing": False, "t": now, "v": 1},
                   "lesson": None, "poll": None, "students": {}, "answered": {}, "beat": now, "created": now}
            if self.backend.insert_if_room("room:" + code, doc, now + self.grace, self.max_rooms, now):
                return code, token
            if self.backend.get("room:" + code, now) is None:   # not a taken code: the store is full
                break
        raise TooManyRooms(f"This server already holds {self.max_rooms} live rooms: try again in a few minutes.")

    def _teacher(self, code: str, token: str, change: Callable[[dict, float], Any]) -> Any:
        now = self.clock()

        def fn(room):
            if room is None:
                raise NoSuchRoom("This room has closed.")
            if not isinstance(token, str) or not hmac.compare_digest(room["token"], _digest(token)):
                raise NotTeacher("Only the teacher who started this room can change it.")
            result = change(room, now)
            room["beat"] = now
            return room, now + self.grace, result

        result = self.backend.update("room:" + code, fn, now)
        self.backend.touch("text:" + code, now + self.grace, now)    # the room's text lives as long
        return result

    def beat(self, code: str, token: str) -> dict:
        """The teacher's session is alive: the room lives :data:`GRACE` seconds more. Returns the room."""
        return self._teacher(code, token, lambda room, now: copy.deepcopy(room))

    def close(self, code: str, token: str) -> None:
        """Close the room now (its students are told it has closed)."""
        now = self.clock()

        def fn(room):
            if room is None:
                return None, now, None
            if not isinstance(token, str) or not hmac.compare_digest(room["token"], _digest(token)):
                raise NotTeacher("Only the teacher who started this room can close it.")
            return None, now, None

        self.backend.update("room:" + code, fn, now)
        self.backend.update("text:" + code, lambda old: (None, now, None), now)

    def set_play(self, code: str, token: str, *, merge: int, speed: float, playing: bool,
                 at: float | None = None) -> dict:
        """The teacher's player moved (a step, a jump, play, pause, a speed): the new play state. ``at``: when
        the teacher acted (seconds, this clock), if the report says; taken only within :data:`MAX_AT_AGE`
        seconds before now (else now)."""
        def change(room, now):
            v = int(room["play"].get("v", 0)) + 1
            t = at if at is not None and now - MAX_AT_AGE <= at <= now else now
            room["play"] = {"merge": max(0, int(merge)), "speed": speed, "playing": bool(playing), "t": t, "v": v}
            return dict(room["play"])
        return self._teacher(code, token, change)

    def set_settings(self, code: str, token: str, settings: dict) -> bool:
        """The teacher's run changed (text or settings): students get it, from merge 0. Returns whether it
        changed."""
        def change(room, now):
            if room["settings"] == settings:
                return False
            room["settings"] = dict(settings)
            room["play"] = {"merge": 0, "speed": room["play"].get("speed", 2), "playing": False, "t": now,
                            "v": int(room["play"].get("v", 0)) + 1}
            room["poll"] = None
            room["sig"] = int(room.get("sig", 0)) + 1
            return True
        return self._teacher(code, token, change)

    def put_text(self, code: str, token: str, text: str, name: str) -> str:
        """Keep the teacher's text (an upload or a long paste: a share link cannot carry it) beside the room, for
        its students (:meth:`text`); returns its digest, which the room's settings then name
        (``text_digest``). At most :data:`MAX_TEXT_BYTES` (UTF-8) -- what the player trains on."""
        if len(text.encode("utf-8", "surrogatepass")) > MAX_TEXT_BYTES:
            raise TextTooLarge(f"A live room carries texts of up to {MAX_TEXT_BYTES:,} bytes.")
        digest = text_digest(text)
        self._teacher(code, token, lambda room, now: None)      # the teacher's, and the room lives
        now = self.clock()
        doc = {"digest": digest, "name": str(name)[:200], "text": text}
        self.backend.update("text:" + code, lambda old: (doc, now + self.grace, None), now)
        return digest

    def text(self, code: str) -> dict | None:
        """The room's text as :meth:`put_text` kept it, ``{"digest", "name", "text"}`` (None: none, or the
        room closed)."""
        c = normalize_code(code)
        return self.backend.get("text:" + c, self.clock()) if c else None

    def set_lesson(self, code: str, token: str, lesson: int | None, step: int = 1) -> bool:
        """What the teacher shows: a Classroom lesson and step (``lesson`` 1-based), or the merge player
        (``lesson`` None). Following students go there (their pages rerun: ``sig`` is raised). Returns whether
        it changed."""
        def change(room, now):
            screen = None if lesson is None else {"lesson": int(lesson), "step": int(step)}
            if room.get("lesson") == screen:
                return False
            room["lesson"] = screen
            room["sig"] = int(room.get("sig", 0)) + 1
            return True
        return self._teacher(code, token, change)

    def open_poll(self, code: str, token: str, *, k: int, n: int) -> int:
        """Ask the room "which pair is merged next" about merge ``k + 1`` with ``n`` options; returns the
        poll's id (a new poll replaces the last)."""
        def change(room, now):
            pid = int((room.get("poll") or {}).get("id", 0)) + 1
            room["poll"] = {"id": pid, "open": True, "k": int(k), "n": int(n), "answers": {}, "revealed": False}
            room["sig"] = int(room.get("sig", 0)) + 1
            return pid
        return self._teacher(code, token, change)

    def reveal(self, code: str, token: str) -> None:
        """Close the poll and show every student the answer."""
        def change(room, now):
            if not room.get("poll"):
                raise PollClosed("There is no poll to reveal.")
            room["poll"]["open"], room["poll"]["revealed"] = False, True
            room["sig"] = int(room.get("sig", 0)) + 1
        self._teacher(code, token, change)

    def end_poll(self, code: str, token: str) -> None:
        """Take the poll away."""
        def change(room, now):
            room["poll"] = None
            room["sig"] = int(room.get("sig", 0)) + 1
        self._teacher(code, token, change)

    # ------------------------------------------------------------------ students

    def room(self, code: str) -> dict | None:
        """The live room with this code (None: no such room, or it closed or expired)."""
        c = normalize_code(code)
        return self.backend.get("room:" + c, self.clock()) if c else None

    def _bad_code(self, address: Any, now: float) -> None:
        """A code that names no room: it counts against :data:`BAD_CODE_PER_ADDRESS` (this address, if known)
        and :data:`BAD_CODE_LIMIT` (everyone); :class:`RateLimited` past either."""
        if address is not None and self.backend.count(f"badcode:{address_key(address)}", WINDOW,
                                                      now) > self.bad_code_per_address:
            raise RateLimited("Too many attempts to join rooms from your address: wait a minute, then try again.")
        if self.backend.count("badcode", WINDOW, now) > self.bad_code_limit:
            raise RateLimited("Too many attempts to join rooms on this server: wait a minute, then try again.")

    def play(self, code: Any, address: Any = None) -> dict | None:
        """What a following browser asks every few hundred ms (:func:`play_endpoint`): the room's
        :func:`follow_state`, or None when there is no such room. A code that names no room counts against
        the bad-code budgets (:class:`RateLimited` past one), as a join does: no guessing this way either."""
        now = self.clock()
        c = normalize_code(code)
        room = self.backend.get("room:" + c, now) if c else None
        if room is None:
            self._bad_code(address, now)
            return None
        return follow_state(room, now)

    def _seat(self, room: dict, student: str, addr: str | None, now: float) -> None:
        """Seat ``student`` (from address key ``addr``; None: unknown, not limited) in ``room`` (changed in place), after
        pruning the students not seen for :attr:`student_ttl` seconds. :class:`RoomFull`, :class:`TooManyHere`."""
        students = room.setdefault("students", {})
        addrs = room.setdefault("addrs", {})
        for sid in [sid for sid, seen in students.items() if seen < now - self.student_ttl]:
            del students[sid]
            addrs.pop(sid, None)
        if student not in students:
            if len(students) >= self.max_students:
                raise RoomFull(f"This room is full ({self.max_students} students).")
            if addr is not None and self.seats_per_address and sum(1 for sid in students if addrs.get(sid) == addr) >= self.seats_per_address:
                raise TooManyHere(f"This room already has {self.seats_per_address} students from your address "
                                  "(your network): close a tab that is in the room, or try again in a minute.")
        students[student] = now
        if addr is not None:
            addrs[student] = addr

    def join(self, code: Any, student: str, address: Any = None) -> dict:
        """Student session ``student`` (from the client address ``address``, :func:`address_key`; None:
        unknown, not limited per address) joins the
        room ``code`` (as typed or linked); returns the room. :class:`RateLimited` after :data:`JOIN_LIMIT`
        attempts in a minute (or too many bad codes from this address or on this server), :class:`NoSuchRoom`,
        :class:`RoomFull`, :class:`TooManyHere` (:data:`SEATS_PER_ADDRESS` places held from this address)."""
        now = self.clock()
        if self.backend.count(f"join:{student}", WINDOW, now) > self.join_limit:
            raise RateLimited("Too many attempts to join a room: wait a minute, then try again.")
        c = normalize_code(code)
        if c is None or self.backend.get("room:" + c, now) is None:
            self._bad_code(address, now)
            raise NoSuchRoom("There is no live room with this code: check it with your teacher.")
        addr = address_key(address) if address is not None else None

        def fn(room):
            if room is None:
                raise NoSuchRoom("There is no live room with this code: check it with your teacher.")
            self._seat(room, student, addr, now)
            return room, now + max(0.0, room["beat"] + self.grace - now), copy.deepcopy(room)

        return self.backend.update("room:" + c, fn, now)

    def seen(self, code: str, students: list[tuple[str, Any]]) -> int:
        """The sessions of ``students`` ((id, address) pairs) are alive: they count :data:`STUDENT_TTL`
        seconds more (one who was pruned meanwhile -- the store was away -- is seated again if there is room).
        Returns how many count; :class:`NoSuchRoom` when the room closed."""
        now = self.clock()
        c = normalize_code(code)

        def fn(room):
            if room is None:
                raise NoSuchRoom("This room has closed.")
            for student, address in students:
                try:
                    self._seat(room, student, address_key(address) if address is not None else None, now)
                except RoomError:
                    pass
            return room, now + max(0.0, room["beat"] + self.grace - now), present(room, now, self.student_ttl)

        if c is None:
            raise NoSuchRoom("This room has closed.")
        return self.backend.update("room:" + c, fn, now)

    def answer(self, code: str, student: str, poll_id: int, choice: int) -> None:
        """Student ``student``'s answer to poll ``poll_id`` (an option's index; a new answer replaces the
        last while the poll is open). :class:`PollClosed` when that poll is not open; the room must have
        been joined."""
        now = self.clock()
        c = normalize_code(code)
        if c is None:
            raise NoSuchRoom("There is no live room with this code.")

        def fn(room):
            if room is None:
                raise NoSuchRoom("This room has closed.")
            if student not in room.get("students", {}):
                raise NotTeacher("Join the room first.")
            poll = room.get("poll")
            if not poll or poll.get("id") != poll_id or not poll.get("open"):
                raise PollClosed("This question is closed.")
            if type(choice) is not int or not 0 <= choice < int(poll["n"]):
                raise PollClosed("That is not one of the options.")
            given = int(room.setdefault("answered", {}).get(student, 0))
            if given >= self.max_answers:
                raise RateLimited("You have answered too many times in this room.")
            room["answered"][student] = given + 1
            poll["answers"][student] = choice
            return room, now + max(0.0, room["beat"] + self.grace - now), None

        self.backend.update("room:" + c, fn, now)


# ----------------------------------------------------------------------------------------------------

def _seats_from_env() -> int:
    """:data:`SEATS_PER_ADDRESS`, or the whole number the environment's :data:`SEATS_ENV` gives."""
    raw = os.environ.get(SEATS_ENV, "").strip()
    return int(raw) if re.fullmatch(r"[0-9]{1,6}", raw) else SEATS_PER_ADDRESS


def store_from_url(url: str | None, **kwargs) -> RoomStore:
    """A store on the backend ``url`` names: None, "" or ``memory`` -> :class:`MemoryBackend`;
    ``redis://...``, ``rediss://...`` or ``unix://...`` -> :class:`RedisBackend` (the ``redis`` client)."""
    if not url or url == "memory":
        return RoomStore(MemoryBackend(), **kwargs)
    if url.startswith(("redis://", "rediss://", "unix://")):
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        # short timeouts and no retries: a frozen Redis costs a page REDIS_TIMEOUT s, once (RedisBackend)
        client = redis.Redis.from_url(url, socket_timeout=REDIS_TIMEOUT, socket_connect_timeout=REDIS_TIMEOUT,
                                      retry=Retry(NoBackoff(), 0), health_check_interval=0)
        return RoomStore(RedisBackend(client), **kwargs)
    raise ValueError(f"{ROOMS_URL_ENV} must be memory, redis://... or unix://..., not {url[:40]!r}")


class PlayWatch:
    """Long polls of rooms' play state in one server process (asyncio, the server's event loop).

    A following browser asks "the play state, once its version is not ``v``" (:meth:`wait`); the request
    waits until the teacher acts (or ``timeout`` passes). One task per process looks at the rooms someone
    waits on every ``interval`` seconds (a dict lookup in process, a GET in Redis), whatever the number of
    students: an idle room costs its students nothing but a request every ``timeout`` seconds, and a teacher's
    action one answer per student."""

    def __init__(self, get_store: Callable[[], RoomStore], interval: float = 0.05) -> None:
        self.get_store, self.interval = get_store, interval
        self.waiters: dict[str, dict[Any, int]] = {}    # code -> {future: the version it waits past}
        self.task = None

    async def _state(self, code: str, address: Any = None) -> dict | None:
        s = self.get_store()
        if isinstance(s.backend, MemoryBackend):
            return s.play(code, address)
        from starlette.concurrency import run_in_threadpool

        return await run_in_threadpool(s.play, code, address)     # a network round trip: not on the event loop

    async def wait(self, code: Any, since: tuple[int, int] | None, timeout: float, address: Any = None) -> dict | None:
        """The room's :func:`follow_state` once its versions ``(v, sig)`` differ from ``since`` (at once when
        ``since`` is None or already differs), or as it is after ``timeout`` seconds; None: no such room.
        Waiters wait on the room's canonical code (:func:`normalize_code`): every spelling of one room shares
        one watch; one that is no code is answered at once (and counts as a bad code: ``address``)."""
        import asyncio

        canon = normalize_code(code)
        state = await self._state(canon or code, address)
        if canon is None or state is None or since is None or (state["v"], state["sig"]) != since:
            return state
        fut = asyncio.get_running_loop().create_future()
        self.waiters.setdefault(canon, {})[fut] = since
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())
        try:
            return await asyncio.wait_for(asyncio.shield(fut), timeout)
        except asyncio.TimeoutError:
            return await self._state(canon, address)
        finally:
            waiting = self.waiters.get(canon, {})
            waiting.pop(fut, None)
            if not waiting:
                self.waiters.pop(canon, None)

    async def _run(self) -> None:
        import asyncio

        while self.waiters:
            await asyncio.sleep(self.interval)
            for code, waiting in list(self.waiters.items()):
                try:
                    state = await self._state(code)
                except Exception:   # the store is away for a moment: the waiters wait on
                    continue
                for fut, since in list(waiting.items()):
                    if not fut.done() and (state is None or (state["v"], state["sig"]) != since):
                        fut.set_result(state)


_WATCH: PlayWatch | None = None
#: longest a following browser's request waits for the teacher (s)
LONG_POLL = 20.0


async def play_endpoint(request):
    """``GET /_bpe/room/{code}[?v=N&s=M]`` (a route of the app's server, ``app.py``): the room's play state as
    JSON for a student's player that follows it, ``{"merge", "speed", "playing", "age", "v", "sig"}``. With
    ``v`` and ``s`` (the versions the browser has) the answer waits until the teacher acts, at most
    :data:`LONG_POLL` seconds
    (:class:`PlayWatch`). 404 ``{"closed": true}``: no such room; 429: rate-limited (bad codes count as a
    join's do). No Streamlit session and no script run: following a room costs the server this request."""
    from starlette.responses import JSONResponse

    global _WATCH
    if _WATCH is None:
        _WATCH = PlayWatch(store)
    headers = {"Cache-Control": "no-store"}
    try:
        since = _versions(request.query_params)
    except ValueError as exc:
        return JSONResponse({"error": str(exc)}, status_code=400, headers=headers)
    # the client's address: uvicorn takes X-Forwarded-For only from a loopback peer (FORWARDED_ALLOW_IPS:
    # our nginx, which appends the address it saw); a remote client's own header is ignored
    address = request.client.host if request.client else None
    try:
        state = await _WATCH.wait(request.path_params.get("code"), since, LONG_POLL, address)
    except RateLimited:
        return JSONResponse({"error": "rate limited"}, status_code=429, headers=headers)
    except Exception:   # the store is unreachable (Redis down): the player keeps its own clock
        return JSONResponse({"error": "unavailable"}, status_code=503, headers=headers)
    if state is None:
        return JSONResponse({"closed": True}, status_code=404, headers=headers)
    return JSONResponse(state, headers=headers)


_VERSION_RE = re.compile(r"[0-9]{1,11}")


def _versions(query) -> tuple[int, int] | None:
    """The ``v`` and ``s`` of a follow request's query: None when either is absent; ValueError (its
    message is the 400's) when one is not a whole number of ASCII digits (``²``, ``①`` and ``٣`` are digits
    to ``str.isdigit``, not to this).

    >>> _versions({"v": "3", "s": "0"}), _versions({}), _versions({"v": "4"})
    ((3, 0), None, None)
    >>> _versions({"v": "٣", "s": "0"})
    Traceback (most recent call last):
    ...
    ValueError: v and s must be whole numbers (ASCII digits, at most 11)
    """
    raw = [query.get(name) for name in ("v", "s")]
    if any(x is not None and not _VERSION_RE.fullmatch(x) for x in raw):
        raise ValueError("v and s must be whole numbers (ASCII digits, at most 11)")
    return (int(raw[0]), int(raw[1])) if None not in raw else None


#: the path of :func:`play_endpoint`, which ``app.py`` mounts
PLAY_PATH = "/_bpe/room/{code}"

_STORE: RoomStore | None = None
_STORE_LOCK = threading.Lock()


def store() -> RoomStore:
    """This process's room store (the backend ``BPE_LAB_ROOMS_URL`` names; in this process by default)."""
    global _STORE
    with _STORE_LOCK:
        if _STORE is None:
            _STORE = store_from_url(os.environ.get(ROOMS_URL_ENV))
        return _STORE
