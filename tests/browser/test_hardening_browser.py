"""Bad input that needs a real browser (issue 7; the matrix is in tests/test_hardening.py): uploads (AppTest
has no file_uploader), and markup that must neither render nor fire alert() (page.on("dialog")).

Already in tests/browser/test_player_browser.py: latin-1 upload, 50 MB upload + "Train on the first 2 MB",
empty paste, invalid regex. Here: a binary file, a file named like markup, the full injection string.
"""
from __future__ import annotations

import pytest

from .conftest import wait_idle

INJECTION = ("<script>alert(1)</script><img src=x onerror=alert(2)><b>bold</b>"
             "<style>body{display:none}</style>")
UPLOAD = ".st-key-player_upload input[type=file]"
MP = ".st-key-merge_player [data-testid=stBidiComponentIsolated] .mp"   # the merge player (shadow DOM)


@pytest.fixture
def player(page, server_url):
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.dialogs = dialogs
    page.goto(server_url)
    wait_idle(page, 60_000)
    page.wait_for_selector(f'{MP}[data-ready="1"]', timeout=30_000)
    return page


def alerts(page) -> str:
    return " ".join(page.locator('[data-testid="stAlert"]').all_inner_texts())


def no_traceback(page) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.dialogs == []
    assert page.locator('img[src="x"]').count() == 0
    assert page.locator("b", has_text="bold").count() == 0
    assert page.locator('[data-testid="stApp"]').is_visible()     # no injected body{display:none}


def to_upload(page) -> None:
    page.locator(".st-key-player_source label").filter(has_text="Upload").first.click()
    wait_idle(page)


def upload(page, name: str, data: bytes) -> None:
    page.set_input_files(UPLOAD, files=[{"name": name, "mimeType": "text/plain", "buffer": data}])
    wait_idle(page, 120_000)


def back_to_sample_and_step(page) -> None:
    page.locator(".st-key-player_source label").filter(has_text="Sample").first.click()
    wait_idle(page)
    page.wait_for_selector(f'{MP}[data-ready="1"]', timeout=30_000)
    page.click(f"{MP} .mp-step")
    assert "Merge 1 /" in page.inner_text(f"{MP} .mp-status")


def test_binary_upload_says_not_utf8(player):
    to_upload(player)
    upload(player, "image.txt", b"\x89PNG\r\n\x1a\n\x00\xff\xfe" + bytes(range(256)))
    player.wait_for_selector('[data-testid="stAlert"]:has-text("not UTF-8")')
    assert "0x89" in alerts(player)
    no_traceback(player)
    back_to_sample_and_step(player)


def test_file_named_like_markup_is_shown_as_text(player):
    name = "<img src=x onerror=alert(1)>.txt"
    to_upload(player)
    upload(player, name, b"hello hello world, hello world " * 20)
    player.wait_for_timeout(500)
    no_traceback(player)
    assert "<img src=x onerror=alert(1)>" in player.inner_text('[data-testid="stMain"]') + \
        player.inner_text('[data-testid="stSidebar"]')
    back_to_sample_and_step(player)


def test_injection_in_paste_is_literal_and_fires_nothing(player):
    player.locator(".st-key-player_source label").filter(has_text="Paste").first.click()
    wait_idle(player)
    player.fill(".st-key-player_paste textarea", INJECTION)
    player.press(".st-key-player_paste textarea", "Control+Enter")
    wait_idle(player)
    player.wait_for_selector(f'{MP}[data-ready="1"]', timeout=30_000)
    player.wait_for_timeout(500)
    no_traceback(player)
    shown = player.inner_text(f"{MP} .mp-tokens").replace("·", " ")
    assert "<script>alert(1)</script>" in shown and "<style>body{display:none}</style>" in shown
    back_to_sample_and_step(player)


@pytest.mark.parametrize("path,key,size", [("/tokenize", "tok_text", 50_000_000),
                                           ("/pretokenizer", "lab_text", 3_000_000)])
def test_a_huge_paste_is_refused_by_the_box_and_the_page_keeps_working(page, server_url, path, key, size):
    """50 MB in a text box would overflow Streamlit's 25 MB widget-state limit (a traceback). The box has a
    character limit, shown in its label and counter; a paste over it is refused, and the page still works."""
    page.goto(server_url + path)
    wait_idle(page, 60_000)
    area = page.locator(f".st-key-{key} textarea")
    big = ("All work and no play makes Jack a dull boy. " * (size // 44 + 1))[:size]
    area.evaluate("(el, text) => { el.focus(); el.select(); document.execCommand('insertText', false, text); }", big)
    area.press("Control+Enter")
    wait_idle(page, 120_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert len(area.input_value()) <= 1_000_000 < size        # refused: the box never holds the paste
    assert "up to 1,000,000 characters" in page.locator(f".st-key-{key}").inner_text()
    area.fill("still working? yes")                           # and the page keeps working
    area.press("Control+Enter")
    wait_idle(page, 60_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert "still" in page.locator('[data-testid="stMain"]').inner_text()
