"""A fresh Tokenize page through AppTest (issue 31: ready sooner): a session's first run draws the text box and
the columns' tokens, with a likeness of the settings bar in its place; once the view reports its tokens drawn,
the next run draws the bar and the trace section, and the columns are not sent again.

AppTest's first run is always the default page (the player), so a fresh session's first run of Tokenize is
made by forgetting that one (``appstate.keys.APP_FIRST_RUN``, as app.py sets it, and what the player trained).
Expected ids come from tiktoken.
"""

from __future__ import annotations

import tokenize_driver as T
from helpers import APP, PRESETS, html_bodies, no_exception
from streamlit.testing.v1 import AppTest
from tiktoken_reference import tiktoken_encoding

import appstate.keys as K
import bpe

PAGE = "app_pages/tokenize_page.py"


def fresh_page(**query: str) -> AppTest:
    """A session whose first run is the Tokenize page (a tab opened on /tokenize, its link's ``query``)."""
    at = AppTest.from_file(str(APP), default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    no_exception(at.run())
    for key in (K.APP_FIRST_RUN, K.PLAYER_RUN, K.PLAYER_TEXT, K.PLAYER_STEP):
        if key in at.session_state:
            del at.session_state[key]
    at.switch_page(PAGE)
    return no_exception(at.run())


def report_drawn(at: AppTest) -> AppTest:
    """What the view reports once it has drawn a mail marked ``rest``: its text and the versions it holds."""
    mail = T.mail(at)
    at.session_state[K.TOK_VIEW] = {"drawn": {"tid": mail["tid"], "have": {c["key"]: c["v"] for c in mail["cols"]}}}
    return no_exception(at.run())


def test_a_fresh_page_draws_its_tokens_first_and_the_rest_in_the_next_run():
    at = fresh_page()
    text = PRESETS["prose"]["text"]
    cl100k = tiktoken_encoding("cl100k_base")
    # first run: the view and every column's tokens, the mail asking for the rest; no widget of the page
    assert T.settings(at)["text"] == text
    assert [c["slug"] for c in T.columns(at)] == ["trained", "cl100k_base", "o200k_base"]
    assert T.column(at, "cl100k_base")["ids"] == cl100k.encode(text)
    assert T.mail(at).get("rest") is True
    assert not at.multiselect and not at.selectbox and not at.text_input and not at.slider
    assert not at.toggle and not at.radio  # (the shared sidebar's too)
    assert not any('class="tokv-trace"' in b for b in html_bodies(at))
    # in the bar's place its likeness: the preset and the tokenizers chosen, named
    skeleton = " ".join(m.value for m in at.markdown if "tok-skel" in m.value)
    for words in (PRESETS["prose"]["title"], bpe.PRETRAINED["cl100k_base"].label, "Your own tokenizer", "Options"):
        assert words in skeleton
    first_settings, first_cols = T.settings(at), T.columns(at)

    at = report_drawn(at)
    # the next run: the bar with the very choice the first run drew with, the trace section (one per column)
    assert at.multiselect(key=K.TOK_CHOICE).value == ["trained", "cl100k_base", "o200k_base"]
    assert at.toggle(key="tok_special").value is True and at.toggle(key="tok_ids").value is True
    assert at.text_input(key="tok_trace_word") is not None
    assert at.radio(key=K.PALETTE).value == "default" and at.toggle(key=K.PRESENTER).value is False  # (sidebar)
    assert len([b for b in html_bodies(at) if 'class="tokv-trace"' in b]) == 3
    assert not any("tok-skel" in m.value for m in at.markdown)
    # the view's settings are the first run's (it is not drawn anew) and no column is sent again
    assert T.settings(at) == first_settings
    mail = T.mail(at)
    assert "rest" not in mail
    assert [c["key"] for c in mail["cols"]] == [c["key"] for c in first_cols]
    assert all("ids" not in c for c in mail["cols"]), "the columns the view holds are not sent again"


def test_after_the_first_run_every_run_draws_the_whole_page():
    at = report_drawn(fresh_page())
    T.type_text(at, "Every run after the first draws it all.")
    assert at.multiselect(key=K.TOK_CHOICE) is not None
    assert len([b for b in html_bodies(at) if 'class="tokv-trace"' in b]) == 3
    assert "rest" not in T.mail(at)
    at.switch_page("app_pages/player.py").run()
    at.switch_page(PAGE).run()
    no_exception(at)
    assert at.multiselect(key=K.TOK_CHOICE) is not None and "rest" not in T.mail(at)
    assert T.settings(at)["text"] == "Every run after the first draws it all."
