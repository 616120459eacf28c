"""Browser tests: a real ``streamlit run`` server driven by Playwright in Debian's Chromium.

Fixtures:
* ``server_url`` (session): starts ``python -m streamlit run app.py`` on a free port, waits for health.
* ``browser`` (session): Chromium from ``/usr/bin/chromium`` (``playwright install`` cannot work here).
* ``page``: a fresh context + page with a tall viewport (Streamlit scrolls inside its own container).
* ``wait_idle(page)``: waits until the script is not running.
* ``shot(page, name)``: saves a screenshot under ``tests/artifacts/`` (git-ignored) and returns the path;
  ``docs_shot(page, name)`` also writes ``docs/<name>.png`` for the README when ``BPE_DOCS_SHOTS=1``.
* ``open_path(page, server_url, path, ready)``: opens a page of the app and waits for its content.
* ``choose_preset(page, picker, title)``: picks a preset text in the selectbox with widget key ``picker``.
* ``submit_text(page, key, text, shown_in)``: types a text into a text area and waits until it is drawn.
* ``set_multiselect(page, key, labels)``: empties the multiselect with widget key ``key`` and picks ``labels``.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int | None = None, extra_env: dict | None = None):
    """Start the app; returns (process, url). The caller terminates the process."""
    port = port or _free_port()
    env = dict(os.environ, PYTHONUNBUFFERED="1", **(extra_env or {}))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)  # a fresh clone has no tests/artifacts/ (git-ignored)
    log = open(ARTIFACTS / f"server-{port}.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.address", "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none", "--server.runOnSave", "false"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with {proc.returncode}; see {log.name}")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return proc, url
        except OSError:
            time.sleep(0.3)
    proc.terminate()
    raise RuntimeError("streamlit did not become healthy within 60 s")


@pytest.fixture(scope="session")
def server_url():
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    proc, url = start_server()
    yield url
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run `bash scripts/test.sh`, which installs Debian's chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 2200})
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    yield pg
    ctx.close()


def wait_idle(page, timeout: float = 30_000) -> None:
    """Wait until Streamlit has finished running the script (and the app has rendered)."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=timeout)
    page.wait_for_timeout(150)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=timeout)


def shot(page, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def docs_shot(page, name: str) -> None:
    """With ``BPE_DOCS_SHOTS=1``: the top of the page as ``docs/<name>.png`` (the README's pictures)."""
    if os.environ.get("BPE_DOCS_SHOTS") == "1":
        (ROOT / "docs").mkdir(exist_ok=True)
        page.screenshot(path=str(ROOT / "docs" / f"{name}.png"), clip={"x": 0, "y": 0, "width": 1400, "height": 1900})


def open_path(page, server_url: str, path: str, ready: str):
    """Open ``server_url + path`` (e.g. ``/tokenize``) and wait until ``ready`` (a selector) is drawn and the
    script is idle; the page must exist."""
    page.goto(server_url + path)
    page.wait_for_selector(ready)
    wait_idle(page)
    assert not page.get_by_text("Page not found").count()
    return page


def choose_preset(page, picker: str, title: str) -> None:
    """Pick the preset titled ``title`` in the selectbox with widget key ``picker``; wait for the rerun."""
    page.locator(f".st-key-{picker}").click()
    page.get_by_role("option", name=title, exact=True).click()
    page.wait_for_timeout(200)
    wait_idle(page)


def submit_text(page, key: str, text: str, shown_in: str, marker: str) -> None:
    """Type ``text`` into the text area with widget key ``key``, submit it (Ctrl+Enter) and wait until the
    first element matching ``shown_in`` shows ``marker`` (a piece of the text as drawn)."""
    box = page.locator(f".st-key-{key} textarea")
    box.fill(text)
    box.press("Control+Enter")
    page.wait_for_timeout(300)
    wait_idle(page)
    page.wait_for_function("([sel, marker]) => document.querySelector(sel) && "
                           "document.querySelector(sel).innerText.includes(marker)", arg=[shown_in, marker])


def set_multiselect(page, key: str, labels: list[str]) -> None:
    """Empty the multiselect with widget key ``key`` (its chips' remove buttons) and pick ``labels`` in order
    from its dropdown, waiting for the page after each change."""
    box = page.locator(f".st-key-{key}")
    while box.locator('[aria-label^="Remove "]').count():
        box.locator('[aria-label^="Remove "]').first.click()
        page.wait_for_timeout(150)
        wait_idle(page, 60_000)
    for label in labels:
        box.locator("input").click()
        page.get_by_role("option", name=label, exact=True).click()
        page.keyboard.press("Escape")
        page.wait_for_timeout(150)
        wait_idle(page, 90_000)


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser" in str(item.fspath):
            item.add_marker(pytest.mark.browser)
