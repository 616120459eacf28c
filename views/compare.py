"""The Compare page's pieces as HTML and plotly: the verdict and diagnosis, the two merge lists aligned, the
two compression curves, and the text's tokens under both. Pure functions of a :class:`bpe.compare.Comparison`;
every token, name and message is escaped (a user's file names and tokens never reach Markdown).

>>> import bpe
>>> a = bpe.train("aaabdaaabac", 259, pattern=None)
>>> c = bpe.compare(a, bpe.train("aaabdaaabac", 259, pattern=None, tie_break="first"), text="aaabdaaabac")
>>> "Another tie rule" in verdict_html(c) and "cmp-diff" in aligned_html(c)
True
"""

from __future__ import annotations

import html
from typing import Sequence

import plotly.graph_objects as go

from bpe.compare import Comparison
from bpe.compare_causes import CATALOGUE, CAUSES, RULE_NAMES
from bpe.compare_inputs import LIST_FORMATS, MergeList, Pair

from .spans import token_label

__all__ = [
    "COMPARE_CSS",
    "verdict_html",
    "parting",
    "aligned_html",
    "curves_figure",
    "catalogue_html",
    "pair_html",
    "FORMATS_NOTE",
    "side_title_html",
]

FORMATS_NOTE = (
    "Upload your merges as " + LIST_FORMATS + ". Byte strings in a JSON list are read as latin-1 "
    '(each character U+0000–U+00FF is one byte) unless the file says "encoding": "hex". '
    "Files are read, never unpickled."
)
#: Rows of the aligned lists shown (around the first difference).
ALIGNED_ROWS = 60

COMPARE_CSS = """
<style>
.cmp-verdict{font-size:1.35rem;font-weight:650;margin:.2rem 0 .4rem 0;color:#111;}
.cmp-verdict.cmp-same{color:#17452a;}
.cmp-box{border:1px solid #ddd;border-radius:8px;padding:.7rem 1rem;margin:.4rem 0;background:#fafafa;color:#111;}
.cmp-pairs{display:grid;grid-template-columns:auto 1fr;gap:.25rem .8rem;align-items:center;font-size:1.05rem;}
.cmp-tok{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#eef2ff;border:1px solid #c7d2fe;
 border-radius:4px;padding:0 .3em;white-space:pre;}
.cmp-cause{font-size:1.15rem;font-weight:650;margin:.3rem 0;}
.cmp-example{font-size:.95rem;color:#333;border-left:3px solid #bbb;padding-left:.6rem;margin:.3rem 0;}
.cmp-evidence{font-size:.9rem;color:#444;}
.cmp-table{border-collapse:collapse;width:100%;font-size:.95rem;}
.cmp-table td,.cmp-table th{padding:.15rem .5rem;border-bottom:1px solid #eee;text-align:left;vertical-align:top;}
.cmp-table tr.cmp-diff td{background:#fff1f0;}
.cmp-table tr.cmp-only td{background:#fff8e1;}
.cmp-table tr.cmp-first td{outline:2px solid #b42318;}
.cmp-status{font-size:.8rem;color:#555;white-space:nowrap;}
.cmp-scroll{max-height:26rem;overflow:auto;}
.cmp-side{font-weight:650;margin:.2rem 0;overflow-wrap:anywhere;}
@media (max-width:640px){.cmp-verdict{font-size:1.15rem;}.cmp-table{font-size:.85rem;}}
</style>
"""


def _tok(t: bytes) -> str:
    return f'<span class="cmp-tok">{html.escape(token_label(t))}</span>'


def pair_html(pair: Pair | None) -> str:
    """Two tokens as chips joined by +, or a dash for no pair."""
    return "—" if pair is None else f"{_tok(pair[0])} + {_tok(pair[1])}"


def side_title_html(label: str, name: str) -> str:
    """``A: name`` (escaped)."""
    return f'<div class="cmp-side">{html.escape(label)}: {html.escape(name)}</div>'


def _count(n: int | None) -> str:
    return "not made yet at this point" if n is None else f"{n:,} times"


def _tie_sentence(c: Comparison) -> str:
    d = c.first
    if d is None or d.a_pair is None or d.b_pair is None:
        return ""
    if d.b_count is None:
        return "B's pair joins a token A had not made by then: B's earlier merges differ in what they built."
    if d.a_count is None:
        return ""
    if d.tied:
        a_rules = [RULE_NAMES[r] for r, side in d.picks.items() if side == "A"]
        b_rules = [RULE_NAMES[r] for r, side in d.picks.items() if side == "B"]
        out = f"A tie: both occur {d.a_count:,} times at this point, so the tie rule decides."
        if a_rules:
            out += f" A's pair is what these rules pick: {'; '.join(a_rules)}."
        if b_rules:
            out += f" B's pair is what these pick: {'; '.join(b_rules)}."
        return out
    if d.b_count < d.a_count:
        return (
            f"No tie: B's pair was not the most frequent at all ({d.b_count:,} against {d.a_count:,}), so B "
            "counts pairs differently from A, or on a different text."
        )
    return (
        f"B's pair occurs more often ({d.b_count:,} against {d.a_count:,}) in A's counting, yet A merged its own: "
        "A's trainer counts differently from plain occurrences (see the cause below)."
    )


def parting(equal: int, number: int) -> str:
    """Where two merge lists part, in words: ``equal`` merges in common, ``number`` the first that differs.

    >>> parting(0, 1)
    'They part at the very first merge.'
    >>> parting(1, 2)
    'They agree on the first merge; merge 2 is where they part.'
    >>> parting(1200, 1201)
    'They agree on the first 1,200 merges; merge 1,201 is where they part.'
    """
    if equal == 0:
        return "They part at the very first merge."
    first = "the first merge" if equal == 1 else f"the first {equal:,} merges"
    return f"They agree on {first}; merge {number:,} is where they part."


def _stopped(side: str, merges: MergeList) -> str:
    """Why a side trained here stopped early (its run's stop reason), or ""."""
    reason = merges.run.stop_reason if merges.run is not None else ""
    return "" if not reason or reason == "reached the vocabulary size" else f" {side} stopped: {reason}."


def verdict_html(c: Comparison) -> str:
    """The answer first: identical for all N merges, or where they part, both candidates with their counts,
    the tie and the rules, then the most likely mistake from the catalogue with its example and evidence.

    >>> import bpe
    >>> a = bpe.train("aaabdaaabac", 259, pattern=None)
    >>> b = bpe.train("aaabdaaabac", 259, pattern=None, min_frequency=9)
    >>> print(verdict_html(bpe.compare(a, b)).split("</style>")[-1].strip())
    <div class="cmp-verdict cmp-same" data-cause="identical">B learned no merge, A 3: nothing to compare. B stopped: the best pair occurs 4 times, below min_frequency=9.</div>
    """
    na, nb = len(c.a.pairs), len(c.b.pairs)
    if c.first is None:
        why = _stopped("A", c.a) if na < nb else _stopped("B", c.b) if nb < na else ""
        if not min(na, nb):
            empty, other = ("A", "B") if not na else ("B", "A")
            said = f"{empty} learned no merge, {other} {max(na, nb):,}: nothing to compare.{why}"
            return COMPARE_CSS + f'<div class="cmp-verdict cmp-same" data-cause="identical">{html.escape(said)}</div>'
        tail = "" if na == nb else (f" (A has {na - nb:,} more)" if na > nb else f" (B has {nb - na:,} more)")
        return (
            COMPARE_CSS + f'<div class="cmp-verdict cmp-same" data-cause="identical">Identical for all '
            f"{min(na, nb):,} merges{html.escape(tail)}.{html.escape(why)}</div>"
        )
    d = c.first
    out = [
        COMPARE_CSS,
        f'<div class="cmp-verdict" data-cause="{html.escape(c.cause)}" data-first="{d.number}">'
        f"{parting(c.equal, d.number)}</div>",
        '<div class="cmp-box cmp-first"><div class="cmp-pairs">',
        f"<b>A merges</b><span>{pair_html(d.a_pair)} &nbsp;·&nbsp; {_count(d.a_count)}</span>",
        f"<b>B merges</b><span>{pair_html(d.b_pair)} &nbsp;·&nbsp; {_count(d.b_count)} in A's counts</span>",
        "</div>",
    ]
    tie = _tie_sentence(c)
    if tie:
        out.append(f"<p>{html.escape(tie)}</p>")
    out.append("</div>")
    entry = CATALOGUE[c.cause]
    out.append(
        f'<div class="cmp-box cmp-diagnosis"><div class="cmp-cause">Most likely: {html.escape(entry.title)}'
        f"</div><p>{html.escape(entry.explanation)}</p>"
        f'<div class="cmp-example">Tiny example: {html.escape(entry.example)}</div>'
    )
    if c.best is not None:
        cut = " (it stopped early: the text is long)" if c.best.cut else ""
        out.append(
            f'<p class="cmp-evidence">Evidence: A\'s trainer with {html.escape(c.best.label)} reproduces B '
            f"for {c.best.agree:,} merges{cut}; A's own settings, {c.equal:,}.</p>"
        )
    out.append("</div>")
    return "".join(out)


def aligned_html(c: Comparison, rows: int = ALIGNED_ROWS) -> str:
    """The two lists side by side (same / different / only in one), from a few merges before the first
    difference; a different pair says where the other list has it, if it does."""
    where_a = {p: i + 1 for i, p in enumerate(c.a.pairs)}
    where_b = {p: i + 1 for i, p in enumerate(c.b.pairs)}
    table = c.aligned()
    start = max(0, c.equal - 3)
    shown = table[start : start + rows]
    out = [
        '<div class="cmp-scroll"><table class="cmp-table"><thead><tr><th>#</th><th>A</th><th>B</th><th>'
        "</th></tr></thead><tbody>"
    ]
    for number, pa, pb, status in shown:
        cls = {"same": "", "different": "cmp-diff", "only A": "cmp-only", "only B": "cmp-only"}[status]
        if c.first is not None and number == c.first.number:
            cls += " cmp-first"
        note = status
        if status == "different":
            elsewhere = [
                f"A has B's at #{where_a[pb]:,}" if pb in where_a else "",
                f"B has A's at #{where_b[pa]:,}" if pa in where_b else "",
            ]
            note += "".join(f"; {e}" for e in elsewhere if e)
        out.append(
            f'<tr class="{cls.strip()}" data-status="{status}"><td>{number:,}</td><td>{pair_html(pa)}</td>'
            f'<td>{pair_html(pb)}</td><td class="cmp-status">{html.escape(note)}</td></tr>'
        )
    out.append("</tbody></table></div>")
    hidden_before, hidden_after = start, len(table) - start - len(shown)
    if hidden_before or hidden_after:
        out.append(
            f'<div class="cmp-status">Showing merges {start + 1:,}–{start + len(shown):,} of {len(table):,} '
            f"({sum(1 for r in table if r[3] == 'same'):,} the same in all).</div>"
        )
    return "".join(out)


def curves_figure(
    a_counts: Sequence[int],
    b_counts: Sequence[int],
    n_bytes: int,
    *,
    k: int | None = None,
    palette: str = "default",
    height: int = 360,
) -> go.Figure:
    """Bytes per token after each merge, A solid and B dashed, on one chart; a line at merge ``k``.

    >>> f = curves_figure([4, 2], [4, 3], 4)
    >>> [list(t.y) for t in f.data]
    [[1.0, 2.0], [1.0, 1.3333333333333333]]
    """
    colors = {"default": ("#1f77b4", "#d62728"), "okabe_ito": ("#0072B2", "#D55E00")}.get(
        palette, ("#1f77b4", "#d62728")
    )
    fig = go.Figure()
    for name, counts, color, dash in (("A", a_counts, colors[0], "solid"), ("B", b_counts, colors[1], "dash")):
        fig.add_trace(
            go.Scatter(
                x=list(range(len(counts))),
                y=[n_bytes / max(1, n) for n in counts],
                name=name,
                mode="lines",
                line=dict(color=color, dash=dash, width=3),
                hovertemplate="%{y:.2f} bytes per token after %{x} merges<extra>" + name + "</extra>",
            )
        )
    if k is not None:
        fig.add_vline(x=k, line=dict(color="#888", width=1, dash="dot"))
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=10, b=10),
        plot_bgcolor="white",
        font=dict(size=15, color="#111"),
        legend=dict(orientation="h", yanchor="bottom", y=0.02, x=0.98, xanchor="right"),
        xaxis=dict(title=dict(text="merges"), fixedrange=True, gridcolor="#e5e5e5"),
        yaxis=dict(title=dict(text="bytes per token"), fixedrange=True, gridcolor="#e5e5e5", rangemode="tozero"),
    )
    return fig


def catalogue_html() -> str:
    """Every cause the page may name, with its paragraph and tiny example."""
    items = "".join(
        f'<div class="cmp-box" data-cause="{name}"><div class="cmp-cause">{html.escape(CATALOGUE[name].title)}'
        f"</div><p>{html.escape(CATALOGUE[name].explanation)}</p>"
        f'<div class="cmp-example">{html.escape(CATALOGUE[name].example)}</div></div>'
        for name in CAUSES
        if name != "identical"
    )
    return COMPARE_CSS + items
