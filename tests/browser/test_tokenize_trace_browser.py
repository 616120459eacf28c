"""The Tokenize page's chunk trace ("Watch a chunk being encoded") in a real browser: it follows the text the user
typed key by key, not only a paste (issue 14: after Ctrl+A and typing, the picker was gone for good).

Every wait is on the page's state (the picker showing a chunk of the new text), never a fixed time.
"""

from __future__ import annotations

from playwright.sync_api import expect

from .conftest import TOK_BOX, shot
from .tokenize_page import open_tokenize, settled

PICKER = '[class*="st-key-tok_trace_pick_"]'
TYPED = "Hello world, how are you doing"
#: GPT-4's pre-tokenizer on TYPED (its regex by hand: a word with its leading space, punctuation apart), the
#: chunks of two bytes or more; the picker's first pick is the longest made of letters, the first on ties
CHUNKS = ["Hello", "·world", "·how", "·are", "·you", "·doing"]
FIRST = "·world"

#: the picker's value as drawn (a selectbox shows it in its input; it is absent while the trace says "Type a word")
PICKED_JS = """(sel) => { const box = document.querySelector(sel); const i = box && box.querySelector('input');
  return i ? i.value || box.innerText.split('\\n').pop() : null; }"""


def test_typed_text_keeps_the_chunk_picker(page, server_url):
    open_tokenize(page, server_url)
    assert page.locator(PICKER).count() == 1  # the preset's chunks
    box = page.locator(TOK_BOX)
    box.click()
    page.keyboard.press("Control+A")
    page.keyboard.type(TYPED)
    settled(page)
    # the trace section follows once the typing pauses: the picker offers the typed text's chunks
    page.wait_for_function(f"(sel) => ({PICKED_JS})(sel) === {FIRST!r}", arg=PICKER)
    assert page.get_by_text("Type a word to trace.").count() == 0
    page.locator(PICKER).click()
    options = page.get_by_role("option")
    options.first.wait_for()
    assert options.all_inner_texts() == CHUNKS
    page.keyboard.press("Escape")
    shot(page, "tokenize-trace-typed")


def test_a_trace_without_merges_says_so_in_words(page, server_url):
    """Issue 14: a chunk no merge touches read "0 steps: One merge or none: nothing to order." A one-byte word is
    one token in every column; the trained tokenizer joins none of a CJK chunk's bytes (its English essay holds
    none of them: it stays one token per UTF-8 byte), where GPT-4 merges some."""
    cjk = "我喜欢机器学习"
    word = page.locator(".st-key-tok_trace_word input")
    open_tokenize(page, server_url)
    word.fill("a")
    page.keyboard.press("Enter")
    settled(page)
    expect(page.get_by_text("Already one token: nothing to merge.")).to_have_count(3)  # (every column)
    assert page.get_by_text("nothing to order").count() == 0
    word.fill(cjk)
    page.keyboard.press("Enter")
    settled(page)
    stays = len(cjk.encode("utf-8"))
    said = f"No merge applies: this tokenizer joins none of these pairs, so the chunk stays {stays} base tokens."
    expect(page.get_by_text(said)).to_have_count(1)  # (the trained column; GPT-4 and GPT-4o merge these bytes)
    shot(page, "tokenize-trace-no-merge")
