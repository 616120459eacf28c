"""Coroutines run to the end from synchronous tests, on a loop of their own.

``asyncio.run`` refuses to start when the calling thread already runs an event loop, and a browser test's
Playwright sync session (a session fixture) keeps one running in its worker's main thread for the rest of
that worker's tests. With the browser tests spread over both pytest-xdist workers (tests/conftest.py), any
test may share a worker with one: :func:`run` gives the coroutine a thread and a loop of its own, so it works
the same beside Playwright or alone.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)`` in a thread of its own; returns its result or raises its exception here."""
    result: list[T] = []
    failure: list[BaseException] = []

    def target() -> None:
        try:
            result.append(asyncio.run(coro))
        except BaseException as exc:  # noqa: BLE001 -- handed back to the caller's thread
            failure.append(exc)

    thread = threading.Thread(target=target, name="testkit.aio.run", daemon=True)
    thread.start()
    thread.join()
    if failure:
        raise failure[0]
    return result[0]
