"""State of the merge player's second mode: replaying a real vocabulary (GPT-4's, Llama 3's ...) on a text.

Its session keys are :mod:`appstate.keys`' ``PLAYER_MODE``, ``PLAYER_VOCAB`` and ``REPLAY_*`` (the training
mode's step, window and merge tree stay as they were, so the other pages' "trained tokenizer" does not
follow a replay); here are the text limit (:data:`bpe.vocab_replay.MAX_REPLAY_BYTES`), the replay and its
packed payloads (cached for every session: a replay is immutable). The share link's ``replay=<vocabulary>``
parameter is read and written in :mod:`appstate.links`.
"""

from __future__ import annotations

import streamlit as st

import bpe
from bpe.vocab_replay import MAX_REPLAY_BYTES, VocabReplay, replay
from views.player_payload import pack
from views.vocab_player import replay_payload, replay_window, replay_window_payload
from views.vocabularies import short_label

from .caches import WINDOW_CHARS, player_tag
from .keys import (
    PLAYER_MODE,
    PLAYER_VOCAB,
    REPLAY_CUT,
    REPLAY_QUERY,
    REPLAY_STEP,
    REPLAY_UPLOAD,
    REPLAY_UPLOAD_ERROR,
    REPLAY_UPLOADED,
    REPLAY_WINDOW,
)
from .runs import text_key
from .sources import SourceError, first_bytes
from .vocabs import UploadError, UploadGroup, cached_upload, load_upload, refuse_size, vocabulary

__all__ = [
    "MODES",
    "DEFAULT_VOCAB",
    "UPLOADED",
    "init_replay_state",
    "installed",
    "vocab_words",
    "replay_text",
    "replay_id",
    "vocab_replay",
    "upload_replay",
    "replay_run_data",
    "replay_window_data",
    "MAX_REPLAY_BYTES",
    "kb",
    "take_upload",
    "on_upload",
    "uploaded",
    "replay_of",
]

MODES = {"train": "Train BPE on a text", "replay": "Replay a real vocabulary"}
DEFAULT_VOCAB = "cl100k_base"
#: ``PLAYER_VOCAB``'s value when the replay plays an uploaded tokenizer.json (a SentencePiece-style one such as
#: Llama 2's or Mistral 7B's, or a byte-level one), not a registry vocabulary
UPLOADED = "upload"


def kb(n: int) -> str:
    """Bytes in KB for the replay's limit: ``kb(200_000) == "200 KB"``."""
    return f"{n / 1000:,.0f} KB" if n >= 1000 else f"{n} bytes"


def installed() -> list[str]:
    """The registry's vocabularies whose package is installed, in registry order."""
    return [name for name in bpe.PRETRAINED if bpe.pretrained.is_installed(name)]


def vocab_words(name: str) -> str:
    """The vocabulary's name in the player's sentences: ``"GPT-4"``, ``"Llama 3"``."""
    return short_label(name)


def init_replay_state() -> None:
    """Give every replay key its default once per session (and a vocabulary that is installed)."""
    ss = st.session_state
    names = installed()
    defaults = {
        PLAYER_MODE: "train",
        PLAYER_VOCAB: DEFAULT_VOCAB if DEFAULT_VOCAB in names else (names or [""])[0],
        REPLAY_CUT: False,
        REPLAY_STEP: 0,
        REPLAY_WINDOW: 0,
        REPLAY_QUERY: "",
    }
    for key, value in defaults.items():
        if key not in ss:
            ss[key] = value
    if ss[PLAYER_VOCAB] not in names and ss[PLAYER_VOCAB] != UPLOADED and names:  # (a package removed since)
        ss[PLAYER_VOCAB] = names[0]


def take_upload(name: str, data: bytes) -> None:
    """An uploaded tokenizer file to replay: loaded (shared cache, :func:`appstate.vocabs.load_upload`) and
    remembered for this session; why it cannot be read goes to ``REPLAY_UPLOAD_ERROR`` (plain text naming the
    file: escape it)."""
    ss = st.session_state
    why = refuse_size(name, len(data))
    group = UploadGroup((name,), (data,), name)
    if not why:
        try:
            load_upload(group)
        except UploadError as exc:
            why = str(exc)
    ss[REPLAY_UPLOAD_ERROR] = why
    if not why:
        ss[REPLAY_UPLOADED] = {"digest": group.digest, "label": name}


def on_upload() -> None:
    """The replay's file uploader's callback: take the file it holds (nothing when it was cleared)."""
    f = st.session_state.get(REPLAY_UPLOAD)
    if f is not None:
        take_upload(f.name, f.getvalue())


def uploaded() -> "tuple[bpe.Tokenizer, str, str]":
    """The uploaded tokenizer replayed: ``(tokenizer, digest, file name)``; :class:`SourceError` when there is
    none yet or the server no longer holds it."""
    info = st.session_state.get(REPLAY_UPLOADED)
    if not info:
        raise SourceError(
            "Upload a tokenizer.json in the sidebar (a SentencePiece-style one such as Llama 2's or "
            "Mistral 7B's, or a byte-level one) to replay its merges on this text."
        )
    tok = cached_upload(info["digest"])
    if tok is None:
        raise SourceError(
            "The uploaded tokenizer is no longer in memory (the server keeps a bounded amount of "
            "uploaded tokenizers for everyone): upload the file again."
        )
    return tok, info["digest"], info["label"]


def replay_text(text: str, cut: bool) -> tuple[str, bool]:
    """``(the text to replay, whether it is the first part of a longer one)``, or
    :class:`appstate.sources.SourceError` when the text is longer than a replay takes and ``cut`` is off. The
    cut ends at a line or a space."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size <= MAX_REPLAY_BYTES:
        return text, False
    if not cut:
        raise SourceError(
            f"This text is {kb(size)}; a replay takes at most {kb(MAX_REPLAY_BYTES)} (every "
            f"merge of every word is drawn). Tick “Replay the first {kb(MAX_REPLAY_BYTES)}” "
            "in the sidebar, or pick a shorter text."
        )
    part = first_bytes(text, MAX_REPLAY_BYTES - 64)  # (room for NFC, which can lengthen a text a little)
    for sep in ("\n", " "):
        j = part.rfind(sep, len(part) * 9 // 10)
        if j > 0:
            return part[: j + 1], True
    return part, True


def replay_id(name: str, text: str) -> str:
    """The id of a replay of ``text`` with the vocabulary ``name`` (for caches keyed on it)."""
    return f"replay:{name}:{text_key(text)}"


@st.cache_resource(show_spinner=False, max_entries=8)
def vocab_replay(name: str, text_key: str, _text: str) -> VocabReplay:
    """The replay of ``_text`` (keyed by ``text_key``) with the registry vocabulary ``name``, shared."""
    return replay(vocabulary(name), _text)


@st.cache_resource(show_spinner=False, max_entries=8)
def upload_replay(digest: str, text_key: str, _text: str, _tok: "bpe.Tokenizer") -> VocabReplay:
    """The replay of ``_text`` with the uploaded tokenizer of content ``digest``, shared."""
    return replay(_tok, _text)


def replay_of(name: str, text: str) -> tuple[VocabReplay, str, str]:
    """The replay of ``text`` with ``name`` (a registry vocabulary, or :data:`UPLOADED`): ``(replay, replay
    id, the vocabulary's name in sentences)``. Raises :class:`SourceError` (no upload) and the library's
    ``ValueError`` (a tokenizer the replay cannot play, saying why)."""
    if name == UPLOADED:
        tok, digest, label = uploaded()
        return upload_replay(digest, text_key(text), text, tok), replay_id(f"upload:{digest}", text), label
    return vocab_replay(name, text_key(text), text), replay_id(name, text), vocab_words(name)


@st.cache_resource(show_spinner=False, max_entries=8)
def replay_run_data(rid: str, palette: str, _rep: VocabReplay, vocab: str) -> bytes:
    """The replay's run payload (``views.vocab_player.replay_payload``), packed."""
    return pack(replay_payload(_rep, tag=player_tag(rid), vocab=vocab, palette=palette))


@st.cache_resource(show_spinner=False, max_entries=32)
def replay_window_data(rid: str, start: int, _rep: VocabReplay) -> bytes:
    """The text window of the replay from character ``start``, packed."""
    nodes = replay_window(_rep, start, WINDOW_CHARS)
    first = len(_rep.text.encode("utf-8")[: nodes.first_byte].decode("utf-8", "ignore"))
    tok = _rep.tokenizer
    return pack(
        replay_window_payload(
            nodes,
            tag=player_tag(rid),
            n_steps=len(_rep.steps),
            total_chars=len(_rep.text),
            first_char=first,
            level=tok.level,
            byte_fallback=tok.level == "char",
        )
    )
