"""The tests lean on ``testkit/``, never on the benchmarks: no test module imports ``bench`` (at module level or in
a function), and ``testkit`` imports neither ``bench`` nor ``deploy`` (issue 22). Read from the source (``ast``),
so an import inside a test function counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def imported_roots(source: str) -> set[str]:
    """The top-level names of every module ``source`` imports (absolute imports; relative ones stay inside)."""
    roots = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            roots.add(node.module.split(".")[0])
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None))
            in ("importorskip", "import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            roots.add(node.args[0].value.split(".")[0])  # pytest.importorskip("bench.corpora") imports too
    return roots


def test_the_checker_sees_imports_inside_functions():
    source = "import os.path\nfrom . import x\ndef f():\n    from bench.corpora import english\n    import deploy\n"
    assert imported_roots(source) == {"os", "bench", "deploy"}
    # a module named in a string is imported all the same (a test skipped itself so, unseen, after a move)
    assert imported_roots("import pytest\nc = pytest.importorskip('bench.corpora')\n") == {"pytest", "bench"}


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_no_test_imports_bench():
    tests = sorted((ROOT / "tests").rglob("*.py"))
    assert len(tests) > 40
    offenders = [str(p.relative_to(ROOT)) for p in tests if "bench" in imported_roots(read(p))]
    assert offenders == []


def test_testkit_imports_neither_bench_nor_deploy():
    modules = sorted((ROOT / "testkit").glob("*.py"))
    assert len(modules) >= 8
    offenders = {str(p.relative_to(ROOT)): sorted(imported_roots(read(p)) & {"bench", "deploy"}) for p in modules}
    assert {k: v for k, v in offenders.items() if v} == {}


def test_no_test_starts_a_loop_in_its_own_thread():
    """A browser test's Playwright keeps an event loop running in its worker's thread, and any test may share a
    worker with one (tests/conftest.py): a test runs a coroutine with ``testkit.aio.run`` (a thread of its own),
    never ``asyncio.run`` / ``run_until_complete`` in the test's thread (3 failures when the lines first split)."""

    def calls(source: str) -> set[str]:
        return {
            node.func.attr
            for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in ("asyncio", "loop")
        }

    assert calls("import asyncio\nasyncio.run(f())\n") == {"run"}
    offenders = {
        str(p.relative_to(ROOT)): sorted(calls(read(p)) & {"run", "run_until_complete", "get_event_loop"})
        for p in sorted((ROOT / "tests").rglob("*.py"))
    }
    assert {k: v for k, v in offenders.items() if v} == {}
