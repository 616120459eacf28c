"""Live rooms: a teacher's run that students follow on their own devices, and a poll the room answers.

The store's side, without Streamlit (what this package exports, ``import liveroom as rooms``):

* :mod:`liveroom.model` -- a room's document, limits, errors and pure functions;
* :mod:`liveroom.backends` -- where rooms live: this process, or Redis behind the nginx front;
* :mod:`liveroom.roomstore` -- every room operation (:class:`RoomStore`) and this process's :func:`store`;
  :mod:`liveroom.roomstudents` -- the operations of a student's session (a mixin of :class:`RoomStore`);
* :mod:`liveroom.endpoint` -- the route a following browser long-polls, ``/_bpe/room/CODE``.

A session's side, with Streamlit (import them by name): :mod:`liveroom.session` (what both share: cookies,
notes, the run a room carries), :mod:`liveroom.teacher`, :mod:`liveroom.student`, and
:mod:`liveroom.presence` (a student counts while their session is alive). The states a session moves
through, teacher or student, following or exploring, on the player or the Classroom: docs/live-room.md.

Imports go one way: ``app_pages`` -> ``liveroom`` -> ``appstate`` (import-linter's app-layers contract).
"""

from .backends import MemoryBackend, RedisBackend
from .endpoint import LONG_POLL, PLAY_PATH, PlayWatch, play_endpoint
from .model import (
    ALPHABET,
    BAD_CODE_LIMIT,
    BAD_CODE_PER_ADDRESS,
    CODE_LEN,
    GRACE,
    JOIN_LIMIT,
    MAX_ANSWERS,
    MAX_AT_AGE,
    MAX_ROOMS,
    MAX_STUDENTS,
    MAX_TEXT_BYTES,
    REDIS_PAUSE,
    REDIS_TIMEOUT,
    ROOMS_URL_ENV,
    SEATS_ENV,
    SEATS_PER_ADDRESS,
    STUDENT_TTL,
    UNAVAILABLE,
    WINDOW,
    NoSuchRoom,
    NotTeacher,
    PollClosed,
    RateLimited,
    RoomError,
    RoomFull,
    TextTooLarge,
    TooManyHere,
    TooManyRooms,
    Unavailable,
    address_key,
    follow_state,
    normalize_code,
    poll_counts,
    present,
    text_digest,
)
from .roomstore import RoomStore, store, store_from_url

__all__ = [
    "ALPHABET",
    "BAD_CODE_LIMIT",
    "BAD_CODE_PER_ADDRESS",
    "CODE_LEN",
    "GRACE",
    "JOIN_LIMIT",
    "LONG_POLL",
    "MAX_ANSWERS",
    "MAX_AT_AGE",
    "MAX_ROOMS",
    "MAX_STUDENTS",
    "MAX_TEXT_BYTES",
    "PLAY_PATH",
    "REDIS_PAUSE",
    "REDIS_TIMEOUT",
    "ROOMS_URL_ENV",
    "SEATS_ENV",
    "SEATS_PER_ADDRESS",
    "STUDENT_TTL",
    "UNAVAILABLE",
    "WINDOW",
    "MemoryBackend",
    "NoSuchRoom",
    "NotTeacher",
    "PlayWatch",
    "PollClosed",
    "RateLimited",
    "RedisBackend",
    "RoomError",
    "RoomFull",
    "RoomStore",
    "TextTooLarge",
    "TooManyHere",
    "TooManyRooms",
    "Unavailable",
    "address_key",
    "follow_state",
    "normalize_code",
    "play_endpoint",
    "poll_counts",
    "present",
    "store",
    "store_from_url",
    "text_digest",
]
