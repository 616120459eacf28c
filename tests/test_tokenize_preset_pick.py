"""The preset box's pick (appstate.widgets) without a server (issue 31, "Nothing lost"): a change of the box that
arrives in a run of fragments only, or of a box the server has replaced since (Tokenize draws a new box each
time the server sets it), is the browser's stale copy of the box, never a pick, and leaves the user's text
alone; a change of the box drawn, in a run of the whole page, is a pick and replaces the text.

Session state is a plain dict here (the module reads it through ``widgets.ss``); the run's context is a
stand-in with the one field the pick reads. The preset texts come from sample_texts/presets.json.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from helpers import PRESETS

import appstate.widgets as widgets

TEXT, PRESET = "tok_text", "tok_preset"
BOX0, BOX1 = "tok_preset_box0", "tok_preset_box1"  # the first box, and the one drawn after the server set it
TYPED = PRESETS["prose"]["text"] + " and what the user typed"


@pytest.fixture
def ss(monkeypatch):
    state: dict = {}
    monkeypatch.setattr(widgets, "ss", state)
    return state


def run(monkeypatch, fragments: list[str] | None) -> None:
    ctx = SimpleNamespace(fragment_ids_this_run=fragments)
    monkeypatch.setattr(widgets, "get_script_run_ctx", lambda suppress_warning=False: ctx)


def test_a_stale_prose_sent_with_an_edit_keeps_the_typed_text(ss, monkeypatch):
    # the server had set the box to "Your own text"; a report of the view (a fragment's run) still says "Prose"
    ss.update({TEXT: TYPED, PRESET: widgets.OWN_TEXT, "tok_preset_boxes": 1, BOX1: "prose"})
    run(monkeypatch, ["live_view"])
    widgets._pick_preset("tokenize", BOX1, PRESET, TEXT, None)
    assert ss[TEXT] == TYPED
    assert ss[BOX1] == ss[PRESET] == widgets.OWN_TEXT  # the box goes back to what the text is


def test_a_stale_value_naming_the_texts_own_preset_is_kept(ss, monkeypatch):
    # the text is a preset's again (the user typed it back): the box names it, whatever the stale copy said
    ss.update({TEXT: PRESETS["code"]["text"], PRESET: "prose"})
    run(monkeypatch, ["live_view"])
    widgets._pick_preset("lab", PRESET, PRESET, TEXT, None)  # (the lab's box: one widget key, its value's)
    assert ss[TEXT] == PRESETS["code"]["text"] and ss[PRESET] == "code"


@pytest.mark.parametrize("fragments", [None, ["live_view"]])
def test_a_change_of_a_box_no_longer_drawn_is_no_pick(ss, monkeypatch, fragments):
    # a setting changed (a run of the whole page) or an edit sent before the new box reached the browser: its
    # copy of the first box says "Prose" (Streamlit only calls back when that differs from the server's)
    ss.update({TEXT: TYPED, PRESET: widgets.OWN_TEXT, "tok_preset_boxes": 1, BOX0: "multilingual", BOX1: "own"})
    run(monkeypatch, fragments)
    widgets._pick_preset("tokenize", BOX0, PRESET, TEXT, None)
    assert ss[TEXT] == TYPED and ss[PRESET] == widgets.OWN_TEXT


@pytest.mark.parametrize("fragments", [None, []])
def test_a_pick_in_a_run_of_the_whole_page_replaces_the_text(ss, monkeypatch, fragments):
    ss.update({TEXT: TYPED, PRESET: widgets.OWN_TEXT, "tok_preset_boxes": 1, BOX1: "multilingual"})
    run(monkeypatch, fragments)
    widgets._pick_preset("tokenize", BOX1, PRESET, TEXT, None)
    assert ss[TEXT] == PRESETS["multilingual"]["text"] and ss[PRESET] == "multilingual"


def test_a_pick_outside_any_run_replaces_the_text(ss, monkeypatch):
    # (no script run context at all: a bare call, as AppTest's own runs have one)
    ss.update({TEXT: TYPED, PRESET: widgets.OWN_TEXT, BOX0: "prose"})
    monkeypatch.setattr(widgets, "get_script_run_ctx", lambda suppress_warning=False: None)
    widgets._pick_preset("tokenize", BOX0, PRESET, TEXT, None)
    assert ss[TEXT] == PRESETS["prose"]["text"]
