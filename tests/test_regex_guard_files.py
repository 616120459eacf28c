"""Issue 32, item 2 and 7 for files: a ``tokenizer.json``'s Split / Replace regexes go through the same guard as
a typed pattern (refused before compiling, in a child under ``ulimit -v``) and run with the deadline; and the
CLI answers a bad pattern in one line, quickly. The bound and its property test: tests/test_regex_guard.py."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
import regex
from limited_run import ROOT, limited_python
from regex_guard_kit import (
    COMMENT_BOMB,
    DECODER_BOMB,
    ISOLATED_BOMB,
    REDOS_REPLACE,
    REDOS_SPLIT,
    REDOS_TEXT,
    REPLACE_BOMB,
    SPLIT_BOMB,
    VERBOSE_BOMB,
    tokenizer_json,
)

import bpe
from bpe.formats import FormatError

# ----------------------------------------------------------------------------------------------------
# tokenizer.json regexes: one guard, the deadline on every run


@pytest.mark.parametrize(
    "data, where",
    [
        (REPLACE_BOMB, "Replace normalizer"),
        (DECODER_BOMB, "Replace decoder"),
        (SPLIT_BOMB, "Split pre-tokenizer"),
        (ISOLATED_BOMB, "pre-tokenizer"),
    ],
    ids=["replace", "decoder", "split", "split-isolated"],
)
def test_tokenizer_json_regex_bombs_are_refused_without_compiling(data, where):
    assert len(REPLACE_BOMB) < 700  # the 692-byte upload
    code = (
        "import sys, re, bpe\nfrom bpe.formats import FormatError\n"
        "try:\n    bpe.formats.loads({'tokenizer.json': sys.argv[1].encode()}); print('LOADED')\n"
        "except FormatError as e:\n    print('REFUSED', e)\n"
        "print(re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1))\n"
    )
    result = limited_python(code, data.decode())
    assert result.returncode == 0, result.stderr.decode()[-800:]
    first, peak_kb = result.stdout.decode().strip().splitlines()
    assert first.startswith(f"REFUSED the {where} regex") and "too large to compile" in first, first
    assert int(peak_kb) < 300_000, peak_kb


def _load(data: bytes):
    return bpe.formats.loads({"tokenizer.json": data})


@pytest.mark.parametrize("data", [REDOS_SPLIT, REDOS_REPLACE], ids=["split-removed", "replace"])
def test_a_backtracking_tokenizer_json_regex_stops_at_its_deadline(data):
    tok = _load(data)
    t0 = time.monotonic()
    with pytest.raises(bpe.PatternTimeout, match="took longer than 2 s"):
        tok.encode(REDOS_TEXT)
    assert time.monotonic() - t0 < 60  # hang detector: 2 s of CPU, measured 2.0-2.7 s at load 9


def test_a_backtracking_tokenizer_json_regex_stops_in_the_apps_worker():
    import guard

    previous = guard.install()
    try:
        tok = _load(REDOS_SPLIT)
        with pytest.raises(bpe.PatternTimeout):
            tok.encode(REDOS_TEXT)
        assert tok.encode("baa") == [2]  # the worker cuts as HF does: the match "aa" at the end is Removed
    finally:
        bpe.set_pattern_runner(previous)


def test_tokenizer_json_regexes_still_cut_as_before():
    split = tokenizer_json(pre={"type": "Split", "pattern": {"Regex": "b"}, "behavior": "Removed"})
    assert _load(split).encode("abab") == [1, 1]
    replace = tokenizer_json(norm={"type": "Replace", "pattern": {"Regex": "b+"}, "content": "x"})
    assert _load(replace).encode("abba") == [1, 3, 1]
    dec = tokenizer_json(dec={"type": "Replace", "pattern": {"Regex": "x"}, "content": "a"})
    assert _load(dec).decode([3, 2]) == "ab"


def test_a_tokenizer_json_regex_stays_out_of_the_modules_cache():
    regex.purge()
    _load(tokenizer_json(norm={"type": "Replace", "pattern": {"Regex": "q{3000}"}, "content": "x"}))
    assert not any(key[0] == "q{3000}" for key in regex._main._cache)


def test_a_bad_tokenizer_json_flag_is_a_format_error():
    bad = tokenizer_json(norm={"type": "Replace", "pattern": {"Regex": "(?a)(?u)x"}, "content": "x"})
    with pytest.raises(FormatError, match="only one of"):
        _load(bad)


# ----------------------------------------------------------------------------------------------------
# the CLI: one line, quickly


def run_cli(*args: str, timeout: float = 60):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t0 = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "bpe", *args], capture_output=True, text=True, env=env, timeout=timeout, cwd=ROOT
    )
    return result, time.monotonic() - t0


def test_cli_encode_with_a_backtracking_split_exits_with_one_line(tmp_path):
    path = tmp_path / "redos_split.json"
    path.write_bytes(REDOS_SPLIT)
    result, took = run_cli("encode", "-t", str(path), REDOS_TEXT)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bpe: error: the pattern took longer than 2 s"), result.stderr
    assert took < 25  # hang detector (measured 2.7 s at load 9: a wall-clock alarm, not CPU time)


@pytest.mark.parametrize(
    "pattern, words",
    [
        (COMMENT_BOMB, "too large to compile"),
        (VERBOSE_BOMB, "too large to compile"),
        ("(?V0)x", "(?V0) and (?V1)"),
        ("(?a)(?u)x", "only one of"),
    ],
)
def test_cli_train_with_a_bad_pattern_exits_with_one_line(tmp_path, pattern, words):
    text = tmp_path / "t.txt"
    text.write_text("aaa bbb")
    result, took = run_cli(
        "train", "--pattern", pattern, "--vocab-size", "258", "--out", str(tmp_path / "o"), str(text)
    )
    lines = result.stderr.strip().splitlines()
    assert result.returncode != 0 and len(lines) == 1 and words in lines[0], result.stderr
    assert "internal error" not in lines[0]
    assert took < 25
