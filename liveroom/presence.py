"""Who is in a live room: a student counts while their session is alive, and drops out soon after.

A session that joined a room registers here (:func:`here`: its room's code, the student's id, the client's
address). One thread per server process looks every :data:`EVERY` seconds at the registered sessions:
those whose browser is still connected (Streamlit's runtime: ``is_active_session``, a live websocket) tell
the store they are there (``RoomStore.seen``, one update a room); the others are not beaten, so the store
stops counting them ``model.STUDENT_TTL`` seconds later and a join prunes them. A session whose websocket
comes back (a phone waking up) counts again at the next look; one gone for :data:`FORGET` seconds is
forgotten. Nothing in a browser has to keep beating, so a student on any page counts, following or not.

The client's address (:func:`client_address`) is the websocket's peer as Streamlit's server (uvicorn) saw
it: uvicorn replaces it by X-Forwarded-For only when the peer is loopback (``FORWARDED_ALLOW_IPS``'s
default), which behind ``deploy/``'s nginx is nginx, appending the address it saw; a remote client's own
header is never taken. Loopback itself (and a test's session, which has no connection) is ``127.0.0.1``.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

import streamlit as st

from . import model
from .roomstore import RoomStore
from .roomstore import store as room_store

__all__ = ["EVERY", "FORGET", "here", "client_address", "beat_once", "registered"]

#: seconds between the looks at the registered sessions (well under model.STUDENT_TTL)
EVERY = 8.0
#: seconds a session whose browser went away stays registered (it may come back)
FORGET = 1800.0

_LOCK = threading.Lock()
#: session id -> [code, student id, address, when it was last seen connected]
_SESSIONS: dict[str, list] = {}
_THREAD: threading.Thread | None = None


def client_address() -> str | None:
    """This session's client address (see the module): ``st.context.ip_address``, which is None for loopback
    -- then ``127.0.0.1`` when there is a connection, None when there is none (an AppTest run)."""
    ip = st.context.ip_address
    if ip is None and len(st.context.headers):
        return "127.0.0.1"
    return ip


def _session_id() -> str | None:
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else None


def here(code: str, student: str, address: str | None) -> None:
    """This session is in room ``code`` as ``student`` (every full run of a joined session calls it: cheap)."""
    global _THREAD
    sid = _session_id()
    if sid is None:
        return
    with _LOCK:
        entry = _SESSIONS.get(sid)
        if entry is not None and entry[:3] == [code, student, address]:
            return
        _SESSIONS[sid] = [code, student, address, time.monotonic()]
        if _THREAD is None or not _THREAD.is_alive():
            _THREAD = threading.Thread(target=_loop, name="bpe-room-presence", daemon=True)
            _THREAD.start()


def registered() -> dict[str, list]:
    """A copy of the registry (tests, the operator)."""
    with _LOCK:
        return {sid: list(entry) for sid, entry in _SESSIONS.items()}


def beat_once(store: RoomStore, alive: Callable[[str], bool], now: float | None = None) -> dict[str, int]:
    """One look (see the module): the registered sessions ``alive`` says are connected are seen in their
    rooms; those gone for :data:`FORGET` s, or whose room closed, are forgotten. Returns {code: how many the
    room counts now} for the rooms beaten."""
    now = time.monotonic() if now is None else now
    by_room: dict[str, list[tuple[str, str | None]]] = {}
    with _LOCK:
        for sid, entry in list(_SESSIONS.items()):
            if alive(sid):
                entry[3] = now
                by_room.setdefault(entry[0], []).append((entry[1], entry[2]))
            elif now - entry[3] > FORGET:
                del _SESSIONS[sid]
    counts = {}
    for code, students in by_room.items():
        try:
            counts[code] = store.seen(code, students)
        except model.NoSuchRoom:
            with _LOCK:
                for sid in [sid for sid, e in _SESSIONS.items() if e[0] == code]:
                    del _SESSIONS[sid]
        except model.RoomError:  # the store is away for a moment: the next look tries again
            continue
    return counts


def _loop() -> None:
    from streamlit.runtime import Runtime

    while True:
        time.sleep(EVERY)
        with _LOCK:
            if not _SESSIONS:
                continue
        if not Runtime.exists():
            continue
        runtime = Runtime.instance()
        try:
            beat_once(room_store(), runtime.is_active_session)
        except Exception:  # never let the thread die: the rooms would stop counting anyone
            continue
