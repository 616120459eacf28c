"""Share links: read a page's state from URL query parameters, safely, and write it back.

Pure functions over plain values (no Streamlit); :mod:`appstate.links` applies them to ``st.query_params``.

A link is untrusted input. Every ``parse_*`` function takes the raw value as Streamlit gives it
(``st.query_params[...]``: a ``str``; AppTest may give a ``list``; ``None`` when the parameter is absent)
and returns ``(value, note)``: the value to use, and ``None`` or a short sentence saying what was wrong and
what is shown instead. An absent parameter is not an error: it gives the default and no note. A bad one
never raises: it gives the default and a note for the page to show.

Notes quote the bad value shortened and without line breaks; pages must still escape them before putting
them in HTML (they are plain text, not Markdown).

>>> parse_int("3", 1, 5, 1, name="step")
(3, None)
>>> parse_int("abc", 1, 5, 1, name="step")
(1, "The link's step='abc' is not a whole number: showing step 1.")
>>> parse_int("-5", 1, 5, 1, name="step")
(1, "The link's step=-5 is outside 1–5: showing step 1.")
>>> query_string({"lesson": 2, "step": 3, "presenter": True, "x": None})
'lesson=2&step=3&presenter=1'
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence, TypeVar
from urllib.parse import urlencode, urlsplit, urlunsplit

__all__ = [
    "parse_int",
    "parse_choice",
    "parse_bool",
    "parse_text",
    "query_string",
    "share_url",
    "shown",
    "encode_value",
    "first_value",
]

T = TypeVar("T")

#: The longest piece of a bad value quoted back in a note.
QUOTE_CHARS = 24
_INT = re.compile(r"[+-]?[0-9]+")  # ASCII digits only: no "٣", no "1e3", no "0x10"
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def first_value(value: Any) -> str | None:
    """One string from a raw query value: the last of a repeated parameter (as ``st.query_params`` does),
    ``None`` when absent.

    >>> first_value(["1", "2"]), first_value(None), first_value("x")
    ('2', None, 'x')
    """
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return str(value[-1]) if value else None
    return str(value)


def shown(value: str, limit: int = QUOTE_CHARS) -> str:
    """A bad value as a note quotes it: ``repr``, shortened, on one line.

    >>> shown("abc")
    "'abc'"
    >>> shown("x" * 100)[-2:]
    "…'"
    """
    one_line = " ".join(str(value).split())
    if len(one_line) > limit:
        one_line = one_line[:limit] + "…"
    return repr(one_line)


def parse_int(
    value: Any,
    lo: int,
    hi: int,
    default: int,
    *,
    name: str = "value",
    what: str | None = None,
    instead: str | None = None,
) -> tuple[int, str | None]:
    """A whole number in ``lo..hi`` from a query value, else ``default`` with a note.

    ``what`` names the thing in the note's second half ("showing lesson 1"); it defaults to ``name``.
    ``instead`` replaces that half when the caller, not ``default``, decides what is shown.

    >>> parse_int(None, 1, 7, 1)
    (1, None)
    >>> parse_int("99", 1, 7, 1, name="lesson")
    (1, "The link's lesson=99 is outside 1–7: showing lesson 1.")
    >>> parse_int(" 4 ", 1, 7, 1)
    (4, None)
    """
    then = instead or f"showing {what or name} {default}"
    raw = first_value(value)
    if raw is None:
        return default, None
    text = raw.strip()
    if not _INT.fullmatch(text):
        return default, f"The link's {name}={shown(raw)} is not a whole number: {then}."
    number = int(text) if len(text) <= 30 else None
    if number is None or not lo <= number <= hi:
        span = f"{lo}–{hi}" if lo != hi else f"only {lo}"
        return default, f"The link's {name}={shown(text)[1:-1]} is outside {span}: {then}."
    return number, None


def parse_choice(
    value: Any, choices: Sequence[T] | Mapping[str, T], default: T, *, name: str = "value", case_sensitive: bool = False
) -> tuple[T, str | None]:
    """One of ``choices`` (strings, or a mapping from the URL spelling to a value), else ``default``.

    >>> parse_choice("BYTE", ["byte", "char"], "byte", name="level")
    ('byte', None)
    >>> parse_choice("bits", ["byte", "char"], "byte", name="level")
    ('byte', "The link's level='bits' is not one of byte, char: using byte.")
    >>> parse_choice("2", {"1": "one", "2": "two"}, "one")
    ('two', None)
    """
    raw = first_value(value)
    if raw is None:
        return default, None
    table: Mapping[str, T] = choices if isinstance(choices, Mapping) else {str(c): c for c in choices}
    key = raw.strip()
    if key in table:
        return table[key], None
    if not case_sensitive:
        folded = {k.casefold(): v for k, v in table.items()}
        if key.casefold() in folded:
            return folded[key.casefold()], None
    names = ", ".join(table) if len(table) <= 8 else ", ".join(list(table)[:8]) + ", …"
    default_name = next((k for k, v in table.items() if v == default), str(default))
    return default, f"The link's {name}={shown(raw)} is not one of {names}: using {default_name}."


def parse_bool(value: Any, default: bool = False, *, name: str = "value") -> tuple[bool, str | None]:
    """``1/0``, ``true/false``, ``yes/no``, ``on/off`` (any case), else ``default`` with a note.

    >>> parse_bool("1", name="presenter"), parse_bool("off"), parse_bool(None, True)
    ((True, None), (False, None), (True, None))
    >>> parse_bool("maybe", name="presenter")
    (False, "The link's presenter='maybe' is not 1 or 0: using 0.")
    """
    raw = first_value(value)
    if raw is None:
        return default, None
    key = raw.strip().casefold()
    if key in _TRUE:
        return True, None
    if key in _FALSE:
        return False, None
    return default, f"The link's {name}={shown(raw)} is not 1 or 0: using {int(default)}."


def parse_text(value: Any, max_chars: int, default: str = "", *, name: str = "text") -> tuple[str, str | None]:
    """A short text (e.g. a pasted sample) of at most ``max_chars`` characters, else ``default``.

    >>> parse_text("hello", 10)
    ('hello', None)
    >>> parse_text("x" * 11, 10, name="text")
    ('', "The link's text is 11 characters long; links carry at most 10: using the default text.")
    """
    raw = first_value(value)
    if raw is None:
        return default, None
    if len(raw) > max_chars:
        return default, (
            f"The link's {name} is {len(raw):,} characters long; links carry at most "
            f"{max_chars:,}: using the default {name}."
        )
    return raw, None


def encode_value(v: Any) -> str:
    """A value as the URL writes it: ``True``/``False`` as ``1``/``0``, anything else as ``str``.

    >>> encode_value(True), encode_value(3), encode_value("2.5")
    ('1', '3', '2.5')
    """
    if isinstance(v, bool):
        return "1" if v else "0"
    return str(v)


def query_string(params: Mapping[str, Any]) -> str:
    """``key=value&...`` in the given order; ``None`` values left out, ``True``/``False`` as ``1``/``0``.

    >>> query_string({"text": "a b&c"})
    'text=a+b%26c'
    """
    return urlencode([(k, encode_value(v)) for k, v in params.items() if v is not None])


def share_url(base: str | None, params: Mapping[str, Any]) -> str:
    """The link to a page with ``params``: ``base`` (the page's address; any query or fragment in it is
    dropped) plus the query. Without a base (the app does not know its address) a relative ``?...`` link.

    >>> share_url("http://host:8501/classroom?old=1#x", {"lesson": 2, "step": 1})
    'http://host:8501/classroom?lesson=2&step=1'
    >>> share_url("http://host:8501", {"merge": 3})      # the home page: the path is "/", as browsers write it
    'http://host:8501/?merge=3'
    >>> share_url(None, {"lesson": 2})
    '?lesson=2'
    """
    query = query_string(params)
    if not base:
        return "?" + query
    parts = urlsplit(base)
    return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", query, ""))
