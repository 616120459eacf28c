"""Bad input (issue 7, "Hardening"): the coverage map of every row, and the library and CLI rows.

Every row must end with a clear message (or a correct result), the app still usable (a later interaction
works) and no traceback shown (no ``at.exception``). Rows already tested elsewhere are listed in
COVERED_ELSEWHERE with the test that covers them; uploads, 50 MB pastes and "no alert() fires" need a real
browser and live in tests/browser/test_hardening_browser.py.

"here" below means the hardening family, one file a seam: library and CLI rows in this file; the bad input
of each page (player, Tokenize, lab rows, tampered links) in test_hardening_pages.py; issue 14's uploads,
Markdown and page guard on Tokenize, the lab and Token tax in test_hardening_uploads.py, on the player, the
Classroom and the sidebar in test_hardening_player.py; issue 21 (compile bombs, 5,000-digit numbers, special
files, the clear-cache message) in test_hardening_bombs.py; what they share in hardening_kit.py.

Coverage map (row -> where it is tested):

=============================  =================================================  ==========================
input                          library / CLI                                      app
=============================  =================================================  ==========================
empty text                     test_library_errors::test_empty_text; CLI here     player: test_app_player::
                                                                                  test_empty_paste_...; tokenize,
                                                                                  lab: here
whitespace-only text           test_library_errors::test_whitespace_only_...;     player, tokenize, lab: here
                               CLI here
50 MB paste / upload           --                                                 browser file (player upload,
                                                                                  tokenize paste); player 2 MB
                                                                                  cap: test_app_player::
                                                                                  test_too_large_paste...;
                                                                                  tokenize 1 MB cut:
                                                                                  test_app_tokenize::
                                                                                  test_huge_paste...; lab: here
binary / non-UTF-8 file        CLI: test_cli::test_input_that_is_not_text;        browser file (player upload)
                               latin-1 here
lone surrogates                test_library_errors::test_lone_surrogates; split   player, tokenize, lab (only
                               here                                               reachable through session
                                                                                  state): here
invalid regex                  test_library_errors::test_invalid_regex...;        player: test_app_player::
                               CLI: test_cli::test_bad_pattern                    test_invalid_regex...; lab:
                                                                                  test_app_lab::
                                                                                  test_custom_pattern_that_...
empty-matching regex           test_library_errors::test_pattern_matching_the_    player, lab (x*): here; lab
                               empty_string...; CLI here; "" here                 (?=a): test_app_lab
catastrophic regex (a|a)+$     test_library_errors::test_runaway_regex... (with   player, lab: here; lab (a+)+$
                               a timeout); default timeout + CLI here             preset: test_app_lab
vocab 0, 1, 255, 1e9, "x"      test_library_errors::test_vocab_size_*; CLI here   player merges box: here
special tokens inside text     test_library_errors::test_special_tokens_in_text;  player: here (+ chat sample
                               CLI --allow-special: test_cli                      in test_app_player); tokenize
                                                                                  toggle: test_app_tokenize
HTML/script/CSS injection      --                                                 all three text pages: here;
                                                                                  file names + dialogs: browser
tampered URL parameters        parse_*: test_share                                classroom: test_app_classroom
                                                                                  ::test_tampered_links...;
                                                                                  more values + other pages: here
tokenizer uploads (issue 14)   nested JSON, duplicate ranks: formats + CLI here   tokenize: here (appstate.vocabs:
                                                                                  names, limits before parsing,
                                                                                  cache bounded in bytes, same-
                                                                                  named files); real uploads:
                                                                                  browser file
Markdown in user strings       --                                                 tokenize upload names, lab
                                                                                  regex errors, player upload
                                                                                  names, regex, typed token, quiz
                                                                                  labels: here; uploads + text
                                                                                  fields: browser file
page switches keep input       --                                                 lab, player, classroom: here;
                                                                                  tokenize: test_app_tokenize;
                                                                                  token tax: test_app_token_tax
no traceback (page guard)      --                                                 tokenize, lab, token tax, player
                                                                                  (page and fragment), classroom,
                                                                                  shared sidebar: here
training in a worker (14)      tests/test_trainjobs.py (shared, left, deadline)   the issue's catastrophic link,
                                                                                  the app's 60 s limit: here; a
                                                                                  second session meanwhile, tab
                                                                                  closed / settings changed: browser
CLI stdin closed, bad --out    tests/test_cli.py                                  --
regex compile bombs (21)       a{10000000}, a{1000000000}, (a{1000}){1000}:       player link, lab box: here; server
                               refused before compiling, in a subprocess under    RSS, another session's fresh page:
                               ulimit -v; CLI Split regex: here                   browser file
5,000-digit numbers (21)       tokenizer.json, vocab.json, minbpe; CLI info,      tokenize uploads: here (never
                               decode (exit 4, one line): here                    Python's own text)
special files (21)             link to /dev/zero, FIFO, socket: bpe.userfiles,    -- (uploads are bytes)
                               bpe.load, load_parallel; CLI info, encode,
                               train: here
trainings in line (21)         tests/test_trainjobs.py (cap, one per session,     place shown, slot freed: browser
                               left while in line)                                file; 10 sessions at once:
                                                                                  bench/load_trainings.py
killed worker helper (21)      tests/test_isolation.py (reaped at once)           --
clear-cache message (21)       --                                                 runs, uploads, vocabularies
                                                                                  survive it: here
deploy headers, metrics (21)   tests/test_deploy.py (nosniff, frame-ancestors,    --
                               /_stcore/metrics)
=============================  =================================================  ==========================
"""

from __future__ import annotations

import time

import pytest
from hardening_kit import (
    CATASTROPHIC,
    CATASTROPHIC_TEXT,
    cli,
    one_line_error,
)

import appstate.keys
import appstate.pageguard
import appstate.runs
import appstate.sources
import appstate.vocabs
import bpe
from views.text_input import clean_text

COVERED_ELSEWHERE = {
    "library: empty, whitespace, vocab 0/1/255/1e9/'300'/None, invalid and runaway regex, x*, surrogates, "
    "special tokens": "tests/test_library_errors.py",
    "CLI: binary file, bad patterns, 'many' vocab, decode of bad ids, specials without --allow-special": "tests/test_cli.py",
    "player: empty paste, invalid regex, >2 MB paste, markup in paste, upload prompt": "tests/test_app_player.py",
    "tokenize: markup escaped, 1.35 MB paste cut with a message, special-token toggle": "tests/test_app_tokenize.py",
    "lab: regex that does not compile, (a+)+$ preset, (?=a), markup escaped": "tests/test_app_lab.py",
    "classroom: lesson=99, step=-5, step=abc, lesson=x<b>y</b>, presenter=maybe": "tests/test_app_classroom.py",
    "parse_int / parse_bool / parse_text on tampered values": "tests/test_share.py",
    "player: latin-1 and 50 MB upload, empty paste, invalid regex in a browser": "tests/browser/test_player_browser.py",
}


# ====================================================================================================
# Library rows not in test_library_errors.py


def test_library_catastrophic_regex_stops_with_the_default_timeout(monkeypatch):
    """The app and the CLI pass no timeout: a custom pattern still gets one (2 s + 4 s per million chars).

    Its value is asserted as documented; the mechanism (no timeout given: that default applies, to a training
    and to a split) on a default made 0.3 s here, which the message then names -- the 2 s default itself runs
    out on the app's path (test_player_bad_input, the browser's catastrophic link) and the CLI's."""
    assert bpe.splitting.DEFAULT_TIMEOUT == 2.0
    assert bpe.splitting.default_timeout(CATASTROPHIC_TEXT) == pytest.approx(2 + 4 * len(CATASTROPHIC_TEXT) / 1e6)
    monkeypatch.setattr(bpe.splitting, "DEFAULT_TIMEOUT", 0.3)
    t0 = time.perf_counter()
    with pytest.raises(bpe.PatternTimeout, match="took longer than 0.3 s .*catastrophic backtracking"):
        bpe.train(CATASTROPHIC_TEXT, 300, pattern=CATASTROPHIC)
    with pytest.raises(bpe.PatternTimeout, match="took longer than 0.3 s"):
        bpe.split(CATASTROPHIC_TEXT, CATASTROPHIC)
    assert time.perf_counter() - t0 < 30  # a hang detector: 0.3 s each


@pytest.mark.parametrize(
    "call",
    [
        lambda: bpe.train("abc abc", 300, pattern=""),
        lambda: bpe.split("abc", ""),
    ],
    ids=["train", "split"],
)
def test_library_empty_pattern_string_is_refused(call):
    with pytest.raises(bpe.PatternError, match="pattern is empty: use None"):
        call()


@pytest.mark.parametrize("text, chunks", [("", []), ("  \n\t", ["  \n\t"])], ids=["empty", "whitespace"])
def test_library_split_of_empty_and_whitespace_text(text, chunks):
    assert bpe.split(text, "gpt4").texts == chunks


def test_library_split_keeps_lone_surrogates_and_loses_nothing():
    # split works on str: a lone surrogate is kept (training and encoding are what refuse it)
    assert "".join(bpe.split("a\ud800b", "gpt4").texts) == "a\ud800b"


def test_library_special_token_that_is_the_whole_text():
    with pytest.raises(bpe.TrainingDataError, match=r"empty \(after removing special tokens\)"):
        bpe.train("<|e|><|e|>", 300, special_tokens=["<|e|>"])


def test_library_special_token_with_regex_metacharacters_is_literal():
    run = bpe.train("a(b(b(a(", 300, pattern=None, special_tokens=["(", "<script>"])
    assert all(b"(" not in m.token for m in run.merges)
    tok = run.tokenizer()
    ids = tok.encode("a(b<script>", allowed_special="all")
    assert run.special_tokens["("] in ids and run.special_tokens["<script>"] in ids
    assert tok.decode(ids) == "a(b<script>"


def test_clean_text_for_the_text_pages():
    """Lone surrogates cannot be encoded: the Tokenize page and the lab replace them before encoding."""
    text, note = clean_text("a\ud800b", appstate.sources.MAX_TEXT_BYTES)
    assert "\ud800" not in text and text[0] == "a" and text[-1] == "b" and note == ""
    assert clean_text("", 10) == ("", "")
    assert clean_text(" \n\t", 10) == (" \n\t", "")
    cut, note = clean_text("x" * 50, 10)
    assert cut == "x" * 10 and "over the 10-byte limit" in note


# ====================================================================================================
# CLI rows (the real `python -m bpe` in a subprocess; one-line error, no traceback)


CLI_ROWS = [
    # (id, file content, extra args, expected fragment of the one-line error, or None: trains)
    ("empty-file", b"", [], "training text is empty"),
    ("whitespace-file", b"  \n\t ", [], None),
    ("latin-1-file", "café crème".encode("latin-1"), [], "not UTF-8 text (byte 0xe9 at offset 3)"),
    ("utf8-encoded-surrogate", b"ab\xed\xa0\x80cd", [], "not UTF-8 text"),
    ("vocab-0", b"hello hello", ["--vocab-size", "0"], "0 must be at least 1"),
    ("vocab-1", b"hello hello", ["--vocab-size", "1"], "below the 256 byte tokens"),
    ("vocab-255", b"hello hello", ["--vocab-size", "255"], "below the 256 byte tokens"),
    ("vocab-1e9", b"hello hello", ["--vocab-size", "1000000000"], "too large: at most"),
    ("vocab-3.5", b"hello hello", ["--vocab-size", "3.5"], "'3.5' is not a whole number"),
    ("catastrophic-regex", CATASTROPHIC_TEXT.encode(), ["--pattern", CATASTROPHIC], "took longer than"),
    ("empty-matching-regex", b"ab c ab", ["--pattern", "x*"], None),
    ("special-token-is-the-text", b"<|e|><|e|>", ["--special-token", "<|e|>"], "empty"),
]


@pytest.mark.parametrize("content, args, fragment", [r[1:] for r in CLI_ROWS], ids=[r[0] for r in CLI_ROWS])
def test_cli_bad_input(tmp_path, content, args, fragment):
    (tmp_path / "in.txt").write_bytes(content)
    if "--vocab-size" not in args:
        args = [*args, "--vocab-size", "300"]
    t0 = time.perf_counter()
    result = cli("train", "in.txt", *args, "--out", "out", "--quiet", cwd=tmp_path)
    assert time.perf_counter() - t0 < 60  # a hang detector: at most 6.6 s measured (the catastrophic row, load 11)
    if fragment is None:
        assert result.returncode == 0, result.stderr
        assert (tmp_path / "out" / "tokenizer.json").exists()
    else:
        assert fragment in one_line_error(result)
        assert not (tmp_path / "out").exists()
