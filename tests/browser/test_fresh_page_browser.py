"""A fresh page served by one plain ``streamlit run app.py`` (the session's server): its static files arrive
gzip-compressed, it loads none of the heavy chunks it does not draw (plotly, the data grid, the syntax
highlighter), and its bytes on the wire stay within issue 26's bound (1.5 MB: HTTP responses as received,
plus the websocket frames before the page is ready). Sizes only: the times are ``bench/fresh_page.py``'s."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path

import pytest
import streamlit

from testkit.fresh_page import PAGES, fresh

BOUND = 1_500_000
#: Streamlit's heavy chunks (the start of their file names), none of which a fresh Tokenize or player page draws
HEAVY = (
    "PlotlyChart.",
    "DataFrame.",
    "arrowFormatUtils.",
    "StreamlitSyntaxHighlighter.",
    "katex.",
    "rehype-katex.",
    "DeckGlJsonChart.",
    "ArrowVegaLiteChart.",
    "embed.",
    "EChartsChart.",
    "GraphVizChart.",
    "elk-",
    "cytoscape.",
)


@pytest.mark.parametrize("name, path, ready", PAGES, ids=[p[0] for p in PAGES])
def test_a_fresh_page_is_compressed_light_and_within_the_bound(browser, server_url, name, path, ready):
    url = server_url + "/"
    fig, responses = fresh(browser, url, path, ready)
    static = [r for r in responses if "/static/" in r["url"] and r["status"] == 200]
    assert len(static) > 40
    # every script and style sheet worth it came gzip-compressed (the server's copies); fonts (woff2) as they are
    texts = [r for r in static if r["url"].endswith((".js", ".css")) and r["decoded"] >= 1000]
    plain = [r["url"] for r in texts if r["encoding"] != "gzip"]
    assert texts and not plain, plain
    assert sum(r["wire"] for r in texts) < 0.4 * sum(r["decoded"] for r in texts)
    heavy = [r["url"] for r in responses if r["url"].rsplit("/", 1)[-1].startswith(HEAVY)]
    assert not heavy, heavy
    assert fig["ws_bytes"] > 0 and fig["bytes"] == fig["http_bytes"] + fig["ws_bytes"]
    assert fig["bytes"] <= BOUND, (
        f"{name}: {fig['bytes'] / 1e6:.2f} MB on the wire "
        f"({fig['http_bytes'] / 1e6:.2f} HTTP + {fig['ws_bytes'] / 1e6:.2f} websocket)"
    )


#: Streamlit's own index.html: what it preloads itself
INDEX = (Path(streamlit.__file__).parent / "static" / "index.html").read_text()


def served_hints(url: str) -> list[str]:
    """The files a page's served index.html has preloaded at its load event (``serving.hints``), as URLs."""
    with urllib.request.urlopen(url, timeout=30) as r:
        page = r.read().decode()
    found = re.search(r"<script data-preload='([^']*)'>", page)
    return [url.rsplit("/", 1)[0] + "/static/js/" + m for m in json.loads(found[1])] if found else []


@pytest.mark.parametrize("name, path, ready", PAGES, ids=[p[0] for p in PAGES])
def test_the_served_hints_are_what_the_page_then_loads(browser, server_url, name, path, ready):
    """Issue 31 (a fresh page ready sooner): the element chunks Streamlit's frontend would ask for only once the
    first run's elements arrive are preloaded by the page's HTML, once it has loaded. Every hinted file exists and is used, and the
    page asks for no script it was not told of (its index.html's own preloads or the hints)."""
    url = server_url + "/"
    hinted = served_hints(url + path)
    assert len(hinted) > 20
    assert any("/BidiComponent." in h for h in hinted) and any("/Radio." in h for h in hinted)
    _, responses = fresh(browser, url, path, ready)
    loaded = {r["url"]: r["status"] for r in responses}
    unused = [h for h in hinted if loaded.get(h) != 200]
    assert not unused, f"{unused}: hinted, not used (serving.hints.PAGE_ELEMENTS)"
    untold = [
        u for u in loaded if "/static/js/" in u and u not in hinted and f"static/js/{u.rsplit('/', 1)[-1]}" not in INDEX
    ]
    assert not untold, f"{untold}: add the element they draw to serving.hints.PAGE_ELEMENTS"


def test_the_hints_fetch_the_chunks_before_the_first_run_asks(browser, server_url):
    """The hinted chunks are fetched by the hints, all at once when the page has loaded."""
    url = server_url + "/"
    hinted = set(served_hints(url + "tokenize"))
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = ctx.new_page()
        page.goto(url + "tokenize")
        page.wait_for_selector(PAGES[0][2], timeout=60_000)
        entries = page.evaluate(
            "performance.getEntriesByType('resource').map(e => [e.name, e.initiatorType, e.startTime])"
        )
        load = page.evaluate("performance.getEntriesByType('navigation')[0].loadEventStart")
    finally:
        ctx.close()
    # added together at the page's load event (after its main script, before the first run's elements): not
    # asked for in waves as the elements arrive, the chain the page had without them
    starts = {name: start for name, _, start in entries}
    assert hinted <= set(starts), hinted - set(starts)
    first, last = min(starts[h] for h in hinted), max(starts[h] for h in hinted)
    assert load <= first and last - first < 250, (load, first, last)
