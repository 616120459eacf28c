"""Issue 21: compile bombs, 5,000-digit numbers, special files, the clear-cache message. The coverage map of
every hardening row: tests/test_hardening.py.

Compile bombs: `regex` writes a counted repeat out in full, so a 20-byte link used to grow the server by
gigabytes (a{1000000000}: 21 GB, killed). bpe.patterns.check_size refuses such a pattern before compiling. The
exact repros of the issue; memory cases run in a subprocess under `ulimit -v` (3 GB, the issue's own safe
repro), never in the test runner's process."""

from __future__ import annotations

import html as htmllib
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import player_driver as P
import pytest
from hardening_kit import (
    LAB,
    ROOT,
    assert_no_markup,
    assert_said,
    errors,
    link_app,
    no_traceback,
    one_line_error,
    page_app,
)
from helpers import html_bodies
from limited_run import GET_PATTERN, limited_cli, limited_python

import appstate.keys
import appstate.pageguard
import appstate.runs
import appstate.sources
import appstate.vocabs
import bpe

BOMBS = ["a{10000000}", "a{1000000000}", "(a{1000}){1000}", "(?:a+){100000}", "x{" + "9" * 5000 + "}"]


@pytest.mark.parametrize("pattern", BOMBS, ids=["1e7", "1e9", "nested", "plus-1e5", "5000-digits"])
def test_library_refuses_compile_bombs_before_compiling(pattern):
    # (the peak memory of the child, limited_run.GET_PATTERN)
    result = limited_python(GET_PATTERN, pattern)
    out = result.stdout.decode()
    assert result.returncode == 0, result.stderr.decode()[-500:]
    first, peak_kb = out.strip().splitlines()
    assert first.startswith("REFUSED the pattern is too large to compile"), out
    assert "limit is 50,000" in first
    assert int(peak_kb) < 300_000, peak_kb  # refused before compiling (compiling took gigabytes): no MemoryError


@pytest.mark.parametrize("pattern", [r"\p{N}{1,3}", "[a-z]{2,40}", "a{49000}", r"(?:\w{1,8}\s?){100}", "a{,x}"])
def test_library_still_compiles_ordinary_counted_repeats(pattern):
    assert bpe.get_pattern(pattern).custom


def test_custom_pattern_cache_is_bounded_by_size():
    import bpe.patterns as bp

    for i in range(12):  # 12 patterns of ~45,000 units (~5 MB each): the cache keeps at most MAX_CACHED_BYTES
        bpe.get_pattern(f"(?:{chr(0x61 + i)}{{45000}})")
    kept = sum(size for _, size in bp._custom_cache.values())
    assert kept <= bp.MAX_CACHED_BYTES and len(bp._custom_cache) < 12
    assert bpe.get_pattern("(?:l{45000})") is bpe.get_pattern("(?:l{45000})")  # the newest is still kept


@pytest.mark.parametrize("pattern", BOMBS[:3], ids=["1e7", "1e9", "nested"])
def test_player_link_with_a_compile_bomb_says_so(pattern):
    at = link_app({"text": "aaaa bbbb", "pattern": pattern})
    t0 = time.perf_counter()
    at.run()
    assert time.perf_counter() - t0 < 20  # a hang detector: ~1 s measured, over 5x
    no_traceback(at)
    shown = htmllib.unescape(" ".join(html_bodies(at)))  # the link's notes, above the player
    assert "is not a valid regex (the pattern is too large to compile" in shown and "using gpt4" in shown
    assert_no_markup(at)
    assert P.mounted(at)  # and the page trained with gpt4


@pytest.mark.parametrize("pattern", BOMBS[:3], ids=["1e7", "1e9", "nested"])
def test_lab_pattern_box_with_a_compile_bomb_says_so(pattern):
    at = page_app(LAB)
    at.multiselect(key="lab_patterns").set_value(["gpt4"]).run()
    at.text_area(key="lab_text").input("aaaa bbbb")
    at.text_input(key="lab_custom").input(pattern).run(timeout=60)
    assert_said(at, "too large to compile")
    at.text_input(key="lab_custom").input("").run()
    no_traceback(at)
    assert not errors(at)


def test_cli_tokenizer_json_with_a_split_regex_bomb_is_a_one_line_error(tmp_path):
    import json

    tj = {
        "version": "1.0",
        "added_tokens": [],
        "normalizer": None,
        "post_processor": None,
        "decoder": None,
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": "a{1000000000}"}, "behavior": "Isolated", "invert": False},
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
            ],
        },
        "model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": [], "ignore_merges": True},
    }
    (tmp_path / "bomb.json").write_text(json.dumps(tj))
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    result = subprocess.run(
        ["bash", "-c", f'ulimit -v 3000000; exec "{sys.executable}" -m bpe info bomb.json'],
        capture_output=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    err = one_line_error(result)
    assert "too large to compile" in err and "MemoryError" not in err, err


# ====================================================================================================
# Issue 21, items 2 and 3: a 5,000-digit number in a tokenizer file, and special files (a link to
# /dev/zero, a FIFO, a socket) named to the CLI. One line and exit code 4 (unusable input: see
# bpe.cli_args.EXIT_CODES), never "internal error", and special files refused before a byte is read. The
# reads run in a subprocess under `ulimit -v` (a reader that slipped would fill memory, not hang the run).

BAD_INPUT_EXIT = 4
DIGITS_5000 = "1" * 5000


@pytest.mark.parametrize(
    "name, data, words",
    [
        (
            "z.json",
            b'{"model": {"type": "BPE", "vocab": {"a": ' + DIGITS_5000.encode() + b'}, "merges": []}}',
            "z.json holds a number too long to read (more than 4,300 digits)",
        ),
        ("vocab.json", b'{"a": -' + DIGITS_5000.encode() + b"}", "vocab.json holds a number too long to read"),
    ],
    ids=["tokenizer-json", "vocab-json"],
)
def test_cli_info_on_a_5000_digit_number_is_a_one_line_error(tmp_path, name, data, words):
    (tmp_path / name).write_bytes(data)
    (tmp_path / "merges.txt").write_text("#version: 0.2\n")
    result = limited_cli("info", name, cwd=tmp_path)
    err = one_line_error(result)
    assert words in err and "internal error" not in err and "Exceeds the limit" not in err, err
    assert result.returncode == BAD_INPUT_EXIT


def test_cli_decode_of_a_5000_digit_id_is_a_one_line_error(tmp_path):
    result = limited_cli("decode", "-t", "cl100k_base", DIGITS_5000, cwd=tmp_path)
    err = one_line_error(result)
    assert "(5,000 digits) is not a token id" in err and "internal error" not in err
    assert result.returncode == BAD_INPUT_EXIT


def _special_files(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """A link to /dev/zero, a FIFO (no writer: opening it for reading would block) and a Unix socket."""
    import socket

    zero = tmp_path / "z.json"
    zero.symlink_to("/dev/zero")
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    sock_path = tmp_path / "sock.json"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(sock_path))
    sock.close()  # the socket file stays
    return {
        "zero": (zero, "is a character device"),
        "fifo": (fifo, "is a FIFO (named pipe)"),
        "socket": (sock_path, "is a socket"),
    }


@pytest.mark.parametrize("kind", ["zero", "fifo", "socket"])
@pytest.mark.parametrize(
    "args",
    [
        ("info", "{}"),
        ("encode", "-t", "{}", "hi"),
        ("train", "{}", "--vocab-size", "300", "--out", "out"),
        ("encode", "-t", "cl100k_base", "--file", "{}"),
    ],
    ids=["info", "encode-tokenizer", "train-text", "encode-file"],
)
def test_cli_refuses_special_files_before_reading(tmp_path, kind, args):
    path, words = _special_files(tmp_path)[kind]
    result = limited_cli(*[a.replace("{}", path.name) for a in args], cwd=tmp_path, timeout=30)
    err = one_line_error(result)
    assert f"{path.name} {words}, not a regular file: not read" in err, err
    assert result.returncode == BAD_INPUT_EXIT


def test_library_refuses_special_files_before_reading(tmp_path):
    from bpe.userfiles import NotARegularFile, read_regular_file

    for path, words in _special_files(tmp_path).values():
        with pytest.raises(NotARegularFile, match=re.escape(words)):
            read_regular_file(path)
        with pytest.raises(bpe.FormatError, match=re.escape(words)):
            bpe.load(path)
        with pytest.raises(ValueError, match=re.escape(words)):
            bpe.load_parallel(path)
    # a folder whose tokenizer.json is a FIFO: refused, not skipped, and nothing blocks
    folder = tmp_path / "tok"
    folder.mkdir()
    os.mkfifo(folder / "tokenizer.json")
    with pytest.raises(bpe.FormatError, match="tokenizer.json is a FIFO"):
        bpe.load(folder)
    # a link to a regular file is still read
    (tmp_path / "real.json").write_bytes(bpe.dumps(bpe.train("ab ab ab", 257).tokenizer(), "hf")["tokenizer.json"])
    (tmp_path / "link.json").symlink_to(tmp_path / "real.json")
    assert bpe.load(tmp_path / "link.json").n_merges == 1


def test_upload_error_that_is_not_the_librarys_shows_no_python_text(monkeypatch):
    groups, _ = appstate.vocabs.group_files([("odd.json", b'{"issue21-odd": 1}')])
    monkeypatch.setattr(bpe, "loads", lambda *a, **k: int("9" * 5000))  # Python's own ValueError
    with pytest.raises(appstate.vocabs.UploadError) as info:
        appstate.vocabs.load_upload(groups[0])
    msg = str(info.value)
    assert msg.startswith("Could not read odd.json") and "unexpected error" in msg
    assert "Exceeds" not in msg and "ValueError" not in msg and "digits" not in msg


# ====================================================================================================
# Issue 21, item 6: any websocket client can send Streamlit's clear-cache message. Streamlit 1.67 handles it
# unconditionally (AppSession.handle_backmsg -> _handle_clear_cache_request: cache_data.clear() and
# cache_resource.clear(), for every user; no setting refuses it, and nginx cannot see inside the
# websocket's frames). So what is dear to rebuild lives outside Streamlit's caches: the trained runs, the
# uploaded tokenizers, the real vocabularies (bpe.load_pretrained's own cache) survive it.


def test_streamlits_clear_cache_message_keeps_runs_uploads_and_vocabularies():
    from streamlit.runtime import caching

    settings = appstate.runs.TrainSettings(vocab_size=300, pattern="gpt4")
    text = "issue 21 clear cache " * 40
    run = appstate.runs.get_run(text, settings)
    runs_before, uploads_before = appstate.runs.run_cache(), appstate.vocabs.upload_cache()
    gpt4 = appstate.vocabs.vocabulary("cl100k_base")
    caching.cache_data.clear()  # what the clear-cache message does (app_session.py, Streamlit 1.67)
    caching.cache_resource.clear()
    assert appstate.runs.run_cache() is runs_before and appstate.runs.peek_run(text, settings) is run
    assert appstate.vocabs.upload_cache() is uploads_before
    assert appstate.vocabs.vocabulary("cl100k_base") is gpt4  # loaded again from bpe's cache: no parsing
