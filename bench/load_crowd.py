"""The load test's crowd: ``--sessions`` sessions of ``bench/load_session.py`` in one Chromium, run by a
process of their own so that their Playwright driver, their asyncio loop and their browser can all run at
low priority (``bench/load_test.py`` starts this module under ``nice -n 19`` and ``chrt --idle``) while the
probe's browser runs in a cpu cgroup weighted above everything else, as on a student's laptop.

The phases are kept in step with the coordinator over the pipes: at every phase boundary, once all of the
crowd's sessions have arrived, this process writes ``arrived <phase>`` on its standard output and waits
for ``go <phase>`` on its standard input. What the sessions measured goes to ``--out`` as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from bench.load_session import Phases, one_session
from testkit.app_server import CHROMIUM, CHROMIUM_ARGS


async def crowd(args) -> list[dict]:
    from playwright.async_api import async_playwright

    loop = asyncio.get_running_loop()
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        phases = Phases(args.sessions)
        tasks = [asyncio.create_task(one_session(browser, args.url, i, args, phases)) for i in range(args.sessions)]
        for name in Phases.NAMES:
            await phases.gathered()
            print(f"arrived {name}", flush=True)
            line = (await loop.run_in_executor(None, sys.stdin.readline)).strip()
            if line != f"go {name}":
                raise SystemExit(f"load_crowd: expected 'go {name}', read {line!r}")
            phases.release()
        results = await asyncio.gather(*tasks)
        await browser.close()
    return list(results)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True)
    ap.add_argument("--sessions", type=int, required=True)
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--play", type=float, required=True)
    ap.add_argument("--pauses", type=int, required=True)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    args.probe_steps, args.probe_pauses = args.steps, args.pauses  # read only by a probe session; none here
    args.out.write_text(json.dumps(asyncio.run(crowd(args))), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
