"""The route a following student's browser asks for the room's play state: ``GET /_bpe/room/{code}`` (a long
poll, :func:`play_endpoint`, mounted by ``app.py``), and :class:`PlayWatch`, its waiters in one process."""

from __future__ import annotations

import re
from typing import Any, Callable

from .backends import MemoryBackend
from .model import (
    RateLimited,
    normalize_code,
)
from .roomstore import RoomStore, store


class PlayWatch:
    """Long polls of rooms' play state in one server process (asyncio, the server's event loop).

    A following browser asks "the play state, once its version is not ``v``" (:meth:`wait`); the request
    waits until the teacher acts (or ``timeout`` passes). One task per process looks at the rooms someone
    waits on every ``interval`` seconds (a dict lookup in process, a GET in Redis), whatever the number of
    students: an idle room costs its students nothing but a request every ``timeout`` seconds, and a teacher's
    action one answer per student."""

    def __init__(self, get_store: Callable[[], RoomStore], interval: float = 0.05) -> None:
        self.get_store, self.interval = get_store, interval
        self.waiters: dict[str, dict[Any, int]] = {}  # code -> {future: the version it waits past}
        self.task = None

    async def _state(self, code: str, address: Any = None) -> dict | None:
        s = self.get_store()
        if isinstance(s.backend, MemoryBackend):
            return s.play(code, address)
        from starlette.concurrency import run_in_threadpool

        return await run_in_threadpool(s.play, code, address)  # a network round trip: not on the event loop

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
                except Exception:  # the store is away for a moment: the waiters wait on
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
    except Exception:  # the store is unreachable (Redis down): the player keeps its own clock
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
