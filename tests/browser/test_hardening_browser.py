"""Bad input that needs a real browser (issues 7 and 14; the matrix is in tests/test_hardening.py): uploads
(AppTest has no file_uploader), huge pastes, and markup that must neither render nor fire alert()
(page.on("dialog")), nor request anything from another host.

Already in tests/browser/test_player_browser.py: latin-1 upload, 50 MB upload + "Train on the first 2 MB",
empty paste, invalid regex. Here: a binary file, a file named like markup, the full injection string.
Links and trainings that load the server (the catastrophic link, trainings stopped or in line, compile bombs):
tests/browser/test_guard_browser.py.
"""

from __future__ import annotations

import re
from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

import bpe

from .conftest import TOK_BOX, applied, open_path, shot, tokenize_settled, wait_idle

INJECTION = "<script>alert(1)</script><img src=x onerror=alert(2)><b>bold</b><style>body{display:none}</style>"
UPLOAD = ".st-key-player_upload input[type=file]"
MP = ".st-key-merge_player [data-testid=stBidiComponentIsolated] .mp"  # the merge player (shadow DOM)
MD_FILE_NAME = "**mdbold** ![i](https:example.invalid) [hl](https:example.invalid).txt"
PLAYER_ERROR = ".player-error"


def alerts(page) -> str:
    """Streamlit's alerts and the escaped message boxes (views/messages.py) that carry user strings."""
    return " ".join(page.locator('[data-testid="stAlert"], .bpe-msg').all_inner_texts())


def no_traceback(page) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.dialogs == []
    assert page.locator('img[src="x"]').count() == 0
    assert page.locator("b", has_text="bold").count() == 0
    assert page.locator('[data-testid="stApp"]').is_visible()  # no injected body{display:none}


def to_upload(page) -> None:
    page.locator(".st-key-player_source label").filter(has_text="Upload").first.click()
    wait_idle(page)


def upload(page, name: str, data: bytes) -> None:
    page.set_input_files(UPLOAD, files=[{"name": name, "mimeType": "text/plain", "buffer": data}])
    wait_idle(page, 120_000)


def back_to_sample_and_step(page) -> None:
    """The player comes back: on a sample, a step moves it one merge on (from where this session left it)."""
    page.locator(".st-key-player_source label").filter(has_text="Sample").first.click()
    wait_idle(page)
    page.wait_for_selector(f'{MP}[data-ready="1"]', timeout=30_000)
    wait_idle(page)
    status = page.locator(f"{MP} .mp-k")
    k = int(re.search(r"Merge ([\d,]+) /", status.inner_text()).group(1).replace(",", ""))
    page.click(f"{MP} .mp-step")
    expect(status).to_contain_text(f"Merge {k + 1:,} /")
    # the step's own run: the next action must not race it. The player reports a step 250 ms after it
    # (data-report "due" meanwhile), later than wait_idle's grace for an action: without this wait the next
    # click (Upload) could land as that report's run started, and the upload box never came (1 run of 3 at
    # load 18: set_input_files found no file input in 30 s)
    expect(page.locator(MP)).not_to_have_attribute("data-report", "due")
    wait_idle(page)


# ----------------------------------------------------------------------------------------------------
# The Tokenize, Pre-tokenizer lab and Token tax pages. Issue 7: a huge paste is cut or refused by the box and the
# page keeps working. Issue 14: Markdown and HTML in every upload's file name and every text field render as
# text; nothing is requested from another host (every request not to 127.0.0.1 is aborted and fails the test);
# upload errors name the user's file and clear. The promises of a page are checked one after the other on one
# page load of it (a page load is ~3 CPU-s of Chromium; each was a test and a page load of its own).

#: issue 14's file name (bold, an image and a link to a foreign host, if Markdown rendered it), and HTML
MD = "**mdbold** ![i](https://example.invalid/i.png) [hl](https://example.invalid/x) :smile: $x^2$"
HTML = '<strong>htmlbold</strong><img src="https://example.invalid/h.png"><a href="https://example.invalid/a">hlink</a>'
#: the same without double quotes, for file names (a browser sends one in a file name as %22); plotly's own
#: label markup (<b>, <a href='…'>) too, for the chart that names the tokenizers
HTML_NAME = (
    "<strong>htmlbold</strong><img src=https://example.invalid/h.png><a href=https://example.invalid/a>"
    "hlink</a><b>plotbold</b><a href='https://example.invalid/p'>plotlink</a>"
)
UPLOAD_INPUT = '.st-key-tok_upload input[type="file"]'
UPLOAD_CHIPS = '.st-key-tok_upload [data-testid="stFileChipDeleteBtn"]'  # one per file listed in the uploader
#: a file the uploader lists while it is still sending it (its chip shows a spinner until the upload is done)
UPLOAD_SENDING = '.st-key-tok_upload [data-testid="stFileChipIconSpinner"]'


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
    assert page.locator(".js-plotly-plot a").count() == 0
    assert page.locator('.js-plotly-plot tspan[style*="bold"]', has_text="plotbold").count() == 0
    assert page.locator('[data-testid="stException"]').count() == 0
    assert page.foreign == [] and page.dialogs == []


def huge_paste_refused(page, key: str, size: int = 3_000_000) -> None:
    """Issue 7: 50 MB in a text box would overflow Streamlit's 25 MB widget-state limit (a traceback). The box
    has a character limit, shown in its label and counter; a paste over it is refused, and the page still
    works. (Tokenize's own box: :func:`huge_paste_cut`.)"""
    area = page.locator(f".st-key-{key} textarea")
    big = ("All work and no play makes Jack a dull boy. " * (size // 44 + 1))[:size]
    area.evaluate("(el, text) => { el.focus(); el.select(); document.execCommand('insertText', false, text); }", big)
    area.press("Control+Enter")
    wait_idle(page, 120_000)
    assert page.locator('[data-testid="stException"]').count() == 0, "huge paste: a traceback"
    assert len(area.input_value()) <= 1_000_000 < size, "huge paste: the box holds it"  # refused
    assert "up to 1,000,000 characters" in page.locator(f".st-key-{key}").inner_text(), "huge paste: no limit"
    area.fill("still working? yes")  # and the page keeps working
    area.press("Control+Enter")
    wait_idle(page, 60_000)
    assert page.locator('[data-testid="stException"]').count() == 0, "after a huge paste: a traceback"
    assert "still" in page.locator('[data-testid="stMain"]').inner_text(), "after a huge paste: not working"


def huge_paste_cut(page) -> None:
    """Issue 7 on the Tokenize view's box, which has the same character limit (its maxlength, shown in its
    label): a paste three times the limit keeps its first 1,000,000 characters, every column encodes them, and
    the page keeps working. (3 MB, as the lab's box is tested: the browser cuts a 50 MB paste the same way, but
    handing 50 MB to Chromium's insertText through Playwright took ~95 s of this test, the app's part ~0.3 s a
    column.)"""
    area = page.locator(TOK_BOX)
    big = ("All work and no play makes Jack a dull boy. " * (3_000_000 // 44 + 1))[:3_000_000]
    area.evaluate("(el, text) => { el.focus(); el.select(); document.execCommand('insertText', false, text); }", big)
    tokenize_settled(page, 180_000)
    assert page.locator('[data-testid="stException"]').count() == 0, "huge paste: a traceback"
    assert len(area.input_value()) == 1_000_000 < len(big), "huge paste: not cut to the limit"
    assert "up to 1,000,000 characters" in page.locator(".tkz-label").inner_text(), "huge paste: no limit"
    assert page.locator('.tok-col-cl100k_base [data-stat="chars"] .tokv-v').inner_text() == "1,000,000"
    # drawn where one looks: a few blocks of the ~220,000 tokens, the rest drawn as the column scrolls
    spans = page.locator(".tok-col-cl100k_base .tokv-spans")
    total = int(spans.get_attribute("data-tokens"))
    assert total > 200_000 and spans.locator(".bpe-tok").count() < total // 20, "huge paste: all drawn at once"
    spans.evaluate("el => { el.scrollTop = el.scrollHeight; }")
    spans.locator(".tkz-block").last.locator(".bpe-tok").last.wait_for()
    assert spans.locator(".bpe-tok").count() < total // 20, "huge paste: all drawn on a scroll"
    area.fill("still working? yes")  # and the page keeps working
    tokenize_settled(page)
    assert page.locator('[data-testid="stException"]').count() == 0, "after a huge paste: a traceback"
    assert "still" in page.locator(".tok-col-cl100k_base .tokv-spans").inner_text(), "after a huge paste"


def fields_render_as_text(page, fields: list[str]) -> None:
    """Issue 14: Markdown and HTML typed into each text field (widget keys ``fields``) render as text."""
    for key in fields:
        for value in (MD, HTML):
            if key == "tok_text":  # the Tokenize view's own box: the columns follow as it is typed
                page.locator(TOK_BOX).fill(value)
                tokenize_settled(page)
                no_user_markup(page)
                continue
            box = page.locator(f".st-key-{key} textarea, .st-key-{key} input")
            box.fill(value)
            box.press("Control+Enter" if key.endswith("text") else "Enter")
            applied(page, key)
            wait_idle(page, 60_000)
            no_user_markup(page)


def upload_files(page, files: list[tuple[str, bytes]]) -> None:
    page.set_input_files(
        UPLOAD_INPUT, files=[{"name": n, "mimeType": "application/octet-stream", "buffer": b} for n, b in files]
    )
    # each file is listed in the uploader and sent (the last one's end asks for the run that reads them all:
    # a chip is listed before its file is sent, and a wait started then could end on the run before), then
    # the script has run
    expect(page.locator(UPLOAD_CHIPS)).to_have_count(len(files), timeout=120_000)
    expect(page.locator(UPLOAD_SENDING)).to_have_count(0, timeout=120_000)
    wait_idle(page, 120_000)


def uploads_render_as_text(page) -> None:
    """Issue 14 on Tokenize's uploader: upload errors name the user's file (as text) and clear when the files
    are removed; a good file named like HTML names its column, table row and picker chip as text."""
    good = bpe.dumps(bpe.train("hello hello world", 262, pattern="gpt4").tokenizer(), "hf")["tokenizer.json"]
    dup = b"".join(f"{__import__('base64').b64encode(bytes([b])).decode()} {b}\n".encode() for b in range(256))
    dup += b"YWI= 256\nYWI= 257\n"
    page.get_by_role("button", name="Your own tokenizer").click()  # a panel of the bar (issue 31)
    upload_files(
        page,
        [
            (MD + ".json", b"{nope"),
            (HTML_NAME + ".json", good),
            ("nested.json", b"[" * 100_000 + b"]" * 100_000),
            ("dup.tiktoken", dup),
        ],
    )
    page.wait_for_selector(".tok-upload-ok")
    errors = page.locator(".tok-upload-error").all_inner_texts()
    assert len(errors) == 3, errors
    assert any(f"{MD}.json is not valid JSON" in e for e in errors), errors
    assert any("nested.json nests arrays or objects too deeply" in e for e in errors), errors
    assert any("dup.tiktoken, line 258" in e and "already has rank 256" in e for e in errors), errors
    shown = page.locator('[data-testid="stMain"]').inner_text()
    assert "RecursionError" not in shown and "/tmp" not in shown and "Traceback" not in shown
    # the good file named like HTML: its column title and picker chip show the name as text
    page.wait_for_selector('[class*="tok-col-upload_"] .tokv-spans', timeout=60_000)
    title = page.locator('[class*="tok-col-upload_"] .tokv-title').inner_text()
    assert title == f"Uploaded: {HTML_NAME}.json"
    # the comparison table names it as typed, in one cell (no markup applied)
    labels = page.locator(".tkz-compare .tokv-cname").all_inner_texts()
    assert f"Uploaded: {HTML_NAME}.json" in labels
    assert page.locator(".tkz-compare .tokv-cname b, .tkz-compare .tokv-cname a").count() == 0
    assert HTML_NAME in page.locator(".st-key-tok_choice").inner_text()
    no_user_markup(page)
    shot(page, "hardening-tokenize-uploads")
    # removing the files clears their errors; a good upload then shows none
    delete = page.locator(UPLOAD_CHIPS)
    while n := delete.count():
        delete.first.click()
        expect(delete).to_have_count(n - 1)
        wait_idle(page, 60_000)
    assert page.locator(".tok-upload-error").count() == 0, "upload errors outlived their files"
    upload_files(page, [("tokenizer.json", good)])
    page.wait_for_selector(".tok-upload-ok")
    assert page.locator(".tok-upload-error").count() == 0
    no_user_markup(page)


def test_the_lab_refuses_a_huge_paste_and_renders_markup_as_text(offline, server_url):
    """On one page of the Pre-tokenizer lab: a 3 MB paste is refused by its box and the page keeps working
    (:func:`huge_paste_refused`); then Markdown and HTML in its text and custom-pattern boxes render as text
    (:func:`fields_render_as_text`). Nothing is requested from another host, no alert() fires (``offline``)."""
    page = offline
    open_path(page, server_url, "/pretokenizer", ".st-key-lab_text textarea", timeout_ms=60_000)
    huge_paste_refused(page, "lab_text")
    fields_render_as_text(page, ["lab_text", "lab_custom"])
    shot(page, "hardening-text-fields-pretokenizer")


def test_tokenize_cuts_a_huge_paste_and_renders_markup_and_file_names_as_text(offline, server_url):
    """On one page of Tokenize: a 3 MB paste is cut to the box's limit and the page keeps working
    (:func:`huge_paste_cut`); Markdown and HTML in its text box and its trace box render as text
    (:func:`fields_render_as_text`); uploads named like Markdown and HTML, and broken ones, show their names
    and errors as text, which clear (:func:`uploads_render_as_text`). Nothing is requested from another host,
    no alert() fires (``offline``)."""
    page = offline
    open_path(page, server_url, "/tokenize", ".tokv-spans", timeout_ms=60_000)
    tokenize_settled(page)
    huge_paste_cut(page)
    fields_render_as_text(page, ["tok_text", "tok_trace_word"])
    shot(page, "hardening-text-fields-tokenize")
    uploads_render_as_text(page)


def test_token_tax_requests_nothing_from_other_hosts(offline, server_url):
    # the page loads every vocabulary once per server (~25 s of a loaded machine when it is the first Token tax
    # page of this server, as when this file runs alone): the waits are hang detectors
    open_path(offline, server_url, "/token-tax", ".st-key-tax_chart_box .js-plotly-plot", timeout_ms=150_000)
    offline.wait_for_selector(".st-key-tax_chart_box .heatmaplayer", timeout=90_000)
    no_user_markup(offline)


# ----------------------------------------------------------------------------------------------------
# Issues 7 and 14 on the Merge player: a binary file, a file named like HTML, issue 14's Markdown file name
# really uploaded, the injection string pasted.


def test_player_uploads_and_pastes_of_markup_and_binary_render_as_text(offline, server_url):
    """On one player page (each was a page load of its own, ~3 CPU-s each), one after the other, each ending
    back on a sample that steps (the player comes back): a binary file says it is not UTF-8 (issue 7); a file
    named like HTML shows its name as text; issue 14 item 3 exactly, a file with its Markdown name, empty and
    not UTF-8: no bold, no image request to that host, no link; the full injection string pasted is drawn
    literally and fires nothing (no alert(): ``offline`` records dialogs, and any request to another host)."""
    page = offline
    page.goto(server_url)
    wait_idle(page, 60_000)
    page.wait_for_selector(f'{MP}[data-ready="1"]', timeout=30_000)

    # a binary file
    to_upload(page)
    upload(page, "image.txt", b"\x89PNG\r\n\x1a\n\x00\xff\xfe" + bytes(range(256)))
    expect(page.locator(PLAYER_ERROR)).to_contain_text("image.txt is not UTF-8")
    assert "0x89" in alerts(page), "a binary upload names its first bad byte"
    no_traceback(page)
    back_to_sample_and_step(page)

    # a file named like HTML
    name = "<img src=x onerror=alert(1)>"
    to_upload(page)
    upload(page, name + ".txt", b"hello hello world, hello world " * 20)
    page.wait_for_function(
        "(name) => [...document.querySelectorAll('[data-testid=stMain], [data-testid=stSidebar]')]"
        ".some(e => e.innerText.includes(name))",
        arg=name,
    )
    no_traceback(page)
    shown = page.inner_text('[data-testid="stMain"]') + page.inner_text('[data-testid="stSidebar"]')
    assert name in shown, "a file named like HTML shows its name as text"
    back_to_sample_and_step(page)

    # issue 14 item 3: the Markdown file name, empty and not UTF-8
    for data, words, label in [(b"", "is empty", "empty"), (b"\xff\xfe\x00not utf-8", "is not UTF-8 text", "binary")]:
        to_upload(page)
        upload(page, MD_FILE_NAME, data)
        expect(page.locator(PLAYER_ERROR)).to_contain_text(f"{MD_FILE_NAME} {words}")
        no_user_markup(page)
        assert page.locator("strong", has_text="mdbold").count() == 0, f"issue 14 item 3 ({label}): bold"
        shot(page, f"hardening-player-md-upload-{label}")
        back_to_sample_and_step(page)

    # the injection string, pasted
    page.locator(".st-key-player_source label").filter(has_text="Paste").first.click()
    wait_idle(page)
    page.fill(".st-key-player_paste textarea", INJECTION)
    page.press(".st-key-player_paste textarea", "Control+Enter")
    wait_idle(page)
    page.wait_for_selector(f'{MP}[data-ready="1"]', timeout=30_000)
    expect(page.locator(f"{MP} .mp-tokens")).to_contain_text("<script>alert(1)</script>")  # drawn
    no_traceback(page)
    shown = page.inner_text(f"{MP} .mp-tokens").replace("·", " ")
    assert "<script>alert(1)</script>" in shown and "<style>body{display:none}</style>" in shown, "injection"
    back_to_sample_and_step(page)
