"""The house limits on module length (issue 35): no Python module of the app, library, tooling or tests over 450
lines, no browser module over 500 -- counted by ``testkit.module_sizes`` (``python -m testkit.module_sizes``
prints them), checked here against ``wc -l``'s count of a file we write."""

from __future__ import annotations

import subprocess

from testkit import module_sizes as ms


def test_the_counter_counts_lines_as_wc_does(tmp_path):
    (tmp_path / "pkg" / "dist").mkdir(parents=True)
    (tmp_path / "pkg" / "a.py").write_text("x = 1\n" * 451)
    (tmp_path / "pkg" / "b.py").write_text("y = 2\n" * 3 + "z = 3")  # no newline at the end
    (tmp_path / "pkg" / "dist" / "built.py").write_text("w = 0\n" * 999)  # a built file: not counted
    found = ms.sizes(tmp_path, ("pkg",), ".py")
    wc = int(
        subprocess.run(
            ["wc", "-l", str(tmp_path / "pkg" / "a.py")], capture_output=True, text=True, check=True
        ).stdout.split()[0]
    )
    assert [(m.path, m.lines) for m in found] == [("pkg/a.py", wc), ("pkg/b.py", 4)]
    assert [m.path for m in ms.over_limit(found, 450)] == ["pkg/a.py"]


def test_every_package_is_counted():
    counted = {m.path.split("/")[0] for m in ms.sizes(ms.ROOT, ms.PY_ROOTS, ".py")}
    assert counted == {
        "app.py",
        "app_pages",
        "appstate",
        "views",
        "bpe",
        "guard",
        "liveroom",
        "serving",
        "testkit",
        "bench",
        "components",
        "deploy",
        "tests",
    }


def test_no_python_module_is_over_450_lines():
    over = {m.path: m.lines for m in ms.over_limit(ms.sizes(ms.ROOT, ms.PY_ROOTS, ".py"), ms.PY_LIMIT)}
    assert set(over) <= ms.PY_KNOWN_OVER, f"split these along their seams: {over}"
    stale = ms.PY_KNOWN_OVER - set(over)
    assert not stale, f"no longer over the limit: take {sorted(stale)} out of testkit.module_sizes.PY_KNOWN_OVER"


def test_tests_are_held_to_the_limit_too():
    """A test module is code the next engineer reads: the same limit (issue 35), shared helpers beside it."""
    counted = {m.path for m in ms.sizes(ms.ROOT, ms.PY_ROOTS, ".py")}
    assert {"tests/test_module_sizes.py", "tests/browser/conftest.py"} <= counted


def test_no_javascript_module_is_over_500_lines():
    over = {m.path: m.lines for m in ms.over_limit(ms.sizes(ms.ROOT, ms.JS_ROOTS, ".js"), ms.JS_LIMIT)}
    assert set(over) <= ms.JS_KNOWN_OVER, f"split these along their seams: {over}"
    stale = ms.JS_KNOWN_OVER - set(over)
    assert not stale, f"no longer over the limit: take {sorted(stale)} out of testkit.module_sizes.JS_KNOWN_OVER"
