"""One guard for every page: an unexpected exception becomes a short message on the page, never a traceback.

A page's body runs inside :func:`run_page` (or a function wrapped with :func:`guarded`, e.g. a fragment):

* anything it raises (an ``Exception``) is logged on the server with its full traceback, under the logger
  ``bpe_lab.pages``, tagged with a short reference (8 hex digits);
* the page shows one short, fixed message with that reference, in an ``st.error``. The message never
  holds the exception's text: it could carry a server path or a user's string, and ``st.error`` renders
  Markdown;
* Streamlit's own control flow (``st.rerun``, ``st.stop``, ``st.switch_page``) raises ``BaseException``
  subclasses, which pass through untouched.

Usage, at the bottom of a page file (``app_pages/x.py``)::

    import pageguard

    def main() -> None:
        ...

    pageguard.run_page(main, page="Tokenize")

and for a fragment, which reruns on its own (outside the page's ``run_page``)::

    @st.fragment(run_every=...)
    @pageguard.guarded("Merge player")
    def panels() -> None:
        ...

What the user typed stays in session state: after the message, changing an input or reloading runs the
page again.
"""

from __future__ import annotations

import functools
import logging
import uuid
from typing import Callable, TypeVar

import streamlit as st

__all__ = ["run_page", "guarded", "failure_message", "LOGGER"]

#: The server-side logger the tracebacks go to (no handler of ours: Python's last-resort handler writes
#: ERROR records to the server's stderr, where ``streamlit run`` logs go).
LOGGER = logging.getLogger("bpe_lab.pages")

F = TypeVar("F", bound=Callable[..., object])


def failure_message(page: str, ref: str) -> str:
    """The text shown on the page (plain words, no user input: safe for Markdown).

    >>> failure_message("Tokenize", "1a2b3c4d")[:60]
    'Something went wrong on the Tokenize page, and it stopped he'
    """
    return (
        f"Something went wrong on the {page} page, and it stopped here. The details are in the server's "
        f"log under reference {ref}. What you typed is kept: change a setting or reload the page to try "
        "again."
    )


def _report(page: str, exc: BaseException) -> None:
    ref = uuid.uuid4().hex[:8]
    LOGGER.error("page %s failed (reference %s)", page, ref, exc_info=exc)
    st.error(failure_message(page, ref), icon=":material/error:")


def guarded(page: str) -> Callable[[F], F]:
    """Decorator: run the function; an ``Exception`` it raises is logged and shown as a short message
    (the function then returns ``None``). ``page`` names the page in the message and the log."""

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 -- the point: nothing reaches the page as a traceback
                _report(page, exc)
                return None

        return inner  # type: ignore[return-value]

    return wrap


def run_page(main: Callable[[], object], *, page: str) -> None:
    """Run a page's ``main`` under the guard (see the module docstring)."""
    guarded(page)(main)()
