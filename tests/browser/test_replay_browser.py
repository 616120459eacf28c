"""The merge player replaying GPT-4's merges in a real browser (Playwright + Debian's Chromium).

One truth: at every step the component draws the tokens Python's replay holds at that step
(``bpe.vocab_replay.replay(...).tokens_at(k)``, in the window shown), and the last step's ids are tiktoken's
own ids for the text (``tests/tiktoken_reference.py``: a ``tiktoken.Encoding`` over the same ranks and
pattern). Screenshots go to ``tests/artifacts/``: look at them.
"""

from __future__ import annotations

import pytest
from tiktoken_reference import tiktoken_encoding

import appstate.sources
import bpe
from bpe.vocab_replay import replay

from .conftest import docs_shot, settled, shot, wait_idle
from .test_player_browser import HOST, MP, TOKENS_JS, jump, merge, open_player, status

ENGLISH = appstate.sources.sample("english").text
LINE3_JS = "() => document.querySelector('%s').shadowRoot.querySelector('.mp-line3').textContent" % HOST


def python_replay(text: str = ENGLISH):
    return replay(bpe.load_pretrained("cl100k_base"), text)


def window_tokens(rep, k: int, first_byte: int, n_bytes: int) -> list[tuple[int, int]]:
    """Python's tokens at step k inside the window [first_byte, first_byte + n_bytes), offsets in the window."""
    return [(i, o - first_byte) for i, o, _ in rep.tokens_at(k) if first_byte <= o < first_byte + n_bytes]


def drawn(page) -> list[tuple[int, int]]:
    return [(t["id"], t["start"]) for t in page.evaluate(TOKENS_JS)]


def test_the_player_replays_gpt4_on_the_english_sample(page, server_url):
    open_player(page, f"{server_url}/?sample=english&replay=cl100k_base")
    assert page.get_attribute(MP, "data-mode") == "replay"
    rep = python_replay()
    n = len(rep.steps)
    assert int(page.locator(f"{MP} .mp-jump input").get_attribute("max")) == n
    # the window shown: the English essay is longer than a window, so it starts at byte 0 and covers whole chunks
    first = drawn(page)
    n_bytes = sum(len(bpe.load_pretrained("cl100k_base").token_bytes(i)) for i, _ in first)
    assert 1000 < n_bytes < len(ENGLISH.encode())
    for k in (0, 1, n // 2, n):
        jump(page, k)
        assert drawn(page) == window_tokens(rep, k, 0, n_bytes), f"tokens differ at step {k}"
        assert status(page).startswith(f"Step {k} / {n}")
    # the end: tiktoken's ids (the window's share of them, and the token count of the whole text)
    ids = tiktoken_encoding("cl100k_base").encode(ENGLISH, allowed_special="all")
    assert [i for i, _ in drawn(page)] == ids[: len(drawn(page))]
    assert f"{len(ids):,} tokens" in status(page) and "exactly the ids" in status(page)
    # step 1 is the lowest rank that fires: cl100k's ranks 256 and 257 are runs of spaces, which the essay
    # does not hold; rank 258 is "in" (tiktoken's own table), which it does
    enc = tiktoken_encoding("cl100k_base")
    assert [enc.decode_single_token_bytes(r) for r in (256, 257, 258)] == [b"  ", b"    ", b"in"]
    assert "  " not in ENGLISH and "in" in ENGLISH
    jump(page, 1)
    assert rep.steps[0].token == b"in" and "rank 258" in status(page)
    # the pair chart: this step's merge, then the next ones in rank order
    bars = page.evaluate(
        """() => [...document.querySelector('%s').shadowRoot.querySelectorAll('.mp-bars .bar:not(.leave)')]
      .map(e => [+getComputedStyle(e).getPropertyValue('--i'), e.dataset.pair, +e.dataset.count]).sort((a, b) => a[0] - b[0])"""
        % HOST
    )
    assert [(p, c) for _, p, c in bars] == [(f"{s.pair[0]},{s.pair[1]}", s.count) for s in rep.steps[:12]]
    jump(page, n // 2)
    wait_idle(page)
    page.wait_for_function(f"() => location.search.includes('merge={n // 2}')")
    assert "replay=cl100k_base" in page.url
    shot(page, "replay-gpt4-english")
    docs_shot(page, "player_replay")


def test_a_cascade_is_explained_on_its_step(page, server_url):
    """Llama 3 (a vocabulary put together from two sources) has steps where a lower-ranked merge waits for a
    higher-ranked one; the player says so on that step, in words."""
    text = "Vietnamese: Tiếng Việt là ngôn ngữ của người Việt. " * 3 + "नमस्ते दुनिया " * 3
    rep = replay(bpe.load_pretrained("llama3"), text)
    steps = [s.index for s in rep.steps if s.cascade or s.lookups or s.other_pairs]
    if not steps:
        pytest.fail("this text no longer shows a difference with Llama 3: pick another")
    open_player(page, f"{server_url}/?text={text}&replay=llama3&merge={steps[0]}")
    note = page.evaluate(LINE3_JS)
    assert note and ("had to wait" in note or "lookup" in note or "Another split" in note)
    shot(page, "replay-llama3-difference")


@pytest.mark.parametrize("width,height", [(1280, 720), (390, 1400)])
def test_the_link_restores_mode_vocabulary_and_step_screenshots(browser, server_url, width, height):
    """A replay's link (mode, vocabulary, step) opens the same replay at the same step; screenshots at a
    projector's and a phone's width."""
    ctx = browser.new_context(viewport={"width": width, "height": height}, is_mobile=width < 500)
    page = open_player(ctx.new_page(), f"{server_url}/?sample=english&replay=cl100k_base&merge=300")
    assert merge(page) == 300 and status(page).startswith("Step 300 /"), "the link's step"
    assert page.get_attribute(MP, "data-mode") == "replay", "the link's mode"
    # the sidebar's picker names the link's vocabulary (waited on: on a busy machine Streamlit's front end may
    # fetch the selectbox's module after the player is ready, its box empty meanwhile)
    page.wait_for_function(
        """() => { const el = document.querySelector('.st-key-player_vocab'); return !!el && (el.innerText + ' '
          + [...el.querySelectorAll('input')].map(e => e.value + ' ' + (e.getAttribute('aria-label') || ''))
          .join(' ')).includes('GPT-4 (cl100k_base)'); }"""
    )
    settled(page, HOST)  # laid out at this width
    w = page.evaluate("() => document.querySelector('%s').getBoundingClientRect().width" % HOST)
    assert w <= width
    shot(page, f"replay-{width}")
    ctx.close()
