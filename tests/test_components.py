"""The component modules as the browser gets them (``components.es_module``): the files joined, their import
lines and comment lines taken out. Taking comments out must leave the program itself unchanged: acorn (the
parser eslint uses, in node_modules/ from package-lock.json) parses the joined files with and without their
comment lines and the two syntax trees must be equal, node for node."""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from components import es_module, strip_comment_lines

ROOT = Path(__file__).resolve().parents[1]
MODULES = {
    "merge player": ("merge_player", ("core.js", "player.js")),
    "merge player mailbox": ("merge_player", ("follow.js", "mailbox.js")),
    "tokenize view": ("tokenize_view", ("core.js", "picked.js", "edits.js", "saved.js", "columns.js", "hover.js", "tokenize.js")),
}
#: prints a syntax tree without positions, as JSON (acorn, ES2022 module)
AST_JS = """
const acorn = require(process.argv[1]);
const src = require("fs").readFileSync(0, "utf8");
const tree = acorn.parse(src, { ecmaVersion: 2022, sourceType: "module" });
console.log(JSON.stringify(tree, (k, v) => (k === "start" || k === "end" || k === "raw" ? undefined : v)));
"""


def syntax_tree(source: str) -> dict:
    acorn = ROOT / "node_modules" / "acorn"
    out = subprocess.run(["node", "-e", AST_JS, str(acorn)], input=source, capture_output=True, text=True,
                         timeout=60, check=True)
    return json.loads(out.stdout)


def joined_with_comments(folder: str, names: tuple[str, ...]) -> str:
    """What ``es_module`` joins, import lines out but comments kept (the reference)."""
    parts = []
    for name in names:
        text = (ROOT / "components" / folder / name).read_text(encoding="utf-8")
        parts.append(re.sub(r"^import [^;]*?;\n", "", text, flags=re.M | re.S))
    return "\n".join(parts)


@pytest.mark.parametrize("module", list(MODULES))
def test_taking_comment_lines_out_leaves_the_same_program(module):
    folder, names = MODULES[module]
    sent = es_module(ROOT / "components" / folder, *names)
    reference = joined_with_comments(folder, names)
    assert len(sent) < 0.9 * len(reference)                       # the comments were a good part of it
    only_comment = [line for line in sent.splitlines() if line.strip().startswith("//")
                    or (line.strip().startswith("/**") and ("*/" not in line or line.rstrip().endswith("*/")))]
    assert only_comment == []                                      # no line that is only a comment is left
    assert syntax_tree(sent) == syntax_tree(reference)


def test_a_comment_inside_a_string_or_after_code_stays():
    js = 'const u = "//not a comment";\nconst t = `\n  text`; // after code\n/** gone */\nx();\n'
    assert strip_comment_lines(js) == 'const u = "//not a comment";\nconst t = `\n  text`; // after code\nx();\n'
