"""The app's guard: code and regexes from strangers run where they can be killed. Beside the library
(``bpe`` runs no process); the app plugs it in at startup (``appstate`` calls :func:`install`).

* :mod:`guard.forkserver` -- the fork server (*zygote*) and the messages between a worker and its caller;
* :mod:`guard.isolation` -- a function in a worker process with a deadline, cancellation and progress;
* :mod:`guard.runner` -- the guarded pattern runner: a custom regex's work in a worker killed at its
  deadline (plugged into the library with :func:`bpe.set_pattern_runner`);
* :mod:`guard.trainjobs` -- the app's trainings in workers: shared, in line, abandoned, one deadline;
  :mod:`guard.trainqueue` -- the line they wait in (:class:`~guard.trainqueue.TrainingQueue`).

Standard library and ``bpe`` only (no Streamlit at module level), so it is tested without a server.

>>> import bpe
>>> previous = install()
>>> bpe.pretokenize("ab 12", r"[a-z]+| ")     # cut in a worker process
['ab', ' ', '12']
>>> _ = bpe.set_pattern_runner(previous)      # what ran before (the app's runner, in a test run)
"""

from __future__ import annotations

import bpe

from .runner import guarded

__all__ = ["install", "uninstall"]


def install():
    """Run the library's custom patterns guarded (:func:`guard.runner.guarded`) from now on, in this process;
    returns the runner it replaces (None: the library's default)."""
    return bpe.set_pattern_runner(guarded)


def uninstall() -> None:
    """Back to the library's default: custom patterns in this process, stopped by ``regex``'s ``timeout=``."""
    bpe.set_pattern_runner(None)
