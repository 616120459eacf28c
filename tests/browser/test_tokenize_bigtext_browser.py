"""A big paste in the Tokenize view (issue 31, acceptance 2): a megabyte pasted with Ctrl+V is never laid out in
the text area (its layout held Chromium's main thread 0.3-2.6 s); the view folds it (components/tokenize_view/
bigtext.js) and every column still tokenizes all of it: ids equal to tiktoken's for GPT-4 and GPT-4o. Typing in
the fold goes in at the caret; a page switch and a reload come back folded; "Edit the text" puts the exact text
back in the box. A megabyte dropped makes the same fold; "Clear the text" empties it.

Every wait is on the view's state (conftest's ``tokenize_settled``), never a fixed time.
"""

from __future__ import annotations

from functools import cache

import pytest
from helpers import PRESETS
from tiktoken_reference import tiktoken_encoding

import bpe

from .conftest import FIND_VIEW, TOK_BOX, set_multiselect, shot_at, tokenize_settled, wait_idle
from .test_tokenize_edits_browser import megabyte, nav, open_tokenize

NAMES = ("cl100k_base", "o200k_base")
FOLD_AT = 100_000  # (bigtext.js)

#: the view's text, its columns' ids and texts, and what its text boxes hold
STATE = f"""() => {{ const el = {FIND_VIEW}; const v = el.__tkz; const out = {{ text: v.text, cols: {{}} }};
    for (const c of v.cols.values()) out.cols[c.slug] = {{ ids: c.ids.slice(), text: v.textOf(c) }};
    out.boxes = [...el.querySelectorAll('textarea')].map((t) => ({{ cls: t.className, len: t.value.length,
      shown: getComputedStyle(t).display !== 'none' }}));
    out.folded = !el.querySelector('.tkz-fold').hidden;
    out.stats = {{ ...v.stats }};
    return out; }}"""


def state(page) -> dict:
    return page.evaluate(STATE)


def check(page, text: str, refs) -> dict:
    """The view holds ``text`` folded, no text box holds it, and every column shows tiktoken's ids for it."""
    got = state(page)
    assert got["text"] == text
    assert got["folded"]
    assert all(b["len"] <= FOLD_AT for b in got["boxes"]), got["boxes"]  # (nothing big laid out in a box)
    assert not next(b for b in got["boxes"] if b["cls"] == "tkz-text")["shown"]
    for name in NAMES:
        assert got["cols"][name]["text"] == text, name
        assert got["cols"][name]["ids"] == refs[name](text), name
    return got


def drop_is_folded_and_clear_empties_it(page, refs) -> None:
    """A megabyte dropped on an ordinary text (Chromium's own drop, from outside the page: CDP's drag events
    carry the data) makes the same fold; "Clear the text" gives the box back, empty, and every column with it."""
    big = megabyte()
    box = page.locator(TOK_BOX)
    box.evaluate("el => { el.focus(); el.select(); }")
    r = box.bounding_box()
    x, y = r["x"] + r["width"] / 2, r["y"] + r["height"] / 2
    cdp = page.context.new_cdp_session(page)
    data = {"items": [{"mimeType": "text/plain", "data": big}], "dragOperationsMask": 1}
    for kind in ("dragEnter", "dragOver", "drop"):
        cdp.send("Input.dispatchDragEvent", {"type": kind, "x": x, "y": y, "data": data})
    page.locator(".tkz-fold").wait_for(timeout=60_000)
    got = state(page)
    assert big in got["text"], "drop: not taken"
    assert all(b["len"] <= FOLD_AT for b in got["boxes"]), f"drop: laid out in a box {got['boxes']}"
    tokenize_settled(page, 300_000)
    got = state(page)
    for name in NAMES:
        assert got["cols"][name]["ids"] == refs[name](got["text"]), f"drop: {name}"
    page.get_by_role("button", name="Clear the text").click()
    tokenize_settled(page, 120_000)
    got = state(page)
    assert got["text"] == "" and not got["folded"] and box.evaluate("el => el.value") == "", "clear: not empty"
    assert all(c["ids"] == [] for c in got["cols"].values()), "clear: a column not emptied"


@pytest.mark.timeout(900)
def test_a_megabyte_dropped_or_pasted_is_folded_tokenized_kept_and_edited_back(browser, server_url):
    """First a megabyte dropped, then cleared (:func:`drop_is_folded_and_clear_empties_it`); then, on an ordinary
    text again, a megabyte pasted with Ctrl+V: folded, tokenized, kept across a page switch and a reload, and
    edited back in the box. (One page load for both: each starts from an ordinary text in the box.)"""
    # (each text's ids once: the same megabyte is checked after the typing, the page switch and the reload)
    refs = {n: cache(tiktoken_encoding(n).encode_ordinary) for n in NAMES}
    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=server_url)
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    try:
        open_tokenize(page, server_url, 120_000)
        set_multiselect(page, "tok_choice", [bpe.PRETRAINED[n].label for n in NAMES])
        tokenize_settled(page, 120_000)
        drop_is_folded_and_clear_empties_it(page, refs)
        page.locator(TOK_BOX).fill(PRESETS["prose"]["text"])  # an ordinary text again (a paste: one input event)
        tokenize_settled(page, 120_000)
        s0 = state(page)
        before = s0["text"]
        assert before == PRESETS["prose"]["text"]
        big = megabyte()
        # the user's paste: the text on the clipboard, a selection in the box, Ctrl+V
        page.evaluate("(t) => navigator.clipboard.writeText(t)", big)
        box = page.locator(TOK_BOX)
        box.evaluate("el => { el.focus(); el.setSelectionRange(5, 10); }")
        page.keyboard.press("Control+V")
        text = before[:5] + big + before[10:]
        page.locator(".tkz-fold").wait_for(timeout=60_000)
        tokenize_settled(page, 300_000)
        got = check(page, text, refs)
        # sent as an edit at the selection, not as a whole text
        assert got["stats"]["wholes"] == s0["stats"]["wholes"] and got["stats"]["edits"] > s0["stats"]["edits"]
        fold = page.locator(".tkz-fold")
        assert f"{len(text):,} characters" in fold.locator(".tkz-fold-size").inner_text()
        assert fold.locator(".tkz-fold-text").inner_text().startswith(text[:40].split("\n")[0])
        for width, height in ((1280, 720), (390, 844)):
            shot_at(page, f"tokenize-bigtext-folded-{width}", ".tkz", width, height)
        page.set_viewport_size({"width": 1280, "height": 720})
        # typing right after the paste goes in at the caret (the fold's field has the focus), Backspace too
        page.keyboard.type("XYZ!", delay=20)
        page.keyboard.press("Backspace")
        text = text[: 5 + len(big)] + "XYZ" + text[5 + len(big) :]
        tokenize_settled(page, 120_000)
        check(page, text, refs)
        # a page switch and back: folded again, the same text and ids
        nav(page, "Merge player")
        page.wait_for_selector(".tkz", state="detached", timeout=60_000)
        wait_idle(page, 60_000)
        nav(page, "Tokenize")
        page.locator(".tkz .tokv-spans").first.wait_for(timeout=60_000)
        tokenize_settled(page, 300_000)
        check(page, text, refs)
        # a reload (a new session): the browser's saved text comes back, folded
        page.reload()
        page.locator(".tkz .tokv-spans").first.wait_for(timeout=60_000)
        page.locator(".tkz-fold").wait_for(timeout=60_000)
        tokenize_settled(page, 300_000)
        check(page, text, refs)
        # "Edit the text": the exact text in the box, nothing sent for it
        sent = state(page)["stats"]
        page.get_by_role("button", name="Edit the text").click()
        page.wait_for_function(f"() => {FIND_VIEW}.querySelector('.tkz-fold').hidden")
        got = state(page)
        assert box.evaluate("el => el.value") == text and got["text"] == text
        assert next(b for b in got["boxes"] if b["cls"] == "tkz-text")["shown"]
        assert got["stats"]["edits"] == sent["edits"] and got["stats"]["wholes"] == sent["wholes"]
        # and it edits as the box does
        box.evaluate("el => { el.focus(); el.setSelectionRange(0, 0); }")
        page.keyboard.type("Go ", delay=20)
        tokenize_settled(page, 120_000)
        got = state(page)
        assert got["text"] == "Go " + text and not got["folded"]  # (typing in the box does not fold it again)
        assert box.evaluate("el => el.value") == "Go " + text
        for name in NAMES:
            assert got["cols"][name]["ids"] == refs[name]("Go " + text), name
    finally:
        ctx.close()
