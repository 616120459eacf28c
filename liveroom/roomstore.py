"""Every room operation: :class:`RoomStore` over a backend (:mod:`liveroom.backends`), and :func:`store`, this
process's store, picked by ``BPE_LAB_ROOMS_URL`` (:data:`~liveroom.model.ROOMS_URL_ENV`). No Streamlit here.

* the **teacher's token** is a secret returned once by :meth:`RoomStore.create` and held only in the
  teacher's session; the room keeps its SHA-256. Every change but a join and an answer needs it: a student
  never drives a room;
* a room lives while its teacher's session beats (:meth:`RoomStore.beat`) and
  :data:`~liveroom.model.GRACE` seconds after the last beat; the teacher can close it at once;
* a student counts while their session is alive (:meth:`RoomStore.seen`, from :mod:`liveroom.presence`); a
  join prunes those who left, so a room fills only with people who are there.

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
liveroom.model.NotTeacher: Only the teacher who started this room can change it.
"""

from __future__ import annotations

import copy
import hmac
import os
import re
import secrets
import threading
import time
from typing import Any, Callable

from .backends import MemoryBackend, RedisBackend
from .model import (
    ALPHABET,
    BAD_CODE_LIMIT,
    BAD_CODE_PER_ADDRESS,
    CODE_LEN,
    GRACE,
    JOIN_LIMIT,
    MAX_ANSWERS,
    MAX_AT_AGE,
    MAX_LABEL,
    MAX_RECORD,
    MAX_ROOMS,
    MAX_STUDENTS,
    MAX_TEXT_BYTES,
    REDIS_TIMEOUT,
    ROOMS_URL_ENV,
    SEATS_ENV,
    SEATS_PER_ADDRESS,
    STUDENT_TTL,
    NoSuchRoom,
    NotTeacher,
    PollClosed,
    TextTooLarge,
    TooManyRooms,
    _digest,
    address_key,
    normalize_code,
    poll_entry,
    text_digest,
)
from .roomstudents import StudentSide


class RoomStore(StudentSide):
    """Every room operation (see the module's docstring); ``clock``: seconds (``time.time``; tests pass
    their own)."""

    def __init__(
        self,
        backend,
        *,
        clock: Callable[[], float] = time.time,
        grace: float = GRACE,
        max_rooms: int = MAX_ROOMS,
        max_students: int = MAX_STUDENTS,
        max_answers: int = MAX_ANSWERS,
        join_limit: int = JOIN_LIMIT,
        bad_code_limit: int = BAD_CODE_LIMIT,
        bad_code_per_address: int = BAD_CODE_PER_ADDRESS,
        student_ttl: float = STUDENT_TTL,
        seats_per_address: int | None = None,
    ) -> None:
        self.backend, self.clock, self.grace = backend, clock, grace
        self.max_rooms, self.max_students, self.max_answers = max_rooms, max_students, max_answers
        self.join_limit, self.bad_code_limit = join_limit, bad_code_limit
        self.bad_code_per_address, self.student_ttl = bad_code_per_address, student_ttl
        self.seats_per_address = _seats_from_env() if seats_per_address is None else seats_per_address

    def available(self) -> bool:
        """Whether the store answers now (Redis: a PING; see :class:`RedisBackend`)."""
        return self.backend.available()

    # ------------------------------------------------------------------ the teacher

    def create(self, settings: dict, *, merge: int = 0, speed: float = 2, address: Any = None) -> tuple[str, str]:
        """A new room showing the run ``settings`` (the share link's parameters) at ``merge``; returns
        (code, the teacher's token). ``address`` is the teacher's client address: students from it (the lecture
        hall's network, often one NAT address) are not limited per address. :class:`TooManyRooms` when
        :data:`MAX_ROOMS` rooms live."""
        now = self.clock()
        token = secrets.token_urlsafe(24)
        for _ in range(20):
            code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LEN))
            doc = {
                "code": code,
                "token": _digest(token),
                "settings": dict(settings),
                "play": {"merge": int(merge), "speed": speed, "playing": False, "t": now, "v": 1},
                "lesson": None,
                "poll": None,
                "students": {},
                "answered": {},
                "beat": now,
                "created": now,
                "host": address_key(address) if address is not None else None,
            }
            if self.backend.insert_if_room("room:" + code, doc, now + self.grace, self.max_rooms, now):
                return code, token
            if self.backend.get("room:" + code, now) is None:  # not a taken code: the store is full
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
        self.backend.touch("text:" + code, now + self.grace, now)  # the room's text lives as long
        self.backend.touch("record:" + code, now + self.grace, now)  # and its questions
        return result

    def beat(self, code: str, token: str) -> dict:
        """The teacher's session is alive: the room lives :data:`GRACE` seconds more. Returns the room."""
        return self._teacher(code, token, lambda room, now: copy.deepcopy(room))

    def close(self, code: str, token: str) -> list[dict]:
        """Close the room now (its students are told it has closed). Returns its questions (:meth:`record`:
        the teacher's download after class); none when it had closed already."""
        now = self.clock()

        def fn(room):
            if room is None:
                return None, now, None
            if not isinstance(token, str) or not hmac.compare_digest(room["token"], _digest(token)):
                raise NotTeacher("Only the teacher who started this room can close it.")
            return None, now, room.get("poll")

        if (last := self.backend.update("room:" + code, fn, now)) is not None:
            self._file(code, [last], now)
        kept = self.backend.update("record:" + code, lambda old: (None, now, old), now)
        self.backend.update("text:" + code, lambda old: (None, now, None), now)
        return list((kept or {}).get("polls", []))

    def set_play(
        self, code: str, token: str, *, merge: int, speed: float, playing: bool, at: float | None = None
    ) -> dict:
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
            room["play"] = {
                "merge": 0,
                "speed": room["play"].get("speed", 2),
                "playing": False,
                "t": now,
                "v": int(room["play"].get("v", 0)) + 1,
            }
            ended, room["poll"] = room.get("poll"), None
            room["sig"] = int(room.get("sig", 0)) + 1
            return ended or True

        ended = self._teacher(code, token, change)
        if isinstance(ended, dict):
            self._file(code, [ended], self.clock())
        return bool(ended)

    def put_text(self, code: str, token: str, text: str, name: str) -> str:
        """Keep the teacher's text (an upload or a long paste: a share link cannot carry it) beside the room, for
        its students (:meth:`text`); returns its digest, which the room's settings then name
        (``text_digest``). At most :data:`MAX_TEXT_BYTES` (UTF-8) -- what the player trains on."""
        if len(text.encode("utf-8", "surrogatepass")) > MAX_TEXT_BYTES:
            raise TextTooLarge(f"A live room carries texts of up to {MAX_TEXT_BYTES:,} bytes.")
        digest = text_digest(text)
        self._teacher(code, token, lambda room, now: None)  # the teacher's, and the room lives
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

    def open_poll(
        self, code: str, token: str, *, k: int, n: int, options: list[str] | None = None, right: list[int] | None = None
    ) -> int:
        """Ask the room "which pair is merged next" about merge ``k + 1`` with ``n`` options (``options``: their
        labels, ``right``: the indices of the right ones, the merged pair first -- for the record); returns the
        poll's id, one more than the room's last (a new poll replaces the last, which goes to the record)."""

        def change(room, now):
            old = room.get("poll")
            pid = max(int(room.get("asked", 0)), int((old or {}).get("id", 0))) + 1
            room["poll"] = {
                "id": pid,
                "open": True,
                "k": int(k),
                "n": int(n),
                "answers": {},
                "revealed": False,
                "options": [str(o)[:MAX_LABEL] for o in (options or [])][: int(n)],
                "right": [int(i) for i in (right or [])][: int(n)],
                "asked": now,
            }
            room["asked"] = pid
            room["sig"] = int(room.get("sig", 0)) + 1
            return pid, old

        pid, old = self._teacher(code, token, change)
        self._file(code, [old], self.clock())
        return pid

    def reveal(self, code: str, token: str) -> None:
        """Close the poll and show every student the answer."""

        def change(room, now):
            if not room.get("poll"):
                raise PollClosed("There is no poll to reveal.")
            room["poll"]["open"], room["poll"]["revealed"] = False, True
            room["poll"].setdefault("revealed_at", now)
            room["sig"] = int(room.get("sig", 0)) + 1

        self._teacher(code, token, change)

    def _file(self, code: str, polls: list[dict | None], now: float) -> None:
        """Keep the questions ``polls`` (that ended: replaced, a new run, the room closed) in the room's record,
        beside the room (the many reads of the room do not carry it): the last :data:`MAX_RECORD`."""
        entries = [poll_entry(p) for p in polls if p]
        if entries:

            def fn(doc):
                kept = [*(doc or {}).get("polls", []), *entries][-MAX_RECORD:]
                return {"polls": kept}, now + self.grace, None

            self.backend.update("record:" + code, fn, now)

    def record(self, code: str, token: str) -> list[dict]:
        """The questions the room was asked, oldest first (:func:`~liveroom.model.poll_entry`: merge, options,
        counts, when), the one still up with its counts now: what the teacher downloads. The teacher's only."""
        now = self.clock()
        room = self.backend.get("room:" + code, now)
        if room is None:
            raise NoSuchRoom("This room has closed.")
        if not isinstance(token, str) or not hmac.compare_digest(room["token"], _digest(token)):
            raise NotTeacher("Only the teacher who started this room can read its answers.")
        kept = (self.backend.get("record:" + code, now) or {}).get("polls", [])
        return [*kept, poll_entry(room["poll"])] if room.get("poll") else list(kept)

    # ------------------------------------------------------------------ students

    def room(self, code: str) -> dict | None:
        """The live room with this code (None: no such room, or it closed or expired)."""
        c = normalize_code(code)
        return self.backend.get("room:" + c, self.clock()) if c else None


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
        client = redis.Redis.from_url(
            url,
            socket_timeout=REDIS_TIMEOUT,
            socket_connect_timeout=REDIS_TIMEOUT,
            retry=Retry(NoBackoff(), 0),
            health_check_interval=0,
        )
        return RoomStore(RedisBackend(client), **kwargs)
    raise ValueError(f"{ROOMS_URL_ENV} must be memory, redis://... or unix://..., not {url[:40]!r}")


_STORE: RoomStore | None = None

_STORE_LOCK = threading.Lock()


def store() -> RoomStore:
    """This process's room store (the backend ``BPE_LAB_ROOMS_URL`` names; in this process by default)."""
    global _STORE
    with _STORE_LOCK:
        if _STORE is None:
            _STORE = store_from_url(os.environ.get(ROOMS_URL_ENV))
        return _STORE
