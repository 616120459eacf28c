"""The Pre-tokenizer lab in a real browser: presets, screenshots, escaping, bad custom patterns.

Screenshots go to tests/artifacts/ (look at them). With ``BPE_DOCS_SHOTS=1`` the contractions one is also
written to docs/lab.png for the README.
"""

from __future__ import annotations

import re
import time

import pytest
from helpers import PRESETS
from playwright.sync_api import expect

from .conftest import (
    applied,
    choose_preset,
    docs_shot,
    insert_big,
    lines_of,
    open_path,
    refused_aloud,
    shot,
    submit_text,
    wait_idle,
)


def open_lab(page, server_url):
    return open_path(page, server_url, "/pretokenizer", ".lab-view")


def choose(page, title: str) -> None:
    choose_preset(page, "lab_preset", title)


def set_custom(page, pattern: str) -> None:
    box = page.locator(".st-key-lab_custom input")
    box.fill(pattern)
    box.press("Enter")
    applied(page, "lab_custom")
    wait_idle(page)


@pytest.fixture(scope="module")
def presets_page(browser, server_url):
    """One page of the lab for the presets' variants (a page load is ~3 s of Chromium CPU): the first finds
    Contractions there on a fresh load (the default), each other picks its own."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 2200})  # (conftest's ``page``'s)
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    yield open_lab(pg, server_url)
    ctx.close()


@pytest.mark.parametrize("key, title", [("contractions", "Contractions"), ("multilingual", "Multilingual")])
def test_preset_split_by_six_patterns(presets_page, key, title):
    page = presets_page
    if page.locator(".st-key-lab_text textarea").input_value() != PRESETS[key]["text"]:
        choose(page, title)
    expect(page.locator(".st-key-lab_text textarea")).to_have_value(PRESETS[key]["text"])  # (drawn: a state)
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
    submit_text(
        page, "lab_text", '<b>bold</b><script>alert("x")</script><img src=x onerror="alert(1)">', ".lab-view", "bold"
    )
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
    assert time.time() - t0 < 30  # a hang detector: about 1 s of regex time plus a rerun, over 5x
    shot(page, "lab-custom-timeout")
    set_custom(page, r"\w+|\s+")
    assert page.locator(".st-key-lab_col_custom .lab-view").count() == 1
    # a pattern that only matches the empty string: everything flagged, nothing hangs
    set_custom(page, "(?=a)")
    assert page.locator(".st-key-lab_col_custom .lab-unmatched").count() >= 1
    assert "No branch matched any text" in page.locator(".st-key-lab_col_custom").inner_text()


def swatch(page, kind: str) -> str:
    """The background color of the key's swatch for ``kind``."""
    return (
        page.locator(".lab-key .lab-kind")
        .filter(has_text=re.compile(rf"^\s*{re.escape(kind)}\s*$"))
        .locator(".lab-sw")
        .evaluate("e => getComputedStyle(e).backgroundColor")
    )


def test_custom_pattern_is_colored_as_the_key_says(page, server_url):
    """Issue 25, item 9: the Custom pattern's branch 1 (letters) was drawn in the key's "contraction" color.
    Each branch of the placeholder pattern takes its kind's color, the one GPT-4's same kind has."""
    open_lab(page, server_url)
    set_custom(page, r"\p{L}+|\p{N}+|[^\s\p{L}\p{N}]+|\s+")
    submit_text(page, "lab_text", "Hello world 2025!", ".st-key-lab_col_custom .lab-view", "2025")

    def bg(col: str, text: str) -> str:
        return (
            page.locator(f".st-key-lab_col_{col} .lab-view .lab-chunk")
            .filter(has_text=text)
            .first.evaluate("e => getComputedStyle(e).backgroundColor")
        )

    assert swatch(page, "letters") != swatch(page, "contraction")
    assert bg("custom", "Hello") == swatch(page, "letters") == bg("gpt4", "Hello")
    assert bg("custom", "2025") == swatch(page, "digits") == bg("gpt4", "202")
    assert bg("custom", "!") == swatch(page, "punctuation") == bg("gpt4", "!")
    assert page.locator('.lab-key .lab-kind[data-kind="other"]').count() == 0  # every branch is one kind
    legend = page.locator(".st-key-lab_col_custom .lab-legend").text_content()  # in a closed expander
    assert "your branch 1: letters" in legend and "your branch 2: digits" in legend
    shot(page, "lab-custom-colors")
    # a branch of several kinds (\w: letters and digits) has a color of its own, named in the key
    set_custom(page, r"\w+|\s+")
    other = page.locator('.lab-key .lab-kind[data-kind="other"] .lab-sw')
    assert other.count() == 1
    assert bg("custom", "Hello") == other.evaluate("e => getComputedStyle(e).backgroundColor")
    assert bg("custom", "Hello") not in {swatch(page, k) for k in ("contraction", "letters", "digits", "punctuation")}


def test_preset_box_names_no_preset_once_the_text_is_replaced(page, server_url):
    """Issue 25, item 9: after the text is replaced, the preset box no longer names the old preset."""
    open_lab(page, server_url)
    box = page.locator(".st-key-lab_preset input[role=combobox]")
    assert box.input_value() == "Contractions"
    submit_text(page, "lab_text", "A text of my own, typed here.", ".lab-view", "typed")
    page.wait_for_function("() => document.querySelector('.st-key-lab_preset input').value === 'Your own text'")
    shot(page, "lab-own-text")
    choose(page, "Multilingual")  # a preset again: named, and its text in the box
    expect(box).to_have_value("Multilingual")
    expect(page.locator(".st-key-lab_text textarea")).to_have_value(PRESETS["multilingual"]["text"])


def test_a_big_paste_lands_at_once_and_one_over_the_limit_is_refused_aloud(page, server_url):
    """A tester's 1,000,000-character paste hung the tab ~125 s: text inserted as typing (an IME's or a keyboard
    app's commit, ``Input.insertText``) goes into a text area one line at a time, quadratic. The box's script
    (views/big_paste.py) puts it in at once (1-3 s here at load 6-13); one over the box's limit is refused with a
    sentence (Streamlit's max_chars dropped it without a word)."""
    open_lab(page, server_url)
    box = page.locator(".st-key-lab_text textarea")
    big = lines_of(1_000_000)
    insert_big(page, "lab_text", big, 30)  # a hang detector: 1-3 s measured, 40-125 s without
    box.press("Control+Enter")
    applied(page, "lab_text")
    wait_idle(page, 60_000)
    expect(page.get_by_text("The text has 1,000,000 characters")).to_be_visible()
    assert box.input_value() == big  # nothing lost, nothing changed (line ends included)
    # one character more than the box takes: refused, and said so; the text stays as it was
    refused_aloud(
        page,
        "lab_text",
        big,
        "Nothing was pasted: with it the text would have 1,000,001 characters, over this box's limit of 1,000,000.",
    )
    shot(page, "lab-big-paste-refused")
    note = page.locator('.bpe-big-paste[data-box="lab_text"]')
    box.press("Control+A")
    page.keyboard.insert_text("short again")  # a change the box takes clears the note
    expect(note).to_have_text("")
    expect(box).to_have_value("short again")
