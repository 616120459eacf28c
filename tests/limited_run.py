"""Python and the ``bpe`` CLI run in a fresh interpreter whose address space is capped (``ulimit -v``): where a
parser, a reader or a compile that slipped past a guard would fill memory, it fails in the child, never in
pytest's own process (tests/test_hardening_bombs.py, tests/test_regex_guard*.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: for :func:`limited_python` with a pattern as its argument: ``bpe.get_pattern`` on it, then the child's peak
#: memory in kB (VmHWM: reset by exec, unlike ru_maxrss, which keeps the forking pytest's). Prints
#: "COMPILED" or "REFUSED <message>", then the peak.
GET_PATTERN = (
    "import sys, re, bpe\n"
    "try:\n    bpe.get_pattern(sys.argv[1]); print('COMPILED')\n"
    "except bpe.PatternError as e:\n    print('REFUSED', e)\n"
    "print(re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1))\n"
)


def limited_python(
    code: str, *args: str, limit_kb: int = 3_000_000, timeout: float = 120
) -> subprocess.CompletedProcess:
    """``python -c code args`` in a fresh interpreter whose address space is capped (``ulimit -v``)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        ["bash", "-c", f'ulimit -v {limit_kb}; exec "$0" -c "$1" "${{@:2}}"', sys.executable, code, *args],
        capture_output=True,
        env=env,
        timeout=timeout,
        cwd=ROOT,
    )


def limited_cli(*args: str, cwd: Path, limit_kb: int = 1_000_000, timeout: float = 60) -> subprocess.CompletedProcess:
    """``python -m bpe args`` in ``cwd`` with its address space capped, stdin empty."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    env.pop("BPE_LAB_DEBUG", None)
    return subprocess.run(
        ["bash", "-c", f'ulimit -v {limit_kb}; exec "$0" -m bpe "$@"', sys.executable, *args],
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
