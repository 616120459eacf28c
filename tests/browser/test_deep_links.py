"""Deep links must work as the very first request a freshly started server sees.

Streamlit runs a file from a folder named ``pages/`` beside ``app.py`` directly ("legacy" multipage mode)
until some session has called ``st.navigation``; so the pages live in ``app_pages/``. Each test here
starts its own server and opens a deep link first thing.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import settled, shot, start_server, wait_idle

LINKS = [  # (link, a selector only that page draws, text it must show)
    ("/classroom?lesson=2&step=2", ".cls-head", "Step 2 / 3"),
    ("/tokenize", ".tokv-spans", "Tokenize"),
    ("/pretokenizer", ".lab-view", "Pre-tokenizer lab"),
]


@pytest.mark.parametrize("path,selector,text", LINKS)
def test_deep_link_is_the_first_request(browser, path, selector, text):
    proc, url = start_server()
    try:
        ctx = browser.new_context(viewport={"width": 1400, "height": 1600})
        page = ctx.new_page()
        page.goto(url + path)
        wait_idle(page, 60_000)
        page.wait_for_selector(selector, timeout=30_000)
        settled(page, '[data-testid="stMain"]')
        shot(page, "deep-link-" + path.strip("/").split("?")[0])
        assert not page.get_by_text("Page not found").count()
        # The app's own navigation and shared sidebar are there (a page run on its own has neither).
        nav = page.locator('[data-testid="stSidebarNav"]')
        assert nav.count() == 1 and "Merge player" in nav.inner_text()
        # (the radio's code loads on first use: Streamlit fetches a widget's module lazily, so wait for it)
        expect(page.get_by_text("Colors")).not_to_have_count(0)
        page.wait_for_selector(selector, timeout=30_000)
        assert text in page.locator('[data-testid="stMain"]').inner_text()
        ctx.close()
    finally:
        proc.terminate()
        proc.wait(10)
