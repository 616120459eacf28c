"""The multilingual corpus's sources: Debian's fortune packages (German, Spanish, Russian, Chinese quotations)
and Firefox ESR language packs (Arabic, Hindi, Japanese, Korean interface strings), read into documents per
language and interleaved by bytes (:func:`interleaved_text`). :mod:`testkit.corpora` caches the result and cuts
it to size; :mod:`testkit.debian` fetches and unpacks the packages.

>>> _interleave({"de": ["aaaa", "bb"], "zh": ["c"]})
'c\\n\\naaaa\\n\\nbb'
"""

from __future__ import annotations

import re
import zipfile

from . import debian

__all__ = ["interleaved_text"]

#: Debian fortune packages: package -> (folder under the package root, language)
_FORTUNES = {
    "fortunes-de": ("usr/share/games/fortunes/de", "de"),
    "fortunes-es": ("usr/share/games/fortunes/es", "es"),
    "fortunes-ru": ("usr/share/games/fortunes/ru", "ru"),
    "fortunes-zh": ("usr/share/games/fortunes", "zh"),
}
#: Firefox ESR language packs: package -> language (their UI strings are the text)
_FIREFOX_L10N = {
    "firefox-esr-l10n-ar": "ar",
    "firefox-esr-l10n-hi-in": "hi",
    "firefox-esr-l10n-ja": "ja",
    "firefox-esr-l10n-ko": "ko",
}
_LANG_ORDER = ("zh", "ru", "ar", "de", "hi", "ja", "es", "ko")
_SKIP_FORTUNE_FILES = {"asciiart"}  # pictures, not language

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_BOX_DRAWING = re.compile(r"[\u2500-\u257f]")


def _clean(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.sub("", _ANSI.sub("", text))


def _fortune_docs(package: str, folder: str) -> list[str]:
    """Quotations of one fortune package, file by file (sorted), in file order.

    Only regular files of the package's own folder (no ``.dat`` indexes, no symlinks, no sub-folders: the
    Spanish ``off/`` section is left out), and no quotes made mostly of box-drawing characters (tables)."""
    root = debian.package_root(package) / folder
    docs: list[str] = []
    for path in sorted(root.iterdir()):
        if path.is_symlink() or not path.is_file() or path.suffix in (".dat", ".u8", ".pre"):
            continue
        if path.name in _SKIP_FORTUNE_FILES or path.name.endswith(".fortunes-pre"):
            continue
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            continue
        for quote in re.split(r"(?m)^%\s*$", _clean(text)):
            quote = quote.strip("\n")
            # drop empty quotes and box-drawn tables (the Chinese file has many)
            if quote.strip() and len(_BOX_DRAWING.findall(quote)) * 50 <= len(quote):
                docs.append(quote)
    return docs


_FTL_MESSAGE = re.compile(r"^-?[A-Za-z][\w-]*\s*=\s?(.*)$")
_FTL_ATTRIBUTE = re.compile(r"^\s+\.[\w-]+\s*=\s?(.*)$")
_PROPERTY = re.compile(r"^[\w.\-\[\]]+\s*[=:]\s*(.*)$")


def _l10n_docs(package: str) -> list[str]:
    """Translated strings of a Firefox language pack: one document per ``.ftl``/``.properties`` file (sorted
    by name), one string per line; only strings containing non-ASCII letters are kept (so CSS values, keys and
    untranslated English are dropped)."""
    root = debian.package_root(package)
    xpis = sorted(root.glob("usr/lib/firefox-esr/browser/extensions/langpack-*.xpi"))
    if not xpis:
        raise RuntimeError(f"{package}: no language pack found")
    docs: list[str] = []
    with zipfile.ZipFile(xpis[0]) as z:
        for name in sorted(z.namelist()):
            if not name.endswith((".ftl", ".properties")):
                continue
            try:
                text = z.read(name).decode("utf-8")
            except UnicodeDecodeError:
                continue
            lines = []
            for line in _clean(text).split("\n"):
                if not line.strip() or line.lstrip().startswith(("#", "!")):
                    continue
                m = _FTL_MESSAGE.match(line) or _FTL_ATTRIBUTE.match(line) or _PROPERTY.match(line)
                value = (m.group(1) if m else line).strip()
                if any(ord(c) > 0x7F and c.isalpha() for c in value):
                    lines.append(value)
            if lines:
                docs.append("\n".join(lines))
    return docs


def _interleave(by_lang: dict[str, list[str]]) -> str:
    """Mix documents of all languages: next comes the language that has contributed the fewest bytes so far
    (ties: ``_LANG_ORDER``), so every prefix of the result is roughly balanced while all languages last."""
    pos = {lang: 0 for lang in by_lang}
    emitted = {lang: 0 for lang in by_lang}
    order = sorted(by_lang, key=lambda lg: _LANG_ORDER.index(lg) if lg in _LANG_ORDER else 99)
    out: list[str] = []
    live = [lg for lg in order if by_lang[lg]]
    while live:
        lang = min(live, key=lambda lg: (emitted[lg], order.index(lg)))
        doc = by_lang[lang][pos[lang]]
        out.append(doc)
        emitted[lang] += len(doc.encode("utf-8")) + 2
        pos[lang] += 1
        if pos[lang] >= len(by_lang[lang]):
            live.remove(lang)
    return "\n\n".join(out)


def interleaved_text() -> str:
    """Every document of every source, interleaved by bytes (about 8 MB; nothing cached here)."""
    by_lang: dict[str, list[str]] = {}
    for package, (folder, lang) in _FORTUNES.items():
        by_lang[lang] = _fortune_docs(package, folder)
    for package, lang in _FIREFOX_L10N.items():
        by_lang[lang] = _l10n_docs(package)
    return _interleave(by_lang)
