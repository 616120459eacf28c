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


# ----------------------------------------------------------------------------------------------------
# Issue 14 on the Tokenize, Pre-tokenizer lab and Token tax pages: Markdown and HTML in every upload's file name
# and every text field render as text; nothing is requested from another host (every request not to
# 127.0.0.1 is aborted and fails the test); upload errors name the user's file and clear.

from urllib.parse import urlparse  # noqa: E402

import bpe  # noqa: E402

from .conftest import open_path, shot  # noqa: E402

#: issue 14's file name (bold, an image and a link to a foreign host, if Markdown rendered it), and HTML
MD = "**mdbold** ![i](https://example.invalid/i.png) [hl](https://example.invalid/x) :smile: $x^2$"
HTML = '<strong>htmlbold</strong><img src="https://example.invalid/h.png"><a href="https://example.invalid/a">hlink</a>'
#: the same without double quotes, for file names (a browser sends one in a file name as %22); plotly's own
#: label markup (<b>, <a href='…'>) too, for the chart that names the tokenizers
HTML_NAME = ("<strong>htmlbold</strong><img src=https://example.invalid/h.png><a href=https://example.invalid/a>"
             "hlink</a><b>plotbold</b><a href='https://example.invalid/p'>plotlink</a>")
UPLOAD_INPUT = '.st-key-tok_upload input[type="file"]'


@pytest.fixture
def offline(page):
    """The page with every request to another host aborted and recorded (the test fails on any), and
    alert() dialogs recorded."""
    foreign: list[str] = []
    dialogs: list[str] = []

    def route(r):
        url = urlparse(r.request.url)
        if url.scheme in ("data", "blob") or url.hostname == "127.0.0.1":
            r.continue_()
        else:
            foreign.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.foreign, page.dialogs = foreign, dialogs
    yield page
    assert foreign == [], f"requests to other hosts: {foreign}"
    assert dialogs == []


def no_user_markup(page) -> None:
    """No element the user wrote as text: no bold, image, link, emoji or math made from user input."""
    main = page.locator('[data-testid="stMain"]')
    assert main.locator("strong", has_text="mdbold").count() == 0
    assert main.locator("strong", has_text="htmlbold").count() == 0
    assert page.locator('img[src*="example.invalid"]').count() == 0
    assert page.locator('a[href*="example.invalid"]').count() == 0
    assert main.locator(".katex").count() == 0
    # plotly's labels: no bold tspan and no SVG link made from a name
    assert page.locator('.js-plotly-plot a').count() == 0
    assert page.locator('.js-plotly-plot tspan[style*="bold"]', has_text="plotbold").count() == 0
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.foreign == [] and page.dialogs == []


def open_uploader(page, server_url):
    open_path(page, server_url, "/tokenize", ".tokv-spans")
    page.get_by_text("Your own tokenizer").click()


def upload_files(page, files: list[tuple[str, bytes]]) -> None:
    page.set_input_files(UPLOAD_INPUT, files=[{"name": n, "mimeType": "application/octet-stream", "buffer": b}
                                              for n, b in files])
    page.wait_for_timeout(300)
    wait_idle(page, 120_000)


def test_tokenize_upload_names_and_errors_render_as_text(offline, server_url):
    page = offline
    good = bpe.dumps(bpe.train("hello hello world", 262, pattern="gpt4").tokenizer(), "hf")["tokenizer.json"]
    dup = b"".join(f"{__import__('base64').b64encode(bytes([b])).decode()} {b}\n".encode() for b in range(256))
    dup += b"YWI= 256\nYWI= 257\n"
    open_uploader(page, server_url)
    upload_files(page, [(MD + ".json", b"{nope"), (HTML_NAME + ".json", good), ("nested.json", b"[" * 100_000 + b"]" * 100_000),
                        ("dup.tiktoken", dup)])
    page.wait_for_selector(".tok-upload-ok")
    errors = page.locator(".tok-upload-error").all_inner_texts()
    assert len(errors) == 3
    assert any(f"{MD}.json is not valid JSON" in e for e in errors)
    assert any("nested.json nests arrays or objects too deeply" in e for e in errors)
    assert any("dup.tiktoken, line 258" in e and "already has rank 256" in e for e in errors)
    shown = page.locator('[data-testid="stMain"]').inner_text()
    assert "RecursionError" not in shown and "/tmp" not in shown and "Traceback" not in shown
    # the good file named like HTML: its column title and picker chip show the name as text
    page.wait_for_selector('[class*="st-key-tok_col_upload_"] .tokv-spans', timeout=60_000)
    title = page.locator('[class*="st-key-tok_col_upload_"] .tokv-title').inner_text()
    assert title == f"Uploaded: {HTML_NAME}.json"
    # the comparison chart names it as typed, in one label (plotly's markup not applied)
    labels = page.locator(".st-key-tok_counts_chart .ytick text").evaluate_all("els => els.map(e => e.textContent)")
    assert f"Uploaded: {HTML_NAME}.json" in labels
    assert HTML_NAME in page.locator(".st-key-tok_choice").inner_text()
    no_user_markup(page)
    shot(page, "hardening-tokenize-uploads")
    # removing the files clears their errors; a good upload then shows none
    delete = page.locator('.st-key-tok_upload [data-testid="stFileChipDeleteBtn"]')
    while delete.count():
        delete.first.click()
        page.wait_for_timeout(300)
        wait_idle(page, 60_000)
    assert page.locator(".tok-upload-error").count() == 0
    upload_files(page, [("tokenizer.json", good)])
    page.wait_for_selector(".tok-upload-ok")
    assert page.locator(".tok-upload-error").count() == 0
    no_user_markup(page)


@pytest.mark.parametrize("path, fields", [
    ("/tokenize", ["tok_text", "tok_trace_word"]),
    ("/pretokenizer", ["lab_text", "lab_custom"]),
], ids=["tokenize", "lab"])
def test_markdown_and_html_in_text_fields_render_as_text(offline, server_url, path, fields):
    page = offline
    open_path(page, server_url, path, '[data-testid="stMain"]')
    for key in fields:
        for value in (MD, HTML):
            box = page.locator(f".st-key-{key} textarea, .st-key-{key} input")
            box.fill(value)
            box.press("Control+Enter" if key.endswith("text") else "Enter")
            page.wait_for_timeout(300)
            wait_idle(page, 60_000)
            no_user_markup(page)
    shot(page, f"hardening-text-fields-{path.strip('/')}")


def test_token_tax_requests_nothing_from_other_hosts(offline, server_url):
    open_path(offline, server_url, "/token-tax", ".st-key-tax_chart_box .js-plotly-plot")
    offline.wait_for_selector(".st-key-tax_chart_box .heatmaplayer", timeout=90_000)
    no_user_markup(offline)
