"""The Compare page through Streamlit's AppTest: the verdict, the diagnosis and the share link.

Expected merges come from the tutorials' loop written in ``test_compare`` (its own GPT-2 regex and merge
step), never from the page's library calls.
"""

from __future__ import annotations

import html as htmllib
import re
from urllib.parse import parse_qs, urlsplit

from helpers import open_app, page_html, page_messages, share_link
from test_compare import wrong_trainer

import appstate.keys as K
from appstate import compare_state
from appstate.sources import samples
from bpe.compare_causes import CAUSES

PAGE = "app_pages/compare.py"
GPT2 = {K.PLAYER_PATTERN: "gpt2", K.PLAYER_MERGES: 40}


def training_text() -> str:
    """The whole sample, as a student's trainer reads the file (the player holds its last tenth out; not here)."""
    return samples()[0].text


def verdict(at) -> tuple[str, int | None]:
    body = page_html(at)
    m = re.search(r'class="cmp-verdict[^"]*" data-cause="([a-z_]+)"(?: data-first="(\d+)")?', body)
    assert m, "no verdict on the page"
    return m.group(1), int(m.group(2)) if m.group(2) else None


def test_default_b_is_another_tie_rule_and_the_page_says_where_and_why():
    at = open_app(PAGE, state=GPT2)
    text = training_text()
    right, first_seen = wrong_trainer(text, 40), wrong_trainer(text, 40, rule="first")
    part = next(i for i, (p, q) in enumerate(zip(right, first_seen)) if p != q)
    cause, number = verdict(at)
    assert (cause, number) == ("tie_rule", part + 1)
    body = htmllib.unescape(page_html(at))
    assert f"They agree on the first {part} merges; merge {part + 1} is where they part." in body
    assert "Most likely: Another tie rule" in body and "A tie: both occur" in body
    assert at.session_state[K.CMP_K] == part + 1  # the tokens are shown where they part
    assert not at.exception


def test_the_same_settings_are_identical_for_all_merges():
    at = open_app(PAGE, state=GPT2)
    at.selectbox(key=K.CMP_TIE).set_value("lexical").run()
    assert verdict(at) == ("identical", None)
    assert "Identical for all 40 merges." in page_html(at)


def test_b_without_a_pre_tokenizer_is_diagnosed():
    at = open_app(PAGE, state=GPT2)
    at.selectbox(key=K.CMP_TIE).set_value("lexical").run()
    at.selectbox(key=K.CMP_PATTERN).set_value("none").run()
    cause, number = verdict(at)
    text = training_text()
    whole = wrong_trainer(text, 40, split_regex=False)
    part = next(i for i, (p, q) in enumerate(zip(wrong_trainer(text, 40), whole)) if p != q)
    assert (cause, number) == ("pretokenization", part + 1)


def test_the_course_preset_and_a_share_link_that_restores_it():
    at = open_app(PAGE, state=GPT2)
    at.selectbox(key=K.CMP_PRESET).set_value("course").run()
    assert "The course rule" in page_html(at)
    url = share_link(at)
    query = {k: v[-1] for k, v in parse_qs(urlsplit(url).query).items()}
    assert query["preset"] == "course" and query["b"] == "settings" and query["b_tie"] == "first"
    again = open_app(PAGE, query=query)
    assert again.session_state[K.CMP_PRESET] == "course" and again.session_state[K.CMP_TIE] == "first"
    assert verdict(again) == verdict(at)


def test_a_bad_link_value_gets_a_note_and_the_default():
    at = open_app(PAGE, query={"preset": "<b>nope</b>", "b_tie": "sideways"})
    body = page_html(at)
    assert "&lt;b&gt;nope" in body and "<b>nope" not in body
    assert at.session_state[K.CMP_PRESET] == "player"
    assert not at.exception


def test_upload_mode_asks_for_a_file():
    at = open_app(PAGE, state=GPT2)
    at.radio(key=K.CMP_SIDE).set_value("upload").run()
    assert "Upload the merges your trainer learned" in page_html(at)
    assert "latin-1" in " ".join(c.value for c in at.caption)


def test_every_check_my_bpe_preset_trains_and_compares():
    at = open_app(PAGE, state=GPT2)
    for key, preset in compare_state.PRESETS.items():
        at.selectbox(key=K.CMP_PRESET).set_value(key).run()
        assert not at.exception, key
        assert preset.label in page_html(at) or key == "player"
        cause, _ = verdict(at)
        assert cause in CAUSES, (key, cause)
        assert not page_messages(at), (key, page_messages(at))


def test_the_slider_shows_both_tokenizations_at_merge_k():
    at = open_app(PAGE, state=GPT2)
    at.slider(key=K.CMP_K).set_value(0).run()
    shown = training_text()[:1500]
    heads = re.findall(r'<div class="cmp-side">([AB]) after (\d+) merges: ([\d,]+) tokens', page_html(at))
    # no merge yet: one token per byte of the text shown, on both sides
    assert heads == [("A", "0", f"{len(shown.encode()):,}"), ("B", "0", f"{len(shown.encode()):,}")]
    at.slider(key=K.CMP_K).set_value(40).run()
    heads = re.findall(r'<div class="cmp-side">([AB]) after (\d+) merges: ([\d,]+) tokens', page_html(at))
    assert [h[:2] for h in heads] == [("A", "40"), ("B", "40")]
    assert all(int(h[2].replace(",", "")) < len(shown.encode()) for h in heads)


def test_b_that_learns_nothing_says_so_and_why():
    """The review of 29 Nov: ``/compare?b_min_freq=100`` said "Identical for all 0 merges (A has 256 more)"."""
    at = open_app(PAGE, state=GPT2, query={"b_min_freq": "1000"})
    body = htmllib.unescape(page_html(at))
    assert "Identical for all 0 merges" not in body
    m = re.search(
        r"B learned no merge, A 40: nothing to compare\. B stopped: the best pair occurs (\d+) times, "
        r"below min_frequency=1000\.",
        body,
    )
    assert m and int(m.group(1)) < 1000, body[:2000]
    assert not at.exception


def test_b_settings_read_as_the_other_pages_name_them():
    """The review of 29 Nov: B's pre-tokenizers were ids (gpt4, qwen2...) with Qwen3.5, DeepSeek-V3 and tekken
    missing, the tie rule "first seen" where the player says "First seen"."""
    import bpe

    at = open_app(PAGE, state=GPT2)
    options = at.selectbox(key=K.CMP_PATTERN).options
    for name in ("gpt4", "gpt4o", "qwen35", "deepseek_v3", "tekken"):
        assert bpe.PATTERNS[name].label in options, (name, options)
    assert "gpt4" not in options and "Lexical" in at.selectbox(key=K.CMP_TIE).options
    at.selectbox(key=K.CMP_PATTERN).set_value("deepseek_v3").run()
    assert not at.exception and verdict(at)[0] in CAUSES
