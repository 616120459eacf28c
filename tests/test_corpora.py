"""Tests for the sample texts shown in the app and the benchmark corpora (testkit/corpora.py, with its R data
reader testkit/rdata.py and its values testkit/rvalues.py, the multilingual sources testkit/multilingual_sources.py
and the Debian package fetcher testkit/debian.py).

Tests marked ``slow`` fetch Debian packages with ``apt-get download`` the first time (cached in
``testkit/data/`` afterwards); everything else runs offline in well under a second.
"""

from __future__ import annotations

import gzip
import json
import struct
import subprocess
import unicodedata
import zlib
from pathlib import Path

import pytest

from testkit import corpora, debian, rdata

ROOT = Path(__file__).resolve().parents[1]

SAMPLES = ROOT / "sample_texts"


# --------------------------------------------------------------------------- #
# sample_texts/
# --------------------------------------------------------------------------- #


def _index() -> list[dict]:
    return json.loads((SAMPLES / "index.json").read_text(encoding="utf-8"))


def test_index_lists_exactly_the_sample_files():
    index = _index()
    files = [e["file"] for e in index]
    assert len(files) == len(set(files))
    assert set(files) == {p.name for p in SAMPLES.glob("*.txt")}
    assert files[0] == "english.txt"  # the default sample comes first


def test_index_entries_are_complete():
    for e in _index():
        assert set(e) == {"file", "title", "description", "default_vocab_size"}
        assert e["title"].strip() and e["description"].strip()
        assert isinstance(e["default_vocab_size"], int) and 256 < e["default_vocab_size"] <= 4096


@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.txt")), ids=lambda p: p.name)
def test_sample_is_valid_utf8(path: Path):
    data = path.read_bytes()
    text = data.decode("utf-8")  # raises if invalid
    assert text.strip()
    assert not data.startswith(b"\xef\xbb\xbf"), "no byte-order mark"
    assert "\r" not in text
    assert all(unicodedata.category(c) != "Cc" or c in "\n\t" for c in text)


@pytest.mark.parametrize(
    "name", ["english.txt", "python_code.txt", "multilingual.txt", "emoji.txt", "numbers.txt", "chat.txt"]
)
def test_sample_sizes(name: str):
    size = (SAMPLES / name).stat().st_size
    low = 3000 if name == "english.txt" else 1000
    high = 5000 if name == "english.txt" else 6000
    assert low <= size <= high


def test_exact_tiny_samples():
    assert (SAMPLES / "aaabdaaabac.txt").read_bytes() == b"aaabdaaabac"
    assert (SAMPLES / "hello.txt").read_bytes() == b"hello hello hello world"


def test_python_sample_is_valid_python():
    compile((SAMPLES / "python_code.txt").read_text(encoding="utf-8"), "python_code.txt", "exec")


def _scripts(text: str) -> set[str]:
    out = set()
    for c in text:
        if ord(c) > 0x7F:
            try:
                out.add(unicodedata.name(c).split()[0])
            except ValueError:
                pass
    return out


def test_multilingual_sample_scripts():
    text = (SAMPLES / "multilingual.txt").read_text(encoding="utf-8")
    assert {"CJK", "HIRAGANA", "KATAKANA", "HANGUL", "ARABIC", "DEVANAGARI", "CYRILLIC", "GREEK"} <= _scripts(text)
    for word in ("café", "naïve"):
        assert word in text


def test_emoji_sample_sequences():
    text = (SAMPLES / "emoji.txt").read_text(encoding="utf-8")
    for seq in ("👩\u200d💻", "👨\u200d👩\u200d👧\u200d👦", "👍🏽", "🇯🇵", "🇫🇷", "🇺🇦", "1\ufe0f\u20e3"):
        assert seq in text


def test_chat_sample_special_tokens():
    text = (SAMPLES / "chat.txt").read_text(encoding="utf-8")
    assert text.startswith("<|im_start|>system")
    assert text.count("<|im_start|>") == text.count("<|im_end|>") >= 4
    assert "<|endoftext|>" in text


# --------------------------------------------------------------------------- #
# R serialization reader (synthetic streams, no download)
# --------------------------------------------------------------------------- #


def _i4(v: int) -> bytes:
    return struct.pack(">i", v)


def _flags(t: int, levels: int = 0, attr: bool = False, tag: bool = False) -> bytes:
    return _i4(t | (attr << 9) | (tag << 10) | (levels << 12))


_HEADER3 = b"X\n" + _i4(3) + _i4(0x040201) + _i4(0x030500) + _i4(5) + b"UTF-8"
_HEADER2 = b"X\n" + _i4(2) + _i4(0x030602) + _i4(0x020300)
_NIL = _i4(254)


def _char(s: str | None, levels: int = 8, encoding: str = "utf-8") -> bytes:
    if s is None:
        return _flags(9) + _i4(-1)
    b = s.encode(encoding)
    return _flags(9, levels) + _i4(len(b)) + b


def _sym(name: str) -> bytes:
    return _i4(1) + _char(name, 64)


def _strsxp(items, attr: bytes = b"") -> bytes:
    return _flags(16, attr=bool(attr)) + _i4(len(items)) + b"".join(items) + attr


def _names_attr(names: list[str], sym: bytes | None = None) -> bytes:
    return _flags(2, tag=True) + (sym or _sym("names")) + _strsxp([_char(n) for n in names]) + _NIL


def test_unserialize_strings_na_and_encodings():
    latin1 = _char("café", levels=4, encoding="latin-1")
    stream = _HEADER3 + _strsxp([_char("SENSE AND SENSIBILITY"), _char(None), latin1, _char("naïve"), _char("")])
    assert rdata.unserialize(stream) == ["SENSE AND SENSIBILITY", None, "café", "naïve", ""]
    assert rdata.unserialize(gzip.compress(_HEADER2 + _strsxp([_char("x")]))) == ["x"]


def test_unserialize_list_with_names_and_symbol_reference():
    # the second "names" symbol is written as a back-reference (REFSXP, index 1)
    # read order: the inner vector's attributes come first and define symbol 1 ("names")
    inner = _strsxp([_char("a"), _char("b")], attr=_names_attr(["p", "q"]))
    ints = _flags(13) + _i4(3) + _i4(1) + _i4(-(2**31)) + _i4(7)
    outer_names = _names_attr(["s", "n"], sym=_i4((1 << 8) | 255))
    stream = _HEADER3 + _flags(19, attr=True) + _i4(2) + inner + ints + outer_names
    value = rdata.unserialize(stream)
    assert value.names == ["s", "n"]
    assert value[0] == ["a", "b"] and value[0].names == ["p", "q"]
    assert value[1] == [1, None, 7]


def _altrep(cls: str, state: bytes, rtype: int) -> bytes:
    info = _flags(2) + _sym(cls) + _flags(2) + _sym("base") + _flags(2) + _flags(13) + _i4(1) + _i4(rtype) + _NIL
    return _i4(238) + info + state + _NIL


def test_unserialize_altrep_compact_forms():
    state = _flags(14) + _i4(3) + struct.pack(">3d", 5, 3, 1)  # n=5, start=3, step=1
    assert rdata.unserialize(_HEADER3 + _altrep("compact_intseq", state, 13)) == [3, 4, 5, 6, 7]
    arg = _flags(13) + _i4(2) + _i4(10) + _i4(-(2**31))
    deferred = _flags(2) + arg + _NIL  # pairlist(arg)
    assert rdata.unserialize(_HEADER3 + _altrep("deferred_string", deferred, 16)) == ["10", None]
    wrapped = _flags(2) + _strsxp([_char("w")]) + _NIL
    assert rdata.unserialize(_HEADER3 + _altrep("wrap_string", wrapped, 16)) == ["w"]


def test_read_lazyload_db_roundtrip(tmp_path: Path):
    value = _HEADER3 + _strsxp([_char("It is a truth"), _char("universally acknowledged")])
    blob = struct.pack(">I", len(value)) + zlib.compress(value)
    pad = b"\0" * 7  # the value does not start at offset 0
    offsets = _flags(13) + _i4(2) + _i4(len(pad)) + _i4(len(blob))
    variables = _flags(19, attr=True) + _i4(1) + offsets + _names_attr(["pp"])
    references = _flags(19) + _i4(0)
    compressed = _flags(10) + _i4(1) + _i4(1)
    names = (
        _flags(2, tag=True)
        + _i4((1 << 8) | 255)
        + _strsxp([_char("variables"), _char("references"), _char("compressed")])
        + _NIL
    )
    index = _HEADER3 + _flags(19, attr=True) + _i4(3) + variables + references + compressed + names
    (tmp_path / "Rdata.rdx").write_bytes(gzip.compress(index))
    (tmp_path / "Rdata.rdb").write_bytes(pad + blob)
    assert rdata.read_lazyload_db(tmp_path / "Rdata") == {"pp": ["It is a truth", "universally acknowledged"]}


def test_not_an_r_stream():
    with pytest.raises(ValueError):
        rdata.unserialize(b"hello world, not R")


# --------------------------------------------------------------------------- #
# corpora helpers and offline corpora
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("size", [1, 10, 1000, 5000])
def test_take_returns_at_least_size_and_ends_a_word(size: int):
    text = "Grüße aus Köln, 你好世界 — " * 400
    out = corpora._take(text, size)
    n = len(out.encode("utf-8"))
    assert size <= n <= size + 40
    assert text.startswith(out)


@pytest.mark.parametrize("size", [1, 10, 8192])
def test_documents_cut_after_newlines_and_join_back(size: int):
    text = "".join(f"line {i} " + "x" * (i % 37) + "\n" for i in range(3000)) + "no newline at the end"
    docs = corpora.documents(text, size)
    assert "".join(docs) == text
    assert all(d.endswith("\n") and len(d) >= size for d in docs[:-1])
    assert all("\n" not in d[size - 1 : -1] for d in docs[:-1])  # cut at the first newline past the size
    assert docs[-1].endswith("at the end")
    assert corpora.documents("", size) == []


def test_missing_tools_give_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(debian, "DATA_DIR", tmp_path)
    monkeypatch.setattr(debian.shutil, "which", lambda _name: None)
    with pytest.raises(RuntimeError, match="apt-get install r-cran-janeaustenr"):
        debian.package_root("r-cran-janeaustenr")


def test_failed_download_gives_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(debian, "DATA_DIR", tmp_path)
    monkeypatch.setattr(debian, "_apt_updated", True)
    monkeypatch.setattr(debian.shutil, "which", lambda name: f"/usr/bin/{name}")
    failed = subprocess.CompletedProcess(["apt-get"], 100, "", "E: Unable to locate package")
    monkeypatch.setattr(debian, "_run", lambda *a, **k: failed)
    with pytest.raises(RuntimeError, match="apt-get install fortunes-ru"):
        debian.package_root("fortunes-ru")


@pytest.mark.parametrize("size", [1000, 300_000])
def test_python_code(size: int):
    code = corpora.python_code(size)
    assert len(code.encode("utf-8")) >= size
    assert "def " in code or size < 5000
    assert corpora.python_code(size) == code


# --------------------------------------------------------------------------- #
# corpora that need Debian packages (apt-get download, cached in testkit/data/)
# --------------------------------------------------------------------------- #


@pytest.mark.slow
def test_austen_text_is_the_six_novels():
    text = corpora.austen_text()
    assert text.startswith("SENSE AND SENSIBILITY")
    for title in ("PRIDE AND PREJUDICE", "MANSFIELD PARK", "EMMA", "NORTHANGER ABBEY", "Persuasion"):
        assert title in text
    assert text.rstrip().endswith("Finis")
    assert len(text.split()) > 700_000
    assert 3_500_000 < len(text.encode("utf-8")) < 5_000_000
    assert all(unicodedata.category(c) != "Cc" or c == "\n" for c in text)
    assert "It is a truth universally acknowledged" in text


@pytest.mark.slow
@pytest.mark.parametrize("size", [1, 100_000, 10_000_000])
def test_english_size_and_determinism(size: int):
    text = corpora.english(size)
    assert size <= len(text.encode("utf-8")) <= size + 64
    assert text.startswith("SENSE AND SENSIBILITY"[: max(1, min(size, 21))])
    assert corpora.english(size) == text


@pytest.mark.slow
@pytest.mark.parametrize("train,held", [(1_000_000, 200_000), (3_000_000, 1_000_000)])
def test_held_out_english_does_not_overlap(train: int, held: int):
    full = corpora.austen_text()
    training = corpora.english(train)
    held_out = corpora.held_out_english(held)
    assert len(held_out.encode("utf-8")) >= held
    assert corpora.held_out_english(held) == held_out
    assert full.startswith(training) and full.endswith(held_out)
    assert len(training) + len(held_out) <= len(full)
    assert held_out[:2000] not in training


@pytest.mark.slow
def test_held_out_english_is_bounded():
    with pytest.raises(ValueError):
        corpora.held_out_english(len(corpora.austen_text()))


@pytest.mark.slow
@pytest.mark.parametrize("size", [50_000, 1_000_000])
def test_multilingual(size: int):
    text = corpora.multilingual(size)
    assert size <= len(text.encode("utf-8")) <= size + 256
    assert corpora.multilingual(size) == text
    scripts = _scripts(text)
    assert {"CJK", "CYRILLIC", "ARABIC", "DEVANAGARI", "HANGUL", "HIRAGANA", "KATAKANA"} <= scripts
    assert any(c in text for c in "äöüßñ")
    assert "\x1b" not in text


@pytest.mark.slow
def test_multilingual_whole_corpus_is_large():
    assert len(corpora.multilingual_text().encode("utf-8")) > 5_000_000
