"""Drawing the Pre-tokenizer lab: one text, several patterns, each chunk colored by its branch.

Pure functions (no Streamlit); the splitting and measuring they draw come from :mod:`bpe.split_stats`.

* :func:`pattern_colors` / :func:`branch_color`: a branch's color, by what the branch does
  (:data:`bpe.patterns.BRANCH_KINDS`),
  so "digits are orange" holds for every registry pattern and for a custom one: a custom branch's kind is
  read from what it matches (:func:`custom_branch_kind`), one that is no single kind is drawn in the
  "other" color; :func:`kinds_key_html` is the key.
* :func:`chunks_html` draws the chunks colored by the alternation branch that matched, flags text no
  branch matched, and marks where the pattern cuts differently from a reference pattern
  (:func:`marks_key_html` explains the marks).
* :func:`legend_html` explains every branch in a sentence; :func:`counts_frame` is the comparison table.

All user text (and every custom regex) is escaped.
"""

from __future__ import annotations

import functools
import html
from typing import Iterable, Sequence

import pandas as pd
import regex

import bpe
from bpe.patterns import BRANCH_KINDS, compile_user
from bpe.split_stats import branch_counts

from .spans import SPAN_CSS, piece_html
from .theme import tint

__all__ = [
    "pattern_colors",
    "branch_color",
    "custom_branch_kind",
    "OTHER_KIND",
    "LAB_CSS",
    "kinds_key_html",
    "chunks_html",
    "legend_html",
    "marks_key_html",
    "counts_frame",
]

#: Branch colors: distinct hues, light enough for dark text. ``okabe_ito`` is the color-blind safe set.
BRANCH_COLORS: dict[str, tuple[str, ...]] = {
    "default": (
        "#a6cee3",
        "#b2df8a",
        "#fdbf6f",
        "#cab2d6",
        "#fb9a99",
        "#ffff99",
        "#8dd3c7",
        "#d9d9d9",
        "#bc80bd",
        "#ccebc5",
    ),
    "okabe_ito": tuple(
        tint(c, 0.45)
        for c in ("#56B4E9", "#009E73", "#E69F00", "#CC79A7", "#D55E00", "#F0E442", "#0072B2", "#999999", "#000000")
    ),
}
UNMATCHED_COLOR = "#ffffff"
#: A custom branch that is no single kind of :data:`BRANCH_KINDS` (``\\w+`` takes letters and digits).
OTHER_KIND = "other"
#: Its color: one no kind has.
OTHER_COLORS = {"default": "#e7e1d3", "okabe_ito": "#ece8f4"}

#: Short strings each kind of branch matches whole (a branch matching one of them is of that kind).
_KIND_PROBES: dict[str, tuple[str, ...]] = {
    "contraction": ("'s", "'t", "'ll", "'re"),
    "letters": ("word", " word", "Word"),
    "digits": ("7", "123", " 42"),
    "punctuation": ("!", "...", " ?!", ","),
    "whitespace": (" ", "   ", "\t"),
    "line breaks": ("\n", "\n\n", "\r\n"),
    "CJK run": ("中文", "日本語"),
}
#: seconds one probe may take (a probe is a few characters: this only stops a pathological branch)
_PROBE_TIMEOUT = 0.05


@functools.lru_cache(maxsize=256)
def custom_branch_kind(branch_regex: str) -> str:
    r"""What a custom branch does, from the short strings it matches whole: one of
    :data:`BRANCH_KINDS`, or :data:`OTHER_KIND` when it matches several kinds (or none, or does not compile
    alone). A letters branch also matching CJK text is letters; whitespace that takes line breaks too is
    "other whitespace".

    >>> [custom_branch_kind(b) for b in (r"\p{L}+", r"\p{N}+", r"[^\s\p{L}\p{N}]+", r"\s+", r"\w+")]
    ['letters', 'digits', 'punctuation', 'other whitespace', 'other']
    >>> custom_branch_kind(r"'(?:[sdmt]|ll|ve|re)"), custom_branch_kind(r"[\r\n]+")
    ('contraction', 'line breaks')
    """
    try:
        # a stranger's regex (a branch of a custom pattern, cut out of it by reading the text): through the
        # library's one guard (size bound, compiled first in the worker, out of regex's own cache)
        compiled = compile_user(branch_regex, flags=regex.V1)
        hits = {
            kind
            for kind, probes in _KIND_PROBES.items()
            if any(compiled.fullmatch(p, timeout=_PROBE_TIMEOUT) for p in probes)
        }
    except Exception:  # a branch that needs the rest of the pattern (a backreference), or a timeout
        return OTHER_KIND
    if "letters" in hits:
        hits.discard("CJK run")
    if hits == {"whitespace", "line breaks"} or hits == {"whitespace"}:
        return "other whitespace"
    if len(hits) != 1:
        return OTHER_KIND
    kind = hits.pop()
    return kind if kind in BRANCH_KINDS else OTHER_KIND


def _kind(pattern: bpe.Pattern, i: int) -> str | None:
    if pattern.custom:
        return custom_branch_kind(pattern.branches[i][2])
    return pattern.branch_kind(i)


def pattern_colors(pattern: bpe.Pattern | None, palette: str = "default") -> list[str]:
    """One background color per (flattened) branch of ``pattern``.

    By the branch's kind (registry patterns: :meth:`bpe.Pattern.branch_kind`; custom ones:
    :func:`custom_branch_kind`, the "other" color when it is no single kind), a second branch of the same
    kind a lighter shade (GPT-4o's two word branches), so the colors mean what :func:`kinds_key_html` says.
    """
    colors = BRANCH_COLORS.get(palette, BRANCH_COLORS["default"])
    if pattern is None:
        return []
    n = len(pattern.branches)
    out: list[str] = []
    seen: dict[str, int] = {}
    for i in range(n):
        kind = _kind(pattern, i)
        if kind is None:
            out.append(colors[i % len(colors)])
            continue
        k = seen.get(kind, 0)
        seen[kind] = k + 1
        base = (
            OTHER_COLORS.get(palette, OTHER_COLORS["default"])
            if kind == OTHER_KIND
            else colors[BRANCH_KINDS.index(kind) % len(colors)]
        )
        out.append(base if k == 0 else tint(base, min(0.75, 0.45 * k)))
    return out


def branch_color(branch: int | None, palette: str = "default", pattern: bpe.Pattern | None = None) -> str:
    """The background of a chunk matched by flattened branch ``branch`` of ``pattern`` (None: unmatched).

    Without a pattern, colors go by branch number.
    """
    if branch is None:
        return UNMATCHED_COLOR
    if pattern is not None:
        colors = pattern_colors(pattern, palette)
        if 0 <= branch < len(colors):
            return colors[branch]
    colors = BRANCH_COLORS.get(palette, BRANCH_COLORS["default"])
    return colors[branch % len(colors)]


LAB_CSS = """
<style>
.lab-view{line-height:2.1;overflow-wrap:anywhere;}
.lab-view .lab-chunk{word-break:normal;overflow-wrap:normal;}
.lab-chunk{border-radius:4px;padding:1px 1px;margin:0 2px 0 0;box-shadow:inset 0 0 0 1px rgba(0,0,0,.12);
  position:relative;}
.lab-chunk.lab-unmatched{background:repeating-linear-gradient(135deg,#fff 0 5px,#ffe1e1 5px 10px)!important;
  box-shadow:none;outline:2px dashed #c62828;outline-offset:-1px;}
.lab-chunk.lab-extra{box-shadow:inset 0 0 0 1px rgba(0,0,0,.12),-3px 0 0 0 #c62828;margin-left:4px;}
.lab-miss{display:inline-block;width:0;height:1.25em;vertical-align:middle;border-left:2px dotted #c62828;
  margin:0 1px;}
.lab-bn{font-size:.62em;color:#333;vertical-align:sub;margin-left:1px;font-family:system-ui,sans-serif;}
.lab-legend{border-collapse:collapse;font-size:.86rem;width:100%;margin:.2rem 0 .6rem 0;}
.lab-legend td{border-top:1px solid #eee;padding:.12rem .35rem;vertical-align:top;}
.lab-legend .lab-sw{display:inline-block;width:1.4em;height:1em;border-radius:3px;
  box-shadow:inset 0 0 0 1px rgba(0,0,0,.2);vertical-align:middle;}
.lab-legend code{font-size:.74rem;word-break:break-all;white-space:pre-wrap;color:#555;background:none;padding:0;}
.lab-legend td.lab-num{white-space:nowrap;width:3.2em;}
.lab-legend .lab-n{text-align:right;font-variant-numeric:tabular-nums;color:#333;white-space:nowrap;}
.lab-key{font-size:.85rem;color:#333;margin:.1rem 0 .3rem 0;}
.lab-key .lab-miss{height:1em;}
.lab-key .lab-kind{white-space:nowrap;margin-right:.8rem;}
.lab-key .lab-sw{display:inline-block;width:1.3em;height:.9em;border-radius:3px;vertical-align:middle;
  box-shadow:inset 0 0 0 1px rgba(0,0,0,.2);}
</style>
"""


def _color(colors: Sequence[str], branch: int | None, palette: str) -> str:
    if branch is None:
        return UNMATCHED_COLOR
    return colors[branch] if 0 <= branch < len(colors) else branch_color(branch, palette)


def kinds_key_html(palette: str = "default", other: bool = False) -> str:
    """The color key shared by every pattern (registry and custom): one swatch per kind of branch, and with
    ``other`` the color of a custom branch that is no single kind."""
    colors = BRANCH_COLORS.get(palette, BRANCH_COLORS["default"])
    kinds = [(k, colors[i % len(colors)]) for i, k in enumerate(BRANCH_KINDS)]
    if other:
        kinds.append((OTHER_KIND, OTHER_COLORS.get(palette, OTHER_COLORS["default"])))
    names = {OTHER_KIND: "other (a custom branch of several kinds)"}
    items = "".join(
        f'<span class="lab-kind" data-kind="{html.escape(k, quote=True)}"><span class="lab-sw" '
        f'style="background:{c}"></span> {html.escape(names.get(k, k))}</span>'
        for k, c in kinds
    )
    return LAB_CSS + f'<div class="lab-key">Colors: {items}</div>'


def _branch_title(pattern: bpe.Pattern, branch: int | None) -> str:
    if branch is None:
        return "no branch of the pattern matched this text (findall would silently drop it)"
    return f"branch {branch + 1}: {pattern.describe_branch(branch)}"


def chunks_html(
    result: bpe.SplitResult,
    *,
    palette: str = "default",
    extra: Iterable[int] = (),
    missing: Iterable[int] = (),
    ref_label: str = "the reference",
    numbers: bool = False,
    max_chars: int | None = None,
    font_px: int | None = None,
    css: bool = True,
) -> str:
    """The chunks of a split, each colored by its branch (hover: the branch in words).

    ``extra``: cut positions (character offsets) to mark with a solid red bar (this pattern cuts there,
    the reference does not); ``missing``: positions to mark with a dotted red line inside a chunk (the
    reference cuts there, this pattern does not). ``numbers`` adds each chunk's branch number, for
    readers who cannot tell the colors apart. Chunks past ``max_chars`` are not drawn.
    """
    extra = set(extra)
    missing = sorted(set(missing))
    pattern = result.pattern
    out = [SPAN_CSS, LAB_CSS] if css else []
    style = f' style="--bpe-font:{int(font_px)}px"' if font_px else ""
    out.append(f'<div class="bpe-tokens lab-view"{style}>')
    mi = 0
    drawn_to = 0
    palette_of = pattern_colors(pattern, palette)
    for c in result:
        if max_chars is not None and c.start >= max_chars:
            break
        classes = ["lab-chunk"]
        if c.branch is None:
            classes.append("lab-unmatched")
        if c.start in extra:
            classes.append("lab-extra")
        title = _branch_title(pattern, c.branch) if pattern is not None else "the whole text"
        if c.start in extra:
            title += f" · {ref_label} does not cut here"
        # positions of missing cuts strictly inside this chunk
        inner = []
        while mi < len(missing) and missing[mi] <= c.start:
            mi += 1
        j = mi
        while j < len(missing) and missing[j] < c.end:
            inner.append(missing[j])
            j += 1
        pieces = []
        prev = c.start
        for pos in inner:
            pieces.append(piece_html(result.text[prev:pos].encode("utf-8")))
            pieces.append(f'<span class="lab-miss" title="{html.escape(ref_label, quote=True)} cuts here"></span>')
            prev = pos
        tail = piece_html(result.text[prev : c.end].encode("utf-8"))
        if c.end == len(result.text) and tail.endswith("\n"):
            tail = tail[:-1]  # the text's final line break: no empty line under the view
        pieces.append(tail)
        if inner:
            title += f" · {ref_label} cuts inside this chunk"
        num = f'<span class="lab-bn">{"?" if c.branch is None else c.branch + 1}</span>' if numbers else ""
        branch_attr = "none" if c.branch is None else str(c.branch)
        out.append(
            f'<span class="{" ".join(classes)}" data-branch="{branch_attr}" data-start="{c.start}" '
            f'style="background:{_color(palette_of, c.branch, palette)}" '
            f'title="{html.escape(title, quote=True)}">{"".join(pieces)}{num}</span>'
        )
        out.append("<wbr>")  # lines wrap between chunks, not inside one
        drawn_to = c.end
    if max_chars is not None and drawn_to < len(result.text):
        out.append(f'<span class="bpe-more"> … {len(result.text) - drawn_to:,} more characters not drawn</span>')
    if not len(result):
        out.append('<span class="bpe-more">(empty text)</span>')
    out.append("</div>")
    return "".join(out)


def legend_html(
    pattern: bpe.Pattern,
    result: bpe.SplitResult | None = None,
    *,
    palette: str = "default",
    numbers: bool = False,
    css: bool = True,
) -> str:
    """Every branch of the pattern: its color, a sentence, the regex, how many chunks it matched."""
    counts = branch_counts(result) if result is not None else {}
    parts = [LAB_CSS] if css else []
    parts.append('<table class="lab-legend">')
    last_stage = None
    multi = len(pattern.stages) > 1
    colors = pattern_colors(pattern, palette)
    for flat, (stage, _i, regex_text) in enumerate(pattern.branches):
        if multi and stage != last_stage:
            parts.append(
                f'<tr><td colspan="3"><b>Stage {stage + 1}</b> (splits the pieces of the stage before)</td></tr>'
                if stage
                else '<tr><td colspan="3"><b>Stage 1</b></td></tr>'
            )
            last_stage = stage
        note = pattern.describe_branch(flat)
        if pattern.custom:
            kind = custom_branch_kind(regex_text)
            note = f"your branch {flat + 1}: " + (
                "matches more than one kind of text (or none of them)" if kind == OTHER_KIND else kind
            )
        n = counts.get(flat, 0)
        parts.append(
            f'<tr data-branch="{flat}"><td class="lab-num"><span class="lab-sw" '
            f'style="background:{_color(colors, flat, palette)}"></span> {flat + 1}</td>'
            f"<td>{html.escape(note)}<br><code>{html.escape(regex_text)}</code></td>"
            f'<td class="lab-n">{n:,}×</td></tr>'
        )
    n_un = counts.get(None, 0)
    if n_un or pattern.custom:
        parts.append(
            f'<tr data-branch="none"><td><span class="lab-sw" style="background:repeating-linear-gradient('
            f'135deg,#fff 0 4px,#ffe1e1 4px 8px);outline:2px dashed #c62828"></span> ?</td>'
            f"<td>text that no branch matched: <code>regex.findall</code> would silently drop it</td>"
            f'<td class="lab-n">{n_un:,}×</td></tr>'
        )
    parts.append("</table>")
    return "".join(parts)


def marks_key_html(ref_label: str) -> str:
    """The one-line key for the disagreement marks."""
    r = html.escape(ref_label)
    return (
        LAB_CSS + '<div class="lab-key"><span class="lab-chunk lab-extra" style="background:#eee">&nbsp;x</span> '
        f"a red bar: this pattern cuts where {r} does not &nbsp;·&nbsp; "
        f'<span class="lab-chunk" style="background:#eee">a<span class="lab-miss"></span>b</span> '
        f"a dotted line: {r} cuts inside this chunk</div>"
    )


def counts_frame(rows: Sequence[dict]) -> pd.DataFrame:
    """The comparison table: one row per pattern (dicts from the page), columns in reading order."""
    cols = [
        "pattern",
        "chunks",
        "chars / chunk",
        "unmatched chars",
        "cuts not in reference",
        "reference cuts missing",
        "ms",
    ]
    frame = pd.DataFrame(list(rows))
    for c in cols:
        if c not in frame.columns:
            frame[c] = None
    frame = frame[cols]
    for c in ("chunks", "unmatched chars", "cuts not in reference", "reference cuts missing"):
        frame[c] = frame[c].astype("Int64")
    for c in ("chars / chunk", "ms"):
        frame[c] = frame[c].astype("Float64")
    return frame
