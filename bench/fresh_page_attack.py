"""Benchmark: a fresh page while a hostile link is being answered (issues 14 and 21's promise: another
session's fresh page is ready within 5 s while a catastrophic-backtracking link or a compile-bomb pattern
runs on the server). A benchmark, not a test: ``tests/browser/test_guard_browser.py`` checks that the
fresh page loads and the link is refused; how fast the page is, is measured here.

Each round, against one plain ``streamlit run``: an attacker's new Chromium context opens the hostile link
(without waiting for it), and at once a student's new context opens the Classroom (``/classroom``); the
fresh page's time is from its ``goto`` to its step drawn (``.st-key-lesson_step``) with the script idle.
Then the attacker's answer is waited for (its error or note), both contexts close, and the next round starts.
The server's first page (its caches cold) is opened before the rounds and not counted.

Run: ``python -m bench.fresh_page_attack [--rounds 5]``. Prints median and worst per link and the target;
writes ``bench/results/fresh_page_attack.json``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from urllib.parse import urlencode

from bench.harness import RESULTS, start_server
from testkit.app_server import CHROMIUM, CHROMIUM_ARGS, PLAYER, conditions, stop_server

TARGET_S = 5.0
#: (name, query of the hostile link, a selector the attacker's page shows once it has its answer)
LINKS = (
    (
        "catastrophic backtracking",
        {"text": ("a" * 21 + "!<|s|>") * 70, "pattern": "(a|a)+$", "special": "<|s|>"},
        '.player-error:has-text("took longer than")',
    ),
    ("compile bomb a{10000000}", {"pattern": "a{10000000}"}, "text=too large to compile"),
    ("compile bomb (a{1000}){1000}", {"pattern": "(a{1000}){1000}"}, "text=too large to compile"),
    ("bomb in comments (?#[)a{4000000}(?#])", {"pattern": "(?#[)a{4000000}(?#])"}, "text=too large to compile"),
)
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'


def fresh_classroom(browser, url: str) -> float:
    """Seconds from a new context's ``goto`` of the Classroom to its step drawn and the script idle."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = ctx.new_page()
        t0 = time.perf_counter()
        page.goto(url + "/classroom")
        page.wait_for_selector(".st-key-lesson_step", timeout=120_000)
        page.wait_for_selector(IDLE, timeout=120_000)
        return time.perf_counter() - t0
    finally:
        ctx.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    print(conditions())
    proc, url = start_server("fresh_page_attack.log")
    url = url.rstrip("/")
    results: dict = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            warm = browser.new_context()
            warm.new_page().goto(url)  # the server's first page: caches cold, not counted
            warm.pages[0].wait_for_selector(f'{PLAYER}[data-ready="1"]', timeout=120_000)
            warm.close()
            results["alone"] = [fresh_classroom(browser, url) for _ in range(args.rounds)]
            for name, query, answered in LINKS:
                times = []
                for _ in range(args.rounds):
                    attacker = browser.new_context(viewport={"width": 1280, "height": 900})
                    try:
                        page = attacker.new_page()
                        page.goto(f"{url}/?{urlencode(query)}", wait_until="commit")
                        times.append(fresh_classroom(browser, url))
                        page.wait_for_selector(answered, timeout=120_000)
                    finally:
                        attacker.close()
                results[name] = times
            browser.close()
    finally:
        stop_server(proc)
    print(
        f"\na fresh Classroom page, seconds from goto to drawn and idle ({args.rounds} rounds each; "
        f"target <= {TARGET_S:g} s while a hostile link runs):"
    )
    for name, times in results.items():
        worst = max(times)
        verdict = "" if name == "alone" else ("  met" if worst <= TARGET_S else "  MISSED")
        print(f"  {name:30} median {statistics.median(times):5.2f}  worst {worst:5.2f}{verdict}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "fresh_page_attack.json").write_text(
        json.dumps({"conditions": conditions(), "target_s": TARGET_S, "seconds": results}, indent=1)
    )
    return 0 if all(max(t) <= TARGET_S for n, t in results.items() if n != "alone") else 1


if __name__ == "__main__":
    raise SystemExit(main())
