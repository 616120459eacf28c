"""The Tokenize view's conversation (appstate.tokenize_live) without a server: what an edit does to the page's
text, what a browser is mailed for the version it says it has, and tampered reports ignored.

Session state is a plain dict here (the module reads it through ``tokenize_live.ss``). Expected ids come from
tiktoken's cl100k_base; the splices are worked by hand from them.
"""
from __future__ import annotations

import pytest
from tiktoken_reference import tiktoken_encoding

import appstate.tokenize_live as live
import bpe
from appstate.keys import TOK_TEXT, TOK_VIEW
from views.encoded import encode_view
from views.tokenize_payload import column_tokens


@pytest.fixture
def ss(monkeypatch):
    state: dict = {}
    monkeypatch.setattr(live, "ss", state)
    return state


def tokens(text: str):
    tok = bpe.load_pretrained("cl100k_base")
    return column_tokens(tok, encode_view(tok, text), text)


def test_an_edit_becomes_the_pages_text_and_a_preset_wins_over_an_old_edit(ss):
    ss[TOK_TEXT] = "hello"
    text, pushed, seq, tid = live.settings_text()
    assert (text, pushed, tid) == ("hello", "hello", f"{seq}:0")
    ss[TOK_VIEW] = {"edit": {"text": "hello world", "n": 1, "seq": seq, "have": {}}}
    live.on_edit()
    assert ss[TOK_TEXT] == "hello world" and live.settings_text() == ("hello world", "hello", seq, f"{seq}:1")
    # a preset replaced the text: an edit typed into the old one (its seq) is dropped
    ss[TOK_TEXT] = "a preset"
    _, pushed, seq2, _ = live.settings_text()
    assert seq2 == seq + 1 and pushed == "a preset"
    ss[TOK_VIEW] = {"edit": {"text": "late typing", "n": 2, "seq": seq, "have": {}}}
    live.on_edit()
    assert ss[TOK_TEXT] == "a preset"


@pytest.mark.parametrize("edit", [
    {"text": 5, "n": 1},                       # not text
    {"text": "x", "n": "1e9"},                 # a number as a string
    {"text": "x", "n": True},                  # a bool is no edit number
    {"text": "x", "n": -1},
    {"text": "x", "n": 2 ** 60},
    "not a dict",
], ids=["text-int", "n-str", "n-bool", "n-negative", "n-huge", "not-dict"])
def test_a_tampered_edit_is_ignored(ss, edit):
    ss[TOK_TEXT] = "kept"
    _, _, seq, _ = live.settings_text()
    if isinstance(edit, dict):
        edit = {**edit, "seq": seq}
    ss[TOK_VIEW] = {"edit": edit}
    live.on_edit()
    assert ss[TOK_TEXT] == "kept"


def test_a_tampered_click_and_versions_are_ignored(ss):
    ss[TOK_VIEW] = {"ask": {"key": "x", "index": 0, "n": "7"}}
    assert live.pending_ask() is None
    ss[TOK_VIEW] = {"ask": {"key": "x", "index": 0, "n": 7}}
    assert live.pending_ask()["n"] == 7 and live.pending_ask() is None        # answered once
    ss[TOK_VIEW] = {"edit": {"have": {"cl100k_base": "0", 3: 1, "o": -1}}}
    assert live._have() == {}


def test_the_browser_is_sent_a_splice_from_the_version_it_has(ss):
    ref = tiktoken_encoding("cl100k_base")
    a, b = "The cat sat on the mat.", "The cat sat on the red mat."
    first = live.mail([("cl100k_base", "cl100k_base", "<h4>x</h4>", tokens(a))], "1:0")
    col = first["cols"][0]
    assert col["base"] is None and col["ids"] == ref.encode(a) and col["v"] == 0     # whole: it has nothing
    # the browser has version 0: the edit is sent as a splice (hand-worked from tiktoken's ids)
    ss[TOK_VIEW] = {"edit": {"have": {"cl100k_base": 0}}}
    second = live.mail([("cl100k_base", "cl100k_base", "<h4>x</h4>", tokens(b))], "1:1")["cols"][0]
    old, new = ref.encode(a), ref.encode(b)
    at = next(i for i, (x, y) in enumerate(zip(old, new)) if x != y)
    assert (second["base"], second["at"], second["del"]) == (0, at, 0)
    assert second["ids"] == new[at:at + len(new) - len(old)] == ref.encode(" red")
    assert old[:at] + second["ids"] + old[at:] == new
    # the browser has it: an unchanged column is its version only
    ss[TOK_VIEW] = {"edit": {"have": {"cl100k_base": 1}}}
    third = live.mail([("cl100k_base", "cl100k_base", "<h4>x</h4>", tokens(b))], "1:2")["cols"][0]
    assert third == {"key": "cl100k_base", "slug": "cl100k_base", "v": 1}
    # a version the server no longer knows (or none): the whole column again
    ss[TOK_VIEW] = {"edit": {"have": {"cl100k_base": 99}}}
    fourth = live.mail([("cl100k_base", "cl100k_base", "<h4>x</h4>", tokens(b))], "1:3")["cols"][0]
    assert fourth["base"] is None and fourth["ids"] == new
