"""Views for the Token tax page: one parallel text, many vocabularies, read at a glance.

* :func:`tax_figure` — a heatmap, languages down, vocabularies across, one number in every cell (the premium
  over English by default: how many times more tokens the same content costs), every number on hover;
* :func:`tax_table` — the same metric as a table (one row per language), :func:`records_frame` — every
  number, one row per (vocabulary, language), for the download;
* :func:`language_order` — the languages sorted by their mean premium, or as the corpus lists them.

Premiums are drawn on a log scale around 1× (white): blue cheaper than English, red dearer, so 2× and
0.5× are equally far from white. No Streamlit here.

>>> import bpe
>>> texts = [bpe.ParallelText("en", "English", "Hello world"), bpe.ParallelText("el", "Greek", "Γεια σου κόσμε")]
>>> tax = bpe.token_tax({"GPT-4": bpe.load_pretrained("cl100k_base")}, texts)
>>> fig = tax_figure(tax, texts)
>>> fig.data[0].text.tolist() if hasattr(fig.data[0].text, "tolist") else list(fig.data[0].text)
[['1.0×'], ['6.0×']]
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import pandas as pd
import plotly.graph_objects as go

import bpe
from bpe.token_tax import METRICS, ParallelText, TokenTax

__all__ = [
    "METRIC_CHOICES",
    "language_label",
    "language_order",
    "tax_figure",
    "tax_table",
    "records_frame",
    "cell_text",
    "premium_scale",
    "ROW_PX",
    "MIN_CHART_PX",
    "PHONE_PX",
    "TAX_CSS",
]

#: The metrics the page offers, in order, with a short label and what a cell's color means.
METRIC_CHOICES: Mapping[str, tuple[str, str]] = {
    "premium": ("Premium vs. English", "times the tokens English needs for the same content (1× = as English)"),
    "tokens": ("Tokens", "tokens for the whole text"),
    "bytes_per_token": ("Bytes per token", "UTF-8 bytes per token: more is better compression"),
    "tokens_per_word": (
        "Tokens per word",
        "tokens per space-separated word (not for Chinese, Japanese, Thai, Burmese, Amharic)",
    ),
    "tokens_per_char": ("Tokens per character", "tokens per Unicode character"),
}
#: Height of one heatmap row, px (a projector row: 1.4×).
ROW_PX = 30
#: The full chart never gets narrower than this; below :data:`PHONE_PX` the compact one is shown instead.
MIN_CHART_PX = 760
#: Screens up to this wide (a phone) get the compact chart (``compact=True``): it fits their width.
PHONE_PX = 640
#: The page's style for the two chart boxes (Streamlit keys give them the classes ``st-key-tax_chart_box``
#: and ``st-key-tax_chart_phone_box``): the full chart on wider screens, the compact one on a phone.
TAX_CSS = (
    "<style>.st-key-tax_chart_box{overflow-x:auto;}"
    f".st-key-tax_chart_box .st-key-tax_chart{{min-width:{MIN_CHART_PX}px;}}"
    ".st-key-tax_chart_phone_box{display:none;}"
    f"@media (max-width:{PHONE_PX}px){{.st-key-tax_chart_box{{display:none;}}"
    ".st-key-tax_chart_phone_box{display:flex;}}</style>"
)
_BLUE, _LIGHT_BLUE, _WHITE, _ORANGE, _RED = "#2166ac", "#67a9cf", "#f7f7f7", "#ef8a62", "#b2182b"
_COSTLY = [[0.0, "#fff5f0"], [0.5, "#fb6a4a"], [1.0, "#67000d"]]  # light = cheap, dark = costly


def premium_scale(low: float, high: float) -> list[list]:
    """A colorscale for log2 premiums from ``low`` (< 0) to ``high`` (> 0): blue below 1×, white at 1×, red
    above, each side as deep as its own extreme (so a chart with nothing below 0.5× is mostly red).

    >>> premium_scale(-1.0, 3.0)[2]
    [0.25, '#f7f7f7']
    """
    mid = -low / (high - low)
    return [[0.0, _BLUE], [mid / 2, _LIGHT_BLUE], [mid, _WHITE], [mid + (1 - mid) / 2, _ORANGE], [1.0, _RED]]


def _texts(texts: "Sequence[ParallelText] | bpe.ParallelCorpus") -> dict[str, ParallelText]:
    items = texts.texts if isinstance(texts, bpe.ParallelCorpus) else texts
    return {t.code: t for t in items}


def language_label(t: ParallelText) -> str:
    """``German · Deutsch``; the English name alone when the native one is the same or missing.

    >>> language_label(ParallelText("de", "German", "x", native="Deutsch")), language_label(ParallelText("en", "English", "x"))
    ('German · Deutsch', 'English')
    """
    return f"{t.name} · {t.native}" if t.native and t.native != t.name else t.name


def language_order(tax: TokenTax, order: str = "premium") -> list[str]:
    """Language codes: ``"premium"`` — dearest first by mean premium over the vocabularies (the baseline
    first, then the rest); ``"corpus"`` — as the corpus lists them."""
    if order == "corpus":
        return list(tax.languages)
    if order != "premium":
        raise ValueError(f"unknown order {order!r}; choose 'premium' or 'corpus'")

    def mean(code: str) -> float:
        values = [tax.cell(v, code).premium for v in tax.vocabularies]
        values = [x for x in values if x is not None]
        return sum(values) / len(values) if values else -1.0

    rest = sorted((c for c in tax.languages if c != tax.baseline), key=mean, reverse=True)
    return [tax.baseline, *rest]


def cell_text(value: float | int | None, metric: str) -> str:
    """A cell's number as shown: ``2.3×``, ``1,204``, ``3.10``; ``—`` when there is none.

    >>> cell_text(2.345, "premium"), cell_text(1204, "tokens"), cell_text(3.1, "bytes_per_token"), cell_text(None, "tokens")
    ('2.3×', '1,204', '3.10', '—')
    """
    if value is None:
        return "—"
    if metric == "premium":
        return f"{value:.1f}×" if value < 9.95 else f"{value:.0f}×"
    if metric == "tokens":
        return f"{int(value):,}"
    return f"{value:.2f}"


def _hover_rows(tax: TokenTax, codes: Sequence[str]) -> list[list[list[str]]]:
    rows = []
    for code in codes:
        row = []
        for v in tax.vocabularies:
            c = tax.cell(v, code)
            if c.error:
                row.append(["cannot encode", "—", "—", "—", "—", c.error[:120]])
                continue
            row.append(
                [
                    cell_text(c.tokens, "tokens"),
                    cell_text(c.premium, "premium"),
                    cell_text(c.bytes_per_token, "bytes_per_token"),
                    cell_text(c.tokens_per_word, "tokens_per_word"),
                    cell_text(c.tokens_per_char, "tokens_per_char"),
                    "",
                ]
            )
        rows.append(row)
    return rows


def tax_figure(
    tax: TokenTax,
    texts: "Sequence[ParallelText] | bpe.ParallelCorpus",
    metric: str = "premium",
    *,
    order: str = "corpus",
    row_px: int = ROW_PX,
    font_size: int = 13,
    compact: bool = False,
) -> go.Figure:
    """The heatmap: rows = languages (in ``order``), columns = vocabularies, the metric in every cell.

    Premium uses a log2 scale centered on 1× (white); the other metrics a light-to-dark scale where dark is
    costly (more tokens, or fewer bytes per token). Hover shows every number of the cell.

    ``compact``: for a phone (~360 px), every vocabulary and the scale in view: languages by their English
    name, vocabulary names upright, smaller numbers, the color scale under the chart, a short title.
    """
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; choose one of: {', '.join(METRICS)}")
    by_code = _texts(texts)
    codes = language_order(tax, order)
    labels = [(by_code[c].name if compact else language_label(by_code[c])) if c in by_code else c for c in codes]
    if compact:
        font_size = min(font_size, 10)
    raw = [[getattr(tax.cell(v, c), metric) for v in tax.vocabularies] for c in codes]
    text = [
        [cell_text(x, metric) if not tax.cell(v, c).error else "error" for x, v in zip(row, tax.vocabularies)]
        for row, c in zip(raw, codes)
    ]
    if metric == "premium":
        z = [[math.log2(x) if x else None for x in row] for row in raw]
        values = [x for row in z for x in row if x is not None]
        # from the cheapest to the dearest cell, never narrower than 0.5x..2x; white stays at 1x
        low = max(min(min(values, default=0.0), -1.0), -5.0)
        high = min(max(max(values, default=0.0), 1.0), 5.0)
        ticks = [t for t in range(math.floor(low), math.ceil(high) + 1) if low <= t <= high]
        colorbar = dict(title=dict(text="× English"), tickvals=ticks, ticktext=[f"{2**t:g}×" for t in ticks])
        scale = dict(colorscale=premium_scale(low, high), zmin=low, zmax=high)
    else:
        z = [[x for x in row] for row in raw]
        scale = dict(colorscale=_COSTLY, reversescale=metric == "bytes_per_token")
        colorbar = dict(title=dict(text=METRIC_CHOICES[metric][0]))
    # compact: "Qwen2.5 / Qwen3" -> "Qwen2.5", "Trained (256 merges)" -> "Trained" (the hover has the full name)
    columns = [v.split(" / ")[0].split(" (")[0] if compact else v for v in tax.vocabularies]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=columns,
            y=labels,
            text=text,
            texttemplate="%{text}",
            textfont=dict(size=font_size),
            customdata=_hover_rows(tax, codes),
            xgap=2,
            ygap=2,
            hovertemplate="<b>%{y}</b> · %{x}<br>tokens: %{customdata[0]}<br>premium vs. English: %{customdata[1]}"
            "<br>bytes per token: %{customdata[2]}<br>tokens per word: %{customdata[3]}"
            "<br>tokens per character: %{customdata[4]}<extra>%{customdata[5]}</extra>",
            colorbar=dict(
                thickness=10,
                orientation="h",
                x=0.5,
                xanchor="center",
                y=-0.01,
                yanchor="top",
                len=1.0,
                title_side="top",
                **colorbar,
            )
            if compact
            else dict(thickness=14, len=min(1.0, 520 / max(1, row_px * len(codes))), y=1, yanchor="top", **colorbar),
            **scale,
        )
    )
    title = METRIC_CHOICES[metric][0] if compact else f"{METRIC_CHOICES[metric][0]}: {METRIC_CHOICES[metric][1]}"
    fig.update_layout(
        height=150 + row_px * len(codes) + (70 if compact else 0),
        margin=dict(l=2, r=2, t=110, b=70) if compact else dict(l=10, r=10, t=110, b=10),
        title=dict(text=title, x=0, y=0.995, yanchor="top", font=dict(size=font_size + 3)),
        xaxis=dict(side="top", tickangle=-90 if compact else -30, tickfont=dict(size=font_size)),
        yaxis=dict(autorange="reversed", tickfont=dict(size=font_size)),
        plot_bgcolor="white",
        font=dict(size=font_size),
    )
    return fig


def tax_table(
    tax: TokenTax,
    texts: "Sequence[ParallelText] | bpe.ParallelCorpus",
    metric: str = "premium",
    *,
    order: str = "corpus",
) -> pd.DataFrame:
    """One row per language: its script, then the metric under each vocabulary (numbers, for sorting)."""
    by_code = _texts(texts)
    rows = []
    for code in language_order(tax, order):
        t = by_code.get(code)
        row = {"language": language_label(t) if t else code, "script": t.script if t else ""}
        for v in tax.vocabularies:
            value = getattr(tax.cell(v, code), metric)
            row[v] = round(value, 2) if isinstance(value, float) else value
        rows.append(row)
    return pd.DataFrame(rows)


def records_frame(tax: TokenTax, texts: "Sequence[ParallelText] | bpe.ParallelCorpus") -> pd.DataFrame:
    """Every number: one row per (vocabulary, language), with the language's name and script."""
    by_code = _texts(texts)
    frame = pd.DataFrame(tax.records())
    frame.insert(2, "language name", [by_code[c].name if c in by_code else c for c in frame["language"]])
    frame.insert(3, "script", [by_code[c].script if c in by_code else "" for c in frame["language"]])
    return frame
