"""The command line's pattern runner: a regex from outside (``--pattern``, a ``tokenizer.json``'s Split or
Replace) is compiled with this process's address space bounded, and runs stopped by the clock.

The library's default runner does the work here with no bound on memory, stopped by the ``regex`` module's
``timeout=``, which counts CPU time (on a busy machine 2 s of CPU are 10 s of wall time). The CLI is one
process with one thread, so it may take what a library may not: its own address space (``RLIMIT_AS``, the
soft limit, raised back afterwards) for the length of one compile, and ``SIGALRM`` at the deadline (the
``regex`` module checks for signals while it matches, so a runaway match stops on time).

>>> import bpe.patterns as bp
>>> bounded(bp.probe_compile, (("[a-z]+",), 0), bp.Deadline(5))[0][0] > 0
True
"""

from __future__ import annotations

import re
import signal
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from .deadline import Deadline

try:
    import resource
except ImportError:  # not on Unix: no bound
    resource = None  # type: ignore[assignment]

__all__ = ["bounded", "address_space_limit", "alarm_at"]


def _address_space() -> int:
    try:
        with open("/proc/self/status") as f:
            found = re.search(r"VmSize:\s+(\d+)", f.read())
    except OSError:
        return 0
    return int(found.group(1)) * 1024 if found else 0


@contextmanager
def address_space_limit(budget: int) -> Iterator[None]:
    """Within the block, allocations past ``budget`` bytes more than this process's address space now fail
    (``MemoryError``); the limit is put back after. Nothing happens where ``resource`` or /proc is missing.
    Bounds the whole process: only for a program with one thread (the CLI)."""
    now = _address_space()
    if resource is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = now + budget
    if not now or (soft != resource.RLIM_INFINITY and soft <= limit):
        yield
        return
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@contextmanager
def alarm_at(deadline: Deadline) -> Iterator[None]:
    """Within the block, ``TimeoutError`` when ``deadline`` passes by the clock (``SIGALRM``); nothing off the
    main thread, without a deadline, or where there is no ``setitimer``."""
    left = deadline.remaining()
    if left is None or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return
    if left == 0.0:
        raise TimeoutError("the deadline has passed")

    def ring(*_):
        raise TimeoutError("the deadline has passed")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, left)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def bounded(fn: Callable[..., Any], args: tuple, deadline: Deadline) -> Any:
    """A pattern runner (see :func:`bpe.set_pattern_runner`): ``fn(*args, deadline)`` here, stopped at
    ``deadline`` by the clock, within ``fn.memory_budget`` bytes of address space when ``fn`` declares one."""
    budget = getattr(fn, "memory_budget", None)
    with alarm_at(deadline):
        if not budget:
            return fn(*args, deadline)
        with address_space_limit(budget):
            return fn(*args, deadline)
