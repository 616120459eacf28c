"""Issue 32, items 1 and 7, on the user's path: a link whose pattern hides a counted repeat from the old
scanner (in a ``(?#...)`` comment, in a ``(?x)`` comment) or carries flags the ``regex`` module rejects gets a
one-line refusal in the player's note; the server stays up and small, and another session's fresh page loads
meanwhile.

The issue's 30-byte link is ``/?pattern=(?#[)a{4000000}(?#])``; a browser takes a bare ``#`` for the start
of the fragment, so the link that reaches the server spells it ``%23`` (as the attacker's did).
"""

from __future__ import annotations

import time
from urllib.parse import quote

from testkit.app_server import PeakRss, tree_rss_mb

from .conftest import shot, wait_idle

MP = ".st-key-merge_player [data-testid=stBidiComponentIsolated] .mp"  # the merge player (shadow DOM)

#: (pattern, what the one-line refusal says)
LINKS = [
    ("(?#[)a{4000000}(?#])", "is not a valid regex (the pattern is too large to compile"),
    ("(?x)a#[\n{4000000}#]", "is not a valid regex (the pattern is too large to compile"),
    ("(?V0)x", "is not a valid regex (the pattern does not compile: its flags conflict"),
    ("(?a)(?u)x", "is not a valid regex (the pattern does not compile: its flags conflict"),
]


def test_links_hiding_a_compile_bomb_or_bad_flags_get_a_one_line_refusal(browser, own_server):
    proc, url = own_server
    assert len("/?pattern=(?#[)a{4000000}(?#])") == 30
    warm = browser.new_context(viewport={"width": 1280, "height": 900})
    try:  # a first page trains the default sample and loads what every page loads: the baseline
        p = warm.new_page()
        p.goto(url)
        p.wait_for_selector(f'{MP}[data-ready="1"]', timeout=60_000)
        wait_idle(p, 60_000)
    finally:
        warm.close()
    base = tree_rss_mb(proc.pid)
    figures = []
    for i, (pattern, said) in enumerate(LINKS):
        width = 390 if i == 1 else 1280  # one at a phone's width
        first = browser.new_context(viewport={"width": width, "height": 844 if width == 390 else 900})
        second = browser.new_context(viewport={"width": 1280, "height": 900})
        peak = PeakRss(proc.pid)
        try:
            attacker, student = first.new_page(), second.new_page()
            attacker.goto(f"{url}/?pattern={quote(pattern, safe='()?[]{}')}", wait_until="commit")
            t1 = time.monotonic()
            student.goto(url + "/classroom")  # another session's fresh page, meanwhile
            student.wait_for_selector(".st-key-lesson_step", timeout=60_000)
            wait_idle(student, 60_000)
            load = time.monotonic() - t1
            attacker.wait_for_selector(".st-key-player_note", timeout=60_000)
            attacker.wait_for_selector(f'{MP}[data-ready="1"]', timeout=60_000)  # trained with gpt4 instead
            note = attacker.inner_text(".st-key-player_note")
            assert attacker.locator('[data-testid="stException"]').count() == 0
            assert "Something went wrong" not in attacker.inner_text("body")
            shot(attacker, f"regex-guard-link-{i}")
        finally:
            first.close()
            second.close()
        top = peak.stop()
        after = tree_rss_mb(proc.pid)
        figures.append((pattern, round(load, 2), round(top - base), round(after - base)))
        assert proc.poll() is None, f"the server died on {pattern!r}"
        refusal = [line for line in note.splitlines() if "is not a valid regex" in line]
        assert len(refusal) == 1 and said in refusal[0] and "using gpt4" in refusal[0], note
        assert top - base <= 300 and after - base <= 300, (pattern, base, top, after)
        assert load <= 30, f"a fresh page took {load:.1f} s while {pattern!r} was asked for"  # hang detector
    print(f"issue 32 links (pattern, fresh page s, peak +MB, after +MB; base {base:.0f} MB):", figures)
