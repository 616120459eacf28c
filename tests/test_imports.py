"""Imports go one way: every module imports on its own in a fresh interpreter, the project's import graph
has no cycle (imports inside functions count), the library stays a library and the views stay views.

The graph is read from the source (``ast``), so an import moved into a function to dodge a cycle is still
an edge, and a cycle that happens to import fine in one order is still caught.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Packages whose modules are checked, and the top-level modules beside them.
PACKAGES = ("bpe", "guard", "views", "appstate", "serving")
TOP_LEVEL: tuple[str, ...] = ()
#: What the library must never import, directly or through another module.
FORBIDDEN_IN_BPE = ("streamlit", "plotly", "pandas", "numpy")
#: The library's third-party imports: its one dependency, and the CLI's optional progress bar (imported in
#: a function, only when a bar is drawn).
BPE_THIRD_PARTY = {"regex"}
BPE_OPTIONAL_IN_FUNCTIONS = {"tqdm"}
#: What views never import: they are pure functions (no Streamlit), below the app state and the pages.
FORBIDDEN_IN_VIEWS = ("streamlit", "appstate", "app_pages", "app", "components")


def module_files() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the packages and the top-level modules."""
    out: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__main__":
                continue  # ``python -m bpe`` runs the CLI: importing it is running it
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    for name in TOP_LEVEL:
        out[name] = ROOT / f"{name}.py"
    return out


MODULES = module_files()


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def imports_of(name: str) -> list[tuple[str, bool]]:
    """Every module ``name`` imports, anywhere in its file: ``(dotted name, at module level?)``.

    Relative imports are resolved; ``from pkg import sub`` names the submodule when ``pkg.sub`` is one.
    """
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    top_level = {id(node) for node in tree.body}
    package = name if _is_package(name) else name.rpartition(".")[0]
    found: list[tuple[str, bool]] = []
    for node in ast.walk(tree):
        at_top = id(node) in top_level
        if isinstance(node, ast.Import):
            found += [(alias.name, at_top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.append((sub if sub in MODULES else target, at_top))
    return found


def project_graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports (the nearest enclosing module for ``import a.b.c``)."""
    graph: dict[str, set[str]] = {}
    for name in MODULES:
        edges = set()
        for target, _ in imports_of(name):
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name:
                edges.add(target)
        graph[name] = edges
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as ``[a, b, ..., a]``, or ``None`` (depth-first search with colors)."""
    color = dict.fromkeys(graph, 0)   # 0 new, 1 on the stack, 2 done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        color[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if color[nxt] == 1:
                return stack[stack.index(nxt):] + [nxt]
            if color[nxt] == 0:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        color[node] = 2
        return None

    for node in sorted(graph):
        if color[node] == 0:
            found = visit(node)
            if found:
                return found
    return None


def test_cycle_finder_finds_a_cycle():
    """The checker itself: a planted cycle is reported, an acyclic graph is not."""
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_relative_imports_are_resolved():
    edges = project_graph()
    assert "bpe.formats.common" in edges["bpe.formats.hf"]       # from .common import ...
    assert "bpe.tokenizer" in edges["bpe.formats.hf"]            # from ..tokenizer import ...
    assert "bpe.formats" in edges["bpe.loading"]                 # from . import formats
    assert "bpe.replay" in edges["views.replay"]                 # from bpe.replay import Replay


def test_the_import_graph_has_no_cycle():
    cycle = find_cycle(project_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_bpe_imports_only_the_standard_library_and_regex():
    """And no import inside a function, except the CLI's optional progress bar."""
    allowed = set(sys.stdlib_module_names) | BPE_THIRD_PARTY
    for name in (m for m in MODULES if m == "bpe" or m.startswith("bpe.")):
        tree_imports = imports_of(name)
        for target, at_top in tree_imports:
            root = target.split(".")[0]
            if root == "bpe":
                assert at_top, f"{name} imports {target} inside a function (hiding a cycle?)"
            elif at_top:
                assert root in allowed and root not in FORBIDDEN_IN_BPE, f"{name} imports {target}"
            else:
                assert root in BPE_OPTIONAL_IN_FUNCTIONS, f"{name} imports {target} inside a function"


def test_views_import_neither_streamlit_nor_the_app():
    """Views render library objects; nothing in them may reach Streamlit, the app state or a page (at
    module level or in a function)."""
    views = [m for m in MODULES if m == "views" or m.startswith("views.")]
    assert len(views) > 10
    for name in views:
        for target, _ in imports_of(name):
            assert target.split(".")[0] not in FORBIDDEN_IN_VIEWS, f"{name} imports {target}"


def test_the_classroom_views_are_checked():
    """The split Classroom (quiz, presenter, notes, lessons) is part of the graph like every view."""
    for name in ("views.quiz", "views.presenter", "views.notes", "views.compression_chart", "views.lessons",
                 "views.lessons.model", "views.lessons.blocks", "views.lessons.by_hand", "views.trace",
                 "views.lab_measure"):
        assert name in MODULES, name
    assert "views.lessons.model" in project_graph()["views.lessons.by_hand"]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_imports_alone_in_a_fresh_interpreter(name):
    """Each module on its own, first thing in a new process: an import cycle that bites shows here as an
    ImportError; for bpe modules, none of the forbidden packages may end up loaded."""
    check = (f"import sys, importlib; importlib.import_module({name!r}); "
             f"print(sorted(m for m in {FORBIDDEN_IN_BPE!r} if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    if name == "bpe" or name.startswith("bpe."):
        assert result.stdout.strip() == "[]", f"importing {name} loads {result.stdout.strip()}"
