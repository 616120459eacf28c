"""The compression curve: bytes per token against merges, for the training text and a held-out text.

The one compression chart of the app (the Classroom's lesson 2 draws it; the merge player draws its own
curve in the browser from the same counts). The counts come from the library: ``Run.token_counts()`` for
the training text, :func:`bpe.replay.heldout_token_counts` for the held-out one.
"""

from __future__ import annotations

from typing import Sequence

import plotly.graph_objects as go

__all__ = ["compression_curve_figure"]

#: Line colors of the compression curve per palette: (training, held-out).
_CURVE_COLORS = {"default": ("#1f77b4", "#2ca02c"), "okabe_ito": ("#0072B2", "#E69F00")}


def compression_curve_figure(
    train_counts: Sequence[int],
    train_bytes: int,
    held_counts: Sequence[int],
    held_bytes: int,
    *,
    palette: str = "default",
    height: int = 420,
) -> go.Figure:
    """Bytes per token against merges for the training text (solid) and held-out text (dashed).

    >>> f = compression_curve_figure([4, 2], 4, [2, 2], 2)
    >>> [list(t.y) for t in f.data]
    [[1.0, 2.0], [1.0, 1.0]]
    """
    train_c, held_c = _CURVE_COLORS.get(palette, _CURVE_COLORS["default"])
    xs = list(range(len(train_counts)))
    fig = go.Figure()
    for name, counts, nbytes, color, dash in (
        ("training text", train_counts, train_bytes, train_c, "solid"),
        ("held-out text", held_counts, held_bytes, held_c, "dash"),
    ):
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=[nbytes / max(1, c) for c in counts],
                name=name,
                mode="lines",
                line=dict(color=color, dash=dash, width=4),
                hovertemplate="%{y:.2f} bytes per token after %{x} merges<extra>" + name + "</extra>",
            )
        )
    fig.update_layout(
        height=height,
        margin=dict(l=10, r=10, t=10, b=10),
        plot_bgcolor="white",
        font=dict(size=16, color="#111"),
        legend=dict(
            orientation="h",
            yanchor="bottom",
            y=0.02,
            x=0.98,
            xanchor="right",
            bgcolor="rgba(255,255,255,.85)",
            font=dict(size=16, color="#111"),
        ),
        xaxis=dict(
            title=dict(text="merges", font=dict(size=17, color="#111")),
            fixedrange=True,
            gridcolor="#e5e5e5",
            tickfont=dict(size=15, color="#222"),
        ),
        yaxis=dict(
            title=dict(text="bytes per token", font=dict(size=17, color="#111")),
            fixedrange=True,
            gridcolor="#e5e5e5",
            rangemode="tozero",
            tickfont=dict(size=15, color="#222"),
        ),
    )
    return fig
