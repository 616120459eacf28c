"""The token tax: the same content costs different numbers of tokens in different languages.

A *parallel text* holds one content in many languages (BPE Lab ships Articles 1-5 of the Universal
Declaration of Human Rights in 28 languages: ``sample_texts/udhr.json``). :func:`token_tax` encodes every
language with every tokenizer and returns, per (vocabulary, language), the token count, bytes per token,
tokens per character and per word, and the *premium*: how many times more tokens than the baseline
language (English) the same content needs with that vocabulary. A premium of 2.0 means the text costs twice
as much context, compute and money.

>>> import bpe
>>> texts = [ParallelText("en", "English", "Hello world"), ParallelText("el", "Greek", "Γεια σου κόσμε")]
>>> tax = token_tax({"GPT-4": bpe.load_pretrained("cl100k_base")}, texts)
>>> tax.cell("GPT-4", "el").tokens, tax.cell("GPT-4", "el").premium
(12, 6.0)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from .tokenizer import Tokenizer
from .userfiles import read_regular_file

__all__ = [
    "ParallelText",
    "ParallelCorpus",
    "TaxCell",
    "TokenTax",
    "token_tax",
    "load_parallel",
    "parse_parallel",
    "METRICS",
]

#: The numbers a cell holds, with a label for charts: attribute -> (label, what it means).
METRICS: Mapping[str, tuple[str, str]] = {
    "tokens": ("tokens", "how many tokens the text becomes"),
    "premium": ("premium vs. baseline", "tokens divided by the baseline language's tokens (same vocabulary)"),
    "bytes_per_token": ("bytes per token", "UTF-8 bytes of text per token: higher means better compression"),
    "tokens_per_char": ("tokens per character", "tokens per Unicode code point"),
    "tokens_per_word": (
        "tokens per word",
        "tokens per whitespace-separated word (languages written with spaces between words only)",
    ),
}


@dataclass(frozen=True)
class ParallelText:
    """One language's version of the parallel content.

    ``word_spaced`` is false for scripts written without spaces between words (Chinese, Japanese, Thai,
    Burmese, Amharic's ``፡``): there a whitespace "word" count means nothing, so no tokens-per-word figure.
    """

    code: str
    name: str
    text: str
    native: str = ""
    script: str = ""
    direction: str = "ltr"
    word_spaced: bool = True

    @property
    def words(self) -> int | None:
        """Whitespace-separated words, or ``None`` for a script written without spaces between words.

        >>> ParallelText("en", "English", "All human beings").words
        3
        """
        return len(self.text.split()) if self.word_spaced else None


@dataclass(frozen=True)
class ParallelCorpus:
    """A parallel text with where it comes from and under which terms."""

    title: str
    description: str
    source: str
    license: str
    texts: tuple[ParallelText, ...]

    def get(self, code: str) -> ParallelText:
        """The text in language ``code``; ``KeyError`` naming the languages there are."""
        for t in self.texts:
            if t.code == code:
                return t
        raise KeyError(f"no language {code!r}; the corpus has {', '.join(t.code for t in self.texts)}")

    @property
    def codes(self) -> list[str]:
        """The language codes, in the corpus's order."""
        return [t.code for t in self.texts]


def parse_parallel(doc: Any, *, source: str = "the parallel text") -> ParallelCorpus:
    """A :class:`ParallelCorpus` from the parsed JSON of ``sample_texts/udhr.json``'s layout.

    Raises ``ValueError`` naming the problem when the document is not such a corpus.

    >>> parse_parallel({"languages": [{"code": "en", "name": "English", "text": "Hi"}]}).codes
    ['en']
    """
    if not isinstance(doc, dict) or not isinstance(doc.get("languages"), list) or not doc["languages"]:
        raise ValueError(f"{source}: expected an object with a non-empty 'languages' list")
    texts = []
    for n, item in enumerate(doc["languages"]):
        if not isinstance(item, dict) or not all(
            isinstance(item.get(k), str) and item[k].strip() for k in ("code", "name", "text")
        ):
            raise ValueError(f"{source}: language #{n} needs non-empty 'code', 'name' and 'text' strings")
        texts.append(
            ParallelText(
                code=item["code"],
                name=item["name"],
                text=item["text"],
                native=str(item.get("native", "")),
                script=str(item.get("script", "")),
                direction=str(item.get("direction", "ltr")),
                word_spaced=bool(item.get("word_spaced", True)),
            )
        )
    codes = [t.code for t in texts]
    if len(set(codes)) != len(codes):
        raise ValueError(f"{source}: a language code occurs twice")
    return ParallelCorpus(
        title=str(doc.get("title", "")),
        description=str(doc.get("description", "")),
        source=str(doc.get("source", "")),
        license=str(doc.get("license", "")),
        texts=tuple(texts),
    )


def load_parallel(path: "str | Path") -> ParallelCorpus:
    """Read a parallel-text JSON file (see :func:`parse_parallel`)."""
    path = Path(path)
    try:
        doc = json.loads(read_regular_file(path).decode("utf-8"))  # a device or FIFO is refused unread
    except (OSError, ValueError) as exc:  # ValueError: not UTF-8, not JSON, a 5,000-digit number, a device
        raise ValueError(f"{path} cannot be read as a parallel text: {exc}") from None
    return parse_parallel(doc, source=str(path))


@dataclass(frozen=True)
class TaxCell:
    """What one vocabulary makes of one language. ``error`` is set (and the numbers are ``None``) when the
    tokenizer cannot encode the text, e.g. a char-level tokenizer without an unknown token."""

    vocabulary: str
    language: str
    tokens: int | None
    bytes: int
    chars: int
    words: int | None
    premium: float | None = None
    error: str | None = None

    @property
    def bytes_per_token(self) -> float | None:
        """UTF-8 bytes per token (``None`` without tokens).

        >>> TaxCell("v", "en", tokens=4, bytes=16, chars=12, words=3).bytes_per_token
        4.0
        """
        return self.bytes / self.tokens if self.tokens else None

    @property
    def chars_per_token(self) -> float | None:
        """Characters per token (``None`` without tokens)."""
        return self.chars / self.tokens if self.tokens else None

    @property
    def tokens_per_char(self) -> float | None:
        """Tokens per character (``None`` without tokens or characters)."""
        return self.tokens / self.chars if self.tokens is not None and self.chars else None

    @property
    def tokens_per_word(self) -> float | None:
        """Tokens per word (``None`` without tokens, or for a script without spaces between words).

        >>> TaxCell("v", "en", tokens=4, bytes=16, chars=12, words=3).tokens_per_word
        1.3333333333333333
        """
        return self.tokens / self.words if self.tokens is not None and self.words else None


@dataclass(frozen=True)
class TokenTax:
    """Every (vocabulary, language) cell, plus views for charts: :meth:`matrix` and :meth:`records`."""

    vocabularies: tuple[str, ...]
    languages: tuple[str, ...]
    baseline: str
    cells: tuple[TaxCell, ...]

    def cell(self, vocabulary: str, language: str) -> TaxCell:
        """The cell of one vocabulary and one language; ``KeyError`` if there is none."""
        for c in self.cells:
            if c.vocabulary == vocabulary and c.language == language:
                return c
        raise KeyError((vocabulary, language))

    def matrix(self, metric: str = "premium") -> list[list[float | None]]:
        """``metric`` (a :data:`METRICS` key) as rows = languages, columns = vocabularies (a heatmap's z).

        >>> import bpe
        >>> t = token_tax({"gpt4": bpe.load_pretrained("cl100k_base")}, {"en": "a b", "xx": "a b a b"})
        >>> t.matrix("premium")
        [[1.0], [2.0]]
        """
        if metric not in METRICS:
            raise ValueError(f"unknown metric {metric!r}; choose one of: {', '.join(METRICS)}")
        by_key = {(c.vocabulary, c.language): c for c in self.cells}
        return [[getattr(by_key[(v, lang)], metric) for v in self.vocabularies] for lang in self.languages]

    def records(self) -> list[dict[str, Any]]:
        """One flat dict per cell (for a table): vocabulary, language, counts and every metric."""
        out = []
        for c in self.cells:
            out.append(
                {
                    "vocabulary": c.vocabulary,
                    "language": c.language,
                    "tokens": c.tokens,
                    "bytes": c.bytes,
                    "characters": c.chars,
                    "words": c.words,
                    "bytes_per_token": c.bytes_per_token,
                    "tokens_per_char": c.tokens_per_char,
                    "tokens_per_word": c.tokens_per_word,
                    "premium": c.premium,
                    "error": c.error,
                }
            )
        return out


def _as_texts(texts: "Sequence[ParallelText] | Mapping[str, str] | ParallelCorpus") -> list[ParallelText]:
    if isinstance(texts, ParallelCorpus):
        return list(texts.texts)
    if isinstance(texts, Mapping):
        return [ParallelText(code=k, name=k, text=v) for k, v in texts.items()]
    return list(texts)


def token_tax(
    tokenizers: Mapping[str, Tokenizer],
    texts: "Sequence[ParallelText] | Mapping[str, str] | ParallelCorpus",
    *,
    baseline: str = "en",
) -> TokenTax:
    """Encode every text with every tokenizer; the premium is relative to ``baseline``'s token count.

    ``tokenizers`` maps a display name to a tokenizer; ``texts`` is a :class:`ParallelCorpus`, a list of
    :class:`ParallelText` or ``{language: text}``. Special-token spellings are encoded as ordinary text.
    A tokenizer that cannot encode a text gives a cell with ``error`` set instead of raising.
    """
    items = _as_texts(texts)
    codes = [t.code for t in items]
    if not items:
        raise ValueError("no texts to compare")
    if baseline not in codes:
        raise ValueError(f"the baseline language {baseline!r} is not among the texts ({', '.join(codes)})")
    cells: list[TaxCell] = []
    for vocab, tok in tokenizers.items():
        counts: dict[str, int | None] = {}
        errors: dict[str, str] = {}
        for t in items:
            try:
                counts[t.code] = len(tok.encode(t.text, disallowed_special=()))
            except ValueError as exc:  # unknown characters, lone surrogates...
                counts[t.code] = None
                errors[t.code] = str(exc)
        base = counts.get(baseline)
        for t in items:
            n = counts[t.code]
            premium = n / base if n is not None and base else None
            cells.append(
                TaxCell(
                    vocabulary=vocab,
                    language=t.code,
                    tokens=n,
                    bytes=len(t.text.encode("utf-8", "surrogatepass")),
                    chars=len(t.text),
                    words=t.words,
                    premium=premium,
                    error=errors.get(t.code),
                )
            )
    return TokenTax(vocabularies=tuple(tokenizers), languages=tuple(codes), baseline=baseline, cells=tuple(cells))
