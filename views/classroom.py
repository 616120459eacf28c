"""The Classroom: short lessons a teacher clicks through, as data, drawn by pure functions.

A :class:`Lesson` is a few :class:`Step` s; each step answers one question with a title, one or two short
sentences and a visual (:class:`Visual`: an HTML string and/or a plotly figure, plus the ``facts`` it
shows, for tests). Every number a lesson shows comes from the library at run time (``bpe.train``,
``bpe.reference.merge_ids``, a tokenizer); the tests check them against values worked by hand.

The "predict the next merge" quiz is generic: :func:`next_merge_quiz` builds a question from any run and
merge rank, :func:`grade` answers it (a pair tied with the winner counts as right, with the tie rule
explained), :func:`verdict_html` draws the answer. The merge player can reuse all three.

:func:`presenter_css` (large type, high contrast, wide content) and :func:`enlarge_figure` (chart fonts)
make any page projector-ready.

No Streamlit here; every piece of text that reaches HTML is escaped.

>>> lesson(1).steps[0].draw("default").facts["tokens"]
11
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import bpe
from bpe.reference import get_stats, merge_ids

from .spans import render_spans, spans_from_ids, token_label
from .theme import PALETTES, accent_colors, color_for

__all__ = [
    "Visual", "Step", "Lesson", "Quiz", "QuizOption", "Verdict", "LESSON_TITLES", "lesson", "lesson_count",
    "next_merge_quiz", "grade", "verdict_html", "score_text", "inline_html", "step_html", "presenter_css",
    "enlarge_figure", "compression_curve_figure", "CLASSROOM_CSS", "TIE_RULE_TEXT", "letter_names", "pair_colors",
]

ROOT = Path(__file__).resolve().parents[1]
_MONO = "ui-monospace,SFMono-Regular,Menlo,Consolas,monospace"


# ----------------------------------------------------------------------------------------------------
# The data model

@dataclass(frozen=True)
class Visual:
    """What a step shows: HTML (drawn with ``st.html``), a plotly figure, or both (HTML first)."""

    html: str = ""
    figure: Any = None
    #: the numbers and tokens the step shows, machine-readable (for tests)
    facts: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class QuizOption:
    label: str
    pair: tuple[int, int]
    count: int


@dataclass(frozen=True)
class Quiz:
    """"Which pair is merged next?" for merge ``rank`` of a run."""

    id: str
    question: str
    options: tuple[QuizOption, ...]
    #: the pair training merged
    winner: tuple[int, int]
    #: other options with the winner's count (each counts as a right answer)
    ties: tuple[tuple[int, int], ...]
    count: int
    #: one sentence: how the tie rule chose the winner ("" when there is no tie)
    rule: str


@dataclass(frozen=True)
class Verdict:
    right: bool
    tie: bool
    message: str


@dataclass(frozen=True)
class Step:
    """One screen of a lesson: ``title`` (the question it answers), ``text`` (one or two sentences;
    ```code``` and ``**bold**`` marks allowed), ``draw(palette) -> Visual`` and an optional quiz."""

    title: str
    text: str
    draw: Callable[[str], Visual]
    quiz: Quiz | None = None


@dataclass(frozen=True)
class Lesson:
    number: int
    title: str
    summary: str
    steps: tuple[Step, ...]


# ----------------------------------------------------------------------------------------------------
# Small HTML helpers

def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*([^*]+)\*\*")


def inline_html(text: str) -> str:
    """Plain text with ```code``` and ``**bold**`` marks -> escaped HTML.

    >>> inline_html("merge `a<b` **now**")
    'merge <code>a&lt;b</code> <b>now</b>'
    """
    out = _e(text)
    out = _CODE.sub(lambda m: f"<code>{m.group(1)}</code>", out)
    return _BOLD.sub(lambda m: f"<b>{m.group(1)}</b>", out)


def _shade(hex_color: str, amount: float) -> str:
    """Mix ``#rrggbb`` toward black by ``amount``."""
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i:i + 2], 16) for i in (0, 2, 4))
    return "#{:02x}{:02x}{:02x}".format(*(int(c * (1 - amount)) for c in (r, g, b)))


#: Colors for pair types and lesson tokens: distinct hues that survive a projector. The color-blind
#: palette is Okabe–Ito's (see views.theme).
_LESSON_COLORS = {
    "default": ("#8ecae6", "#ffb703", "#b5e48c", "#f4a261", "#cdb4db", "#ffafcc", "#90be6d", "#e9c46a",
                "#a8dadc", "#f28482"),
    "okabe_ito": PALETTES["okabe_ito"],
}


def lesson_colors(palette: str) -> tuple[str, ...]:
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


CLASSROOM_CSS = """
<style>
.cls-step{color:#111;font-size:var(--cls-font,18px);line-height:1.45;}
.cls-step code,.cls-text code{font-family:%(mono)s;background:#f1f1f1;color:#111;padding:0 .2em;border-radius:3px;}
.cls-text{font-size:1.2rem;line-height:1.5;margin:.1rem 0 .6rem 0;color:#111;}
.cls-ind{font-size:1rem;color:#444;letter-spacing:.02em;}
.cls-ind b{color:#111;}
.cls-title{font-size:2rem;font-weight:700;line-height:1.2;margin:.1rem 0 .3rem 0;color:#111;}
.cls-row{display:flex;flex-wrap:wrap;gap:.35em;align-items:stretch;margin:.2em 0 .5em 0;}
.cls-rowlabel{align-self:center;min-width:8.5em;color:#333;font-size:1em;}
.cls-tok{font-family:%(mono)s;font-size:2em;min-width:1.3em;padding:.02em .28em;text-align:center;
  border:2px solid #555;border-radius:.22em;background:#fff;color:#111;line-height:1.2;white-space:pre;}
.cls-tok .cls-sub{display:block;font-size:.36em;line-height:1.15;color:#222;}
.cls-tok.cls-new{border:3px solid #111;box-shadow:0 0 0 3px var(--cls-accent,#d62728);}
.cls-tok.cls-faded{opacity:.45;}
.cls-n{align-self:center;font-size:1.25em;margin-left:.4em;color:#111;}
.cls-n b{font-size:1.3em;}
.cls-pair{font-family:%(mono)s;font-size:1.35em;padding:.08em .35em;border-radius:.25em;border:2px solid;
  color:#111;white-space:pre;}
.cls-tally{display:flex;flex-wrap:wrap;gap:.5em 1.2em;margin:.4em 0 .6em 0;font-size:1.15em;}
.cls-tally span.cls-t{display:inline-flex;align-items:center;gap:.35em;}
.cls-tally .cls-win{font-weight:700;}
.cls-big{font-size:2.6em;font-weight:700;letter-spacing:.02em;margin:.2em 0;color:#111;}
.cls-big .cls-arrow{color:#666;font-weight:400;margin:0 .25em;}
.cls-table{border-collapse:collapse;font-size:1.1em;margin:.3em 0 .6em 0;color:#111;}
.cls-table th{text-align:left;font-weight:600;color:#333;border-bottom:2px solid #999;padding:.2em .8em .2em 0;}
.cls-table td{border-bottom:1px solid #ddd;padding:.25em .8em .25em 0;vertical-align:middle;}
.cls-chip{font-family:%(mono)s;padding:.02em .35em;border-radius:.25em;border:1.5px solid #666;
  background:#fff;color:#111;white-space:pre;display:inline-block;margin:.1em .15em .1em 0;}
.cls-chip.cls-special{background:#222;color:#fff;border-color:#222;font-weight:700;}
.cls-chip.cls-alert{border:2.5px dashed #b3261e;}
.cls-mono{font-family:%(mono)s;font-size:1.1em;}
.cls-cols-row{gap:.6em;align-items:flex-start;}
.cls-col{display:flex;flex-direction:column;align-items:center;gap:.3em;}
.cls-under{display:flex;gap:.15em;font-size:1.05em;}
.cls-pairv{display:flex;flex-direction:column;align-items:center;color:#555;line-height:1.1;}
.st-key-quiz label p{font-size:1.3rem !important;font-family:%(mono)s;}
.st-key-quiz [data-testid="stWidgetLabel"] p{font-family:inherit;font-weight:600;}
.cls-note{color:#333;font-size:.95em;margin:.2em 0;}
.cls-cols{display:grid;grid-template-columns:1fr 1fr;gap:2.5em;}
.cls-cols h4{margin:.2em 0 .4em 0;font-size:1.25em;color:#111;}
.cls-rules{margin:.4em 0;padding-left:1.2em;font-size:1.1em;}
.cls-rules li{margin:.2em 0;}
.cls-verdict{font-size:1.2rem;padding:.5em .8em;border-radius:6px;margin:.4em 0;color:#111;}
.cls-verdict.cls-right{background:#e6f4ea;border-left:8px solid #1e7b34;}
.cls-verdict.cls-wrong{background:#fdecea;border-left:8px solid #b3261e;}
.cls-score{font-size:1.05rem;color:#222;}
.cls-notes{background:#fff8e1;border-left:6px solid #e69f00;padding:.4em .8em;border-radius:4px;color:#111;}
.cls-notes p{margin:.15em 0;}
</style>
""" % {"mono": _MONO}


def step_html(lesson_: Lesson, index: int) -> str:
    """The step indicator, title and text of step ``index`` (0-based) of a lesson."""
    step = lesson_.steps[index]
    n = len(lesson_.steps)
    return (f'<div class="cls-head" data-lesson="{lesson_.number}" data-step="{index + 1}" data-steps="{n}">'
            f'<div class="cls-ind">Lesson {lesson_.number} · {_e(lesson_.title)} — '
            f'<b>Step {index + 1} / {n}</b></div>'
            f'<div class="cls-title">{inline_html(step.title)}</div>'
            f'<div class="cls-text">{inline_html(step.text)}</div></div>')


# ----------------------------------------------------------------------------------------------------
# Presenter view

def presenter_css(scale: float = 1.45) -> str:
    """CSS (a ``<style>`` block for ``st.html``) for a projector: every font about ``scale`` times larger,
    black text on white, thicker token outlines, the content as wide as the screen, Streamlit's menu
    hidden (the button that reopens the sidebar stays). Pair it with ``st.set_page_config(initial_sidebar_state="collapsed")`` and
    :func:`enlarge_figure` for charts.

    >>> "font-size" in presenter_css() and presenter_css().startswith("<style>")
    True
    """
    s = float(scale)
    base = round(16 * s)
    return f"""<style>
html{{font-size:{base}px !important;}}
[data-testid="stAppViewContainer"],[data-testid="stMain"],.stApp{{background:#fff !important;color:#000 !important;}}
.stMainBlockContainer,[data-testid="stMainBlockContainer"]{{max-width:100% !important;padding-left:2.5rem !important;
  padding-right:2.5rem !important;padding-top:3.2rem !important;}}
.stMarkdown p,.stMarkdown li,[data-testid="stWidgetLabel"] p,label p{{font-size:{round(18 * s)}px !important;color:#000 !important;}}
.stButton button p{{font-size:{round(17 * s)}px !important;font-weight:600;}}
.stButton button{{border:2px solid #000 !important;}}
[data-testid="stMainMenu"],[data-testid="stAppDeployButton"],[data-testid="stToolbarActions"],
[data-testid="stDecoration"]{{display:none !important;}}
.bpe-tokens{{font-size:calc(var(--bpe-font,15px) * {s:.2f}) !important;color:#000 !important;}}
.bpe-tok{{box-shadow:inset 0 0 0 2px rgba(0,0,0,.55) !important;}}
.bpe-ws{{color:#444 !important;}}
.cls-step{{--cls-font:{round(18 * s)}px;color:#000;}}
.cls-text{{font-size:{round(20 * s)}px;color:#000;}}
.cls-title{{font-size:{round(32 * s)}px;color:#000;}}
.cls-ind{{font-size:{round(16 * s)}px;color:#000;}}
.cls-tok{{border-color:#000;}}
.cls-verdict{{font-size:{round(19 * s)}px;}}
.cls-score{{font-size:{round(17 * s)}px;color:#000;}}
[data-baseweb="select"] div{{font-size:{round(16 * s)}px;color:#000;}}
.cls-note,.cls-rowlabel,.cls-table th{{color:#000;}}
</style>"""


def enlarge_figure(fig, scale: float = 1.5):
    """A plotly figure with every font (layout, titles, axes, legend, annotations, traces) ``scale`` times
    larger and black text; fonts without a size get the scaled default (12 px). Returns a new figure.

    >>> import plotly.graph_objects as go
    >>> f = enlarge_figure(go.Figure(layout=dict(title=dict(text="t", font=dict(size=10)))), 2)
    >>> f.layout.title.font.size, f.layout.font.size
    (20, 24)
    """
    import plotly.graph_objects as go

    spec = fig.to_plotly_json()

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if (key.endswith("font") or key == "font") and isinstance(value, dict):
                    if "color" in value:
                        value["color"] = "#000"
                    if isinstance(value.get("size"), (int, float)):
                        value["size"] = round(value["size"] * scale)
                    elif isinstance(value.get("size"), list):
                        value["size"] = [round(v * scale) for v in value["size"]]
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(spec)
    layout = spec.setdefault("layout", {})
    font = layout.setdefault("font", {})
    font.setdefault("size", round(12 * scale))
    font["color"] = "#000"
    if isinstance(layout.get("height"), (int, float)):
        layout["height"] = round(layout["height"] * min(scale, 1.35))
    return go.Figure(spec)


# ----------------------------------------------------------------------------------------------------
# Tokens as names, rows of boxes, pairs

def letter_names(run) -> dict[int, str]:
    """Names for a lesson: base tokens by their character, merged tokens Z, Y, X, … in merge order.

    >>> r = bpe.train("aaabdaaabac", 258, pattern=None)
    >>> n = letter_names(r); n[97], n[256], n[257]
    ('a', 'Z', 'Y')
    """
    names: dict[int, str] = {}
    for i, t in enumerate(run.base):
        names[i] = token_label(t if isinstance(t, bytes) else t.encode("utf-8"))
    for m in run.merges:
        names[m.id] = chr(ord("Z") - m.rank) if m.rank < 26 else f"T{m.rank}"
    return names


def _label(run, token_id: int) -> str:
    t = run.token(token_id)
    return token_label(t if isinstance(t, bytes) else t.encode("utf-8"))


def _row(ids: Sequence[int], names: Mapping[int, str], *, spelled: Mapping[int, str] | None = None,
         colors: Mapping[int, str] | None = None, new: set[int] = frozenset(), label: str = "",
         count: bool = True, faded: bool = False, accent: str = "#d62728", cls: str = "") -> str:
    """A row of big token boxes (``new``: positions to outline), its label and its token count."""
    parts = [f'<div class="cls-row {cls}" data-n="{len(ids)}" style="--cls-accent:{accent}">']
    if label:
        parts.append(f'<span class="cls-rowlabel">{_e(label)}</span>')
    for pos, i in enumerate(ids):
        classes = ["cls-tok"]
        if pos in new:
            classes.append("cls-new")
        if faded:
            classes.append("cls-faded")
        bg = (colors or {}).get(i, "#ffffff")
        sub = ""
        if spelled and i in spelled and spelled[i] != names.get(i):
            sub = f'<span class="cls-sub">{_e(spelled[i])}</span>'
        parts.append(f'<span class="{" ".join(classes)}" data-tok="{_e(names.get(i, i))}" '
                     f'style="background:{bg}">{_e(names.get(i, i))}{sub}</span>')
    if count:
        parts.append(f'<span class="cls-n"><b>{len(ids)}</b> tokens</span>')
    parts.append("</div>")
    return "".join(parts)


def _pair_text(pair: tuple[int, int], names: Mapping[int, str]) -> str:
    return f"({names.get(pair[0], pair[0])}, {names.get(pair[1], pair[1])})"


def _pair_strip(seq: Sequence[int], names: Mapping[int, str], colors: Mapping[tuple[int, int], str]) -> str:
    """Every adjacent pair of a sequence, in order, colored by its type."""
    parts = ['<div class="cls-row cls-pairs">', '<span class="cls-rowlabel">adjacent pairs</span>']
    for p in zip(seq, seq[1:]):
        c = colors.get(p, "#eee")
        parts.append(f'<span class="cls-pair" data-pair="{_e(_pair_text(p, names))}" '
                     f'style="background:{c};border-color:{_shade(c, .35)}">'
                     f'{_e(names.get(p[0], p[0]))}{_e(names.get(p[1], p[1]))}</span>')
    parts.append("</div>")
    return "".join(parts)


def _tally(counts: Mapping[tuple[int, int], int], names: Mapping[int, str],
           colors: Mapping[tuple[int, int], str], winner: tuple[int, int] | None, note: str = "merged next",
           tied: Sequence[tuple[int, int]] = ()) -> str:
    """Pair types with their counts, most frequent first; the winner (and pairs tied with it) marked."""
    order = sorted(counts.items(), key=lambda kv: -kv[1])
    parts = ['<div class="cls-tally">']
    for p, n in order:
        c = colors.get(p, "#eee")
        mark = ""
        cls = "cls-t"
        if p == winner:
            mark = f" ◀ {_e(note)}"
            cls += " cls-win"
        elif p in tied:
            mark = " ◀ tie"
            cls += " cls-win"
        parts.append(f'<span class="{cls}" data-pair="{_e(_pair_text(p, names))}" data-count="{n}">'
                     f'<span class="cls-pair" style="background:{c};border-color:{_shade(c, .35)}">'
                     f'{_e(_pair_text(p, names))}</span> × {n}{mark}</span>')
    parts.append("</div>")
    return "".join(parts)


def _big(numbers: Sequence[int], unit: str = "tokens") -> str:
    arrows = '<span class="cls-arrow">→</span>'.join(str(n) for n in numbers)
    return f'<div class="cls-big" data-counts="{",".join(map(str, numbers))}">{arrows} {_e(unit)}</div>'


def _chip(text: str, *, cls: str = "", bg: str | None = None, title: str = "") -> str:
    t = f' title="{_e(title)}"' if title else ""
    style = f' style="background:{bg}"' if bg else ""
    return f'<span class="cls-chip {cls}"{style}{t}>{_e(text)}</span>'


def _step_div(body: str) -> str:
    return f'<div class="cls-step">{body}</div>'


# ----------------------------------------------------------------------------------------------------
# Predict the next merge

#: How each tie rule decides between pairs with equal counts.
TIE_RULE_TEXT = {
    "lexical": "the pair with the smaller token ids wins (as in rustbpe)",
    "first": "the pair that occurs first in the text wins (as in minbpe)",
    "hf": "Hugging Face's order wins: byte tokens by their visible character, then by creation order",
}
_RULE_NAME = {"lexical": "lexical", "first": "first-seen", "hf": "Hugging Face"}


def next_merge_quiz(run, rank: int, *, quiz_id: str, names: Mapping[int, str] | None = None,
                    n_options: int | None = 6, order: Sequence[tuple[int, int]] | None = None,
                    question: str = "Which pair is merged next?") -> Quiz:
    """A quiz on merge ``rank`` of ``run``: the options are the most frequent pairs before that merge
    (the winner and every tied pair always among them), listed in ``order`` (e.g. first appearance in
    the text) or else alphabetically — never by count, which would give the answer away.
    """
    m = run.merges[rank]
    name = (lambda i: names.get(i, _label(run, i))) if names else (lambda i: _label(run, i))
    top = list(m.top_pairs)
    chosen = top if n_options is None else top[:max(n_options, 1)]
    have = {p for p, _ in chosen}
    for p in (m.pair, *m.ties):
        if p not in have:
            chosen.append((p, m.count))
            have.add(p)
    if order is not None:
        pos = {p: i for i, p in enumerate(order)}
        chosen.sort(key=lambda pc: (pos.get(pc[0], len(pos)), name(pc[0][0]), name(pc[0][1])))
    else:
        chosen.sort(key=lambda pc: (name(pc[0][0]), name(pc[0][1])))
    options = tuple(QuizOption(f"({name(p[0])}, {name(p[1])})", p, c) for p, c in chosen)
    ties = tuple(p for p, c in chosen if p != m.pair and c == m.count)
    rule = ""
    if ties:
        win = f"({name(m.pair[0])}, {name(m.pair[1])})"
        if run.tie_break == "lexical":
            others = ", ".join(str(p) for p in ties)
            rule = f"The lexical rule takes {win}: its ids {m.pair} are smaller than {others}."
        elif run.tie_break == "first":
            rule = f"The first-seen rule takes {win}: it occurs first in the text."
        else:
            rule = f"The {_RULE_NAME.get(run.tie_break, run.tie_break)} rule takes {win}: " \
                   f"{TIE_RULE_TEXT.get(run.tie_break, '')}."
    return Quiz(id=quiz_id, question=question, options=options, winner=m.pair, ties=ties, count=m.count,
                rule=rule)


def grade(quiz: Quiz, choice: int | None) -> Verdict:
    """Right when the chosen option is the merged pair or tied with it (then the rule is explained).

    >>> r = bpe.train("aaabdaaabac", 258, pattern=None)
    >>> q = next_merge_quiz(r, 1, quiz_id="t", names=letter_names(r))
    >>> [o.label for o in q.options if o.count == 2]
    ['(Z, a)', '(a, b)']
    >>> grade(q, [o.label for o in q.options].index("(Z, a)")).right
    True
    """
    if choice is None or not 0 <= choice < len(quiz.options):
        return Verdict(False, False, "Pick a pair first.")
    picked = quiz.options[choice]
    by_pair = {o.pair: o for o in quiz.options}
    win = by_pair[quiz.winner]
    tie = bool(quiz.ties)
    times = lambda n: f"{n} time{'s' if n != 1 else ''}"  # noqa: E731
    tied = " and ".join(o.label for o in quiz.options if o.pair == quiz.winner or o.pair in quiz.ties)
    if picked.pair == quiz.winner or picked.pair in quiz.ties:
        if not tie:
            return Verdict(True, False, f"Right! {win.label} occurs {times(win.count)}, more than any other pair.")
        return Verdict(True, True, f"Right — a tie: {tied} occur {times(win.count)} each. {quiz.rule}")
    if not tie:
        return Verdict(False, False, f"Not this time: {picked.label} occurs {times(picked.count)}; "
                                     f"{win.label} occurs {times(win.count)}.")
    return Verdict(False, True, f"Not this time: {picked.label} occurs {times(picked.count)}; {tied} occur "
                                f"{times(win.count)} each, a tie. {quiz.rule}")


def verdict_html(v: Verdict) -> str:
    cls = "cls-right" if v.right else "cls-wrong"
    mark = "✓" if v.right else "✗"
    return (f'<div class="cls-verdict {cls}" data-right="{int(v.right)}">'
            f'<b>{mark}</b> {_e(v.message)}</div>')


def score_text(results: Mapping[str, bool]) -> str:
    """``"Quiz score: 1 / 2"`` from ``{quiz id: right}``.

    >>> score_text({"a": True, "b": False})
    'Quiz score: 1 / 2'
    """
    return f"Quiz score: {sum(1 for r in results.values() if r)} / {len(results)}"


# ----------------------------------------------------------------------------------------------------
# Lesson 1 — merging by hand: aaabdaaabac

def _lesson_by_hand() -> Lesson:
    text = "aaabdaaabac"
    run = bpe.train(text, 256 + 2, pattern=None, tie_break="lexical")
    names = letter_names(run)
    spelled = {m.id: _label(run, m.id) for m in run.merges}
    seqs = [list(text.encode("utf-8"))]
    for m in run.merges:
        seqs.append(merge_ids(seqs[-1], m.pair, m.id))
    counts = [run.tokens_before] + [m.tokens_after for m in run.merges]
    m1, m2 = run.merges
    picks = {rule: bpe.train(text, 256 + 2, pattern=None, tie_break=rule).merges[1].pair
             for rule in bpe.TIE_BREAKS}

    def colors_for(palette: str):
        pc = pair_colors(seqs, palette)
        tok = {m.id: pc[m.pair] for m in run.merges}
        return pc, tok

    def first_seen(seq):
        return list(dict.fromkeys(zip(seq, seq[1:])))

    def stats(seq):
        return get_stats([seq], [1])

    def new_positions(seq, new_id):
        return {i for i, t in enumerate(seq) if t == new_id}

    def d_start(p):
        _, tok = colors_for(p)
        return Visual(_step_div(_row(seqs[0], names, colors=tok, label="the text")),
                      facts={"tokens": len(seqs[0]), "seq": [names[i] for i in seqs[0]]})

    def d_predict(k):
        def draw(p):
            _, tok = colors_for(p)
            return Visual(_step_div(_row(seqs[k], names, spelled=spelled, colors=tok,
                                         label="now" if k else "the text")),
                          facts={"tokens": len(seqs[k]), "seq": [names[i] for i in seqs[k]]})
        return draw

    def d_count(k):
        def draw(p):
            pc, tok = colors_for(p)
            m = run.merges[k]
            st_ = stats(seqs[k])
            body = (_row(seqs[k], names, spelled=spelled, colors=tok, label="now" if k else "the text")
                    + _pair_strip(seqs[k], names, pc)
                    + _tally(st_, names, pc, m.pair, tied=m.ties))
            if m.ties:
                items = "".join(
                    f"<li><b>{_e(_RULE_NAME[r])}</b>: {_e(TIE_RULE_TEXT[r])} → "
                    f"<b>{_e(_pair_text(picks[r], names))}</b></li>" for r in bpe.TIE_BREAKS)
                body += f'<ul class="cls-rules">{items}</ul>'
            return Visual(_step_div(body), facts={
                "tokens": len(seqs[k]),
                "counts": {_pair_text(pp, names): n for pp, n in st_.items()},
                "winner": _pair_text(m.pair, names),
                "ties": [_pair_text(t, names) for t in m.ties],
                "rule_picks": {r: _pair_text(pp, names) for r, pp in picks.items()}})
        return draw

    def d_merge(k):
        def draw(p):
            _, tok = colors_for(p)
            m = run.merges[k - 1]
            acc = accent_colors(p)["winner"]
            body = (_row(seqs[k - 1], names, spelled=spelled, colors=tok, label="before", faded=True)
                    + _row(seqs[k], names, spelled=spelled, colors=tok, label=f"after merge {k}",
                           new=new_positions(seqs[k], m.id), accent=acc)
                    + _big(counts[:k + 1]))
            if k == len(run.merges):
                vocab = "".join(_chip(f"{names[mm.id]} = {spelled[mm.id]}", bg=tok[mm.id]) for mm in run.merges)
                body += f'<div class="cls-note">New tokens: {vocab}</div>'
            return Visual(_step_div(body), facts={
                "tokens": len(seqs[k]), "counts": counts[:k + 1], "seq": [names[i] for i in seqs[k]],
                "merge": f"{_pair_text(m.pair, names)} → {names[m.id]}", "new_token": spelled[m.id]})
        return draw

    order1, order2 = first_seen(seqs[0]), first_seen(seqs[1])
    q1 = next_merge_quiz(run, 0, quiz_id="l1s2", names=names, n_options=None, order=order1,
                         question="Which pair will be merged first?")
    q2 = next_merge_quiz(run, 1, quiz_id="l1s5", names=names, n_options=None, order=order2,
                         question="Which pair will be merged second?")
    st1 = stats(seqs[0])
    st2 = stats(seqs[1])
    tie_names = " and ".join(_pair_text(pp, names) for pp in (m2.pair, *m2.ties))
    Z, Y = names[m1.id], names[m2.id]
    steps = (
        Step("Start: every character is a token",
             f"The text `{text}` is {counts[0]} tokens, one per character. BPE will glue the most frequent "
             f"neighbours together, one pair at a time.", d_start),
        Step("Predict: which pair is merged first?",
             "Look at neighbouring characters. Which pair of neighbours occurs most often?", d_predict(0), q1),
        Step("Count every adjacent pair",
             f"Same color, same pair. {_pair_text(m1.pair, names)} occurs {st1[m1.pair]} times — "
             f"inside each `aaa` it occurs twice, overlapping — so it is merged first.", d_count(0)),
        Step(f"Merge 1: {_pair_text(m1.pair, names)} → {Z}",
             f"Every `{spelled[m1.id]}`, left to right, becomes the new token **{Z}**. Counted {m1.count} times, "
             f"replaced {counts[0] - counts[1]} times (overlaps merge once): {counts[0]} → {counts[1]} tokens.",
             d_merge(1)),
        Step("Predict: which pair is merged second?",
             f"Count again on the new sequence: {Z} is a token now, like any other.", d_predict(1), q2),
        Step("A tie!",
             f"{tie_names} both occur {st2[m2.pair]} times. Counts cannot decide, so a tie rule does. "
             f"Each rule gives a valid tokenizer; they just differ.", d_count(1)),
        Step(f"Merge 2: {_pair_text(m2.pair, names)} → {Y}",
             f"With the lexical rule `{spelled[m2.id]}` becomes **{Y}**: {counts[1]} → {counts[2]} tokens. "
             f"The vocabulary grew by 2 tokens; the text shrank from {counts[0]} to {counts[2]}.", d_merge(2)),
    )
    return Lesson(1, "Merging by hand: aaabdaaabac",
                  "Count pairs, merge the most frequent, repeat — and what happens on a tie.", steps)


# ----------------------------------------------------------------------------------------------------
# Lesson 2 — tokenization is compression

def _split_heldout(text: str, fraction: float = 0.15) -> tuple[str, str]:
    cut = int(len(text) * (1 - fraction))
    j = text.rfind("\n", 0, cut)
    if j < cut - len(text) // 10:
        j = text.rfind(" ", 0, cut)
    return text[:j + 1], text[j + 1:]


def _heldout_counts(run, text: str) -> list[int]:
    """Tokens of an unseen text after 0, 1, … merges (merges applied in order to each chunk)."""
    chunks = [list(c.encode("utf-8")) for c in bpe.pretokenize(text, run.pattern)]
    out = [sum(map(len, chunks))]
    for m in run.merges:
        chunks = [merge_ids(c, m.pair, m.id) if len(c) > 1 else c for c in chunks]
        out.append(sum(map(len, chunks)))
    return out


def _spans_html(tok, text: str, palette: str, *, highlight=(), font_px: int = 22) -> tuple[str, list[int]]:
    ids = tok.encode(text, allowed_special="all") if tok.special_tokens else tok.encode(text)
    return render_spans(spans_from_ids(tok, ids), highlight=highlight, palette=palette, font_px=font_px), ids


#: Line colors of the compression curve per palette: (training, held-out).
_CURVE_COLORS = {"default": ("#1f77b4", "#2ca02c"), "okabe_ito": ("#0072B2", "#E69F00")}


def compression_curve_figure(train_counts: Sequence[int], train_bytes: int, held_counts: Sequence[int],
                             held_bytes: int, *, palette: str = "default", height: int = 420):
    """Bytes per token against merges for the training text (solid) and held-out text (dashed).

    >>> f = compression_curve_figure([4, 2], 4, [2, 2], 2)
    >>> [list(t.y) for t in f.data]
    [[1.0, 2.0], [1.0, 1.0]]
    """
    import plotly.graph_objects as go

    train_c, held_c = _CURVE_COLORS.get(palette, _CURVE_COLORS["default"])
    xs = list(range(len(train_counts)))
    fig = go.Figure()
    for name, counts, nbytes, color, dash in (("training text", train_counts, train_bytes, train_c, "solid"),
                                              ("held-out text", held_counts, held_bytes, held_c, "dash")):
        fig.add_trace(go.Scatter(x=xs, y=[nbytes / max(1, c) for c in counts], name=name, mode="lines",
                                 line=dict(color=color, dash=dash, width=4),
                                 hovertemplate="%{y:.2f} bytes per token after %{x} merges<extra>"
                                 + name + "</extra>"))
    fig.update_layout(
        height=height, margin=dict(l=10, r=10, t=10, b=10), plot_bgcolor="white", font=dict(size=16, color="#111"),
        legend=dict(orientation="h", yanchor="bottom", y=0.02, x=0.98, xanchor="right",
                    bgcolor="rgba(255,255,255,.85)", font=dict(size=16, color="#111")),
        xaxis=dict(title=dict(text="merges", font=dict(size=17, color="#111")), fixedrange=True,
                   gridcolor="#e5e5e5", tickfont=dict(size=15, color="#222")),
        yaxis=dict(title=dict(text="bytes per token", font=dict(size=17, color="#111")), fixedrange=True,
                   gridcolor="#e5e5e5", rangemode="tozero", tickfont=dict(size=15, color="#222")),
    )
    return fig


def _lesson_compression() -> Lesson:
    hello = "hello hello hello world"
    run_h = bpe.train(hello, 256 + 5, pattern=None, tie_break="lexical")
    counts_h = run_h.token_counts()
    essay = (ROOT / "sample_texts" / "english.txt").read_text(encoding="utf-8")
    train_part, held = _split_heldout(essay)
    n_merges = 300
    run_e = bpe.train(train_part, 256 + n_merges, pattern="gpt4", tie_break="lexical")
    held_counts = _heldout_counts(run_e, held)
    counts_e = run_e.token_counts()
    k_e = len(run_e.merges)
    bpt_train = run_e.n_bytes / counts_e[-1]
    held_bytes = len(held.encode("utf-8"))
    bpt_held = held_bytes / held_counts[-1]
    half = next(k for k, c in enumerate(counts_e) if counts_e[0] - c >= (counts_e[0] - counts_e[-1]) / 2)

    def d_start(p):
        html_, ids = _spans_html(run_h.tokenizer(0), hello, p)
        return Visual(_step_div(html_ + _big([len(ids)], "tokens = bytes")),
                      facts={"tokens": len(ids), "bytes": len(hello.encode())})

    def d_merges(p):
        k = len(run_h.merges)
        html_, ids = _spans_html(run_h.tokenizer(k), hello, p, highlight={run_h.merges[-1].id})
        rows = "".join(
            f"<tr><td>{m.rank + 1}</td><td>{_chip(_label(run_h, m.pair[0]))} + {_chip(_label(run_h, m.pair[1]))}</td>"
            f"<td>{_chip(_label(run_h, m.id), bg=color_for(m.id, p))}</td><td>{m.count}</td>"
            f"<td><b>{m.tokens_after}</b></td></tr>" for m in run_h.merges)
        table = ('<table class="cls-table"><tr><th>merge</th><th>pair</th><th>new token</th><th>count</th>'
                 f'<th>tokens after</th></tr>{rows}</table>')
        return Visual(_step_div(table + html_ + _big(counts_h)),
                      facts={"tokens": len(ids), "counts": counts_h,
                             "new_tokens": [_label(run_h, m.id) for m in run_h.merges]})

    def d_curve(p):
        fig = compression_curve_figure(counts_e, run_e.n_bytes, held_counts, held_bytes, palette=p)
        note = (f'<div class="cls-big" data-counts="{counts_e[0]},{counts_e[-1]}">{counts_e[0]:,}'
                f'<span class="cls-arrow">→</span>{counts_e[-1]:,} tokens</div>'
                f'<div class="cls-note">{bpt_train:.2f} bytes per token on the training text, '
                f'{bpt_held:.2f} on the held-out end of the essay.</div>')
        return Visual(_step_div(note), figure=fig, facts={
            "tokens_before": counts_e[0], "tokens_after": counts_e[-1], "merges": k_e, "half_at": half,
            "bytes_per_token": round(bpt_train, 2), "heldout_bytes_per_token": round(bpt_held, 2)})

    steps = (
        Step("Start: one token per byte",
             f"`{hello}` is {counts_h[0]} bytes, so {counts_h[0]} tokens before any merge.", d_start),
        Step("Each merge shortens the text",
             f"{len(run_h.merges)} merges later `hello·` is one token. A merge removes one token per "
             f"occurrence of its pair: here 3 each time, {counts_h[0]} → {counts_h[-1]} tokens.", d_merges),
        Step("The compression curve",
             f"On a longer text the first merges save the most: half of the saving comes from the first "
             f"{half} of {k_e} merges. Held-out text, never trained on, shrinks too: {bpt_held:.2f} bytes per "
             f"token against {bpt_train:.2f}.", d_curve),
    )
    return Lesson(2, "Tokenization is compression",
                  "Every merge makes the text shorter: fewer tokens, more bytes per token.", steps)


# ----------------------------------------------------------------------------------------------------
# Lesson 3 — the word-frequency corpus and an unseen word

TOY_CORPUS = {"the": 50, "fox": 30, "foxes": 5, "boxes": 12, "wishes": 8, "un": 20, "able": 25, "unable": 12,
              "believe": 18, "believer": 6, "believable": 8, "unbelievable": 3}
UNSEEN_WORD = "unbelievably"


def _lesson_word_counts() -> Lesson:
    alphabet = sorted({c for w in TOY_CORPUS for c in w})
    n_merges = 16
    run = bpe.train(TOY_CORPUS, len(alphabet) + n_merges, level="char", tie_break="first")
    tok = run.tokenizer()
    known = ["the", "foxes", "unable", "believable", "unbelievable"]
    pieces = {w: tok.encode_pieces(w) for w in known + [UNSEEN_WORD]}
    unseen = pieces[UNSEEN_WORD]
    missing = [c for c in UNSEEN_WORD if c not in alphabet]
    m0 = run.merges[0]

    def piece_chips(ps, p):
        ids = {t: i for i, t in run.vocab.items()}
        return "".join(_chip(x, bg=color_for(ids[x], p) if x in ids and len(x) > 1 else "#fff",
                             cls="" if x in ids else "cls-alert",
                             title="" if x in ids else "not in the alphabet") for x in ps)

    def d_corpus(p):
        chips = "".join(f'{_chip(w)}<span class="cls-note"> ×{n}</span> ' for w, n in TOY_CORPUS.items())
        return Visual(_step_div(f'<div class="cls-row">{chips}</div>'
                                + f'<div class="cls-note">{len(TOY_CORPUS)} words, {run.tokens_before} characters '
                                  f'counted with their frequencies; alphabet of {len(alphabet)} letters: '
                                  f'{_e(" ".join(alphabet))}</div>'),
                      facts={"words": len(TOY_CORPUS), "characters": run.tokens_before, "alphabet": alphabet})

    def d_merges(p):
        rows = "".join(
            f"<tr><td>{m.rank + 1}</td><td>{_chip(run.token(m.pair[0]))} + {_chip(run.token(m.pair[1]))}</td>"
            f"<td>{_chip(m.token, bg=color_for(m.id, p))}</td><td>{m.count}</td></tr>" for m in run.merges)
        half = (len(run.merges) + 1) // 2
        table = lambda rs: ('<table class="cls-table"><tr><th>#</th><th>pair</th><th>new</th><th>count</th></tr>'  # noqa: E731
                            + rs + "</table>")
        rows_list = rows.split("</tr>")[:-1]
        left = "</tr>".join(rows_list[:half]) + "</tr>"
        right = "</tr>".join(rows_list[half:]) + "</tr>"
        return Visual(_step_div(f'<div class="cls-cols"><div>{table(left)}</div><div>{table(right)}</div></div>'),
                      facts={"merges": [m.token for m in run.merges]})

    def d_known(p):
        rows = "".join(f"<tr><td>{_chip(w)}</td><td>{piece_chips(pieces[w], p)}</td><td>{len(pieces[w])}</td></tr>"
                       for w in known)
        return Visual(_step_div('<table class="cls-table"><tr><th>word</th><th>pieces</th><th>tokens</th></tr>'
                                + rows + "</table>"),
                      facts={"pieces": {w: pieces[w] for w in known}})

    def d_unseen(p):
        body = (f'<div class="cls-row"><span class="cls-rowlabel">unseen word</span>{_chip(UNSEEN_WORD)}</div>'
                f'<div class="cls-row"><span class="cls-rowlabel">tokens</span>{piece_chips(unseen, p)}'
                f'<span class="cls-n"><b>{len(unseen)}</b> tokens</span></div>')
        if missing:
            body += (f'<div class="cls-note">{_e(", ".join(repr(c) for c in missing))} never occurs in the corpus: '
                     f'at character level it stays a piece of its own (dashed). A byte-level tokenizer has all '
                     f'256 bytes, so nothing is ever unknown.</div>')
        return Visual(_step_div(body), facts={"pieces": unseen, "missing": missing})

    steps = (
        Step("A corpus of words with counts",
             "The classic toy: each word with how often it occurs. BPE starts from single letters and counts "
             "each pair as often as its word occurs.", d_corpus),
        Step(f"{n_merges} merges, learned in order",
             f"First `{run.token(m0.pair[0])}` + `{run.token(m0.pair[1])}` ({m0.count}×: `the` and `wishes`). "
             "Pieces like `un`, `able` and `believ` appear because many words share them. (Ties: first seen wins.)",
             d_merges),
        Step("Known words become few tokens",
             "To tokenize, start from letters and apply the merges in the order they were learned.", d_known),
        Step(f"A word never seen: {UNSEEN_WORD}",
             f"`{UNSEEN_WORD}` is not in the corpus, yet it splits into known pieces: "
             f"{' + '.join(f'`{x}`' for x in unseen)}. No 'unknown word' token is needed.", d_unseen),
    )
    return Lesson(3, "Words, counts and an unseen word",
                  "The word-frequency toy corpus: learned merges, then a word it never saw.", steps)


# ----------------------------------------------------------------------------------------------------
# Lesson 4 — why pre-tokenize

DOG_TEXT = " ".join(["dog dog. dog!"] * 3)


def _lesson_pretokenize() -> Lesson:
    n = 6
    plain = bpe.train(DOG_TEXT, 256 + n, pattern=None, tie_break="lexical")
    split = bpe.train(DOG_TEXT, 256 + n, pattern="gpt4", tie_break="lexical")
    chunks = bpe.pretokenize(DOG_TEXT, "gpt4")
    learned_plain = [_label(plain, m.id) for m in plain.merges]
    learned_split = [_label(split, m.id) for m in split.merges]
    glued = [t for t in learned_plain if "dog" in t and any(c in t for c in ".!")]

    def tokens_of(run, p):
        html_, ids = _spans_html(run.tokenizer(), DOG_TEXT, p)
        return html_, [_label(run, i) for i in ids]

    def learned_list(run, p):
        return "".join(_chip(_label(run, m.id), bg=color_for(m.id, p)) for m in run.merges)

    def d_plain(p):
        html_, toks = tokens_of(plain, p)
        return Visual(_step_div(f'<div class="cls-note">Learned tokens: {learned_list(plain, p)}</div>' + html_),
                      facts={"learned": learned_plain, "tokens": toks, "glued": glued})

    def d_chunks(p):
        chips = "".join(_chip(token_label(c.encode())) for c in chunks)
        return Visual(_step_div(f'<div class="cls-row">{chips}</div>'
                                f'<div class="cls-note">{len(chunks)} chunks; merges never cross a chunk '
                                f'boundary.</div>'), facts={"chunks": chunks})

    def d_side(p):
        left_html, left_toks = tokens_of(plain, p)
        right_html, right_toks = tokens_of(split, p)
        body = (f'<div class="cls-cols"><div><h4>No pre-tokenizer</h4>{learned_list(plain, p)}{left_html}</div>'
                f'<div><h4>GPT-4 regex first</h4>{learned_list(split, p)}{right_html}'
                f'<div class="cls-note">Stopped after {len(split.merges)} merges: {_e(split.stop_reason)}.</div>'
                f'</div></div>')
        return Visual(_step_div(body), facts={"learned_plain": learned_plain, "learned_split": learned_split,
                                              "tokens_plain": left_toks, "tokens_split": right_toks})

    steps = (
        Step("Without a pre-tokenizer",
             f"`dog dog. dog!` three times, {n} merges on the raw text. Words get glued to their neighbours "
             f"and punctuation: {', '.join(f'`{t}`' for t in glued)}.", d_plain),
        Step("A regex splits the text first",
             "GPT-4's pattern cuts words, punctuation and spaces into chunks; BPE runs inside each chunk.",
             d_chunks),
        Step("Side by side",
             f"With the regex only {', '.join(f'`{t}`' for t in learned_split)} are learned: `dog` is one "
             "word whatever follows it, and the punctuation stays its own token.", d_side),
    )
    return Lesson(4, "Why pre-tokenize", "dog, dog. and dog! should share one token for dog.", steps)


# ----------------------------------------------------------------------------------------------------
# Lesson 5 — merge order matters when encoding

def _lesson_order() -> Lesson:
    run = bpe.train("aab aab aab", 256 + 2, pattern=None, tie_break="lexical")
    names = letter_names(run)
    spelled = {m.id: _label(run, m.id) for m in run.merges}
    word = "aab"
    start = list(word.encode())
    m1, m2 = run.merges

    def apply(order):
        rows = [start]
        for m in order:
            rows.append(merge_ids(rows[-1], m.pair, m.id))
        return rows

    in_order = apply([m1, m2])
    out_of_order = apply([m2, m1])
    trace = run.tokenizer().encode_trace(word)

    def rule_chip(m, p):
        return (f'<span class="cls-t">#{m.rank + 1}: {_chip(_pair_text(m.pair, names))} → '
                f'{_chip(names[m.id], bg=lesson_colors(p)[m.rank])} '
                f'<span class="cls-note">({_e(spelled[m.id])})</span></span>')

    def colors(p):
        return {m.id: lesson_colors(p)[m.rank] for m in run.merges}

    def d_rules(p):
        body = f'<div class="cls-tally">{rule_chip(m1, p)}{rule_chip(m2, p)}</div>'
        return Visual(_step_div(body), facts={"merges": [f"{_pair_text(m.pair, names)} → {names[m.id]}"
                                                         for m in run.merges]})

    def d_apply(rows, order, p):
        body = _row(rows[0], names, colors=colors(p), label="start")
        for m, before, after in zip(order, rows, rows[1:]):
            changed = before != after
            new = {i for i, t in enumerate(after) if t == m.id} if changed else set()
            label = f"apply #{m.rank + 1}" + ("" if changed else " (nothing to merge)")
            body += _row(after, names, spelled=spelled, colors=colors(p), label=label, new=new,
                         faded=not changed, accent=accent_colors(p)["winner"])
        return body

    def d_in(p):
        return Visual(_step_div(d_apply(in_order, [m1, m2], p)),
                      facts={"result": [names[i] for i in in_order[-1]], "tokens": len(in_order[-1])})

    def d_out(p):
        return Visual(_step_div(d_apply(out_of_order, [m2, m1], p)),
                      facts={"result": [names[i] for i in out_of_order[-1]], "tokens": len(out_of_order[-1])})

    def d_trace(p):
        body = _row(list(trace[0].ids), names, colors=colors(p), label="start")
        for s in trace[1:]:
            body += _row(list(s.ids), names, spelled=spelled, colors=colors(p),
                         label=f"lowest rank: #{s.rank + 1}", new=set(s.positions), accent=accent_colors(p)["winner"])
        return Visual(_step_div(body), facts={"result": [names[i] for i in trace[-1].ids],
                                              "ranks": [s.rank for s in trace[1:]]})

    Z, Y = names[m1.id], names[m2.id]
    steps = (
        Step("Two merges, learned in this order",
             f"Training on `aab aab aab` learns #1 {_pair_text(m1.pair, names)} → {Z}, then "
             f"#2 {_pair_text(m2.pair, names)} → {Y}. Rule #2 needs the token {Z} that rule #1 makes.", d_rules),
        Step("In order: #1, then #2",
             f"`{word}` → {' '.join(names[i] for i in in_order[1])} → "
             f"{' '.join(names[i] for i in in_order[-1])}: {len(in_order[-1])} token.", d_in),
        Step("Out of order: #2, then #1",
             f"Rule #2 looks for {_pair_text(m2.pair, names)} but there is no {Z} yet, so nothing happens. Result: "
             f"{' '.join(names[i] for i in out_of_order[-1])} — {len(out_of_order[-1])} tokens, a merge missed.",
             d_out),
        Step("How an encoder gets it right",
             "It repeatedly merges the neighbouring pair that was learned earliest. That replays training's "
             "order, so the same text always gives the same tokens.", d_trace),
    )
    return Lesson(5, "Why merge order matters", "Apply the merges in the order they were learned.", steps)


# ----------------------------------------------------------------------------------------------------
# Lesson 6 — bytes, not characters

BYTES_TEXT = "Café 👋\nnaïve"


def _lesson_bytes() -> Lesson:
    text = BYTES_TEXT
    data = text.encode("utf-8")
    gpt4 = bpe.load_pretrained("cl100k_base")
    ids = gpt4.encode(text)
    visible = bpe.to_visible(data)
    space, newline, e_acute = bpe.to_visible(b" "), bpe.to_visible(b"\n"), bpe.to_visible("é".encode())

    def columns(bottom: Callable[[bytes], str]) -> str:
        """One column per character: the character on top, ``bottom(its bytes)`` below."""
        cols = []
        for ch in text:
            b = ch.encode("utf-8")
            cols.append(f'<div class="cls-col" data-char="{_e(ch)}" data-bytes="{len(b)}">'
                        f'<span class="cls-tok">{_e(token_label(b))}</span>'
                        f'<div class="cls-under">{bottom(b)}</div></div>')
        return f'<div class="cls-row cls-cols-row">{"".join(cols)}</div>'

    def d_chars(p):
        colors = lesson_colors(p)
        hex_chips = lambda b: "".join(_chip(f"{x:02X}", bg=colors[1] if len(b) > 1 else None) for x in b)  # noqa: E731
        body = (columns(hex_chips)
                + f'<div class="cls-big" data-counts="{len(text)},{len(data)}">{len(text)} characters'
                  f'<span class="cls-arrow">→</span>{len(data)} bytes</div>')
        return Visual(_step_div(body), facts={"characters": len(text), "bytes": len(data),
                                              "utf8": {ch: ch.encode().hex(" ").upper() for ch in text}})

    def d_visible(p):
        colors = lesson_colors(p)
        vis_chips = lambda b: "".join(  # noqa: E731
            f'<span class="cls-pairv">{_chip(f"{x:02X}")}<span>↓</span>'
            f'{_chip(bpe.to_visible(bytes([x])), bg=colors[1] if len(b) > 1 or x in (10, 32) else None)}</span>'
            for x in b)
        body = (columns(vis_chips)
                + f'<div class="cls-row"><span class="cls-rowlabel">as GPT-2 spells it</span>'
                  f'<span class="cls-tok" data-visible="{_e(visible)}">{_e(visible)}</span></div>')
        return Visual(_step_div(body), facts={"visible": visible, "space": space, "newline": newline})

    def d_gpt4(p):
        html_ = render_spans(spans_from_ids(gpt4, ids), palette=p, font_px=26)
        chips = " ".join(_chip(str(i), bg=color_for(i, p)) for i in ids)
        return Visual(_step_div(html_ + f'<div class="cls-row"><span class="cls-rowlabel">ids</span>{chips}</div>'
                                + _big([len(data), len(ids)], "tokens")),
                      facts={"ids": ids, "tokens": len(ids), "pieces": [token_label(gpt4.token_bytes(i)) for i in ids]})

    steps = (
        Step("Text is bytes",
             f"UTF-8 writes `a` as 1 byte, `é` as 2, `👋` as 4. Byte-level BPE starts from these bytes: a base "
             f"vocabulary of only 256 tokens.", d_chars),
        Step("GPT-2's visible bytes",
             f"Vocabulary files spell every byte as one printable character: space is "
             f"`{space}`, newline `{newline}`, `é` is `{e_acute}`.",
             d_visible),
        Step("GPT-4's tokens",
             "A token may hold part of a character: the emoji is split between two tokens (bytes in boxes). "
             "No text is ever unknown.", d_gpt4),
    )
    return Lesson(6, "Bytes, not characters", "UTF-8 bytes, GPT-2's Ġ and Ċ, emoji split across tokens.", steps)


# ----------------------------------------------------------------------------------------------------
# Lesson 7 — special tokens

CHAT_SNIPPET = "<|im_start|>user\nHi!<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n<|endoftext|>"
CHAT_SPECIALS = ("<|im_start|>", "<|im_end|>", "<|endoftext|>")


def _lesson_specials() -> Lesson:
    chat = (ROOT / "sample_texts" / "chat.txt").read_text(encoding="utf-8")
    n = 150
    with_specials = bpe.train(chat, 256 + n + len(CHAT_SPECIALS), pattern="gpt4", special_tokens=CHAT_SPECIALS)
    without = bpe.train(chat, 256 + n, pattern="gpt4")
    tok = with_specials.tokenizer()
    gpt4 = bpe.load_pretrained("cl100k_base")
    eot = "<|endoftext|>"
    eot_special = gpt4.encode(eot, allowed_special={eot})
    eot_plain = gpt4.encode_ordinary(eot)
    marker_chars = set("<|>")

    def touches(run):
        return [_label(run, m.id) for m in run.merges
                if any(c in marker_chars for c in _label(run, m.id)) or "im_" in _label(run, m.id)]

    def d_chat(p):
        html_, ids = _spans_html(tok, CHAT_SNIPPET, p, font_px=24)
        specials = [tok.token_text(i) for i in ids if tok.is_special(i)]
        legend = "".join(_chip(f"{s} = {i}", cls="cls-special") for s, i in with_specials.special_tokens.items())
        return Visual(_step_div(html_ + f'<div class="cls-note">Reserved ids: {legend}</div>'),
                      facts={"tokens": len(ids), "specials": specials,
                             "special_ids": dict(with_specials.special_tokens)})

    def d_gpt4(p):
        a = render_spans(spans_from_ids(gpt4, eot_special), palette=p, font_px=26)
        b = render_spans(spans_from_ids(gpt4, eot_plain), palette=p, font_px=26)
        body = (f'<div class="cls-cols"><div><h4>as the special token</h4>{a}'
                f'<div class="cls-note">id {", ".join(map(str, eot_special))} — 1 token</div></div>'
                f'<div><h4>as plain text</h4>{b}<div class="cls-note">ids {_e(", ".join(map(str, eot_plain)))} — '
                f'{len(eot_plain)} tokens</div></div></div>')
        return Visual(_step_div(body), facts={"special": eot_special, "plain": eot_plain,
                                              "plain_pieces": [token_label(gpt4.token_bytes(i)) for i in eot_plain]})

    def d_training(p):
        t_without = touches(without)
        t_with = touches(with_specials)
        chips = lambda ts: "".join(_chip(t) for t in ts) or '<span class="cls-note">none</span>'  # noqa: E731
        body = (f'<div class="cls-cols"><div><h4>markers as plain text</h4>{chips(t_without)}</div>'
                f'<div><h4>markers declared special</h4>{chips(t_with)}</div></div>'
                f'<div class="cls-note">Learned tokens containing <code>&lt;</code>, <code>|</code>, '
                f'<code>&gt;</code> or <code>im_</code>, after {n} merges on a chat transcript.</div>')
        return Visual(_step_div(body), facts={"without": t_without, "with": t_with})

    steps = (
        Step("Special tokens mark structure",
             "Chat models see markers for who speaks and where a text ends. Each marker is one token with a "
             "reserved id, never split.", d_chat),
        Step("Typed as text, a marker falls apart",
             f"In GPT-4 `{eot}` is id {eot_special[0]} only when the application allows it. Typed by a user "
             f"it is ordinary text: {len(eot_plain)} tokens.", d_gpt4),
        Step("Never merged in training",
             "Declared special, markers are cut out before counting pairs, so no merge learns pieces of them.",
             d_training),
    )
    return Lesson(7, "Special tokens", "<|endoftext|> and chat markers: reserved ids, never split.", steps)


# ----------------------------------------------------------------------------------------------------
# The registry

_BUILDERS: tuple[tuple[str, Callable[[], Lesson]], ...] = (
    ("Merging by hand: aaabdaaabac", _lesson_by_hand),
    ("Tokenization is compression", _lesson_compression),
    ("Words, counts and an unseen word", _lesson_word_counts),
    ("Why pre-tokenize", _lesson_pretokenize),
    ("Why merge order matters", _lesson_order),
    ("Bytes, not characters", _lesson_bytes),
    ("Special tokens", _lesson_specials),
)
#: Lesson titles, lesson 1 first (cheap: nothing is trained to list them).
LESSON_TITLES: tuple[str, ...] = tuple(t for t, _ in _BUILDERS)


def lesson_count() -> int:
    return len(_BUILDERS)


@lru_cache(maxsize=None)
def lesson(number: int) -> Lesson:
    """Lesson ``number`` (1-based), built once per process (lessons are immutable; drawing is per palette)."""
    if not 1 <= number <= len(_BUILDERS):
        raise ValueError(f"lesson must be 1..{len(_BUILDERS)}, not {number!r}")
    built = _BUILDERS[number - 1][1]()
    assert built.title == LESSON_TITLES[number - 1] and built.number == number
    return built
