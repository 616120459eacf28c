"""Messages that carry a user's string (a file name, a token, a regex): escaped HTML boxes, never Markdown.

``st.error``/``st.warning``/``st.info``/``st.success`` render Markdown: a file name like
``**x** ![i](https://host/p.png)`` would come out bold and make the browser fetch an image, and backslash
escapes cannot stop Streamlit's ``:emoji:``/``:material/…:`` shortcodes. So a message that holds anything
the user wrote is drawn with :func:`message_html` through ``st.html`` instead: plain text, escaped, in a
box that looks like Streamlit's own alert (inline styles: no stylesheet needed). No Streamlit here.

>>> box = message_html("Could not read **x**.json: not JSON", "error")
>>> 'data-kind="error"' in box and "**x**.json" in box and "<strong>" not in box
True
>>> "&lt;img" in message_html("<img src=x>", "warning")
True
"""

from __future__ import annotations

import html
from typing import Sequence

__all__ = ["message_html", "KINDS", "inline_code_html", "markdown_literal"]

#: kind -> (background, text color, icon)
KINDS = {
    "error": ("#ffecec", "#7d1a1a", "⛔"),
    "warning": ("#fff8e1", "#5c4300", "⚠"),
    "info": ("#e8f1fb", "#0b3c6b", "ℹ"),
    "success": ("#e6f4ea", "#17452a", "✓"),
}


def message_html(text: "str | Sequence[str]", kind: str = "error", *, css_class: str = "") -> str:
    """One alert-like box with ``text`` (a string, or several lines) as plain, escaped text.

    ``kind`` is ``error``, ``warning``, ``info`` or ``success``; ``css_class`` adds a class for tests and
    selectors. Errors get ``role="alert"``.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown message kind {kind!r}; choose one of: {', '.join(KINDS)}")
    bg, fg, icon = KINDS[kind]
    lines = [text] if isinstance(text, str) else list(text)
    body = "".join(
        f'<p style="margin:.1em 0;white-space:pre-wrap;overflow-wrap:anywhere">{html.escape(line, quote=True)}</p>'
        for line in lines
    )
    role = ' role="alert"' if kind == "error" else ""
    cls = "bpe-msg" + (f" {html.escape(css_class, quote=True)}" if css_class else "")
    return (
        f'<div class="{cls}" data-kind="{kind}"{role} style="background:{bg};color:{fg};'
        f"border-radius:.5rem;padding:.75rem 1rem;margin:.2rem 0;display:flex;gap:.6rem;"
        f'align-items:flex-start;font-size:.95rem;line-height:1.45">'
        f'<span aria-hidden="true">{icon}</span><div>{body}</div></div>'
    )


def inline_code_html(text: str) -> str:
    """``text`` as escaped inline code (a command to copy, a token).

    >>> inline_code_html("pip install x<y")
    '<code class="bpe-code">pip install x&lt;y</code>'
    """
    return f'<code class="bpe-code">{html.escape(text, quote=True)}</code>'


#: ASCII punctuation that Markdown (CommonMark, GFM, Streamlit's math and directives) may read as syntax
_MD_PUNCT = set("\\`*_{}[]()<>#+-.!|~$&=^")
_WORD_JOINER = "\u2060"


def markdown_literal(text: str) -> str:
    r"""``text`` for a place that renders Markdown and has no plain-text form (a radio option's label): every
    punctuation mark Markdown could read is backslash-escaped, and a word joiner (U+2060, invisible) follows
    every ``:`` and ``/`` so no ``:emoji:``/``:material/…:`` shortcode or ``http://`` autolink can form
    (backslashes do not stop those).

    >>> print(markdown_literal("**b** [l](x) :smile:").replace("\u2060", "~"))
    \*\*b\*\* \[l\]\(x\) :~smile:~
    """
    out = []
    for c in text:
        if c in _MD_PUNCT:
            out.append("\\" + c)
        elif c in ":/":
            out.append(c + _WORD_JOINER)
        else:
            out.append(c)
    return "".join(out)
