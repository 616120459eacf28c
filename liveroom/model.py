"""A live room's data and its words: the limits, the errors a page shows, and pure functions of a room.

A room is a JSON document (:mod:`liveroom.roomstore` keeps it, in this process or in Redis)::

    {"code": "7KQ2MX", "token": sha256 of the teacher's token, "settings": {the share link's parameters},
     "play": {"merge", "speed", "playing", "t" (server clock when it was set), "v" (raised on each change)},
     "lesson": {"lesson", "step"} (a Classroom step) | None (the player), "poll": {"id", "open", "k", "n",
     "answers": {student: option}, "revealed", "options" (labels), "right" (indices, the merged pair first),
     "asked", "revealed_at"} | None, "asked" (the last poll's id: ids never repeat in a room), "sig" (raised
     when the poll or the run changes: students' pages then rerun), "students": {student: last seen}, "addrs":
     {student: their address's key}, "answered": {student: answers given}, "beat": last heartbeat of the
     teacher's session, "created"}

Beside it, living as long: ``text:CODE`` (the teacher's upload or long paste) and ``record:CODE``, the
questions that ended (:func:`poll_entry`: counts, no names), for the teacher's CSV after class.

* the **code** is :data:`CODE_LEN` symbols from a 32-symbol alphabet without look-alikes (:data:`ALPHABET`:
  no 0/O, 1/I), drawn with :mod:`secrets` (32**6 > 10**9 codes for at most :data:`MAX_ROOMS` rooms);
* a student counts while their session is alive (:func:`present`; :mod:`liveroom.presence` says so every few
  seconds), and :data:`STUDENT_TTL` seconds after;
* bounded: :data:`MAX_ROOMS` rooms, :data:`MAX_STUDENTS` students a room, :data:`SEATS_PER_ADDRESS` of them
  from one client address (:func:`address_key`), :data:`MAX_ANSWERS` answers a student, :data:`JOIN_LIMIT`
  joins a minute a session, :data:`BAD_CODE_PER_ADDRESS` unknown codes a minute an address and
  :data:`BAD_CODE_LIMIT` a store.

Errors are :class:`RoomError`, whose message is plain text for the page (escape it); :class:`Unavailable`
when the store (Redis) does not answer.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

#: 32 symbols: digits and capitals without 0, 1, I and O (read aloud and typed from a projector).
ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"

CODE_LEN = 6

#: seconds a room outlives its teacher's last heartbeat
GRACE = 180.0

MAX_ROOMS = 50

MAX_STUDENTS = 200

MAX_ANSWERS = 500

#: questions a room keeps for the teacher's download (the oldest go first), and the characters kept of an
#: option's label (a token of a long text can be long)
MAX_RECORD = 500

MAX_LABEL = 300

#: join attempts a student session may make in a minute
JOIN_LIMIT = 12

#: the largest text a room carries (UTF-8 bytes): the player's training limit (appstate.sources.MAX_TRAIN_BYTES)
MAX_TEXT_BYTES = 2_000_000

#: joins with a code that names no room, per store, in a minute
BAD_CODE_LIMIT = 600

#: ... per client address (one client cannot spend the store's budget alone)
BAD_CODE_PER_ADDRESS = 60

#: seconds a student counts after their session's last sign of life (its process says so every
#: liveroom.presence.EVERY seconds)
STUDENT_TTL = 30.0

#: places in a room one client address may hold (0: no limit); the environment variable SEATS_ENV sets it --
#: a lecture hall whose students all reach the server through one NAT address sets it to 0 (or 200)
SEATS_PER_ADDRESS = 4

SEATS_ENV = "BPE_LAB_SEATS_PER_ADDRESS"

#: seconds a Redis call may take (connect, read) before the live room is unavailable, and the seconds it
#: then stays so without asking Redis again (every page run would wait otherwise). A busy machine's Redis is
#: slow, not away: its round trips reached 0.57 s with 205 sessions joining at load ~20 on 2 cores, where
#: 0.5 s made their joins say "unavailable" and skipped presence beats (issue 35); 3 s is 5 times that
REDIS_TIMEOUT = 3.0

REDIS_PAUSE = 5.0

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


def poll_entry(poll: dict) -> dict:
    """What the room's record keeps of a question (counts only: no names): ``{"id", "merge" (1-based, the
    merge asked about), "options", "right" (indices of the right options), "counts", "asked", "revealed"
    (seconds, or None)}``.

    >>> poll_entry({"id": 2, "k": 4, "n": 2, "answers": {"a": 1, "b": 1}, "options": ["(a, b)", "(c, d)"],
    ...             "right": [1], "asked": 10.0, "revealed_at": 70.5})
    {'id': 2, 'merge': 5, 'options': ['(a, b)', '(c, d)'], 'right': [1], 'counts': [0, 2], 'asked': 10.0, \
'revealed': 70.5}
    """
    n = int(poll.get("n", 0))
    options = [str(o) for o in (poll.get("options") or [])][:n]
    return {
        "id": int(poll.get("id", 0)),
        "merge": int(poll.get("k", -1)) + 1,
        "options": options + [""] * (n - len(options)),
        "right": [int(i) for i in (poll.get("right") or []) if 0 <= int(i) < n],
        "counts": poll_counts({"poll": poll}),
        "asked": poll.get("asked"),
        "revealed": poll.get("revealed_at"),
    }


def follow_state(room: dict, now: float) -> dict:
    """What a following player needs: ``{"merge", "speed", "playing", "age", "v", "sig"}``, ``age`` being the
    milliseconds since the teacher set it (so each browser, whatever its clock, starts from the server's),
    ``sig`` the version of the rest (the poll, the run): when it changes the student's page reruns.

    >>> follow_state({"play": {"merge": 4, "speed": 2, "playing": True, "t": 10.0, "v": 3}}, 10.5)
    {'merge': 4, 'speed': 2, 'playing': True, 'age': 500, 'v': 3, 'sig': 0}
    """
    p = room.get("play") or {}
    return {
        "merge": int(p.get("merge", 0)),
        "speed": p.get("speed", 2),
        "playing": bool(p.get("playing")),
        "age": max(0, int(round((now - float(p.get("t", now))) * 1000))),
        "v": int(p.get("v", 0)),
        "sig": int(room.get("sig", 0)),
    }
