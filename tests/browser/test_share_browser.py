"""Share links of the merge player in a real browser, tampered links, and presenter view on the player.

Screenshots: tests/artifacts/share-*.png (look at them).
"""

from __future__ import annotations

import re
import urllib.parse

import pytest

from .conftest import shot, sidebar_settled, wait_idle

MP = ".st-key-merge_player [data-testid=stBidiComponentIsolated] .mp"
STATUS = f"{MP} .mp-status"
TEXT = "the cat sat on the mat; that fat cat and that rat sat at the hat stand, and the rat ran. " * 4


def open_url(page, url: str):
    page.goto(url)
    wait_idle(page, 60_000)
    page.wait_for_selector(f'{MP}[data-ready="1"]', timeout=30_000)
    return page


def merge_no(page) -> tuple[int, int]:
    m = re.search(r"Merge (\d+) / (\d+)", page.inner_text(STATUS))
    assert m, page.inner_text(STATUS)
    return int(m.group(1)), int(m.group(2))


def the_link(page) -> str:
    return page.locator(".st-key-player_share_link .cl-link").text_content()


def test_share_link_restores_text_settings_and_merge_in_a_fresh_context(browser, server_url):
    ctx = browser.new_context(viewport={"width": 1400, "height": 2000})
    page = open_url(ctx.new_page(), server_url)
    page.locator(".st-key-player_source label").filter(has_text="Paste").first.click()
    wait_idle(page)
    page.fill(".st-key-player_paste textarea", TEXT)
    page.get_by_role("button", name="Train on this text").click()
    wait_idle(page)
    page.fill(".st-key-player_merges input", "30")
    page.keyboard.press("Enter")
    wait_idle(page)
    page.locator(".st-key-player_level label").filter(has_text="Characters").first.click()
    wait_idle(page)
    page.click(".st-key-player_tie_break [role=combobox]")
    page.get_by_role("option", name="First seen", exact=True).click()
    wait_idle(page)
    page.locator(".st-key-player_nfc label").click()
    wait_idle(page)
    for _ in range(7):
        page.click(f"{MP} .mp-step")
    page.wait_for_function("() => location.search.includes('merge=7')")  # reported once stepping stops
    wait_idle(page)
    k, n = merge_no(page)
    assert k == 7 and 7 < n <= 30  # (training stops early when no pair occurs twice)
    link = the_link(page)
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(link).query))
    assert query["text"] == TEXT and query["merges"] == "30" and query["level"] == "char"
    assert query["tie"] == "first" and query["nfc"] == "1" and query["merge"] == "7" and query["speed"] == "2"
    # the page's own URL is the same link
    assert dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(page.url).query)) == query
    shot(page, "share-before")
    ctx.close()

    fresh = browser.new_context(viewport={"width": 1400, "height": 2000})
    page2 = open_url(fresh.new_page(), link)
    assert merge_no(page2) == (7, n)
    assert page2.input_value(".st-key-player_paste textarea") == TEXT
    assert page2.locator(".st-key-player_nfc input").is_checked()
    assert page2.locator(".st-key-player_level input:checked").count() == 1
    assert page2.locator(".st-key-player_note").count() == 0
    assert the_link(page2) == link  # every setting came back: the restored state writes the same link
    shot(page2, "share-restored")
    fresh.close()


@pytest.mark.parametrize(
    "query, words",
    [
        ("merge=-5", ["merge=-5", "showing merge 0"]),
        ("merges=abc", ["merges='abc'", "not a whole number"]),
        ("pattern=%28", ["pattern='('", "not a valid regex"]),
        ("sample=%3Cb%3Enope%3C/b%3E", ["sample='<b>nope</b>'"]),
    ],
)
def test_tampered_links_land_on_defaults_with_a_note(browser, server_url, query, words):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1600})
    page = open_url(ctx.new_page(), f"{server_url}/?{query}")
    page.wait_for_selector(".st-key-player_note")
    note = page.inner_text(".st-key-player_note")
    for w in words:
        assert w in note, note
    assert page.locator(".st-key-player_note b").count() == 0  # escaped, not markup
    assert merge_no(page)[0] == 0
    assert page.locator('[data-testid="stException"]').count() == 0
    q = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(page.url).query))
    assert q["merge"] == "0" and q.get("pattern") == "gpt4"
    shot(page, "share-tampered-" + re.sub(r"\W+", "_", query)[:20])
    ctx.close()


def test_presenter_view_on_the_player(browser, server_url):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1100})
    page = open_url(ctx.new_page(), f"{server_url}/?presenter=1")
    sidebar_settled(page, False)  # the sidebar has slid shut
    box = page.locator('[data-testid="stSidebar"]').bounding_box()
    assert box is None or box["x"] + box["width"] <= 0
    assert page.locator(".st-key-presenter input").is_checked()
    size = float(page.locator("html").evaluate("e => parseFloat(getComputedStyle(e).fontSize)"))
    assert size >= 23
    assert "presenter=1" in page.url and "presenter=1" in the_link(page)
    path = shot(page, "share-player-presenter")
    assert path.exists()
    ctx.close()


def test_quiz_in_the_browser(browser, server_url):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1600})
    page = open_url(ctx.new_page(), f"{server_url}/?sample=aaabdaaabac&pattern=none")
    page.locator(".st-key-player_quiz label").click()
    wait_idle(page)
    page.locator(".st-key-player_quiz_pick label").filter(has_text="(a, a)").first.click()
    wait_idle(page)
    page.click(".st-key-player_quiz_check button")
    wait_idle(page)
    page.wait_for_selector(".st-key-player_quiz_box .cls-right")
    page.wait_for_selector(f'{MP}[data-merge="1"]')  # the player moved to the revealed merge
    assert merge_no(page)[0] == 1
    assert "Quiz score: 1 / 1" in page.inner_text(".st-key-player_quiz_box")
    shot(page, "share-player-quiz")
    ctx.close()
