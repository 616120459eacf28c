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


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the group into the test's id
def pytest_collection_modifyitems(config, items):
    """With pytest-xdist (``scripts/test.sh`` runs ``-n 2 --dist loadgroup``), a browser test file's tests run
    in one worker, one after the other (they share that worker's server and Chromium, session fixtures; some
    follow on from the test before). Each file is a unit of work handed to whichever worker is free, the
    files with the most tests first (xdist's loadscope order), the rest of the suite after them: the workers
    balance themselves by what the tests really take, with no table of weights to keep. One "browser" group
    made one worker the suite's long pole (~17 of 17 minutes). The browser tests assert behaviour, not speed,
    so two may share the machine; a coroutine runs in a thread of its own (``testkit.aio.run``), since a
    worker's Playwright keeps an event loop running in its main thread.

    Outside tests/browser, a test that uses a module-scoped fixture joins its module's group: what the module
    builds once (vocabularies and their references, a trained tokenizer, a megabyte of text, a deployment) was
    built in both workers when its tests were spread over them. The other tests stay single units that fill
    the end of the run."""
    xdist = config.pluginmanager.has_plugin("xdist")  # the mark is known (and used) only with it
    for item in items:
        if "browser" in item.path.parts and item.path.parent.name == "browser":
            item.add_marker(pytest.mark.xdist_group(f"browser-{item.path.stem}"))
        elif xdist and _uses_a_module_fixture(item):
            item.add_marker(pytest.mark.xdist_group(f"module-{item.path.stem}"))


def _uses_a_module_fixture(item) -> bool:
    """Whether ``item`` uses a fixture built once per module (doctests and plain tests: no)."""
    info = getattr(item, "_fixtureinfo", None)
    return info is not None and any(defs[-1].scope == "module" for defs in info.name2fixturedefs.values())
