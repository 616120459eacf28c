"""How long each module is, against the house limits: no Python module over :data:`PY_LIMIT` lines, no
JavaScript module over :data:`JS_LIMIT` (a module you can hold in your head; split along the seams the code
has). ``python -m testkit.module_sizes`` prints the longest of each kind and every one over its limit;
``tests/test_module_sizes.py`` fails on those.

What counts: the Python of the app, its library, its tooling and its tests (:data:`PY_ROOTS`) and the
browser components' JavaScript sources (their committed ``dist/`` bundles are built, not written).

>>> [m.path for m in sizes(ROOT, ("testkit/module_sizes.py",), ".py")]
['testkit/module_sizes.py']
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "PY_LIMIT",
    "JS_LIMIT",
    "PY_ROOTS",
    "JS_ROOTS",
    "PY_KNOWN_OVER",
    "JS_KNOWN_OVER",
    "Module",
    "sizes",
    "over_limit",
]

ROOT = Path(__file__).resolve().parent.parent
PY_LIMIT = 450
JS_LIMIT = 500
#: every Python package of the app, the library, the tooling and the tests, and the entry script
PY_ROOTS = (
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
)
JS_ROOTS = ("components",)
#: JavaScript modules known to be over the limit until they are split (issue 35); the test fails when one is
#: no longer over it, so the entry goes as soon as the split lands
JS_KNOWN_OVER: frozenset[str] = frozenset()
#: Python modules known to be over the limit until they are split (issue 35), the same way
PY_KNOWN_OVER: frozenset[str] = frozenset()
_SKIP_DIRS = {"node_modules", "dist", "__pycache__", "artifacts"}


@dataclass(frozen=True)
class Module:
    """A source file (its path from the repository's root, with ``/``) and its line count."""

    path: str
    lines: int


def sizes(root: Path, roots: tuple[str, ...], suffix: str) -> list[Module]:
    """Every ``suffix`` file under ``roots`` (files or folders below ``root``), longest first."""
    out = []
    for name in roots:
        top = root / name
        files = [top] if top.is_file() else sorted(top.rglob(f"*{suffix}"))
        for f in files:
            rel = f.relative_to(root)
            if f.suffix == suffix and not _SKIP_DIRS.intersection(rel.parts):
                out.append(Module(rel.as_posix(), len(f.read_text(encoding="utf-8").splitlines())))
    return sorted(out, key=lambda m: (-m.lines, m.path))


def over_limit(modules: list[Module], limit: int) -> list[Module]:
    """The modules longer than ``limit`` lines.

    >>> over_limit([Module("a.py", 451), Module("b.py", 450)], 450)
    [Module(path='a.py', lines=451)]
    """
    return [m for m in modules if m.lines > limit]


def main(root: Path = ROOT, top: int = 5) -> int:
    """Print the longest modules of each kind and those over the limit; 1 when a module is over it."""
    status = 0
    for kind, roots, suffix, limit, known in (
        ("Python", PY_ROOTS, ".py", PY_LIMIT, PY_KNOWN_OVER),
        ("JavaScript", JS_ROOTS, ".js", JS_LIMIT, JS_KNOWN_OVER),
    ):
        found = sizes(root, roots, suffix)
        over = over_limit(found, limit)
        print(f"{kind}: {len(found)} modules, limit {limit} lines; the longest:")
        for m in found[:top]:
            print(f"  {m.lines:5d}  {m.path}")
        for m in over:
            print(f"  OVER  {m.path}: {m.lines} lines" + (" (known, issue 35)" if m.path in known else ""))
        if any(m.path not in known for m in over):
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
