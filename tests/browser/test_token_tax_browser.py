"""The Token tax page in a real browser: the heatmap drawn (every cell's number, hover), the page at
projector and phone sizes, and a language's button sending its text to the Merge player.

Screenshots go to tests/artifacts/ (look at them). With ``BPE_DOCS_SHOTS=1`` the chart is also written to
docs/token_tax.png for the README.
"""

from __future__ import annotations

import json

import pytest
from helpers import ROOT
from playwright.sync_api import expect
from tiktoken_reference import tiktoken_encoding

import appstate.keys
import bpe

from .conftest import docs_shot, open_path, settled, shot, shot_at, wait_idle

#: the chart's columns by default: the installed vocabularies (less those with another's very tokens, offered on
#: request: r50k_base is gpt2's) and the trained one
COLUMNS = 1 + sum(1 for spec, ok in bpe.pretrained_status() if ok and not spec.same_ranks_as)

CHART = ".st-key-tax_chart_box .js-plotly-plot"
UDHR = json.loads((ROOT / "sample_texts" / "udhr.json").read_text(encoding="utf-8"))
TEXTS = {item["code"]: item for item in UDHR["languages"]}


def open_tax(page, server_url, query: str = ""):
    # the first visit loads eight vocabularies once per server ("Loading 8 vocabularies (once per server)"):
    # ~8 s on a quiet machine, past 30 s at a load average of 17 (a full run failed here so)
    open_path(page, server_url, "/token-tax" + query, CHART, timeout_ms=90_000)
    page.wait_for_selector(f"{CHART} .heatmaplayer text", timeout=90_000)  # the numbers are written
    settled(page, ".st-key-tax_chart_box", frames=10)  # and the chart laid out


def svg_texts(page, selector: str, left_to_right: bool = False) -> list[str]:
    """The text of SVG elements in reading order: top to bottom, then left to right (or only left to right,
    for the slanted column labels). ``inner_text`` is for HTML elements only, and plotly's DOM order is not
    the drawn order."""
    key = "(a[1] - b[1])" if left_to_right else "(a[0] - b[0]) || (a[1] - b[1])"
    return page.locator(selector).evaluate_all(
        "els => els.map(e => { const r = e.getBoundingClientRect(); return [Math.round(r.y + r.height / 2), "
        f"r.x + r.width / 2, e.textContent]; }}).sort((a, b) => {key}).map(t => t[2])"
    )


def cell_texts(page) -> list[str]:
    return svg_texts(page, f"{CHART} .heatmaplayer text")


@pytest.fixture(scope="module")
def tax(browser, server_url):
    """One Token tax page, loaded once, for the three tests that start from it as loaded (a load of this page:
    ~3 CPU-s of Chromium and the chart's drawing): the heatmap's (it only reads and hovers), the metrics' (it
    switches the metric), then the language button's (it leaves for the player), in the file's order; each
    starts at the page fixture's viewport (1400 x 2200)."""
    ctx = browser.new_context(viewport=VIEWPORT)
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    open_tax(pg, server_url)
    yield pg
    ctx.close()


VIEWPORT = {"width": 1400, "height": 2200}  # the page fixture's


def at_viewport(page):
    if page.viewport_size != VIEWPORT:
        page.set_viewport_size(VIEWPORT)
        settled(page, ".st-key-tax_chart_box", frames=10)  # laid out again for the width
        wait_idle(page)
    return page


def test_the_heatmap_is_drawn_with_a_number_in_every_cell(tax):
    page = at_viewport(tax)
    columns = svg_texts(page, f"{CHART} .xtick text", left_to_right=True)
    rows = svg_texts(page, f"{CHART} .ytick text")
    assert columns[:2] == ["GPT-4", "GPT-4o"] and columns[-1].startswith("Trained (")
    assert len(rows) == 28 and rows[0] == "English" and "Burmese · မြန်မာ" in rows
    texts = cell_texts(page)
    assert len(texts) == 28 * len(columns) and all(t.endswith("×") for t in texts)
    assert texts[: len(columns)] == ["1.0×"] * len(columns)  # English is the baseline
    # GPT-4's premium for Greek, from tiktoken's own counts
    ref = tiktoken_encoding("cl100k_base")
    greek = len(ref.encode_ordinary(TEXTS["el"]["text"])) / len(ref.encode_ordinary(TEXTS["en"]["text"]))
    greek_row = rows.index("Greek · Ελληνικά")
    assert texts[greek_row * len(columns)] == f"{greek:.1f}×"
    # hover a cell: every number of it
    box = page.locator(f"{CHART} .nsewdrag").first.bounding_box()
    page.mouse.move(box["x"] + box["width"] / (2 * len(columns)), box["y"] + box["height"] * (greek_row + 0.5) / 28)
    hover = page.locator(f"{CHART} .hoverlayer")
    page.wait_for_function(f"document.querySelector('{CHART} .hoverlayer').textContent.includes('tokens per word')")
    tip = hover.text_content()
    assert "Greek" in tip and f"{len(ref.encode_ordinary(TEXTS['el']['text'])):,}" in tip
    path = shot(page, "token-tax")
    assert path.stat().st_size > 100_000
    page.mouse.move(5, 5)
    expect(page.locator(f"{CHART} .hoverlayer .hovertext")).to_have_count(0)  # the tip is gone
    docs_shot(page, "token_tax")
    shot_at(page, "token-tax-1280", ".st-key-tax_chart_box", 1280, 720)


def test_other_metrics_and_the_table(tax):
    page = at_viewport(tax)
    page.locator(".st-key-tax_metric label").filter(has_text="Tokens per word").click()
    wait_idle(page)
    page.wait_for_function(
        f"[...document.querySelectorAll('{CHART} .heatmaplayer text')].some(t => t.textContent === '—')"
    )
    assert "Tokens per word" in page.locator(f"{CHART} .gtitle").text_content()
    assert page.locator(".st-key-tax_table [data-testid='stDataFrame']").count() == 1
    shot(page, "token-tax-tokens-per-word")


def test_presenter_view_and_phone_width(page, server_url):
    open_tax(page, server_url, "?presenter=1")
    big = page.locator(f"{CHART} .heatmaplayer text").first.evaluate("t => parseFloat(getComputedStyle(t).fontSize)")
    assert big >= 18
    shot(page, "token-tax-presenter")
    page.set_viewport_size({"width": 390, "height": 2400})
    page.goto(server_url + "/token-tax")
    page.wait_for_selector(f"{VISIBLE_CHART} .heatmaplayer", timeout=90_000)
    wait_idle(page)
    assert in_view(page, 390)["columns"] == COLUMNS  # the compact chart (test_phone_shows_every_vocabulary...)
    shot(page, "token-tax-phone")


#: the chart the screen shows (on a phone the compact one; CSS hides the other)
VISIBLE_CHART = "[class*=st-key-tax_chart] .js-plotly-plot:visible"
IN_VIEW = """(width) => {
  const plot = [...document.querySelectorAll('[class*=st-key-tax_chart] .js-plotly-plot')].find(e => e.offsetParent);
  const inside = (e) => { const r = e.getBoundingClientRect(); return r.left >= -0.5 && r.right <= width + 0.5; };
  const ticks = [...plot.querySelectorAll('.xtick text')];
  const bar = plot.querySelector('.colorbar');
  return {columns: ticks.length, outside: ticks.filter(t => !inside(t)).map(t => t.textContent),
          cells: plot.querySelectorAll('.heatmaplayer text').length,
          cellsOutside: [...plot.querySelectorAll('.heatmaplayer text')].filter(t => !inside(t)).length,
          scale: !!bar && inside(bar), page: document.documentElement.scrollWidth,
          boxes: [...document.querySelectorAll('[class*=st-key-tax_chart]')].filter(e => e.offsetParent)
                 .map(e => [e.scrollWidth, e.clientWidth])};
}"""


def in_view(page, width: int) -> dict:
    return page.evaluate(IN_VIEW, width)


def test_phone_shows_every_vocabulary_and_the_scale(page, server_url):
    """Issue 25, item 4: at 390x844 the heatmap was 760 px wide in a box scrolling sideways: GPT-4, GPT-4o and
    half of Llama 3 in view, the other 6 vocabularies and the color scale not. Now every column, every cell
    and the scale are within the screen's width, and nothing scrolls sideways."""
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(server_url + "/token-tax")
    page.wait_for_selector(f"{VISIBLE_CHART} .heatmaplayer", timeout=90_000)
    wait_idle(page)
    got = in_view(page, 390)
    assert got["columns"] == COLUMNS and got["outside"] == [], got  # the registry's vocabularies + the trained one
    assert got["cells"] == 28 * COLUMNS and got["cellsOutside"] == 0, got
    assert got["scale"], got
    assert got["page"] <= 390 and all(sw <= cw + 1 for sw, cw in got["boxes"]), got
    shot_at(page, "token-tax-phone-390", "[class*=st-key-tax_chart_phone_box]", 390, 844)
    # wider screens keep the full chart (long names, the scale on the right), and it fits there too
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto(server_url + "/token-tax")
    page.wait_for_selector(f"{CHART} .heatmaplayer", timeout=90_000)
    wait_idle(page)
    got = in_view(page, 1920)
    assert got["columns"] == COLUMNS and got["outside"] == [] and got["scale"], got
    shot_at(page, "token-tax-1920", ".st-key-tax_chart_box", 1920, 1080)


def test_a_language_button_trains_on_it_in_the_merge_player(tax):
    page = at_viewport(tax)
    page.locator(".st-key-tax_train_de").scroll_into_view_if_needed()
    assert page.locator('[class*="st-key-tax_train_"] button').count() >= 28
    shot(page, "token-tax-train-buttons")
    page.locator(".st-key-tax_train_de button").first.click()
    page.wait_for_selector(f".st-key-{appstate.keys.PLAYER_PASTE} textarea", timeout=90_000)
    wait_idle(page, 120_000)
    assert page.locator(f".st-key-{appstate.keys.PLAYER_PASTE} textarea").input_value() == TEXTS["de"]["text"]
    assert page.locator('[data-testid="stException"]').count() == 0
    shot(page, "token-tax-to-player")
