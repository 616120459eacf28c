"""Small Streamlit components of our own (page layer: they import Streamlit)."""
from __future__ import annotations

import re
from pathlib import Path

__all__ = ["es_module", "strip_comment_lines"]


def es_module(folder: Path, *names: str) -> str:
    """The hand-written ES modules ``names`` (files in ``folder``) joined into one module, without their
    ``import`` lines (they import one another: a v2 component is one module, sent inline, and nothing is
    fetched at run time) and without their comment lines (:func:`strip_comment_lines`: the JSDoc types are
    for tsc, not for every page that loads the module -- the merge player's 85 KB become 58 KB). Each file
    imports only from the files before it; their top-level names must not clash (the browser tests load the
    joined module; tests/test_components.py has node parse it)."""
    parts = []
    for name in names:
        text = (folder / name).read_text(encoding="utf-8")
        parts.append(strip_comment_lines(re.sub(r"^import [^;]*?;\n", "", text, flags=re.M | re.S)))
    return "\n".join(parts)


def strip_comment_lines(js: str) -> str:
    r"""``js`` without the comments that fill lines of their own: ``/** ... */`` blocks that start a line
    (JSDoc, ``@import`` types) and ``// ...`` lines. A comment after code stays, and so does anything in a
    string (the component modules hold no multi-line string whose line starts like a comment).

    >>> strip_comment_lines("// @ts-check\n/**\n * Doc.\n * @param {number} x\n */\nconst a = 1; // one\n  // two\nf('//x');\n")
    "const a = 1; // one\nf('//x');\n"
    """
    js = re.sub(r"^[ \t]*/\*\*(?:(?!\*/).)*\*/[ \t]*\n", "", js, flags=re.M | re.S)
    return re.sub(r"^[ \t]*//[^\n]*\n", "", js, flags=re.M)
