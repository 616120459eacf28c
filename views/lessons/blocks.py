"""Drawing pieces the lessons share: tokens named by letters, rows of big token boxes, pairs and their
counts, chips, big numbers, a text drawn as token spans.

Each returns an HTML string (classes styled by :data:`views.lessons.model.CLASSROOM_CSS`); user-facing
text is escaped with :func:`esc`.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any, Mapping, Sequence

import bpe

from ..spans import render_spans, run_token_label, spans_from_ids
from ..theme import PALETTES, shade
from ..words import plural

__all__ = [
    "SAMPLES",
    "esc",
    "lesson_colors",
    "pair_colors",
    "letter_names",
    "row",
    "pair_text",
    "pair_strip",
    "tally",
    "big",
    "chip",
    "step_div",
    "spans_html",
]

#: The app's sample texts (some lessons train on them).
SAMPLES = Path(__file__).resolve().parents[2] / "sample_texts"


def esc(text: Any) -> str:
    """``text`` as HTML text (quotes escaped too)."""
    return html.escape(str(text), quote=True)


#: Colors for pair types and lesson tokens: distinct hues that survive a projector. The color-blind
#: palette is Okabe–Ito's (see views.theme).
_LESSON_COLORS = {
    "default": (
        "#8ecae6",
        "#ffb703",
        "#b5e48c",
        "#f4a261",
        "#cdb4db",
        "#ffafcc",
        "#90be6d",
        "#e9c46a",
        "#a8dadc",
        "#f28482",
    ),
    "okabe_ito": PALETTES["okabe_ito"],
}


def lesson_colors(palette: str) -> tuple[str, ...]:
    """The lessons' colors for pair types and new tokens, in a palette."""
    return _LESSON_COLORS.get(palette, _LESSON_COLORS["default"])


def pair_colors(seqs: Sequence[Sequence[int]], palette: str = "default") -> dict[tuple[int, int], str]:
    """One color per pair type, in order of first appearance over all the sequences (so a pair keeps its
    color from step to step).

    >>> sorted(pair_colors([[1, 2, 1, 2]]).items())
    [((1, 2), '#8ecae6'), ((2, 1), '#ffb703')]
    """
    colors = lesson_colors(palette)
    out: dict[tuple[int, int], str] = {}
    for seq in seqs:
        for p in zip(seq, seq[1:]):
            if p not in out:
                out[p] = colors[len(out) % len(colors)]
    return out


def letter_names(run: bpe.Run) -> dict[int, str]:
    """Names for a lesson: base tokens by their character, merged tokens Z, Y, X, … in merge order.

    >>> r = bpe.train("aaabdaaabac", 258, pattern=None)
    >>> n = letter_names(r); n[97], n[256], n[257]
    ('a', 'Z', 'Y')
    """
    names = {i: run_token_label(run, i) for i in range(len(run.base))}
    for m in run.merges:
        names[m.id] = chr(ord("Z") - m.rank) if m.rank < 26 else f"T{m.rank}"
    return names


def row(
    ids: Sequence[int],
    names: Mapping[int, str],
    *,
    spelled: Mapping[int, str] | None = None,
    colors: Mapping[int, str] | None = None,
    new: set[int] = frozenset(),
    label: str = "",
    count: bool = True,
    faded: bool = False,
    accent: str = "#d62728",
    cls: str = "",
) -> str:
    """A row of big token boxes named by ``names`` (``spelled``: a smaller second line, e.g. the bytes a
    letter stands for; ``new``: positions to outline in ``accent``), its label and its token count.

    >>> row([97, 256], {97: "a", 256: "Z"}, count=False)
    '<div class="cls-row " data-n="2" style="--cls-accent:#d62728"><span class="cls-tok" data-tok="a" \
style="background:#ffffff">a</span><span class="cls-tok" data-tok="Z" style="background:#ffffff">Z</span></div>'
    """
    parts = [f'<div class="cls-row {cls}" data-n="{len(ids)}" style="--cls-accent:{accent}">']
    if label:
        parts.append(f'<span class="cls-rowlabel">{esc(label)}</span>')
    for pos, i in enumerate(ids):
        classes = ["cls-tok"]
        if pos in new:
            classes.append("cls-new")
        if faded:
            classes.append("cls-faded")
        bg = (colors or {}).get(i, "#ffffff")
        sub = ""
        if spelled and i in spelled and spelled[i] != names.get(i):
            sub = f'<span class="cls-sub">{esc(spelled[i])}</span>'
        parts.append(
            f'<span class="{" ".join(classes)}" data-tok="{esc(names.get(i, i))}" '
            f'style="background:{bg}">{esc(names.get(i, i))}{sub}</span>'
        )
    if count:
        parts.append(f'<span class="cls-n"><b>{len(ids)}</b> {plural(len(ids), "token")}</span>')
    parts.append("</div>")
    return "".join(parts)


def pair_text(pair: tuple[int, int], names: Mapping[int, str]) -> str:
    """A pair as the lessons write it.

    >>> pair_text((97, 256), {97: "a", 256: "Z"})
    '(a, Z)'
    """
    return f"({names.get(pair[0], pair[0])}, {names.get(pair[1], pair[1])})"


def pair_strip(seq: Sequence[int], names: Mapping[int, str], colors: Mapping[tuple[int, int], str]) -> str:
    """Every adjacent pair of a sequence, in order, colored by its type."""
    parts = ['<div class="cls-row cls-pairs">', '<span class="cls-rowlabel">adjacent pairs</span>']
    for p in zip(seq, seq[1:]):
        c = colors.get(p, "#eee")
        parts.append(
            f'<span class="cls-pair" data-pair="{esc(pair_text(p, names))}" '
            f'style="background:{c};border-color:{shade(c, 0.35)}">'
            f"{esc(names.get(p[0], p[0]))}{esc(names.get(p[1], p[1]))}</span>"
        )
    parts.append("</div>")
    return "".join(parts)


def tally(
    counts: Mapping[tuple[int, int], int],
    names: Mapping[int, str],
    colors: Mapping[tuple[int, int], str],
    winner: tuple[int, int] | None,
    note: str = "merged next",
    tied: Sequence[tuple[int, int]] = (),
) -> str:
    """Pair types with their counts, most frequent first; the winner (and pairs tied with it) marked."""
    order = sorted(counts.items(), key=lambda kv: -kv[1])
    parts = ['<div class="cls-tally">']
    for p, n in order:
        c = colors.get(p, "#eee")
        mark = ""
        cls = "cls-t"
        if p == winner:
            mark = f" ◀ {esc(note)}"
            cls += " cls-win"
        elif p in tied:
            mark = " ◀ tie"
            cls += " cls-win"
        parts.append(
            f'<span class="{cls}" data-pair="{esc(pair_text(p, names))}" data-count="{n}">'
            f'<span class="cls-pair" style="background:{c};border-color:{shade(c, 0.35)}">'
            f"{esc(pair_text(p, names))}</span> × {n}{mark}</span>"
        )
    parts.append("</div>")
    return "".join(parts)


def big(numbers: Sequence[int], unit: str = "tokens") -> str:
    """Numbers in large type joined by arrows (``11 → 9 → 7 tokens``), listed in ``data-counts``."""
    arrows = '<span class="cls-arrow">→</span>'.join(str(n) for n in numbers)
    return f'<div class="cls-big" data-counts="{",".join(map(str, numbers))}">{arrows} {esc(unit)}</div>'


def chip(text: str, *, cls: str = "", bg: str | None = None, title: str = "") -> str:
    """A small boxed piece of text (a token, a word, an id), optionally colored and with a hover title."""
    t = f' title="{esc(title)}"' if title else ""
    style = f' style="background:{bg}"' if bg else ""
    return f'<span class="cls-chip {cls}"{style}{t}>{esc(text)}</span>'


def step_div(body: str) -> str:
    """A step's drawing, in the box that sets the lessons' type size."""
    return f'<div class="cls-step">{body}</div>'


def spans_html(
    tok: bpe.Tokenizer, text: str, palette: str, *, highlight: Sequence[int] = (), font_px: int = 22
) -> tuple[str, list[int]]:
    """``text`` encoded by ``tok`` (its special tokens allowed) and drawn as token spans; ``(html, ids)``."""
    ids = tok.encode(text, allowed_special="all") if tok.special_tokens else tok.encode(text)
    return render_spans(spans_from_ids(tok, ids), highlight=highlight, palette=palette, font_px=font_px), ids
