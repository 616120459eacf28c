"""The Tokenize view's conversation (appstate.tokenize_live) without a server: what an edit does to the page's
text, what a browser is mailed for the version it says it has, and tampered reports ignored.

Session state is a plain dict here (the module reads it through ``tokenize_live.ss``). Expected ids come from
tiktoken's cl100k_base; the splices are worked by hand from them.
"""

from __future__ import annotations

import pytest
from tiktoken_reference import tiktoken_encoding
from tokenize_driver import unpacked

import appstate.tokenize_live as live
import bpe
from appstate.keys import TOK_CHOICE, TOK_TEXT, TOK_VIEW
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
    text, fresh, seq, tid = live.settings_text()
    assert (text, fresh, tid) == ("hello", True, f"{seq}:0")
    # an edit: where (code points), what was removed, what was inserted, from which version to which
    ss[TOK_VIEW] = {"edit": {"seq": seq, "base": 0, "n": 1, "at": 5, "del": "", "ins": " world", "have": {}}}
    live.on_edit()
    assert ss[TOK_TEXT] == "hello world" and live.settings_text() == ("hello world", False, seq, f"{seq}:1")
    ss[TOK_VIEW] = {"edit": {"seq": seq, "base": 1, "n": 2, "at": 0, "del": "hello", "ins": "😀 héllo", "have": {}}}
    live.on_edit()
    assert ss[TOK_TEXT] == "😀 héllo world"
    ss[TOK_VIEW] = {"edit": {"seq": seq, "base": 2, "n": 3, "at": 3, "del": "é", "ins": "e", "have": {}}}
    live.on_edit()  # (at 3 counts the emoji as one character, as Python does)
    assert ss[TOK_TEXT] == "😀 hello world" and live.settings_text()[3] == f"{seq}:3"
    # a preset replaced the text: an edit typed into the old one (its seq) is dropped
    ss[TOK_TEXT] = "a preset"
    text2, _, seq2, _ = live.settings_text()
    assert seq2 == seq + 1 and text2 == "a preset"
    ss[TOK_VIEW] = {"edit": {"seq": seq, "base": 3, "n": 4, "at": 0, "del": "", "ins": "late typing", "have": {}}}
    live.on_edit()
    assert ss[TOK_TEXT] == "a preset"


def test_an_edit_that_does_not_fit_the_servers_text_asks_for_the_whole_text(ss):
    ss[TOK_TEXT] = "hello"
    _, _, seq, _ = live.settings_text()
    # a version Python does not hold (an edit lost on the way): nothing applied, the mail asks for a resync
    ss[TOK_VIEW] = {"edit": {"seq": seq, "base": 4, "n": 5, "at": 0, "del": "", "ins": "x", "have": {}}}
    live.on_edit()
    assert ss[TOK_TEXT] == "hello" and live.mail([], f"{seq}:0")["resync"] is True
    # removed characters that are not there: the same
    ss[TOK_VIEW] = {"edit": {"seq": seq, "base": 0, "n": 1, "at": 1, "del": "xyz", "ins": "", "have": {}}}
    live.on_edit()
    assert ss[TOK_TEXT] == "hello"
    # the whole text: taken, and the resync is over
    ss[TOK_VIEW] = {"edit": {"seq": seq, "n": 6, "text": "hello there", "have": {}}}
    live.on_edit()
    assert ss[TOK_TEXT] == "hello there" and "resync" not in live.mail([], f"{seq}:6")
    # the same edit sent again (its answer was lost): taken once
    ss[TOK_VIEW] = {"edit": {"seq": seq, "base": 6, "n": 7, "at": 11, "del": "", "ins": "!", "have": {}}}
    live.on_edit()
    live.on_edit()
    assert ss[TOK_TEXT] == "hello there!"


def test_a_reload_restores_the_browsers_text_and_settings_once(ss):
    ss[TOK_TEXT] = "the preset"
    _, fresh, seq, _ = live.settings_text()
    assert fresh
    live.allow_restore({TOK_CHOICE: ["cl100k_base"], "tok_special": True, "tok_chars": "whole"})
    keep = {TOK_CHOICE: ["o200k_base", "llama3"], "tok_special": False, "tok_chars": 3, "not_allowed": "x"}
    ss[TOK_VIEW] = {
        "edit": {"seq": seq, "n": 1, "text": "PERSISTCHECK hello there", "restore": True, "keep": keep, "have": {}}
    }
    live.on_edit()
    assert ss[TOK_TEXT] == "PERSISTCHECK hello there" and live.take_restored() and not live.take_restored()
    # the allowed settings with a value of the right type come back; nothing else
    assert ss[TOK_CHOICE] == ["o200k_base", "llama3"] and ss["tok_special"] is False
    assert "tok_chars" not in ss and "not_allowed" not in ss
    # a session with a text of its own is not overwritten by a browser's saved one
    _, fresh, _, _ = live.settings_text()
    assert not fresh
    ss[TOK_VIEW] = {"edit": {"seq": seq, "n": 2, "text": "older", "restore": True, "keep": {}, "have": {}}}
    live.on_edit()
    assert ss[TOK_TEXT] == "PERSISTCHECK hello there"


@pytest.mark.parametrize(
    "edit",
    [
        {"text": 5, "n": 1},  # not text
        {"base": 0, "n": 1, "at": "0", "del": "", "ins": "x"},  # a position as a string
        {"base": 0, "n": 1, "at": 0, "del": 5, "ins": "x"},  # removed: not text
        {"base": 0, "n": 1, "at": 99, "del": "", "ins": "x"},  # past the end
        {"text": "x", "n": "1e9"},  # a number as a string
        {"text": "x", "n": True},  # a bool is no edit number
        {"text": "x", "n": -1},
        {"text": "x", "n": 2**60},
        "not a dict",
    ],
    ids=["text-int", "at-str", "del-int", "at-past-end", "n-str", "n-bool", "n-negative", "n-huge", "not-dict"],
)
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
    assert live.pending_ask()["n"] == 7 and live.pending_ask() is None  # answered once
    ss[TOK_VIEW] = {"edit": {"have": {"cl100k_base": "0", 3: 1, "o": -1}}}
    assert live._have() == {}


def test_the_browser_is_sent_a_splice_from_the_version_it_has(ss):
    ref = tiktoken_encoding("cl100k_base")
    a, b = "The cat sat on the mat.", "The cat sat on the red mat."
    first = live.mail([("cl100k_base", "cl100k_base", "<h4>x</h4>", tokens(a))], "1:0")
    col = unpacked(first["cols"][0])
    assert col["base"] is None and col["ids"] == ref.encode(a) and col["v"] == 0  # whole: it has nothing
    # the browser has version 0: the edit is sent as a splice (hand-worked from tiktoken's ids)
    ss[TOK_VIEW] = {"edit": {"have": {"cl100k_base": 0}}}
    second = unpacked(live.mail([("cl100k_base", "cl100k_base", "<h4>x</h4>", tokens(b))], "1:1")["cols"][0])
    old, new = ref.encode(a), ref.encode(b)
    at = next(i for i, (x, y) in enumerate(zip(old, new)) if x != y)
    assert (second["base"], second["at"], second["del"]) == (0, at, 0)
    assert second["ids"] == new[at : at + len(new) - len(old)] == ref.encode(" red")
    assert old[:at] + second["ids"] + old[at:] == new
    # the browser has it: an unchanged column is its version only
    ss[TOK_VIEW] = {"edit": {"have": {"cl100k_base": 1}}}
    third = live.mail([("cl100k_base", "cl100k_base", "<h4>x</h4>", tokens(b))], "1:2")["cols"][0]
    assert third == {"key": "cl100k_base", "slug": "cl100k_base", "v": 1}
    # a version the server no longer knows (or none): the whole column again
    ss[TOK_VIEW] = {"edit": {"have": {"cl100k_base": 99}}}
    fourth = unpacked(live.mail([("cl100k_base", "cl100k_base", "<h4>x</h4>", tokens(b))], "1:3")["cols"][0])
    assert fourth["base"] is None and fourth["ids"] == new


def test_a_big_paste_is_previewed_with_the_start_of_each_columns_ids(ss):
    # appstate/tokenize_preview.py: a paste of more than PREVIEW_MIN characters mails every column's first
    # tokens before the whole text is encoded; they are tiktoken's first ids of the whole text, marked preview
    import appstate.tokenize_preview as preview
    from appstate.tokenize_state import Column

    tok = bpe.load_pretrained("cl100k_base")
    col = Column("cl100k_base", tok, "GPT-4", "cl100k_base")
    small = "hello world " * 100
    assert not preview.wanted([col], small, True)
    live.encoded(col.key, small, True, col.title, tok)  # (the column holds the small text)
    big = small + "The paste: naïve café, 12345 東京. " * 10_000
    assert preview.wanted([col], big, True)
    first = preview.tokens(col, big, True)
    raw = live.wire(preview.mail([(col.key, "cl100k_base", "<h4>GPT-4</h4>", first)], "1:5"))
    got = live.unwire(raw)
    assert got["preview"] is True and got["tid"] == "1:5" and got["order"] == ["cl100k_base"]
    ids = got["cols"][0]["ids"].tolist()
    want = tiktoken_encoding("cl100k_base").encode(big, allowed_special="all")
    assert 500 < len(ids) < len(want) and ids == want[: len(ids)]
    assert len(raw) < 20_000  # (the first screen, not the megabyte)
    live.encoded(col.key, big, True, col.title, tok)
    assert not preview.wanted([col], big + "!", True)  # (then an edit is an edit)
    assert "Counting" in preview.counting_html(big, first)
