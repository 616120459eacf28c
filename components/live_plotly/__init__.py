"""``live_plotly``: a plotly chart that stays mounted while its figure changes.

``st.plotly_chart`` mounts a new chart whenever the figure changes (the element's identity includes the
figure), and mounting is most of a frame's cost in the browser: text measuring, axes, a forced layout of
the whole page. The merge player changes its charts at every step, several times a second. This component
keeps one iframe per chart (its identity is its key), loads plotly.js there once, and updates the figure
with ``Plotly.react``; the iframe also keeps plotly's layout work out of the main page.

plotly.js comes from the installed ``plotly`` package (``package_data/plotly.min.js``, the version that
matches the Python figures): it is copied next to ``index.html`` into a folder under the temp directory,
which is what Streamlit serves. When that cannot be done, :func:`live_plotly` falls back to
``st.plotly_chart``.
"""
from __future__ import annotations

import json

import shutil
import tempfile
from pathlib import Path

import streamlit as st

__all__ = ["live_plotly", "available"]

_HERE = Path(__file__).resolve().parent
_component = None
_failed = False


def _frontend() -> Path | None:
    import plotly

    src = Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"
    if not src.is_file():
        return None
    folder = Path(tempfile.gettempdir()) / f"bpe_lab_live_plotly_{plotly.__version__}"
    folder.mkdir(parents=True, exist_ok=True)
    index = (_HERE / "index.html").read_bytes()
    target = folder / "index.html"
    if not target.exists() or target.read_bytes() != index:
        target.write_bytes(index)
    js = folder / "plotly.min.js"
    if not js.exists() or js.stat().st_size != src.stat().st_size:
        tmp = folder / f"plotly.min.js.{id(folder)}.tmp"
        shutil.copyfile(src, tmp)
        tmp.replace(js)
    return folder


def available() -> bool:
    """True when the component could be set up (else :func:`live_plotly` uses ``st.plotly_chart``)."""
    global _component, _failed
    if _component is None and not _failed:
        try:
            folder = _frontend()
            if folder is None:
                _failed = True
            else:
                import streamlit.components.v1 as components

                _component = components.declare_component("live_plotly", path=str(folder))
        except OSError:
            _failed = True
    return _component is not None


def live_plotly(fig, *, key: str, height: int) -> None:
    """Draw ``fig`` ``height`` pixels high in a chart that stays mounted under ``key``.

    ``fig`` is a plotly Figure or its JSON (``views.charts.*_json`` build that without plotly's objects).
    """
    if not available():
        st.plotly_chart(json.loads(fig) if isinstance(fig, str) else fig, key=key,
                        config={"displayModeBar": False})
        return
    with st.container(key=key):
        _component(figure=fig if isinstance(fig, str) else fig.to_json(), height=int(height),
                   key=f"{key}_frame", default=None)
