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
from bpe.replay import MergeIndex, Replay, heldout_token_counts

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
#: Runs kept in memory for all sessions together...
RUN_CACHE_ENTRIES = 24
#: ...and at most this many merges in all of them (a merge with its recorded top-20 pairs is ~1.3 KB, so
#: this bounds the cache near 400 MB however large the runs are; the newest run is always kept).
RUN_CACHE_MERGES = 300_000


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
    """A bounded LRU of trained runs (by count and by total merges), safe across Streamlit's threads."""

    def __init__(self, entries: int, max_merges: int = RUN_CACHE_MERGES):
        self.entries = entries
        self.max_merges = max_merges
        self.merges = 0
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
                    self.merges += len(run.merges)
                    while len(self._runs) > 1 and (len(self._runs) > self.entries
                                                   or self.merges > self.max_merges):
                        _, old = self._runs.popitem(last=False)
                        self.merges -= len(old.merges)
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


def peek_run(text: str, settings: TrainSettings) -> "bpe.Run | None":
    """The cached run for ``text`` and ``settings``, or None when it still has to be trained."""
    return run_cache().get((text_key(text), settings))


def run_id(text: str, settings: TrainSettings) -> str:
    """A short string naming a run (for caches keyed on it)."""
    return f"{text_key(text)}:{settings!r}"


# ----------------------------------------------------------------------------------------------------
# The merge player's session keys. Clear names: share links and the "predict the next merge" quiz read
# and write them. Widget keys the tests rely on: play, step, back, reset, speed, jump, step_status.

PLAYER_SOURCE = "player_source"                # "sample" | "paste" | "upload"
PLAYER_SAMPLE = "player_sample"                # a sample's key (file stem)
PLAYER_PASTE = "player_paste"                  # the pasted text
PLAYER_UPLOAD = "player_upload"                # the file uploader
PLAYER_UPLOAD_TEXT = "player_upload_text"      # (file name, decoded text) of the last good upload
PLAYER_UPLOAD_TRUNCATE = "player_upload_truncate"  # train on the first MAX_TRAIN_BYTES of a big file
PLAYER_MERGES = "player_merges"                # merges to learn (vocabulary = base + merges + specials)
PLAYER_PATTERN = "player_pattern"              # registry name, "none" or "custom"
PLAYER_CUSTOM_PATTERN = "player_custom_pattern"
PLAYER_LEVEL = "player_level"                  # "byte" | "char"
PLAYER_TIE_BREAK = "player_tie_break"          # "lexical" | "first" | "hf"
PLAYER_NFC = "player_nfc"                      # bool
PLAYER_SPECIALS = "player_specials"            # special tokens, separated by spaces or commas
PLAYER_SPEED = "speed"                         # merges per second (the browser plays; a link carries it)
PLAYER_WINDOW = "player_window"                # first character of the text window shown
PLAYER_TREE_QUERY = "player_tree_query"        # the token whose merge tree is shown ("" = the newest)
PLAYER_METRIC = "player_metric"                # compression chart: "bytes_per_token" | "tokens"
PLAYER_SEEK = "player_seek"                    # raised when Python moves the player (a link, a quiz answer)
PLAYER_LINK_STEP = "_player_url_step"          # a link's merge, applied once its run is trained
PLAYER_NOTES = "_player_notes"                 # what was wrong with the link (shown until the user moves on)
#: Text held out of training for the compression chart (texts shorter than HELDOUT_MIN_CHARS: none).
HELDOUT_FRACTION = 0.10
HELDOUT_MIN_CHARS = 2_000
#: Characters of the training text drawn as token spans.
WINDOW_CHARS = 1_500

_SPECIAL_IN_TEXT = r"<\|[A-Za-z0-9_]{1,40}\|>"


def sample_defaults(s: Sample) -> dict:
    """Settings a sample comes with: its merge budget and the special tokens written in it."""
    import re

    specials = list(dict.fromkeys(re.findall(_SPECIAL_IN_TEXT, s.text)))
    return {PLAYER_MERGES: max(1, s.default_vocab_size - 256 - len(specials)),
            PLAYER_SPECIALS: " ".join(specials)}


def init_player_state() -> None:
    """Give every player key its default once per session (widgets then read them from session state)."""
    ss = st.session_state
    first = samples()[0]
    defaults = {
        PLAYER_SOURCE: "sample", PLAYER_SAMPLE: first.key, PLAYER_PASTE: "", PLAYER_PATTERN: "gpt4",
        PLAYER_CUSTOM_PATTERN: r"\w+|\s+|[^\w\s]+", PLAYER_LEVEL: "byte", PLAYER_TIE_BREAK: "lexical",
        PLAYER_NFC: False, PLAYER_SPEED: 2, PLAYER_STEP: 0, PLAYER_SEEK: 0, PLAYER_WINDOW: 0,
        PLAYER_TREE_QUERY: "", PLAYER_UPLOAD_TRUNCATE: False, PLAYER_METRIC: "bytes_per_token",
    }
    defaults.update(sample_defaults(first))
    for key, value in defaults.items():
        if key not in ss:
            ss[key] = value


class SourceError(ValueError):
    """A training text that cannot be used, with a message for the page."""


def mb(n: int) -> str:
    return f"{n / 1_000_000:.1f} MB" if n >= 100_000 else f"{n / 1000:.1f} KB" if n >= 1000 else f"{n} bytes"


def decode_text_file(data: bytes, name: str = "the file") -> str:
    """Bytes of an uploaded ``.txt`` file -> text, or :class:`SourceError` saying what is wrong.

    >>> decode_text_file("héllo".encode())
    'héllo'
    >>> decode_text_file(b"\\xff\\xfeh")
    Traceback (most recent call last):
    ...
    appstate.SourceError: the file is not UTF-8 text: byte 0xFF at position 0 cannot start a character. Save it as UTF-8 and upload it again.
    """
    if not data:
        raise SourceError(f"{name} is empty.")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bad = data[exc.start]
        raise SourceError(
            f"{name} is not UTF-8 text: byte 0x{bad:02X} at position {exc.start:,} cannot "
            f"{'start a character' if exc.reason == 'invalid start byte' else 'be decoded (' + exc.reason + ')'}. "
            "Save it as UTF-8 and upload it again.") from None


def check_train_text(text: str, what: str = "the text") -> str:
    """``text`` if it can be trained on, else :class:`SourceError` (empty, too large)."""
    if not text:
        raise SourceError(f"{what[0].upper() + what[1:]} is empty: there is nothing to train on.")
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_TRAIN_BYTES:
        raise SourceError(f"{what[0].upper() + what[1:]} is {mb(size)}; the player trains on at most "
                          f"{mb(MAX_TRAIN_BYTES)}.")
    return text


def first_bytes(text: str, limit: int) -> str:
    """The longest prefix of ``text`` whose UTF-8 form fits in ``limit`` bytes."""
    return text.encode("utf-8")[:limit].decode("utf-8", "ignore")


def split_heldout(text: str) -> tuple[str, str]:
    """(training part, held-out part): the last ~10% of a long text, cut at a line or space; short texts
    are not split.

    >>> split_heldout("short")
    ('short', '')
    >>> a, b = split_heldout("word " * 1000); len(b) in range(400, 600) and a + b == "word " * 1000
    True
    """
    if len(text) < HELDOUT_MIN_CHARS:
        return text, ""
    cut = int(len(text) * (1 - HELDOUT_FRACTION))
    lo = cut - len(text) // 20
    for sep in ("\n", " "):
        j = text.rfind(sep, lo, cut)
        if j > 0:
            cut = j + 1
            break
    return text[:cut], text[cut:]


def parse_specials(raw: str) -> tuple[str, ...]:
    """Special tokens typed in a box: separated by spaces or commas, duplicates dropped.

    >>> parse_specials("<|a|>, <|b|> <|a|>")
    ('<|a|>', '<|b|>')
    """
    import re

    return tuple(dict.fromkeys(t for t in re.split(r"[,\s]+", raw or "") if t))


def base_size(text: str, level: str, normalize: str | None, specials: tuple[str, ...]) -> int:
    """Base tokens of a run: 256 bytes, or the distinct characters at char level (specials cut out)."""
    if level == "byte":
        return 256
    from bpe.corpus import special_splitter
    from bpe.visible import normalize_text

    text = normalize_text(text, normalize)
    splitter = special_splitter(list(specials))
    if splitter is not None:
        text = splitter.sub("", text)
    return len(set(text))


# ----------------------------------------------------------------------------------------------------
# Caches of what the player derives from a run (keyed by ``run_id``; the run itself is not hashed)

@st.cache_resource(show_spinner=False, max_entries=RUN_CACHE_ENTRIES)
def merge_index(rid: str, _run: "bpe.Run") -> MergeIndex:
    return MergeIndex(_run)


@st.cache_resource(show_spinner=False, max_entries=32)
def window_replay(rid: str, start: int, size: int, _run: "bpe.Run", _text: str) -> Replay:
    """The token replay of the window ``[start, start + size)`` (cut at a line or space) of the text."""
    from bpe.visible import normalize_text

    piece = normalize_text(_text[start:start + size + 200], _run.normalize)
    if start:
        # begin after a line break or space near the start, so the first chunk is whole
        for sep in ("\n", " "):
            j = piece.find(sep, 0, 200)
            if j >= 0:
                piece = piece[j + 1:]
                break
    from views.spans import window

    piece, _cut = window(piece, size)
    return Replay.build(_run, merge_index(rid, _run), piece)


@st.cache_resource(show_spinner=False, max_entries=RUN_CACHE_ENTRIES)
def heldout_counts(rid: str, heldout_key: str, _run: "bpe.Run", _heldout: str) -> tuple[int, ...]:
    return tuple(heldout_token_counts(_run, merge_index(rid, _run), _heldout))


@st.cache_resource(show_spinner=False, max_entries=6)
def export_file(rid: str, fmt: str, _run: "bpe.Run") -> "bytes | str":
    """The run written in ``fmt`` (bytes), or why the format cannot hold it (str)."""
    from views.player import export_file as write

    try:
        return write(_run, fmt)
    except ValueError as exc:
        return str(exc)


# ----------------------------------------------------------------------------------------------------
# The merge player: its upload, its settings and its link (state work the page delegates), and the
# component's payloads (views/player_payload.py), packed once per run and per window

def read_upload(f) -> dict:
    """An uploaded file (Streamlit's ``UploadedFile``) as ``{name, size, text, truncated, error}``: the text
    (cut to ``MAX_TRAIN_BYTES`` when ``truncated``) or why it cannot be used."""
    info = {"name": f.name, "size": f.size, "text": "", "truncated": False, "error": ""}
    try:
        if f.size > MAX_UPLOAD_BYTES:
            raise SourceError(f"{f.name} is {mb(f.size)}: too large to read (the limit is {mb(MAX_UPLOAD_BYTES)}).")
        text = decode_text_file(f.getvalue(), f.name)
        if not text:
            raise SourceError(f"{f.name} is empty: there is nothing to train on.")
        info["truncated"] = len(text.encode("utf-8", "surrogatepass")) > MAX_TRAIN_BYTES
        info["text"] = first_bytes(text, MAX_TRAIN_BYTES) if info["truncated"] else text
    except SourceError as exc:
        info["error"] = str(exc)
    return info


def upload_source(info: dict | None, truncate: bool) -> tuple[str, str]:
    """(title, text) of the player's upload (``read_upload``'s info), or SourceError saying what to do."""
    if info is None:
        raise SourceError("Upload a .txt file to train on it (or pick a sample).")
    if info["error"]:
        raise SourceError(info["error"])
    if not info["truncated"]:
        return info["name"], info["text"]
    cap = mb(MAX_TRAIN_BYTES)
    if not truncate:
        raise SourceError(f"{info['name']} is {mb(info['size'])}; the player trains on at most {cap}. "
                          f"Tick “Train on the first {cap}” in the sidebar to use its beginning.")
    return f"{info['name']} (first {cap})", info["text"]


def player_settings(text: str) -> TrainSettings:
    """The TrainSettings the player's sidebar (session state) describes for ``text``, or SourceError (an
    empty or invalid custom regex)."""
    ss = st.session_state
    pattern = {"none": None}.get(ss[PLAYER_PATTERN], ss[PLAYER_PATTERN])
    if pattern == "custom":
        pattern = ss.get(PLAYER_CUSTOM_PATTERN) or ""
        if not pattern.strip():
            raise SourceError("The custom pre-tokenizer is empty: type a regex, or pick one from the list.")
        try:
            entry = bpe.get_pattern(pattern)
        except bpe.PatternError as exc:
            raise SourceError(f"The custom pre-tokenizer is not a valid regex: {exc}") from None
        pattern = pattern if entry.custom else entry.name  # a registry name typed in the box
    specials = parse_specials(ss.get(PLAYER_SPECIALS, ""))
    normalize = "NFC" if ss[PLAYER_NFC] else None
    vocab = base_size(text, ss[PLAYER_LEVEL], normalize, specials) + int(ss[PLAYER_MERGES]) + len(specials)
    return TrainSettings(vocab_size=vocab, pattern=pattern, level=ss[PLAYER_LEVEL], tie_break=ss[PLAYER_TIE_BREAK],
                         normalize=normalize, special_tokens=specials)


def read_player_link() -> list[str]:
    """Once per session: the player's state from the URL into session state (the link's merge goes to
    ``PLAYER_LINK_STEP``, applied once its run is trained). Returns what was wrong with the link."""
    from views.player_link import read_link

    link, notes = read_link(st.query_params, samples=[s.key for s in samples()],
                            merges=int(st.session_state[PLAYER_MERGES]), max_vocab=MAX_APP_VOCAB)
    apply_player_link(link)
    return notes


def write_player_link(step: int) -> tuple[str, str]:
    """Put the player's state (at merge ``step``) in the URL. Returns the link to share (with presenter
    and palette) and why the text is not in it ("" when it is)."""
    from views.player_link import LINK_KEYS
    from views.share import share_url

    params, why = player_link_params(step)
    for key in LINK_KEYS + ("vocab",):
        value = {True: "1", False: "0"}.get(params.get(key), params.get(key))
        if value is None:
            st.query_params.pop(key, None)
        elif st.query_params.get(key) != str(value):
            st.query_params[key] = str(value)
    extra = {"presenter": 1 if st.session_state.get("presenter") else None,
             "palette": None if palette() == "default" else palette()}
    return share_url(st.context.url, {**params, **extra}), why


def apply_player_link(link) -> None:
    """Put what a player link (``views.player_link.Link``) sets into session state; the link's merge goes to
    ``PLAYER_LINK_STEP`` (applied once its run is trained)."""
    ss = st.session_state
    if link.text:
        ss[PLAYER_SOURCE], ss[PLAYER_PASTE] = "paste", link.text
    elif link.sample:
        ss[PLAYER_SOURCE], ss[PLAYER_SAMPLE] = "sample", link.sample
        ss.update(sample_defaults(sample(link.sample)))
    specials = None if link.special is None else " ".join(parse_specials(link.special))
    for key, value in ((PLAYER_MERGES, link.merges), (PLAYER_PATTERN, link.pattern),
                       (PLAYER_CUSTOM_PATTERN, link.custom_pattern), (PLAYER_LEVEL, link.level),
                       (PLAYER_TIE_BREAK, link.tie), (PLAYER_NFC, link.nfc), (PLAYER_SPEED, link.speed),
                       (PLAYER_SPECIALS, specials), (PLAYER_LINK_STEP, link.merge)):
        if value is not None:
            ss[key] = value


def player_link_params(step: int) -> tuple[dict, str]:
    """The player's URL parameters for ``step`` (``views.player_link.link_params`` of session state)."""
    from views.player_link import link_params

    ss = st.session_state
    return link_params(source=ss[PLAYER_SOURCE], sample=ss[PLAYER_SAMPLE], paste=ss.get(PLAYER_PASTE, ""),
                       merges=ss[PLAYER_MERGES], pattern=ss[PLAYER_PATTERN],
                       custom_pattern=ss.get(PLAYER_CUSTOM_PATTERN), level=ss[PLAYER_LEVEL],
                       tie=ss[PLAYER_TIE_BREAK], nfc=ss[PLAYER_NFC], speed=ss[PLAYER_SPEED],
                       specials=parse_specials(ss.get(PLAYER_SPECIALS, "")), merge=step)


def player_tag(rid: str) -> str:
    """The short name of a run that the player's payloads and reports carry."""
    return text_key(rid)


@st.cache_resource(show_spinner=False, max_entries=RUN_CACHE_ENTRIES)
def player_run_data(rid: str, palette: str, heldout_key: str, _run: "bpe.Run", _heldout: str) -> bytes:
    """The run payload (every merge, label, color and both compression curves), packed."""
    from views.player_payload import pack, run_payload

    held = heldout_counts(rid, heldout_key, _run, _heldout) if _heldout else None
    nbytes = len(bpe.normalize_text(_heldout, _run.normalize).encode("utf-8")) if _heldout else 0
    return pack(run_payload(_run, tag=player_tag(rid), heldout_counts=held, heldout_bytes=nbytes, palette=palette))


@st.cache_resource(show_spinner=False, max_entries=32)
def player_window_data(rid: str, start: int, _run: "bpe.Run", _text: str) -> bytes:
    """The replay of the text window starting near character ``start``, packed."""
    from views.player_payload import pack, window_payload

    rep = window_replay(rid, start, WINDOW_CHARS, _run, _text)
    return pack(window_payload(rep, tag=player_tag(rid), n_merges=len(_run.merges), level=_run.level,
                               first_char=start, total_chars=len(_text)))
