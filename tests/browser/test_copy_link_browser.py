"""The share link's copy box (``components/copy_link``) in a real browser, on the merge player page.

What a person sees and does: the box shows the page's own address (the link the player keeps in the URL),
the button puts it on the clipboard (read back with ``navigator.clipboard.readText``), by mouse and by
keyboard; when the Clipboard API refuses or is missing (plain HTTP on a LAN address) the link is selected and
``document.execCommand("copy")`` copies it; when that fails too the link stays selected and the box says to
press Ctrl+C. Markup in a link is shown as text. A fresh player page loads no syntax highlighter (the reason
for the component). Screenshots: tests/artifacts/copylink-*.png (look at them).
"""

from __future__ import annotations

import urllib.parse

import pytest

from components.copy_link import COPY_LINK_JS

from .conftest import shot_at, wait_idle

MP = ".st-key-merge_player [data-testid=stBidiComponentIsolated] .mp"
BOX = ".st-key-player_share_link .cl"
LINK = f"{BOX} .cl-link"
BUTTON = f"{BOX} .cl-copy"
MSG = f"{BOX} .cl-msg"
PERMISSIONS = ["clipboard-read", "clipboard-write"]
# Counts document.execCommand("copy") calls: what it returned and what was selected when it ran.
SPY_EXEC = """(() => { window.__copies = []; const exec = Document.prototype.execCommand;
  Document.prototype.execCommand = function (cmd, ...rest) {
    const sel = String(window.getSelection());
    const ok = %s;
    if (cmd === "copy") window.__copies.push({ok, sel});
    return ok; }; })();"""
EXEC_WORKS = SPY_EXEC % "exec.call(this, cmd, ...rest)"
EXEC_FAILS = SPY_EXEC % '(cmd === "copy" ? false : exec.call(this, cmd, ...rest))'
# The Clipboard API refuses (as a browser does without permission or focus) ...
REFUSES = """(() => { const real = navigator.clipboard; window.__readClipboard = () => real.readText();
  navigator.clipboard.writeText = () => Promise.reject(new DOMException("refused", "NotAllowedError")); })();"""
# ... or is missing (as on plain HTTP to a LAN address: not a secure context)
MISSING = """(() => { const real = navigator.clipboard; window.__readClipboard = () => real.readText();
  Object.defineProperty(Navigator.prototype, "clipboard", {get: () => undefined, configurable: true}); })();"""


def open_player(
    browser, url: str, *, width: int = 1280, height: int = 2000, permissions=PERMISSIONS, scripts: tuple[str, ...] = ()
):
    ctx = browser.new_context(viewport={"width": width, "height": height}, permissions=list(permissions))
    for script in scripts:
        ctx.add_init_script(script)
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    page.requests = []
    page.on("request", lambda r: page.requests.append(r.url))
    page.goto(url)
    wait_idle(page, 60_000)
    page.wait_for_selector(f'{MP}[data-ready="1"]', timeout=60_000)
    page.wait_for_selector(LINK)
    return ctx, page


def the_link(page) -> str:
    return page.locator(LINK).text_content()


def clipboard(page) -> str:
    return page.evaluate("() => (window.__readClipboard || (() => navigator.clipboard.readText()))()")


def selection(page) -> str:
    return page.evaluate("() => String(window.getSelection())")


def assert_fits(page) -> None:
    """The box is inside the page, nothing in it scrolls sideways, the link has most of its width and the
    button (at least 24 px square) is inside it."""
    got = page.evaluate("""() => { const host = document.querySelector('.st-key-player_share_link');
        const box = host.querySelector('[data-testid=stBidiComponentIsolated]').shadowRoot.querySelector('.cl');
        const r = box.getBoundingClientRect(), b = box.querySelector('.cl-copy').getBoundingClientRect();
        const link = box.querySelector('.cl-link');
        return {right: r.right, vw: document.documentElement.clientWidth,
                scroll: Math.max(box.scrollWidth - box.clientWidth, link.scrollWidth - link.clientWidth),
                linkShare: link.getBoundingClientRect().width / r.width,
                buttonIn: b.right <= r.right && b.width >= 24 && b.height >= 24}; }""")
    assert got["right"] <= got["vw"] and got["scroll"] <= 0 and got["buttonIn"] and got["linkShare"] > 0.6, got


def focused_is_the_button(page) -> bool:
    return page.evaluate("""() => { let a = document.activeElement;
        while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
        return !!a && a.classList.contains('cl-copy'); }""")


def step_to(page, k: int, clicks: int) -> None:
    """Step the player ``clicks`` times with its own button, to merge ``k``; wait until the URL and the box
    follow."""
    for _ in range(clicks):
        page.click(f"{MP} .mp-step")
    page.wait_for_function(f"() => new URLSearchParams(location.search).get('merge') === '{k}'")
    wait_idle(page)
    page.wait_for_function(f"""() => {{ const e = document.querySelector('.st-key-player_share_link')
        ?.querySelector('[data-testid=stBidiComponentIsolated]')?.shadowRoot?.querySelector('.cl-link');
        return e && new URL(e.textContent).searchParams.get('merge') === '{k}'; }}""")


def test_the_box_shows_the_pages_address_and_the_button_copies_it(browser, server_url):
    ctx, page = open_player(browser, f"{server_url}/?sample=english")
    step_to(page, 3, 3)
    link = the_link(page)
    # the page's own address, as the browser holds it (the link may spell an empty path as "" or "/")
    assert page.evaluate("(link) => new URL(link).href === location.href", link), (link, page.url)
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)["merge"] == ["3"]
    button = page.locator(BUTTON)
    assert button.get_attribute("aria-label") == "Copy link" and button.get_attribute("title") == "Copy link"
    assert page.locator(MSG).get_attribute("role") == "status"
    assert page.locator(MSG).get_attribute("aria-live") == "polite"
    assert page.get_by_role("button", name="Copy link").count() == 1

    page.evaluate("() => navigator.clipboard.writeText('something else')")
    button.click()
    page.wait_for_selector(f'{BOX}[data-copied="clipboard"]')
    assert page.locator(MSG).text_content() == "Copied"
    assert clipboard(page) == link
    page.wait_for_selector(f'{BOX}[data-copied=""]')  # "Copied" goes after 2 s (30 s: a hang detector)
    assert page.locator(MSG).text_content() == ""

    # the keyboard: the button is in the Tab order (Tab away and Shift+Tab back); Enter and Space copy
    for key in ("Enter", " "):
        page.evaluate("() => navigator.clipboard.writeText('something else')")
        page.wait_for_selector(f'{BOX}[data-copied=""]')
        page.locator(BUTTON).focus()
        assert focused_is_the_button(page)
        page.keyboard.press("Tab")
        assert not focused_is_the_button(page)
        page.keyboard.press("Shift+Tab")
        assert focused_is_the_button(page)
        page.keyboard.press(key)
        page.wait_for_selector(f'{BOX}[data-copied="clipboard"]')
        assert clipboard(page) == link, key

    # another step: the box follows, and copies the new link
    step_to(page, 5, 2)
    link5 = the_link(page)
    assert page.evaluate("(link) => new URL(link).href === location.href", link5) and link5 != link
    page.locator(BUTTON).click()
    page.wait_for_selector(f'{BOX}[data-copied="clipboard"]')
    assert clipboard(page) == link5

    # the point of the component: no syntax highlighter is downloaded for the link
    assert not [u for u in page.requests if "SyntaxHighlighter" in u], page.requests
    assert any("/static/js/" in u for u in page.requests)  # (the recorder did see the page's scripts)

    # the box fits a projector's 1280x720, "Copied" showing (test_the_box_fits_the_page_screenshots: the
    # other screens; this page is 1280 wide already)
    page.locator(BUTTON).click()
    page.wait_for_selector(f'{BOX}[data-copied="clipboard"]')
    shot_at(page, "copylink-1280", ".st-key-player_share", 1280, 720)
    assert_fits(page)
    ctx.close()


def test_a_second_copy_is_announced_again(browser, server_url):
    """A polite live region speaks when its text changes: copying twice within the 2 s that "Copied" stays
    must change it (empty, then "Copied" again), or a screen reader says nothing the second time."""
    ctx, page = open_player(browser, f"{server_url}/?sample=english")
    page.evaluate("""() => { const msg = document.querySelector('.st-key-player_share_link')
        .querySelector('[data-testid=stBidiComponentIsolated]').shadowRoot.querySelector('.cl-msg');
        window.__said = [];
        new MutationObserver(() => window.__said.push(msg.textContent))
            .observe(msg, {childList: true, characterData: true, subtree: true}); }""")
    page.locator(BUTTON).click()
    page.wait_for_selector(f'{BOX}[data-copied="clipboard"]')
    page.locator(BUTTON).click()  # well within the 2 s "Copied" stays
    page.wait_for_function("() => window.__said.filter(t => t === 'Copied').length === 2")
    said = page.evaluate("() => window.__said")
    assert said[:3] == ["Copied", "", "Copied"], said
    page.wait_for_selector(f'{BOX}[data-copied="clipboard"]')
    assert page.locator(MSG).text_content() == "Copied" and clipboard(page) == the_link(page)
    ctx.close()


def test_a_link_with_a_long_text_scrolls_inside_a_box_of_eight_lines(browser, server_url):
    """The longest link a text can make (2,000 characters, many of them escaped: ~5 KB) shows 8 lines and
    scrolls inside the box; the page does not grow by 60 lines, and Copy still copies all of it."""
    text = '<a> & "b" ✓ ' * 180  # 2,000 characters once cut, most of them %-escaped
    ctx, page = open_player(
        browser,
        f"{server_url}/?" + urllib.parse.urlencode({"text": text[:2000], "merges": "5"}),
        width=1280,
        height=900,
    )
    got = page.evaluate("""() => { const link = document.querySelector('.st-key-player_share_link')
        .querySelector('[data-testid=stBidiComponentIsolated]').shadowRoot.querySelector('.cl-link');
        const lh = parseFloat(getComputedStyle(link).lineHeight);
        return {lines: link.clientHeight / lh, all: link.scrollHeight / lh, chars: link.textContent.length}; }""")
    assert got["chars"] > 4000 and got["all"] > 30, got  # the link really is long...
    assert 7.5 <= got["lines"] <= 8.5, got  # ...and 8 lines of it show
    assert_fits(page)
    shot_at(page, "copylink-1280-longest", ".st-key-player_share", 1280, 900)
    page.locator(BUTTON).click()
    page.wait_for_selector(f'{BOX}[data-copied="clipboard"]')
    assert clipboard(page) == the_link(page) and len(clipboard(page)) == got["chars"]
    ctx.close()


@pytest.mark.parametrize("clipboard_api", [REFUSES, MISSING], ids=["clipboard-refuses", "clipboard-missing"])
def test_without_the_clipboard_api_the_link_is_selected_and_copied(browser, server_url, clipboard_api):
    ctx, page = open_player(browser, f"{server_url}/?sample=english", scripts=(clipboard_api, EXEC_WORKS))
    link = the_link(page)
    page.evaluate("() => window.__readClipboard().then(() => null)")  # readable before the copy
    page.locator(BUTTON).click()
    page.wait_for_selector(f'{BOX}[data-copied="select"]')
    assert page.locator(MSG).text_content() == "Copied"
    copies = page.evaluate("() => window.__copies")
    assert copies == [{"ok": True, "sel": link}]  # the link was selected when the copy ran
    assert clipboard(page) == link
    ctx.close()


def test_when_copying_fails_the_link_stays_selected_and_the_box_says_press_ctrl_c(browser, server_url):
    ctx, page = open_player(browser, f"{server_url}/?sample=english", scripts=(REFUSES, EXEC_FAILS))
    link = the_link(page)
    page.locator(BUTTON).click()
    page.wait_for_selector(f'{BOX}[data-copied="manual"]')
    message = page.locator(MSG).text_content()
    assert "Ctrl+C" in message and "selected" in message, message
    assert page.evaluate("() => window.__copies.length") == 1
    assert selection(page) == link
    shot_at(page, "copylink-manual-390", ".st-key-player_share", 390, 844)
    assert_fits(page)
    assert selection(page) == link
    ctx.close()


def test_markup_in_the_link_is_text(browser, server_url):
    # In the app the user's text is percent-encoded in the link: <b>x</b> travels as %3Cb%3Ex%3C%2Fb%3E
    text = "<b>x</b> and <img src=x onerror=window.__pwned=1> " * 3
    ctx, page = open_player(browser, f"{server_url}/?" + urllib.parse.urlencode({"text": text, "merges": "5"}))
    link = the_link(page)
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)["text"] == [text]
    assert page.locator(f"{BOX} b, {BOX} img").count() == 0
    ctx.close()
    # The module itself, fed a raw link with markup, loaded the way Streamlit loads it (a Blob, import()),
    # into a shadow root: the markup is text, nothing runs.
    ctx = browser.new_context()
    page = ctx.new_page()
    page.set_content("<div id=host></div>")
    raw = 'http://lab.example/?q=<b>x</b><img src=x onerror="window.__pwned=1">&t=<script>window.__pwned=2</script>'
    js = COPY_LINK_JS  # the bundle the app sends
    page.evaluate(
        """async ([js, url]) => {
        const mod = await import(URL.createObjectURL(new Blob([js], {type: "text/javascript"})));
        const root = document.getElementById("host").attachShadow({mode: "open"});
        mod.default({name: "bpe_copy_link", data: {url}, key: "k", parentElement: root}); }""",
        [js, raw],
    )
    assert page.locator("#host .cl-link").text_content() == raw
    assert page.locator("#host b, #host img, #host script").count() == 0
    # (nothing to wait for: with no img or script element made, no handler of the markup can ever run)
    assert page.evaluate("() => window.__pwned") is None
    ctx.close()


@pytest.mark.parametrize(
    "width, height, query",
    [
        (390, 844, "sample=english"),
        (390, 844, "presenter=1&sample=english"),
        (1280, 720, "presenter=1&sample=english"),
    ],
)
def test_the_box_fits_the_page_screenshots(browser, server_url, width, height, query):
    """(At 1280x720 without presenter view: test_the_box_shows_the_pages_address_and_the_button_copies_it.)"""
    ctx, page = open_player(browser, f"{server_url}/?{query}", width=width, height=height)
    name = f"copylink-{width}{'-presenter' if 'presenter' in query else ''}"
    page.locator(BUTTON).click()
    page.wait_for_selector(f'{BOX}[data-copied="clipboard"]')
    shot_at(page, name, ".st-key-player_share", width, height)
    assert_fits(page)
    ctx.close()


@pytest.mark.parametrize("width, height", [(1280, 720), (390, 844)])
def test_a_long_link_without_spaces_fits_the_page(browser, server_url, width, height):
    # a long link that has no space in it: the text of a word 300 letters long
    long_text = "supercalifragilistic" * 15 + " the cat sat on the mat " * 4
    ctx, page = open_player(
        browser,
        f"{server_url}/?" + urllib.parse.urlencode({"text": long_text, "merges": "5"}),
        width=width,
        height=height,
    )
    assert_fits(page)
    shot_at(page, f"copylink-{width}-long", ".st-key-player_share", width, height)
    ctx.close()
