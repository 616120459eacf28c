"""Small Streamlit components of our own (page layer: they import Streamlit)."""

from __future__ import annotations

from pathlib import Path

__all__ = ["bundle"]


def bundle(folder: Path, name: str) -> str:
    """The committed bundle ``dist/<name>`` of the component in ``folder``: its ES modules, which import one
    another, built by esbuild into one minified module (``npm run build``, scripts/bundle.mjs). A v2 component is
    one module, sent inline: nothing is built at install or run time, nothing is fetched. tests/test_components.py
    checks that each bundle is what its modules build to."""
    js = (folder / "dist" / name).read_text(encoding="utf-8")
    if "\n" not in js.strip():  # (Streamlit would take it for a file's path)
        raise ValueError(f"{folder.name}/dist/{name} is one line: rebuild it with `npm run build`")
    return js
