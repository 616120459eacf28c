"""Issue 32's regex guard, measured: what the guard costs an honest pattern, and what the repros now get.

    python -m bench.regex_guard                  # 5 rounds each

Rows:

* ``check_size`` of the GPT-4 pattern and of a 10,000-character pattern (the longest accepted): the parse by
  the ``regex`` module's own parser, in this process;
* a new custom pattern through ``bpe.get_pattern`` with the library's default runner (no probe) and with the
  app's guard installed (the compile is first tried in a worker under ``RLIMIT_AS``): the probe's cost;
* ``bpe encode -t redos_split.json aaaa…ab`` (the issue's backtracking Split): wall time to the one-line
  error (the CLI's alarm stops it by the clock);
* the issue's ``Replace b{2000000}`` upload and ``(?#[)a{4000000}(?#])``: peak memory of a fresh interpreter
  that is refused them (VmHWM).

Writes ``bench/results/regex_guard.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import bpe
import bpe.patterns as bp
from testkit.hf_json import tokenizer_json

from .conditions import conditions, describe

ROOT = Path(__file__).resolve().parents[1]
REDOS = tokenizer_json(pre={"type": "Split", "pattern": {"Regex": "(a|aa)+$"}, "behavior": "Removed", "invert": False})
BOMB = tokenizer_json(norm={"type": "Replace", "pattern": {"Regex": "b{2000000}"}, "content": "x"})


def timed(fn, rounds: int) -> float:
    """Median seconds of ``fn()`` over ``rounds`` runs."""
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def new_custom(tag: list) -> None:
    tag[0] += 1
    bpe.get_pattern(rf"[a-z]+|\d{{1,{tag[0] + 3}}}|\s+")  # a pattern not seen before


def peak_kb(code: str, *args: str) -> int:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            code + "\nimport re\nprint(re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1))",
            *args,
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    ).stdout
    return int(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    rows: dict[str, float] = {}
    long_pattern = "|".join(["[a-z]+"] * 1400)[:10_000].rstrip("|[a-z+")
    rows["check_size gpt4 (ms)"] = timed(lambda: bp.check_size(bp.PATTERNS["gpt4"].regex), args.rounds) * 1000
    rows["check_size 10,000 chars (ms)"] = timed(lambda: bp.check_size(long_pattern), args.rounds) * 1000
    tag = [0]
    rows["new custom pattern, default runner (ms)"] = timed(lambda: new_custom(tag), args.rounds) * 1000
    import guard

    previous = guard.install()
    try:
        new_custom(tag)  # the worker helper started
        rows["new custom pattern, app's guard: probe in a worker (ms)"] = (
            timed(lambda: new_custom(tag), args.rounds) * 1000
        )
    finally:
        bpe.set_pattern_runner(previous)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "redos_split.json"
        path.write_text(json.dumps(REDOS))
        env = dict(os.environ, PYTHONPATH=str(ROOT))

        def cli() -> None:
            result = subprocess.run(
                [sys.executable, "-m", "bpe", "encode", "-t", str(path), "a" * 60 + "b"],
                capture_output=True,
                text=True,
                env=env,
                cwd=ROOT,
                timeout=120,
            )
            assert re.match(r"bpe: error: the pattern took longer", result.stderr), result.stderr

        rows["bpe encode -t redos_split.json aaaa…ab: to the error (s)"] = timed(cli, args.rounds)
    rows["refused Replace b{2000000} upload: peak (MB)"] = (
        peak_kb(
            "import sys, bpe\ntry:\n    bpe.formats.loads({'tokenizer.json': sys.argv[1].encode()})\n"
            "except bpe.formats.FormatError:\n    pass",
            json.dumps(BOMB),
        )
        / 1024
    )
    rows["refused (?#[)a{4000000}(?#]): peak (MB)"] = (
        peak_kb(
            "import sys, bpe\ntry:\n    bpe.get_pattern(sys.argv[1])\nexcept bpe.PatternError:\n    pass",
            "(?#[)a{4000000}(?#])",
        )
        / 1024
    )
    report = {"conditions": conditions(["regex"]), "rows": {k: round(v, 2) for k, v in rows.items()}}
    print(describe(report["conditions"]))
    for k, v in report["rows"].items():
        print(f"{k:62} {v:>9.2f}")
    out = ROOT / "bench" / "results" / "regex_guard.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
