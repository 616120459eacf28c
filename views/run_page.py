"""A recorded run as one self-contained web page: "Download this run as a web page" on the Merge player.

:func:`run_page_html` writes an HTML file that plays a run offline, in any modern browser, opened from disk
(``file://``): the merge player's own code (its bundle, ``components/merge_player/dist/player.js``) and styles
(``player.css``), the run's payload and its text window's payload (:mod:`views.player_payload`, packed, as
base64) are all inline; nothing is fetched. A small host script stands in for Streamlit: it hands the player
its data and its controls as the component's mailbox would (``mailbox.js``), mounts it in a shadow root (as
``isolate_styles`` does) and keeps the merge in the address's ``#merge=k`` instead of reporting it to Python.
Same controls and shortcuts as in the app (K, ← →, PageUp PageDown, 0 / Home, End, a click on a token),
and a "large type" switch for the presenter view.

Nothing user-derived reaches the page unescaped: the title is escaped here, the payloads are base64, the
player draws tokens through the same escaping views as in the app.

>>> import bpe
>>> from bpe.replay import MergeIndex, Replay
>>> from views.player_payload import pack, run_payload, window_payload
>>> run = bpe.train("aaabdaaabac", 259, pattern=None)
>>> page = run_page_html(pack(run_payload(run, tag="t")),
...                      pack(window_payload(Replay.build(run, MergeIndex(run), "aaabdaaabac"), tag="t",
...                                          n_merges=3, level="byte")),
...                      tag="t", player_js="function m(){}export{m as default};", player_css=".mp{}",
...                      title="<b>a & b</b>")
>>> "&lt;b&gt;a &amp; b&lt;/b&gt;" in page, "<b>a" in page, "export" in page, "const mount = m;" in page
(True, False, False, True)
"""

from __future__ import annotations

import base64
import html
import json
import re
from typing import Sequence

__all__ = ["run_page_html", "EXPORT_DEFAULT", "page_module"]

#: How the player's bundle (an ES module built by esbuild) exports its mount function, its default export: the
#: page turns it into a name of the page's own module, ``mount``.
EXPORT_DEFAULT = re.compile(r"\bexport\s*\{\s*([A-Za-z_$][\w$]*)\s+as\s+default\s*\};?")

_SPEEDS = (0.5, 1, 2, 3, 5, 10, 20, 30, 60, 120, 240)

_PAGE_CSS = """
*{box-sizing:border-box}
body{margin:0;font-family:"Source Sans Pro","Source Sans 3",system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
 color:#111;background:#fff}
.page{max-width:1400px;margin:0 auto;padding:1rem 1.2rem 2rem}
.page-head{display:flex;flex-wrap:wrap;align-items:baseline;gap:.3rem 1.2rem;margin:0 0 .6rem}
.page-head h1{font-size:1.5rem;margin:0}
.page-head p{margin:0;color:#444}
.page-head label{margin-left:auto;white-space:nowrap;color:#333}
body.presenter .page-head p{display:none}
.page-foot{margin-top:1.5rem;color:#666;font-size:.9rem}
"""

# The host: Streamlit's part, for one player and no server. Runs in the player's module, after its code.
_HOST_JS = """
const HOST_REG = globalThis[Symbol.for("bpe-lab.merge-player")];
const bytesOf = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
const mail = (kind, value) => {
  HOST_REG.box[kind] = value;
  for (const listener of HOST_REG.listeners) listener(kind, value);
};
const CONFIG = __CONFIG__;
const fromHash = () => {
  const m = /^#merge=(\\d+)$/.exec(location.hash);
  return m ? Number(m[1]) : 0;
};
let control = { tag: CONFIG.tag, k: fromHash(), seq: 0, speed: CONFIG.speed, speeds: CONFIG.speeds,
  metric: CONFIG.metric, presenter: false, quiz: false, standalone: true };
mail("window", bytesOf(document.getElementById("bpe-window").textContent.trim()));
mail("control", control);
const stage = document.getElementById("stage");
const shadow = stage.attachShadow({ mode: "open" });
const style = document.createElement("style");
style.textContent = CONFIG.css;
shadow.append(style);
// what the player would tell Python: kept in the address (a reload, a bookmark), and on window for tests
const setStateValue = (name, value) => {
  window.bpeView = value;
  try {
    history.replaceState(null, "", `#merge=${value.k}`);
  } catch {
    // (some browsers refuse to change the address of a file: page; the page plays all the same)
  }
};
mount({ data: bytesOf(document.getElementById("bpe-run").textContent.trim()), parentElement: shadow, setStateValue });
const big = document.getElementById("presenter");
big.addEventListener("change", () => {
  document.body.classList.toggle("presenter", big.checked);
  control = { ...control, presenter: big.checked };
  mail("control", control);
  big.blur();
});
addEventListener("hashchange", () => {
  control = { ...control, k: fromHash(), seq: control.seq + 1 };
  mail("control", control);
});
"""


def _script_safe(text: str) -> str:
    """``text`` as the body of a <script> element: it must not close the element early."""
    if "</script" in text.lower() or "<!--" in text:
        raise ValueError("the player's code holds '</script' or '<!--': it cannot be inlined in a page")
    return text


def page_module(player_js: str) -> str:
    """The player's module as part of the page's own module: its default export (:data:`EXPORT_DEFAULT`) made
    the name ``mount``, which the page's host calls. A module with no such export, or more than one, is refused.

    >>> page_module("function mount(){}\\nexport {\\n  mount as default\\n};\\n")
    'function mount(){}\\n\\n'
    >>> page_module("function Kt(){}export{Kt as default};")
    'function Kt(){}const mount = Kt;'
    """
    found = EXPORT_DEFAULT.findall(player_js)
    if len(found) != 1:
        raise ValueError("the player's module must have exactly one default export (export {… as default})")
    return EXPORT_DEFAULT.sub("" if found[0] == "mount" else f"const mount = {found[0]};", player_js, count=1)


def run_page_html(
    run_data: bytes,
    window_data: bytes,
    *,
    tag: str,
    player_js: str,
    player_css: str,
    title: str,
    about: str = "",
    speed: float = 2,
    speeds: Sequence[float] = _SPEEDS,
    metric: str = "bytes_per_token",
) -> str:
    """One HTML page that plays the run offline: ``run_data`` and ``window_data`` are the packed payloads
    the app's player gets (:func:`views.player_payload.pack`) and ``tag`` the run's tag they carry;
    ``player_js`` / ``player_css`` the player's module and styles (their text). ``title`` and ``about`` (a
    line under it) are plain text, escaped here. Opens at merge 0, or at ``#merge=k``."""
    module = page_module(player_js)
    config = {"tag": tag, "speed": speed, "speeds": list(speeds), "metric": metric, "css": player_css}
    config_js = json.dumps(config, ensure_ascii=True).replace("</", "<\\/").replace("<!--", "<\\!--")
    script = _script_safe(
        module + "\n// ---- the page's host (instead of Streamlit)\n" + _HOST_JS.replace("__CONFIG__", config_js)
    )
    esc = html.escape
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        # nothing may be fetched: not a script, a style, a font, an image, a connection
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
        f"<title>{esc(title)} · BPE Lab merge player</title>\n<style>{_PAGE_CSS}</style>\n</head>\n<body>\n"
        '<main class="page">\n<header class="page-head">\n'
        f"<h1>{esc(title)}</h1>\n<p>{esc(about)}</p>\n"
        '<label><input type="checkbox" id="presenter"> Large type (presenter view)</label>\n</header>\n'
        '<div id="stage"></div>\n'
        '<p class="page-foot">A BPE Lab merge player, saved as one page: it plays offline. K plays and pauses, '
        "→ ← (or PageDown PageUp) step, 0 goes back to the start, End to the last merge; click a token to see "
        "how it was built.</p>\n</main>\n"
        f'<script type="application/octet-stream" id="bpe-run">{base64.b64encode(run_data).decode("ascii")}'
        "</script>\n"
        f'<script type="application/octet-stream" id="bpe-window">{base64.b64encode(window_data).decode("ascii")}'
        "</script>\n"
        f'<script type="module">\n{script}\n</script>\n</body>\n</html>\n'
    )
