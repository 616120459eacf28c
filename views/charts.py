"""Plotly figures for the merge player: pair counts before a merge, and compression against merges.

Pure functions (no Streamlit): a run and a step in, a ``plotly.graph_objects.Figure`` out, with a fixed
height so the page does not jump while the player runs.
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Sequence

import plotly.graph_objects as go
import plotly.io as pio

from .spans import token_label
from .theme import accent_colors

__all__ = ["pair_label", "pair_counts_figure", "compression_figure", "pair_counts_json", "compression_json",
           "downsample", "PAIR_CHART_HEIGHT", "COMPRESSION_CHART_HEIGHT"]

PAIR_CHART_HEIGHT = 460
#: tick-label marks: the winner, pairs tied with it, the others
MARKS = {"winner": "▶", "tie": "=", "": " "}
COMPRESSION_CHART_HEIGHT = 440
_FONT = "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace"


def _as_bytes(t) -> bytes:
    return t if isinstance(t, bytes) else t.encode("utf-8")


def pair_label(run, pair: tuple[int, int]) -> str:
    """A pair in visible form: ``"t" + "h"``, whitespace as ``·`` ``→`` ``↵``, partial bytes as ``<E2>``.

    >>> import bpe
    >>> run = bpe.train("hello hello", 258, pattern=None)
    >>> pair_label(run, (32, 104))
    '"·" + "h"'
    """
    a, b = pair
    return f'"{token_label(_as_bytes(run.token(a)))}" + "{token_label(_as_bytes(run.token(b)))}"'


# Each chart is built as plain ``(data, layout)`` dicts. Building a plotly ``Figure`` object costs ~15-20 ms
# (property validation, template copies) - most of a player frame - so the player sends the dicts as JSON
# (``*_json``, the default template attached), and the ``*_figure`` functions wrap the same dicts in a
# Figure for everyone else (tests, st.plotly_chart).

@lru_cache(maxsize=1)
def _template() -> dict:
    return pio.templates[pio.templates.default].to_plotly_json()


def _as_figure(parts: tuple[list, dict]) -> go.Figure:
    data, layout = parts
    return go.Figure(dict(data=data, layout=layout), _validate=False)


def _as_json(parts: tuple[list, dict]) -> str:
    data, layout = parts
    return json.dumps({"data": data, "layout": {**layout, "template": _template()}})


def _empty(message: str, height: int) -> tuple[list, dict]:
    return [], dict(height=height, xaxis=dict(visible=False), yaxis=dict(visible=False),
                    margin=dict(l=10, r=10, t=30, b=10),
                    annotations=[dict(text=message, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper",
                                      font=dict(size=16, color="#666"))])


def pair_counts_figure(run, k: int, *, palette: str = "default", top: int = 20,
                       height: int = PAIR_CHART_HEIGHT) -> go.Figure:
    """The pair-count chart at step ``k`` as a plotly Figure (see :func:`_pair_counts_parts`)."""
    return _as_figure(_pair_counts_parts(run, k, palette=palette, top=top, height=height))


def pair_counts_json(run, k: int, *, palette: str = "default", top: int = 20,
                     height: int = PAIR_CHART_HEIGHT) -> str:
    """The same chart as plotly JSON, built without plotly's objects (fast enough for every frame)."""
    return _as_json(_pair_counts_parts(run, k, palette=palette, top=top, height=height))


def _pair_counts_parts(run, k: int, *, palette: str, top: int, height: int) -> tuple[list, dict]:
    """The most frequent pairs just before the merge shown at step ``k``.

    Step ``k`` shows the state after ``k`` merges; its chart is the one that decided merge ``k`` (rank
    ``k - 1``): the winner in the winner color and marked ``▶``, pairs tied with it in the tie color and
    marked ``=``. At ``k == 0`` it is the chart that will decide the first merge. Bars go best first from
    the top; each tick label is the mark, the pair and its count; ``customdata`` holds each bar's
    ``[left id, right id, role]`` with role ``"winner"``, ``"tie"`` or ``""``.

    Drawn with as little text as possible (no bar labels, no title): Streamlit mounts a new plotly chart
    at every step, and text measuring is most of a mount's cost.
    """
    if not run.merges:
        return _empty("No pair of tokens: nothing to merge.", height)
    k = max(0, min(k, len(run.merges)))
    upcoming = k == 0
    merge = run.merges[0] if upcoming else run.merges[k - 1]
    colors = accent_colors(palette)
    tied = set(merge.ties)
    pairs = list(merge.top_pairs[:top])
    labels = [pair_label(run, p) for p, _ in pairs]
    width = max(len(lab) for lab in labels)
    counts, bar_colors, custom, ticks = [], [], [], []
    for lab, (pair, count) in zip(labels, pairs):
        counts.append(count)
        if pair == merge.pair:
            role, color = "winner", colors["winner"]
        elif pair in tied or count == merge.count:
            role, color = "tie", colors["tie"]
        else:
            role, color = "", colors["other"]
        custom.append([pair[0], pair[1], role])
        bar_colors.append(color)
        ticks.append(f"{MARKS[role]} {lab:<{width}} {count:>7,}")
    y = list(range(len(pairs)))
    bar = dict(
        type="bar", x=counts, y=y, orientation="h", customdata=custom, width=0.78,
        marker=dict(color=bar_colors),
        hovertext=[f"{lab}: {c:,} times" + (" (merged)" if r[2] == "winner" else " (tie)" if r[2] == "tie" else "")
                   for lab, c, r in zip(labels, counts, custom)], hoverinfo="text",
    )
    layout = dict(
        height=height, margin=dict(l=28, r=16, t=10, b=40), showlegend=False,
        xaxis=dict(title=dict(text=("count now: the top pair is merged first" if upcoming
                                    else f"count just before merge {k}"), font=dict(size=13)),
                   range=[0, max(counts) * 1.05], fixedrange=True, gridcolor="#eee", automargin=True),
        # best pair on top; a fixed number of rows so bars keep their size from step to step
        yaxis=dict(tickmode="array", tickvals=y, ticktext=ticks, autorange=False, fixedrange=True,
                   range=[max(top, len(pairs)) - 0.5, -0.5], tickfont=dict(family=_FONT, size=14),
                   automargin=True),
        bargap=0.22, plot_bgcolor="white",
    )
    return [bar], layout


def downsample(n: int, points: int = 300, always: Sequence[int] = ()) -> list[int]:
    """About ``points`` step numbers spread evenly over ``0..n``, with 0, ``n`` and ``always`` included.

    >>> downsample(10, 4)
    [0, 3, 6, 9, 10]
    >>> downsample(3, 100)
    [0, 1, 2, 3]
    """
    if n <= points:
        xs = set(range(n + 1))
    else:
        stride = -(-n // points)
        xs = set(range(0, n + 1, stride))
        xs.add(n)
    xs.update(x for x in always if 0 <= x <= n)
    return sorted(xs)


def compression_figure(train_counts: Sequence[int], train_bytes: int, k: int, *,
                       heldout_counts: Sequence[int] | None = None, heldout_bytes: int = 0,
                       metric: str = "bytes_per_token", palette: str = "default",
                       height: int = COMPRESSION_CHART_HEIGHT, points: int = 300) -> go.Figure:
    """The compression chart as a plotly Figure (see :func:`_compression_parts`)."""
    return _as_figure(_compression_parts(train_counts, train_bytes, k, heldout_counts=heldout_counts,
                                         heldout_bytes=heldout_bytes, metric=metric, palette=palette,
                                         height=height, points=points))


def compression_json(train_counts: Sequence[int], train_bytes: int, k: int, *,
                     heldout_counts: Sequence[int] | None = None, heldout_bytes: int = 0,
                     metric: str = "bytes_per_token", palette: str = "default",
                     height: int = COMPRESSION_CHART_HEIGHT, points: int = 300) -> str:
    """The same chart as plotly JSON, built without plotly's objects."""
    return _as_json(_compression_parts(train_counts, train_bytes, k, heldout_counts=heldout_counts,
                                       heldout_bytes=heldout_bytes, metric=metric, palette=palette,
                                       height=height, points=points))


def _compression_parts(train_counts: Sequence[int], train_bytes: int, k: int, *,
                       heldout_counts: Sequence[int] | None, heldout_bytes: int, metric: str, palette: str,
                       height: int, points: int) -> tuple[list, dict]:
    """Bytes per token (or tokens) against merges, for the training and the held-out text, step ``k`` marked.

    ``train_counts[j]`` is the training text's token count after ``j`` merges (``run.token_counts()``);
    ``heldout_counts`` the same for held-out text. ``metric`` is ``"bytes_per_token"`` or ``"tokens"``.
    Long runs are drawn at about ``points`` steps (the current step always included), so a frame stays
    small; one set of axes keeps the chart cheap to mount at every step.
    """
    if metric not in ("bytes_per_token", "tokens"):
        raise ValueError(f"metric must be 'bytes_per_token' or 'tokens', not {metric!r}")
    n = len(train_counts) - 1
    k = max(0, min(k, n))
    colors = accent_colors(palette)
    xs = downsample(n, points, (k,))
    series = [("training text", train_counts, train_bytes, "#1f77b4", "solid")]
    if heldout_counts is not None and len(heldout_counts) == len(train_counts) and heldout_bytes:
        series.append(("held-out text", heldout_counts, heldout_bytes, "#2ca02c", "dash"))
    data: list[dict] = []
    per_token = metric == "bytes_per_token"
    for name, counts, nbytes, color, dash in series:
        value = (lambda j, c=counts, b=nbytes: b / max(1, c[j])) if per_token else (lambda j, c=counts: c[j])
        data.append(dict(
            type="scatter", x=xs, y=[value(x) for x in xs], name=name, mode="lines", line=dict(color=color, dash=dash, width=2.5),
            hovertemplate=("%{y:.2f} bytes per token" if per_token else "%{y:,} tokens")
            + " after %{x} merges<extra>" + name + "</extra>"))
        data.append(dict(type="scatter", x=[k], y=[value(k)], mode="markers", showlegend=False, hoverinfo="skip",
                                 name=f"{name} now",
                                 marker=dict(size=12, color=color, line=dict(color="white", width=2))))
    layout = dict(
        height=height, margin=dict(l=10, r=10, t=10, b=40), plot_bgcolor="white",
        legend=dict(orientation="h", yanchor="bottom", y=0.01, x=0.99, xanchor="right",
                    bgcolor="rgba(255,255,255,.8)"),
        shapes=[dict(type="line", x0=k, x1=k, y0=0, y1=1, yref="paper",
                     line=dict(color=colors["marker"], width=2, dash="dot"))],
        xaxis=dict(title=dict(text="merges", font=dict(size=13)), range=[0, max(1, n)], fixedrange=True,
                   gridcolor="#eee", automargin=True),
        yaxis=dict(title=dict(text="bytes per token" if per_token else "tokens", font=dict(size=13)),
                   fixedrange=True, gridcolor="#eee", rangemode="tozero", automargin=True),
    )
    if not per_token:
        layout["legend"] = {**layout["legend"], "yanchor": "top", "y": 0.99}
    return data, layout
