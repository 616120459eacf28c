"""A lesson: a few steps, each one screen answering one question, drawn by a pure function.

A :class:`Lesson` is a few :class:`Step` s; each step has a title (the question it answers), one or two
short sentences (backquoted code and ``**bold**`` marks allowed, see :func:`inline_html`) and ``draw(palette)``,
which returns a :class:`Visual`: an HTML string and/or a plotly figure, plus the ``facts`` it shows (for
tests). :func:`step_html` draws a step's indicator, title and text; :data:`CLASSROOM_CSS` styles it all.

No Streamlit here; every piece of text that reaches HTML is escaped.

>>> step = Step("Why?", "Because `a<b`.", lambda palette: Visual("<p>drawn</p>", facts={"n": 1}))
>>> lesson = Lesson(9, "Demo", "A lesson of one step.", (step,))
>>> 'Step 1 / 1' in step_html(lesson, 0), step.draw("default").facts["n"]
(True, 1)
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import plotly.graph_objects as go

from ..quiz import QUIZ_CSS, Quiz
from ..theme import MONO

__all__ = ["Visual", "Step", "Lesson", "inline_html", "step_html", "CLASSROOM_CSS"]


@dataclass(frozen=True)
class Visual:
    """What a step shows: HTML (drawn with ``st.html``), a plotly figure, or both (HTML first)."""

    html: str = ""
    figure: go.Figure | None = None
    #: the numbers and tokens the step shows, machine-readable (for tests)
    facts: Mapping[str, Any] = field(default_factory=dict)


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


_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*([^*]+)\*\*")


def inline_html(text: str) -> str:
    """Plain text with ```code``` and ``**bold**`` marks -> escaped HTML.

    >>> inline_html("merge `a<b` **now**")
    'merge <code>a&lt;b</code> <b>now</b>'
    """
    out = html.escape(text, quote=True)
    out = _CODE.sub(lambda m: f"<code>{m.group(1)}</code>", out)
    return _BOLD.sub(lambda m: f"<b>{m.group(1)}</b>", out)


def step_html(lesson: Lesson, index: int) -> str:
    """The step indicator, title and text of step ``index`` (0-based) of a lesson."""
    step = lesson.steps[index]
    n = len(lesson.steps)
    return (
        f'<div class="cls-head" data-lesson="{lesson.number}" data-step="{index + 1}" data-steps="{n}">'
        f'<div class="cls-ind">Lesson {lesson.number} · {html.escape(lesson.title, quote=True)} — '
        f"<b>Step {index + 1} / {n}</b></div>"
        f'<div class="cls-title">{inline_html(step.title)}</div>'
        f'<div class="cls-text">{inline_html(step.text)}</div></div>'
    )


_LESSON_CSS = """
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
.cls-note{color:#333;font-size:.95em;margin:.2em 0;}
.cls-cols{display:grid;grid-template-columns:1fr 1fr;gap:2.5em;}
.cls-cols h4{margin:.2em 0 .4em 0;font-size:1.25em;color:#111;}
.cls-rules{margin:.4em 0;padding-left:1.2em;font-size:1.1em;}
.cls-rules li{margin:.2em 0;}
@media (max-width:640px){.cls-rowlabel{flex-basis:100%%;min-width:0;}.cls-cols{grid-template-columns:1fr;gap:1em;}}
</style>
""" % {"mono": MONO}

#: Everything a Classroom page needs: the lessons' styles and the quiz's.
CLASSROOM_CSS = _LESSON_CSS + QUIZ_CSS
