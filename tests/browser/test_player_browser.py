"""The merge player in a real browser: Playwright + Debian's Chromium against ``streamlit run``.

One server for this module, started with ``BPE_LAB_TIMING=1`` so the server log has the time of every
player frame. Screenshots go to ``tests/artifacts/`` (git-ignored); the measured speeds are written to
``tests/artifacts/player-speed.txt``.
"""
from __future__ import annotations

import random
import re
import statistics
import subprocess
import time
from pathlib import Path

import pytest

from .conftest import ARTIFACTS, ROOT, shot, start_server, wait_idle

HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)><b>bold</b>"
STATUS = ".st-key-step_status"


@pytest.fixture(scope="module")
def player_server():
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    proc, url = start_server(extra_env={"BPE_LAB_TIMING": "1"})
    port = url.rsplit(":", 1)[1]
    yield url, ARTIFACTS / f"server-{port}.log"
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture
def player(page, player_server):
    url, _log = player_server
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.dialogs = dialogs
    page.goto(url)
    wait_idle(page, 60_000)
    page.wait_for_selector(f'{STATUS}:has-text("Merge")')
    return page


def status(page) -> str:
    return page.inner_text(STATUS)


def merge_no(page) -> tuple[int, int]:
    m = re.search(r"Merge (\d+) / (\d+)", status(page))
    assert m, status(page)
    return int(m.group(1)), int(m.group(2))


def click(page, key: str) -> None:
    page.click(f".st-key-{key} button")
    wait_idle(page)


def pick(page, key: str, option: str) -> None:
    """Choose an option of a selectbox."""
    page.click(f".st-key-{key} [role=combobox]")
    page.get_by_role("option", name=option, exact=True).click()
    wait_idle(page)


def radio(page, key: str, label: str) -> None:
    page.locator(f".st-key-{key} label").filter(has_text=label).first.click()
    wait_idle(page)


def set_slider(page, key: str, *keys: str) -> None:
    page.focus(f".st-key-{key} input[type=range]")
    for k in keys:
        page.keyboard.press(k)
    page.wait_for_timeout(300)
    wait_idle(page)


def wait_for_merge(page, k: int, timeout: float = 20) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if merge_no(page)[0] == k:
            return
        page.wait_for_timeout(50)
    raise AssertionError(f"never reached merge {k}: {status(page)}")


def chart(page, key: str):
    """The plotly chart drawn by the live_plotly component (an iframe) under ``key``."""
    return page.frame_locator(f".st-key-{key} iframe")


def renders(page, key: str) -> int:
    return int(chart(page, key).locator("body").get_attribute("data-renders") or 0)


def alerts(page) -> str:
    return " ".join(page.locator('[data-testid="stAlert"]').all_inner_texts())


# --------------------------------------------------------------------------- loading, stepping

def test_page_loads_trained_at_merge_zero(player):
    k, n = merge_no(player)
    assert k == 0 and n > 0
    assert "nothing merged yet" in status(player)
    for key in ("pair_chart", "compression_chart"):
        chart(player, key).locator(".js-plotly-plot .bars, .js-plotly-plot .scatterlayer").first.wait_for()
    assert player.locator(".st-key-player_spans .bpe-tok").count() > 100
    shot(player, "player-merge0")


def test_step_back_and_jump_land_on_the_right_merge(player):
    chart(player, "pair_chart").locator(".js-plotly-plot").wait_for()
    first = renders(player, "pair_chart")
    for _ in range(3):
        click(player, "step")
    assert merge_no(player)[0] == 3
    # the same chart document was updated three more times (not a new chart per step)
    player.wait_for_timeout(300)
    assert renders(player, "pair_chart") >= first + 3
    labels = chart(player, "pair_chart").locator(".ytick text").all_text_contents()
    assert labels and labels[0].startswith("▶")
    click(player, "back")
    assert merge_no(player)[0] == 2
    set_slider(player, "jump", "Home", *["ArrowRight"] * 7)
    assert merge_no(player)[0] == 7
    _, n = merge_no(player)
    set_slider(player, "jump", "End")
    assert merge_no(player) == (n, n)
    shot(player, "player-end")
    set_slider(player, "jump", "Home", *["PageUp"] * 3)
    k = merge_no(player)[0]
    assert 0 < k < n
    shot(player, "player-mid")
    click(player, "reset")
    assert merge_no(player)[0] == 0


def test_clicking_a_merge_row_explains_that_token(player):
    set_slider(player, "jump", "Home", *["ArrowRight"] * 5)
    assert "made by merge 5" in player.inner_text(".st-key-player_tree")
    box = player.locator(".st-key-player_merge_table").bounding_box()
    # the list is newest first: the third row is merge 3 (rows and header are 35 px high)
    player.mouse.click(box["x"] + 15, box["y"] + 35 * 3 + 17)
    player.wait_for_timeout(300)
    wait_idle(player)
    assert "made by merge 3" in player.inner_text(".st-key-player_tree")
    assert player.input_value(".st-key-player_tree_query input").isdigit()


def test_play_advances_by_itself_and_stops_at_the_end(player):
    pick(player, "player_sample", "hello hello hello world")
    k, n = merge_no(player)
    assert k == 0 and n == 5            # 256 + 5 in the sample index
    set_slider(player, "speed", "Home", *["ArrowRight"] * 4)        # 5 merges per second
    assert "5/s" in player.inner_text(".st-key-speed")
    player.click(".st-key-play button")
    wait_for_merge(player, 2)            # nothing clicked: the timer moved it
    shot(player, "player-playing")
    wait_for_merge(player, 5)
    wait_idle(player, 10_000)            # the timer stopped: the app goes idle
    assert "Play" in player.inner_text(".st-key-play")
    player.wait_for_timeout(1500)
    assert merge_no(player) == (5, 5)


def test_pause_holds(player):
    set_slider(player, "speed", "Home", *["ArrowRight"] * 3)        # 3 merges per second
    player.click(".st-key-play button")
    wait_for_merge(player, 2)
    player.click(".st-key-play button")
    wait_idle(player, 10_000)
    held = merge_no(player)[0]
    assert held >= 2
    player.wait_for_timeout(2000)
    assert merge_no(player)[0] == held
    assert "Play" in player.inner_text(".st-key-play")


# --------------------------------------------------------------------------- sources and bad input

def test_pasted_text_retrains_and_shows_markup_literally(player):
    radio(player, "player_source", "Paste")
    player.fill(".st-key-player_paste textarea", HOSTILE)
    player.get_by_role("button", name="Train on this text").click()
    wait_idle(player)
    player.wait_for_selector('text=Training on your text')
    assert merge_no(player)[0] == 0
    for _ in range(4):
        click(player, "step")
    spans_text = player.inner_text(".st-key-player_spans")
    assert "<script>alert(1)</script>" in spans_text and "<b>bold</b>" in spans_text
    assert player.locator('img[src="x"]').count() == 0
    assert player.locator("script", has_text="alert(1)").count() == 0
    assert player.locator("b", has_text="bold").count() == 0
    player.wait_for_timeout(500)
    assert player.dialogs == []
    shot(player, "player-pasted-markup")


def test_bad_inputs_give_messages_and_the_app_keeps_working(player):
    radio(player, "player_source", "Paste")
    player.fill(".st-key-player_paste textarea", "")
    player.get_by_role("button", name="Train on this text").click()
    wait_idle(player)
    assert "empty" in alerts(player)

    radio(player, "player_source", "Upload")
    upload = ".st-key-player_upload input[type=file]"
    player.set_input_files(upload, files=[{"name": "latin1.txt", "mimeType": "text/plain",
                                           "buffer": "café crème brûlée".encode("latin-1")}])
    wait_idle(player)
    player.wait_for_selector('[data-testid="stAlert"]:has-text("not UTF-8")')
    assert "0xE9" in alerts(player)

    big = (b"the quick brown fox jumps over the lazy dog\n" * 1_200_000)[:50_000_000]
    player.set_input_files(upload, files=[{"name": "big.txt", "mimeType": "text/plain", "buffer": big}])
    wait_idle(player, 120_000)
    player.wait_for_selector('[data-testid="stAlert"]:has-text("50.0 MB")', timeout=120_000)
    assert "at most 2.0 MB" in alerts(player)
    player.locator(".st-key-player_upload_truncate label").click()
    wait_idle(player, 60_000)
    player.wait_for_selector('text=big.txt (first 2.0 MB)')
    assert merge_no(player)[0] == 0

    radio(player, "player_source", "Sample")
    pick(player, "player_pattern", "Custom regex…")
    player.fill(".st-key-player_custom_pattern input", "(unclosed")
    player.keyboard.press("Enter")
    wait_idle(player)
    player.wait_for_selector('[data-testid="stAlert"]:has-text("not a valid regex")')
    pick(player, "player_pattern", "GPT-2")
    assert not alerts(player)
    click(player, "step")
    assert merge_no(player)[0] == 1
    shot(player, "player-after-errors")


# --------------------------------------------------------------------------- speed

def _megabyte_text() -> str:
    """About 1 MB of text made of the sample texts' words in a seeded random order."""
    words = []
    for p in sorted((ROOT / "sample_texts").glob("*.txt")):
        words += p.read_text(encoding="utf-8").split()
    rng = random.Random(4)
    out, size = [], 0
    while size < 1_000_000:
        line = " ".join(rng.choice(words) for _ in range(rng.randint(6, 14))) + "\n"
        out.append(line)
        size += len(line.encode("utf-8"))
    return "".join(out)


PROGRESS_JS = """() => { window.__progress = [];
  new MutationObserver(() => document.querySelectorAll('[data-testid="stProgress"]').forEach(
    e => window.__progress.push(e.innerText.trim())))
  .observe(document.body, {subtree: true, childList: true, characterData: true}); }"""

FRAMES_JS = """() => { window.__seen = [];
  new MutationObserver(() => { const el = document.querySelector('.st-key-step_status'); if (!el) return;
    const m = /Merge (\\d+) \\//.exec(el.textContent); if (!m) return; const v = +m[1], s = window.__seen;
    if (!s.length || s[s.length - 1][1] !== v) s.push([performance.now(), v]); })
  .observe(document.body, {subtree: true, childList: true, characterData: true}); }"""


def test_measure_step_time_on_one_megabyte_and_frames_at_top_speed(player, player_server):
    _url, log = player_server
    data = _megabyte_text().encode("utf-8")
    radio(player, "player_source", "Upload")
    player.set_input_files(".st-key-player_upload input[type=file]",
                           files=[{"name": "one_mb.txt", "mimeType": "text/plain", "buffer": data}])
    wait_idle(player, 120_000)
    player.evaluate(PROGRESS_JS)
    player.fill(".st-key-player_merges input", "3840")
    player.keyboard.press("Enter")
    player.wait_for_timeout(300)
    wait_idle(player, 120_000)
    # a large corpus trains behind a progress bar (0.9 MB: the last 10% is held out), gone when done
    assert any(t.startswith("Training on 0.9 MB: merge") for t in player.evaluate("window.__progress")), \
        player.evaluate("window.__progress")
    assert player.locator('[data-testid="stProgress"]:has-text("Training on")').count() == 0
    player.wait_for_selector('text=one_mb.txt')
    k, n = merge_no(player)
    assert k == 0 and n > 1000
    mark = log.read_text().count("player frame")
    for _ in range(10):
        click(player, "step")
    set_slider(player, "jump", "PageUp", "PageUp")
    set_slider(player, "jump", "End")
    frames = re.findall(r"player frame: step \d+ in ([\d.]+) ms", log.read_text())[mark:]
    assert len(frames) >= 10
    step_ms = statistics.median(float(x) for x in frames)

    click(player, "reset")
    set_slider(player, "speed", "End")
    player.evaluate(FRAMES_JS)
    player.click(".st-key-play button")
    player.wait_for_timeout(8000)
    seen = player.evaluate("window.__seen")
    player.click(".st-key-play button")
    wait_idle(player)
    assert len(seen) >= 4, seen
    span = (seen[-1][0] - seen[1][0]) / 1000
    fps = (len(seen) - 2) / span
    merges_per_s = (seen[-1][1] - seen[1][1]) / span
    report = (f"1 MB training text ({len(data):,} bytes), {n} merges\n"
              f"server time per player step (median of {len(frames)} frames): {step_ms:.1f} ms\n"
              f"browser at top speed: {fps:.2f} frames/s, {merges_per_s:.0f} merges/s\n")
    (ARTIFACTS / "player-speed.txt").write_text(report)
    print(report)
    assert step_ms < 300            # tens of milliseconds expected; generous for a loaded machine
    assert fps > 1 and merges_per_s > 20
