"""Small Streamlit components of our own (page layer: they import Streamlit)."""
from __future__ import annotations

import re
from pathlib import Path

__all__ = ["es_module"]


def es_module(folder: Path, *names: str) -> str:
    """The hand-written ES modules ``names`` (files in ``folder``) joined into one module, without their
    ``import`` lines (they import one another: a v2 component is one module, sent inline, and nothing is
    fetched at run time) nor their type imports (``/** @import ... */`` lines, for tsc). Each file imports
    only from the files before it; their top-level names must not clash (the browser tests load the
    joined module)."""
    parts = []
    for name in names:
        text = (folder / name).read_text(encoding="utf-8")
        text = re.sub(r"^import [^;]*?;\n", "", text, flags=re.M | re.S)
        parts.append(re.sub(r"^/\*\* @import [^*]*\*/\n", "", text, flags=re.M))
    return "\n".join(parts)
