"""Colors: two palettes (a soft default and Okabe–Ito, safe for color-blind readers), stable per token id.

Colors come from ``zlib.crc32`` of the id, never ``hash()`` (which changes per process), so a token keeps
its color from one step of the player to the next and from one page to another.

>>> color_for(256) == color_for(256)
True
>>> len(PALETTES["okabe_ito"]) >= 7
True
"""

from __future__ import annotations

import zlib

__all__ = ["PALETTES", "PALETTE_LABELS", "color_for", "tint", "shade", "accent_colors", "chips_wrap_css", "MONO"]

#: The monospace font stack of every token drawing.
MONO = "ui-monospace,SFMono-Regular,Menlo,Consolas,monospace"

#: Backgrounds for token spans: light enough for dark text.
PALETTES: dict[str, tuple[str, ...]] = {
    "default": (
        "#fde2e4",
        "#e2ece9",
        "#fff1c1",
        "#dbe7ff",
        "#f0dfff",
        "#d8f3dc",
        "#ffe5d0",
        "#d7f0f7",
        "#f6d6e8",
        "#e8e8c8",
        "#e0e0ff",
        "#ffd9d9",
    ),
    # Okabe & Ito (2008), "Color Universal Design": tinted toward white so text stays readable.
    "okabe_ito": (
        "#f5cc7f",
        "#a9d9f4",
        "#7fcfb9",
        "#f8f19f",
        "#7fb8d9",
        "#eaa87f",
        "#e6bcd3",
        "#cfcfcf",
    ),
}
PALETTE_LABELS = {"default": "Soft colors", "okabe_ito": "Color-blind safe (Okabe–Ito)"}

#: Chart colors per palette: (winner, tie, other, current marker)
_ACCENTS = {
    "default": ("#d62728", "#ff9f1c", "#9db4d3", "#6a3d9a"),
    "okabe_ito": ("#D55E00", "#E69F00", "#56B4E9", "#000000"),
}


def accent_colors(palette: str = "default") -> dict[str, str]:
    """The chart colors of a palette: ``winner``, ``tie``, ``other``, ``marker``."""
    w, t, o, m = _ACCENTS.get(palette, _ACCENTS["default"])
    return {"winner": w, "tie": t, "other": o, "marker": m}


def color_for(token_id: int, palette: str = "default") -> str:
    """A stable background color for a token id."""
    colors = PALETTES.get(palette, PALETTES["default"])
    return colors[zlib.crc32(str(token_id).encode()) % len(colors)]


def tint(hex_color: str, amount: float) -> str:
    """Mix a ``#rrggbb`` color toward white by ``amount`` (0 = unchanged, 1 = white).

    >>> tint("#000000", 0.5)
    '#7f7f7f'
    """
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    mix = lambda c: int(c + (255 - c) * amount)  # noqa: E731
    return "#{:02x}{:02x}{:02x}".format(mix(r), mix(g), mix(b))


def shade(hex_color: str, amount: float) -> str:
    """Mix a ``#rrggbb`` color toward black by ``amount`` (0 = unchanged, 1 = black).

    >>> shade("#ffffff", 0.5)
    '#7f7f7f'
    """
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return "#{:02x}{:02x}{:02x}".format(*(int(c * (1 - amount)) for c in (r, g, b)))


def chips_wrap_css(*keys: str) -> str:
    """A ``<style>`` that lets the chips of the multiselects with widget keys ``keys`` wrap onto more lines.

    Streamlit 1.67 keeps a multiselect's chips on one line that scrolls sideways behind a fade: at 1280 px the
    lab's sixth pattern and Token tax's third vocabulary were cut mid-word ("Qwen2 / Qwe…"), the rest hidden.

    >>> "flex-wrap:wrap" in chips_wrap_css("lab_patterns") and ".st-key-lab_patterns " in chips_wrap_css("lab_patterns")
    True
    """
    rules = []
    for key in keys:
        box = f".st-key-{key} [data-testid=stMultiSelectTagsContainer]"
        rules.append(
            f"{box}{{flex-wrap:wrap;overflow:visible;height:auto;row-gap:2px;padding:3px 0;"
            "mask-image:none;-webkit-mask-image:none}"
            f".st-key-{key} [role=group]:has(> [data-testid=stMultiSelectTagsContainer])"
            "{height:auto;max-height:none;min-height:40px}"
        )
    return "<style>" + "".join(rules) + "</style>"
