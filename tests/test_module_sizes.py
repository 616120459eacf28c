"""Modules a person can hold in their head: no hand-written browser module (``components/**/*.js``, their unit
tests and fake DOM included; the built bundles in ``dist/`` are esbuild's output, not read by people) is over
500 lines. ``python -m pytest tests/test_module_sizes.py -q -rA`` lists the largest."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
JS_MAX = 500


def js_modules() -> dict[str, int]:
    """Each hand-written JS module under components/ -> its number of lines."""
    return {str(p.relative_to(ROOT)): len(p.read_text(encoding="utf-8").splitlines())
            for p in sorted((ROOT / "components").rglob("*.js")) if "dist" not in p.relative_to(ROOT).parts}


def test_no_browser_module_is_over_500_lines():
    sizes = js_modules()
    assert "components/merge_player/player.js" in sizes and len(sizes) > 20
    for path, n in sorted(sizes.items(), key=lambda kv: -kv[1])[:5]:
        print(f"{n:5d} {path}")
    assert {path: n for path, n in sizes.items() if n > JS_MAX} == {}
