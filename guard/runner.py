"""The guarded pattern runner: the library's custom-pattern work in a worker process killed at its deadline.

The library runs a custom regex in its own process by default, stopped by the ``regex`` module's
``timeout=`` (~3x on every match, and it stops late: 1.2 s past a 2 s deadline on 1 KB of ``(a|a)+$``).
A server that takes regexes from strangers -- typed, in a link, in an uploaded ``tokenizer.json`` -- runs
them here instead (:func:`guarded`, plugged in with :func:`guard.install`): in a worker process of
:mod:`guard.isolation`, at full speed (``Deadline(None)`` inside), killed when the request's deadline
passes. A job in a warm worker costs ~4 ms.

Inside a worker already (a whole training runs in one, :mod:`guard.trainjobs`), the work runs in that
worker, where an alarm signal (:func:`guard.isolation.interrupt_at`) stops it at the deadline as well as the
regex module's ``timeout=``. Where no worker can run (no fork), it runs in this process as the library's
default does.

>>> import bpe
>>> guarded(bpe.splitting._pieces, (r"[a-z]+| ", ["ab 12"]), bpe.Deadline(10))
[['ab', ' ', '12']]
"""
from __future__ import annotations

from typing import Any, Callable

from bpe.deadline import Deadline
from bpe.patterns import PatternError

from . import isolation

__all__ = ["guarded"]

_UNLIMITED = Deadline(None)


def guarded(fn: Callable[..., Any], args: tuple, deadline: Deadline) -> Any:
    """A pattern runner (see :func:`bpe.set_pattern_runner`): ``fn(*args, deadline)`` in a worker process
    killed at ``deadline`` (``WorkerTimeout``, a ``TimeoutError``); a worker that fails raises
    :class:`bpe.PatternError`."""
    if not isolation.in_worker() and isolation.available():
        try:
            return isolation.run(fn, *args, _UNLIMITED, timeout=deadline)
        except isolation.WorkerUnavailable:
            pass
        except (isolation.WorkerTimeout, isolation.WorkerCancelled):
            raise
        except isolation.WorkerError as exc:
            raise PatternError(f"the pattern could not run: its worker process failed ({exc})") from None
    with isolation.interrupt_at(deadline):
        return fn(*args, deadline)
