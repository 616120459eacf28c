"""State shared by the pages: samples, limits, the trained-run cache, what the player is showing.

Session state holds only small things (settings, the step, a text's key). Trained runs are immutable and
shared by every session through a small LRU cache; a per-key lock makes ten students who open the same
sample at once train it once.
"""
from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import streamlit as st

import bpe

ROOT = Path(__file__).resolve().parent
SAMPLES_DIR = ROOT / "sample_texts"

#: Largest training text, in UTF-8 bytes. Above it the app says so and trains on nothing.
MAX_TRAIN_BYTES = 2_000_000
#: Largest text the Tokenize page and the lab accept.
MAX_TEXT_BYTES = 1_000_000
#: Largest upload read at all (Streamlit's own limit is set in .streamlit/config.toml).
MAX_UPLOAD_BYTES = 50 * 1024 * 1024
#: Largest vocabulary the app trains (the library allows more; the player stays responsive up to this).
MAX_APP_VOCAB = 20_000
#: Runs kept in memory for all sessions together.
RUN_CACHE_ENTRIES = 24


@dataclass(frozen=True)
class Sample:
    key: str          # file stem, e.g. "english"
    title: str
    description: str
    default_vocab_size: int
    text: str


@st.cache_resource(show_spinner=False)
def samples() -> tuple[Sample, ...]:
    """The texts in ``sample_texts/``, in the order of its ``index.json``."""
    index = json.loads((SAMPLES_DIR / "index.json").read_text(encoding="utf-8"))
    out = []
    for item in index:
        path = SAMPLES_DIR / item["file"]
        out.append(Sample(key=path.stem, title=item["title"], description=item.get("description", ""),
                          default_vocab_size=int(item.get("default_vocab_size", 512)),
                          text=path.read_text(encoding="utf-8")))
    return tuple(out)


def sample(key: str) -> Sample | None:
    return next((s for s in samples() if s.key == key), None)


@dataclass(frozen=True)
class TrainSettings:
    """Everything that changes a training run (besides the text)."""

    vocab_size: int = 512
    pattern: str | None = "gpt4"      # registry name, a custom regex, or None
    level: str = "byte"
    tie_break: str = "lexical"
    normalize: str | None = None
    special_tokens: tuple[str, ...] = ()


def text_key(text: str) -> str:
    """A short stable key for a text (sha1 prefix)."""
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


class _RunCache:
    """A bounded LRU of trained runs, safe across Streamlit's script threads."""

    def __init__(self, entries: int):
        self.entries = entries
        self._runs: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        self._key_locks: dict = {}

    def get(self, key):
        with self._lock:
            run = self._runs.get(key)
            if run is not None:
                self._runs.move_to_end(key)
            return run

    def get_or_train(self, key, train: Callable[[], "bpe.Run"]) -> "bpe.Run":
        run = self.get(key)
        if run is not None:
            return run
        with self._lock:
            key_lock = self._key_locks.setdefault(key, threading.Lock())
        with key_lock:
            run = self.get(key)
            if run is None:
                run = train()
                with self._lock:
                    self._runs[key] = run
                    self._runs.move_to_end(key)
                    while len(self._runs) > self.entries:
                        self._runs.popitem(last=False)
            with self._lock:
                self._key_locks.pop(key, None)
            return run

    def __len__(self) -> int:
        return len(self._runs)


@st.cache_resource(show_spinner=False)
def run_cache() -> _RunCache:
    return _RunCache(RUN_CACHE_ENTRIES)


def get_run(text: str, settings: TrainSettings,
            progress: Callable[[int, int], None] | None = None) -> "bpe.Run":
    """Train (or fetch) the run for ``text`` with ``settings``. Raises the library's ValueErrors."""
    key = (text_key(text), settings)

    def do_train() -> "bpe.Run":
        return bpe.train(text, settings.vocab_size, pattern=settings.pattern, level=settings.level,
                         tie_break=settings.tie_break, normalize=settings.normalize,
                         special_tokens=settings.special_tokens, progress=progress)

    return run_cache().get_or_train(key, do_train)


# ----------------------------------------------------------------------------------------------------
# What the player shows, for the other pages (the Tokenize page uses the player's tokenizer)

PLAYER_RUN = "player_run_key"      # session key: (text_key, TrainSettings) of the run on the player
PLAYER_TEXT = "player_text"        # session key: the training text itself (needed to retrain if evicted)
PLAYER_STEP = "player_step"        # session key: the merge index the player shows (0..len(merges))


def remember_player_run(text: str, settings: TrainSettings) -> None:
    st.session_state[PLAYER_TEXT] = text
    st.session_state[PLAYER_RUN] = (text_key(text), settings)


def player_run() -> tuple["bpe.Run", int] | None:
    """The run trained on the player page and its current merge index, or None if nothing is trained yet."""
    key = st.session_state.get(PLAYER_RUN)
    text = st.session_state.get(PLAYER_TEXT)
    if key is None or text is None:
        return None
    try:
        run = get_run(text, key[1])
    except ValueError:
        return None
    step = int(st.session_state.get(PLAYER_STEP, len(run.merges)))
    return run, max(0, min(step, len(run.merges)))


def palette() -> str:
    """The palette chosen in the sidebar ("default" or "okabe_ito")."""
    return st.session_state.get("palette", "default")
