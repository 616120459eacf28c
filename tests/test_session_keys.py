"""Every session key two files share is spelled once, in ``appstate/keys.py``: no page, component or state
module writes one as a bare string (``ss["presenter"]``, ``ss.get("_app_notes")``, ``key="player_step"``).

A project rule no linter knows (ruff has no rule for "this string is a key of that mapping, spelled in that
module"), so it stays an AST check of our own; it reads the source and takes well under a second."""

from __future__ import annotations

import ast
from pathlib import Path

import appstate.keys

ROOT = Path(__file__).resolve().parents[1]
SHARED = {value: name for name, value in vars(appstate.keys).items() if name.isupper() and isinstance(value, str)}


def _sources() -> list[Path]:
    files = [
        ROOT / "app.py",
        *(ROOT / "app_pages").glob("*.py"),
        *(ROOT / "appstate").glob("*.py"),
        *(ROOT / "components").rglob("*.py"),
    ]
    return [f for f in files if f.name != "keys.py"]


def _is_state(node: ast.AST) -> bool:
    """``ss`` or ``st.session_state``."""
    return (isinstance(node, ast.Name) and node.id == "ss") or (
        isinstance(node, ast.Attribute) and node.attr == "session_state"
    )


def bare_keys(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, key) of each string literal used as a session key: ``ss[...]``, ``ss.get/pop/setdefault(...)``,
    ``... in ss`` and a widget's ``key=``."""
    found = []
    for node in ast.walk(tree):
        literal = None
        if isinstance(node, ast.Subscript) and _is_state(node.value):
            literal = node.slice
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and _is_state(node.func.value)
            and node.func.attr in ("get", "pop", "setdefault")
            and node.args
        ):
            literal = node.args[0]
        elif isinstance(node, ast.Compare) and any(_is_state(c) for c in node.comparators):
            literal = node.left
        elif isinstance(node, ast.keyword) and node.arg == "key":
            literal = node.value
        if isinstance(literal, ast.Constant) and isinstance(literal.value, str):
            found.append((getattr(literal, "lineno", 0), literal.value))
    return found


def test_the_checker_sees_bare_keys():
    tree = ast.parse(
        'ss["presenter"]; st.session_state.get("_app_notes"); "palette" in ss; '
        'st.toggle("x", key="player_step"); ss[keys.PRESENTER]'
    )
    assert sorted(k for _, k in bare_keys(tree)) == ["_app_notes", "palette", "player_step", "presenter"]


def test_shared_keys_are_only_spelled_in_appstate_keys():
    assert len(SHARED) > 25
    offenders = [
        f"{path.relative_to(ROOT)}:{line}: {key!r} is appstate.keys.{SHARED[key]}"
        for path in _sources()
        for line, key in bare_keys(ast.parse(path.read_text(encoding="utf-8")))
        if key in SHARED
    ]
    assert not offenders, "\n".join(offenders)


def test_each_key_is_defined_once():
    values = [value for name, value in vars(appstate.keys).items() if name.isupper() and isinstance(value, str)]
    assert len(values) == len(set(values))
