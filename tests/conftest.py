"""Suite-wide rules."""
from __future__ import annotations

import os

import pytest

import bpe


@pytest.fixture(scope="session")
def classic():
    """aaabdaaabac, no pre-tokenizer, lexical ties: aa (256), ab (257), aa+ab = aaab (258)."""
    return bpe.train("aaabdaaabac", 259, pattern=None, tie_break="lexical")


def pytest_sessionfinish(session, exitstatus):
    """In CI every test must run: a skipped test (e.g. a dev dependency that did not install) fails the run."""
    if not os.environ.get("CI"):
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter is not None else []
    if skipped:
        reporter.write_line(f"CI: {len(skipped)} test(s) skipped; in CI every test must run", red=True)
        for report in skipped[:20]:
            reporter.write_line(f"  skipped: {report.nodeid}: {report.longrepr[-1] if report.longrepr else ''}")
        session.exitstatus = 1


#: browser lines: the browser test files are shared out between this many xdist groups (one a worker)
BROWSER_LINES = 2


@pytest.hookimpl(tryfirst=True)   # before xdist's own hook, which reads the group into the test's id
def pytest_collection_modifyitems(config, items):
    """With pytest-xdist (``scripts/test.sh`` runs ``-n 2 --dist loadgroup``), the browser tests run in
    :data:`BROWSER_LINES` lines, a file's tests all in one line, one after the other (a line's tests share its
    worker's server and Chromium: session fixtures; some follow on from the test before). Files go to the line
    with the fewest tests so far, the largest file first, so the lines take about as long; the rest of the
    suite fills the workers around them. One line used to take the whole suite's time (~17 of 17 minutes)
    while the other worker sat idle; the lines' tests assert behaviour, not speed, so they may share the
    machine."""
    files: dict = {}
    for item in items:
        if "browser" in item.path.parts and item.path.parent.name == "browser":
            files.setdefault(item.path, []).append(item)
    lines = [0] * BROWSER_LINES
    for _, tests in sorted(files.items(), key=lambda kv: (-len(kv[1]), kv[0].name)):
        line = lines.index(min(lines))
        lines[line] += len(tests)
        for item in tests:
            item.add_marker(pytest.mark.xdist_group(f"browser{line}"))
