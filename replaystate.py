"""State of the merge player's second mode: replaying a real vocabulary (GPT-4's, Llama 3's ...) on a text.

Session keys of their own (the training mode's step, window and merge tree stay as they were, so the other
pages' "trained tokenizer" does not follow a replay), the text limit (:data:`bpe.vocab_replay.
MAX_REPLAY_BYTES`), the replay and its packed payloads (cached for every session: a replay is immutable),
and the share link's ``replay=<vocabulary>`` parameter.
"""
from __future__ import annotations

import streamlit as st

import appstate as A
import bpe
import vocabstate
from bpe.vocab_replay import MAX_REPLAY_BYTES, VocabReplay, replay

__all__ = ["PLAYER_MODE", "PLAYER_VOCAB", "REPLAY_CUT", "REPLAY_STEP", "REPLAY_WINDOW", "REPLAY_QUERY", "REPLAY_SHOWN",
           "MODES", "DEFAULT_VOCAB", "init_replay_state", "installed", "vocab_words", "replay_text", "replay_id",
           "vocab_replay", "replay_run_data", "replay_window_data", "read_replay_link", "write_replay_link",
           "MAX_REPLAY_BYTES", "kb"]

PLAYER_MODE = "player_mode"                # "train" | "replay"
PLAYER_VOCAB = "player_vocab"              # the registry vocabulary replayed (bpe.PRETRAINED key)
REPLAY_CUT = "player_replay_cut"           # replay the first MAX_REPLAY_BYTES of a longer text
REPLAY_STEP = "player_replay_step"         # the step the player shows in a replay
REPLAY_WINDOW = "player_replay_window"     # first character of the text window shown
REPLAY_QUERY = "player_replay_query"       # the token whose build is explained ("" = the newest)
REPLAY_SHOWN = "_player_replay_shown"      # (replay id, tag) on the player

MODES = {"train": "Train BPE on a text", "replay": "Replay a real vocabulary"}
DEFAULT_VOCAB = "cl100k_base"


def kb(n: int) -> str:
    """Bytes in KB for the replay's limit: ``kb(200_000) == "200 KB"``."""
    return f"{n / 1000:,.0f} KB" if n >= 1000 else f"{n} bytes"


def installed() -> list[str]:
    """The registry's vocabularies whose package is installed, in registry order."""
    return [name for name in bpe.PRETRAINED if bpe.pretrained.is_installed(name)]


def vocab_words(name: str) -> str:
    """The vocabulary's name in the player's sentences: ``"GPT-4"``, ``"Llama 3"``."""
    from views.vocabularies import short_label

    return short_label(name)


def init_replay_state() -> None:
    ss = st.session_state
    names = installed()
    defaults = {PLAYER_MODE: "train", PLAYER_VOCAB: DEFAULT_VOCAB if DEFAULT_VOCAB in names else (names or [""])[0],
                REPLAY_CUT: False, REPLAY_STEP: 0, REPLAY_WINDOW: 0, REPLAY_QUERY: ""}
    for key, value in defaults.items():
        if key not in ss:
            ss[key] = value
    if ss[PLAYER_VOCAB] not in names and names:   # (a package removed since)
        ss[PLAYER_VOCAB] = names[0]


def replay_text(text: str, cut: bool) -> tuple[str, bool]:
    """``(the text to replay, whether it is the first part of a longer one)``, or :class:`appstate.SourceError`
    when the text is longer than a replay takes and ``cut`` is off. The cut ends at a line or a space."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size <= MAX_REPLAY_BYTES:
        return text, False
    if not cut:
        raise A.SourceError(f"This text is {kb(size)}; a replay takes at most {kb(MAX_REPLAY_BYTES)} (every "
                            f"merge of every word is drawn). Tick “Replay the first {kb(MAX_REPLAY_BYTES)}” "
                            "in the sidebar, or pick a shorter text.")
    part = A.first_bytes(text, MAX_REPLAY_BYTES - 64)   # (room for NFC, which can lengthen a text a little)
    for sep in ("\n", " "):
        j = part.rfind(sep, len(part) * 9 // 10)
        if j > 0:
            return part[:j + 1], True
    return part, True


def replay_id(name: str, text: str) -> str:
    return f"replay:{name}:{A.text_key(text)}"


@st.cache_resource(show_spinner=False, max_entries=8)
def vocab_replay(name: str, text_key: str, _text: str) -> VocabReplay:
    """The replay of ``_text`` (keyed by ``text_key``) with the registry vocabulary ``name``, shared."""
    return replay(vocabstate.vocabulary(name), _text)


@st.cache_resource(show_spinner=False, max_entries=8)
def replay_run_data(rid: str, palette: str, _rep: VocabReplay, vocab: str) -> bytes:
    """The replay's run payload (``views.vocab_player.replay_payload``), packed."""
    from views.player_payload import pack
    from views.vocab_player import replay_payload

    return pack(replay_payload(_rep, tag=A.player_tag(rid), vocab=vocab, palette=palette))


@st.cache_resource(show_spinner=False, max_entries=32)
def replay_window_data(rid: str, start: int, _rep: VocabReplay) -> bytes:
    """The text window of the replay from character ``start``, packed."""
    from views.player_payload import pack
    from views.vocab_player import replay_window, replay_window_payload

    nodes = replay_window(_rep, start, A.WINDOW_CHARS)
    first = len(_rep.text.encode("utf-8")[:nodes.first_byte].decode("utf-8", "ignore"))
    return pack(replay_window_payload(nodes, tag=A.player_tag(rid), n_steps=len(_rep.steps),
                                      total_chars=len(_rep.text), first_char=first))


def read_replay_link() -> list[str]:
    """Once per session (after ``appstate.read_player_link``): a link's ``replay=<vocabulary>`` turns the
    replay mode on with that vocabulary. Returns what was wrong with it."""
    from views.player_link import read_replay

    name, notes = read_replay(st.query_params, names=list(bpe.PRETRAINED), installed=installed())
    if name:
        st.session_state[PLAYER_MODE], st.session_state[PLAYER_VOCAB] = "replay", name
    return notes


def write_replay_link(step: int) -> tuple[str, str]:
    """Put the replay (text, vocabulary, step, speed) in the URL; returns the link and why the text is not in
    it ("" when it is). The training settings are left out: they do not change a replay."""
    from views.player_link import LINK_KEYS
    from views.share import share_url

    params, why = A.player_link_params(step)
    params = {k: params.get(k) for k in ("sample", "text")}
    params.update(replay=st.session_state[PLAYER_VOCAB], speed=f"{float(st.session_state[A.PLAYER_SPEED]):g}",
                  merge=int(step))
    for key in LINK_KEYS + ("vocab",):
        value = params.get(key)
        if value is None:
            st.query_params.pop(key, None)
        elif st.query_params.get(key) != str(value):
            st.query_params[key] = str(value)
    extra = {"presenter": 1 if st.session_state.get("presenter") else None,
             "palette": None if A.palette() == "default" else A.palette()}
    return share_url(st.context.url, {**{k: v for k, v in params.items() if v is not None}, **extra}), why
