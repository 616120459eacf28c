"""Bad input, in one place (issue 7, "Hardening"): library, CLI and every page through AppTest.

Every row must end with a clear message (or a correct result), the app still usable (a later interaction
works) and no traceback shown (no ``at.exception``). Rows already tested elsewhere are listed in
COVERED_ELSEWHERE with the test that covers them; uploads, 50 MB pastes and "no alert() fires" need a real
browser and live in tests/browser/test_hardening_browser.py.

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

import html as htmllib
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import player_driver as P
import pytest
import tokenize_driver as T
from helpers import FakeUpload, html_bodies, open_app, page_messages
from streamlit.testing.v1 import AppTest

import appstate.keys
import appstate.pageguard
import appstate.runs
import appstate.sources
import appstate.vocabs
import bpe
from views.text_input import clean_text

ROOT = Path(__file__).resolve().parents[1]

CATASTROPHIC = r"(a|a)+$"  # exponential even in `regex` (which defuses (a+)+$)
CATASTROPHIC_TEXT = "a" * 40 + "!"
INJECTION = "<script>alert(1)</script><img src=x onerror=alert(2)><b>bold</b><style>body{display:none}</style>"
SUBMIT = "FormSubmitter:player_paste_form-Train on this text"
TOKENIZE = "app_pages/tokenize_page.py"
LAB = "app_pages/pretokenizer_lab.py"
CLASSROOM = "app_pages/classroom.py"

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
# Helpers


def no_traceback(at: AppTest) -> None:
    assert not at.exception, [e.message for e in at.exception]


def messages(at: AppTest) -> str:
    """Every error, warning and info box on the page, one string (Streamlit's own boxes and the escaped
    HTML ones that carry user strings, ``views.messages.message_html``)."""
    return " | ".join(
        [e.value for e in at.error]
        + [w.value for w in at.warning]
        + [i.value for i in at.info]
        + page_messages(at, "error")
        + page_messages(at, "warning")
        + page_messages(at, "info")
    )


def errors(at: AppTest) -> list[str]:
    """The page's error messages: ``st.error`` boxes and escaped HTML error boxes."""
    return [e.value for e in at.error] + page_messages(at, "error")


def assert_no_markup(at: AppTest, *, style_ok: tuple[str, ...] = ()) -> None:
    """No user markup rendered: no <script>/<img>/<b>bold and no injected <style> in any st.html body,
    and no raw tag in any markdown element."""
    for body in html_bodies(at):
        assert "<script" not in body and "<img" not in body and "<b>bold" not in body, body[:300]
        assert "body{display:none}" not in body.replace("&lt;style&gt;body{display:none}", ""), body[:300]
    for md in at.markdown:
        assert "<script" not in md.value and "<img" not in md.value


def player_app() -> AppTest:
    return open_app()


def player_at(at: AppTest) -> int:
    """The merge the player shows (its control), after checking it is there exactly once."""
    assert P.mounted(at), "the player is drawn"
    return P.k(at)


def player_still_works(at: AppTest) -> None:
    """Back to a sample, the player trains and steps."""
    at.radio(key="player_source").set_value("sample").run()
    if at.session_state[appstate.keys.PLAYER_PATTERN] == "custom":
        at.selectbox(key="player_pattern").set_value("gpt4").run()
    at.selectbox(key="player_sample").set_value("aaabdaaabac").run()
    no_traceback(at)
    assert not errors(at)
    P.step(at)
    no_traceback(at)
    assert player_at(at) == 1 and P.run_payload(at)["n"] == 3


def paste(at: AppTest, text: str, **state) -> AppTest:
    at.radio(key="player_source").set_value("paste").run()
    for key, value in state.items():
        at.session_state[key] = value
    at.text_area(key=appstate.keys.PLAYER_PASTE).input(text)
    at.button(key=SUBMIT).click().run()
    return at


def page_app(page: str) -> AppTest:
    """``page`` after the Merge player, as a tab that came from the home page."""
    return open_app(page, first_run=True)


def assert_said(at: AppTest, fragment: str | None) -> None:
    """No traceback, no user markup rendered, and ``fragment`` among the page's messages (``None``: no error)."""
    no_traceback(at)
    if fragment is None:
        assert not errors(at), messages(at)
    else:
        assert fragment in messages(at), messages(at)
    assert_no_markup(at)


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


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    env.pop("BPE_LAB_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "bpe", *args], input=b"", capture_output=True, cwd=cwd, env=env, timeout=120
    )


def one_line_error(result: subprocess.CompletedProcess) -> str:
    err = result.stderr.decode("utf-8")
    assert result.returncode != 0
    assert "Traceback" not in err and err.startswith("bpe: error: ") and err.count("\n") == 1, err
    return err


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


# ====================================================================================================
# Merge player (AppTest). Each row: what is typed, the expected message fragment (None: it trains), then
# the player must still work.

PLAYER_ROWS = [
    # (id, pasted text, extra session state, expected error fragment or None)
    ("whitespace-only", "   \n\t  \n ", {}, None),
    (
        "special-token-inside-text",
        "hi<|endoftext|>hi<|endoftext|>hi",
        {appstate.keys.PLAYER_SPECIALS: "<|endoftext|>"},
        None,
    ),
    (
        "special-token-is-the-whole-text",
        "<|endoftext|><|endoftext|>",
        {appstate.keys.PLAYER_SPECIALS: "<|endoftext|>"},
        "empty (after removing special tokens)",
    ),
    (
        "empty-matching-regex",
        "ab c ab c",
        {appstate.keys.PLAYER_PATTERN: "custom", appstate.keys.PLAYER_CUSTOM_PATTERN: "x*"},
        None,
    ),
    (
        "empty-custom-regex",
        "ab c ab c",
        {appstate.keys.PLAYER_PATTERN: "custom", appstate.keys.PLAYER_CUSTOM_PATTERN: ""},
        "custom pre-tokenizer is empty",
    ),
    (
        "catastrophic-regex",
        CATASTROPHIC_TEXT,
        {appstate.keys.PLAYER_PATTERN: "custom", appstate.keys.PLAYER_CUSTOM_PATTERN: CATASTROPHIC},
        "took longer than",
    ),
    ("injection", INJECTION, {}, None),
    ("injection-as-special-token", f"hi {INJECTION} hi", {appstate.keys.PLAYER_SPECIALS: "<script>"}, None),
]


@pytest.mark.parametrize("text, state, fragment", [r[1:] for r in PLAYER_ROWS], ids=[r[0] for r in PLAYER_ROWS])
def test_player_bad_input(text, state, fragment):
    at = player_app()
    t0 = time.perf_counter()
    paste(at, text, **state)
    assert time.perf_counter() - t0 < 45  # a hang detector: at most 4.6 s measured (the catastrophic row, load 11)
    no_traceback(at)
    if fragment is None:
        assert not at.error, messages(at)
        assert player_at(at) == 0
        assert P.drawn(at)  # the text is drawn
    else:
        assert fragment in messages(at), messages(at)
    assert_no_markup(at)
    player_still_works(at)


def test_player_special_token_inside_text_is_one_special_span():
    at = paste(player_app(), "hi<|endoftext|>hi", **{appstate.keys.PLAYER_SPECIALS: "<|endoftext|>"})
    run, w = P.run_payload(at), P.window(at)
    assert [run["label"][w["id"][i]] for i in w["sp"]] == ["<|endoftext|>"]
    assert [run["label"][i] for _, i in P.drawn(at)] == ["h", "i", "<|endoftext|>", "h", "i"]


def test_player_injection_is_shown_as_text():
    at = paste(player_app(), INJECTION)
    shown = "".join(P.texts(at))  # labels: the player draws them with textContent
    assert INJECTION.replace(" ", "·") in shown  # every character drawn, as text (· marks a space)


@pytest.mark.parametrize("merges", [0, 1, 255, 10**9])
def test_player_merges_box_out_of_range(merges):
    """The merges box (vocabulary = 256 + merges + specials) keeps its value in 1..MAX_APP_VOCAB-256."""
    at = player_app()
    at.number_input(key=appstate.keys.PLAYER_MERGES).set_value(merges).run()
    no_traceback(at)
    value = at.number_input(key=appstate.keys.PLAYER_MERGES).value
    assert 1 <= value <= appstate.sources.MAX_APP_VOCAB - 256
    assert not at.error and player_at(at) == 0
    vocab = at.session_state[appstate.keys.PLAYER_RUN][1].vocab_size
    assert 257 <= vocab <= appstate.sources.MAX_APP_VOCAB
    player_still_works(at)


def test_player_lone_surrogate_gives_a_message():
    """A browser cannot send a lone surrogate (its text goes out as UTF-8); through session state the
    player still answers with a message instead of a traceback."""
    at = player_app()
    at.session_state[appstate.keys.PLAYER_SOURCE] = "paste"
    at.session_state[appstate.keys.PLAYER_PASTE] = "ab\ud800cd"
    at.run()
    no_traceback(at)
    assert "surrogate" in messages(at)
    at.session_state[appstate.keys.PLAYER_PASTE] = "fine text"
    player_still_works(at)


# ====================================================================================================
# Tokenize page (AppTest)

TOKENIZE_ROWS = [
    # (id, text, expected message fragment or None)
    ("empty", "", None),
    ("whitespace-only", "  \n\t \n", None),
    ("special-tokens-inside-text", "a<|endoftext|>b<|im_start|>c", None),
    ("injection", INJECTION, None),
    # within the box's 1,000,000 characters but 1.2 MB (the box itself refuses longer pastes whole)
    ("over-1-MB", "ü " * 400_000, "over the 1,000,000-byte limit"),
]


@pytest.mark.parametrize("text, fragment", [r[1:] for r in TOKENIZE_ROWS], ids=[r[0] for r in TOKENIZE_ROWS])
def test_tokenize_bad_input(text, fragment):
    at = page_app(TOKENIZE)
    at.multiselect(key="tok_choice").set_value(["trained"]).run()
    T.type_text(at, text, timeout=120)
    assert_said(at, fragment)
    assert all("<script" not in h and "<img" not in h for h in T.heads(at) + [T.mail(at)["compare"]])
    # still usable: another text is tokenized
    T.type_text(at, "hello world")
    no_traceback(at)
    assert not errors(at) and T.columns(at)[0]["ids"] and T.settings(at)["text"] == "hello world"


def test_tokenize_trace_word_injection_and_empty():
    at = page_app(TOKENIZE)
    at.text_input(key="tok_trace_word").input(INJECTION[:60]).run()
    no_traceback(at)
    assert not at.error
    assert_no_markup(at)


def test_tokenize_lone_surrogate_in_state():
    at = AppTest.from_file("../app.py", default_timeout=60)
    at.run()
    at.session_state[appstate.keys.TOK_TEXT] = "ab\ud800cd"
    at.switch_page(TOKENIZE).run()
    no_traceback(at)
    assert T.settings(at)["text"] == "ab\ufffdcd" == T.text(at)
    T.type_text(at, "hello")
    no_traceback(at)
    assert not at.error


# ====================================================================================================
# Pre-tokenizer lab (AppTest)

LAB_ROWS = [
    # (id, text, custom pattern, expected message fragment or None)
    ("empty-text", "", "", None),
    ("whitespace-only", " \n\t  ", "", None),
    ("empty-matching-regex", "ab c", "x*", "No branch matched any text"),
    ("catastrophic-regex", CATASTROPHIC_TEXT, CATASTROPHIC, "took longer than"),
    ("injection", INJECTION, "", None),
    ("injection-in-regex", "abc", "<script>alert(1)</script>", "No branch matched any text"),
    ("over-1-MB", "ü " * 400_000, "", "over the 1,000,000-byte limit"),
]


@pytest.mark.parametrize("text, custom, fragment", [r[1:] for r in LAB_ROWS], ids=[r[0] for r in LAB_ROWS])
def test_lab_bad_input(text, custom, fragment):
    at = page_app(LAB)
    at.multiselect(key="lab_patterns").set_value(["gpt4"]).run()
    t0 = time.perf_counter()
    at.text_area(key="lab_text").input(text)
    at.text_input(key="lab_custom").input(custom).run(timeout=120)
    assert time.perf_counter() - t0 < 60  # a hang detector: at most 1.8 s measured (load 11)
    assert_said(at, fragment)
    at.text_input(key="lab_custom").input("").run()
    at.text_area(key="lab_text").input("it's 2024").run()
    no_traceback(at)
    assert not errors(at) and at.dataframe[0].value.to_dict("records")[0]["chunks"] >= 3


# ====================================================================================================
# Tampered URL parameters (more values than test_app_classroom.py; and pages that take none)


@pytest.mark.parametrize(
    "query, words",
    [
        ({"lesson": "9" * 400}, ["lesson=", "1–8"]),
        ({"lesson": "1", "step": "1e309"}, ["step='1e309'", "not a whole number"]),
        ({"lesson": "2", "step": "\x00"}, ["not a whole number"]),
        ({"lesson": "<script>alert(1)</script>"}, ["not a whole number"]),
        ({"presenter": "<img src=x onerror=alert(2)>"}, ["presenter="]),
    ],
    ids=["huge-lesson", "float-step", "nul-step", "script-lesson", "img-presenter"],
)
def test_classroom_tampered_link(query, words):
    at = AppTest.from_file("../app.py", default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    at.switch_page(CLASSROOM).run()
    no_traceback(at)
    notes = "\n".join(b for b in html_bodies(at) if 'class="cls-notes"' in b)
    for w in words:
        assert w in htmllib.unescape(notes), (w, notes)
    assert_no_markup(at)
    at.button(key="lesson_next").click().run()
    no_traceback(at)


@pytest.mark.parametrize("page", [None, TOKENIZE, LAB])
def test_pages_without_parameters_ignore_tampered_ones(page):
    at = AppTest.from_file("../app.py", default_timeout=60)
    for k, v in {"lesson": "<script>", "step": "-1", "text": INJECTION, "vocab": "1e99"}.items():
        at.query_params[k] = v
    at.run()
    if page:
        at.switch_page(page).run()
    no_traceback(at)
    assert not at.error
    assert_no_markup(at)


# ====================================================================================================
# Issue 14 on the Tokenize, Pre-tokenizer lab and Token tax pages: uploads (names, nesting, duplicate ranks,
# limits before parsing, a bounded cache), Markdown in user strings, what was typed surviving page switches,
# the page guard. Real uploads through a browser: tests/browser/test_hardening_browser.py.

import base64  # noqa: E402

from views.messages import message_html  # noqa: E402

TOKEN_TAX = "app_pages/token_tax.py"
#: The file name of issue 14's report: bold, an image from a foreign host, a live link (if rendered).
MD_NAME = "**mdbold** ![i](https:example.invalid) [hl](https:example.invalid)"
NESTED = b"[" * 100_000 + b"]" * 100_000


def _tiktoken_lines(extra: list[tuple[bytes, int]]) -> bytes:
    lines = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)]
    lines += [f"{base64.b64encode(t).decode()} {r}" for t, r in extra]
    return ("\n".join(lines) + "\n").encode()


UPLOAD_ROWS = [
    # (id, files as uploaded, fragments the one message must hold)
    (
        "nested-array-tokenizer-json",
        [("tokenizer.json", NESTED)],
        ["tokenizer.json", "nests arrays or objects too deeply"],
    ),
    ("nested-object-json", [("deep.json", b'{"a":' * 100_000 + b"1" + b"}" * 100_000)], ["deep.json", "too deeply"]),
    (
        "nested-vocab-json-with-merges",
        [("vocab.json", NESTED), ("merges.txt", b"#version: 0.2\n")],
        ["vocab.json", "too deeply"],
    ),
    ("not-json", [("my tok.json", b"{nope")], ["my tok.json is not valid JSON"]),
    ("empty", [("tokenizer.json", b"")], ["tokenizer.json is empty"]),
    ("binary-tiktoken", [("x.tiktoken", b"\x89PNG\r\n\x1a\n\xff\xfe")], ["x.tiktoken, line 1"]),
    (
        "duplicate-rank",
        [("dup.tiktoken", _tiktoken_lines([(b"ab", 256), (b"ab", 257)]))],
        ["dup.tiktoken, line 258", "already has rank 256"],
    ),
    ("vocab-without-merges", [("vocab.json", b"{}")], ["vocab.json needs the merges.txt"]),
    ("markdown-name", [(MD_NAME + ".json", b"{nope")], [MD_NAME + ".json is not valid JSON"]),
    ("too-many-lines", [("huge.tiktoken", b"QQ== 0\n" * 1_000_000)], ["huge.tiktoken holds about 1,000,001 entries"]),
    (
        "too-many-json-strings",
        [("huge.json", b'{"model": {"merges": [' + b'"a b",' * 1_000_000 + b'"a b"]}}')],
        ["huge.json holds about 1,000,003 entries", "300,000 tokens"],
    ),  # 1,000,001 merges + 2 keys
    # issue 21, item 2: a number past Python's 4,300 digits for int() (was the raw "Exceeds the limit" text)
    (
        "5000-digit-number",
        [("tokenizer.json", b'{"model": {"type": "BPE", "vocab": {"a": ' + b"1" * 5000 + b"}}}")],
        ["tokenizer.json holds a number too long to read (more than 4,300 digits)"],
    ),
    (
        "5000-digit-vocab-json",
        [("vocab.json", b'{"a": ' + b"7" * 5000 + b"}"), ("merges.txt", b"#version: 0.2\n")],
        ["vocab.json holds a number too long to read"],
    ),
    (
        "5000-digit-minbpe-id",
        [("m.model", b"minbpe v1\n\n1\n<s> " + b"1" * 5000 + b"\n")],
        ["m.model, line 4: expected 'special_token id'"],
    ),
]


@pytest.mark.parametrize("files, fragments", [r[1:] for r in UPLOAD_ROWS], ids=[r[0] for r in UPLOAD_ROWS])
def test_tokenize_upload_errors_name_the_users_file(files, fragments, monkeypatch):
    groups, notes = appstate.vocabs.group_files(files)
    assert len(groups) == 1 and not notes
    if "too-many" in fragments[0] or "holds about" in fragments[0]:
        # refused by counting, before any parsing
        monkeypatch.setattr(bpe, "loads", lambda *a, **k: pytest.fail("parsed a file over the limits"))
    with pytest.raises(appstate.vocabs.UploadError) as info:
        appstate.vocabs.load_upload(groups[0])
    msg = str(info.value)
    for fragment in fragments:
        assert fragment in msg, msg
    assert "/tmp" not in msg and str(ROOT) not in msg and "Traceback" not in msg and "RecursionError" not in msg
    assert "Exceeds the limit" not in msg and "set_int_max_str_digits" not in msg
    # shown as escaped HTML: nothing of the name renders
    box = message_html(msg, "error")
    assert "<strong>" not in box and "<img" not in box and "<a " not in box and "<em>" not in box
    # asked again (a rerun), the cached refusal answers without parsing again
    monkeypatch.setattr(bpe, "loads", lambda *a, **k: pytest.fail("parsed a refused file again"))
    with pytest.raises(appstate.vocabs.UploadError, match=re.escape(fragments[0])):
        appstate.vocabs.load_upload(groups[0])


def test_tokenize_upload_over_the_byte_limit_is_refused_by_its_size():
    assert "big.json is 40.0 MB; tokenizer files up to 32 MB" in appstate.vocabs.refuse_size("big.json", 40 * 2**20)
    assert appstate.vocabs.refuse_size("ok.json", appstate.vocabs.MAX_UPLOAD_FILE_BYTES) == ""


def test_tokenize_uploads_never_overwrite_each_other():
    a = bpe.dumps(bpe.train("aaaa bbbb aaaa", 260).tokenizer(), "hf")["tokenizer.json"]
    b = bpe.dumps(bpe.train("cccc dddd cccc cccc", 262).tokenizer(), "hf")["tokenizer.json"]
    merges = bpe.dumps(bpe.train("eeee ffff eeee", 259).tokenizer(), "merges")
    groups, notes = appstate.vocabs.group_files(
        [
            ("tokenizer.json", a),
            ("tokenizer.json", b),
            ("vocab.json", merges["vocab.json"]),
            ("merges.txt", merges["merges.txt"]),
            ("bpe_lab.json", merges["bpe_lab.json"]),
        ]
    )
    assert [g.label for g in groups] == [
        "tokenizer.json",
        "tokenizer.json (2)",
        "vocab.json + merges.txt",
    ] and not notes
    assert len({g.digest for g in groups}) == 3
    toks = [appstate.vocabs.load_upload(g) for g in groups]
    assert [t.vocab_size for t in toks] == [260, 262, 259]
    assert toks[0].encode("aaaa") != toks[1].encode("aaaa") or toks[0].vocab_size != toks[1].vocab_size


def test_tokenize_upload_cache_is_keyed_by_content_and_bounded_in_bytes():
    cache = appstate.vocabs._BytesLRU(budget=1000)
    loads: list[str] = []

    def loader(name: str, size: int):
        def load():
            loads.append(name)
            return bpe.train("ab ab", 257).tokenizer(), size

        return load

    cache.get_or_load("a", loader("a", 400))
    cache.get_or_load("b", loader("b", 400))
    cache.get_or_load("a", loader("a", 400))  # same content: no second load
    assert loads == ["a", "b"]
    cache.get_or_load("c", loader("c", 400))  # over 1000 bytes: the least recently used ("b") goes
    assert "b" not in cache and "a" in cache and "c" in cache and cache.used == 800 <= cache.budget
    for n in range(20):  # 20 more uploads: never above the budget
        cache.get_or_load(f"x{n}", loader(f"x{n}", 300))
        assert cache.used <= cache.budget
    assert len(cache) == 3
    # the estimate for a real upload: GPT-4's vocabulary as a tokenizer.json is counted near 52 MB
    tok = bpe.load_pretrained("cl100k_base")
    est = appstate.vocabs.estimate_bytes(tok, appstate.vocabs.UploadGroup(("t.json",), (b"x" * 6_000_000,)))
    assert 40e6 < est < 70e6
    assert appstate.vocabs.UPLOAD_CACHE_BYTES <= 400 * 2**20


def test_tokenize_upload_names_never_reach_markdown():
    tok = bpe.train("hello hello world", 262).tokenizer()
    group = appstate.vocabs.UploadGroup(
        (MD_NAME + ".json",), (bpe.dumps(tok, "hf")["tokenizer.json"],), MD_NAME + ".json"
    )
    appstate.vocabs.load_upload(group)
    key = "upload:" + group.digest
    at = AppTest.from_file("../app.py", default_timeout=60)
    at.run()
    at.session_state["tok_uploads"] = [{"digest": group.digest, "label": group.label}]
    at.session_state["tok_choice"] = [key]
    at.session_state[appstate.keys.TOK_TEXT] = MD_NAME
    at.switch_page(TOKENIZE).run()
    no_traceback(at)
    for element in [*at.markdown, *at.caption, *at.error, *at.warning, *at.info, *at.success]:
        assert "mdbold" not in element.value, element.value
    titles = [b for b in html_bodies(at) + T.heads(at) if 'class="tokv-title"' in b]
    assert titles and all("**mdbold** ![i](https:example.invalid)" in htmllib.unescape(t) for t in titles)
    assert_no_markup(at)
    assert all("<a " not in b and "<strong>" not in b for b in html_bodies(at))


def test_lab_regex_errors_never_reach_markdown():
    at = page_app(LAB)
    at.text_input(key="lab_custom").input("(" + MD_NAME).run()
    no_traceback(at)
    for element in [*at.markdown, *at.caption, *at.error, *at.warning, *at.info]:
        assert "mdbold" not in element.value, element.value
    assert any("does not compile" in m for m in page_messages(at, "error"))
    assert all("<a " not in b and "<strong>" not in b for b in html_bodies(at))
    # a regex that compiles: the column draws the user's pattern's branches, escaped
    at.text_input(key="lab_custom").input(r"\*\*mdbold\*\*|\w+|\s+|[^\w\s]+").run()
    at.text_area(key="lab_text").input(MD_NAME).run()
    no_traceback(at)
    for element in [*at.markdown, *at.caption, *at.error, *at.warning, *at.info]:
        assert "mdbold" not in element.value, element.value
    assert_no_markup(at)
    assert all("<a " not in b and "<strong>" not in b and "<img" not in b for b in html_bodies(at))


def test_lab_text_custom_regex_and_choices_survive_page_switches():
    at = page_app(LAB)
    at.text_area(key="lab_text").input("kept across pages").run()
    at.text_input(key="lab_custom").input(r"\w+|\s+").run()
    at.multiselect(key="lab_patterns").set_value(["tekken", "gpt4o"]).run()
    for page in (TOKENIZE, TOKEN_TAX, CLASSROOM):
        at.switch_page(page).run()
        at.switch_page(LAB).run()
        no_traceback(at)
        assert at.text_area(key="lab_text").value == "kept across pages"
        assert at.text_input(key="lab_custom").value == r"\w+|\s+"
        assert at.multiselect(key="lab_patterns").value == ["tekken", "gpt4o"]


GUARDED = [
    # (page, title in the message, module and function to break)
    (TOKENIZE, "Tokenize", "views.tokenize_payload", "compare_html"),  # inside the view's fragment
    (LAB, "Pre-tokenizer lab", "views.lab", "chunks_html"),
    (TOKEN_TAX, "Token tax", "views.token_tax_views", "tax_figure"),
    ("app_pages/player.py", "Merge player", "views.player", "source_summary"),
    ("app_pages/player.py", "Merge player", "views.player", "merges_frame"),  # inside the player's fragment
    (CLASSROOM, "Classroom", "views.lessons.model", "step_html"),
]


@pytest.mark.parametrize("page, title, module, name", GUARDED, ids=[g[1] for g in GUARDED])
def test_page_guard_turns_an_unexpected_error_into_a_short_message(page, title, module, name, monkeypatch, caplog):
    import importlib

    def boom(*args, **kwargs):
        raise RuntimeError(f"{ROOT}/secret <b>bold</b>")

    monkeypatch.setattr(importlib.import_module(module), name, boom)
    with caplog.at_level("ERROR", logger="bpe_lab.pages"):
        at = page_app(page)
    no_traceback(at)
    shown = " ".join(e.value for e in at.error)
    assert f"Something went wrong on the {title} page" in shown
    assert str(ROOT) not in shown and "bold" not in shown and "RuntimeError" not in shown
    ref = re.search(r"reference ([0-9a-f]{8})", shown).group(1)
    logged = [r for r in caplog.records if ref in r.getMessage()]
    assert logged and logged[0].exc_info and "secret" in str(logged[0].exc_info[1])
    monkeypatch.undo()
    at.run()
    no_traceback(at)
    assert not any("Something went wrong" in e.value for e in at.error)


def test_page_guard_lets_streamlits_own_control_flow_through():
    """st.stop / st.rerun / st.switch_page raise BaseException subclasses: the guard must not swallow them."""
    from streamlit.runtime.scriptrunner_utils.exceptions import RerunException, StopException

    calls = []

    @appstate.pageguard.guarded("test")
    def control(exc):
        calls.append(1)
        raise exc

    with pytest.raises(StopException):
        control(StopException())
    with pytest.raises(RerunException):
        control(RerunException(None))
    assert calls == [1, 1]


@pytest.mark.parametrize(
    "args", [["info", "nested.json"], ["encode", "-t", "nested.json", "hi"]], ids=["info", "encode"]
)
def test_cli_deeply_nested_tokenizer_json_is_a_one_line_error(tmp_path, args):
    (tmp_path / "nested.json").write_bytes(NESTED)
    err = one_line_error(cli(*args, cwd=tmp_path))
    assert "nested.json nests arrays or objects too deeply" in err and "internal error" not in err


# ====================================================================================================
# Issue 14 on the Merge player, the Classroom and the shared sidebar: training in a worker process (one
# deadline, the app's limit), the catastrophic link, Markdown in upload names, the page guard, what was
# chosen surviving page switches. The browser twins (two sessions at once, a real upload, foreign requests
# aborted): tests/browser/test_hardening_browser.py. The worker machinery itself: tests/test_trainjobs.py.

#: issue 14's share link: ("a" * 21 + "!<|s|>") x 70 with (a|a)+$ and the special token <|s|>. Before, every
#: piece between special tokens had its own 2 s limit (74 s of server CPU); now one deadline for the request.
CATASTROPHIC_LINK = {"text": ("a" * 21 + "!<|s|>") * 70, "pattern": CATASTROPHIC, "special": "<|s|>"}
#: issue 14's file name: bold, an image and a link to a foreign host if Markdown rendered it
MD_NAME = "**mdbold** ![i](https:example.invalid) [hl](https:example.invalid).txt"


def test_the_app_plugs_the_guarded_pattern_runner_into_the_library():
    """The library runs a custom regex in the caller's process (tests/test_pattern_runner.py); the app does
    not: importing ``appstate`` (every page does) plugs in guard's runner, so a regex typed, in a link or in an
    uploaded tokenizer.json runs in a worker process killed at its deadline (tests/test_isolation.py)."""
    check = (
        "import bpe.deadline, guard.runner; "
        "assert bpe.deadline.get_pattern_runner() is not guard.runner.guarded; "
        "import appstate; print(bpe.deadline.get_pattern_runner() is guard.runner.guarded)"
    )
    out = subprocess.run(
        [sys.executable, "-c", check],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert out.returncode == 0 and out.stdout.strip() == "True", out.stderr


def link_app(query: dict) -> AppTest:
    at = AppTest.from_file("../app.py", default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    return at


def test_catastrophic_link_with_special_tokens_stops_within_one_deadline():
    at = link_app(CATASTROPHIC_LINK)
    t0 = time.perf_counter()
    at.run()
    elapsed = time.perf_counter() - t0
    no_traceback(at)
    shown = errors(at)
    assert len(shown) == 1 and "took longer than 2" in shown[0] and "catastrophic backtracking" in shown[0], shown
    assert not at.error  # in the escaped box, not a Markdown one
    assert not P.mounted(at)
    # one deadline of ~2 s for the whole request (the 70 pieces used to get 2 s each: 74 s); a hang detector
    # over 5x the 2.4 s measured (load 11), far below what 70 limits would take
    assert elapsed < 30, elapsed
    # the page still works: a registry pattern on the same text trains
    at.selectbox(key="player_pattern").set_value("gpt4").run()
    no_traceback(at)
    assert not errors(at) and P.mounted(at)


def test_training_past_the_apps_limit_is_stopped_with_a_message_naming_it(monkeypatch):
    """The app's cap on one training (appstate.runs.TRAIN_SECONDS): the worker is killed, the page says what to do."""
    at = player_app()
    monkeypatch.setattr(appstate.runs, "TRAIN_SECONDS", 0.5)
    # no pre-tokenizer on 400 KB: the position backend, a few seconds for 3,000 merges
    words = " ".join(f"w{i % 9973}x{i % 7}" for i in range(60_000))
    paste(at, words, **{appstate.keys.PLAYER_PATTERN: "none", appstate.keys.PLAYER_MERGES: 3000})
    no_traceback(at)
    shown = " ".join(errors(at))
    assert "stopped after 0.5 s, the app’s limit for one training" in shown, shown
    assert "fewer merges" in shown and "shorter text" in shown
    assert not appstate.runs.run_cache()._pending  # its worker is gone, nothing left running for it
    monkeypatch.undo()
    player_still_works(at)


@pytest.mark.parametrize(
    "data, fragment", [(b"", "is empty"), (b"\xff\xfe\x00bad", "is not UTF-8 text")], ids=["empty", "not-utf8"]
)
def test_player_upload_named_like_markdown_is_shown_as_text(data, fragment):
    """Issue 14 item 3: the name reaches the page only in an escaped box (the browser twin uploads for real)."""
    at = player_app()
    at.session_state[appstate.keys.PLAYER_SOURCE] = "upload"
    at.session_state[appstate.keys.PLAYER_UPLOAD_TEXT] = appstate.sources.read_upload(FakeUpload(MD_NAME, data))
    at.run()
    no_traceback(at)
    shown = errors(at)
    assert any(f"{MD_NAME} {fragment}" in e for e in shown), shown
    for element in [*at.markdown, *at.caption, *at.error, *at.warning, *at.info, *at.success]:
        assert "mdbold" not in element.value and "example.invalid" not in element.value
    for body in html_bodies(at):
        assert "<strong>mdbold" not in body and "<img" not in body and "<a " not in body
    assert_no_markup(at)
    player_still_works(at)


def test_player_names_and_tokens_never_reach_markdown():
    """A special token, a custom regex and a typed token are user strings too: escaped boxes or plain labels."""
    at = player_app()
    at.selectbox(key="player_pattern").set_value("custom").run()
    at.text_input(key="player_custom_pattern").input("(**x** [hl](https:example.invalid)").run()
    no_traceback(at)
    assert any("not a valid regex" in e for e in errors(at)) and not at.error
    at.selectbox(key="player_pattern").set_value("gpt4").run()
    at.text_input(key=appstate.keys.PLAYER_TREE_QUERY).input("**mdbold** :smile:").run()
    assert any("no token spells '**mdbold** :smile:'" in w for w in page_messages(at, "warning"))
    assert not at.warning
    for element in [*at.markdown, *at.caption, *at.error, *at.warning, *at.info, *at.success]:
        assert "mdbold" not in element.value


def test_player_quiz_labels_are_made_literal_for_markdown():
    """The quiz's options render Markdown and hold the user's tokens: every Markdown character is escaped."""
    at = paste(player_app(), "**a** **a** **a** :x: :x:", **{appstate.keys.PLAYER_PATTERN: "none"})
    at.toggle(key="player_quiz").set_value(True).run()
    no_traceback(at)
    labels = list(P.quiz_radio(at).options)
    assert labels and all(re.search(r"(?<!\\)\*", label) is None for label in labels), labels
    assert any("\\*" in label for label in labels)
    assert all(":x:" not in label for label in labels)  # a word joiner after every colon


def test_page_guard_on_the_shared_sidebar(monkeypatch, caplog):
    """app.py's shared part (link, presenter, sidebar) under its own guard: the page below still runs."""
    import views.theme

    class Broken(dict):
        def __iter__(self):
            raise RuntimeError(f"{ROOT}/secret")

    monkeypatch.setattr(views.theme, "PALETTE_LABELS", Broken(views.theme.PALETTE_LABELS))
    with caplog.at_level("ERROR", logger="bpe_lab.pages"):
        at = page_app(CLASSROOM)
    no_traceback(at)
    shown = " ".join(e.value for e in at.error)
    assert "Something went wrong on the BPE Lab page" in shown and str(ROOT) not in shown
    assert at.button(key="lesson_next") is not None  # the page itself ran
    monkeypatch.undo()
    at.run()
    assert not any("Something went wrong" in e.value for e in at.error)


def _player_choices(at: AppTest) -> dict:
    return {
        k: at.session_state[k]
        for k in (
            appstate.keys.PLAYER_SOURCE,
            appstate.keys.PLAYER_SAMPLE,
            appstate.keys.PLAYER_MERGES,
            appstate.keys.PLAYER_PATTERN,
            appstate.keys.PLAYER_CUSTOM_PATTERN,
            appstate.keys.PLAYER_LEVEL,
            appstate.keys.PLAYER_TIE_BREAK,
            appstate.keys.PLAYER_NFC,
            appstate.keys.PLAYER_SPECIALS,
            appstate.keys.PLAYER_TREE_QUERY,
            appstate.keys.PLAYER_WINDOW,
            "player_quiz",
        )
    }


def test_player_choices_survive_page_switches():
    at = player_app()
    at.selectbox(key="player_sample").set_value("english").run()
    at.number_input(key="player_merges").set_value(70).run()
    at.selectbox(key="player_pattern").set_value("custom").run()
    at.text_input(key="player_custom_pattern").input(r"\w+|\W+").run()
    at.radio(key="player_level").set_value("char").run()
    at.selectbox(key="player_tie_break").set_value("first").run()
    at.checkbox(key="player_nfc").check().run()
    at.text_input(key="player_specials").input("<|eot|>").run()
    at.toggle(key="player_quiz").set_value(True).run()
    P.quiz_radio(at).set_value(1).run()
    at.text_input(key=appstate.keys.PLAYER_TREE_QUERY).input("257").run()
    no_traceback(at)
    assert not errors(at), errors(at)
    before = _player_choices(at)
    assert "257" in before[appstate.keys.PLAYER_TREE_QUERY]
    for page in (TOKENIZE, LAB, CLASSROOM):
        at.switch_page(page).run()
        at.switch_page("app_pages/player.py").run()
        no_traceback(at)
        assert _player_choices(at) == before
        assert P.quiz_radio(at).value == 1  # an answer picked, not checked yet
        assert at.text_input(key=appstate.keys.PLAYER_TREE_QUERY).value == "257"
        assert at.text_input(key="player_custom_pattern").value == r"\w+|\W+"
    # a pasted text and the upload's "train on the first 2 MB" too
    paste(at, "kept text kept text kept", **{appstate.keys.PLAYER_PATTERN: "gpt4"})
    at.switch_page(CLASSROOM).run()
    at.switch_page("app_pages/player.py").run()
    assert at.text_area(key=appstate.keys.PLAYER_PASTE).value == "kept text kept text kept"


def test_player_upload_and_its_truncation_survive_page_switches():
    at = player_app()
    big = ("word " * 450_000).encode()  # 2.25 MB: over the 2 MB training limit
    at.session_state[appstate.keys.PLAYER_SOURCE] = "upload"
    at.session_state[appstate.keys.PLAYER_UPLOAD_TEXT] = appstate.sources.read_upload(FakeUpload("big.txt", big))
    at.run()
    at.checkbox(key=appstate.keys.PLAYER_UPLOAD_TRUNCATE).check().run()
    no_traceback(at)
    assert P.mounted(at) and not errors(at)
    at.switch_page(TOKENIZE).run()
    at.switch_page("app_pages/player.py").run()
    no_traceback(at)
    assert at.checkbox(key=appstate.keys.PLAYER_UPLOAD_TRUNCATE).value is True
    assert P.mounted(at) and not errors(at)
    assert any("big.txt" in m for m in page_messages(at, "info"))  # says which file it still trains on


def test_classroom_choices_survive_page_switches():
    at = page_app(CLASSROOM)
    for _ in range(40):  # to the first step with a quiz
        if any((r.key or "").startswith("quiz_pick_") for r in at.radio):
            break
        at.button(key="lesson_next").click().run()
    radio = next(r for r in at.radio if (r.key or "").startswith("quiz_pick_"))
    radio.set_value(1).run()
    lesson, step = at.session_state["classroom_lesson"], at.session_state["classroom_step"]
    for page in (TOKENIZE, "app_pages/player.py", LAB):
        at.switch_page(page).run()
        at.switch_page(CLASSROOM).run()
        no_traceback(at)
        assert (at.session_state["classroom_lesson"], at.session_state["classroom_step"]) == (lesson, step)
        assert at.radio(key=radio.key).value == 1
        assert at.selectbox(key="lesson_pick").value == lesson


# ====================================================================================================
# Issue 21: compile bombs. `regex` writes a counted repeat out in full, so a 20-byte link used to grow the
# server by gigabytes (a{1000000000}: 21 GB, killed). bpe.patterns.check_size refuses such a pattern before
# compiling. The exact repros of the issue; memory cases run in a subprocess under `ulimit -v` (3 GB, the
# issue's own safe repro), never in the test runner's process.

BOMBS = ["a{10000000}", "a{1000000000}", "(a{1000}){1000}", "(?:a+){100000}", "x{" + "9" * 5000 + "}"]


def limited_python(code: str, *args: str, limit_kb: int = 3_000_000) -> subprocess.CompletedProcess:
    """``python -c code args`` in a fresh interpreter whose address space is capped (``ulimit -v``)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        ["bash", "-c", f'ulimit -v {limit_kb}; exec "$0" -c "$1" "${{@:2}}"', sys.executable, code, *args],
        capture_output=True,
        env=env,
        timeout=120,
        cwd=ROOT,
    )


@pytest.mark.parametrize("pattern", BOMBS, ids=["1e7", "1e9", "nested", "plus-1e5", "5000-digits"])
def test_library_refuses_compile_bombs_before_compiling(pattern):
    # peak memory of this interpreter (VmHWM: reset by exec, unlike ru_maxrss, which keeps the forking pytest's)
    code = (
        "import sys, re, bpe\n"
        "try:\n    bpe.get_pattern(sys.argv[1]); print('COMPILED')\n"
        "except bpe.PatternError as e:\n    print('REFUSED', e)\n"
        "print(re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1))\n"
    )
    result = limited_python(code, pattern)
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


def limited_cli(*args: str, cwd: Path, limit_kb: int = 1_000_000, timeout: float = 60) -> subprocess.CompletedProcess:
    """``python -m bpe args`` in ``cwd`` with its address space capped, stdin empty."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    env.pop("BPE_LAB_DEBUG", None)
    return subprocess.run(
        ["bash", "-c", f'ulimit -v {limit_kb}; exec "$0" -m bpe "$@"', sys.executable, *args],
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


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
