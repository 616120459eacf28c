"""The command line's pattern runner: a regex from outside is compiled with this process's address space
bounded, so a compile that costs more than :func:`bpe.patterns.check_size` says ends in a one-line error
instead of taking the machine's memory.

The library's default runner does the work here with no bound on memory; the CLI is one process with one
thread, so it may bound its own address space (``RLIMIT_AS``, the soft limit: raised back afterwards) for the
length of one compile. Every other piece of work (cutting text) runs as the default does, stopped by the
``regex`` module's ``timeout=``.

>>> import bpe.patterns as bp
>>> bounded(bp.probe_compile, (("[a-z]+",), 0), bp.Deadline(5))[0] > 0
True
"""
from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from .deadline import Deadline

try:
    import resource
except ImportError:    # not on Unix: no bound
    resource = None    # type: ignore[assignment]

__all__ = ["bounded", "address_space_limit"]


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


def bounded(fn: Callable[..., Any], args: tuple, deadline: Deadline) -> Any:
    """A pattern runner (see :func:`bpe.set_pattern_runner`): ``fn(*args, deadline)`` here, within
    ``fn.memory_budget`` bytes of address space when ``fn`` declares one."""
    budget = getattr(fn, "memory_budget", None)
    if not budget:
        return fn(*args, deadline)
    with address_space_limit(budget):
        return fn(*args, deadline)
