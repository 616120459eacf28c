"""The Tokenize view's conversation with the browser (``components/tokenize_view``): the text, its edits, the
versions of every column the browser holds, and what each edit sends back.

Protocol (the view's reports are its mailbox's state ``edit``; Python answers with a mail):

* The text lives in :data:`~appstate.keys.TOK_TEXT` (session state: it survives page switches). Its version is
  :data:`~appstate.keys.TOK_VIEW_TID`, ``"<seq>:<n>"``: ``seq`` is raised when Python replaces the text (a
  preset, a cut to the limit), ``n`` counts the browser's edits of it.
* Up, an **edit** ``{"seq", "base", "n", "at", "del", "ins", "have"}``: at code point ``at`` of version
  ``base``, the characters ``del`` were replaced by ``ins``, making version ``n``. Never the whole text, except
  a **resync** ``{"seq", "n", "text", "have"}`` when Python said it lost track (its text is not version
  ``base``, or ``del`` is not what it holds there) and a **restore** (the same, with ``"restore": true`` and
  ``"keep"``: the settings saved in the browser) when a fresh session meets a browser that saved a text.
  ``have`` names the version of each column the browser holds.
* Down, a **mail** (:func:`mail`): per column a splice from the version the browser has
  (:func:`views.tokenize_payload.splice`), ids and byte lengths as arrays, or only the column's version when it
  has the newest; ``"resync": true`` when the whole text is wanted. It travels as bytes (:func:`wire`): a JSON
  header, then every array as little-endian integers (a 1 MB paste: ~5 bytes a token, where base64 in JSON
  took ~7 and a parse of the whole string).
* Each column is kept up to date edit by edit (:func:`encoded`: :class:`views.live_column.LiveColumn`, the
  incremental encoder), or encoded whole when its tokenizer cannot be (a tokenizer.json pipeline...).
"""

from __future__ import annotations

import hashlib
import json
import struct
import sys
from array import array
from dataclasses import dataclass

import streamlit as st

from views.encoded import Encoded
from views.live_column import LiveColumn
from views.text_input import clean_text
from views.tokenize_payload import ColumnTokens, splice, text_splice
from views.trace import SCAN_CHARS

from . import tokenize_state, vocabs
from .keys import (
    TOK_ASKED,
    TOK_KEEP,
    TOK_LIVE,
    TOK_NOTE,
    TOK_PUSHED,
    TOK_RESTORED,
    TOK_RESYNC,
    TOK_SENT,
    TOK_TEXT,
    TOK_TEXT_SEQ,
    TOK_TOUCHED,
    TOK_TRACE_FOR,
    TOK_VIEW,
    TOK_VIEW_TEXT,
    TOK_VIEW_TID,
)
from .sources import MAX_TEXT_BYTES

__all__ = [
    "KEEP_VERSIONS",
    "Entry",
    "text",
    "settings_text",
    "on_edit",
    "on_ask",
    "pending_ask",
    "trace_drawn",
    "trace_stale",
    "settled_on",
    "mail",
    "latest",
    "wire",
    "unwire",
    "encoded",
    "live_column",
    "packed",
    "allow_restore",
    "take_restored",
]

ss = st.session_state

#: versions kept per column (for an edit sent before the previous answer arrived)
KEEP_VERSIONS = 3
#: past this many tokens in a column, only its two newest versions are kept (memory per session: 8 bytes a token
#: a version, so 2 x 6 columns of a 1 MB text's ~250,000 tokens are ~24 MB)
LONG_COLUMN = 50_000


@dataclass(frozen=True)
class Entry:
    """One version of a column as the browser was sent it."""

    v: int
    tokens: ColumnTokens
    head: str


def text() -> str:
    """The page's text (made safe when something else than the view put it there)."""
    if TOK_TEXT not in ss:
        ss[TOK_TEXT] = ""
    value = ss[TOK_TEXT]
    cleaned, note = clean_text(value, MAX_TEXT_BYTES)
    if cleaned != value:
        ss[TOK_TEXT] = cleaned
        if note:
            ss[TOK_NOTE] = note
    return ss[TOK_TEXT]


def settings_text() -> tuple[str, bool, int, str]:
    """``(text, fresh, seq, tid)``: the page's text (a view mounted anew -- after a page switch -- shows it);
    whether this session has not touched it yet (a fresh session: a browser that saved a text restores it);
    its number, raised (and so the text pushed to the view) whenever the page's text is not the one the view
    holds: a preset, a cut, a test setting it; ``tid`` names the text (``"<seq>:<n>"``, n = 0 for a text that
    Python set). A view already showing ``seq`` ignores the text: typing is never overwritten by a rerun."""
    value = text()
    seq = ss.setdefault(TOK_TEXT_SEQ, 0)
    if ss.get(TOK_VIEW_TEXT) != value or TOK_PUSHED not in ss:
        seq = ss[TOK_TEXT_SEQ] = seq + 1
        ss[TOK_VIEW_TEXT] = ss[TOK_PUSHED] = value
        ss[TOK_VIEW_TID] = f"{seq}:0"
        if seq > 1:
            ss[TOK_TOUCHED] = True
    return value, not ss.get(TOK_TOUCHED), seq, ss.get(TOK_VIEW_TID, f"{seq}:0")


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**53


def _tid_n(tid: str) -> int:
    return int(tid.split(":")[1])


def on_edit() -> None:
    """The view sent an edit, a resync or a restore (a widget callback: runs before the fragment)."""
    edit = (ss.get(TOK_VIEW) or {}).get("edit")
    # (what a browser reports is input like any other: a tampered one is ignored, never an error)
    if not isinstance(edit, dict) or not _whole(edit.get("n")):
        return
    seq = ss.get(TOK_TEXT_SEQ, 0)
    if edit.get("seq") != seq:
        return  # typed into a text that Python has replaced since (a preset): the new text wins
    tid = ss.get(TOK_VIEW_TID, f"{seq}:0")
    n = edit["n"]
    if isinstance(edit.get("text"), str):
        if edit.get("restore"):
            if ss.get(TOK_TOUCHED):
                return  # (this session has a text of its own: the browser's saved one does not replace it)
            _restore_settings(edit.get("keep"))
            ss[TOK_RESTORED] = True
        _take(edit["text"], seq, n)
        return
    if tid == f"{seq}:{n}":
        return  # this edit arrived already (sent again after a lost answer)
    at, removed, inserted = edit.get("at"), edit.get("del"), edit.get("ins")
    current = ss.get(TOK_TEXT, "")
    if (
        tid != f"{seq}:{edit.get('base')}"
        or not _whole(at)
        or not isinstance(removed, str)
        or not isinstance(inserted, str)
        or current[at : at + len(removed)] != removed
        or at > len(current)
    ):
        ss[TOK_RESYNC] = True  # not the text the edit was made in: ask for the whole text
        return
    _take(current[:at] + inserted + current[at + len(removed) :], seq, n)


def _take(new: str, seq: int, n: int) -> None:
    """The browser's text ``new`` (version ``n``) becomes the page's, made safe first (when that changes it, it
    is pushed back to the view)."""
    cleaned, note = clean_text(new, MAX_TEXT_BYTES)
    ss[TOK_TEXT] = cleaned
    ss[TOK_TOUCHED] = True
    ss.pop(TOK_RESYNC, None)
    if cleaned == new:
        ss[TOK_VIEW_TEXT] = cleaned  # the view shows it already
        ss[TOK_VIEW_TID] = f"{seq}:{n}"
    if note:
        ss[TOK_NOTE] = note


def allow_restore(keep: dict) -> None:
    """The page's settings a browser may restore after a reload: ``{widget key: its value now}`` (only these
    keys, each with a value of the same type)."""
    ss[TOK_KEEP] = {k: type(v).__name__ for k, v in keep.items()}


def _restore_settings(keep) -> None:
    if not isinstance(keep, dict):
        return
    allowed = ss.get(TOK_KEEP, {})
    uploads = keep.get("uploads")
    for up in uploads[: vocabs.MAX_SESSION_UPLOADS] if isinstance(uploads, list) else ():
        # (an upload the server still holds: its digest names it; the user's choice below says if it is shown)
        if (
            isinstance(up, dict)
            and isinstance(up.get("digest"), str)
            and isinstance(up.get("label"), str)
            and vocabs.cached_upload(up["digest"]) is not None
        ):
            tokenize_state.remember_upload(up["digest"], up["label"][:200])
    for key, value in keep.items():
        if key in allowed and type(value).__name__ == allowed[key]:
            if isinstance(value, list) and not all(isinstance(v, str) for v in value):
                continue
            ss[key] = value


def take_restored() -> bool:
    """Whether a restore arrived since the last call (the page then runs whole: its widgets show it)."""
    return bool(ss.pop(TOK_RESTORED, False))


def on_ask() -> None:
    """A token was clicked: the fragment answers with its trace (:func:`pending_ask`)."""


def pending_ask() -> dict | None:
    """The click not answered yet (``{"key", "index", "n", "v"}``), marked answered."""
    ask = (ss.get(TOK_VIEW) or {}).get("ask")
    if not isinstance(ask, dict) or not _whole(ask.get("n")) or ask.get("n") == ss.get(TOK_ASKED):
        return None
    ss[TOK_ASKED] = ask.get("n")
    return ask


def _trace_digest(text_now: str) -> str:
    return hashlib.sha1(text_now[:SCAN_CHARS].encode("utf-8", "replace")).hexdigest()[:10]


def trace_drawn(text_now: str) -> str:
    """Note that a full run drew the trace section for ``text_now``; returns the digest naming that text."""
    digest = ss[TOK_TRACE_FOR] = _trace_digest(text_now)
    return digest


def trace_stale(text_now: str) -> bool:
    """Whether the trace section on the page was drawn for a text other than ``text_now`` (an edit reruns only
    the view's fragment: typed text, issue 14). The mail then asks the view to report when the typing pauses
    (``follow``), and :func:`settled_on` that report reruns the whole page."""
    return ss.get(TOK_TRACE_FOR) != _trace_digest(text_now)


def settled_on(tid: str) -> bool:
    """Whether the view reported the typing paused on text ``tid`` (its ``settled`` report, once per text)."""
    got = (ss.get(TOK_VIEW) or {}).get("settled")
    return isinstance(got, dict) and got.get("tid") == tid


def latest(key: str) -> Entry | None:
    """The newest version of column ``key`` sent to this session's browser."""
    hist = ss.get(TOK_SENT, {}).get(key)
    return hist[-1] if hist else None


def _have() -> dict:
    # (the view's last edit says which versions it holds; before any, its report that a fresh page drew)
    edit = (ss.get(TOK_VIEW) or {}).get("edit") or (ss.get(TOK_VIEW) or {}).get("drawn")
    have = edit.get("have") if isinstance(edit, dict) else None
    return {k: v for k, v in have.items() if isinstance(k, str) and _whole(v)} if isinstance(have, dict) else {}


def encoded(key: str, text_now: str, specials: bool, title: str, tok) -> tuple[Encoded, ColumnTokens]:
    """Column ``key``'s tokenizer ``tok`` on the page's text: kept up to date edit by edit
    (:class:`views.live_column.LiveColumn`, one per column in this session), or encoded whole
    (:func:`appstate.tokenize_state.live_encoded`, cached) when it cannot be."""
    got = live_column(key, specials, title, tok).update(text_now)
    return got if got is not None else tokenize_state.live_encoded(key, text_now, specials, title, tok)


def live_column(key: str, specials: bool, title: str, tok) -> LiveColumn:
    """Column ``key``'s :class:`views.live_column.LiveColumn` in this session (made when it is new or its
    tokenizer or settings changed)."""
    live: dict = ss.setdefault(TOK_LIVE, {})
    column = live.get(key)
    if column is None or column.tok is not tok or column.specials != specials or column.name != title:
        column = live[key] = LiveColumn(tok, title, specials=specials)
    return column


def _forget_columns(keys: set[str]) -> None:
    live: dict = ss.get(TOK_LIVE, {})
    for key in [k for k in live if k not in keys]:
        del live[key]


def _typed(values, width: str) -> array:
    return values if isinstance(values, array) and values.typecode == width else array(width, values)


def _ids_width(ids) -> str:
    return "H" if max(ids, default=0) < 65536 else "I"


def wire(message: dict) -> bytes:
    """:func:`mail`'s message as the browser is sent it: ``[n: uint32 LE][header: n bytes of JSON][blobs]``; each
    column's ``ids`` and ``lens`` (arrays) travel in the blobs as little-endian integers, named in the header by
    ``[offset in the blobs, count, bytes each]`` (every blob starts at a multiple of 4).

    >>> m = {"tid": "1:0", "cols": [{"key": "a", "ids": array("H", [1, 256]), "lens": array("B", [1, 2])}]}
    >>> raw = wire(m)
    >>> unwire(raw)["cols"][0]["ids"].tolist(), json.loads(raw[4:4 + raw[0]])["cols"][0]["lens"]
    ([1, 256], [4, 2, 1])
    """
    blobs: list[bytes] = []
    offset = 0
    cols = []
    for col in message.get("cols", ()):
        item = dict(col)
        for name in ("ids", "lens"):
            values = col.get(name)
            if isinstance(values, array):
                if sys.byteorder != "little":
                    values = array(values.typecode, values)
                    values.byteswap()
                data = values.tobytes()
                data += b"\0" * (-len(data) % 4)
                item[name] = [offset, len(values), values.itemsize]
                blobs.append(data)
                offset += len(data)
        cols.append(item)
    header = json.dumps({**message, "cols": cols}, separators=(",", ":")).encode("utf-8")
    header += b" " * (-len(header) % 4)
    return struct.pack("<I", len(header)) + header + b"".join(blobs)


def unwire(raw: bytes) -> dict:
    """:func:`wire`'s bytes read back (its arrays as arrays): what the browser reads (tests, benchmarks)."""
    n = struct.unpack_from("<I", raw)[0]
    message = json.loads(raw[4 : 4 + n])
    blobs = memoryview(raw)[4 + n :]
    for col in message.get("cols", ()):
        for name in ("ids", "lens"):
            ref = col.get(name)
            if isinstance(ref, list):
                at, count, size = ref
                values = array({1: "B", 2: "H", 4: "I"}[size], bytes(blobs[at : at + count * size]))
                if sys.byteorder != "little":
                    values.byteswap()
                col[name] = values
    return message


def _lens_width(lens) -> str:
    top = max(lens, default=0)
    return "B" if top < 256 else "H" if top < 65536 else "I"


def packed(tokens: ColumnTokens) -> tuple[array, array]:
    """A column's ids and byte lengths as :func:`wire` sends them: arrays of the narrowest width that holds them."""
    return _typed(tokens.ids, _ids_width(tokens.ids)), _typed(tokens.lens, _lens_width(tokens.lens))


def mail(
    columns: list[tuple[str, str, str, ColumnTokens | None]], tid: str, *, compare: str = "", trace: dict | None = None
) -> dict:
    """What the browser is sent: ``columns`` are ``(key, slug, head, tokens or None)`` in page order; ``tid``
    names the text they encoded. Versions are kept in :data:`~appstate.keys.TOK_SENT`. A column's ``ids`` and
    ``lens`` are arrays (sent as :func:`wire` packs them)."""
    sent: dict = ss.setdefault(TOK_SENT, {})
    have = _have()
    out = []
    for key, slug, head, tokens in columns:
        tokens = tokens or ColumnTokens()
        hist: list[Entry] = sent.get(key, [])
        last = hist[-1] if hist else None
        if last is None or last.tokens != tokens or last.head != head:
            last = Entry((last.v + 1) if last else 0, tokens, head)
            keep = 2 if len(tokens.ids) > LONG_COLUMN else KEEP_VERSIONS
            hist = [*hist, last][-keep:]
            sent[key] = hist
        theirs = have.get(key)
        item: dict = {"key": key, "slug": slug, "v": last.v}
        if theirs != last.v:
            base = next((e for e in hist if e.v == theirs), None)
            t = last.tokens
            if base is not None and base is not last:
                at, deleted, ids = splice(base.tokens.ids, t.ids)
                lens = t.lens[at : at + len(ids)]
                if base.tokens.lens[:at] != t.lens[:at] or base.tokens.lens[at + deleted :] != t.lens[at + len(ids) :]:
                    base = None  # (ids equal, lengths not: cannot happen for one text; be safe)
                else:
                    item.update(
                        base=base.v,
                        at=at,
                        ids=_typed(ids, _ids_width(ids)),
                        lens=_typed(lens, _lens_width(lens)),
                        **{"del": deleted},
                    )
            if base is None or base is last:
                item.update(
                    base=None,
                    at=0,
                    ids=_typed(t.ids, _ids_width(t.ids)),
                    lens=_typed(t.lens, _lens_width(t.lens)),
                    **{"del": 0},
                )
            item.update(head=last.head, special=list(t.special), unk=[list(u) for u in t.unknown])
            if base is not None and base is not last and base.tokens.text is not None and t.text is not None:
                item["textSplice"] = list(text_splice(base.tokens.text, t.text))  # a normalized text: what changed
            else:
                item["text"] = t.text
        out.append(item)
    keys = {c[0] for c in columns}
    for key in [k for k in sent if k not in keys]:
        del sent[key]
    _forget_columns(keys)
    message = {"tid": tid, "order": [c[0] for c in columns], "cols": out, "compare": compare}
    if ss.get(TOK_RESYNC):
        message["resync"] = True
    if trace is not None:
        message["trace"] = trace
    return message
