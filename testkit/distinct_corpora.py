"""Benchmark corpora that never repeat (issue 23): text in which no passage comes back, so a chunk cache
cannot make a benchmark fast by remembering the first copy.

:func:`testkit.corpora.english` is Jane Austen's 4 MB repeated past 4 MB: at 10 MB the encoder's chunk cache
makes the repeats nearly free, and a benchmark on it measures the cache. Here instead:

* :func:`english` — about 17.4 MB of distinct real English from three kinds of source, interleaved in
  documents of ~8 KB so any prefix holds all three in proportion:

  - Jane Austen's six novels (``r-cran-janeaustenr``, decoded by :mod:`bench.rdata`; ~4.0 MB);
  - Debian's English ``fortunes`` quotation files (every ``*.u8`` file but the ASCII-art ones; duplicate
    quotations dropped; ~2.3 MB);
  - the Python 3.11 documentation's reStructuredText sources (``python3.11-doc``,
    ``usr/share/doc/python3.11/html/_sources/**/*.rst.txt``: tutorial, library reference, HOWTOs, what's
    new...; English prose with reST markup and code examples; the changelog is left out; ~11.0 MB).

  ``bible-kjv-text`` was considered and left out: its text is in the ``bible`` program's own compressed format.

  Measured (``main``): a 10 MB prefix has 2.20 M cl100k chunks of which 75,438 are distinct (the Austen
  text repeated to 10 MB: 22,211); of its 244,558 1 KB windows that start a line, 64 (0.03%) occur twice —
  passages the Python docs really repeat (``email.message`` and its ``compat32`` twin, ``json.dump`` and
  ``dumps``, ``math.isclose`` and ``cmath.isclose``); the repeated Austen text: 109,507.
* :func:`multilingual` — :func:`testkit.corpora.multilingual` (8 MB of interleaved fortunes and Firefox strings
  in eight languages); a 1 MB prefix of it does not repeat (:func:`main` checks it).

:func:`main` (``python -m testkit.distinct_corpora``) builds the caches and prints, for each corpus: size,
sources, the number of unique pre-tokenizer chunks (cl100k) and two repeat checks — how many 1 KB windows
starting at a line start occur twice, and the fraction of non-blank lines that occur more than once.

Cached in ``testkit/data/english_distinct.txt`` (git-ignored, like the other corpora).
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections import Counter

from . import corpora, debian

__all__ = ["english", "english_text", "multilingual", "sources", "repeat_report"]

#: English fortune files that are pictures, not language
_SKIP_FORTUNES = {"art", "ascii-art"}
#: Python docs left out: a list of issue numbers and one-line entries, not prose
_SKIP_PYDOCS = {"whatsnew/changelog.rst.txt"}
_PYDOC_ROOT = "usr/share/doc/python3.11/html/_sources"
_OVERSTRIKE = re.compile(r".\x08")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: the size of the documents the sources are interleaved in (characters, cut after a newline)
DOC_CHARS = 8192


def _fortunes() -> list[str]:
    """Every English quotation of Debian's ``fortunes`` (file by file, sorted), each once, as one text."""
    root = debian.package_root("fortunes") / "usr/share/games/fortunes"
    seen: set[str] = set()
    quotes: list[str] = []
    for path in sorted(root.glob("*.u8")):
        if path.stem in _SKIP_FORTUNES:
            continue
        text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
        text = _CONTROL.sub("", _OVERSTRIKE.sub("", text))
        for quote in re.split(r"(?m)^%\s*$", text):
            quote = quote.strip("\n")
            if quote.strip() and quote not in seen:
                seen.add(quote)
                quotes.append(quote)
    return "\n\n".join(quotes) + "\n"


def _python_docs() -> str:
    """The Python 3.11 documentation's reST sources, sorted by path, each file once."""
    root = debian.package_root("python3.11-doc") / _PYDOC_ROOT
    parts = []
    for path in sorted(root.rglob("*.rst.txt")):
        rel = path.relative_to(root).as_posix()
        if rel in _SKIP_PYDOCS:
            continue
        parts.append(path.read_text(encoding="utf-8").replace("\r\n", "\n").rstrip("\n") + "\n")
    return "\n".join(parts)


def sources() -> dict[str, str]:
    """The three sources, each as one text: ``austen``, ``fortunes``, ``python-docs``."""
    return {"austen": corpora.austen_text() + "\n", "fortunes": _fortunes(), "python-docs": _python_docs()}


def _interleave(texts: dict[str, str], doc_chars: int = DOC_CHARS) -> str:
    """Cut each text into documents (:func:`testkit.corpora.documents`) and take them in turns, always from the
    source that has given the smallest share of its bytes so far (ties: the order of ``texts``), so every
    prefix holds each source in proportion to its size.

    >>> _interleave({"a": "a1\\na2\\n", "b": "b1\\n"}, 3)
    'a1\\nb1\\na2\\n'
    """
    docs = {name: corpora.documents(text, doc_chars) for name, text in texts.items()}
    total = {name: max(1, len(text)) for name, text in texts.items()}
    taken = {name: 0 for name in texts}
    pos = {name: 0 for name in texts}
    out: list[str] = []
    while True:
        live = [n for n in texts if pos[n] < len(docs[n])]
        if not live:
            return "".join(out)
        name = min(live, key=lambda n: taken[n] / total[n])
        doc = docs[name][pos[name]]
        pos[name] += 1
        taken[name] += len(doc)
        out.append(doc)


def english_text() -> str:
    """The whole distinct English corpus (~17.4 MB), cached in ``testkit/data/english_distinct.txt``."""
    cache = debian.DATA_DIR / "english_distinct.txt"
    if cache.exists():
        return cache.read_text(encoding="utf-8")
    text = _interleave(sources())
    corpora._write_atomic(cache, text)
    return text


def english(size_bytes: int) -> str:
    """At least ``size_bytes`` bytes of distinct English (a prefix of :func:`english_text`, cut after a word).
    ``ValueError`` past the corpus's size: it is never repeated."""
    return corpora._take(english_text(), size_bytes)


def multilingual(size_bytes: int) -> str:
    """At least ``size_bytes`` bytes of multilingual text: :func:`testkit.corpora.multilingual` (distinct up to
    its ~8 MB; ``ValueError`` past that rather than a repeat)."""
    return corpora._take(corpora.multilingual_text(), size_bytes)


# ----------------------------------------------------------------------------------------------------
# Checks: how much of a text repeats


def repeat_report(text: str, window: int = 1024) -> dict:
    """How much of ``text`` repeats: ``windows`` (1 KB windows that start at a line start), ``repeated_windows``
    (of them, those whose content occurred earlier: a repeated passage of more than ~1 KB plus a line is
    caught), ``lines`` (non-blank lines) and ``repeated_line_fraction`` (non-blank lines whose text occurs
    more than once, e.g. a reST ``::`` or a chapter heading); ``repeated_long_line_fraction``: the same
    for lines of 40 characters or more.

    >>> r = repeat_report("x" * 5 + "\\n" + "ab\\n" * 600, window=8)
    >>> r["repeated_windows"] > 0
    True
    """
    seen: set[bytes] = set()
    windows = repeated = 0
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    for s in starts:
        if s + window > len(text):
            break
        h = hashlib.blake2b(text[s : s + window].encode("utf-8"), digest_size=16).digest()
        windows += 1
        if h in seen:
            repeated += 1
        else:
            seen.add(h)
    lines = [line for line in text.split("\n") if line.strip()]
    counts = Counter(lines)
    rep_lines = sum(c for c in counts.values() if c > 1)
    long = {line: c for line, c in counts.items() if len(line) >= 40}
    n_long = sum(long.values())
    return dict(
        windows=windows,
        repeated_windows=repeated,
        lines=len(lines),
        repeated_line_fraction=rep_lines / max(1, len(lines)),
        repeated_long_line_fraction=sum(c for c in long.values() if c > 1) / max(1, n_long),
    )


def _describe(name: str, text: str, srcs: str) -> None:
    import regex

    import bpe

    pat = regex.compile(bpe.get_pattern("gpt4").regex)
    chunks = pat.findall(text)
    rep = repeat_report(text)
    print(f"{name}: {len(text.encode('utf-8')):,} bytes, {len(text):,} characters; sources: {srcs}")
    print(f"  cl100k pre-tokenizer: {len(chunks):,} chunks, {len(set(chunks)):,} unique")
    print(
        f"  1 KB windows at line starts: {rep['windows']:,}, repeated: {rep['repeated_windows']:,}; "
        f"non-blank lines: {rep['lines']:,}, {rep['repeated_line_fraction']:.1%} of them occur more than once "
        f"({rep['repeated_long_line_fraction']:.1%} of those of 40+ characters)"
    )


def main(argv: list[str] | None = None) -> int:
    """Build the caches; print size, sources, unique chunks and the repeat checks of each benchmark corpus."""
    argv = sys.argv[1:] if argv is None else argv
    en_mb = float(argv[0]) if argv else 10.0
    ml_mb = float(argv[1]) if len(argv) > 1 else 1.0
    whole = english_text()
    src = sources()
    shares = ", ".join(f"{n} {len(t.encode('utf-8')) / 1e6:.1f} MB" for n, t in src.items())
    _describe("english_text (all)", whole, shares)
    _describe(
        f"english({en_mb:g} MB)",
        english(int(en_mb * 1e6)),
        "the same, interleaved in ~8 KB documents (a prefix holds each in proportion)",
    )
    _describe(
        f"multilingual({ml_mb:g} MB)",
        multilingual(int(ml_mb * 1e6)),
        "fortunes de/es/ru/zh + Firefox ar/hi/ja/ko strings (testkit.corpora.multilingual_text)",
    )
    old = corpora.english(int(en_mb * 1e6))
    _describe(f"for comparison, testkit.corpora.english({en_mb:g} MB)", old, "Austen, repeated past 4 MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
