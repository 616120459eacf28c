"""The library runs no process: a custom regex runs in the caller's process by default, stopped by its deadline
there, and an application plugs in a runner of its own (bpe.set_pattern_runner; the app's is guard.runner,
tested in tests/test_isolation.py).

Expected chunks and merges are worked by hand: ``[a-z]+| `` on ``"ab 12"`` matches ``ab`` and the space and
leaves ``12`` unmatched (kept as its own chunk); on ``"ab ab abc " * 20`` the chunks are ``ab`` x40, ``abc``
x20 and the space x60, so the pair (a, b) is seen 60 times, then (ab, c) 20 times, and nothing else is left.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import bpe

ROOT = Path(__file__).resolve().parents[1]
CATASTROPHIC = r"(a|a)+$"
RUNAWAY = "a" * 30 + "!"  # minutes of backtracking for CATASTROPHIC
#: What a stop may take beyond its deadline, in CPU seconds: far below the minutes the pattern runs unstopped.
#: In CPU time, because that is what the regex module's timeout= counts (C's clock()): on a 2-core machine at
#: load 17 a 1 s limit took 1.00 s of CPU and 6.6-14 s by the clock (measured).
SLACK = 5.0

FRESH_INTERPRETER = textwrap.dedent(f"""
    import json, os, sys, threading, time

    def children():
        out = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    stat = open(f"/proc/{{entry}}/stat").read()
                except OSError:
                    continue
                if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid():
                    out.append(int(entry))
        return out

    import bpe
    imported = sorted(m for m in sys.modules
                      if m.split(".")[0] in {{"streamlit", "plotly", "pandas", "tqdm", "guard", "appstate", "views"}})
    texts = bpe.split("ab 12", r"[a-z]+| ").texts
    pieces = bpe.pretokenize("ab 12", r"[a-z]+| ")
    run = bpe.train("ab ab abc " * 20, 260, pattern=r"[a-z]+| ")
    t0 = time.process_time()
    try:
        bpe.split({RUNAWAY!r}, {CATASTROPHIC!r}, timeout=1.0)
        stopped = None
    except bpe.PatternTimeout as exc:
        stopped = str(exc)
    print(json.dumps({{"imported": imported, "texts": texts, "pieces": pieces,
                       "merges": [run.token(m.id).decode() for m in run.merges],
                       "stopped": stopped, "cpu": time.process_time() - t0,
                       "children": children(), "threads": threading.active_count()}}))
""")


@pytest.fixture(scope="module")
def fresh():
    """What a notebook user gets: a fresh interpreter that imports bpe and nothing of the app."""
    out = subprocess.run(
        [sys.executable, "-c", FRESH_INTERPRETER], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_importing_the_library_imports_nothing_of_the_app_or_its_packages(fresh):
    assert fresh["imported"] == []


def test_a_custom_pattern_cuts_and_trains_in_process_without_a_child_process_or_a_thread(fresh):
    assert fresh["texts"] == fresh["pieces"] == ["ab", " ", "12"]
    assert fresh["merges"] == ["ab", "abc"]
    assert fresh["children"] == [] and fresh["threads"] == 1


def test_the_deadline_stops_a_catastrophic_pattern_in_process(fresh):
    assert fresh["stopped"] is not None and "longer than 1 s" in fresh["stopped"]
    assert fresh["cpu"] < 1.0 + SLACK


@pytest.fixture
def calls():
    """A runner that records what it runs and runs it here (the default's way), plugged in for one test."""
    seen: list[tuple[str, float | None]] = []

    def recording(fn, args, deadline):
        seen.append((fn.__name__, deadline.seconds))
        return fn(*args, deadline)

    previous = bpe.set_pattern_runner(recording)
    yield seen
    assert bpe.set_pattern_runner(previous) is recording


def test_every_entry_point_sends_a_custom_pattern_through_the_runner_with_one_deadline(calls):
    assert bpe.split("ab 12", r"[a-z]+| ", timeout=3.0).texts == ["ab", " ", "12"]
    assert bpe.pretokenize("ab 12", r"[a-z]+| ") == ["ab", " ", "12"]
    run = bpe.train(["ab ab abc "] * 20, 260, pattern=r"[a-z]+| ", timeout=4.0)
    assert [run.token(m.id) for m in run.merges] == [b"ab", b"abc"]
    tok = run.tokenizer()
    assert [tok.decode([i]) for i in tok.encode("abc ab")] == ["abc", " ", "ab"]
    # one call a request, each with the request's whole limit: 3 s and 4 s as given, else 2 s (+ 4 s per
    # million characters); besides, a pattern new to this process is first compiled once through the runner
    # (probe_compile, with a deadline of its own) -- not when an earlier test compiled it already
    assert [round(seconds, 3) for name, seconds in calls if name != "probe_compile"] == [3.0, 2.0, 4.0, 2.0]
    assert [name for name, _ in calls].count("probe_compile") <= 1


def test_a_registry_pattern_never_goes_through_the_runner(calls):
    assert bpe.split("ab 12", "gpt4").texts == ["ab", " ", "12"]
    bpe.train("ab ab abc " * 20, 260, pattern="gpt2")
    assert calls == []


def test_a_runner_that_runs_out_of_time_or_cannot_run_is_the_patterns_error():
    def late(fn, args, deadline):
        if fn.__name__ == "probe_compile":  # the compile probe of a pattern new to this process: it fits
            return fn(*args, deadline)
        raise TimeoutError

    def broken(fn, args, deadline):
        raise bpe.PatternError("the pattern could not run: no worker")

    previous = bpe.set_pattern_runner(late)
    try:
        with pytest.raises(bpe.PatternTimeout, match="longer than 1.5 s"):
            bpe.pretokenize("ab", r"[a-z]+", timeout=1.5)
        bpe.set_pattern_runner(broken)
        with pytest.raises(bpe.PatternError, match="no worker"):
            bpe.train("ab ab", 260, pattern=r"[a-z]+")
    finally:
        bpe.set_pattern_runner(previous)
