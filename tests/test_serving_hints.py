"""``serving.hints``: the preload hints a fresh page's index.html is served with (issue 31: a fresh Tokenize page
ready within 1.5 s). Against the installed Streamlit's build: every hinted file exists, the modules hinted are
exactly what the page's element chunks import (read by acorn, a JavaScript parser, not by our regex) less what
index.html preloads already; and ``PageBase`` writes them into a page's HTML, the root's too. The browser side
(the hints are what a fresh page then loads, nothing more) is tests/browser/test_fresh_page_browser.py."""

from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from test_serving import call
from test_serving_page_base import INDEX, Streamlit

from serving import hints
from serving.page_base import PageBase, base_script

STATIC = Path(__import__("streamlit").file_util.get_static_dir())
JS = STATIC / "static" / "js"
NODE_MODULES = Path(__file__).resolve().parents[1] / "node_modules"
#: the element chunks each page loads on a fresh visit (seen in a browser: bench.fresh_page --list)
SEEN = {
    "tokenize": ("Radio", "Checkbox", "Selectbox", "Multiselect", "Html", "BidiComponent", "TextInput"),
    "": ("Radio", "Checkbox", "Selectbox", "Html", "BidiComponent", "TextInput", "ButtonGroup")
    + ("DownloadButton", "NumberInput", "Slider"),
}

ACORN_CLOSURE = """
const fs = require("fs"), path = require("path"), acorn = require(process.argv[1]);
const [dir, ...entries] = JSON.parse(process.argv[2]); const seen = new Set();
function visit(name) {
  if (seen.has(name)) return; seen.add(name);
  const ast = acorn.parse(fs.readFileSync(path.join(dir, name), "utf8"), {ecmaVersion: "latest", sourceType: "module"});
  for (const n of ast.body)
    if (n.source && /^(Import|ExportNamed|ExportAll)Declaration$/.test(n.type)) visit(n.source.value.replace("./", ""));
}
entries.forEach(visit); console.log(JSON.stringify([...seen]));
"""


def chunk(stem: str) -> str:
    (name,) = [p.name for p in JS.glob(f"{stem}.*.js") if re.fullmatch(rf"{stem}\.[^.]+\.js", p.name)]
    return name


@pytest.mark.skipif(shutil.which("node") is None or not (NODE_MODULES / "acorn").is_dir(), reason="node, acorn")
@pytest.mark.parametrize("page", list(SEEN), ids=["tokenize", "root"])
def test_the_hints_are_the_modules_the_pages_elements_import(page):
    entries = [chunk(stem) for stem in SEEN[page]]
    out = subprocess.run(
        ["node", "-e", ACORN_CLOSURE, str(NODE_MODULES / "acorn"), json.dumps([str(JS), *entries])],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    index = (STATIC / "index.html").read_text()
    wanted = {m for m in json.loads(out) if f"static/js/{m}" not in index}
    modules = hints.hints(str(STATIC), page)
    assert set(modules) == wanted and len(modules) == len(wanted)
    assert all((JS / m).is_file() for m in modules) and len(modules) > 20


def test_an_imported_module_comes_before_the_one_that_imports_it():
    modules = hints.hints(str(STATIC), "tokenize")
    at = {m: i for i, m in enumerate(modules)}
    for m in modules:
        for dep in re.findall(r"""from\s*["']\./([^"']+\.js)""", (JS / m).read_text()):
            assert at.get(dep, -1) < at[m], (dep, m)


def test_another_streamlit_build_without_those_chunks_gets_no_hints(tmp_path):
    (tmp_path / "static" / "js").mkdir(parents=True)
    (tmp_path / "index.html").write_text("<html><head></head></html>")
    assert hints.hints(str(tmp_path), "tokenize") == ()
    assert hints.hints(str(tmp_path / "missing"), "") == ()
    assert hints.hint_html(str(tmp_path), "tokenize") == b""


def test_a_page_gets_its_hints_before_head_ends_and_the_base_first():
    mw = PageBase(Streamlit(), base_url="", static_dir=str(STATIC))
    status, headers, body = call(mw, "/tokenize")
    page = gzip.decompress(body)
    assert status == 200 and int(headers["content-length"]) == len(body)
    tags = hints.hint_html(str(STATIC), "tokenize")
    assert tags.startswith(b"<script data-preload='") and b'"Multiselect.' in tags
    assert page == INDEX.replace(b"<head>", b"<head>" + base_script(1)).replace(b"</head>", tags + b"</head>")


@pytest.mark.parametrize("path, base", [("/", ""), ("/bpe", "/bpe/"), ("/bpe/", "bpe")])
def test_the_root_page_gets_the_players_hints_and_no_base(path, base):
    inner = Streamlit()
    mw = PageBase(inner, base_url=base, static_dir=str(STATIC))
    page = gzip.decompress(call(mw, path)[2])
    assert b"BACKEND_BASE_URL" not in page and mw.injected == 1
    assert page == INDEX.replace(b"</head>", hints.hint_html(str(STATIC), "") + b"</head>")
    assert b'"Slider.' in page and b"Multiselect." not in page


def test_a_page_of_two_segments_gets_its_base_only():
    mw = PageBase(Streamlit(), base_url="", static_dir=str(STATIC))
    assert gzip.decompress(call(mw, "/a/b")[2]) == INDEX.replace(b"<head>", b"<head>" + base_script(2))


LATE_DOM = """
const added = [], listeners = {};
globalThis.addEventListener = (ev, f) => { listeners[ev] = f; };
globalThis.document = {
  currentScript: { dataset: { preload: process.argv[1] } },
  createElement: (tag) => ({ tag }),
  head: { appendChild: (el) => added.push(el) },
};
eval(process.argv[2]);
const before = added.length; listeners.load();
console.log(JSON.stringify({ before, added }));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_script_adds_the_preloads_at_load():
    html = hints.hint_html(str(STATIC), "tokenize").decode()
    files = re.search(r"data-preload='([^']*)'", html)[1]
    code = html[html.index(">") + 1 : -len("</script>")]
    out = json.loads(
        subprocess.run(["node", "-e", LATE_DOM, files, code], capture_output=True, text=True, timeout=30).stdout
    )
    assert out["before"] == 0  # nothing before the page's load event
    want = [
        {"tag": "link", "rel": "modulepreload", "crossOrigin": "anonymous", "href": f"./static/js/{m}"}
        for m in hints.hints(str(STATIC), "tokenize")
    ]
    assert out["added"] == want


def test_the_links_form_names_what_the_script_adds():
    tags = hints.hint_html(str(STATIC), "", late=False).decode()
    found = re.findall(r'<link rel="modulepreload" crossorigin href="\./static/js/([^"]+)">', tags)
    assert found == list(hints.hints(str(STATIC), "")) and tags.count("<link") == len(found) > 20
