"""Retake docs/player.png (the README's Merge player screenshot): the English sample at merge 42, 1440x1560,
in Debian's headless Chromium against a real ``streamlit run``. Run: ``python scripts/player_screenshot.py``."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from bench.harness import start_server  # noqa: E402
from testkit.app_server import CHROMIUM, CHROMIUM_ARGS, IDLE, PLAYER, stop_server  # noqa: E402

MERGES_TAB = "() => document.querySelector('[data-testid=stTab]')?.innerText.startsWith('Merges (42)')"


def main() -> None:
    proc, url = start_server("screenshot.log")
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1440, "height": 1560})
            page.goto(url + "?sample=english&merge=42")
            page.wait_for_selector(f'{PLAYER}[data-ready="1"]', timeout=60_000)
            page.wait_for_selector(IDLE)
            page.wait_for_function(MERGES_TAB, timeout=30_000)  # the panels below follow merge 42
            page.wait_for_timeout(1500)
            page.screenshot(path=str(ROOT / "docs" / "player.png"))
            browser.close()
    finally:
        stop_server(proc)


if __name__ == "__main__":
    main()
