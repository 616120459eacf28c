"""Presenter view: any page made projector-ready — large type, high contrast, wide content.

:func:`presenter_css` is a ``<style>`` block the shared sidebar adds to every page when presenter view is
on; :func:`enlarge_figure` scales a plotly chart's fonts to match. No Streamlit here.
"""

from __future__ import annotations

import plotly.graph_objects as go

__all__ = ["presenter_css", "enlarge_figure"]


def presenter_css(scale: float = 1.45) -> str:
    """CSS (a ``<style>`` block for ``st.html``) for a projector: every font about ``scale`` times larger,
    black text on white, thicker token outlines, the content as wide as the screen, Streamlit's menu
    hidden (the button that reopens the sidebar stays). Pair it with
    ``st.set_page_config(initial_sidebar_state="collapsed")`` and :func:`enlarge_figure` for charts.

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


def enlarge_figure(fig: go.Figure, scale: float = 1.5) -> go.Figure:
    """A plotly figure with every font (layout, titles, axes, legend, annotations, traces) ``scale`` times
    larger and black text; fonts without a size get the scaled default (12 px). Returns a new figure.

    >>> f = enlarge_figure(go.Figure(layout=dict(title=dict(text="t", font=dict(size=10)))), 2)
    >>> f.layout.title.font.size, f.layout.font.size
    (20, 24)
    """
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
