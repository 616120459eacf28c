"""Tokens drawn in a terminal: colored backgrounds (256-color ANSI), or ``|`` between tokens.

Tokens that each hold part of a UTF-8 character (emoji, CJK) are drawn together, so no ``\\ufffd`` shows
for text that is fine.
"""

from __future__ import annotations

import os
import zlib
from typing import Sequence, TextIO

from .tokenizer import Tokenizer

__all__ = ["token_groups", "render_tokens", "use_color"]

#: light 256-color backgrounds (black text stays readable on each)
_PALETTE = (224, 194, 189, 230, 217, 153, 187, 225, 152, 222, 183, 158)
_RESET = "\x1b[0m"


def use_color(choice: str, stream: TextIO) -> bool:
    """Whether to color: ``"always"``/``"never"``, or for ``"auto"`` when ``stream`` is a terminal and
    ``NO_COLOR`` is unset (https://no-color.org).

    >>> use_color("never", None), use_color("always", None)
    (False, True)
    """
    if choice != "auto":
        return choice == "always"
    return "NO_COLOR" not in os.environ and hasattr(stream, "isatty") and stream.isatty()


def token_groups(tok: Tokenizer, ids: Sequence[int]) -> list[tuple[int, str]]:
    """``(first id, text)`` for runs of tokens that together make whole characters.

    A token that holds part of a UTF-8 character (emoji, CJK) is joined to its neighbours until the bytes
    decode, so no ``\\ufffd`` appears for text that is fine.

    >>> from bpe import load_pretrained
    >>> tok = load_pretrained("cl100k_base")
    >>> [text for _, text in token_groups(tok, tok.encode("hi 🦜"))]
    ['hi', ' 🦜']
    """
    groups: list[tuple[int, str]] = []
    buf = b""
    first = -1
    for i in ids:
        if not buf:
            first = i
        buf += tok.token_bytes(i)
        try:
            groups.append((first, buf.decode("utf-8")))
            buf = b""
        except UnicodeDecodeError as exc:
            if exc.reason != "unexpected end of data" or len(buf) > 64:
                groups.append((first, buf.decode("utf-8", "replace")))
                buf = b""
    if buf:
        groups.append((first, buf.decode("utf-8", "replace")))
    return groups


def render_tokens(tok: Tokenizer, ids: Sequence[int], *, color: bool) -> str:
    """The text cut into tokens: colored backgrounds, or ``|`` between tokens without color.

    Newlines show as ``↵`` (then a real line break), tabs as ``→``.

    >>> from bpe import load_pretrained
    >>> tok = load_pretrained("cl100k_base")
    >>> render_tokens(tok, tok.encode("Hello world\\n"), color=False)
    'Hello| world|↵\\n'
    """
    out: list[str] = []
    previous = -1
    for first, text in token_groups(tok, ids):
        shown = text.replace("\t", "→").replace("\r", "␍").replace("\n", "↵\n")
        if not color:
            out.append(shown)
            continue
        shade = zlib.crc32(str(first).encode()) % len(_PALETTE)
        if shade == previous:
            shade = (shade + 1) % len(_PALETTE)
        previous = shade
        style = f"\x1b[30;48;5;{_PALETTE[shade]}m"
        if tok.is_special(first):
            style = "\x1b[1;97;45m"
        out.append(style + shown.replace("\n", _RESET + "\n" + style) + _RESET)
    return ("" if color else "|").join(out)
