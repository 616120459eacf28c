"""The house limits on module length (issue 35): no Python module of the app, library or tooling over 450
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
    }


def test_no_python_module_is_over_450_lines():
    over = ms.over_limit(ms.sizes(ms.ROOT, ms.PY_ROOTS, ".py"), ms.PY_LIMIT)
    assert not over, "split these along their seams: " + ", ".join(f"{m.path} ({m.lines})" for m in over)


def test_no_javascript_module_is_over_500_lines():
    over = {m.path: m.lines for m in ms.over_limit(ms.sizes(ms.ROOT, ms.JS_ROOTS, ".js"), ms.JS_LIMIT)}
    assert set(over) <= ms.JS_KNOWN_OVER, f"split these along their seams: {over}"
    stale = ms.JS_KNOWN_OVER - set(over)
    assert not stale, f"no longer over the limit: take {sorted(stale)} out of testkit.module_sizes.JS_KNOWN_OVER"
