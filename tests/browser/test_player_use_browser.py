"""The merge player as a lecturer and a student use it (issue 25): each test is that issue's repro.

A token's explanation next to the token (2), the controls in view on a phone (3), a presenter view that does
not jump (5), shortcuts after a select (6), presentation clickers (7), an honest rate below 30/s (8), lines
that break where a pre-tokenizer chunk starts (10), and the run as a web page that plays offline.
Screenshots go to tests/artifacts/ (git-ignored).
"""

from __future__ import annotations

import bisect
import re
from urllib.parse import urlsplit

import pytest

import appstate.keys as keys

from .conftest import shot, wait_idle
from .test_player_browser import (
    HOST,
    MP,
    TOKENS_JS,
    followers_at,
    jump,
    merge,
    open_player,
    pick,
    python_run,
    status,
)

# the element nearest the token (in the page or in the player's shadow root) whose text holds ``needle``,
# and where both are on screen: {tok, box, inView} (null when no such text is drawn)
NEAR_JS = """([host, node, needle]) => {
  const root = document.querySelector(host).shadowRoot;
  const tok = root.querySelector(`.mp-tokens .tok[data-node="${node}"]`).getBoundingClientRect();
  const hits = [];
  for (const r of [document, root]) {
    for (const e of r.querySelectorAll('*')) {
      if (!e.textContent.includes(needle) || [...e.children].some((c) => c.textContent.includes(needle))) continue;
      const b = e.getBoundingClientRect();
      if (b.width && b.height) hits.push(b);
    }
  }
  const dist = (b) => Math.max(0, b.top - tok.bottom, tok.top - b.bottom);
  hits.sort((a, b) => dist(a) - dist(b));
  if (!hits.length) return null;
  const b = hits[0];
  return {tok: [tok.top, tok.bottom], box: [b.top, b.bottom], gap: dist(b),
          inView: b.top >= 0 && b.bottom <= innerHeight && tok.top >= 0 && tok.bottom <= innerHeight};
}"""


@pytest.fixture
def player(page, server_url):
    return open_player(page, server_url)


def context(browser, width: int, height: int, **kw):
    return browser.new_context(viewport={"width": width, "height": height}, **kw)


# --------------------------------------------------------------------------- 2: the explanation, by the token


@pytest.mark.parametrize("width,height", [(1920, 1080), (390, 844)])
def test_clicking_a_token_explains_it_next_to_the_token(browser, server_url, width, height):
    """Issue 25.2: the explanation was in panel 4, ~900 px below the token (y 662 -> 1,570 at 1920x1080)."""
    ctx = context(browser, width, height, is_mobile=width < 500, has_touch=width < 500)
    page = open_player(ctx.new_page(), f"{server_url}/?sample=english")
    jump(page, 40)
    followers_at(page, 40)
    tok = page.locator(f"{MP} .mp-tokens .tok.new").first
    node, tid = tok.get_attribute("data-node"), tok.get_attribute("data-id")
    tok.click()
    # the page's panel 4 follows as before (the page reruns), and the explanation is there, by the token
    page.wait_for_function(f"() => document.querySelector('.st-key-player_tree_query input')?.value === '{tid}'")
    wait_idle(page)
    # (the page's merge tree says it too: this was test_player_browser's test_clicking_a_token_explains_it)
    assert f"(id {tid}) was made by merge 40" in page.inner_text(".st-key-player_tree"), "the merge tree panel"
    near = page.evaluate(NEAR_JS, [HOST, node, "made by merge 40"])
    assert near and near["inView"] and near["gap"] <= 120, near  # (it was ~900 px)
    shot(page, f"player-explain-{width}x{height}")
    # it says what the page's panel says: the merge that made it and its two parts
    run, _rep = python_run("english")
    m = run.merges[39]
    said = page.inner_text(f"{MP} .mp-explain")
    assert f"(id {m.id}) was made by merge 40" in said
    assert [
        int(x)
        for x in page.locator(f"{MP} .mp-explain-said .chip").evaluate_all(
            "es => es.map(e => e.title.replace('id ', ''))"
        )
    ] == list(m.pair)
    page.keyboard.press("Escape")
    assert page.locator(f"{MP} .mp-explain").is_hidden()
    ctx.close()


# --------------------------------------------------------------------------- 3: phone, controls in view


def on_top(page, selector: str) -> bool:
    """The (first) element is on screen and not covered (its centre hits it)."""
    return page.locator(selector).first.evaluate("""e => { const b = e.getBoundingClientRect();
      const x = b.left + b.width / 2, y = b.top + b.height / 2;
      if (b.top < 0 || b.bottom > innerHeight) return false;
      const hit = e.getRootNode().elementFromPoint(x, y);
      return !!hit && (hit === e || e.contains(hit)); }""")


def test_phone_step_and_play_stay_in_view_while_the_text_changes(browser, server_url):
    """Issue 25.3: on a 390x844 phone Step/Play were at y 270-420 and the tokens hundreds of px lower."""
    ctx = context(browser, 390, 844, is_mobile=True, has_touch=True)
    page = open_player(ctx.new_page(), f"{server_url}/?sample=english&merge=30")
    page.locator(f"{MP} .mp-tokens").evaluate("e => e.scrollIntoView({block: 'center'})")
    page.wait_for_function(
        """(host) => { const r = document.querySelector(host).shadowRoot;
      const b = r.querySelector('.mp-tokens').getBoundingClientRect(); return b.top < innerHeight / 2; }""",
        arg=HOST,
    )
    for part in (".mp-step", ".mp-play", ".mp-back"):
        assert on_top(page, f"{MP} {part}"), part
    before = page.evaluate(TOKENS_JS)
    page.locator(f"{MP} .mp-step").dispatch_event("click")  # no scrolling first: it is already in view
    assert merge(page) == 31 and page.evaluate(TOKENS_JS) != before
    assert on_top(page, f"{MP} .mp-step") and on_top(page, f"{MP} .mp-tokens .tok.new")
    shot(page, "player-phone-390x844-controls")
    ctx.close()


# --------------------------------------------------------------------------- 5: presenter view, no jumps


def test_presenter_view_does_not_jump_between_merges_with_and_without_ties(browser, server_url):
    """Issue 25.5: the status line took one line, or two when a merge had ties: the chart and text moved 27 px."""
    run, _rep = python_run("english")
    tied = next(k for k in range(1, len(run.merges) + 1) if run.merges[k - 1].ties)
    lone = next(k for k in range(1, len(run.merges) + 1) if not run.merges[k - 1].ties)
    ctx = context(browser, 1280, 720)
    page = open_player(ctx.new_page(), f"{server_url}/?presenter=1&sample=english")
    tops = {}
    for k in (lone, tied, 0, lone):
        jump(page, k)
        tops[k] = page.evaluate(
            """(host) => { const r = document.querySelector(host).shadowRoot;
          return ['.mp-bars', '.mp-tokens'].map(s => r.querySelector(s).getBoundingClientRect().top); }""",
            HOST,
        )
        assert ("tied with" in status(page)) == (k == tied)
    assert tops[lone] == tops[tied] == tops[0], tops
    shot(page, "player-presenter-1280x720-ties")
    ctx.close()


# --------------------------------------------------------------------------- 6, 7: shortcuts


def test_shortcuts_work_after_choosing_a_speed(player):
    """Issue 25.6: after choosing a speed, K did nothing and → changed the speed instead of stepping."""
    sel = player.locator(f"{MP} .mp-speed select")
    sel.focus()
    sel.select_option("5")
    assert sel.evaluate("e => e.getRootNode().activeElement === e")  # the select keeps the focus, as a click leaves it
    player.keyboard.press("ArrowRight")
    assert merge(player) == 1 and sel.input_value() == "5"
    player.keyboard.press("k")
    player.wait_for_function(
        f"() => document.querySelector('{HOST}').shadowRoot.querySelector('.mp').dataset.playing === '1'"
    )
    player.keyboard.press("k")
    player.wait_for_function(
        f"() => document.querySelector('{HOST}').shadowRoot.querySelector('.mp').dataset.playing === '0'"
    )
    at = merge(player)
    player.keyboard.press("ArrowLeft")
    assert merge(player) == at - 1 and sel.input_value() == "5"
    player.keyboard.press("ArrowDown")  # ↑ ↓ still choose the speed
    assert sel.input_value() == "10"


def test_arrows_and_clickers_step_after_picking_a_sample_in_the_sidebar(player):
    """Issue 25.6: after picking a sample in the sidebar, ←/→ did nothing until the page was clicked.
    Issue 25.7 (the player): clickers send PageDown/PageUp; the player answered arrows only. (Both on one
    page: a lecturer picks the text, then steps with the clicker.)"""
    pick(player, keys.PLAYER_SAMPLE, "Python code")
    player.wait_for_function(
        """(host) => { const r = document.querySelector(host).shadowRoot;
      return r.querySelector('.mp-tokens').textContent.includes('def'); }""",
        arg=HOST,
    )
    assert merge(player) == 0
    player.keyboard.press("ArrowRight")
    player.keyboard.press("ArrowRight")
    assert merge(player) == 2, "→ after picking a sample"
    player.keyboard.press("ArrowLeft")
    assert merge(player) == 1, "← after picking a sample"
    for _ in range(3):
        player.keyboard.press("PageDown")
    assert merge(player) == 4, "a clicker's PageDown steps"
    player.keyboard.press("PageUp")
    assert merge(player) == 3, "a clicker's PageUp steps back"
    followers_at(player, 3)


# --------------------------------------------------------------------------- 8: the rate it really plays at

SLOW_FRAMES_JS = """() => { window.requestAnimationFrame = (cb) => setTimeout(() => cb(performance.now()), 200); }"""
# the rate the status line gives, and the merge on screen and the time (ms) when it gave it
PLAYING_AT_JS = """(host) => { const r = document.querySelector(host).shadowRoot;
  const m = /30\\/s is more than this screen draws: playing at ([\\d.]+)\\/s/.exec(r.querySelector('.mp-status').textContent);
  return m && {rate: +m[1], k: +r.querySelector('.mp').dataset.merge, t: performance.now()}; }"""


def test_a_busy_screen_says_it_plays_slower_than_30_a_second(player):
    """Issue 25.8: "30/s" that was really 8-27/s, with no word. A busy screen is made here: 5 frames a second
    at most. The rate it gives is the rate the test sees it play at."""
    player.evaluate(SLOW_FRAMES_JS)
    player.locator(f"{MP} .mp-speed select").select_option("30")
    player.locator(f"{MP} .mp-play").click()
    first = player.wait_for_function(PLAYING_AT_JS, arg=HOST, timeout=20_000).json_value()
    player.wait_for_function(
        f"(k) => +document.querySelector('{HOST}').shadowRoot.querySelector('.mp').dataset.merge >= k",
        arg=first["k"] + 10,
        timeout=20_000,
    )
    last = player.wait_for_function(PLAYING_AT_JS, arg=HOST).json_value()
    seen = (last["k"] - first["k"]) * 1000 / (last["t"] - first["t"])  # merges a second, as the test saw them
    assert seen <= 6  # (at most 5 frames a second)
    assert 0.5 * seen <= last["rate"] <= 2 * seen, (last, seen)  # (over the last second or so)
    player.locator(f"{MP} .mp-play").click()
    assert "more than this screen draws" not in status(player)


AT_MERGE_JS = """(host) => ({k: +document.querySelector(host).shadowRoot.querySelector('.mp').dataset.merge,
  t: performance.now()})"""


def test_a_screen_that_keeps_up_says_nothing(player):
    """No false alarm: while the screen keeps the chosen 2/s -- by the test's own clock, over the last 3 s --
    the status line has no lag note, and a note names a rate under 80 % of the speed. (On a machine so busy
    that the page itself played slower the note is true: CI runs at load 10 saw 1.6/s.)"""
    player.locator(f"{MP} .mp-speed select").select_option("2")
    player.locator(f"{MP} .mp-play").click()
    merge_at = f"(k) => +document.querySelector('{HOST}').shadowRoot.querySelector('.mp').dataset.merge >= k"
    player.wait_for_function(merge_at, arg=1, timeout=20_000)
    first = player.evaluate(AT_MERGE_JS, HOST)
    player.wait_for_function(merge_at, arg=first["k"] + 6, timeout=20_000)  # 3 s at 2/s; measured over 2.5 s
    note, last = status(player), player.evaluate(AT_MERGE_JS, HOST)
    seen = (last["k"] - first["k"]) * 1000 / (last["t"] - first["t"])
    print(f"played at {seen:.2f}/s by the test's clock; status: {note!r}")
    if seen >= 0.9 * 2:
        assert "more than this screen draws" not in note
    lag = re.search(r"playing at ([\d.]+)/s", note)
    # a note only for a rate below 80 % of the speed, shown to one decimal: 1.58/s reads "1.6/s" (a CI run at
    # load 10 saw exactly that), so the shown rate is at most 1.6 and its true value under it
    assert lag is None or float(lag[1]) <= round(0.8 * 2, 1), note
    player.locator(f"{MP} .mp-play").click()


# --------------------------------------------------------------------------- 10: lines break between chunks

RECTS_JS = """(host) => { const r = document.querySelector(host).shadowRoot; const box = r.querySelector('.mp-tokens');
  const cs = getComputedStyle(box);
  return {width: box.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight),
    left: box.getBoundingClientRect().left + box.clientLeft + parseFloat(cs.paddingLeft),
    toks: [...box.querySelectorAll('.tok')].map(e => ({start: +e.dataset.start, text: e.textContent,
      rects: [...e.getClientRects()].map(b => [b.top, b.bottom, b.width, b.left])}))}; }"""


@pytest.mark.parametrize("width,height,presenter", [(390, 844, False), (1280, 720, True), (1920, 1080, False)])
def test_lines_break_only_where_a_pretokenizer_chunk_starts(browser, server_url, width, height, presenter):
    """Issue 25.10: a line ended with ·in and the next began with to (·pi / eces, ·ev / er). A chunk (the
    text's own chunk starts, from Python's replay) is on one line unless it alone is wider than the line."""
    run, rep = python_run("english")
    starts = sorted(rep.chunk_starts)
    ctx = context(browser, width, height, is_mobile=width < 500)
    page = open_player(ctx.new_page(), f"{server_url}/?sample=english&merge=30" + ("&presenter=1" if presenter else ""))
    for k in (30, 120):
        jump(page, k)
        got = page.evaluate(RECTS_JS, HOST)
        toks, line = got["toks"], got["width"]
        chunk = [bisect.bisect_right(starts, t["start"]) for t in toks]
        widths: dict[int, float] = {}  # a chunk's width: its tokens' boxes, and 3 px a token for their margins
        for c, t in zip(chunk, toks):
            widths[c] = widths.get(c, 0) + sum(r[2] for r in t["rects"]) + 3
        broken = []
        # every line starts at the box's left edge (a chunk's box must not carry its second line along)
        indented = [
            t["text"]
            for t in toks
            for j, r in enumerate(t["rects"])
            if r[3] > got["left"] + 30 and (j > 0 and r[0] >= t["rects"][j - 1][1] - 2)
        ]
        for i in range(1, len(toks)):
            a, b = toks[i - 1], toks[i]
            if b["rects"][0][0] >= a["rects"][-1][1] - 2 and b["rects"][0][3] > got["left"] + 30:
                indented.append(b["text"])
            if chunk[i] != chunk[i - 1] or "↵" in a["text"]:
                continue
            if b["rects"][0][0] >= a["rects"][-1][1] - 2 and widths[chunk[i]] < line:  # b starts a new line
                broken.append(a["text"] + " / " + b["text"])
        assert not broken, f"merge {k}: chunks split across lines: {broken[:8]}"
        assert not indented, f"merge {k}: lines that do not start at the left: {indented[:8]}"
    shot(page, f"player-lines-{width}x{height}" + ("-presenter" if presenter else ""))
    ctx.close()


# --------------------------------------------------------------------------- the run as a web page

PAGE = "#stage"
PAGE_TOKENS_JS = TOKENS_JS.replace(f"document.querySelector('{HOST}')", f"document.querySelector('{PAGE}')")


def page_merge(pg) -> int:
    return int(pg.get_attribute(f"{PAGE} .mp", "data-merge"))


def page_jump(pg, k: int) -> None:
    pg.locator(f"{PAGE} .mp-jump input").evaluate(
        "(e, k) => { e.value = String(k); e.dispatchEvent(new Event('input', {bubbles: true})); }", k
    )
    assert page_merge(pg) == k


def page_status(pg) -> str:
    return re.sub(r"\s+", " ", pg.inner_text(f"{PAGE} .mp-status")).strip()


def test_download_the_run_as_a_web_page_that_plays_offline(browser, server_url, tmp_path):
    """The lecturer's request: the run as one .html that plays from file:// with nothing fetched, and draws
    what the app draws at merges 0, 1, the middle and the end."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    app = open_player(ctx.new_page(), f"{server_url}/?sample=english")
    with app.expect_download() as dl:
        app.get_by_role("button", name="Download this run as a web page").click()
    path = tmp_path / dl.value.suggested_filename
    dl.value.save_as(path)
    assert path.suffix == ".html"

    off = browser.new_context(viewport={"width": 1280, "height": 900})
    fetched: list[str] = []

    def route(r):
        if urlsplit(r.request.url).scheme == "file":
            r.continue_()
        else:  # nothing else is allowed to load
            fetched.append(r.request.url)
            r.abort()

    off.route("**/*", route)
    pg = off.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(path.as_uri())
    pg.wait_for_selector(f'{PAGE} .mp[data-ready="1"]')
    n = int(pg.locator(f"{PAGE} .mp-jump input").get_attribute("max"))
    assert n == int(app.locator(f"{MP} .mp-jump input").get_attribute("max")) > 2
    for k in (0, 1, n // 2, n):
        jump(app, k)
        page_jump(pg, k)
        assert f"Merge {k:,} / {n:,}" in page_status(pg)
        assert page_status(pg) == status(app), k
        assert pg.evaluate(PAGE_TOKENS_JS) == app.evaluate(TOKENS_JS), k
    # plays, pauses, steps (keys and buttons)
    page_jump(pg, 0)
    pg.locator(f"{PAGE} .mp-speed select").select_option("10")
    pg.keyboard.press("k")
    pg.wait_for_function(f"() => +document.querySelector('{PAGE}').shadowRoot.querySelector('.mp').dataset.merge >= 3")
    pg.keyboard.press("k")
    pg.wait_for_function(
        f"() => document.querySelector('{PAGE}').shadowRoot.querySelector('.mp').dataset.playing === '0'"
    )
    at = page_merge(pg)
    assert 3 <= at < n
    pg.locator(f"{PAGE} .mp-step").click()
    pg.keyboard.press("ArrowRight")
    pg.keyboard.press("PageDown")
    assert page_merge(pg) == at + 3
    pg.locator(f"{PAGE} .mp-back").click()
    assert page_merge(pg) == at + 2
    jump(app, at + 2)
    assert pg.evaluate(PAGE_TOKENS_JS) == app.evaluate(TOKENS_JS)
    # a click on a token explains it there too; presenter's large type
    pg.locator(f"{PAGE} .mp-tokens .tok.new").first.click()
    assert f"was made by merge {at + 2}" in pg.inner_text(f"{PAGE} .mp-explain")
    for w, h, big in ((1920, 1080, False), (390, 844, False), (1280, 720, True)):
        pg.set_viewport_size({"width": w, "height": h})
        if big != pg.locator("#presenter").is_checked():
            pg.locator("#presenter").click()
        pg.wait_for_function(
            f"(big) => document.querySelector('{PAGE}').shadowRoot.querySelector('.mp')"
            ".classList.contains('presenter') === big",
            arg=big,
        )
        shot(pg, f"run-page-{w}x{h}" + ("-presenter" if big else ""))
    assert fetched == [] and errors == []
    off.close()
    ctx.close()
