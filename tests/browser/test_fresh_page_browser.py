"""A fresh page served by one plain ``streamlit run app.py`` (the session's server): its static files arrive
gzip-compressed, it loads none of the heavy chunks it does not draw (plotly, the data grid, the syntax
highlighter), and its bytes on the wire stay within issue 26's bound (1.5 MB: HTTP responses as received,
plus the websocket frames before the page is ready). Sizes only: the times are ``bench/fresh_page.py``'s."""

from __future__ import annotations

import pytest

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
