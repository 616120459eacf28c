"""The merge player's screens in a real browser: reduced motion, a projector (presenter view at 1280x720),
a phone's width, controls whose labels are never cut. (Split from ``test_player_browser.py``, whose helpers
it uses.) Screenshots go to ``tests/artifacts/`` (git-ignored): look at them.
"""

from __future__ import annotations

from .conftest import shot, sidebar_settled
from .test_player_browser import HOST, MP, open_player


def test_reduced_motion_turns_the_animations_off(browser, server_url):
    ctx = browser.new_context(viewport={"width": 1280, "height": 1200}, reduced_motion="reduce")
    page = open_player(ctx.new_page(), server_url)
    page.keyboard.press("ArrowRight")
    page.wait_for_selector(f'{MP}[data-merge="1"]')  # (drawn at once: the key's handler draws it)
    assert page.locator(f"{MP} .mp-tokens .joining").count() == 0
    duration = page.locator(f"{MP} .bar").first.evaluate("e => getComputedStyle(e).transitionDuration")
    assert set(duration.replace("s", "").split(", ")) <= {"0"}
    ctx.close()


#: the player's controls whose label is cut (wider than their box, or past the screen's right edge)
CUT_JS = (
    """() => [...document.querySelector('%s').shadowRoot.querySelectorAll(
        '.mp-btn, .mp-speed, .mp-jump .mp-cap, .mp-segbtn')].filter(e => e.scrollWidth > e.clientWidth + 1
        || e.getBoundingClientRect().right > window.innerWidth).map(e => e.textContent)"""
    % HOST
)


def test_presenter_stage_fits_a_projector(browser, server_url):
    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    page = open_player(ctx.new_page(), f"{server_url}/?presenter=1&sample=english&merge=12")
    sidebar_settled(page, False)  # the sidebar has slid shut
    for part in (".mp-controls", ".mp-status", ".mp-bars", ".mp-tokens"):
        box = page.locator(f"{MP} {part}").bounding_box()
        assert box and box["y"] >= 0 and box["y"] + min(box["height"], 160) <= 720, (part, box)
        assert box["x"] + box["width"] <= 1280
    bars = page.locator(f"{MP} .mp-bars").bounding_box()
    assert bars["y"] + bars["height"] <= 720, "the whole pair chart is on screen"
    sizes = page.evaluate(
        """() => { const r = document.querySelector('%s').shadowRoot;
      const px = (s) => parseFloat(getComputedStyle(r.querySelector(s)).fontSize);
      return {tok: px('.mp-tokens .tok'), label: px('.bar .chip'), count: px('.bar-count'), status: px('.mp-line1'),
              button: px('.mp-btn')}; }"""
        % HOST
    )
    assert sizes["tok"] >= 28 and sizes["label"] >= 18 and sizes["count"] >= 18 and sizes["status"] >= 18, sizes
    shot(page, "player-presenter-1280x720")
    # the controls never truncate their labels at 1280 (test_controls_never_truncate_their_labels: at 390)
    assert page.evaluate(CUT_JS) == [], "controls truncated at 1280"
    shot(page, "player-controls-1280")
    ctx.close()


def test_controls_never_truncate_their_labels(browser, server_url):
    """At a phone's width (here) and a projector's (test_presenter_stage_fits_a_projector)."""
    ctx = browser.new_context(viewport={"width": 390, "height": 900}, is_mobile=True)
    page = open_player(ctx.new_page(), f"{server_url}/?presenter=1")
    assert page.evaluate(CUT_JS) == []
    shot(page, "player-controls-390")
    ctx.close()


def test_phone_width(browser, server_url):
    ctx = browser.new_context(viewport={"width": 390, "height": 1400}, is_mobile=True, has_touch=True)
    page = open_player(ctx.new_page(), f"{server_url}/?sample=english&merge=30")
    width = page.evaluate("() => document.querySelector('%s').getBoundingClientRect().width" % HOST)
    assert width <= 390
    shot(page, "player-phone-390")
    ctx.close()
