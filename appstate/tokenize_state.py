"""The Tokenize page's session: the tokenizers chosen for its columns, this session's uploaded tokenizers,
and the encodings (cached).

The choice (:data:`~appstate.keys.TOK_CHOICE`) holds ``"trained"``, registry names and ``"upload:<digest>"``;
:func:`registry_column` and :func:`upload_column` resolve one to a :class:`Column` — its tokenizer, or the
reason there is none (not installed, failed to load, no longer in memory). The uploads
(:data:`~appstate.keys.TOK_UPLOADS`) are ``[{"digest", "label"}]``, newest last, at most
:data:`appstate.vocabs.MAX_SESSION_UPLOADS`; the tokenizers themselves are in :mod:`appstate.vocabs`'
bounded cache for every session.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable

import streamlit as st

import bpe
from views.encoded import Encoded, encode_view
from views.tokenize_payload import ColumnTokens, column_tokens
from views.vocabularies import load_failed_text

from . import vocabs
from .keys import TOK_CHOICE, TOK_UPLOADS

__all__ = [
    "Column",
    "DEFAULT_CHOICE",
    "MAX_COLUMNS",
    "UPLOAD_PREFIX",
    "NOT_INSTALLED",
    "remember_upload",
    "forget_uploads",
    "is_known_upload",
    "uploads",
    "keep_choice",
    "registry_column",
    "upload_column",
    "encoded",
    "live_encoded",
    "slug",
]

ss = st.session_state
LOG = logging.getLogger("bpe_lab.pages")

DEFAULT_CHOICE = ["trained", "cl100k_base", "o200k_base"]
MAX_COLUMNS = 6
UPLOAD_PREFIX = "upload:"
NOT_INSTALLED = "not installed"


@dataclass(frozen=True)
class Column:
    """One column of the page: its choice key (``"trained:<run>:<k>"`` for the trained tokenizer), the
    tokenizer or None, its title, the registry name (None for a trained or uploaded tokenizer) and, without a
    tokenizer, the ``problem`` (:data:`NOT_INSTALLED` or a message for the user)."""

    key: str
    tok: "bpe.Tokenizer | None"
    title: str
    name: str | None = None
    problem: str = ""


# ----------------------------------------------------------------------------------------------------
# Uploads (callbacks and the uploader's loop)


def remember_upload(digest: str, label: str) -> None:
    """Add an upload to this session's list (newest last, at most MAX_SESSION_UPLOADS) and, when it is new, to
    the columns (the user may take it out again); the uploads it pushes out leave the columns too."""
    before = ss.get(TOK_UPLOADS, [])
    kept = [u for u in before if u["digest"] != digest]
    known = len(kept) != len(before)
    kept.append({"digest": digest, "label": label})
    dropped = {UPLOAD_PREFIX + d["digest"] for d in kept[: -vocabs.MAX_SESSION_UPLOADS]}
    ss[TOK_UPLOADS] = kept[-vocabs.MAX_SESSION_UPLOADS :]
    choice = [c for c in ss.get(TOK_CHOICE, DEFAULT_CHOICE) if c not in dropped]
    if not known:
        choice = [*choice, UPLOAD_PREFIX + digest][-MAX_COLUMNS:]
    ss[TOK_CHOICE] = choice


def forget_uploads() -> None:
    """Drop this session's uploads, and their columns."""
    ss[TOK_UPLOADS] = []
    ss[TOK_CHOICE] = [c for c in ss.get(TOK_CHOICE, []) if not c.startswith(UPLOAD_PREFIX)]


def is_known_upload(digest: str) -> bool:
    return any(u["digest"] == digest for u in ss.get(TOK_UPLOADS, []))


def uploads() -> dict[str, str]:
    """This session's uploads as ``{choice key: label}``, oldest first."""
    return {UPLOAD_PREFIX + u["digest"]: u["label"] for u in ss.get(TOK_UPLOADS, [])}


def keep_choice(options: list[str]) -> None:
    """Before the picker is drawn: the default choice the first time, else only what is still on offer."""
    if TOK_CHOICE not in ss:
        ss[TOK_CHOICE] = list(DEFAULT_CHOICE)
    else:
        ss[TOK_CHOICE] = [o for o in ss[TOK_CHOICE] if o in options][:MAX_COLUMNS]


# ----------------------------------------------------------------------------------------------------
# Columns


def registry_column(name: str, installed: bool, load: Callable[[str], "bpe.Tokenizer"]) -> Column:
    """The registry vocabulary ``name``, loaded with ``load(name)`` (the page's spinner around
    :func:`appstate.vocabs.vocabulary`); a load that fails is logged and said in the user's words."""
    spec = bpe.PRETRAINED[name]
    if not installed:
        return Column(name, None, spec.label, name, NOT_INSTALLED)
    try:
        return Column(name, load(name), spec.label, name)
    except (ValueError, OSError) as exc:
        LOG.error("vocabulary %s failed to load: %s", name, exc)
        return Column(name, None, spec.label, name, load_failed_text(spec))


def upload_column(key: str) -> Column:
    """The uploaded tokenizer of choice key ``key`` (``"upload:<digest>"``), if the server still holds it."""
    title = f"Uploaded: {uploads().get(key, '?')}"
    tok = vocabs.cached_upload(key[len(UPLOAD_PREFIX) :])
    if tok is None:
        return Column(
            key,
            None,
            title,
            problem="This upload is no longer in memory (the server keeps a bounded "
            "amount of uploaded tokenizers for everyone): upload the file again.",
        )
    return Column(key, tok, title)


@st.cache_data(show_spinner=False, max_entries=16)
def encoded(tok_key: str, text: str, specials: bool, name: str, _tok: "bpe.Tokenizer") -> Encoded:
    """``text`` encoded by the column ``tok_key`` (:func:`views.encoded.encode_view`); keyed by the column's
    key and the text itself; at most 16 results (each ≤ 1 MB of text + its ids)."""
    return encode_view(_tok, text, specials_as_special=specials, name=name)


@st.cache_data(show_spinner=False, max_entries=32)
def live_encoded(
    tok_key: str, text: str, specials: bool, name: str, _tok: "bpe.Tokenizer"
) -> tuple[Encoded, ColumnTokens]:
    """``text`` encoded by the column ``tok_key`` and laid out for the browser
    (:func:`views.tokenize_payload.column_tokens`); keyed by the column's key and the text; 32 results (six
    columns of the last five texts: an edit's neighbours stay cached while the user types)."""
    enc = encode_view(_tok, text, specials_as_special=specials, name=name)
    return enc, column_tokens(_tok, enc, text)


def slug(key: str) -> str:
    """A column's key as a widget-key part: ``"trained"``, ``"upload_<10 hex>"`` or the registry name.

    >>> slug("trained:abc:12"), slug("upload:0123456789abcdef"), slug("cl100k_base")
    ('trained', 'upload_0123456789', 'cl100k_base')
    """
    if key.startswith("trained"):
        return "trained"
    if key.startswith(UPLOAD_PREFIX):
        return "upload_" + key[len(UPLOAD_PREFIX) :][:10]
    return key
