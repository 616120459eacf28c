"""Pieces of a long text, cut where a reader expects a cut: after a line break, else after a space.

Used to draw the start of a long text (:func:`head`) and to hold the end of a text out of training
(:func:`split_heldout`, whose tokens :func:`bpe.replay.heldout_token_counts` then counts).

>>> head("one two three", 8)
('one two ', True)
>>> train, held = split_heldout("word\\n" * 500)
>>> len(held), train + held == "word\\n" * 500
(250, True)
"""

from __future__ import annotations

__all__ = ["break_before", "head", "split_heldout", "heldout_start", "HELDOUT_FRACTION", "HELDOUT_MIN_CHARS"]

#: The share of a text held out of training, and the shortest text that is split at all.
HELDOUT_FRACTION = 0.10
HELDOUT_MIN_CHARS = 2_000


def break_before(text: str, pos: int, lo: int = 0) -> int:
    """Where to cut ``text`` at or before ``pos`` but not before ``lo``: just after the last line break in
    ``text[lo:pos]``, else just after its last space, else ``pos`` itself.

    >>> break_before("ab cd\\nef gh", 10), break_before("ab cd ef", 7), break_before("abcdef", 4, 2)
    (6, 6, 4)
    """
    for sep in ("\n", " "):
        j = text.rfind(sep, lo, pos)
        if j >= 0:
            return j + 1
    return pos


def head(text: str, max_chars: int) -> tuple[str, bool]:
    """The start of ``text``, at most ``max_chars`` characters, cut at a line or space in its second half;
    ``(piece, was_cut)``.

    >>> head("short", 10), head("abcdefgh", 4)
    (('short', False), ('abcd', True))
    """
    if len(text) <= max_chars:
        return text, False
    return text[: break_before(text, max_chars, max_chars // 2)], True


def heldout_start(text: str, fraction: float = HELDOUT_FRACTION, *, min_chars: int = HELDOUT_MIN_CHARS) -> int:
    """Where :func:`split_heldout` cuts ``text``: ``text[:i]`` trains, ``text[i:]`` is held out (``len(text)``
    when nothing is). A caller that keeps the text whole and this index holds the text once.

    >>> heldout_start("short"), heldout_start("word " * 1000)
    (5, 4500)
    """
    if len(text) < min_chars:
        return len(text)
    cut = int(len(text) * (1 - fraction))
    return break_before(text, cut, max(0, cut - len(text) // 20))


def split_heldout(
    text: str, fraction: float = HELDOUT_FRACTION, *, min_chars: int = HELDOUT_MIN_CHARS
) -> tuple[str, str]:
    """``(training part, held-out part)``: about the last ``fraction`` of ``text``, the cut moved back to a
    line break or space within ``len(text) / 20`` characters. Texts shorter than ``min_chars`` are not
    split (the held-out part is ``""``).

    >>> split_heldout("short")
    ('short', '')
    >>> split_heldout("It was the best of times, it was the worst of times, it was the age of wisdom.", 0.2,
    ...               min_chars=0)
    ('It was the best of times, it was the worst of times, it was ', 'the age of wisdom.')
    """
    cut = heldout_start(text, fraction, min_chars=min_chars)
    return text[:cut], text[cut:]
