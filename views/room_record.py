"""A live room's questions as a CSV file for the teacher, after class: what was asked, what the room answered.

Pure functions (no Streamlit): :func:`record_csv` turns the room's record (``liveroom.model.poll_entry``
dicts: merge, options, counts, right options, when) into the bytes of a CSV file, one row a question;
:func:`csv_name` names the file. Teachers open it in a spreadsheet: a cell that would start a formula (``=``,
``+``, ``-``, ``@``, a tab or a carriage return first) is written with a leading apostrophe
(:func:`safe_cell`), so a token of the text is shown as text and never run. Written by the ``csv`` module
(quoting, line ends), UTF-8 with a byte-order mark (a spreadsheet then reads the tokens' characters right).

>>> data = record_csv([{"merge": 3, "options": ["(a, b)", "(-, c)"], "right": [0], "counts": [2, 1],
...                     "asked": 0.0, "revealed": 61.0}], width=2)
>>> [row for row in csv.reader(io.StringIO(data.decode("utf-8-sig")))][1]
['1', '3', '1970-01-01 00:00:00', '1970-01-01 00:01:01', '(a, b)', '2', '(-, c)', '1', '(a, b)', '', '3', '2']
"""

from __future__ import annotations

import csv
import io
from datetime import datetime, timezone
from typing import Any, Iterable, Sequence

__all__ = ["record_csv", "csv_name", "safe_cell", "CSV_MIME", "FORMULA_START"]

CSV_MIME = "text/csv"
#: what a spreadsheet reads as the start of a formula (OWASP's list for CSV injection)
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: Any) -> Any:
    """``value`` as a spreadsheet shows it, never runs it: a string starting a formula gets a leading ``'``.

    >>> safe_cell("=HYPERLINK(\\"http://x\\")"), safe_cell("-2"), safe_cell("(a, b)"), safe_cell(3)
    ('\\'=HYPERLINK("http://x")', "'-2", '(a, b)', 3)
    """
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def _when(t: Any) -> str:
    """Seconds since the epoch as ``YYYY-MM-DD HH:MM:SS`` in UTC (what spreadsheets read as a date); "" if
    none."""
    if not isinstance(t, (int, float)) or isinstance(t, bool):
        return ""
    return datetime.fromtimestamp(float(t), timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def _header(width: int) -> list[str]:
    head = ["Question", "Merge", "Asked (UTC)", "Revealed (UTC)"]
    for i in range(1, width + 1):
        head += [f"Option {i}", f"Count {i}"]
    return head + ["Merged pair", "Also right (tied)", "Answers", "Right answers"]


def record_csv(entries: Iterable[dict], *, width: int | None = None) -> bytes:
    """The CSV file of a room's questions, oldest first: a row each -- its number, the merge asked about, when
    it was asked and revealed (UTC; empty while still open), each option with how many picked it, the pair
    merged, the other right options (tied with it, ``; `` between them), how many answered, how many right.
    ``width``: option columns (default: the most options a question had, at least 4). Every string cell
    passes :func:`safe_cell`."""
    entries = list(entries)
    width = width or max([4, *(len(e.get("options") or []) for e in entries)])
    out = io.StringIO()
    w = csv.writer(out)  # RFC 4180: commas, quotes doubled, CRLF
    w.writerow(_header(width))
    for number, e in enumerate(entries, 1):
        options: Sequence[str] = list(e.get("options") or [])
        counts = [int(c) for c in (e.get("counts") or [])]
        counts += [0] * (len(options) - len(counts))
        right = [i for i in (e.get("right") or []) if 0 <= i < len(options)]
        row: list[Any] = [number, int(e.get("merge", 0)), _when(e.get("asked")), _when(e.get("revealed"))]
        for i in range(width):
            row += [options[i], counts[i]] if i < len(options) else ["", ""]
        row += [
            options[right[0]] if right else "",
            "; ".join(options[i] for i in right[1:]),
            sum(counts),
            sum(counts[i] for i in right),
        ]
        w.writerow([safe_cell(c) for c in row])
    return out.getvalue().encode("utf-8-sig")


def csv_name(code: str, when: float) -> str:
    """The download's file name: the room's code (a fixed alphabet) and the day (UTC).

    >>> csv_name("7KQ2MX", 0)
    'live-room-7KQ2MX-1970-01-01.csv'
    """
    return f"live-room-{code}-{_when(when)[:10]}.csv"
