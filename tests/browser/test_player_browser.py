"""The merge player in a real browser: Playwright + Debian's Chromium against ``streamlit run``.

The player component draws in the browser; these tests read its shadow DOM (Playwright's CSS selectors
pierce open shadow roots) and compare it with what Python computes for the same merge: the replay of
the text window (``bpe.replay``), the run's recorded top pairs, the status line's words
(``views.player.status_html``). Screenshots go to ``tests/artifacts/`` (git-ignored): look at them.
"""

from __future__ import annotations

import html as htmllib
import random
import re

import pytest
from helpers import html_words

import appstate.caches
import appstate.sources
import bpe
from bpe.excerpt import split_heldout
from views.player import status_html
from views.player_payload import TOP_PAIRS
from views.replay import replay_spans
from views.spans import piece_html, render_spans

from .conftest import shot, wait_idle

HOST = ".st-key-merge_player [data-testid=stBidiComponentIsolated]"
MP = f"{HOST} .mp"
HOSTILE = "<img src=x onerror=alert(1)> **bold** [a](https://example.invalid) <script>alert(2)</script>"

TOKENS_JS = (
    """() => [...document.querySelector('%s').shadowRoot.querySelectorAll('.mp-tokens .tok')].map(e =>
  ({id: +e.dataset.id, start: +e.dataset.start, text: e.textContent, cs: e.classList.contains('cs'),
    hl: e.classList.contains('new')}))"""
    % HOST
)
BARS_JS = (
    """() => [...document.querySelector('%s').shadowRoot.querySelectorAll('.mp-bars .bar:not(.leave)')]
  .map(e => ({pair: e.dataset.pair, count: +e.dataset.count, role: e.dataset.role,
              i: +getComputedStyle(e).getPropertyValue('--i'), mark: e.querySelector('.bar-mark').textContent}))
  .sort((a, b) => a.i - b.i)"""
    % HOST
)
RUBY_JS = (
    """() => [...document.querySelector('%s').shadowRoot.querySelectorAll('.mp-tokens ruby.grp > rt')]
  .map(e => e.textContent)"""
    % HOST
)
# the merge on screen at the moment of a click or a key press (capture phase: before the player sees it)
AT_CLICK_JS = (
    """() => { window.__at = [];
  const merge = () => +document.querySelector('%s').shadowRoot.querySelector('.mp').dataset.merge;
  window.addEventListener('click', () => window.__at.push(merge()), true);
  window.addEventListener('keydown', (e) => { if (e.key === 'k') window.__at.push(merge()); }, true); }"""
    % HOST
)


@pytest.fixture
def player(page, server_url):
    return open_player(page, server_url)


def open_player(page, url: str):
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.dialogs = dialogs
    page.goto(url)
    wait_idle(page, 60_000)
    ready(page)
    return page


def ready(page, timeout: float = 30_000) -> None:
    page.wait_for_selector(f'{MP}[data-ready="1"]', timeout=timeout)


#: From now on, record on the player's root (.mp) each value its ``data-<name>`` attributes take, with the joining
#: tokens on screen at that moment: a state that comes and goes (a 5-merge play at speed 10, a join's slide) can be
#: over before the next Playwright call reads it on a busy machine, so the tests read what the page saw instead.
WATCH_JS = """(el, names) => { el.__seen = Object.fromEntries(names.map((n) => [n, []])); el.__joiningSeen = 0;
  new MutationObserver((ms) => { for (const m of ms) {
    el.__seen[m.attributeName.slice(5)].push(el.getAttribute(m.attributeName));
    el.__joiningSeen = Math.max(el.__joiningSeen, el.querySelectorAll('.mp-tokens .joining').length); } })
  .observe(el, { attributes: true, attributeFilter: names.map((n) => 'data-' + n) }); }"""


def watch(page, *names: str):
    """Start recording the root's ``data-<name>`` values (:data:`WATCH_JS`); returns the root's handle, for
    ``page.wait_for_function(..., arg=handle)``."""
    root = page.locator(MP).element_handle()
    root.evaluate(WATCH_JS, list(names))
    return root


def merge(page) -> int:
    return int(page.get_attribute(MP, "data-merge"))


def status(page) -> str:
    return re.sub(r"\s+", " ", page.inner_text(f"{MP} .mp-status")).strip()


def jump(page, k: int) -> None:
    """Drag the player's merge slider to k (its input event, as a drag sends)."""
    page.locator(f"{MP} .mp-jump input").evaluate(
        "(e, k) => { e.value = String(k); e.dispatchEvent(new Event('input', {bubbles: true})); }", k
    )
    assert merge(page) == k


def followers_at(page, k: int, timeout: float = 15) -> None:
    """Wait until the Python panels (tables, tree, link) show merge k."""
    try:
        page.wait_for_function(
            "([tab, merge]) => { const t = document.querySelector('[data-testid=stTab]');"
            " return !!t && t.innerText.startsWith(tab) && location.href.includes(merge); }",
            arg=[f"Merges ({k:,})", f"merge={k}"],
            timeout=timeout * 1000,
        )
    except Exception:
        tab = page.locator('[data-testid="stTab"]').first.inner_text()
        raise AssertionError(f"panels never showed merge {k}: {tab!r} {page.url}") from None
    wait_idle(page)


def pick(page, key: str, option: str) -> None:
    page.click(f".st-key-{key} [role=combobox]")
    page.get_by_role("option", name=option, exact=True).click()
    wait_idle(page)
    ready(page)


def radio(page, key: str, label: str) -> None:
    page.locator(f".st-key-{key} label").filter(has_text=label).first.click()
    wait_idle(page)


def alerts(page) -> str:
    return " ".join(page.locator('[data-testid="stAlert"], .bpe-msg').all_inner_texts())


def python_run(sample: str):
    """The run and window replay the app makes for a sample with its default settings."""
    s = appstate.sources.sample(sample)
    text, _held = split_heldout(s.text)
    run = bpe.train(text, s.default_vocab_size, pattern="gpt4")
    return run, appstate.caches.window_replay(f"browser-test:{sample}", 0, appstate.caches.WINDOW_CHARS, run, text)


def check_merge(page, run, rep, k: int) -> None:
    """The component at merge k draws what Python computes for merge k."""
    jump(page, k)
    followers_at(page, k)  # the jump is reported and the page has settled
    assert merge(page) == k
    spans = replay_spans(rep, k)
    new = run.merges[k - 1].id if k else None
    expected = [
        {
            "id": sp.id,
            "start": sp.start,
            "text": htmllib.unescape(re.sub(r"<[^>]+>", "", piece_html(sp.data))),
            "cs": sp.start in rep.chunk_starts,
            "hl": sp.id == new,
        }
        for sp in spans
    ]
    assert page.evaluate(TOKENS_JS) == expected, f"tokens differ at merge {k}"
    r = max(0, k - 1)
    m = run.merges[r]
    bars = page.evaluate(BARS_JS)
    assert [(b["pair"], b["count"]) for b in bars] == [(f"{a},{b}", c) for (a, b), c in m.top_pairs[:TOP_PAIRS]]
    roles = ["winner"] + ["tie" if c == m.count else "" for _, c in m.top_pairs[1:TOP_PAIRS]]
    assert [b["role"] for b in bars] == roles
    assert bars[0]["mark"] == "▶"
    assert status(page) == html_words(status_html(run, k))
    ruby = [html_words(x) for x in re.findall(r"<rt>(.*?)</rt>", render_spans(spans, group_chars=True))]
    assert page.evaluate(RUBY_JS) == ruby


# --------------------------------------------------------------------------- one truth: DOM = Python


#: the samples whose DOM is checked against Python (merges 0, 1, a tie, the middle, the end), and those stepped
#: both ways (a merge's tokens, and chunks where a merge splits or completes a character: multilingual, chat)
TRUTH = ("english", "aaabdaaabac", "multilingual")
STEPPED = ("english", "multilingual", "chat")


@pytest.mark.parametrize("sample", ["english", "aaabdaaabac", "multilingual", "chat"])
def test_the_player_draws_what_python_computes_and_steps_to_what_a_jump_draws(page, server_url, sample):
    """Two promises on one page load of the sample (each checked where its samples say, TRUTH and STEPPED):
    the player draws what Python computes; steps draw what a jump draws."""
    open_player(page, f"{server_url}/?sample={sample}")
    if sample in TRUTH:
        draws_what_python_computes(page, sample)
    if sample in STEPPED:
        stepping_draws_what_a_jump_draws(page)


def draws_what_python_computes(page, sample: str) -> None:
    run, rep = python_run(sample)
    n = len(run.merges)
    tie = next(m.rank + 1 for m in run.merges if m.ties)
    assert int(page.locator(f"{MP} .mp-jump input").get_attribute("max")) == n
    for k in sorted({0, 1, tie, n // 2, n}):
        check_merge(page, run, rep, k)
    if sample == "multilingual":
        assert page.evaluate(RUBY_JS), "split characters are written above their bytes"
    shot(page, f"player-truth-{sample}")


def stepping_draws_what_a_jump_draws(page) -> None:
    """Steps change the drawn text in place (one merge's tokens, or the chunks they touch when a merge
    splits or completes a character); the result is the text a jump draws whole, both ways."""
    drawn = lambda: (page.evaluate(TOKENS_JS), page.evaluate(RUBY_JS))  # noqa: E731
    for k in (6, 30, 61):
        jump(page, k)
        whole = drawn()
        jump(page, k - 6)
        for _ in range(6):
            page.keyboard.press("ArrowRight")
        page.wait_for_selector(f'{MP}[data-joining="0"]')  # the last join animation is over
        assert merge(page) == k and drawn() == whole, f"stepping: forward to {k}"
        jump(page, k + 4)
        for _ in range(4):
            page.keyboard.press("ArrowLeft")
        assert merge(page) == k and drawn() == whole, f"stepping: back to {k}"


# --------------------------------------------------------------------------- playing, pausing, keys


def test_play_runs_to_the_end_and_stops_and_the_panels_follow(page, server_url):
    open_player(page, f"{server_url}/?sample=hello&speed=10")
    n = int(page.locator(f"{MP} .mp-jump input").get_attribute("max"))
    assert n == 5  # 256 + 5 in the sample index
    root = watch(page, "playing")
    page.click(f"{MP} .mp-play")
    page.wait_for_function("el => el.__seen.playing.includes('1')", arg=root)  # it played (maybe already done)
    page.wait_for_selector(f'{MP}[data-playing="0"]')  # (30 s: a hang detector)
    assert merge(page) == n and page.inner_text(f"{MP} .mp-play").strip().endswith("Play")
    followers_at(page, n)
    assert f"merge {n}" in page.inner_text(".st-key-player_tree")
    # (followers_at waited until Python had heard where it stopped, and answered): it stays there
    assert merge(page) == n and page.get_attribute(MP, "data-playing") == "0"
    # at the end, play starts again from merge 0
    page.click(f"{MP} .mp-play")
    page.wait_for_selector(f'{MP}[data-playing="0"]')  # (30 s: a hang detector)
    assert merge(page) == n and int(page.get_attribute(MP, "data-advanced")) == n


@pytest.mark.parametrize("speed", [3, 30])
def test_pause_stops_on_the_merge_on_screen_every_time(page, server_url, speed):
    """8 pauses in a row (4 clicks, 4 K): each stops on the merge that was on screen at the click, and
    every panel, the browser's and Python's, then shows that merge. Nothing is sent while playing.

    (8, not 20: the bug behind it -- e9a5dce, the jump slider's stale value rewound the run -- came from a
    value read at every pause, not from a rare interleaving; a random think time puts each pause at another
    moment of a frame, at both speeds: 16 pauses, 8 by a click and 8 by K.)"""
    sent: list[int] = []  # (listening before the page opens: its websocket is the first one)
    page.on("websocket", lambda ws: ws.on("framesent", lambda f: sent.append(len(f))))
    open_player(page, f"{server_url}/?sample=english&speed={speed}")
    page.evaluate(AT_CLICK_JS)
    rng = random.Random(speed)
    n = int(page.locator(f"{MP} .mp-jump input").get_attribute("max"))
    for i in range(8):
        if merge(page) > n - 60:
            page.click(f"{MP} .mp-reset")  # far from the end, where playing stops by itself
        page.keyboard.press("k") if i % 2 else page.click(f"{MP} .mp-play")  # play
        assert page.get_attribute(MP, "data-playing") == "1"
        before = len(sent)
        # a person's think time before the pause (not a wait for a state: the test is that a pause at any
        # moment stops on the merge then on screen, and that nothing is sent meanwhile)
        page.wait_for_timeout(rng.randint(350, 900) if speed == 3 else rng.randint(120, 350))
        assert len(sent) == before, "the player sent something to the server while playing"
        page.click(f"{MP} .mp-play") if i % 2 else page.keyboard.press("k")  # pause
        at = page.evaluate("window.__at")[-1]
        assert page.get_attribute(MP, "data-playing") == "0"
        assert merge(page) == at, f"pause {i + 1}: on screen {at}, stopped on {merge(page)}"
        assert status(page).startswith(f"Merge {at} /")
        followers_at(page, at)
        assert merge(page) == at
        if at:
            assert f"made by merge {at}" in page.inner_text(".st-key-player_tree")


def test_keys_step_back_reset_and_ignore_typing_and_tokens_join_mid_animation(player):
    """The keys step, go back, to the end and to 0, and are typing in a box; a step's two tokens slide
    together (the joining tokens, mid-animation). Both on one page load."""
    player.keyboard.press("ArrowRight")
    player.keyboard.press("ArrowRight")
    player.keyboard.press("ArrowRight")
    assert merge(player) == 3
    player.keyboard.press("ArrowLeft")
    assert merge(player) == 2
    followers_at(player, 2)  # a step is reported once the stepping stops

    # joining tokens mid-animation
    jump(player, 3)
    root = watch(player, "joining")
    player.keyboard.press("ArrowRight")
    # (the slide may be over before a count here could see it: the page records what it drew meanwhile)
    player.wait_for_function("el => el.__seen.joining.some((v) => v !== '0')", arg=root)
    assert root.evaluate("el => el.__joiningSeen") > 0, "joining: the two parts, sliding together"
    player.keyboard.press("ArrowRight")
    shot(player, "player-join-mid-animation")  # (if the screenshot is quick enough)
    player.wait_for_selector(f'{MP}[data-joining="0"]')  # the joins are over
    assert player.locator(f"{MP} .mp-tokens .joining").count() == 0, "joining: the joins end"
    assert player.locator(f"{MP} .mp-tokens .tok.new").count() > 0, "joining: the new tokens are outlined"
    followers_at(player, 5)  # (the steps reported and answered before the keys go on)

    player.keyboard.press("End")
    n = merge(player)
    assert n == int(player.locator(f"{MP} .mp-jump input").get_attribute("max"))
    player.keyboard.press("0")
    assert merge(player) == 0
    player.click(".st-key-player_tree_query input")
    player.keyboard.type("k0")  # typed into a box: not a shortcut
    assert merge(player) == 0 and player.get_attribute(MP, "data-playing") == "0"
    assert player.input_value(".st-key-player_tree_query input") == "k0"


def test_the_player_stays_mounted_across_reruns(player):
    """A text trained for the first time draws a progress bar above the player; the reruns after it must
    not mount a new player (it would lose its place and flash): the same element all along."""
    radio(player, "player_source", "Paste")
    player.fill(".st-key-player_paste textarea", "a text of its own, trained just now " * 40)
    player.get_by_role("button", name="Train on this text").click()
    wait_idle(player)
    ready(player)
    player.evaluate("() => { window.__host = document.querySelector('%s'); }" % HOST)
    for k in (1, 2, 3):
        player.click(f"{MP} .mp-step")
        followers_at(player, k)
    assert player.evaluate("() => document.querySelector('%s') === window.__host" % HOST)
    assert merge(player) == 3


def test_merge_tree_and_tables_follow_a_jump(player):
    jump(player, 5)
    followers_at(player, 5)
    assert "made by merge 5" in player.inner_text(".st-key-player_tree")
    rows = player.locator(".st-key-player_merge_table tbody tr")
    assert rows.count() == 5
    # the list is newest first: the third row is merge 3
    assert rows.nth(2).locator("td").first.inner_text() == "3"
    rows.nth(2).click()
    player.wait_for_function(
        "() => document.querySelector('.st-key-player_tree')?.innerText.includes('made by merge 3')"
    )
    wait_idle(player)
    assert "made by merge 3" in player.inner_text(".st-key-player_tree")
    # the keyboard picks too: focus the first row, move down one, press Enter -> merge 4
    rows = player.locator(".st-key-player_merge_table tbody tr")
    rows.first.focus()
    player.keyboard.press("ArrowDown")
    player.keyboard.press("Enter")
    player.wait_for_function(
        "() => document.querySelector('.st-key-player_tree')?.innerText.includes('made by merge 4')"
    )


def test_playing_mid_animation_screenshot(page, server_url):
    open_player(page, f"{server_url}/?sample=english&speed=5&merge=20")
    page.click(f"{MP} .mp-play")
    page.wait_for_function(
        "(sel) => +document.querySelector(sel).shadowRoot.querySelector('.mp').dataset.merge >= 27", arg=HOST
    )  # 1.4 s of playing at 5 merges a second
    shot(page, "player-playing")
    page.click(f"{MP} .mp-play")
    assert merge(page) > 20


# --------------------------------------------------------------------------- bad input


def test_bad_inputs_give_messages_and_the_player_comes_back(player):
    radio(player, "player_source", "Paste")
    player.fill(".st-key-player_paste textarea", "")
    player.get_by_role("button", name="Train on this text").click()
    wait_idle(player)
    assert "empty" in alerts(player)
    assert player.locator(MP).count() == 0

    radio(player, "player_source", "Upload")
    upload = ".st-key-player_upload input[type=file]"
    player.set_input_files(
        upload,
        files=[{"name": "latin1.txt", "mimeType": "text/plain", "buffer": "café crème brûlée".encode("latin-1")}],
    )
    wait_idle(player)
    player.wait_for_selector('.player-error:has-text("not UTF-8")')
    assert "0xE9" in alerts(player)

    # over the 2 MB the player trains on: read whole, then trained on its first 2 MB when asked (3 MB: the
    # same path as a 50 MB file, which spent ~20 s of the suite in Playwright handing Chromium its bytes)
    big = (b"the quick brown fox jumps over the lazy dog\n" * 70_000)[:3_000_000]
    player.set_input_files(upload, files=[{"name": "big.txt", "mimeType": "text/plain", "buffer": big}])
    wait_idle(player, 120_000)
    player.wait_for_selector('.player-error:has-text("3.0 MB")', timeout=120_000)
    assert "at most 2.0 MB" in alerts(player)
    player.locator(".st-key-player_upload_truncate label").click()
    wait_idle(player, 120_000)
    player.wait_for_selector("text=big.txt (first 2.0 MB)")
    ready(player, 60_000)
    assert merge(player) == 0

    radio(player, "player_source", "Sample")
    player.click(".st-key-player_pattern [role=combobox]")
    player.get_by_role("option", name="Custom regex…", exact=True).click()
    wait_idle(player)
    player.fill(".st-key-player_custom_pattern input", "(unclosed")
    player.keyboard.press("Enter")
    wait_idle(player)
    player.wait_for_selector('.player-error:has-text("not a valid regex")')
    pick(player, "player_pattern", "GPT-2")
    assert not alerts(player)
    player.click(f"{MP} .mp-step")
    assert merge(player) == 1
    shot(player, "player-after-errors")
