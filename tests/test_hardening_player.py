"""Issue 14 on the Merge player, the Classroom and the shared sidebar: training in a worker process (one
deadline, the app's limit), the catastrophic link, Markdown in upload names, the page guard, what was chosen
surviving page switches. The browser twins: two sessions at once and the catastrophic link in
tests/browser/test_guard_browser.py, a real upload and foreign requests aborted in
tests/browser/test_hardening_browser.py. The worker machinery itself: tests/test_trainjobs.py. The coverage
map of every hardening row: tests/test_hardening.py."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import player_driver as P
import pytest
from hardening_kit import (
    CATASTROPHIC,
    CLASSROOM,
    LAB,
    ROOT,
    TOKENIZE,
    assert_no_markup,
    errors,
    link_app,
    no_traceback,
    page_app,
    paste,
    player_app,
    player_still_works,
)
from helpers import FakeUpload, html_bodies, page_messages
from streamlit.testing.v1 import AppTest

import appstate.keys
import appstate.pageguard
import appstate.runs
import appstate.sources
import appstate.vocabs

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
