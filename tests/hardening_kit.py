"""What the hardening tests share (tests/test_hardening*.py, issues 7, 14 and 21): the pages, the bad inputs
used on more than one of them, how a page is opened, what "said it, no traceback, no markup" means, and the
CLI run in a subprocess (capped with ``ulimit -v`` where a reader that slipped would fill memory)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import player_driver as P
from helpers import html_bodies, open_app, own_script, page_messages
from streamlit.testing.v1 import AppTest

import appstate.keys

ROOT = Path(__file__).resolve().parents[1]

CATASTROPHIC = r"(a|a)+$"  # exponential even in `regex` (which defuses (a+)+$)
CATASTROPHIC_TEXT = "a" * 40 + "!"
INJECTION = "<script>alert(1)</script><img src=x onerror=alert(2)><b>bold</b><style>body{display:none}</style>"
SUBMIT = "FormSubmitter:player_paste_form-Train on this text"
TOKENIZE = "app_pages/tokenize_page.py"
LAB = "app_pages/pretokenizer_lab.py"
CLASSROOM = "app_pages/classroom.py"
TOKEN_TAX = "app_pages/token_tax.py"


def no_traceback(at: AppTest) -> None:
    assert not at.exception, [e.message for e in at.exception]


def messages(at: AppTest) -> str:
    """Every error, warning and info box on the page, one string (Streamlit's own boxes and the escaped
    HTML ones that carry user strings, ``views.messages.message_html``)."""
    return " | ".join(
        [e.value for e in at.error]
        + [w.value for w in at.warning]
        + [i.value for i in at.info]
        + page_messages(at, "error")
        + page_messages(at, "warning")
        + page_messages(at, "info")
    )


def errors(at: AppTest) -> list[str]:
    """The page's error messages: ``st.error`` boxes and escaped HTML error boxes."""
    return [e.value for e in at.error] + page_messages(at, "error")


def assert_no_markup(at: AppTest, *, style_ok: tuple[str, ...] = ()) -> None:
    """No user markup rendered: no <script> (but the page's own fixed script block, exactly), <img>, <b>bold or
    injected <style> in any st.html body, and no raw tag in any markdown element."""
    for body in html_bodies(at):
        assert own_script(body) or "<script" not in body, body[:300]
        assert "<img" not in body and "<b>bold" not in body, body[:300]
        assert "body{display:none}" not in body.replace("&lt;style&gt;body{display:none}", ""), body[:300]
    for md in at.markdown:
        assert "<script" not in md.value and "<img" not in md.value


def player_app() -> AppTest:
    return open_app()


def player_at(at: AppTest) -> int:
    """The merge the player shows (its control), after checking it is there exactly once."""
    assert P.mounted(at), "the player is drawn"
    return P.k(at)


def player_still_works(at: AppTest) -> None:
    """Back to a sample, the player trains and steps."""
    at.radio(key="player_source").set_value("sample").run()
    if at.session_state[appstate.keys.PLAYER_PATTERN] == "custom":
        at.selectbox(key="player_pattern").set_value("gpt4").run()
    at.selectbox(key="player_sample").set_value("aaabdaaabac").run()
    no_traceback(at)
    assert not errors(at)
    P.step(at)
    no_traceback(at)
    assert player_at(at) == 1 and P.run_payload(at)["n"] == 3


def paste(at: AppTest, text: str, **state) -> AppTest:
    at.radio(key="player_source").set_value("paste").run()
    for key, value in state.items():
        at.session_state[key] = value
    at.text_area(key=appstate.keys.PLAYER_PASTE).input(text)
    at.button(key=SUBMIT).click().run()
    return at


def page_app(page: str) -> AppTest:
    """``page`` after the Merge player, as a tab that came from the home page."""
    return open_app(page, first_run=True)


def assert_said(at: AppTest, fragment: str | None) -> None:
    """No traceback, no user markup rendered, and ``fragment`` among the page's messages (``None``: no error)."""
    no_traceback(at)
    if fragment is None:
        assert not errors(at), messages(at)
    else:
        assert fragment in messages(at), messages(at)
    assert_no_markup(at)


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    env.pop("BPE_LAB_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "bpe", *args], input=b"", capture_output=True, cwd=cwd, env=env, timeout=120
    )


def one_line_error(result: subprocess.CompletedProcess) -> str:
    err = result.stderr.decode("utf-8")
    assert result.returncode != 0
    assert "Traceback" not in err and err.startswith("bpe: error: ") and err.count("\n") == 1, err
    return err


def link_app(query: dict) -> AppTest:
    at = AppTest.from_file("../app.py", default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    return at
