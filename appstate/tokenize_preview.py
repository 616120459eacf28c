"""A big paste's first screen, before the whole text is encoded (issue 31: a 1 MB paste painted every column after
~5.7 s, six vocabularies encoding ~340,000 tokens each on a two-core machine).

When some column has more than :data:`PREVIEW_MIN` characters to encode for the page's text (a paste), the page
first mails the view a **preview** (:func:`mail`): each column's first tokens -- those of the text's first
:data:`views.live_column.PREVIEW_CHARS` characters (:meth:`views.live_column.LiveColumn.preview`: exactly the
tokens the whole encoding gives there) -- and a head that says the column is still counting. The view draws them
at once (components/tokenize_view: ``receivePreview``) without taking them as the column's version: the mail of
the whole encoding, sent when it is done in the same run, replaces them and is a splice from the version the
browser held before (as any edit's answer). The preview travels in an element of its own (``tokenize_preview``:
no state, no reports), mounted in a slot the fragment has whenever its text is over :data:`PREVIEW_MIN`
characters, before the encoding starts: Streamlit sends an element as soon as the script makes it.
"""

from __future__ import annotations

import html
from typing import Sequence

from views.tokenize_payload import ColumnTokens

from . import tokenize_live

__all__ = ["PREVIEW_MIN", "wanted", "tokens", "counting_html", "mail"]

#: characters some column must encode before its first screen is mailed on its own (a 1 MB paste: ~1,000,000;
#: a 100 KB paste takes ~0.3-0.5 s whole and is sent whole)
PREVIEW_MIN = 200_000


def wanted(columns: Sequence, text: str, specials: bool) -> bool:
    """Whether the page's text is a big change for one of ``columns`` (:class:`appstate.tokenize_state.Column`
    with a tokenizer): more than :data:`PREVIEW_MIN` characters to encode."""
    if len(text) <= PREVIEW_MIN:
        return False
    return any(tokenize_live.live_column(c.key, specials, c.title, c.tok).pending(text) > PREVIEW_MIN for c in columns)


def tokens(column, text: str, specials: bool) -> ColumnTokens | None:
    """The first tokens of ``text`` in ``column`` (None: this tokenizer is encoded whole, it shows none until
    then)."""
    return tokenize_live.live_column(column.key, specials, column.title, column.tok).preview(text)


def counting_html(text: str, shown: ColumnTokens | None) -> str:
    """The line a counting column's head shows (no user text in it)."""
    n = len(shown.ids) if shown is not None else 0
    short = f"the first {n:,} tokens shown" if n else "tokens when done"
    what = f"the first {n:,} tokens are shown" if n else "its tokens come when it is done"
    whole = f"{len(text):,} characters are being encoded; {what}."
    # (one line in a column at 1280 px: the first tokens stay high on the first screen; the rest in the tip)
    return (
        f'<div class="tkz-counting" role="status" data-shown="{n}" title="{html.escape(whole, quote=True)}">'
        f'<span class="tkz-spin" aria-hidden="true"></span>Counting… {short}</div>'
    )


def mail(rows: Sequence[tuple[str, str, str, ColumnTokens | None]], tid: str) -> dict:
    """The preview (``rows``: ``(key, slug, head, first tokens or None)`` in page order) as
    :func:`appstate.tokenize_live.wire` packs it: every column whole, ``"preview": true``."""
    cols = []
    for key, slug, head, got in rows:
        got = got or ColumnTokens()
        ids, lens = tokenize_live.packed(got)
        item: dict = {"key": key, "slug": slug, "head": head, "ids": ids, "lens": lens, "special": list(got.special)}
        if got.text is not None:
            item["text"] = got.text
        cols.append(item)
    return {"tid": tid, "preview": True, "order": [r[0] for r in rows], "cols": cols}
