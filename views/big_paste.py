"""A big paste into a Streamlit text area, applied in one step (the Pre-tokenizer lab's text box, the merge
player's Paste box).

Chromium inserts text that arrives as typing (an IME's or a keyboard app's commit, ``execCommand('insertText')``,
DevTools' and Playwright's ``Input.insertText``) one line at a time, re-splitting the box's text at each line
break: quadratic in the text's length (a bare ``<textarea>``, 400-character lines: 0.65 s for 100,000
characters, 2.9 s for 250,000, 15.7 s for 500,000; a tester saw ~125 s for 1,000,000 in the lab's box). A
clipboard paste (Ctrl+V) takes another path: 1.2 s for 1,000,000. The script here takes such an insertion of
:data:`BIG` characters or more from its ``beforeinput`` event and puts it in with ``setRangeText``, one input
event (React's ``onChange``, Streamlit's state, as a paste). An insertion that would make the text longer than
the box's ``max_chars`` (which Streamlit refuses without a word, the box left as it was) is not put in, and the
note under the box says so in one sentence. The script holds no user string: only the widget key, the limit
and a fixed sentence from the page.
"""

from __future__ import annotations

import json

__all__ = ["BIG", "big_paste_html"]

#: Insertions this long (UTF-16 units) or longer are put in by the script; shorter ones are left to Chromium
#: (its undo history keeps them).
BIG = 10_000

_SCRIPT = """(() => {
  const boxes = (window.__bpeBigPaste ??= new Map());
  boxes.set(__KEY__, { max: __MAX__, more: __MORE__ });
  if (window.__bpeBigPasteOn) return;
  window.__bpeBigPasteOn = true;
  const fmt = (n) => n.toLocaleString("en-US");
  const noteOf = (key) => document.querySelector(`.bpe-big-paste[data-box="${key}"]`);
  const keyOf = (el) => [...boxes.keys()].find((k) => el.closest(`.st-key-${k}`));
  document.addEventListener("input", (e) => {  // a change the box took: the note has been read
    const key = e.target instanceof HTMLTextAreaElement && keyOf(e.target);
    const note = key && noteOf(key);
    if (note && note.textContent) note.textContent = "";
  }, true);
  document.addEventListener("beforeinput", (e) => {
    const el = e.target;
    if (!(el instanceof HTMLTextAreaElement) || !e.cancelable || e.isComposing) return;
    if (!/^insert(Text|ReplacementText|FromPaste|FromDrop)$/.test(e.inputType)) return;
    const key = keyOf(el);
    if (!key) return;
    const { max, more } = boxes.get(key);
    const data = (e.data ?? e.dataTransfer?.getData("text/plain") ?? "").replace(/\\r\\n?/g, "\\n");
    const [start, end] = [el.selectionStart, el.selectionEnd];
    const after = el.value.length - (end - start) + data.length;
    if (after > max) {
      e.preventDefault();
      const note = noteOf(key);
      if (note) note.textContent = `Nothing was pasted: with it the text would have ${fmt(after)} characters, `
        + `over this box's limit of ${fmt(max)}.` + (more ? " " + more : "");
      return;
    }
    if (data.length < __BIG__) return;
    e.preventDefault();
    el.setRangeText(data, start, end, "end");
    el.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: e.inputType }));
  }, true);
})();"""


def _js(value: object) -> str:
    """``value`` as a JavaScript literal that cannot close the <script> element."""
    return json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def big_paste_html(key: str, max_chars: int, more: str = "") -> str:
    """The note under the text area with widget key ``key`` (empty until an insertion over ``max_chars`` is
    refused) and the script (once per page) that applies big insertions there at once; ``more``: a fixed
    sentence the note adds (where a bigger text can go). For ``st.html(..., unsafe_allow_javascript=True)``.

    >>> "lab_text" in big_paste_html("lab_text", 10)
    True
    >>> "</b>" in big_paste_html("k", 10, "</b>")
    False
    """
    script = _SCRIPT.replace("__BIG__", str(BIG)).replace("__MAX__", str(int(max_chars))).replace("__KEY__", _js(key))
    script = script.replace("__MORE__", _js(more))
    return (
        f'<div class="bpe-big-paste" data-box="{key}" role="status" aria-live="polite" '
        'style="color: var(--st-red-text-color, #bd4043); font-size: 0.875rem"></div>'
        f"<script>{script}</script>"
    )
