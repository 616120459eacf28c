"""Nothing typed into Tokenize is lost when the server's replies come late (issue 31, "Nothing lost").

Fresh-clone CI runs on a busy machine lost the first characters typed into the Tokenize box: the first edit of a
preset's text makes the page say "Your own text" in the preset box (a full run sets the box's value); an edit
the browser sent before that run reached it carried the box's old value, "Prose", so Streamlit saw the box
change back and picked the preset again: the text became the preset's and the view replaced the box with it.

Here the machine's lag is made on purpose and measured by nothing: every message from the server reaches the
page's scripts ``LAG_MS`` later, in order (:data:`LAG_JS`, installed before Streamlit's scripts), from the
first keystroke on. Then the user types, clicks a token, picks a preset as the issue's tests do. Every wait is
on the view's state (conftest's ``tokenize_settled``), never a fixed time.
"""

from __future__ import annotations

import pytest
from helpers import PRESETS
from tiktoken_reference import tiktoken_encoding

from .conftest import TOK_BOX, choose_preset, open_path, shot_at, tokenize_settled, wait_idle
from .lagging import LAG_MS, lag, lagged

PROSE = PRESETS["prose"]["text"]
#: what the preset box shows (a combobox's text is its input's value)
PRESET_SHOWN = """() => { const box = document.querySelector('.st-key-tok_preset');
  return [box.innerText, ...[...box.querySelectorAll('input')].map(i => i.value)].join(' | '); }"""


def view_state(page) -> dict:
    """The text in the box and, per column slug, the ids the view holds and the text it drew them on."""
    return page.locator(".tkz").evaluate(
        """el => { const v = el.__tkz; const out = {text: v.box.value, cols: {}};
           for (const c of v.cols.values()) out.cols[c.slug] = {ids: c.ids.slice(), text: v.textOf(c)};
           return out; }"""
    )


VIEWPORT = {"width": 1400, "height": 2200}  # (conftest's ``page``'s)


@pytest.fixture(scope="module")
def lag_page(browser, server_url):
    """One page of Tokenize with the lag script in place (off) for the module's tests: each starts it again
    from the Prose preset (:func:`open_lagging`). (A page load costs Chromium ~3 s of CPU; what each test
    asserts starts from the same state a fresh load gives: the preset's text, the preset box saying "Prose",
    the lag off until the caret is in the box.)"""
    ctx = browser.new_context(viewport=VIEWPORT)
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    lagged(page)
    open_path(page, server_url, "/tokenize", ".tkz .tokv-spans", timeout_ms=90_000)
    tokenize_settled(page, 90_000)
    yield page
    ctx.close()


def open_lagging(page):
    """Tokenize on the Prose preset with the lag script in place (off), the caret at the box's end, then the lag
    turned on: what the test types next meets a late server. Returns the box.

    The page is the module's: whatever a test before left (the lag on, messages held, a trace open, another
    text, a viewport) is undone first, and the Prose preset picked again when the text is not its own, so the
    first edit of the preset's text makes the page say "Your own text" as on a fresh load."""
    lag(page, 0)
    page.wait_for_function("() => !window.__bpeLag.held", timeout=60_000)
    page.keyboard.press("Escape")
    page.set_viewport_size(VIEWPORT)
    wait_idle(page, 120_000)
    tokenize_settled(page, 120_000)
    if view_state(page)["text"] != PROSE or "Prose" not in page.evaluate(PRESET_SHOWN):
        choose_preset(page, "tok_preset", "Prose")
        tokenize_settled(page, 90_000)
    shows(page, PROSE)
    assert "Prose" in page.evaluate(PRESET_SHOWN)
    assert page.evaluate("() => window.__bpeLag.ms") == 0  # (the lag script is in place, off)
    box = page.locator(TOK_BOX)
    box.click()
    page.keyboard.press("Control+End")
    lag(page, LAG_MS)
    return box


def shows(page, text: str) -> None:
    """The box holds ``text``; every column drew it, GPT-4's and GPT-4o's with tiktoken's own ids."""
    state = view_state(page)
    assert state["text"] == text
    for slug, col in state["cols"].items():
        assert col["text"] == text, slug
    for name in ("cl100k_base", "o200k_base"):
        assert state["cols"][name]["ids"] == tiktoken_encoding(name).encode_ordinary(text), name


def settle_unlagged(page) -> None:
    """Wait until the view shows its text in every column and the page's runs are over, then lift the lag and
    wait again (the last full run drawn: the preset box says what the text is)."""
    tokenize_settled(page, 120_000)
    wait_idle(page, 120_000)
    lag(page, 0)
    page.wait_for_function("() => !window.__bpeLag.held", timeout=60_000)
    wait_idle(page, 120_000)
    tokenize_settled(page, 120_000)


def test_typing_into_a_preset_on_a_lagging_connection_keeps_every_character(lag_page):
    page = lag_page
    typed = " Typed, never submitted: naïve 😀"
    open_lagging(page)
    page.keyboard.type(typed, delay=15)
    settle_unlagged(page)
    shows(page, PROSE + typed)
    assert "Your own text" in page.evaluate(PRESET_SHOWN)
    # the preset box says "Your own text", the box and the columns end with what was typed
    shot_at(page, "tokenize-lag-typed-1280", ".st-key-tok_preset", 1280, 720)


def test_a_burst_of_edits_on_a_lagging_connection_keeps_every_edit(lag_page):
    page = lag_page
    box = open_lagging(page)
    page.keyboard.type("\nGröße, 東京 and naïve café ☕ — tokens!", delay=10)  # typing
    box.evaluate("el => { el.focus(); el.setSelectionRange(40, 40); }")
    for _ in range(5):  # deleting in the middle
        page.keyboard.press("Backspace")
    page.keyboard.type("中间")
    box.evaluate("el => { el.focus(); el.setSelectionRange(12, 12); }")
    page.keyboard.insert_text(" pasted: Привет мир, 123456789 def f(x): return x**2\n")  # pasting
    box.evaluate("el => el.setSelectionRange(3, 9)")  # a selection typed over
    page.keyboard.type("Z")
    settle_unlagged(page)
    text = view_state(page)["text"]
    # the same edits made to the preset's text here
    want = PROSE + "\nGröße, 東京 and naïve café ☕ — tokens!"
    want = want[:35] + want[40:]
    want = want[:35] + "中间" + want[35:]
    want = want[:12] + " pasted: Привет мир, 123456789 def f(x): return x**2\n" + want[12:]
    want = want[:3] + "Z" + want[9:]
    assert text == want
    shows(page, want)


def test_a_token_clicked_right_after_typing_on_a_lagging_connection_keeps_the_text(lag_page):
    page = lag_page
    box = open_lagging(page)
    page.keyboard.type("!")
    # the server has set the preset box to "Your own text" (its message is here, not drawn yet): a click on a
    # token now reports with the box's old value
    page.wait_for_function("() => window.__bpeLag.seen > 0", timeout=60_000)
    page.locator(".tok-col-cl100k_base .tokv-spans .bpe-tok").first.click()
    box.press("Control+End")  # (back in the box: the click took the focus)
    page.keyboard.type("?")
    settle_unlagged(page)
    shows(page, PROSE + "!?")


def test_a_setting_changed_right_after_typing_on_a_lagging_connection_keeps_the_text(lag_page):
    page = lag_page
    box = open_lagging(page)
    page.keyboard.type("!")
    # the run that says "Your own text" has come (not drawn yet): a setting changed now reruns the whole page
    # with the browser's copy of the preset box still saying "Prose"
    page.wait_for_function("() => window.__bpeLag.seen > 0", timeout=60_000)
    page.get_by_role("button", name="Options").click()
    page.locator(".st-key-tok_ids label").first.click()
    page.keyboard.press("Escape")
    box.press("Control+End")
    page.keyboard.type("?")
    settle_unlagged(page)
    shows(page, PROSE + "!?")
    assert page.locator(".tkz").evaluate("el => el.__tkz.app.showIds") is False  # the setting took


def test_a_preset_picked_after_typing_on_a_lagging_connection_replaces_the_text(lag_page):
    page = lag_page
    open_lagging(page)
    page.keyboard.type(" and more", delay=15)
    settle_unlagged(page)
    shows(page, PROSE + " and more")
    page.wait_for_function(f"() => ({PRESET_SHOWN})().includes('Your own text')")
    # picking the preset the text was: the user asks for it back
    choose_preset(page, "tok_preset", "Prose")
    tokenize_settled(page)
    shows(page, PROSE)
    assert "Your own text" not in page.evaluate(PRESET_SHOWN)
