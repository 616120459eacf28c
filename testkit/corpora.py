"""Real benchmark corpora, built offline from Debian packages and the stdlib.

Every corpus is plain ``str`` text whose UTF-8 encoding is *at least* the requested number of bytes (it is cut
at the end of a word, so usually a few bytes more). The same call always returns the same text on a given
machine.

Sources (nothing else is fetched):

* English prose: Jane Austen's six novels from the Debian package ``r-cran-janeaustenr``, fetched and unpacked
  by :mod:`testkit.debian` (R itself is *not* installed); the novels live in an R lazy-load database that
  :mod:`testkit.rdata` decodes in pure Python.
* Python code: this interpreter's own standard library sources.
* Multilingual text: Debian's ``fortunes-de``, ``fortunes-es``, ``fortunes-ru`` and ``fortunes-zh``
  (plain-text quotation files) and the translated user-interface strings of ``firefox-esr-l10n-ar``,
  ``-hi-in``, ``-ja`` and ``-ko`` (Arabic, Hindi, Japanese, Korean), read and interleaved by
  :mod:`testkit.multilingual_sources`.

Downloads and extracted text are cached in ``testkit/data/`` (git-ignored; the ``BPE_LAB_BENCH_DATA``
environment variable overrides the location), so only the first call of a corpus touches the package
registry.

Run ``python -m testkit.corpora`` to build the caches and print a summary.
"""

from __future__ import annotations

import os
import re
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Iterator

from . import debian, multilingual_sources
from .rdata import STRSXP, RVector, read_lazyload_db

__all__ = [
    "AUSTEN_NOVELS",
    "austen_novels",
    "austen_text",
    "documents",
    "english",
    "english_and_code",
    "held_out_english",
    "multilingual",
    "multilingual_text",
    "python_code",
]


# ----------------------------------------------------------------------------------------------------
# Helpers: cut text to size, write a cache


def _write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file, so a reader never sees half a cache."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _take(text: str, size_bytes: int, start: int = 0) -> str:
    """Text from character ``start`` on, as short as possible but with at least ``size_bytes`` UTF-8 bytes,
    extended to the end of the word it stops in.

    >>> _take("It is a truth universally acknowledged", 9)
    'It is a truth'
    """
    if size_bytes <= 0:
        return ""
    # characters are 1..4 bytes: find the cut by growing a character count
    end = start + size_bytes // 4
    got = len(text[start:end].encode("utf-8"))
    while got < size_bytes and end < len(text):
        step = max(1, (size_bytes - got) // 4)
        got += len(text[end : end + step].encode("utf-8"))
        end += step
    if got < size_bytes:
        raise ValueError(f"only {got} bytes available, {size_bytes} requested")
    # finish the word it stopped in (unless that "word" is a long run without spaces)
    m = _WORD_TAIL.match(text, end)
    if m and end > start and not text[end - 1].isspace():
        end = m.end()
    return text[start:end]


_WORD_TAIL = re.compile(r"\S{0,64}(?!\S)")


def _repeat_to(text: str, size_bytes: int, sep: str = "\n") -> str:
    """``text`` repeated whole (joined by ``sep``) until it has ``size_bytes`` bytes."""
    n = len(text.encode("utf-8"))
    if n >= size_bytes:
        return text
    k = -(-size_bytes // (n + len(sep)))
    return sep.join([text] * (k + 1))


# ----------------------------------------------------------------------------------------------------
# English: Jane Austen

#: Variable names in janeaustenr's data, in publication order (as ``austen_books()``).
AUSTEN_NOVELS = (
    "sensesensibility",
    "prideprejudice",
    "mansfieldpark",
    "emma",
    "northangerabbey",
    "persuasion",
)
_AUSTEN_DB = "usr/lib/R/site-library/janeaustenr/data/Rdata"


def austen_novels() -> dict[str, list[str]]:
    """The six novels as lists of lines (``NA`` lines dropped), decoded from the ``r-cran-janeaustenr``
    package's lazy-load database."""
    db = read_lazyload_db(debian.package_path("r-cran-janeaustenr", _AUSTEN_DB + ".rdb").with_suffix(""))
    out: dict[str, list[str]] = {}
    for name in AUSTEN_NOVELS:
        vec = db.get(name)
        if not isinstance(vec, RVector) or vec.rtype != STRSXP:
            raise RuntimeError(f"janeaustenr: {name!r} is not a character vector")
        out[name] = [s for s in vec if s is not None]
    return out


def austen_text() -> str:
    """All six novels, every line joined with ``"\\n"`` (about 4.0 MB).

    Cached in ``testkit/data/austen.txt`` after the first call.
    """
    cache = debian.DATA_DIR / "austen.txt"
    if cache.exists():
        return cache.read_text(encoding="utf-8")
    novels = austen_novels()
    text = "\n".join(line for name in AUSTEN_NOVELS for line in novels[name])
    _write_atomic(cache, text)
    return text


def english(size_bytes: int) -> str:
    """Real English prose of at least ``size_bytes`` UTF-8 bytes.

    A prefix of Jane Austen's six novels (starting with "SENSE AND SENSIBILITY"), one line of the original per
    line. The novels total about 4.0 MB; for a larger size the whole text is repeated (joined by a newline) as
    often as needed, so a 10 MB corpus holds each novel two or three times.
    """
    return _take(_repeat_to(austen_text(), size_bytes), size_bytes)


def held_out_english(size_bytes: int) -> str:
    """English text of at least ``size_bytes`` bytes taken from the *end* of the Austen text (the end of
    "Persuasion" and before), starting at a line.

    It does not overlap ``english(n)`` as long as ``n + size_bytes`` stays below the size of the whole text
    (about 4.0 MB), so a tokenizer trained on ``english(n)`` can be evaluated on it. At most half of the text
    is available (``ValueError`` beyond).
    """
    text = austen_text()
    total = len(text.encode("utf-8"))
    if size_bytes > total // 2:
        raise ValueError(f"held-out English is limited to {total // 2} bytes")
    # every character is at least one byte: size_bytes characters are enough
    start = len(text) - size_bytes
    nl = text.rfind("\n", 0, start)
    start = nl + 1 if nl >= 0 else 0
    return text[start:]


# ----------------------------------------------------------------------------------------------------
# Python code: the stdlib

_SKIP_DIRS = {"site-packages", "dist-packages", "__pycache__"}


def _stdlib_files() -> Iterator[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        for name in sorted(filenames):
            if name.endswith(".py"):
                yield Path(dirpath) / name


def python_code(size_bytes: int) -> str:
    """Real Python source of at least ``size_bytes`` bytes: the interpreter's standard library ``*.py`` files
    (``sysconfig.get_paths()["stdlib"]``, without ``site-packages``), walked in sorted order and concatenated,
    each file ending with a newline. Files that are not valid UTF-8 are skipped. Deterministic for a given
    Python installation; repeated if too small.
    """
    parts: list[str] = []
    got = 0
    for path in _stdlib_files():
        try:
            src = path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        src = src.replace("\r\n", "\n")
        if not src.endswith("\n"):
            src += "\n"
        parts.append(src)
        got += len(src.encode("utf-8"))
        if got >= size_bytes:
            break
    if not parts:
        raise RuntimeError("no standard library sources found")
    return _take(_repeat_to("".join(parts), size_bytes, sep=""), size_bytes)


# ----------------------------------------------------------------------------------------------------
# Multilingual: Debian fortunes + Firefox language packs


def multilingual_text() -> str:
    """The whole multilingual corpus (about 8 MB), cached in ``testkit/data/multilingual.txt``: German, Spanish,
    Russian and Chinese (classical poems and sayings) fortunes, and Arabic, Hindi, Japanese and Korean Firefox
    interface strings, interleaved by bytes."""
    cache = debian.DATA_DIR / "multilingual.txt"
    if cache.exists():
        return cache.read_text(encoding="utf-8")
    text = multilingual_sources.interleaved_text()
    _write_atomic(cache, text)
    return text


def multilingual(size_bytes: int) -> str:
    """Real multilingual text of at least ``size_bytes`` bytes: a prefix of :func:`multilingual_text`, in
    which Chinese, Russian, Arabic, German, Hindi, Japanese, Spanish and Korean documents alternate (each
    language gets about an equal share of bytes until its source runs out, so the first few MB are balanced).
    Repeated whole if more is asked than exists.

    The Firefox language packs follow Debian security updates, so the Arabic/Hindi/Japanese/Korean part can
    change when the cache in ``testkit/data/`` is rebuilt from a newer package.
    """
    return _take(_repeat_to(multilingual_text(), size_bytes, sep="\n\n"), size_bytes)


def english_and_code(size_bytes: int) -> str:
    """All of Austen (~4 MB of English prose) followed by stdlib Python to fill ``size_bytes``.

    The 10 MB benchmark corpus: real text with many distinct chunks, rather than the novels repeated.
    """
    prose = austen_text()
    rest = max(0, size_bytes - len(prose.encode("utf-8")))
    return prose + ("\n" + python_code(rest) if rest else "")


#: The document size the training benchmark feeds every trainer (characters; ~bytes for English and code).
DOC_CHARS = 8192


def documents(text: str, doc_chars: int = DOC_CHARS) -> list[str]:
    r"""``text`` cut into consecutive documents of at least ``doc_chars`` characters, each ending after a
    newline (or at the end of the text).

    The way trainers are fed in practice: a data set's records, or a long text cut into pieces (nanochat caps
    its documents at 10,000 characters). A line longer than ``doc_chars`` stays whole; joined back, the
    documents are ``text``.

    >>> documents("one\ntwo\nthree\n", 6)
    ['one\ntwo\n', 'three\n']
    """
    out: list[str] = []
    start = 0
    while start < len(text):
        end = text.find("\n", start + doc_chars - 1)
        end = len(text) if end < 0 else end + 1
        out.append(text[start:end])
        start = end
    return out


def _summary(name: str, text: str) -> None:
    n = len(text.encode("utf-8"))
    preview = text[:200].replace("\n", "\u23ce")
    print(f"{name}: {n:,} bytes, {len(text):,} chars, {len(text.split()):,} words")
    print(f"  {preview}")


def main(argv: list[str] | None = None) -> int:
    """Build the caches and print size and the first 200 characters of each corpus."""
    import time

    argv = sys.argv[1:] if argv is None else argv
    size = int(argv[0]) if argv else 1_000_000
    for name, fn in (
        ("austen_text (all)", lambda _n: austen_text()),
        (f"english({size})", english),
        (f"held_out_english({size // 10})", lambda n: held_out_english(n // 10)),
        (f"python_code({size})", python_code),
        ("multilingual_text (all)", lambda _n: multilingual_text()),
        (f"multilingual({size})", multilingual),
    ):
        t = time.perf_counter()
        text = fn(size)
        dt = time.perf_counter() - t
        _summary(f"{name} [{dt:.2f}s]", text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
