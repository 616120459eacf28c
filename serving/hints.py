"""Preload hints for the chunks a fresh page always needs, written into the index.html it is served with.

Streamlit's frontend loads an element's code lazily: the chunk of a radio, a toggle, a select box, a
component (``Radio.*.js``, ``Checkbox.*.js``, ``BidiComponent.*.js``, ...) is asked for when the first
element of that kind arrives over the websocket, so a fresh page is a chain: index.html, the main script and
its ~60 modules, the websocket, the first run's elements, **then** ~40 more modules, then the elements drawn.
A ``<link rel="modulepreload">`` for each module an app's page will need lets the browser fetch and compile
them while the page waits for the websocket and the first run: the same files, fetched earlier; nothing more
is sent. The links are added by a few lines of script at the page's ``load`` event (its main script
evaluated, the app's frame drawn): written into the HTML itself they competed with the main script's own ~60
modules for the two cores and the server, and the page was no sooner ready (``bench.fresh_page --favour``,
12 rounds: Tokenize 2.22 -> 2.29 s); added at ``load`` they come while the page waits for the server (10
rounds: 2.59 -> 2.50 s; behind a network's 40 ms a request, 8 rounds: 3.15 -> 2.83 s). The icon font is not
hinted: the style sheet asks for it before the page's ``load``.

What a page needs is named by the elements it draws (:data:`PAGE_ELEMENTS`, by the page's URL path; the
root path is the default page, the player): each name is the start of a chunk's file name in Streamlit's
build (``Radio.`` -> ``Radio.BWQwdNIB.js``), followed through its static imports (``from"./x.js"``) to every
module it loads; modules the index.html preloads already are left out. A name the installed build does not
have (another Streamlit version) is skipped. Read from the installed build once per process.
"""

from __future__ import annotations

import functools
import json
import os
import re
from pathlib import Path

__all__ = ["PAGE_ELEMENTS", "closure", "hints", "hint_html"]

#: the element chunks every page of the app loads: the shared sidebar's radio and toggle, the app's own
#: components (the reveal, the live room's keeper), the pages' HTML blocks
SHARED = ("Radio.", "Checkbox.", "BidiComponent.", "Html.")
#: what each page draws on a fresh visit (its URL path; "" the default page), beyond :data:`SHARED`
PAGE_ELEMENTS: dict[str, tuple[str, ...]] = {
    "": ("Selectbox.", "TextInput.", "ButtonGroup.", "DownloadButton.", "NumberInput.", "Slider."),
    "player": ("Selectbox.", "TextInput.", "ButtonGroup.", "DownloadButton.", "NumberInput.", "Slider."),
    "tokenize": ("Selectbox.", "TextInput.", "Multiselect."),
}
_IMPORT = re.compile(rb"""(?:\bfrom|\bimport)\s*["'`]\./([A-Za-z0-9_.@~+-]+\.js)["'`]""")
_SAFE = re.compile(r"[A-Za-z0-9_.@~+-]+")  # a file name written into the page as it is
_PRELOADED = re.compile(r"""static/js/([A-Za-z0-9_.@~+-]+\.js)""")


def _find(folder: Path, stem: str, suffix: str) -> str | None:
    """The file in ``folder`` named ``stem`` + a hash + ``suffix`` (``Radio.`` -> ``Radio.BWQwdNIB.js``)."""
    try:
        names = sorted(n for n in os.listdir(folder) if n.startswith(stem) and n.endswith(suffix))
    except OSError:
        return None
    names = [n for n in names if "." not in n[len(stem) : -len(suffix)] and _SAFE.fullmatch(n)]  # not Radio.x.<hash>.js
    return names[0] if len(names) == 1 else None


def closure(js: Path, entries: list[str]) -> list[str]:
    """The modules in ``js`` that ``entries`` load, themselves included, depth first (a module's imports
    before it, as the browser evaluates them).

    >>> import tempfile; d = Path(tempfile.mkdtemp())
    >>> _ = (d / "a.js").write_text('import{x}from"./b.js";import"./c.js";'); _ = (d / "b.js").write_text('import"./c.js"')
    >>> _ = (d / "c.js").write_text("export const y=1")
    >>> closure(d, ["a.js"]), closure(d, ["b.js", "missing.js"])
    (['c.js', 'b.js', 'a.js'], ['c.js', 'b.js'])
    """
    seen: set[str] = set()
    out: list[str] = []

    def visit(name: str) -> None:
        if name in seen:
            return
        seen.add(name)
        try:
            text = (js / name).read_bytes()
        except OSError:
            return
        for dep in _IMPORT.findall(text):
            visit(dep.decode())
        out.append(name)

    for name in entries:
        visit(name)
    return out


@functools.cache
def hints(static_dir: str, page: str) -> tuple[str, ...]:
    """The modules to preload for ``page`` (a URL path's page, "" the default): file names under ``static/js``
    of ``static_dir`` (Streamlit's static folder), less what its index.html preloads already."""
    root = Path(static_dir)
    js = root / "static" / "js"
    try:
        index = (root / "index.html").read_text(encoding="utf-8")
    except OSError:
        return ()
    preloaded = set(_PRELOADED.findall(index))
    names = [_find(js, stem, ".js") for stem in SHARED + PAGE_ELEMENTS.get(page, ())]
    return tuple(m for m in closure(js, [n for n in names if n]) if m not in preloaded)


#: adds the hints once the page has loaded (its main script evaluated and drawn): while the page waits for the
#: websocket and the first run, not competing with the main script's own modules
_LATE = (
    "(function(s){addEventListener('load',function(){JSON.parse(s.dataset.preload).forEach(function(m){"
    "var l=document.createElement('link');l.rel='modulepreload';l.crossOrigin='anonymous';"
    "l.href='./static/js/'+m;document.head.appendChild(l);});});})(document.currentScript)"
)


def hint_html(static_dir: str, page: str, late: bool = True) -> bytes:
    """The preloads of :func:`hints`, relative (as Streamlit's own: they follow a proxy's prefix): ``<link>``
    tags, or with ``late`` a script that adds them at the page's ``load`` event (what is written)."""
    modules = hints(static_dir, page)
    if not modules:
        return b""
    if late:
        return f"<script data-preload='{json.dumps(modules, separators=(',', ':'))}'>{_LATE}</script>".encode()
    return "".join(f'<link rel="modulepreload" crossorigin href="./static/js/{m}">' for m in modules).encode()
