"""Browser tests: a real ``streamlit run`` server driven by Playwright in Debian's Chromium.

Fixtures:
* ``server_url`` (session): starts ``python -m streamlit run app.py`` on a free port, waits for health
  (:func:`start_server`, which is ``testkit.app_server``'s, as the benches' is: tests never import ``bench``).
* ``browser`` (session): Chromium from ``/usr/bin/chromium`` (``playwright install`` cannot work here).
* ``page``: a fresh context + page with a tall viewport (Streamlit scrolls inside its own container).
* ``wait_idle(page)``: waits until the script is not running.
* ``settled(page, selector)``: waits until ``selector``'s box (and the page's height) stop changing (a layout that
  follows a resize, a transition); ``sidebar_settled(page, open)``: until the sidebar has finished opening or closing.
* ``applied(page, key)``: waits until the text input or area with widget key ``key`` has sent its value (Streamlit's
  "Press Enter to apply" is gone).
* ``shot(page, name)``: saves a screenshot under ``tests/artifacts/`` (git-ignored) and returns the path;
  ``shot_at(page, name, anchor, width, height)`` first resizes the viewport (1280x720, a phone's 390 px) and
  scrolls to ``anchor``; ``docs_shot(page, name)`` also writes ``docs/<name>.png`` for the README when ``BPE_DOCS_SHOTS=1``.
* ``open_path(page, server_url, path, ready)``: opens a page of the app and waits for its content.
* ``choose_preset(page, picker, title)``: picks a preset text in the selectbox with widget key ``picker``.
* ``submit_text(page, key, text, shown_in)``: types a text into a text area and waits until it is drawn.
* ``set_multiselect(page, key, labels)``: makes the multiselect with widget key ``key`` hold ``labels``, in order.
* ``tokenize_settled(page)``: waits until the Tokenize view (a component in a shadow root) shows, in every
  column, the text in its box; ``TOK_BOX`` is its text box.
* ``lines_of(n)``, ``insert_big(page, key, text, hang_s)``, ``refused_aloud(page, key, held, said)``: a big text
  inserted as typing into a Streamlit text area, and one over its limit refused with a sentence (views/big_paste.py).
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from testkit import app_server
from testkit.app_server import CHROMIUM, CHROMIUM_ARGS, stop_server

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
#: the log of a server :func:`start_server` started, in ARTIFACTS (read back by :func:`server_log`)
SERVER_LOG = "server-{port}.log"
# ``expect`` waits 5 s by default: a wall-clock bound a busy machine can miss. Its waits here are hang
# detectors, as the pages' own are (``page.set_default_timeout(30_000)``): a state that never comes fails,
# one that comes late does not.
expect.set_options(timeout=30_000)


def start_server():
    """Start the app on a free port (``testkit.app_server.start_server``: the benches start it the same way),
    its log in ``tests/artifacts/server-<port>.log``; returns (process, url without a trailing slash). The
    caller stops it (``stop_server``)."""
    # the server's gzip copies of Streamlit's static files (serving/static.py) go to a folder of the tests' own
    cache = tempfile.mkdtemp(prefix="bpe-lab-static-")
    proc, url = app_server.start_server(SERVER_LOG, log_dir=ARTIFACTS, env={"BPE_STATIC_CACHE": cache})
    return proc, url.rstrip("/")


def server_log(url: str) -> str:
    """What the server at ``url`` (started by :func:`start_server`) has logged so far."""
    port = url.rstrip("/").rsplit(":", 1)[1]
    return (ARTIFACTS / SERVER_LOG.format(port=port)).read_text(errors="replace")


@pytest.fixture
def own_server():
    """A server of the test's own (its memory and its worker processes are the test's to measure); (process,
    url)."""
    proc, url = start_server()
    yield proc, url
    proc.terminate()
    proc.wait(10)


@pytest.fixture(scope="session")
def server_url():
    proc, url = start_server()
    yield url
    stop_server(proc)


#: Installed in every page before Streamlit's scripts (``add_init_script``): counts, on the page's websocket, the
#: script runs it asked for and the runs the server started and finished, in the order the page sent and got
#: them (``window.__bpeRuns``), read by :func:`wait_idle`; and the user's last action (a click, a key, an edit:
#: ``acted`` in the same sequence, ``actedAt`` its time). It reads the top-level field number of each
#: protobuf message (Streamlit's ``BackMsg.rerun_script`` = 11; ``ForwardMsg.new_session`` = 4, sent when a
#: run starts, and ``script_finished`` = 6, whose status 2 is "stopped early for a rerun": another run follows).
RUNS_JS = """(() => {
  const Native = window.WebSocket;
  if (!Native || window.__bpeRuns) return;
  const runs = window.__bpeRuns = { seq: 0, asked: 0, started: 0, finished: 0, frames: 0, seen: 0, acted: 0, actedAt: 0 };
  // (capture, on the window: before the app's own handlers, which send the run the action asks for)
  for (const type of ["click", "keydown", "input", "change"])
    window.addEventListener(type, () => { runs.acted = ++runs.seq; runs.actedAt = performance.now(); }, true);
  // the top-level fields of a protobuf message: [[field number, varint value or null], ...]
  function fields(data) {
    const b = new Uint8Array(data); const out = []; let i = 0;
    const varint = () => { let v = 0, m = 1, c; do { c = b[i++]; v += (c & 127) * m; m *= 128; } while (c & 128 && i < b.length); return v; };
    while (i < b.length) {
      const key = varint(); const field = Math.floor(key / 8), wire = key % 8;
      if (wire === 0) out.push([field, varint()]);
      else if (wire === 2) { const n = varint(); out.push([field, null]); i += n; }
      else if (wire === 1) i += 8; else if (wire === 5) i += 4; else break;
    }
    return out;
  }
  class Tracked extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (e) => {
        if (!(e.data instanceof ArrayBuffer)) return;
        for (const [f, v] of fields(e.data)) {
          if (f === 4) runs.started = ++runs.seq;
          else if (f === 6 && v !== 2) runs.finished = ++runs.seq;
        }
      });
    }
    send(data) {
      try {
        const bytes = data instanceof ArrayBuffer || ArrayBuffer.isView(data) ? data : null;
        if (bytes && fields(bytes instanceof ArrayBuffer ? bytes : bytes.buffer.slice(bytes.byteOffset,
            bytes.byteOffset + bytes.byteLength)).some(([f]) => f === 11)) runs.asked = ++runs.seq;
      } catch (e) { /* never in the way of the app */ }
      return super.send(data);
    }
  }
  window.WebSocket = Tracked;
})();"""


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run `bash scripts/test.sh`, which installs Debian's chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        native = b.new_context

        def new_context(*args, **kwargs):  # every context's pages count their runs (RUNS_JS)
            ctx = native(*args, **kwargs)
            ctx.add_init_script(RUNS_JS)
            return ctx

        b.new_context = new_context
        yield b
        b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 2200})
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    yield pg
    ctx.close()


#: idle: every run the page asked for has started and finished (RUNS_JS's counts), the app says "notRunning",
#: no element is still a grey likeness (``stSkeleton``: Streamlit draws one while it fetches a kind of widget's
#: module on its first use, a Markdown plugin, a component's frame -- seconds after the run on a busy machine),
#: the user's last action was answered by a run asked after it (or asked for none in ACTION_GRACE_MS: a click
#: on an expander, a key typed in a box), and two animation frames have passed since the last run's end
#: arrived (Streamlit handles a message and React draws it after the message event: the attribute alone can
#: read "notRunning" from before the run)
ACTION_GRACE_MS = 150
IDLE_JS = """(grace) => { const app = document.querySelector('[data-testid="stApp"]');
  const r = window.__bpeRuns;
  if (!app || !r || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (document.querySelector('[data-testid="stSkeleton"]')) { r.frames = 0; return false; }
  if (!(r.finished > r.started && r.started > r.asked)) return false;
  if (r.acted > r.asked && performance.now() - r.actedAt < grace) return false;
  if (r.seen !== r.finished) { r.seen = r.finished; r.frames = 0; return false; }
  return ++r.frames >= 2; }"""


def wait_idle(page, timeout: float = 30_000) -> None:
    """Wait until Streamlit has finished every script run the page asked for (and the app has drawn it).

    Not "data-test-script-state is notRunning" alone: Streamlit's frontend sets it from the server's status
    messages, so right after an action it still reads the state before the run, and a quick run can start and
    end without it ever reading "running" (React draws once for both). The page's own websocket says more:
    each run it asked for (a widget's change, a component's report) and each run the server started and
    finished (RUNS_JS, in every context the ``browser`` fixture makes). A report a component sends later (the
    player's, 250 ms after a step) is not asked yet when this returns: callers wait for what that run draws.

    No fixed pause: RUNS_JS notes the user's last action (a click, a key, an edit) before the app's own
    handlers see it, so an action whose run the page has not asked for yet is known, and this waits for a run
    asked after it to finish. Only an action that asks for no run (an expander, a key typed in a box not yet
    applied) waits, up to ``ACTION_GRACE_MS`` from the action. (Before: a 150 ms pause in each of ~147 calls.)

    Nor "the run is over" alone: Streamlit fetches each kind of widget's module on its first use and shows a
    likeness (``stSkeleton``) until it comes -- on a fresh page 7-34 of them when the first run ends, gone a
    few seconds later; a test that read the page then found a picker with no chips (a busy CI run), a radio
    with no label. Idle waits until none is left."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout)
    if page.evaluate("() => !window.__bpeRuns"):  # a page made elsewhere: the attribute alone, after a pause
        page.wait_for_timeout(ACTION_GRACE_MS)
        page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=timeout)
        page.wait_for_selector('[data-testid="stSkeleton"]', state="detached", timeout=timeout)
        return
    page.wait_for_function(IDLE_JS, arg=ACTION_GRACE_MS, polling="raf", timeout=timeout)


#: the box of an element (and the page's height) unchanged for ``frames`` animation frames in a row
SETTLED_JS = """([e, frames]) => { const r = e.getBoundingClientRect();
  const key = [r.x, r.y, r.width, r.height, document.documentElement.scrollHeight].join();
  const s = (window.__bpeSettled ??= { key: '', same: 0 });
  s.same = s.key === key ? s.same + 1 : 0; s.key = key; return s.same >= frames; }"""
#: the sidebar open (or closed: gone, or off the screen) and not moving for 5 animation frames
SIDEBAR_JS = """(want) => { const e = document.querySelector('[data-testid="stSidebar"]');
  const r = e && e.getBoundingClientRect(); const open = !!r && r.width > 0 && r.right > 0;
  const key = r ? [r.x, r.width].join() : 'none';
  const s = (window.__bpeSidebar ??= { key: '', same: 0 });
  s.same = s.key === key ? s.same + 1 : 0; s.key = key; return open === want && s.same >= 5; }"""


def settled(page, selector: str, frames: int = 5, timeout: float = 30_000) -> None:
    """Wait until the (first) element ``selector`` (a Playwright selector) and the page's height have kept still
    for ``frames`` animation frames (what a resize or a transition changes has been laid out)."""
    element = page.locator(selector).first.element_handle(timeout=timeout)
    page.evaluate("() => { window.__bpeSettled = null; }")
    page.wait_for_function(SETTLED_JS, arg=[element, frames], polling="raf", timeout=timeout)


def sidebar_settled(page, open_: bool, timeout: float = 30_000) -> None:
    """Wait until the sidebar is open (``open_``) or closed, and has stopped sliding."""
    page.evaluate("() => { window.__bpeSidebar = null; }")
    page.wait_for_function(SIDEBAR_JS, arg=open_, polling="raf", timeout=timeout)


def applied(page, key: str, timeout: float = 30_000) -> None:
    """Wait until the text input or area with widget key ``key`` has sent its value: Streamlit's "Press Enter
    to apply" (InputInstructions) shows while it holds a value not yet sent."""
    page.wait_for_function(
        "(key) => !document.querySelector(`.st-key-${key} [data-testid=InputInstructions]`)"
        "?.textContent.includes('to apply')",
        arg=key,
        timeout=timeout,
    )


def shot(page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def shot_at(page, name: str, anchor: str, width: int, height: int) -> Path:
    """The page at a ``width`` x ``height`` viewport, scrolled to ``anchor`` (a selector), saved as ``name``."""
    page.set_viewport_size({"width": width, "height": height})
    settled(page, anchor)  # laid out again for the new width
    wait_idle(page)
    page.locator(anchor).first.scroll_into_view_if_needed()
    page.locator(anchor).first.evaluate(CLEAR_OF_HEADER)
    return shot(page, name)


#: an element scrolled to the top of the screen sits under Streamlit's fixed header: scroll its container back
#: down by what the header covers (and 8 px), so its top shows
CLEAR_OF_HEADER = """el => { const h = document.querySelector('[data-testid=stHeader]');
  const hb = h ? h.getBoundingClientRect().bottom : 0; const top = el.getBoundingClientRect().top;
  if (top >= hb + 8) return;
  let p = el.parentElement;
  while (p && !(p.scrollHeight > p.clientHeight && /(auto|scroll)/.test(getComputedStyle(p).overflowY))) p = p.parentElement;
  (p || document.scrollingElement).scrollBy(0, top - hb - 8); }"""


def docs_shot(page, name: str) -> None:
    """With ``BPE_DOCS_SHOTS=1``: the top of the page as ``docs/<name>.png`` (the README's pictures)."""
    if os.environ.get("BPE_DOCS_SHOTS") == "1":
        (ROOT / "docs").mkdir(exist_ok=True)
        page.screenshot(path=str(ROOT / "docs" / f"{name}.png"), clip={"x": 0, "y": 0, "width": 1400, "height": 1900})


#: no part of the page still coming: a fresh Tokenize page's first run draws a likeness of its settings bar
#: (aria-busy) and the run after it the bar
WHOLE_PAGE = "() => !document.querySelector('[aria-busy=true]')"


def open_path(page, server_url: str, path: str, ready: str, timeout_ms: float = 30_000):
    """Open ``server_url + path`` (e.g. ``/tokenize``) and wait until ``ready`` (a selector) is drawn and the
    script is idle; the page must exist. ``timeout_ms``: how long ``ready`` may take (a page that loads the
    vocabularies once per server says so while it does)."""
    page.goto(server_url + path)
    page.wait_for_selector(ready, timeout=timeout_ms)
    page.wait_for_function(WHOLE_PAGE, timeout=timeout_ms)
    wait_idle(page)
    assert not page.get_by_text("Page not found").count()
    return page


def pick_option(page, opener, name: str) -> None:
    """Open a list by clicking ``opener`` (a locator: a selectbox, a multiselect's input) and click its option
    ``name``. A rerun that redraws the box right after the click closes its list: it is opened again."""
    option = page.get_by_role("option", name=name, exact=True)
    for _ in range(6):
        opener.click()
        try:
            option.wait_for(state="visible", timeout=5_000)
            break
        except PlaywrightTimeoutError:
            wait_idle(page)
    option.click()


def choose_preset(page, picker: str, title: str) -> None:
    """Pick the preset titled ``title`` in the selectbox with widget key ``picker``; wait for the rerun."""
    pick_option(page, page.locator(f".st-key-{picker}"), title)
    # the box shows the pick (a combobox's text is its input's value)
    page.wait_for_function(
        "([key, title]) => { const box = document.querySelector(`.st-key-${key}`);"
        " return !!box && (box.innerText.includes(title)"
        " || [...box.querySelectorAll('input')].some((i) => i.value === title)); }",
        arg=[picker, title],
    )
    wait_idle(page)


def submit_text(page, key: str, text: str, shown_in: str, marker: str) -> None:
    """Type ``text`` into the text area with widget key ``key``, submit it (Ctrl+Enter) and wait until the
    first element matching ``shown_in`` shows ``marker`` (a piece of the text as drawn)."""
    box = page.locator(f".st-key-{key} textarea")
    box.fill(text)
    box.press("Control+Enter")
    applied(page, key)
    wait_idle(page)
    page.wait_for_function(
        "([sel, marker]) => document.querySelector(sel) && document.querySelector(sel).innerText.includes(marker)",
        arg=[shown_in, marker],
    )


def set_multiselect(page, key: str, labels: list[str]) -> None:
    """Make the multiselect with widget key ``key`` hold ``labels``, in order: its chips not wanted are removed
    (their remove buttons) -- all of them when those left would not start ``labels`` in order -- then the rest
    picked from its dropdown, waiting for the page after each change (each is a run of the page)."""
    box = page.locator(f".st-key-{key}")
    chips = box.locator('[aria-label^="Remove "]')
    held = chips.evaluate_all("els => els.map(e => e.getAttribute('aria-label').slice('Remove '.length))")
    keep = [x for x in held if x in labels]
    keep = keep if keep == list(labels[: len(keep)]) else []
    for n, gone in zip(range(len(held), 0, -1), [x for x in held if x not in keep]):
        box.get_by_label(f"Remove {gone}", exact=True).click()
        expect(chips).to_have_count(n - 1)
        wait_idle(page, 60_000)
    for i, label in enumerate(labels[len(keep) :], start=len(keep)):
        pick_option(page, box.locator("input"), label)
        page.keyboard.press("Escape")
        expect(chips).to_have_count(i + 1)
        wait_idle(page, 90_000)


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


# ----------------------------------------------------------------------------------------------------
# The Tokenize view (components/tokenize_view): a component in a shadow root. Locators pierce it; page-level
# waits find it with FIND_VIEW (document.querySelector does not pierce shadow roots).

TOK_BOX = ".tkz-text"
FIND_VIEW = (
    "[...document.querySelectorAll('[data-testid=stBidiComponentIsolated]')]"
    ".map(e => e.shadowRoot && e.shadowRoot.querySelector('.tkz')).find(Boolean)"
)
#: nothing typed is waiting to be sent or answered, and every column shows the text in the box
TOK_SETTLED = f"() => {{ const el = {FIND_VIEW}; return !!(el && el.__tkz && el.__tkz.settled); }}"


def tokenize_settled(page, timeout: float = 60_000) -> None:
    """Wait until the Tokenize view shows the text in its box in every column, the whole page is drawn and the
    script is idle."""
    try:
        page.wait_for_function(TOK_SETTLED, timeout=timeout)
        page.wait_for_function(WHOLE_PAGE, timeout=timeout)
        wait_idle(page, timeout)
        page.wait_for_function(TOK_SETTLED, timeout=timeout)
    except Exception:
        print(
            "view state:",
            page.evaluate(
                f"() => {{ const el = {FIND_VIEW}; const v = el && el.__tkz; return v && [v.current, el.dataset.painted, "
                "v.inflight, v.dirty, v.timer, v.seq, v.n, v.texts.get(v.current) === v.box.value]; }"
            ),
        )
        raise


def lines_of(n: int) -> str:
    """``n`` characters in 400-character lines, as a pasted document has them (Chromium's slow path for text
    inserted as typing is one step per line break: views/big_paste.py)."""
    line = ("The quick brown fox jumps over the lazy dog. " * 9)[:399] + "\n"
    return (line * (n // len(line) + 1))[:n]


def insert_big(page, key: str, text: str, hang_s: float) -> None:
    """Insert ``text`` into the text area with widget key ``key`` as a keyboard app's commit does (all selected
    first), wait until the box holds it whole, and fail as a hang past ``hang_s`` seconds (a hang detector only)."""
    box = page.locator(f".st-key-{key} textarea")
    box.focus()
    box.press("Control+A")
    t0 = time.monotonic()
    page.keyboard.insert_text(text)
    page.wait_for_function(
        "([k, n]) => document.querySelector(`.st-key-${k} textarea`).value.length === n", arg=[key, len(text)]
    )
    assert time.monotonic() - t0 < hang_s, "the paste hung"
    assert box.input_value() == text  # nothing lost, nothing changed (line ends included)


def refused_aloud(page, key: str, held: str, said: str) -> None:
    """One character more than the box with widget key ``key`` takes, inserted over ``held``: refused, the note
    under the box says ``said``, and the box still holds ``held``."""
    box = page.locator(f".st-key-{key} textarea")
    note = page.locator(f'.bpe-big-paste[data-box="{key}"]')
    assert note.text_content() == ""
    box.press("Control+A")
    page.keyboard.insert_text(held + "!")
    expect(note).to_have_text(said)
    assert box.input_value() == held
