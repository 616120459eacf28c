"""The guarded pattern runner: the library's custom-pattern work in a worker process killed at its deadline.

The library runs a custom regex in its own process by default, stopped by the ``regex`` module's
``timeout=`` (~3x on every match, and it stops late: 1.2 s past a 2 s deadline on 1 KB of ``(a|a)+$``).
A server that takes regexes from strangers -- typed, in a link, in an uploaded ``tokenizer.json`` -- runs
them here instead (:func:`guarded`, plugged in with :func:`guard.install`): in a worker process of
:mod:`guard.isolation`, at full speed (``Deadline(None)`` inside), killed when the request's deadline
passes. A job in a warm worker costs ~4 ms.

A job whose function declares a ``memory_budget`` (bytes; the library's
:func:`bpe.patterns.probe_compile`, which compiles a stranger's regex before the server does) runs with its
address space bounded to that much more than the worker starts with (``RLIMIT_AS``): a compile that costs more
than the library's bound says fails there with ``MemoryError``, and the server never compiles it.

Inside a worker already (a whole training runs in one, :mod:`guard.trainjobs`), the work runs in that
worker, where an alarm signal (:func:`guard.isolation.interrupt_at`) stops it at the deadline as well as the
regex module's ``timeout=``. Where no worker can run (no fork), it runs in this process as the library's
default does.

>>> import bpe
>>> guarded(bpe.splitting._pieces, (r"[a-z]+| ", ["ab 12"]), bpe.Deadline(10))
[['ab', ' ', '12']]
"""

from __future__ import annotations

import re
from typing import Any, Callable

from bpe.deadline import Deadline
from bpe.patterns import PatternError

from . import isolation

try:
    import resource
except ImportError:  # not on Unix (no worker processes there either)
    resource = None  # type: ignore[assignment]

__all__ = ["guarded", "within_memory"]

_UNLIMITED = Deadline(None)


def _address_space() -> int:
    """This process's address space now, in bytes (``VmSize``), 0 where /proc is not."""
    try:
        with open("/proc/self/status") as f:
            return int(re.search(r"VmSize:\s+(\d+)", f.read()).group(1)) * 1024  # type: ignore[union-attr]
    except (OSError, AttributeError):
        return 0


def within_memory(budget: int, fn: Callable[..., Any], *args: Any) -> Any:
    """In a worker process (its own, killed after the job): ``fn(*args)`` with this process's address space
    bounded to ``budget`` bytes more than now (``RLIMIT_AS``; past it allocations fail: ``MemoryError``).

    >>> within_memory(64 * 2 ** 20, sum, [1, 2]) if isolation.in_worker() else 3
    3
    """
    if not isolation.in_worker():
        raise RuntimeError("within_memory bounds the whole process: only in a worker process")
    now = _address_space()
    if now and resource is not None:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = now + budget
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    return fn(*args)


def guarded(fn: Callable[..., Any], args: tuple, deadline: Deadline) -> Any:
    """A pattern runner (see :func:`bpe.set_pattern_runner`): ``fn(*args, deadline)`` in a worker process
    killed at ``deadline`` counted in its own CPU time (a busy machine does not stop a pattern that is fine;
    :data:`guard.isolation.CPU_WAIT_FACTOR` bounds the wait) (``WorkerTimeout``, a ``TimeoutError``), its address space bounded when ``fn`` has a
    ``memory_budget`` (``MemoryError`` past it); a worker that fails raises :class:`bpe.PatternError`."""
    budget = getattr(fn, "memory_budget", None)
    if not isolation.in_worker() and isolation.available():
        try:
            if budget:
                return isolation.run(within_memory, budget, fn, *args, _UNLIMITED, timeout=deadline, cpu_time=True)
            return isolation.run(fn, *args, _UNLIMITED, timeout=deadline, cpu_time=True)
        except isolation.WorkerUnavailable:
            pass
        except (isolation.WorkerTimeout, isolation.WorkerCancelled):
            raise
        except isolation.WorkerError as exc:
            raise PatternError(f"the pattern could not run: its worker process failed ({exc})") from None
    with isolation.interrupt_at(deadline):
        return fn(*args, deadline)
