r"""Text a reader pasted or uploaded, made safe to encode: lone surrogates (no UTF-8 form) replaced, text
over a byte limit cut at a character boundary, with a sentence saying so.

>>> has_lone_surrogates("a\ud800"), has_lone_surrogates("ab"), clean_text("ab", 100)
(True, False, ('ab', ''))
"""

from __future__ import annotations

import re

__all__ = ["has_lone_surrogates", "clean_text"]

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def has_lone_surrogates(text) -> bool:
    """True if ``text`` is a str holding a lone surrogate (which has no UTF-8 form)."""
    if not isinstance(text, str):
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def clean_text(text: str, max_bytes: int) -> tuple[str, str]:
    """Make pasted text safe to encode: lone surrogates become U+FFFD, and text above ``max_bytes``
    UTF-8 bytes is cut (at a character boundary). Returns (text, a message for the reader or "").

    >>> clean_text("héllo", 2)
    ('h', 'The text is 6 bytes, over the 2-byte limit: only its first 1 characters (1 bytes) are used.')
    >>> clean_text("a\\ud800b", 100)
    ('a\ufffdb', '')
    """
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    text = _LONE_SURROGATE.sub("\ufffd", text)  # (a str holds no surrogate pairs: any surrogate is lone)
    data = text.encode("utf-8")
    if len(data) > max_bytes:
        cut = data[:max_bytes].decode("utf-8", "ignore")
        return cut, (
            f"The text is {len(data):,} bytes, over the {max_bytes:,}-byte limit: only its first "
            f"{len(cut):,} characters ({len(cut.encode('utf-8')):,} bytes) are used."
        )
    return text, ""
