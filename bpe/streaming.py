"""Streaming encode: where a growing text can be cut so that encoding the two sides apart gives the ids of
the whole.

:meth:`bpe.Tokenizer.encode_iterable` keeps a buffer of the text not encoded yet and, once it is long
enough, encodes everything before :func:`safe_cut` and keeps the rest. A cut is safe when nothing that
comes later can change the tokens before it:

* the last pre-tokenizer chunks may still grow or re-split (``"\\n"`` + ``"\\n"``, a word cut in two, digits,
  ``"'"`` + ``"s"``, whitespace before a letter): the last chunk is held back, with the run of whitespace-only
  chunks before it and one chunk more;
* the buffer may end inside a special-token string (``"<|endof"``): a tail that is a proper prefix of a
  special token is held back;
* normalization (NFC...) may compose characters across the cut, a surrogate pair may be cut in two, and a
  SentencePiece-style tokenizer starts every text with ``▁``: the cut only falls before a character whose
  normalization does not reach back (before a space, for ``metaspace``).

>>> import bpe
>>> tok = bpe.load_pretrained("cl100k_base")
>>> cut = safe_cut("hello world\\n\\nbye", tok.pattern, str, None, ())
>>> cut.at, cut.chunks
(5, ['hello'])
"""

from __future__ import annotations

import functools
import unicodedata
from typing import Callable, Collection, NamedTuple

from .corpus import special_splitter
from .patterns import Pattern
from .splitting import pretokenize
from .visible import split_metaspace, unicode_form

__all__ = ["Cut", "safe_cut", "special_prefixes"]


@functools.lru_cache(maxsize=16)
def special_prefixes(specials: frozenset[str]) -> frozenset[str]:
    """Every proper, non-empty prefix of the special-token strings: a buffer ending in one may be cut
    inside a special token.

    >>> sorted(special_prefixes(frozenset({"<s>"})))
    ['<', '<s']
    """
    return frozenset(s[:n] for s in specials for n in range(1, len(s)))


def _special_hold(text: str, specials: frozenset[str]) -> int:
    """Where the buffer's possible start of a special-token string begins (``len(text)`` when none)."""
    if not specials:
        return len(text)
    prefixes = special_prefixes(specials)
    longest = max(map(len, specials))
    for i in range(max(0, len(text) - longest + 1), len(text)):
        if text[i:] in prefixes:
            return i
    return len(text)


def _encodable(text: str) -> bool:
    """Whether ``text`` has no lone surrogate (which a tiktoken-style tokenizer replaces, changing lengths)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _cut_is_clean(text: str, p: int, form: str | None, metaspace: bool) -> bool:
    """Whether normalizing ``text[:p]`` and ``text[p:]`` apart gives what normalizing the whole does, and no
    surrogate pair is split (tiktoken-style tokenizers read one as its character)."""
    if p <= 0 or p >= len(text):
        return False
    prev, ch = text[p - 1], text[p]
    if "\ud800" <= ch <= "\udfff" or "\ud800" <= prev <= "\udbff":
        return False
    if metaspace and ch != " ":
        return False
    if form is None:
        return True
    if unicodedata.combining(ch):
        return False
    nf = unicode_form(form)
    return unicodedata.normalize(nf, prev + ch) == unicodedata.normalize(nf, prev) + unicodedata.normalize(nf, ch)


class Cut(NamedTuple):
    """Where a buffer is cut: ``text[:head]`` (empty, or ending with a special token) is encoded as it is,
    then ``chunks`` (the pre-tokenizer chunks, normalized, between ``head`` and ``at``, as the whole buffer
    cuts them); ``text[at:]`` is kept for later. ``at == 0``: no cut yet."""

    at: int
    head: int
    chunks: list[str]


def safe_cut(
    text: str, pattern: Pattern | None, prepare: Callable[[str], str], normalize: str | None, specials: Collection[str]
) -> Cut:
    """The last cut found in ``text`` such that encoding the text before it, and then the text after it with
    anything that follows, gives the ids of the whole.

    ``specials`` are the special-token strings that matter (allowed or refused); ``pattern``, ``normalize`` and
    ``prepare`` (text -> the text BPE reads: normalized, surrogates handled) are the tokenizer's. The chunks
    before the cut are those of the whole buffer, not of the text before the cut alone (which would end
    there: ``"\n\n\n\n"`` at the end of a text is one chunk, followed by ``"and"`` it is two). Without a
    pattern the whole text is one chunk: there is no cut.
    """
    none = Cut(0, 0, [])
    if pattern is None or not text:
        return none
    watched = frozenset(specials)
    end = _special_hold(text, watched)
    start = 0
    splitter = special_splitter(sorted(watched))
    if splitter is not None:
        for m in splitter.finditer(text, 0, end):
            start = m.end()
    form, metaspace = split_metaspace(normalize)
    at_special = Cut(start, start, []) if start and _cut_is_clean(text, start, form, metaspace) else none
    segment = text[start:end]
    norm = prepare(segment)
    chunks = pretokenize(norm, pattern)
    bounds = [0]
    for c in chunks:
        bounds.append(bounds[-1] + len(c))
    k = len(chunks) - 1  # hold back the last chunk,
    while k > 0 and chunks[k - 1].isspace():  # the whitespace-only chunks before it,
        k -= 1
    k -= 1  # and one chunk more
    if k <= 0:
        return at_special
    limit = bounds[k]
    index = {b: n for n, b in enumerate(bounds[1 : k + 1], 1)}
    # Walk back over raw positions: p is a cut when its place in the prepared text is a chunk boundary at or
    # before the held-back chunks and the cut is clean.
    plain = form is None and _encodable(segment)
    shift = len(norm) - len(segment)  # plain text: 0, or 1 for metaspace's leading ▁
    first = min(len(segment) - 1, limit - shift) if plain else len(segment) - 1
    for p in range(first, 0, -1):
        at = p + shift if plain else len(norm) - len(prepare(segment[p:]))
        if at > limit:
            continue
        if at < bounds[1]:
            break
        if at in index and _cut_is_clean(segment, p, form, metaspace):
            return Cut(start + p, start, chunks[: index[at]])
    return at_special
