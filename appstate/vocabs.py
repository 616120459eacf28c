"""The tokenizers the Tokenize, Pre-tokenizer lab and Token tax pages offer, held with bounded memory.

* **The registry's vocabularies** (GPT-4, GPT-4o, Llama 3/4, Qwen, DeepSeek-V3, tekken): :func:`vocabulary`
  loads one once per server process and shares it with every session (tokenizers are read-only). At most
  the whole registry is held: about 300 MB with all eight loaded (measured: 37-69 MB each).
* **The trained tokenizer**: the Merge player's run (:func:`appstate.player_state.player_run`), or, when
  nothing is trained there yet, the player's default tokenizer (the part of its first sample it trains on and
  its default settings, the same merges) with :data:`DEFAULT_SPECIALS` reserved too (:func:`trained_run`).
* **Uploaded tokenizer files**: :func:`group_files` sorts an upload's files into tokenizers (two
  ``tokenizer.json`` are two tokenizers, never one replacing the other; ``vocab.json`` + ``merges.txt`` are
  one); :func:`load_upload` checks the limits below *before* parsing, loads, and keeps the result in one
  cache for all sessions, keyed by the files' content (sha256) and bounded by the memory it holds
  (:data:`UPLOAD_CACHE_BYTES`, estimated per tokenizer). Every message names the user's files as
  uploaded, never a server path.

Limits (said on the page too): a file at most :data:`MAX_UPLOAD_FILE_BYTES`; a vocabulary at most
:data:`MAX_UPLOAD_TOKENS` tokens and :data:`MAX_UPLOAD_MERGES` merges (the largest real vocabulary, Qwen3.5's,
has 248,077); at most :data:`MAX_SESSION_UPLOADS` uploaded tokenizers remembered per session.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable, Sequence

import streamlit as st

import bpe

from .keys import PLAYER_RUN
from .player_state import default_settings, player_run
from .runs import get_run, text_key

__all__ = [
    "vocabulary",
    "DEFAULT_SPECIALS",
    "TrainedRun",
    "trained_run",
    "run_tokenizer",
    "MAX_UPLOAD_FILE_BYTES",
    "MAX_UPLOAD_TOKENS",
    "MAX_UPLOAD_MERGES",
    "MAX_SESSION_UPLOADS",
    "UPLOAD_CACHE_BYTES",
    "UploadGroup",
    "UploadError",
    "group_files",
    "load_upload",
    "upload_cache",
    "cached_upload",
    "refuse_size",
    "limits_sentence",
]

LOG = logging.getLogger("bpe_lab.uploads")


# ----------------------------------------------------------------------------------------------------
# The registry's vocabularies


@st.cache_resource(show_spinner=False, max_entries=len(bpe.PRETRAINED))
def vocabulary(name: str) -> "bpe.Tokenizer":
    """The registry vocabulary ``name``, loaded once per server (raises :class:`bpe.PretrainedError`)."""
    return bpe.load_pretrained(name)


# ----------------------------------------------------------------------------------------------------
# The trained tokenizer

#: Special tokens the fallback trained tokenizer reserves, so the chat preset shows them as special.
DEFAULT_SPECIALS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")


@dataclass(frozen=True)
class TrainedRun:
    """The run the pages call "trained": the player's, or the first sample's."""

    run: "bpe.Run"
    key: str  # names the run in caches
    step: int  # the player's current merge (all merges for the fallback)
    from_player: bool
    where: str  # for a caption: which text it was trained on


def trained_run() -> TrainedRun:
    """The Merge player's run and merge, or the first sample trained with :data:`DEFAULT_SPECIALS`.

    Raises ``ValueError`` when the fallback cannot be trained (it always can with the shipped samples)."""
    found = player_run()
    if found is not None:
        run, step = found
        return TrainedRun(run, repr(st.session_state.get(PLAYER_RUN)), step, True, "the Merge player's text")
    # the player's default tokenizer, merge for merge, with DEFAULT_SPECIALS reserved beside its own specials
    sample, text, settings = default_settings(DEFAULT_SPECIALS)
    run = get_run(text, settings)
    return TrainedRun(
        run,
        repr((text_key(text), settings)),
        len(run.merges),
        False,
        f"the “{sample.title}” sample as the Merge player trains it (nothing trained on it yet)",
    )


@st.cache_resource(show_spinner=False, max_entries=12)
def run_tokenizer(run_key: str, k: int, _run: "bpe.Run") -> "bpe.Tokenizer":
    """The tokenizer of a trained run after its first ``k`` merges (shared; tokenizers are read-only)."""
    return _run.tokenizer(k)


# ----------------------------------------------------------------------------------------------------
# Uploaded tokenizer files

#: Largest tokenizer file read (a real ``tokenizer.json`` is 2-30 MB; Streamlit refuses above 60 MB).
MAX_UPLOAD_FILE_BYTES = 32 * 1024 * 1024
#: Largest vocabulary (ordinary + special tokens) and merge list kept from an upload.
MAX_UPLOAD_TOKENS = 300_000
MAX_UPLOAD_MERGES = 300_000
#: Uploaded tokenizers one session remembers (the oldest is forgotten first).
MAX_SESSION_UPLOADS = 4
#: Memory all sessions' uploaded tokenizers may hold together (estimated, see :func:`estimate_bytes`).
UPLOAD_CACHE_BYTES = 400 * 1024 * 1024
#: Estimated bytes per vocabulary entry and per merge of a loaded tokenizer. Measured with tracemalloc:
#: cl100k from tokenizer.json 35 MB for 100,261 tokens + 100,000 merges (~175 B each); Qwen3.5 from its
#: .tiktoken 37 MB for 248,077 + 247,788 (~75 B each). Rounded up for the allocator's overhead.
BYTES_PER_ENTRY = 250

_SIDECAR = "bpe_lab.json"
_TRANSFORMERS_EXTRAS = ("tokenizer_config.json", "special_tokens_map.json")


def mb(n: int) -> str:
    return f"{n / (1024 * 1024):.0f} MB"


def limits_sentence() -> str:
    """The upload limits in words, for the page."""
    return (
        f"Files up to {mb(MAX_UPLOAD_FILE_BYTES)} each; vocabularies up to {MAX_UPLOAD_TOKENS:,} tokens and "
        f"{MAX_UPLOAD_MERGES:,} merges; the last {MAX_SESSION_UPLOADS} uploaded tokenizers are kept while "
        "you switch pages."
    )


class UploadError(ValueError):
    """An upload that cannot be used; the message names the user's files and says why: one line per file
    refused (:attr:`sentences`) when the files of one tokenizer (vocab.json + merges.txt) are refused together."""

    @property
    def sentences(self) -> list[str]:
        return [line for line in str(self).split("\n") if line]


@dataclass(frozen=True)
class UploadGroup:
    """The files of one uploaded tokenizer, as the user named them."""

    names: tuple[str, ...]
    blobs: tuple[bytes, ...]
    label: str = ""

    @property
    def digest(self) -> str:
        """sha256 of the names and contents: the cache key (same files, same tokenizer)."""
        h = hashlib.sha256()
        for name, blob in zip(self.names, self.blobs):
            encoded = name.encode("utf-8", "surrogatepass")
            h.update(len(encoded).to_bytes(8, "big") + encoded + len(blob).to_bytes(8, "big"))
            h.update(blob)
        return h.hexdigest()

    @property
    def size(self) -> int:
        return sum(len(b) for b in self.blobs)


def _low(name: str) -> str:
    return name.replace("\\", "/").rsplit("/", 1)[-1].lower()


def group_files(files: Sequence[tuple[str, bytes]]) -> tuple[list[UploadGroup], list[str]]:
    """Sort uploaded ``(name, bytes)`` files into tokenizers; returns (groups, notes about ignored files).

    Each ``.json`` (a ``tokenizer.json``), ``.tiktoken`` and ``.model`` file is a tokenizer of its own, so two
    files with the same name are two tokenizers; a ``.txt`` (``merges.txt``) pairs with ``vocab.json`` (or
    with the one other ``.json`` when there is one of each); ``bpe_lab.json`` goes with the one ``.tiktoken``
    or ``merges.txt`` tokenizer. Labels are the file names, numbered when they repeat. A file uploaded again
    unchanged (same name, same bytes: the uploader keeps the earlier ones) counts once.

    >>> groups, notes = group_files([("tokenizer.json", b"{}"), ("tokenizer.json", b"{ }"),
    ...                              ("vocab.json", b"{}"), ("merges.txt", b"")])
    >>> [g.label for g in groups], notes
    (['tokenizer.json', 'tokenizer.json (2)', 'vocab.json + merges.txt'], [])
    >>> again = [("vocab.json", b"{}"), ("merges.txt", b""), ("vocab.json", b"{}"), ("merges.txt", b""),
    ...          ("bpe_lab.json", b"{}")]
    >>> [g.names for g in group_files(again)[0]], group_files(again)[1]
    ([('vocab.json', 'merges.txt', 'bpe_lab.json')], [])
    """
    files = list(dict.fromkeys(files))  # (exact repeats: name and bytes)
    sidecars = [f for f in files if _low(f[0]) == _SIDECAR]
    extras = [f for f in files if _low(f[0]) in _TRANSFORMERS_EXTRAS]
    rest = [f for f in files if f not in sidecars and f not in extras]
    txts = [f for f in rest if _low(f[0]).endswith(".txt")]
    jsons = [f for f in rest if _low(f[0]).endswith(".json")]
    vocabs = [f for f in jsons if _low(f[0]) == "vocab.json"]
    if txts and not vocabs and len(txts) == 1 and len(jsons) == 1:
        vocabs = jsons[:1]
    pairs = list(zip(vocabs, txts))
    pair_of = {id(f): pair for pair in pairs for f in pair}
    groups: list[list[tuple[str, bytes]]] = []
    emitted: set[int] = set()
    for f in rest:  # in upload order; a pair where its first file is
        pair = pair_of.get(id(f))
        if pair is None:
            groups.append([f])
        elif id(pair) not in emitted:
            emitted.add(id(pair))
            groups.append(list(pair))
    notes: list[str] = []
    if sidecars:
        takers = [g for g in groups if any(_low(n).endswith((".tiktoken", ".txt")) for n, _ in g)]
        if len(takers) == 1 and len(sidecars) == 1:
            takers[0].append(sidecars[0])
        else:
            notes.append(
                f"{', '.join(n for n, _ in sidecars)}: ignored (it goes with exactly one .tiktoken "
                "or merges.txt file; upload them together, one tokenizer at a time)."
            )
    if extras and not jsons:
        notes.append(f"{', '.join(n for n, _ in extras)}: ignored (upload the tokenizer.json that comes with it).")
    out: list[UploadGroup] = []
    seen: dict[str, int] = {}
    for g in groups:
        main = [n for n, _ in g if _low(n) != _SIDECAR]
        label = " + ".join(main)
        seen[label] = seen.get(label, 0) + 1
        if seen[label] > 1:
            label = f"{label} ({seen[label]})"
        out.append(UploadGroup(tuple(n for n, _ in g), tuple(b for _, b in g), label))
    return out, notes


def _count_entries(name: str, data: bytes) -> int:
    """A fast upper bound on a file's vocabulary entries and merges, before parsing it: lines for text
    formats, quoted strings for JSON (each vocabulary entry has one, each merge one or two)."""
    low = _low(name)
    if low.endswith(".json"):
        return data.count(b'"') // 2
    return data.count(b"\n") + 1


def refuse_size(name: str, size: int) -> str:
    """Why a file of ``size`` bytes is not read (its name in the sentence), or ``""`` when it may be.

    >>> refuse_size("big.json", 40 * 2**20)
    'big.json is 40.0 MB; tokenizer files up to 32 MB are read here.'
    """
    if size > MAX_UPLOAD_FILE_BYTES:
        return f"{name} is {size / 2**20:.1f} MB; tokenizer files up to {mb(MAX_UPLOAD_FILE_BYTES)} are read here."
    return ""


def _check_before_parsing(group: UploadGroup) -> None:
    for name, blob in zip(group.names, group.blobs):
        if not blob:
            raise UploadError(f"{name} is empty.")
        if refuse_size(name, len(blob)):
            raise UploadError(refuse_size(name, len(blob)))
    # JSON strings: vocabulary entries + merges (one or two strings each) + a few
    budget = MAX_UPLOAD_TOKENS + 2 * MAX_UPLOAD_MERGES + 20_000
    for name, blob in zip(group.names, group.blobs):
        n = _count_entries(name, blob)
        if n > budget:
            raise UploadError(
                f"{name} holds about {n:,} entries; vocabularies up to {MAX_UPLOAD_TOKENS:,} tokens "
                f"and {MAX_UPLOAD_MERGES:,} merges are read here."
            )


def estimate_bytes(tok: "bpe.Tokenizer", group: UploadGroup) -> int:
    """Memory a loaded upload is counted for in the cache (see :data:`BYTES_PER_ENTRY`)."""
    return BYTES_PER_ENTRY * (tok.vocab_size + tok.n_merges) + group.size


class _BytesLRU:
    """A thread-safe LRU of loaded tokenizers keyed by content digest, bounded by estimated bytes.

    One load per key at a time (a per-key lock): ten students uploading the same file parse it once.
    """

    #: failures remembered (their message only), so a bad file is not parsed again on every rerun
    MAX_ERRORS = 64

    def __init__(self, budget: int):
        self.budget = budget
        self.used = 0
        self._items: OrderedDict[str, tuple["bpe.Tokenizer", int]] = OrderedDict()
        self._errors: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()
        self._key_locks: dict[str, threading.Lock] = {}

    def get(self, key: str) -> "bpe.Tokenizer | None":
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return None
            self._items.move_to_end(key)
            return item[0]

    def get_or_load(self, key: str, load: Callable[[], tuple["bpe.Tokenizer", int]]) -> "bpe.Tokenizer":
        """The tokenizer under ``key``, or ``load()``'s (kept); an :class:`UploadError` is kept too."""
        tok = self.get(key)
        if tok is not None:
            return tok
        with self._lock:
            if key in self._errors:
                raise UploadError(self._errors[key])
            key_lock = self._key_locks.setdefault(key, threading.Lock())
        try:
            with key_lock:
                tok = self.get(key)
                if tok is None:
                    try:
                        tok, size = load()
                    except UploadError as exc:
                        with self._lock:
                            self._errors[key] = str(exc)
                            while len(self._errors) > self.MAX_ERRORS:
                                self._errors.popitem(last=False)
                        raise
                    with self._lock:
                        self._items[key] = (tok, size)
                        self.used += size
                        while len(self._items) > 1 and self.used > self.budget:
                            _, (_, old) = self._items.popitem(last=False)
                            self.used -= old
                return tok
        finally:
            with self._lock:
                self._key_locks.pop(key, None)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: str) -> bool:
        return key in self._items


_upload_cache = _BytesLRU(UPLOAD_CACHE_BYTES)


def upload_cache() -> _BytesLRU:
    """The one cache of uploaded tokenizers for every session of this server process. A module global, not
    an ``st.cache_resource``: Streamlit's clear-cache message (any websocket client can send it) would make
    every upload parse again (see :func:`appstate.runs.run_cache`)."""
    return _upload_cache


def _load(group: UploadGroup) -> tuple["bpe.Tokenizer", int]:
    try:
        return _load_files(group)
    except UploadError as exc:
        raise UploadError("\n".join([str(exc), *_also_refused(group, str(exc))])) from None


def _also_refused(group: UploadGroup, said: str) -> list[str]:
    """A sentence for each of ``group``'s files that ``said`` (why the group was refused) does not name: read
    together (vocab.json + merges.txt), they are refused together (issue 14: binary.txt, paired with a broken
    fake.json, got no word)."""
    main = [(n, b) for n, b in zip(group.names, group.blobs) if _low(n) != _SIDECAR]
    named = [n for n, _ in main if n in said]
    out = []
    for name, blob in main:
        if name in said:
            continue
        try:
            blob.decode("utf-8")
        except UnicodeDecodeError:
            what = "a merges.txt (one merge per line)" if _low(name).endswith(".txt") else "a tokenizer file"
            out.append(f"{name} is not a text file; expected {what}.")
            continue
        partner = ", ".join(named) or "the file it goes with"
        out.append(f"{name} was not loaded: it goes with {partner} (as merges.txt with vocab.json), which was refused.")
    return out


def _load_files(group: UploadGroup) -> tuple["bpe.Tokenizer", int]:
    _check_before_parsing(group)
    try:
        tok = bpe.loads(dict(zip(group.names, group.blobs)))
    except (ValueError, KeyError, TypeError, IndexError, RecursionError, UnicodeError) as exc:
        # the library's own errors (FormatError, PatternError, ...) name the files as given (the user's names)
        # in one sentence; anything else (a ValueError of Python's own, a KeyError) is a bug to log, and the
        # page says so in words, never with Python's raw text
        ours = isinstance(exc, ValueError) and type(exc).__module__.split(".")[0] == "bpe"
        text = str(exc) if ours else "the file could not be read as a tokenizer (an unexpected error, logged)"
        if not ours:
            LOG.warning("upload %s: %s: %s", group.label, type(exc).__name__, exc, exc_info=exc)
        # the library's messages start with the file's name already: no need to say it twice
        named = any(text.startswith(n) for n in group.names)
        raise UploadError(text if named else f"Could not read {group.label}: {text}") from None
    if tok.vocab_size > MAX_UPLOAD_TOKENS or tok.n_merges > MAX_UPLOAD_MERGES:
        raise UploadError(
            f"{group.label} holds {tok.vocab_size:,} tokens and {tok.n_merges:,} merges; "
            f"vocabularies up to {MAX_UPLOAD_TOKENS:,} tokens and {MAX_UPLOAD_MERGES:,} merges "
            "are read here."
        )
    return tok, estimate_bytes(tok, group)


def load_upload(group: UploadGroup) -> "bpe.Tokenizer":
    """The tokenizer in ``group``'s files, from the shared cache or loaded now; :class:`UploadError`
    (naming the files) when they break a limit or cannot be read."""
    return upload_cache().get_or_load(group.digest, lambda: _load(group))


def cached_upload(digest: str) -> "bpe.Tokenizer | None":
    """A tokenizer uploaded earlier (in this session), if the shared cache still holds it."""
    return upload_cache().get(digest)
