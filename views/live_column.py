"""One Tokenize column kept up to date as the text is edited: :class:`LiveColumn` holds a
:class:`bpe.incremental.IncrementalEncoder` and the column as the browser draws it (ids, byte lengths), and
turns each new text into what :func:`views.tokenize_payload.column_tokens` and :func:`views.encoded.encode_view`
would give for it -- without encoding the whole text again. The edit is found by comparing the new text with
the one it holds (:func:`views.tokenize_payload.text_splice`: a common prefix and suffix, compared in C), so any
change of text (a keystroke, a paste, a preset) takes the same road.

A tokenizer that normalizes (NFC) is kept up to date on the normalized text: the text is normalized first (in C:
~50 ms a 1 MB text, and nothing when it is NFC already) and the edit found between the two normalized texts, so
its tokens are laid on that text (sent with the column, as :func:`views.tokenize_payload.column_tokens` does).
A tokenizer the incremental encoder refuses (a tokenizer.json pipeline, an unknown token, a custom pattern)
makes :meth:`LiveColumn.update` return None: the page encodes that text whole.

>>> col = LiveColumn(bpe.load_pretrained("cl100k_base"), "GPT-4", specials=True)
>>> enc, tokens = col.update("hello world")
>>> enc.n_tokens, list(tokens.lens)
(2, [5, 6])
>>> enc, tokens = col.update("hello, world<|endoftext|>")
>>> list(tokens.ids), tokens.special, enc.specials_found, enc.other_count
([15339, 11, 1917, 100257], (3,), ('<|endoftext|>',), 10)
"""

from __future__ import annotations

import unicodedata
from array import array

import bpe
from bpe.corpus import special_splitter
from bpe.incremental import IncrementalEncoder, NotIncremental, can_edit_incrementally

from .encoded import Encoded
from .tokenize_payload import ColumnTokens, byte_lengths, text_splice

__all__ = ["LiveColumn", "EXACT_NOTE", "PREVIEW_CHARS"]

#: the round trip of a byte-level (or byte-fallback) tokenizer without normalization: always exact
EXACT_NOTE = "decode(encode(text)) gives the text back exactly"
#: characters of a big text's start encoded first (:meth:`LiveColumn.preview`): a first screen of every column
#: (~1,000 characters at 1280 px) and a margin to scroll into
PREVIEW_CHARS = 3_000
#: units at the end of a preview's slice left out (the slice's end is not the text's: see bpe.incremental)
_UNTRUSTED_UNITS = 4


class LiveColumn:
    """A column's encoding kept up to date (see the module docstring)."""

    def __init__(self, tok: bpe.Tokenizer, name: str, *, specials: bool):
        self.tok = tok
        self.name = name
        self.specials = specials
        self.enabled = can_edit_incrementally(tok)
        self._inc: IncrementalEncoder | None = None
        self._other: IncrementalEncoder | None = None  # the other special-token treatment, when it matters
        self._lengths = byte_lengths(tok)
        # each token's byte length in as few bytes as this vocabulary's longest token needs (1 for the registry's)
        top = max(self._lengths.values(), default=0)
        self._lw = "B" if top < 256 else "H" if top < 65536 else "I"
        self._lens = array(self._lw)
        self._prefixes = {s[:2] for s in tok.special_tokens}
        self._last: tuple[str, Encoded, ColumnTokens] | None = None

    def update(self, text: str) -> tuple[Encoded, ColumnTokens] | None:
        """``text`` encoded (incrementally from the text it holds), or None when it cannot be (see above)."""
        if not self.enabled:
            return None
        if self._last is not None and self._last[0] is text:
            return self._last[1], self._last[2]
        source = text
        if self.tok.normalize == "NFC" and not unicodedata.is_normalized("NFC", text):
            text = unicodedata.normalize("NFC", text)  # (the encoder's own first step: its tokens lie on this)
        try:
            if self._inc is None:
                self._inc = IncrementalEncoder(self.tok, text, specials=self.specials)
                self._lens = array(self._lw, map(self._lengths.__getitem__, self._inc.ids))
            elif self._inc.text != text:
                at, deleted, inserted = text_splice(self._inc.text, text)
                first, gone, new = self._inc.edit(at, deleted, inserted)
                self._lens[first : first + gone] = array(self._lw, map(self._lengths.__getitem__, new))
            found = self._specials_found(text)
            other = None
            if found:
                if self._other is None:
                    self._other = IncrementalEncoder(self.tok, text, specials=not self.specials)
                elif self._other.text != text:
                    at, deleted, inserted = text_splice(self._other.text, text)
                    self._other.edit(at, deleted, inserted)
                other = len(self._other.ids)
            else:
                self._other = None
        except (NotIncremental, ValueError, TypeError):
            # (a char-level tokenizer meeting an unknown character, a timeout: the full encode reports it)
            self._inc = self._other = None
            return None
        inc = self._inc
        ids = array("I", inc.ids)
        special: tuple[int, ...] = ()
        if inc.special_count:
            is_special = self.tok.is_special
            special = tuple(i for i, t in enumerate(ids) if is_special(t))
        enc = Encoded(
            name=self.name,
            text=text,
            ids=ids,
            specials_as_special=self.specials,  # type: ignore[arg-type]
            special_count=inc.special_count,
            other_count=other,
            roundtrip_ok=True,
            roundtrip_note=EXACT_NOTE,
            specials_found=found,
            normalized=text != source,
        )
        tokens = ColumnTokens(ids, array(self._lw, self._lens), special, text=None if text == source else text)
        self._last = (source, enc, tokens)
        return enc, tokens

    def pending(self, text: str) -> int:
        """Characters :meth:`update` would encode for ``text``: the whole text for a column that is not kept
        up to date or holds nothing yet, else the stretch that differs from the text it holds (a paste: the
        pasted text)."""
        if not self.enabled or self._inc is None or self._last is None:
            return len(text)
        if self._last[0] is text:
            return 0
        # (against the text as typed: a normalizing column holds the normalized one, which differs all over)
        at, deleted, inserted = text_splice(self._last[0], text)
        return len(inserted)

    def preview(self, text: str, chars: int = PREVIEW_CHARS) -> ColumnTokens | None:
        """The first tokens of ``text`` -- those of its pre-tokenizer units that start in its first ``chars``
        characters, less the last few (the slice's end is not the text's) -- exactly as :meth:`update` will
        give them, without encoding the rest: what a big paste shows at once (the page then encodes the whole
        text). None for a tokenizer that cannot be cut that way (it is encoded whole)."""
        if not self.enabled:
            return None
        head = text[:chars]
        whole = len(text) <= chars  # (the slice is the whole text: every unit is final)
        if self.tok.normalize == "NFC" and not unicodedata.is_normalized("NFC", head):
            head = unicodedata.normalize("NFC", head)
        try:
            inc = IncrementalEncoder(self.tok, head, specials=self.specials)
        except (NotIncremental, ValueError, TypeError):
            return None
        units = inc.unit_count()
        keep = units if whole else max(0, units - _UNTRUSTED_UNITS)
        n = inc.unit_token(keep)
        ids = array("I", inc.ids[:n])
        lens = array(self._lw, map(self._lengths.__getitem__, ids))
        special = tuple(i for i, t in enumerate(ids) if self.tok.is_special(t)) if inc.special_count else ()
        end = inc.unit_start(keep)
        shown = head[:end]
        return ColumnTokens(ids, lens, special, text=None if shown == text[:end] else shown)

    def _specials_found(self, text: str) -> tuple[str, ...]:
        """This tokenizer's special-token strings in ``text``, in order of first appearance (as
        :func:`bpe.encoding_report.encoding_report` finds them); a quick look for their first two characters
        first (Llama 3 has 256 of them)."""
        if not self._prefixes or not any(p in text for p in self._prefixes):
            return ()
        splitter = special_splitter(list(self.tok.special_tokens))
        return tuple(dict.fromkeys(splitter.findall(text))) if splitter is not None else ()
