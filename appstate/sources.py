"""Where the app's texts come from and how large they may be: the samples, uploaded and pasted training
texts (decoded and checked here, with a message for the page), and the limits every page states.

>>> mb(2_000_000), mb(1_500), mb(12)
('2.0 MB', '1.5 KB', '12 bytes')
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

ROOT = Path(__file__).resolve().parents[1]
SAMPLES_DIR = ROOT / "sample_texts"

#: Largest training text, in UTF-8 bytes. Above it the app says so and trains on nothing.
MAX_TRAIN_BYTES = 2_000_000
#: Largest text the Tokenize page and the lab accept.
MAX_TEXT_BYTES = 1_000_000
#: Largest upload read at all (Streamlit's own limit is set in .streamlit/config.toml).
MAX_UPLOAD_BYTES = 50 * 1024 * 1024
#: Largest vocabulary the app trains (the library allows more; the player stays responsive up to this).
MAX_APP_VOCAB = 20_000


@dataclass(frozen=True)
class Sample:
    key: str  # file stem, e.g. "english"
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
        out.append(
            Sample(
                key=path.stem,
                title=item["title"],
                description=item.get("description", ""),
                default_vocab_size=int(item.get("default_vocab_size", 512)),
                text=path.read_text(encoding="utf-8"),
            )
        )
    return tuple(out)


@st.cache_resource(show_spinner=False)
def presets(page: str) -> tuple[dict, ...]:
    """The preset texts of ``sample_texts/presets.json`` offered on ``page`` (``"tokenize"``, ``"lab"``), in
    file order: dicts with ``key``, ``title``, ``text`` and optionally ``description`` and ``custom``."""
    items = json.loads((SAMPLES_DIR / "presets.json").read_text(encoding="utf-8"))
    return tuple(p for p in items if page in p.get("pages", ()))


def preset(page: str, key: str | None) -> dict | None:
    """The preset ``key`` of ``page``, or None."""
    return next((p for p in presets(page) if p["key"] == key), None)


def sample(key: str) -> Sample | None:
    """The sample with this key (file stem), or None."""
    return next((s for s in samples() if s.key == key), None)


class SourceError(ValueError):
    """A training text that cannot be used, with a message for the page."""


def mb(n: int) -> str:
    """A size in words: bytes, KB or MB (decimal)."""
    return f"{n / 1_000_000:.1f} MB" if n >= 100_000 else f"{n / 1000:.1f} KB" if n >= 1000 else f"{n} bytes"


def decode_text_file(data: bytes, name: str = "the file") -> str:
    """Bytes of an uploaded ``.txt`` file -> text, or :class:`SourceError` saying what is wrong.

    >>> decode_text_file("héllo".encode())
    'héllo'
    >>> decode_text_file(b"\\xff\\xfeh")
    Traceback (most recent call last):
    ...
    appstate.sources.SourceError: the file is not UTF-8 text: byte 0xFF at position 0 cannot start a character. Save it as UTF-8 and upload it again.
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
            "Save it as UTF-8 and upload it again."
        ) from None


def check_train_text(text: str, what: str = "the text") -> str:
    """``text`` if it can be trained on, else :class:`SourceError` (empty, too large)."""
    if not text:
        raise SourceError(f"{what[0].upper() + what[1:]} is empty: there is nothing to train on.")
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_TRAIN_BYTES:
        raise SourceError(
            f"{what[0].upper() + what[1:]} is {mb(size)}; the player trains on at most {mb(MAX_TRAIN_BYTES)}."
        )
    return text


def first_bytes(text: str, limit: int) -> str:
    """The longest prefix of ``text`` whose UTF-8 form fits in ``limit`` bytes."""
    return text.encode("utf-8")[:limit].decode("utf-8", "ignore")


def parse_specials(raw: str) -> tuple[str, ...]:
    """Special tokens typed in a box: separated by spaces or commas, duplicates dropped.

    >>> parse_specials("<|a|>, <|b|> <|a|>")
    ('<|a|>', '<|b|>')
    """
    return tuple(dict.fromkeys(t for t in re.split(r"[,\s]+", raw or "") if t))


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
        raise SourceError(
            f"{info['name']} is {mb(info['size'])}; the player trains on at most {cap}. "
            f"Tick “Train on the first {cap}” in the sidebar to use its beginning."
        )
    return f"{info['name']} (first {cap})", info["text"]
