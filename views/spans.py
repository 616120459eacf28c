"""Token spans: a text drawn as colored tokens, as an HTML string.

What a reader needs to *see* tokenization:

* every token its own colored box, stable color per id (see :mod:`views.theme`), the id on hover;
* whitespace made visible: space ``·``, tab ``→``, newline ``↵`` (and a real line break after it);
* invisible characters (zero-width joiner, variation selectors, controls) as small labelled chips;
* bytes that are only part of a UTF-8 character drawn as hex bytes (``E2 80``), never as ``�``;
* pre-tokenizer chunk boundaries as a bar, the tokens a merge just made highlighted.

All user text is escaped (``html.escape(..., quote=True)``): markup in a text shows as text.

>>> html = render_spans([Span(0, b"<b>", 0)])
>>> "&lt;b&gt;" in html and "<b>" not in html.replace("<b>", "", 0)
True
"""

from __future__ import annotations

import html
import unicodedata
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import bpe
from bpe.excerpt import head
from bpe.visible import char_groups

from .theme import color_for

__all__ = [
    "Span",
    "spans_from_ids",
    "render_spans",
    "token_label",
    "run_token_label",
    "SPAN_CSS",
    "visible_whitespace",
    "window",
    "ids_html",
    "piece_html",
    "fallback_label",
    "fallback_html",
    "FALLBACK_CSS",
]


@dataclass(frozen=True, slots=True)
class Span:
    """One token placed in a text: its id, its bytes and the byte offset where it starts."""

    id: int
    data: bytes
    start: int
    special: bool = False

    @property
    def end(self) -> int:
        return self.start + len(self.data)


def spans_from_ids(tok: bpe.Tokenizer, ids: Sequence[int]) -> list[Span]:
    """Place each id's bytes one after another (byte offsets from 0)."""
    out: list[Span] = []
    pos = 0
    for i in ids:
        data = tok.token_bytes(i)
        out.append(Span(i, data, pos, tok.is_special(i)))
        pos += len(data)
    return out


_WS = {" ": "·", "\t": "→", "\n": "↵", "\r": "␍"}
_NAMED = {
    "\u200d": "ZWJ",
    "\u200c": "ZWNJ",
    "\ufe0f": "VS16",
    "\ufe0e": "VS15",
    "\u200b": "ZWSP",
    "\ufeff": "BOM",
    "\u00a0": "NBSP",
    "\u2028": "LSEP",
    "\u2029": "PSEP",
}


def visible_whitespace(text: str) -> str:
    """Replace whitespace by visible marks (for labels; spans use :func:`piece_html`).

    >>> visible_whitespace(" a\\tb\\n")
    '·a→b↵'
    """
    return "".join(_WS.get(c, c) for c in text)


def token_label(data: bytes) -> str:
    """A one-line readable form of a token's bytes: whitespace visible, partial bytes as ``<E2>``.

    >>> token_label(" the".encode())
    '·the'
    >>> token_label("é".encode()[:1])
    '<C3>'
    """
    out = []
    for ch in data.decode("utf-8", errors="surrogateescape"):
        o = ord(ch)
        if 0xDC80 <= o <= 0xDCFF:
            out.append(f"<{o - 0xDC00:02X}>")
        elif ch in _WS:
            out.append(_WS[ch])
        elif ch in _NAMED:
            out.append(f"<{_NAMED[ch]}>")
        elif unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
            out.append(f"<U+{o:04X}>")
        else:
            out.append(ch)
    return "".join(out)


def run_token_label(run: bpe.Run, token_id: int) -> str:
    """:func:`token_label` of a run's token (a byte-level run's tokens are bytes, a char-level run's text).

    >>> run_token_label(bpe.train("aaab", 257, pattern=None), 256)
    'aa'
    """
    t = run.token(token_id)
    return token_label(t if isinstance(t, bytes) else t.encode("utf-8"))


def piece_html(data: bytes) -> str:
    """The inner HTML of one token: escaped text, whitespace marks, byte and invisible-character chips."""
    parts: list[str] = []
    pending_bytes: list[str] = []

    def flush() -> None:
        if pending_bytes:
            parts.append(
                f'<span class="bpe-byte" title="bytes that are part of a UTF-8 character">'
                f"{' '.join(pending_bytes)}</span>"
            )
            pending_bytes.clear()

    for ch in data.decode("utf-8", errors="surrogateescape"):
        o = ord(ch)
        if 0xDC80 <= o <= 0xDCFF:
            pending_bytes.append(f"{o - 0xDC00:02X}")
            continue
        flush()
        if ch == "\n":
            parts.append('<span class="bpe-ws">↵</span>\n')
        elif ch in _WS:
            parts.append(f'<span class="bpe-ws">{_WS[ch]}</span>')
        elif ch in _NAMED or unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
            name = _NAMED.get(ch, f"U+{o:04X}")
            parts.append(
                f'<span class="bpe-inv" title="U+{o:04X} {html.escape(unicodedata.name(ch, ""), True)}">{name}</span>'
            )
        else:
            parts.append(html.escape(ch, quote=True))
    flush()
    return "".join(parts)


def fallback_label(byte: int) -> str:
    """A byte-fallback token as SentencePiece and Hugging Face spell it: one byte of a character the
    alphabet lacks.

    >>> fallback_label(0xE2), fallback_label(0x0A)
    ('<0xE2>', '<0x0A>')
    """
    return f"<0x{int(byte):02X}>"


def fallback_html(byte: int) -> str:
    """The inner HTML of a byte-fallback token: its ``<0xNN>`` label in a byte chip of its own style (solid,
    unlike the dashed chip of a byte-level token's partial character), with what it is on hover.

    >>> fallback_html(0xF0)
    '<span class="bpe-bf" title="byte fallback: byte 0xF0 of a character outside the alphabet">&lt;0xF0&gt;</span>'
    """
    b = int(byte)
    return (
        f'<span class="bpe-bf" title="byte fallback: byte 0x{b:02X} of a character outside the alphabet">'
        f"{html.escape(fallback_label(b))}</span>"
    )


#: The byte-fallback chip's look (:func:`fallback_html`); the player's component has the same rule.
FALLBACK_CSS = (
    ".bpe-bf{font-size:.74em;font-weight:600;color:#7a2e00;background:#fff3e0;border:1px solid #d9822b;"
    "border-radius:3px;padding:0 2px;margin:0 1px;font-family:ui-monospace,SFMono-Regular,Menlo,"
    "Consolas,monospace;}"
)

SPAN_CSS = (
    """
<style>
.bpe-tokens{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:var(--bpe-font,15px);
  line-height:2.0;white-space:pre-wrap;word-break:break-word;padding:.4rem .2rem;color:#111;direction:ltr;
  text-align:left;}
.bpe-tok{border-radius:4px;padding:1px 1px;margin:0 1px 0 0;box-shadow:inset 0 0 0 1px rgba(0,0,0,.10);
  unicode-bidi:isolate;}
.bpe-tok.bpe-cs{box-shadow:inset 0 0 0 1px rgba(0,0,0,.10),-3px 0 0 -1px #8c8c8c;margin-left:6px;}
.bpe-tok.bpe-new{outline:2px solid #d62728;outline-offset:0;font-weight:700;}
.bpe-tok.bpe-special{background:#222 !important;color:#fff;font-weight:700;}
.bpe-ws{color:#8a8a8a;}
.bpe-byte{font-size:.72em;color:#5a2d82;background:rgba(255,255,255,.65);border:1px dashed #8a63b8;
  border-radius:3px;padding:0 2px;margin:0 1px;}
.bpe-inv{font-size:.62em;color:#555;border:1px solid #aaa;border-radius:3px;padding:0 2px;margin:0 1px;
  vertical-align:middle;}
.bpe-id{font-size:.75em;color:#333;}
"""
    + FALLBACK_CSS
    + """
.bpe-more{color:#777;font-style:italic;}
ruby.bpe-grp{ruby-position:over;white-space:nowrap;}
ruby.bpe-grp>rt{font-size:.72em;color:#5a2d82;line-height:1.1;font-weight:400;}
</style>
"""
)


def _char_groups(spans: Sequence[Span]) -> dict[int, tuple[int, str]]:
    """Runs of tokens that split characters (:func:`bpe.visible.char_groups`): first index -> (last index,
    the characters they make). A window that cuts a character leaves its bytes as they are."""
    groups: dict[int, tuple[int, str]] = {}
    for i, j in char_groups([sp.data for sp in spans]):
        if j > i:
            try:
                groups[i] = (j, b"".join(sp.data for sp in spans[i : j + 1]).decode("utf-8"))
            except UnicodeDecodeError:
                pass
    return groups


def render_spans(
    spans: Sequence[Span],
    *,
    highlight: Iterable[int] = (),
    chunk_starts: Iterable[int] = (),
    palette: str = "default",
    title: Callable[[Span], str] | None = None,
    font_px: int | None = None,
    truncated_note: str = "",
    css: bool = True,
    group_chars: bool = False,
) -> str:
    """Draw spans as HTML.

    ``highlight``: ids to mark as just created; ``chunk_starts``: byte offsets where a pre-tokenizer
    chunk starts (drawn as a bar); ``title``: hover text per span (default: id, readable form, bytes).
    ``group_chars``: tokens that each hold part of a character are wrapped together in a ``<ruby>`` with the
    character(s) they make written above them (``C3`` ``A9`` under ``é``).
    """
    highlight = set(highlight)
    chunk_starts = set(chunk_starts)
    groups = _char_groups(spans) if group_chars else {}
    closing: dict[int, str] = {}
    out = [SPAN_CSS] if css else []
    style = f' style="--bpe-font:{int(font_px)}px"' if font_px else ""
    out.append(f'<div class="bpe-tokens"{style}>')
    for index, sp in enumerate(spans):
        if index in groups:
            last, chars = groups[index]
            out.append(
                '<ruby class="bpe-grp" title="these tokens together make '
                f'{html.escape(token_label(chars.encode()), quote=True)}">'
            )
            closing[last] = f"<rt>{html.escape(token_label(chars.encode()))}</rt></ruby>"
        classes = ["bpe-tok"]
        if sp.start in chunk_starts:
            classes.append("bpe-cs")
        if sp.id in highlight:
            classes.append("bpe-new")
        if sp.special:
            classes.append("bpe-special")
        tip = title(sp) if title else _default_title(sp)
        out.append(
            f'<span class="{" ".join(classes)}" data-id="{sp.id}" style="background:{color_for(sp.id, palette)}" '
            f'title="{html.escape(tip, quote=True)}">{piece_html(sp.data)}</span>'
        )
        if index in closing:
            out.append(closing.pop(index))
    if truncated_note:
        out.append(f'<span class="bpe-more">{html.escape(truncated_note)}</span>')
    out.append("</div>")
    return "".join(out)


def _default_title(sp: Span) -> str:
    n = len(sp.data)
    return f"id {sp.id} · {token_label(sp.data)} · {n} byte{'s' if n != 1 else ''}"


def ids_html(ids: Sequence[int], *, palette: str = "default", highlight: Iterable[int] = ()) -> str:
    """The ids as a list of colored numbers (same colors as the spans)."""
    highlight = set(highlight)
    parts = [SPAN_CSS, '<div class="bpe-tokens">']
    for i in ids:
        cls = "bpe-tok bpe-new" if i in highlight else "bpe-tok"
        parts.append(f'<span class="{cls}" style="background:{color_for(i, palette)}">{int(i)}</span> ')
    parts.append("</div>")
    return "".join(parts)


#: The start of a long text for drawing, cut at a line or space (the app state's name for it).
window = head
