"""The Pre-tokenizer lab in a real browser: presets, screenshots, escaping, bad custom patterns.

Screenshots go to tests/artifacts/ (look at them). With ``BPE_DOCS_SHOTS=1`` the contractions one is also
written to docs/lab.png for the README.
"""
from __future__ import annotations

import time

import pytest

from helpers import PRESETS

from .conftest import choose_preset, docs_shot, open_path, shot, submit_text, wait_idle


def open_lab(page, server_url):
    return open_path(page, server_url, "/pretokenizer", ".lab-view")


def choose(page, title: str) -> None:
    choose_preset(page, "lab_preset", title)


def set_custom(page, pattern: str) -> None:
    box = page.locator(".st-key-lab_custom input")
    box.fill(pattern)
    box.press("Enter")
    page.wait_for_timeout(200)
    wait_idle(page)


@pytest.mark.parametrize("key, title", [("contractions", "Contractions"), ("multilingual", "Multilingual")])
def test_preset_split_by_six_patterns(page, server_url, key, title):
    open_lab(page, server_url)
    if key != "contractions":
        choose(page, title)
    assert page.locator(".st-key-lab_text textarea").input_value() == PRESETS[key]["text"]
    views = page.locator(".lab-view")
    assert views.count() == 6
    # every chunk says which branch matched it, in words
    first = page.locator(".st-key-lab_col_gpt4 .lab-chunk").first
    assert first.get_attribute("title").startswith("branch ")
    # the chunks of a view put back together give the text (whitespace marks aside)
    chunks = page.locator(".st-key-lab_col_gpt2 .lab-view .lab-chunk").all_inner_texts()
    joined = "".join(chunks).replace("·", " ").replace("↵\n", "\n").replace("↵", "\n").replace("→", "\t")
    assert joined == PRESETS[key]["text"]
    # marks against the reference (GPT-4) exist where GPT-2 cuts differently
    assert page.locator(".st-key-lab_col_gpt2 .lab-extra").count() > 0
    assert page.locator(".st-key-lab_table").count() == 1
    path = shot(page, f"lab-{key}")
    assert path.stat().st_size > 50_000
    if key == "contractions":
        docs_shot(page, "lab")


def test_markup_in_the_text_is_shown_literally(page, server_url):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    open_lab(page, server_url)
    submit_text(page, "lab_text", '<b>bold</b><script>alert("x")</script><img src=x onerror="alert(1)">',
                ".lab-view", "bold")
    views = page.locator(".lab-view")
    for i in range(views.count()):
        v = views.nth(i)
        assert v.locator("b, script, img").count() == 0
        assert "<b>bold</b>" in v.inner_text().replace("\n", "")
    assert dialogs == []
    shot(page, "lab-xss")


def test_custom_pattern_errors_and_timeout(page, server_url):
    open_lab(page, server_url)
    set_custom(page, "(")
    err = page.locator(".st-key-lab_col_custom .bpe-msg[data-kind='error']")
    assert "does not compile: missing ) at position 1" in err.inner_text()
    shot(page, "lab-custom-error")
    # catastrophic backtracking: stopped after about a second, the page stays usable
    t0 = time.time()
    choose(page, "Catastrophic backtracking")
    page.wait_for_selector(".st-key-lab_col_custom .bpe-msg[data-kind='error']")
    assert "took longer than" in page.locator(".st-key-lab_col_custom .bpe-msg[data-kind='error']").inner_text()
    assert time.time() - t0 < 30
    shot(page, "lab-custom-timeout")
    set_custom(page, r"\w+|\s+")
    assert page.locator(".st-key-lab_col_custom .lab-view").count() == 1
    # a pattern that only matches the empty string: everything flagged, nothing hangs
    set_custom(page, "(?=a)")
    assert page.locator(".st-key-lab_col_custom .lab-unmatched").count() >= 1
    assert "No branch matched any text" in page.locator(".st-key-lab_col_custom").inner_text()
