"""The Tokenize page's driver for browser tests: open it, wait for every column, read what the view holds.

The view is a browser component in a shadow root (components/tokenize_view); Playwright's locators pierce it.
Used by test_tokenize_browser.py and test_tokenize_uploads_browser.py.
"""

from __future__ import annotations

from .conftest import choose_preset, open_path, tokenize_settled


def settled(page, timeout: float = 60_000) -> None:
    tokenize_settled(page, timeout)


def open_tokenize(page, server_url):
    open_path(page, server_url, "/tokenize", ".tkz .tokv-spans")
    settled(page)
    return page


def choose(page, title: str) -> None:
    choose_preset(page, "tok_preset", title)
    settled(page)


def col(slug: str) -> str:
    return f".tok-col-{slug}"


#: an uploaded tokenizer's column (its key ends in the upload's digest)
UPLOAD_COLUMN = '[class*="tok-col-upload_"]'


def upload_tokens(page) -> list[int]:
    return [
        int(t.replace(",", "")) for t in page.locator(f'{UPLOAD_COLUMN} [data-stat="tokens"] .tokv-v').all_inner_texts()
    ]


def column_tokens(page, slug: str) -> int:
    return int(page.locator(f'{col(slug)} [data-stat="tokens"] .tokv-v').inner_text().replace(",", ""))


def view_state(page) -> dict:
    """The text in the box and, per column slug, the ids the view holds and the text it drew them on."""
    return page.locator(".tkz").evaluate(
        """el => { const v = el.__tkz; const out = {text: v.box.value, cols: {}};
           for (const c of v.cols.values()) out.cols[c.slug] = {ids: c.ids.slice(), text: v.textOf(c)};
           return out; }"""
    )


def submit(page, text: str) -> None:
    """Replace the box's text as a paste does (one input event), and wait for every column."""
    page.locator(".tkz-text").fill(text)
    settled(page)


def caret(page, where: int) -> None:
    page.locator(".tkz").evaluate(
        "(el, p) => { const b = el.querySelector('.tkz-text'); b.focus(); b.setSelectionRange(p, p); }", where
    )
