"""Every public function, class and method of the library says what it does: a docstring, read from the
source (``ast``), so a module need not be imported and nothing is missed behind an ``__all__``.

Public: a module-level function or class, or a method of a public class, whose name does not start with
``_``, in a module whose name does not either. Properties count as methods; dunder methods (``__init__``,
``__repr__``...) do not, nor do the helpers of a private class.

ruff's pydocstyle rules (D100-D104, D106 for ``bpe/`` in ``ruff.toml``) say the same for most of the library,
with line numbers, before the tests run. They stop at an ``__all__``: pydocstyle counts a name as public
only when a module that has an ``__all__`` lists it, and 41 of the library's modules have one (with six
public functions and classes outside it today, importable by name like any other). No ruff option changes
that, so this check, which reads names as Python does, stays for them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = sorted(
    p
    for p in (ROOT / "bpe").rglob("*.py")
    if not any(part.startswith("_") and part != "__init__.py" for part in p.relative_to(ROOT).parts)
)


def undocumented(source: str) -> list[str]:
    """The public functions, classes and methods of a module's source that have no docstring."""
    missing: list[str] = []

    def visit(body: list[ast.stmt], prefix: str, in_class: bool) -> None:
        for node in body:
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if node.name.startswith("_"):
                continue
            name = prefix + node.name
            if ast.get_docstring(node) is None:
                missing.append(name)
            if isinstance(node, ast.ClassDef):
                visit(node.body, name + ".", True)

    visit(ast.parse(source).body, "", False)
    return missing


def test_the_checker_finds_a_missing_docstring():
    source = '''
def documented():
    """Yes."""

def bare():
    pass

def _private():
    pass

class Thing:
    """A thing."""

    def method(self):
        return 1

    @property
    def size(self):
        """How big."""

    def __repr__(self):
        return "Thing"

class _Hidden:
    def helper(self):
        pass
'''
    assert undocumented(source) == ["bare", "Thing.method"]


def test_the_library_modules_are_all_checked():
    names = {p.relative_to(ROOT).as_posix() for p in LIBRARY}
    for module in (
        "bpe/__init__.py",
        "bpe/tokenizer.py",
        "bpe/split_stats.py",
        "bpe/encoding_report.py",
        "bpe/special_tokens.py",
        "bpe/merge_recovery.py",
        "bpe/train_loop.py",
        "bpe/formats/hf.py",
    ):
        assert module in names, module
    assert len(names) > 30


@pytest.mark.parametrize("path", LIBRARY, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_public_function_of_bpe_has_a_docstring(path: Path):
    source = path.read_text(encoding="utf-8")
    assert ast.get_docstring(ast.parse(source)), f"{path.name} has no module docstring"
    assert undocumented(source) == [], f"{path.relative_to(ROOT)}: no docstring for {undocumented(source)}"
