"""Live rooms' views: the join panel with its QR code, the poll's histogram, a student's status line.

Pure functions -> HTML (no Streamlit). The QR code is drawn by ``segno`` as SVG in this process (nothing
fetched) and shown as an ``<img>`` of a ``data:`` URI: the SVG is never inserted as markup. Every string
that may come from a user (the join link holds the page's host; poll options hold tokens of the text) is
escaped.

>>> "&lt;b&gt;" in join_panel_html("7KQ2MX", "http://h/?join=7KQ2MX&x=<b>", qr_data_uri("http://h/?join=7KQ2MX"))
True
>>> histogram_html(["(a, b)", "(<i>, x)"], [3, 1]).count('class="lr-bar"')
2
"""

from __future__ import annotations

import base64
import html
from typing import Sequence

__all__ = [
    "qr_svg",
    "qr_data_uri",
    "join_panel_html",
    "histogram_html",
    "status_html",
    "lesson_status_html",
    "badge_html",
    "LIVE_CSS",
    "spaced_code",
]

LIVE_CSS = """<style>
.lr-join{display:flex;gap:1.2rem;align-items:center;flex-wrap:wrap;}
.lr-join img{width:220px;height:220px;image-rendering:pixelated;border:1px solid #ccc;background:#fff;}
.lr-code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:2.6rem;font-weight:700;letter-spacing:.12em;color:#000;}
.lr-link{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.95rem;word-break:break-all;color:#0b3c6b;}
.lr-meta{color:#333;font-size:.95rem;}
.lr-hist{display:grid;grid-template-columns:minmax(6em,max-content) 1fr 2.5em;gap:.25rem .6rem;align-items:center;}
.lr-label{font-family:ui-monospace,Menlo,Consolas,monospace;white-space:pre;}
.lr-track{background:#eef1f5;border-radius:4px;height:1.3em;}
.lr-bar{background:#4c78a8;border-radius:4px;height:100%;min-width:2px;}
.lr-win .lr-bar{background:#1e7b34;}
.lr-label.lr-win{font-weight:700;color:#1e7b34;}
.lr-label.lr-win::before{content:"✓ ";}
.lr-count{text-align:right;font-variant-numeric:tabular-nums;font-weight:600;}
.lr-status{font-size:1rem;padding:.35em .7em;border-radius:6px;background:#e8f1fb;color:#0b3c6b;}
.lr-status.lr-off{background:#f3f3f3;color:#333;}
.lr-badge{font-size:.9rem;padding:.35em .6em;border-radius:6px;background:#e8f1fb;color:#0b3c6b;line-height:1.35;}
.lr-badge b{font-family:ui-monospace,Menlo,Consolas,monospace;letter-spacing:.06em;}
.lr-join.lr-small img{width:150px;height:150px;}
.lr-join.lr-small .lr-code{font-size:2rem;}
</style>"""


def spaced_code(code: str) -> str:
    """A room code as read aloud: ``7KQ 2MX``.

    >>> spaced_code("7KQ2MX")
    '7KQ 2MX'
    """
    return f"{code[:3]} {code[3:]}"


def qr_svg(url: str) -> str:
    """The QR code of ``url`` as an SVG document (segno; black on white, a quiet zone of 4 modules)."""
    import io

    import segno

    out = io.BytesIO()
    segno.make(url, error="m", micro=False).save(
        out, kind="svg", scale=8, border=4, dark="#000", light="#fff", xmldecl=False, svgns=True, nl=False
    )
    return out.getvalue().decode("utf-8")


def qr_data_uri(url: str) -> str:
    """:func:`qr_svg` as a ``data:image/svg+xml;base64,...`` URI for an ``<img>`` (never inline markup).

    >>> qr_data_uri("http://h/?join=7KQ2MX").startswith("data:image/svg+xml;base64,")
    True
    """
    return "data:image/svg+xml;base64," + base64.b64encode(qr_svg(url).encode("utf-8")).decode("ascii")


def join_panel_html(code: str, url: str, qr_uri: str, *, students: int = 0, small: bool = False) -> str:
    """The room's code, its join link and QR code (``qr_uri`` from :func:`qr_data_uri`), how many joined;
    ``small``: a smaller QR code and code (the Classroom's corner)."""
    e = html.escape
    return (
        f'<div class="lr-join{" lr-small" if small else ""}" data-code="{e(code)}">'
        f'<img src="{e(qr_uri)}" alt="QR code of the join link" data-testid="lr-qr">'
        f'<div><div class="lr-meta">Join the live room:</div><div class="lr-code">{e(spaced_code(code))}</div>'
        f'<div class="lr-link">{e(url)}</div>'
        f'<div class="lr-meta lr-students" data-students="{int(students)}">{int(students)} '
        f"student{'s' if students != 1 else ''} joined</div></div></div>"
    )


def histogram_html(
    labels: Sequence[str], counts: Sequence[int], *, winners: Sequence[int] = (), title: str = ""
) -> str:
    """A horizontal bar per option with its count (counts only: no names); ``winners``: indices of the right
    options, drawn green with a tick once revealed (not by colour alone: a projector, colour-blind eyes). Labels
    are escaped.

    >>> h = histogram_html(["(a, b)", "(<c>, d)"], [1, 0], winners=[1])
    >>> '<div class="lr-label lr-win" title="the right answer">(&lt;c&gt;, d)</div>' in h, h.count("lr-win")
    (True, 2)
    >>> '.lr-label.lr-win::before{content:"✓ ";}' in LIVE_CSS
    True
    """
    total = sum(counts)
    top = max([1, *counts])
    rows = []
    for i, (label, n) in enumerate(zip(labels, counts)):
        win = " lr-win" if i in winners else ""
        tip = ' title="the right answer"' if win else ""
        rows.append(
            f'<div class="lr-label{win}"{tip}>{html.escape(label)}</div>'
            f'<div class="lr-track{win}"><div class="lr-bar" style="width:{100 * n / top:.1f}%"></div></div>'
            f'<div class="lr-count" data-option="{i}">{int(n)}</div>'
        )
    head = f'<div class="lr-meta">{html.escape(title)}</div>' if title else ""
    return (
        f'<div class="lr-poll" data-total="{total}">{head}<div class="lr-hist">{"".join(rows)}</div>'
        f'<div class="lr-meta">{total} answer{"s" if total != 1 else ""}</div></div>'
    )


def status_html(code: str, *, following: bool, replay: bool = False) -> str:
    """A student's line: which room, whether the player follows the teacher (``replay``: the student switched
    the player to "Replay a real vocabulary", which stopped the following).

    >>> status_html("7KQ2MX", following=True)
    '<div class="lr-status" data-following="1">Live room 7KQ 2MX · your player follows the teacher</div>'
    >>> "you stopped following the teacher" in status_html("7KQ2MX", following=False, replay=True)
    True
    """
    if following:
        text = f"Live room {spaced_code(code)} · your player follows the teacher"
    elif replay:
        text = (
            f"Live room {spaced_code(code)} · you stopped following the teacher to replay a vocabulary: "
            "Rejoin goes back to the teacher's player"
        )
    else:
        text = f"Live room {spaced_code(code)} · exploring on your own: Rejoin goes back to where the teacher is"
    return (
        f'<div class="lr-status{"" if following else " lr-off"}" data-following="{int(following)}">'
        f"{html.escape(text)}</div>"
    )


def lesson_status_html(code: str, *, following: bool, lesson: int | None, step: int | None, title: str = "") -> str:
    """A student's line on the Classroom: which room, and whether the page follows the teacher's lesson
    (``lesson``/``step``: where the teacher is; None: on the merge player).

    >>> lesson_status_html("7KQ2MX", following=True, lesson=3, step=2, title="Pre-tokenizers")
    '<div class="lr-status" data-following="1" data-lesson="3" data-step="2">Live room 7KQ 2MX · following \
the teacher: lesson 3 (Pre-tokenizers), step 2</div>'
    """
    where = (
        f"lesson {int(lesson)}" + (f" ({title})" if title else "") + f", step {int(step or 1)}"
        if lesson
        else "the merge player"
    )
    if following:
        text = f"Live room {spaced_code(code)} · following the teacher: {where}"
    else:
        text = f"Live room {spaced_code(code)} · exploring on your own (the teacher is on {where}): Rejoin goes there"
    return (
        f'<div class="lr-status{"" if following else " lr-off"}" data-following="{int(following)}" '
        f'data-lesson="{int(lesson or 0)}" data-step="{int(step or 0)}">{html.escape(text)}</div>'
    )


def badge_html(code: str, *, students: int | None = None, following: bool | None = None) -> str:
    """The sidebar's reminder of the room this session is in: the teacher's (with how many students joined)
    or a student's (following or not).

    >>> badge_html("7KQ2MX", students=1)
    '<div class="lr-badge" data-code="7KQ2MX" data-students="1">Your live room <b>7KQ 2MX</b> · 1 student</div>'
    >>> badge_html("7KQ2MX", following=False)
    '<div class="lr-badge" data-code="7KQ2MX" data-following="0">Live room <b>7KQ 2MX</b> · exploring on your own</div>'
    """
    e = html.escape
    if students is not None:
        return (
            f'<div class="lr-badge" data-code="{e(code)}" data-students="{int(students)}">Your live room '
            f"<b>{e(spaced_code(code))}</b> · {int(students)} student{'s' if students != 1 else ''}</div>"
        )
    state = "following the teacher" if following else "exploring on your own"
    return (
        f'<div class="lr-badge" data-code="{e(code)}" data-following="{int(bool(following))}">Live room '
        f"<b>{e(spaced_code(code))}</b> · {state}</div>"
    )
