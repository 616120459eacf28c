"""The students' side of a room: follow it (:meth:`StudentSide.play`), join it, stay counted
(:meth:`StudentSide.seen`) and answer its question. :class:`StudentSide` is a mixin of
:class:`liveroom.roomstore.RoomStore` (which holds the backend, the clock and the limits); the teacher's
operations are there. No Streamlit here."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, Callable

from .model import (
    WINDOW,
    NoSuchRoom,
    NotTeacher,
    PollClosed,
    RateLimited,
    RoomError,
    RoomFull,
    TooManyHere,
    address_key,
    follow_state,
    normalize_code,
    present,
)

__all__ = ["StudentSide"]


class StudentSide:
    """What a student's session asks of a room (see the module's docstring)."""

    if TYPE_CHECKING:  # what RoomStore provides
        backend: Any
        clock: Callable[[], float]
        grace: float
        max_students: int
        max_answers: int
        join_limit: int
        bad_code_limit: int
        bad_code_per_address: int
        student_ttl: float
        seats_per_address: int

    def _bad_code(self, address: Any, now: float) -> None:
        """A code that names no room: it counts against :data:`BAD_CODE_PER_ADDRESS` (this address, if known)
        and :data:`BAD_CODE_LIMIT` (everyone); :class:`RateLimited` past either."""
        if (
            address is not None
            and self.backend.count(f"badcode:{address_key(address)}", WINDOW, now) > self.bad_code_per_address
        ):
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
            limited = addr is not None and addr != room.get("host") and self.seats_per_address
            if limited and sum(1 for sid in students if addrs.get(sid) == addr) >= self.seats_per_address:
                raise TooManyHere(
                    f"This room already has {self.seats_per_address} students from your address "
                    "(your network): close a tab that is in the room, or try again in a minute."
                )
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
