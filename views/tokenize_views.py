"""Views for the Tokenize page: one text, several tokenizers, side by side.

Pure functions (no Streamlit): a tokenizer and a text in, numbers / HTML / a figure / a frame out.

* :func:`encode_view` encodes a text the way the page shows it (special tokens as special or as plain
  text) and measures it: tokens, characters, bytes, characters per token, the decode round trip, and the
  token count under the *other* special-token treatment, so the toggle's effect is visible.
* :func:`render_tokens` draws the ids as colored spans. A character split across tokens is drawn either
  whole (one box striped with the colors of its tokens) or as its bytes (hex chips) — never as ``�``.
* :func:`counts_figure` and :func:`summary_frame` compare the tokenizers.

(One chunk encoded merge by merge: :mod:`views.trace`.)

All user text is escaped; a ``<b>`` in the text shows as ``<b>``.
"""
from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Sequence

import pandas as pd
import plotly.graph_objects as go

import bpe
from bpe.corpus import special_splitter
from bpe.visible import char_groups, normalize_text

from .spans import SPAN_CSS, Span, ids_html, piece_html, spans_from_ids, token_label, visible_whitespace
from .theme import accent_colors, color_for

__all__ = [
    "MAX_DRAW_TOKENS", "Encoded", "encode_view", "ids_list_html", "group_whole_chars", "render_tokens",
    "token_box", "unknown_box", "unknown_pieces", "specials_html", "stats_html", "counts_figure", "summary_frame",
    "has_lone_surrogates", "clean_text", "TOK_CSS",
]

#: Tokens drawn per tokenizer; the counts always cover the whole text.
MAX_DRAW_TOKENS = 2000


# ----------------------------------------------------------------------------------------------------
# Input

def has_lone_surrogates(text) -> bool:
    """True if ``text`` is a str holding a lone surrogate (which has no UTF-8 form)."""
    if not isinstance(text, str):
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def clean_text(text: str, max_bytes: int) -> tuple[str, str]:
    """Make pasted text safe to encode: lone surrogates become U+FFFD, and text above ``max_bytes``
    UTF-8 bytes is cut (at a character boundary). Returns (text, a message for the reader or "").

    >>> clean_text("héllo", 2)
    ('h', 'The text is 6 bytes, over the 2-byte limit: only its first 1 characters (1 bytes) are used.')
    """
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    data = text.encode("utf-8", "replace")
    note = ""
    if len(data) > max_bytes:
        cut = data[:max_bytes].decode("utf-8", "ignore")
        note = (f"The text is {len(data):,} bytes, over the {max_bytes:,}-byte limit: only its first "
                f"{len(cut):,} characters ({len(cut.encode('utf-8')):,} bytes) are used.")
        return cut, note
    if "\ufffd" in text or len(data) != len(text.encode("utf-8", "surrogatepass")):
        return data.decode("utf-8"), note
    return text, note


# ----------------------------------------------------------------------------------------------------
# Encoding with measurements

@dataclass(frozen=True)
class Encoded:
    """A text encoded by one tokenizer, with what the page shows about it."""

    name: str
    text: str                  # the text as encoded (after the tokenizer's normalization)
    ids: tuple[int, ...] = ()
    specials_as_special: bool = True
    special_count: int = 0     # special-token ids in ``ids``
    #: token count with the other special-token treatment, when the text holds special-token strings
    other_count: int | None = None
    roundtrip_ok: bool = True
    roundtrip_note: str = ""
    error: str | None = None
    normalized: bool = False   # the tokenizer changed the text (e.g. NFC) before encoding
    #: (index in ``ids``, the text it stands for) of every unknown token (char level with an unk token)
    unknown: tuple[tuple[int, str], ...] = ()
    #: this tokenizer's special-token strings found in the text, in order of first appearance
    specials_found: tuple[str, ...] = ()

    @property
    def n_tokens(self) -> int:
        return len(self.ids)

    @property
    def n_chars(self) -> int:
        return len(self.text)

    @property
    def n_bytes(self) -> int:
        return len(self.text.encode("utf-8"))

    @property
    def chars_per_token(self) -> float:
        return self.n_chars / self.n_tokens if self.ids else 0.0

    @property
    def bytes_per_token(self) -> float:
        return self.n_bytes / self.n_tokens if self.ids else 0.0


def _encode(tok: bpe.Tokenizer, text: str, specials: bool) -> list[int]:
    if specials and tok.special_tokens:
        return tok.encode(text, allowed_special="all")
    return tok.encode_ordinary(text)


def encode_view(tok: bpe.Tokenizer, text: str, *, specials_as_special: bool = True, name: str = "") -> Encoded:
    """Encode ``text`` with ``tok`` as the page shows it.

    ``specials_as_special=True``: special-token strings of this tokenizer become their one reserved id
    (tiktoken's ``allowed_special="all"``); ``False``: they are encoded as ordinary text
    (``encode_ordinary``). Errors (a char-level tokenizer meeting an unknown character) are reported in
    ``error``, not raised.
    """
    name = name or getattr(tok, "name", "") or "tokenizer"
    try:
        norm = normalize_text(text, tok.normalize)
        ids = _encode(tok, text, specials_as_special)
    except (ValueError, TypeError) as exc:
        msg = str(exc)
        if isinstance(exc, bpe.UnknownCharacterError):
            msg += (". A character-level tokenizer knows only the characters of its training text; "
                    "one trained at byte level can encode any text.")
        return Encoded(name=name, text=text, error=msg, roundtrip_ok=False,
                       specials_as_special=specials_as_special)
    special_count = sum(1 for i in ids if tok.is_special(i))
    other = None
    splitter = special_splitter(list(tok.special_tokens)) if tok.special_tokens else None
    found: tuple[str, ...] = ()
    if splitter is not None and splitter.search(norm):
        found = tuple(dict.fromkeys(splitter.findall(norm)))
        try:
            other = len(_encode(tok, text, not specials_as_special))
        except (ValueError, TypeError):
            other = None
    unknown = unknown_pieces(tok, norm, ids, specials_as_special)
    special_count -= len(unknown)     # an unknown token is special to the vocabulary, not in the text
    decoded = tok.decode(ids)
    ok = decoded == norm
    if ok:
        note = "decode(encode(text)) gives the text back exactly"
    elif unknown and _decode_with(tok, ids, dict(unknown)) == norm:
        n = sum(len(t) for _, t in unknown)
        note = (f"decode(encode(text)) gives the text back except its {n:,} unknown character"
                f"{'s' if n != 1 else ''}, which come back as {tok.unk_token}")
    else:
        at = _first_difference(decoded, norm)
        note = (f"decode(encode(text)) differs from the text at character {at:,}: "
                f"{visible_whitespace(decoded[at:at + 12])!r} instead of {visible_whitespace(norm[at:at + 12])!r}")
    return Encoded(name=name, text=norm, ids=tuple(ids), specials_as_special=specials_as_special,
                   special_count=special_count, other_count=other, roundtrip_ok=ok, roundtrip_note=note,
                   normalized=norm != text, unknown=unknown, specials_found=found)


def _decode_with(tok: bpe.Tokenizer, ids: Sequence[int], unknown: dict[int, str]) -> str:
    """The decoded text with each unknown token replaced by the characters it stood for."""
    return "".join(unknown[n] if n in unknown else tok.decode([i]) for n, i in enumerate(ids))


def unknown_pieces(tok: bpe.Tokenizer, text: str, ids: Sequence[int],
                   specials: bool = True) -> tuple[tuple[int, str], ...]:
    """``(index, text)`` of each unknown token in ``ids`` (``text`` encoded by a char-level tokenizer with an
    ``unk_token``): which characters of the text each ``<unk>`` stands for. The text is cut at special
    tokens as :func:`encode_view` cut it, and each plain piece is lined up with
    :meth:`bpe.Tokenizer.encode_pieces`.

    >>> tok = bpe.train("hello hello", 270, level="char", special_tokens=["<unk>"], unk_token="<unk>").tokenizer()
    >>> tok.encode_pieces("hex"), unknown_pieces(tok, "hex", tok.encode("hex"))
    (['h', 'e', 'x'], ((2, 'x'),))
    """
    unk = tok.unk_id
    if unk is None or unk not in ids:
        return ()
    pieces: list[str] = []
    splitter = special_splitter(list(tok.special_tokens)) if specials and tok.special_tokens else None
    pos = 0
    for m in (splitter.finditer(text) if splitter is not None else ()):
        if m.start() > pos:
            pieces.extend(tok.encode_pieces(text[pos:m.start()]))
        pieces.append(m.group())
        pos = m.end()
    if pos < len(text):
        pieces.extend(tok.encode_pieces(text[pos:]))
    if len(pieces) != len(ids):     # cannot line them up: draw the unknown tokens as ordinary ones
        return ()
    return tuple((n, piece) for n, (i, piece) in enumerate(zip(ids, pieces))
                 if i == unk and piece != tok.unk_token)


def _first_difference(a: str, b: str) -> int:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


# ----------------------------------------------------------------------------------------------------
# Drawing tokens

TOK_CSS = """
<style>
.tokv-stats{display:flex;flex-wrap:wrap;gap:.3rem .9rem;margin:.2rem 0 .4rem 0;font-family:inherit;}
.tokv-stat{display:flex;flex-direction:column;}
.tokv-stat .tokv-v{font-size:1.55rem;font-weight:650;line-height:1.15;color:#111;font-variant-numeric:tabular-nums;}
.tokv-stat .tokv-l{font-size:.72rem;color:#555;text-transform:uppercase;letter-spacing:.02em;}
.tokv-ids{max-height:9.5rem;overflow-y:auto;border:1px solid #e6e6e6;border-radius:6px;}
.tokv-ids .bpe-tokens{font-size:13px;line-height:1.9;}
.tokv-ok{color:#1a7f37;font-size:.9rem;}
.tokv-bad{color:#b42318;font-size:.9rem;font-weight:600;}
.tokv-special{font-size:.9rem;color:#333;}
.tokv-spans .bpe-tok,.tokv-trace .bpe-tok{word-break:normal;overflow-wrap:normal;}
.tokv-spans,.tokv-trace .bpe-tokens{overflow-wrap:anywhere;}
.bpe-tok.tokv-multi{box-shadow:inset 0 0 0 1px rgba(0,0,0,.10),0 0 0 1px #8a63b8;}
.bpe-tok.tokv-unk{background:#fff !important;color:#b42318;border:2px dashed #b42318;box-shadow:none;
  font-weight:700;padding:0 2px;}
.bpe-tok.tokv-unk::after{content:"?";font-size:.62em;vertical-align:super;margin-left:1px;}
.tokv-unknote{color:#b42318;font-size:.9rem;}
.tokv-specials{font-size:.88rem;color:#333;margin:.15rem 0;}
.tokv-specials code{font-size:.85em;background:#f0f0f2;border-radius:3px;padding:0 3px;}
.tokv-trace{width:100%;font-size:.92rem;}
.tokv-row{display:grid;grid-template-columns:2rem 1fr;column-gap:.4rem;border-top:1px solid #e6e6e6;
  padding:.2rem 0;align-items:start;}
.tokv-row .tokv-step{color:#666;text-align:right;font-variant-numeric:tabular-nums;padding-top:.35rem;}
.tokv-row .tokv-merge{color:#444;font-size:.8rem;line-height:1.3;}
.tokv-trace .bpe-tokens{padding:0;line-height:1.8;}
</style>
"""


def group_whole_chars(spans: Sequence[Span]) -> list[list[Span]]:
    """Group consecutive spans so that every group covers whole UTF-8 characters
    (:func:`bpe.visible.char_groups`): a character split across tokens can be drawn whole (tiktokenizer's
    ``segments``).

    >>> s = [Span(1, "é".encode()[:1], 0), Span(2, "é".encode()[1:] + b"a", 1), Span(3, b"b", 3)]
    >>> [[x.id for x in g] for g in group_whole_chars(s)]
    [[1, 2], [3]]
    """
    return [list(spans[i:j + 1]) for i, j in char_groups([sp.data for sp in spans])]


def _span_title(sp: Span) -> str:
    n = len(sp.data)
    kind = "special token · " if sp.special else ""
    return f"id {sp.id} · {kind}{token_label(sp.data)} · {n} byte{'s' if n != 1 else ''}"


def token_box(sp: Span, palette: str, extra_classes: Sequence[str] = ()) -> str:
    """One token as a colored box (hover: id, bytes); ``extra_classes`` e.g. ``bpe-new`` to outline it."""
    classes = ["bpe-tok", *extra_classes]
    if sp.special:
        classes.append("bpe-special")
    return (f'<span class="{" ".join(classes)}" data-id="{sp.id}" style="background:{color_for(sp.id, palette)}" '
            f'title="{html.escape(_span_title(sp), quote=True)}">{piece_html(sp.data)}</span>')


def _group_box(group: Sequence[Span], palette: str) -> str:
    total = sum(len(s.data) for s in group)
    stops = []
    pos = 0
    for s in group:
        a = 100 * pos / total
        pos += len(s.data)
        b = 100 * pos / total
        c = color_for(s.id, palette)
        stops.append(f"{c} {a:.1f}% {b:.1f}%")
    ids = " ".join(str(s.id) for s in group)
    tip = (f"{len(group)} tokens share a character (drawn whole): "
           + " + ".join(f"id {s.id} ({token_label(s.data)})" for s in group))
    data = b"".join(s.data for s in group)
    return (f'<span class="bpe-tok tokv-multi" data-ids="{ids}" '
            f'style="background:linear-gradient(90deg,{",".join(stops)})" '
            f'title="{html.escape(tip, quote=True)}">{piece_html(data)}</span>')


def unknown_box(sp: Span, text: str) -> str:
    """An unknown token (char level, ``unk_token``) drawn apart from every known one: the characters it
    stands for, in red on white with a dashed border and a ``?``; the hover says which id replaced them."""
    chars = ", ".join(f"{c!r} (U+{ord(c):04X})" for c in text[:8]) + (" …" if len(text) > 8 else "")
    tip = (f"unknown: {chars} {'is' if len(text) == 1 else 'are'} not in this tokenizer's alphabet, so "
           f"{'it becomes' if len(text) == 1 else 'they become'} id {sp.id} ({token_label(sp.data)})")
    return (f'<span class="bpe-tok tokv-unk" data-id="{sp.id}" data-unk="{html.escape(text, quote=True)}" '
            f'title="{html.escape(tip, quote=True)}">{piece_html(text.encode("utf-8"))}</span>')


def render_tokens(tok: bpe.Tokenizer, ids: Sequence[int], *, whole_chars: bool = True,
                  palette: str = "default", max_tokens: int = MAX_DRAW_TOKENS, font_px: int | None = None,
                  css: bool = True, unknown: "Sequence[tuple[int, str]]" = ()) -> str:
    """The ids of a text as colored spans (at most ``max_tokens`` of them, with a note for the rest).

    ``whole_chars``: a character split across tokens is drawn once, in a box striped with its tokens'
    colors; otherwise each token shows its own bytes, the partial ones as hex chips (``E2 80``).
    ``unknown``: ``(index, text)`` of unknown tokens (:func:`unknown_pieces`), drawn with :func:`unknown_box`.
    """
    shown = list(ids[:max_tokens])
    spans = spans_from_ids(tok, shown)
    unk = dict(unknown)
    out = [SPAN_CSS, TOK_CSS] if css else []
    style = f' style="--bpe-font:{int(font_px)}px"' if font_px else ""
    out.append(f'<div class="bpe-tokens tokv-spans"{style}>')
    # <wbr> between boxes: lines wrap between tokens, not inside one (unless a token is wider than a line)
    boxes: list[str] = []
    index = 0
    for group in (group_whole_chars(spans) if whole_chars else [[sp] for sp in spans]):
        if len(group) == 1:
            sp = group[0]
            boxes.append(unknown_box(sp, unk[index]) if index in unk else token_box(sp, palette))
        else:
            boxes.append(_group_box(group, palette))
        index += len(group)
    out.append("<wbr>".join(boxes))
    if out[-1].endswith("\n</span>"):       # the text's final line break: no empty line under the spans
        out[-1] = out[-1][: -len("\n</span>")] + "</span>"
    if len(ids) > len(shown):
        out.append(f'<span class="bpe-more"> … {len(ids) - len(shown):,} more tokens not drawn '
                   f'(showing the first {len(shown):,} of {len(ids):,})</span>')
    if not ids:
        out.append('<span class="bpe-more">(no tokens: the text is empty)</span>')
    out.append("</div>")
    return "".join(out)


def _fmt(x: float | int) -> str:
    return f"{x:,}" if isinstance(x, int) else f"{x:,.2f}"


def stats_html(enc: Encoded) -> str:
    """The metric row of one tokenizer: tokens, characters, bytes, characters per token; the round trip
    and the special-token difference in words."""
    if enc.error:
        return TOK_CSS + f'<div class="tokv-bad">Cannot encode this text: {html.escape(enc.error)}</div>'
    items = [("tokens", enc.n_tokens), ("chars", enc.n_chars), ("bytes", enc.n_bytes),
             ("chars/token", enc.chars_per_token)]
    parts = [TOK_CSS, '<div class="tokv-stats">']
    for label, value in items:
        key = label.split("/")[0] if label != "chars/token" else "cpt"
        parts.append(f'<div class="tokv-stat" data-stat="{key}"><span class="tokv-v">{_fmt(value)}</span>'
                     f'<span class="tokv-l">{label}</span></div>')
    parts.append("</div>")
    lossy = not enc.roundtrip_ok and enc.unknown and "unknown character" in enc.roundtrip_note
    cls = "tokv-ok" if enc.roundtrip_ok else "tokv-unknote" if lossy else "tokv-bad"
    mark = "✓" if enc.roundtrip_ok else "≈" if lossy else "✗"
    parts.append(f'<div class="{cls}" data-roundtrip="{str(enc.roundtrip_ok).lower()}">{mark} '
                 f'{html.escape(enc.roundtrip_note)}</div>')
    if enc.normalized:
        parts.append('<div class="tokv-special">This tokenizer normalizes text (Unicode NFC) before encoding; '
                     'counts are for the normalized text.</div>')
    if enc.unknown:
        n_chars = sum(len(t) for _, t in enc.unknown)
        parts.append(f'<div class="tokv-unknote" data-unknown="{len(enc.unknown)}">{len(enc.unknown):,} unknown '
                     f"token{'s' if len(enc.unknown) != 1 else ''} (dashed red, marked ?): {n_chars:,} "
                     f"character{'s' if n_chars != 1 else ''} outside this tokenizer's alphabet.</div>")
    if enc.other_count is not None:
        if enc.specials_as_special:
            msg = (f"{enc.special_count} special token{'s' if enc.special_count != 1 else ''} (drawn dark); "
                   f"as plain text the same text is {enc.other_count:,} tokens "
                   f"({enc.other_count - enc.n_tokens:+,}).")
        else:
            msg = (f"Special-token strings encoded as plain text; treated as special tokens the text is "
                   f"{enc.other_count:,} tokens ({enc.other_count - enc.n_tokens:+,}).")
        parts.append(f'<div class="tokv-special" data-other-count="{enc.other_count}">{html.escape(msg)}</div>')
    return "".join(parts)


def _codes(strings: Sequence[str], limit: int = 8) -> str:
    shown = " ".join(f"<code>{html.escape(t, quote=True)}</code>" for t in strings[:limit])
    return shown + (f" and {len(strings) - limit:,} more" if len(strings) > limit else "")


def specials_html(enc: Encoded, foreign: Sequence[str] = ()) -> str:
    """How this tokenizer treated special-token strings in the text: its own ones (one id each, or plain text
    when the toggle is off) and ``foreign`` ones (special to another tokenizer on the page, ordinary text
    here). Empty when there are none.

    >>> out = specials_html(Encoded("t", "<s>x", specials_found=("<s>",)))
    >>> "one id each: <code>&lt;s&gt;</code>" in out
    True
    """
    own = list(enc.specials_found)
    others = [t for t in foreign if t not in own]
    if enc.error or not (own or others):
        return ""
    parts = []
    if own:
        how = "one id each" if enc.specials_as_special else "encoded as plain text (the toggle is off)"
        parts.append(f'<div class="tokv-specials" data-own="{len(own)}">This vocabulary\'s special tokens in the '
                     f"text, {how}: {_codes(own)}</div>")
    if others:
        parts.append(f'<div class="tokv-specials" data-foreign="{len(others)}">Special to another tokenizer here, '
                     f"ordinary text to this one: {_codes(others)}</div>")
    return TOK_CSS + "".join(parts)


def ids_list_html(ids: Sequence[int], *, palette: str = "default", max_ids: int = MAX_DRAW_TOKENS) -> str:
    """The ids as a colored list (same colors as the spans) in a scrolling box, at most ``max_ids``."""
    body = ids_html(list(ids[:max_ids]), palette=palette)
    more = (f'<div class="bpe-more">… and {len(ids) - max_ids:,} more</div>' if len(ids) > max_ids else "")
    return TOK_CSS + f'<div class="tokv-ids">{body}</div>{more}'


# ----------------------------------------------------------------------------------------------------
# Comparison

def counts_figure(encs: Sequence[Encoded], palette: str = "default", height: int | None = None) -> go.Figure:
    """A horizontal bar per tokenizer (first on top): its token count for the text, labelled; characters
    and bytes per token on hover."""
    ok = [e for e in encs if not e.error]
    colors = accent_colors(palette)
    # plotly draws <b>, <a href=…> and friends in labels: a name (an uploaded file's) is escaped, &lt; shows "<"
    fig = go.Figure(go.Bar(
        y=[html.escape(e.name, quote=False) for e in ok], x=[e.n_tokens for e in ok], orientation="h",
        text=[f"{e.n_tokens:,}" for e in ok], textposition="outside", cliponaxis=False,
        marker_color=colors["other"],
        customdata=[[e.chars_per_token, e.bytes_per_token] for e in ok],
        hovertemplate="%{y}: %{x:,} tokens<br>%{customdata[0]:.2f} chars/token<br>"
                      "%{customdata[1]:.2f} bytes/token<extra></extra>",
    ))
    top = max((e.n_tokens for e in ok), default=1)
    fig.update_layout(height=height or 70 + 48 * max(1, len(ok)), margin=dict(l=10, r=30, t=34, b=10),
                      title="Tokens for this text",
                      xaxis=dict(range=[0, top * 1.2 + 1], gridcolor="#eee"),
                      yaxis=dict(autorange="reversed"), showlegend=False, plot_bgcolor="white")
    return fig


def summary_frame(encs: Sequence[Encoded], vocab_sizes: Sequence[int] | None = None) -> pd.DataFrame:
    """One row per tokenizer: vocabulary size, tokens, characters/token, bytes/token, round trip."""
    rows = []
    for k, e in enumerate(encs):
        rows.append({
            "tokenizer": e.name,
            "vocabulary": vocab_sizes[k] if vocab_sizes else None,
            "tokens": None if e.error else e.n_tokens,
            "chars/token": None if e.error else round(e.chars_per_token, 2),
            "bytes/token": None if e.error else round(e.bytes_per_token, 2),
            "special tokens": None if e.error else e.special_count,
            "round trip": "error" if e.error else ("exact" if e.roundtrip_ok else
                                                    "exact but unknown characters" if e.unknown else "differs"),
        })
    frame = pd.DataFrame(rows)
    if not vocab_sizes:
        frame = frame.drop(columns=["vocabulary"])
    return frame
