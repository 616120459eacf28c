"""Bad input on each page through AppTest (issue 7, "Hardening"): the Merge player, Tokenize and the
Pre-tokenizer lab, row by row, and tampered URL parameters. Every row ends with a clear message (or a correct
result), the page still usable and no traceback. The coverage map of every row: tests/test_hardening.py."""

from __future__ import annotations

import html as htmllib
import time

import player_driver as P
import pytest
import tokenize_driver as T
from hardening_kit import (
    CATASTROPHIC,
    CATASTROPHIC_TEXT,
    CLASSROOM,
    INJECTION,
    LAB,
    TOKENIZE,
    assert_no_markup,
    assert_said,
    errors,
    messages,
    no_traceback,
    page_app,
    paste,
    player_app,
    player_at,
    player_still_works,
)
from helpers import html_bodies
from streamlit.testing.v1 import AppTest

import appstate.keys
import appstate.pageguard
import appstate.runs
import appstate.sources
import appstate.vocabs

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
