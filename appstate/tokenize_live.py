"""The Tokenize view's conversation with the browser (``components/tokenize_view``): the text, the versions of
every column the browser holds, and what an edit sends back.

* The text lives in :data:`~appstate.keys.TOK_TEXT` (session state, so it survives page switches); a preset
  or a cut replaces it and raises :data:`~appstate.keys.TOK_TEXT_SEQ`, which makes the view show it.
* An edit (the view's ``edit`` state: ``{"text", "n", "seq", "have"}``) is taken in :func:`on_edit`, before
  the fragment reruns: the text made safe (:func:`views.text_input.clean_text`), the note kept for the page.
* :func:`mail` builds what the browser is sent: per column, a splice from the version the browser says it has
  (:func:`views.tokenize_payload.splice`), or only the column's version when it has the newest. A few
  versions per column are kept (:data:`KEEP_VERSIONS`; one for long texts) so an edit sent before the last
  answer arrived still gets a splice.
"""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from views.text_input import clean_text
from views.tokenize_payload import ColumnTokens, splice, text_splice

from .keys import (
    TOK_ASKED,
    TOK_NOTE,
    TOK_PUSHED,
    TOK_SENT,
    TOK_TEXT,
    TOK_TEXT_SEQ,
    TOK_VIEW,
    TOK_VIEW_TEXT,
    TOK_VIEW_TID,
)
from .sources import MAX_TEXT_BYTES

__all__ = ["KEEP_VERSIONS", "Entry", "text", "settings_text", "on_edit", "on_ask", "pending_ask", "mail",
           "latest"]

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


def settings_text() -> tuple[str, int, str, str]:
    """``(text, pushed, seq, tid)``: the page's text; the text last pushed to the view and its number (raised, and
    the text pushed again, whenever the page's text is not the one the view holds: a preset, a cut, a test
    setting it); ``tid`` names the text encoded (``"<seq>:<n>"``, n = 0 for a text that Python set). The view's
    settings carry ``pushed``, which an edit does not change: they are not re-sent while the user types."""
    value = text()
    seq = ss.setdefault(TOK_TEXT_SEQ, 0)
    if ss.get(TOK_VIEW_TEXT) != value or TOK_PUSHED not in ss:
        seq = ss[TOK_TEXT_SEQ] = seq + 1
        ss[TOK_VIEW_TEXT] = ss[TOK_PUSHED] = value
        ss[TOK_VIEW_TID] = f"{seq}:0"
    return value, ss[TOK_PUSHED], seq, ss.get(TOK_VIEW_TID, f"{seq}:0")


def on_edit() -> None:
    """The view sent an edit (a widget callback: runs before the fragment)."""
    edit = (ss.get(TOK_VIEW) or {}).get("edit")
    # (what a browser reports is input like any other: a tampered one is ignored, never an error)
    if not isinstance(edit, dict) or not isinstance(edit.get("text"), str) or not _whole(edit.get("n")):
        return
    seq = ss.get(TOK_TEXT_SEQ, 0)
    if edit.get("seq") != seq:
        return          # typed into a text that Python has replaced since (a preset): the new text wins
    cleaned, note = clean_text(edit["text"], MAX_TEXT_BYTES)
    ss[TOK_TEXT] = cleaned
    if cleaned == edit["text"]:
        ss[TOK_VIEW_TEXT] = cleaned        # the view shows it already
        ss[TOK_VIEW_TID] = f"{seq}:{edit['n']}"
    if note:
        ss[TOK_NOTE] = note


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2 ** 53


def on_ask() -> None:
    """A token was clicked: the fragment answers with its trace (:func:`pending_ask`)."""


def pending_ask() -> dict | None:
    """The click not answered yet (``{"key", "index", "n", "v"}``), marked answered."""
    ask = (ss.get(TOK_VIEW) or {}).get("ask")
    if not isinstance(ask, dict) or not _whole(ask.get("n")) or ask.get("n") == ss.get(TOK_ASKED):
        return None
    ss[TOK_ASKED] = ask.get("n")
    return ask


def latest(key: str) -> Entry | None:
    """The newest version of column ``key`` sent to this session's browser."""
    hist = ss.get(TOK_SENT, {}).get(key)
    return hist[-1] if hist else None


def _have() -> dict:
    edit = (ss.get(TOK_VIEW) or {}).get("edit")
    have = edit.get("have") if isinstance(edit, dict) else None
    return {k: v for k, v in have.items() if isinstance(k, str) and _whole(v)} if isinstance(have, dict) else {}


def mail(columns: list[tuple[str, str, str, ColumnTokens | None]], tid: str, *, compare: str = "",
         trace: dict | None = None) -> dict:
    """What the browser is sent: ``columns`` are ``(key, slug, head, tokens or None)`` in page order; ``tid``
    names the text they encoded. Versions are kept in :data:`~appstate.keys.TOK_SENT`."""
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
                lens = t.lens[at:at + len(ids)]
                if base.tokens.lens[:at] != t.lens[:at] or \
                        base.tokens.lens[at + deleted:] != t.lens[at + len(ids):]:
                    base = None   # (ids equal, lengths not: cannot happen for one text; be safe)
                else:
                    item.update(base=base.v, at=at, ids=ids, lens=list(lens), **{"del": deleted})
            if base is None or base is last:
                item.update(base=None, at=0, ids=list(t.ids), lens=list(t.lens), **{"del": 0})
            item.update(head=last.head, special=list(t.special), unk=[list(u) for u in t.unknown])
            if base is not None and base is not last and base.tokens.text is not None and t.text is not None:
                item["textSplice"] = list(text_splice(base.tokens.text, t.text))   # a normalized text: what changed
            else:
                item["text"] = t.text
        out.append(item)
    for key in [k for k in sent if k not in {c[0] for c in columns}]:
        del sent[key]
    message = {"tid": tid, "order": [c[0] for c in columns], "cols": out, "compare": compare}
    if trace is not None:
        message["trace"] = trace
    return message
