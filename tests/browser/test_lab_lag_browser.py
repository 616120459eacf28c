"""Nothing typed into the Pre-tokenizer lab is lost when the server's replies come late (issue 31's race, in
the lab).

The lab's preset box says "Your own text" once the text is edited: the run that applies the edit sets it. A
setting changed before that run has reached the browser sends the browser's copy of the preset box, still
"Contractions"; to the same widget that is the user picking Contractions again, and the typed text was
replaced by the preset's (fixed as on Tokenize: ``appstate.widgets.preset_picker`` with ``renew`` draws a
new box each time the server sets it). The lag is made on purpose (tests/browser/lagging.py); every wait is
on the page's state.
"""

from __future__ import annotations

from helpers import PRESETS
from playwright.sync_api import expect

from .conftest import applied, open_path, shot_at, wait_idle
from .lagging import LAG_MS, lag, lagged

TYPED = "A text of my own: don't lose it, 2026."
#: the preset box as shown (a combobox's text is its input's value)
PRESET_SHOWN = "() => document.querySelector('.st-key-lab_preset input').value"


def test_a_setting_changed_right_after_an_edit_on_a_lagging_connection_keeps_the_text(page, server_url):
    page = lagged(page)
    open_path(page, server_url, "/pretokenizer", ".lab-view", timeout_ms=90_000)
    wait_idle(page, 90_000)
    # (the run is drawn, but Streamlit loads a selectbox's code lazily: on a busy machine its box can come after)
    page.locator(".st-key-lab_preset input").wait_for(state="attached")
    assert page.evaluate(PRESET_SHOWN) == "Contractions"
    assert page.evaluate("() => window.__bpeLag.ms") == 0  # (the lag script is in place, off)
    box = page.locator(".st-key-lab_text textarea")
    box.fill(TYPED)
    lag(page, LAG_MS)
    box.press("Control+Enter")  # the edit's run: it sets the preset box to "Your own text"
    page.wait_for_function("() => window.__bpeLag.seen > 0", timeout=60_000)  # its message is here, not drawn
    assert page.evaluate(PRESET_SHOWN) == "Contractions"  # (the browser's copy, sent with the next change)
    page.locator(".st-key-lab_numbers label").first.click()  # a setting changed now
    wait_idle(page, 120_000)
    lag(page, 0)
    page.wait_for_function("() => !window.__bpeLag.held", timeout=60_000)
    wait_idle(page, 120_000)
    applied(page, "lab_text")
    expect(box).to_have_value(TYPED)
    page.wait_for_function(f"() => ({PRESET_SHOWN})() === 'Your own text'")
    # the chunks drawn are the typed text's, numbered (the setting took)
    page.wait_for_function(
        "t => [...document.querySelectorAll('.st-key-lab_col_gpt4 .lab-view')].some(e => e.innerText.includes(t))",
        arg="own",
    )
    assert page.locator(".st-key-lab_numbers input").is_checked()
    assert PRESETS["contractions"]["text"] != TYPED
    shot_at(page, "lab-lag-typed-1280", ".st-key-lab_preset", 1280, 720)
