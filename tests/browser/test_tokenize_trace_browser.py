"""The Tokenize page's chunk trace ("Watch a chunk being encoded") in a real browser: it follows the text the user
typed key by key, not only a paste (issue 14: after Ctrl+A and typing, the picker was gone for good).

Every wait is on the page's state (the picker showing a chunk of the new text), never a fixed time.
"""

from __future__ import annotations

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
