"""Links and trainings that load the server (issues 14 and 21), in a real browser: the catastrophic link stops
within its deadline while another session stays responsive; a training is stopped (its worker process killed)
when its tab closes or its settings change, and one waiting for a free slot shows its place and starts when
the slot frees; short links that used to take the server down (a{1000000000}: 21 GB, killed) leave it up and
small while another session's fresh page loads. (Split from test_hardening_browser.py, which keeps the bad
input that must render as text.)
"""

from __future__ import annotations

import time
from pathlib import Path
from urllib.parse import urlencode

import pytest
from helpers import wait_for

from testkit.app_server import PeakRss, children, tree_rss_mb

from .conftest import ARTIFACTS, SERVER_LOG, shot, wait_idle

MP = ".st-key-merge_player [data-testid=stBidiComponentIsolated] .mp"  # the merge player (shadow DOM)
CATASTROPHIC_LINK = {"text": ("a" * 21 + "!<|s|>") * 70, "pattern": "(a|a)+$", "special": "<|s|>"}
PLAYER_ERROR = ".player-error"


def test_catastrophic_link_stops_within_its_deadline_and_another_session_stays_responsive(browser, server_url):
    first = browser.new_context(viewport={"width": 1280, "height": 900})
    second = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        attacker, student = first.new_page(), second.new_page()
        t0 = time.monotonic()
        attacker.goto(f"{server_url}/?{urlencode(CATASTROPHIC_LINK)}", wait_until="commit")
        # meanwhile a fresh page in another session: ready (content drawn, script idle). How fast (the promise:
        # within 5 s) is measured by ``python -m bench.fresh_page_attack``; the 60 s waits are hang detectors
        # (3-5 s measured at load 6, 8-19 s at load 14-20 with this suite's other work)
        t1 = time.monotonic()
        student.goto(server_url + "/classroom")
        student.wait_for_selector(".st-key-lesson_step", timeout=60_000)
        wait_idle(student, 60_000)
        print(f"a fresh page while the catastrophic link ran: {time.monotonic() - t1:.1f} s")
        attacker.wait_for_selector(f'{PLAYER_ERROR}:has-text("took longer than")', timeout=60_000)
        stopped = time.monotonic() - t0
        message = attacker.inner_text(PLAYER_ERROR)
        # one deadline (2 s) for the request, not one per piece between special tokens (70 x 2 s = 140 s
        # before): the message names the one deadline, and the page has its answer long before 70 of them
        assert "catastrophic backtracking" in message and "took longer than 2" in message
        assert attacker.locator('[data-testid="stException"]').count() == 0
        # a hang detector far below 140 s and over 5x the 6.3 s measured (page load + 2 s, load average 2.5)
        print(f"the catastrophic link answered in {stopped:.1f} s")
        assert stopped < 60, stopped
        shot(attacker, "hardening-catastrophic-link")
        # the attacker's page recovers: a registry pattern on the same text trains
        attacker.click(".st-key-player_pattern [role=combobox]")
        attacker.keyboard.type("cl100k")  # the list is long: filter it (options far down are not drawn)
        attacker.get_by_role("option", name="GPT-4 (cl100k)", exact=True).click()
        attacker.wait_for_selector(f'{MP}[data-ready="1"]', timeout=60_000)
        assert attacker.locator(PLAYER_ERROR).count() == 0
    finally:
        first.close()
        second.close()


# ----------------------------------------------------------------------------------------------------
# Trainings: stopped when their tab closes or their settings change; in line for a free slot (issue 21)


def _workers(server_pid: int) -> list[int]:
    """The training workers of a server: the children of its worker helper (guard.forkserver's zygote)."""
    workers = []
    for child in children(server_pid):
        try:
            cmd = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if b"guard.forkserver import zygote_main" in cmd:
            workers += children(child)
    return workers


def _start_slow_training(page, url: str) -> None:
    """Paste 1.8 MB and ask for 19,000 merges with no pre-tokenizer (~20 s here: 1 MB and 15,000 merges took
    10 s; the worker must be gone long before it could have finished)."""
    page.goto(url)
    page.wait_for_selector(f'{MP}[data-ready="1"]', timeout=60_000)
    wait_idle(page, 60_000)
    page.click(".st-key-player_pattern [role=combobox]")
    page.keyboard.type("whole text")  # the list is long: filter it (options far down are not drawn)
    page.get_by_role("option", name="None (the whole text is one chunk)", exact=True).click()
    wait_idle(page, 60_000)
    merges = page.locator(".st-key-player_merges input")
    merges.fill("19000")
    merges.press("Enter")
    wait_idle(page, 60_000)
    page.locator(".st-key-player_source label").filter(has_text="Paste").first.click()
    wait_idle(page, 60_000)
    words = " ".join(f"w{i % 7919}q{i % 13}" for i in range(220_000))
    area = page.locator(".st-key-player_paste textarea")
    area.evaluate("(el, text) => { el.focus(); el.select(); document.execCommand('insertText', false, text); }", words)
    area.press("Control+Enter")
    page.wait_for_selector(".st-key-player_progress [data-testid='stProgress']", timeout=60_000)


@pytest.fixture(scope="module")
def slot_server():
    """A server of this module's own with one training slot (BPE_LAB_MAX_TRAININGS=1), whose training workers
    the test counts: (process, url)."""
    from testkit import app_server

    proc, url = app_server.start_server(SERVER_LOG, log_dir=ARTIFACTS, env={"BPE_LAB_MAX_TRAININGS": "1"})
    yield proc, url.rstrip("/")
    proc.terminate()
    proc.wait(10)


def test_a_training_stops_with_its_tab_or_settings_and_one_in_line_starts_when_its_slot_frees(browser, slot_server):
    """Two promises on one slow training (each was a test of its own, ~10 CPU-s of page, 1.8 MB paste and
    training each): a training is stopped (its worker killed) when its settings change and when its tab
    closes; a training asked for while the one slot is taken shows its place in line, no second worker starts,
    and it starts when that tab closes. The tab that closes is the one holding the slot, so its closing both
    kills its worker and frees the slot for the one in line."""
    proc, url = slot_server
    assert wait_for(lambda: not _workers(proc.pid), 10), "a training of a test before still runs"
    a = browser.new_context(viewport={"width": 1280, "height": 900})
    b = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = a.new_page()
        _start_slow_training(page, url)
        assert wait_for(lambda: len(_workers(proc.pid)) == 1, 20), _workers(proc.pid)
        worker = _workers(proc.pid)[0]
        # settings change (back to a sample): the worker is killed, the sample's run shows
        page.locator(".st-key-player_source label").filter(has_text="Sample").first.click()
        assert wait_for(lambda: worker not in _workers(proc.pid), 5), "the old training still runs"
        page.wait_for_selector(f'{MP}[data-ready="1"]', timeout=60_000)
        # again: the pasted text was kept, it trains again at once and holds the one slot (~20 s)
        page.locator(".st-key-player_source label").filter(has_text="Paste").first.click()
        page.wait_for_selector(".st-key-player_progress [data-testid='stProgress']", timeout=60_000)
        assert wait_for(lambda: len(_workers(proc.pid)) == 1, 20), _workers(proc.pid)
        worker = _workers(proc.pid)[0]
        # meanwhile another tab asks for a training: it waits in line, and the cap holds
        second = b.new_page()
        second.goto(f"{url}/?{urlencode({'text': 'issue twenty-one waits its turn ' * 20, 'merges': 300})}")
        bar = ".st-key-player_progress [data-testid='stProgress']"
        second.wait_for_selector(f"{bar}:has-text('next in line')", timeout=60_000)
        text = second.inner_text(bar)
        assert "Waiting for a free training slot: next in line (1 training running, at most 1 at once)" in text
        assert _workers(proc.pid) == [worker], "the cap holds: no second worker"
        # the first tab closes: its worker is killed within a few seconds, and its slot frees for the second
        a.close()
        assert wait_for(lambda: worker not in _workers(proc.pid), 5), "the training outlived its tab"
        second.wait_for_selector(f'{MP}[data-ready="1"]', timeout=60_000)
        assert second.locator(PLAYER_ERROR).count() == 0
    finally:
        for ctx in (a, b):
            try:
                ctx.close()
            except Exception:  # noqa: BLE001 -- closed above
                pass


# ====================================================================================================
# Issue 21: short links that used to take the server down (a{1000000000}: 21 GB, killed). The server is this
# test's own `streamlit run`, so its memory is nobody else's.

COMPILE_BOMBS = ["a{10000000}", "a{1000000000}", "(a{1000}){1000}"]


def test_compile_bomb_links_leave_the_server_up_and_small_and_others_responsive(browser, own_server):
    proc, url = own_server
    warm = browser.new_context(viewport={"width": 1280, "height": 900})
    try:  # a first page trains the default sample and loads what every page loads: the baseline
        p = warm.new_page()
        p.goto(url)
        p.wait_for_selector(f'{MP}[data-ready="1"]', timeout=60_000)
        wait_idle(p, 60_000)
    finally:
        warm.close()
    base = tree_rss_mb(proc.pid)
    # the three links at once, and meanwhile another session's fresh page: it loads while all three are answered
    # (a page load is ~3 CPU-s of Chromium: one, not one a link)
    contexts = [browser.new_context(viewport={"width": 1280, "height": 900}) for _ in range(len(COMPILE_BOMBS) + 1)]
    peak = PeakRss(proc.pid)
    notes = []
    try:
        *attackers, student = [ctx.new_page() for ctx in contexts]
        for attacker, pattern in zip(attackers, COMPILE_BOMBS):
            attacker.goto(f"{url}/?{urlencode({'pattern': pattern})}", wait_until="commit")
        t1 = time.monotonic()
        student.goto(url + "/classroom")  # another session's fresh page, meanwhile: it loads
        student.wait_for_selector(".st-key-lesson_step", timeout=60_000)  # (how fast: bench, see above)
        wait_idle(student, 60_000)
        load = time.monotonic() - t1
        for i, (attacker, pattern) in enumerate(zip(attackers, COMPILE_BOMBS)):
            attacker.wait_for_selector("text=too large to compile", timeout=60_000)
            notes.append(attacker.inner_text(".st-key-player_note"))
            attacker.wait_for_selector(f'{MP}[data-ready="1"]', timeout=60_000)  # trained with gpt4 instead
            assert attacker.locator('[data-testid="stException"]').count() == 0, pattern
            shot(attacker, f"hardening-compile-bomb-{i}")
    finally:
        for ctx in contexts:
            ctx.close()
    top = peak.stop()
    after = tree_rss_mb(proc.pid)
    assert proc.poll() is None, "the server died"
    for pattern, note in zip(COMPILE_BOMBS, notes):
        assert f"pattern='{pattern}' is not a valid regex (the pattern is too large to compile" in note, note
        assert "using gpt4" in note, note
    assert top - base <= 300 and after - base <= 300, (base, top, after)  # the three at once
    print(
        f"issue 21 compile bombs, all three at once: a fresh page {load:.2f} s, peak +{top - base:.0f} MB, "
        f"after +{after - base:.0f} MB (base {base:.0f} MB)"
    )
