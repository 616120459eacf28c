"""Real benchmark corpora, built offline from Debian packages and the stdlib.

Every corpus is plain ``str`` text whose UTF-8 encoding is *at least* the
requested number of bytes (it is cut at the end of a word, so usually a few
bytes more).  The same call always returns the same text on a given machine.

Sources (nothing else is fetched):

* English prose: Jane Austen's six novels from the Debian package
  ``r-cran-janeaustenr``.  The ``.deb`` is fetched with ``apt-get download``
  and unpacked with ``dpkg-deb -x`` (R itself is *not* installed); the novels
  live in an R lazy-load database that :class:`RUnserializer` decodes in pure
  Python.
* Python code: this interpreter's own standard library sources.
* Multilingual text: Debian's ``fortunes-de``, ``fortunes-es``,
  ``fortunes-ru`` and ``fortunes-zh`` (plain-text quotation files) and the
  translated user-interface strings of ``firefox-esr-l10n-ar``, ``-hi-in``,
  ``-ja`` and ``-ko`` (Arabic, Hindi, Japanese, Korean).

Downloads and extracted text are cached in ``bench/data/`` (git-ignored; the
``BPE_LAB_BENCH_DATA`` environment variable overrides the location), so only
the first call of a corpus touches the package registry.

Run ``python -m bench.corpora`` to build the caches and print a summary.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import re
import shutil
import struct
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

__all__ = [
    "AUSTEN_NOVELS",
    "RUnserializer",
    "austen_novels",
    "austen_text",
    "english",
    "held_out_english",
    "multilingual",
    "multilingual_text",
    "python_code",
    "read_lazyload_db",
    "unserialize",
]

DATA_DIR = Path(os.environ.get("BPE_LAB_BENCH_DATA") or Path(__file__).resolve().parent / "data")

# --------------------------------------------------------------------------- #
# Debian packages
# --------------------------------------------------------------------------- #

_apt_updated = False


def _run(cmd: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)


def _deb_root(package: str) -> Path:
    """Return a directory holding the unpacked files of Debian ``package``.

    The ``.deb`` is downloaded into ``DATA_DIR/debs`` with ``apt-get download``
    (once), then unpacked with ``dpkg-deb -x`` into ``DATA_DIR/pkgs/<package>``.
    Nothing is installed.  If the download fails, ``apt-get update`` is tried
    once (when running as root) before giving up with a ``RuntimeError``.
    """
    root = DATA_DIR / "pkgs" / package
    if (root / ".complete").exists():
        return root
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    with open(DATA_DIR / ".lock", "w") as lock:
        try:
            import fcntl

            fcntl.flock(lock, fcntl.LOCK_EX)  # one download at a time across processes
        except ImportError:  # not on POSIX: no locking
            pass
        if (root / ".complete").exists():
            return root
        return _fetch_and_unpack(package, root)


def _fetch_and_unpack(package: str, root: Path) -> Path:
    global _apt_updated
    for tool in ("apt-get", "dpkg-deb"):
        if shutil.which(tool) is None:
            raise RuntimeError(
                f"`{tool}` was not found: the benchmark corpora need a Debian system to fetch the "
                f"package {package!r} (or install it: `apt-get install {package}`)."
            )
    debs = DATA_DIR / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    found = sorted(debs.glob(f"{package}_*.deb"))
    if not found:
        proc = _run(["apt-get", "download", package], cwd=debs)
        if proc.returncode != 0 and not _apt_updated and hasattr(os, "geteuid") and os.geteuid() == 0:
            _apt_updated = True
            _run(["apt-get", "update", "-qq"])
            proc = _run(["apt-get", "download", package], cwd=debs)
        found = sorted(debs.glob(f"{package}_*.deb"))
        if proc.returncode != 0 or not found:
            raise RuntimeError(
                f"Could not download the Debian package {package!r} with `apt-get download {package}` "
                f"(exit {proc.returncode}): {proc.stderr.strip()[-500:]}\n"
                f"Run `apt-get update` and retry, or install the package: `apt-get install {package}`."
            )
    deb = found[-1]
    tmp = Path(tempfile.mkdtemp(prefix=f".{package}-", dir=debs))
    try:
        proc = _run(["dpkg-deb", "-x", str(deb), str(tmp)])
        if proc.returncode != 0:
            raise RuntimeError(f"`dpkg-deb -x {deb}` failed: {proc.stderr.strip()[-500:]}")
        (tmp / ".complete").write_text(deb.name + "\n")
        root.parent.mkdir(parents=True, exist_ok=True)
        if root.exists():
            shutil.rmtree(root)
        os.replace(tmp, root)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return root


def _package_path(package: str, rel: str) -> Path:
    """Path of ``/rel`` from ``package``: the installed copy if the package is
    installed on this system, otherwise the copy unpacked from its ``.deb``."""
    installed = Path("/") / rel
    if installed.exists() and Path(f"/var/lib/dpkg/info/{package}.list").exists():
        return installed
    return _deb_root(package) / rel


def _write_atomic(path: Path, text: str) -> None:
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


# --------------------------------------------------------------------------- #
# R serialization (XDR, versions 2 and 3) and lazy-load databases
# --------------------------------------------------------------------------- #

# SEXP types
NILSXP, SYMSXP, LISTSXP, CLOSXP, ENVSXP, PROMSXP, LANGSXP = 0, 1, 2, 3, 4, 5, 6
SPECIALSXP, BUILTINSXP, CHARSXP, LGLSXP, INTSXP, REALSXP, CPLXSXP = 7, 8, 9, 10, 13, 14, 15
STRSXP, DOTSXP, VECSXP, EXPRSXP, BCODESXP, EXTPTRSXP, WEAKREFSXP = 16, 17, 19, 20, 21, 22, 23
RAWSXP, S4SXP = 24, 25
# pseudo-types used only in the serialization stream
REFSXP, NILVALUE_SXP, GLOBALENV_SXP, UNBOUNDVALUE_SXP, MISSINGARG_SXP = 255, 254, 253, 252, 251
BASENAMESPACE_SXP, NAMESPACESXP, PACKAGESXP, PERSISTSXP = 250, 249, 248, 247
CLASSREFSXP, GENERICREFSXP, BCREPDEF, BCREPREF = 246, 245, 244, 243
EMPTYENV_SXP, BASEENV_SXP, ATTRLANGSXP, ATTRLISTSXP, ALTREP_SXP = 242, 241, 240, 239, 238

# CHARSXP encoding flags (in the "levels" bits)
_BYTES_MASK, _LATIN1_MASK, _UTF8_MASK, _ASCII_MASK = 1 << 1, 1 << 2, 1 << 3, 1 << 6

NA_INTEGER = -(2**31)


@dataclass(frozen=True)
class RSymbol:
    """An R symbol (``SYMSXP``)."""

    name: str


@dataclass(frozen=True)
class RSpecial:
    """A singleton R value (global environment, missing argument, a namespace...)."""

    kind: str
    detail: Any = None


class RVector(list):
    """An R vector: a ``list`` of Python values plus the R type and attributes.

    ``STRSXP`` elements are ``str`` or ``None`` (``NA``); ``INTSXP`` ``int`` or
    ``None``; ``LGLSXP`` ``bool`` or ``None``; ``REALSXP`` ``float``;
    ``CPLXSXP`` ``complex``; ``VECSXP``/``EXPRSXP`` any decoded value.
    """

    def __init__(self, rtype: int, items: Iterable[Any] = (), attributes: dict[str, Any] | None = None):
        super().__init__(items)
        self.rtype = rtype
        self.attributes: dict[str, Any] = attributes or {}

    @property
    def names(self) -> list[str | None] | None:
        names = self.attributes.get("names")
        return list(names) if names is not None else None


@dataclass
class RPairlist:
    """A pairlist-like node chain (``LISTSXP``, ``LANGSXP``, closures...):
    ``items`` holds ``(tag, value)`` pairs; ``tail`` is a non-NULL final CDR."""

    rtype: int
    items: list[tuple[Any, Any]] = field(default_factory=list)
    attributes: dict[str, Any] = field(default_factory=dict)
    tail: Any = None

    def as_dict(self) -> dict[str, Any]:
        return {_tag_name(t): v for t, v in self.items}


@dataclass
class ROpaque:
    """An R object that is decoded only far enough to be skipped
    (environments, external pointers, byte code, builtins, S4 objects...)."""

    rtype: int
    parts: dict[str, Any] = field(default_factory=dict)
    attributes: dict[str, Any] = field(default_factory=dict)


def _tag_name(tag: Any) -> str:
    if isinstance(tag, RSymbol):
        return tag.name
    return "" if tag is None else str(tag)


class RUnserializer:
    """Decoder for R's serialization format (``serialize()``/``saveRDS()``).

    Supports the XDR (``X``) format, which R uses by default, and the native
    little-endian binary (``B``) format, versions 2 and 3.  Character vectors,
    atomic vectors, lists, attributes, pairlists and the ALTREP compact forms
    (``compact_intseq``, ``compact_realseq``, ``deferred_string``, ``wrap_*``)
    are decoded into Python values; environments, closures, byte code and
    similar objects are parsed (so the stream stays in sync) but returned as
    :class:`ROpaque` / :class:`RPairlist` placeholders.
    """

    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0
        self.refs: list[Any] = []
        self.native_encoding = "UTF-8"
        fmt = data[:2]
        if fmt == b"X\n":
            self._i4, self._f8 = struct.Struct(">i"), struct.Struct(">d")
        elif fmt == b"B\n":
            self._i4, self._f8 = struct.Struct("<i"), struct.Struct("<d")
        elif fmt == b"A\n":
            raise ValueError("ASCII R serialization is not supported")
        else:
            raise ValueError(f"not an R serialization stream (starts with {data[:8]!r})")
        self.pos = 2
        self.version = self._int()
        self.writer_version = self._int()
        self.min_reader_version = self._int()
        if self.version == 3:
            n = self._int()
            self.native_encoding = self._bytes(n).decode("ascii", "replace") or "UTF-8"
        elif self.version != 2:
            raise ValueError(f"unsupported R serialization version {self.version}")

    # -- primitive readers -------------------------------------------------
    def _int(self) -> int:
        (v,) = self._i4.unpack_from(self.data, self.pos)
        self.pos += 4
        return v

    def _bytes(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise ValueError("truncated R serialization stream")
        b = self.data[self.pos : self.pos + n]
        self.pos += n
        return b

    def _length(self) -> int:
        n = self._int()
        if n == -1:  # long vector: two more ints
            hi, lo = self._int(), self._int()
            n = (hi << 32) + (lo & 0xFFFFFFFF)
        return n

    def _ints(self, n: int) -> list[int]:
        fmt = self._i4.format[0] + f"{n}i"
        vals = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += 4 * n
        return list(vals)

    def _doubles(self, n: int) -> list[float]:
        fmt = self._f8.format[0] + f"{n}d"
        vals = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += 8 * n
        return list(vals)

    def _decode_char(self, raw: bytes, levels: int) -> str:
        if levels & _UTF8_MASK:
            return raw.decode("utf-8", "replace")
        if levels & _LATIN1_MASK:
            return raw.decode("latin-1")
        if levels & _ASCII_MASK:
            return raw.decode("ascii", "replace")
        if levels & _BYTES_MASK:
            return raw.decode("utf-8", "surrogateescape")
        try:  # native encoding of the writer
            return raw.decode(self.native_encoding)
        except (LookupError, UnicodeDecodeError):
            try:
                return raw.decode("utf-8")
            except UnicodeDecodeError:
                return raw.decode("latin-1")

    # -- items ---------------------------------------------------------------
    def read(self) -> Any:
        """Decode the (single) object of the stream."""
        return self._item()

    def _string_vec(self) -> list[Any]:
        if self._int() != 0:
            raise ValueError("names in persistent strings are not supported")
        return [self._item() for _ in range(self._int())]

    def _attributes(self) -> dict[str, Any]:
        attr = self._item()
        if isinstance(attr, RPairlist):
            return attr.as_dict()
        return {}

    def _item(self) -> Any:
        return self._item_from_flags(self._int())

    def _item_from_flags(self, flags: int) -> Any:
        rtype = flags & 0xFF
        levels = flags >> 12
        has_attr = bool(flags & (1 << 9))
        has_tag = bool(flags & (1 << 10))

        if rtype == NILVALUE_SXP:
            return None
        if rtype in _SINGLETONS:
            return RSpecial(_SINGLETONS[rtype])
        if rtype == REFSXP:
            idx = flags >> 8
            if idx == 0:
                idx = self._int()
            return self.refs[idx - 1]
        if rtype == PERSISTSXP:
            s = RSpecial("persistent", self._string_vec())
            self.refs.append(s)
            return s
        if rtype == SYMSXP:
            name = self._item()
            s = RSymbol(name if isinstance(name, str) else "NA")
            self.refs.append(s)
            return s
        if rtype in (PACKAGESXP, NAMESPACESXP):
            s = RSpecial("package" if rtype == PACKAGESXP else "namespace", self._string_vec())
            self.refs.append(s)
            return s
        if rtype == ENVSXP:
            env = ROpaque(ENVSXP, {"locked": self._int()})
            self.refs.append(env)
            env.parts["enclos"] = self._item()
            env.parts["frame"] = self._item()
            env.parts["hashtab"] = self._item()
            attr = self._item()
            if isinstance(attr, RPairlist):
                env.attributes = attr.as_dict()
            return env
        if rtype in (LISTSXP, LANGSXP, CLOSXP, PROMSXP, DOTSXP):
            return self._pairlist(flags)
        if rtype == ALTREP_SXP:
            return self._altrep()

        # vector-like objects: payload first, attributes after
        value: Any
        if rtype == CHARSXP:
            n = self._int()
            value = None if n == -1 else self._decode_char(self._bytes(n), levels)
            if has_attr:
                self._item()  # discarded, as R does
            return value
        if rtype == EXTPTRSXP:
            value = ROpaque(EXTPTRSXP)
            self.refs.append(value)
            value.parts["prot"] = self._item()
            value.parts["tag"] = self._item()
        elif rtype == WEAKREFSXP:
            value = ROpaque(WEAKREFSXP)
            self.refs.append(value)
        elif rtype in (SPECIALSXP, BUILTINSXP):
            value = ROpaque(rtype, {"name": self._bytes(self._int()).decode("ascii", "replace")})
        elif rtype == LGLSXP:
            value = RVector(rtype, (None if v == NA_INTEGER else bool(v) for v in self._ints(self._length())))
        elif rtype == INTSXP:
            value = RVector(rtype, (None if v == NA_INTEGER else v for v in self._ints(self._length())))
        elif rtype == REALSXP:
            value = RVector(rtype, self._doubles(self._length()))
        elif rtype == CPLXSXP:
            d = self._doubles(2 * self._length())
            value = RVector(rtype, (complex(d[i], d[i + 1]) for i in range(0, len(d), 2)))
        elif rtype in (STRSXP, VECSXP, EXPRSXP):
            n = self._length()
            value = RVector(rtype, [self._item() for _ in range(n)])
        elif rtype == RAWSXP:
            value = RVector(rtype, self._bytes(self._length()))
        elif rtype == BCODESXP:
            reps: list[Any] = [None] * self._int()
            value = self._bc1(reps)
        elif rtype == S4SXP:
            value = ROpaque(S4SXP)
        else:
            raise ValueError(f"unsupported R SEXP type {rtype} at byte {self.pos}")
        if has_attr:
            value.attributes = self._attributes()
        return value

    def _pairlist(self, flags: int) -> RPairlist:
        """Read a chain of pairlist cells iteratively (long lists stay flat)."""
        node = RPairlist(flags & 0xFF)
        first = True
        while True:
            has_attr = bool(flags & (1 << 9))
            has_tag = bool(flags & (1 << 10))
            attrs = self._attributes() if has_attr else {}
            if first:
                node.attributes = attrs
            tag = self._item() if has_tag else None
            car = self._item()
            node.items.append((tag, car))
            first = False
            flags = self._int()
            if flags & 0xFF == LISTSXP:
                continue
            node.tail = self._item_from_flags(flags)
            return node

    def _bc1(self, reps: list[Any]) -> ROpaque:
        code = self._item()
        consts = []
        for _ in range(self._int()):
            t = self._int()
            if t == BCODESXP:
                consts.append(self._bc1(reps))
            elif t in (LANGSXP, LISTSXP, BCREPDEF, BCREPREF, ATTRLANGSXP, ATTRLISTSXP):
                consts.append(self._bc_lang(t, reps))
            else:
                consts.append(self._item())
        return ROpaque(BCODESXP, {"code": code, "consts": consts})

    def _bc_lang(self, t: int, reps: list[Any]) -> Any:
        if t == BCREPREF:
            return reps[self._int()]
        if t in (BCREPDEF, LANGSXP, LISTSXP, ATTRLANGSXP, ATTRLISTSXP):
            pos = -1
            if t == BCREPDEF:
                pos = self._int()
                t = self._int()
            has_attr = t in (ATTRLANGSXP, ATTRLISTSXP)
            t = {ATTRLANGSXP: LANGSXP, ATTRLISTSXP: LISTSXP}.get(t, t)
            node = RPairlist(t)
            if pos >= 0:
                reps[pos] = node
            if has_attr:
                node.attributes = self._attributes()
            tag = self._item()
            car = self._bc_lang(self._int(), reps)
            node.items.append((tag, car))
            node.tail = self._bc_lang(self._int(), reps)
            return node
        return self._item()  # an ordinary item after a padding integer

    def _altrep(self) -> Any:
        info = self._item()
        state = self._item()
        attr = self._item()
        attributes = attr.as_dict() if isinstance(attr, RPairlist) else {}
        cls = ""
        if isinstance(info, RPairlist) and info.items and isinstance(info.items[0][1], RSymbol):
            cls = info.items[0][1].name
        value = _altrep_expand(cls, state)
        value.attributes = attributes
        return value


_SINGLETONS = {
    GLOBALENV_SXP: "globalenv",
    UNBOUNDVALUE_SXP: "unbound",
    MISSINGARG_SXP: "missingarg",
    BASENAMESPACE_SXP: "basenamespace",
    EMPTYENV_SXP: "emptyenv",
    BASEENV_SXP: "baseenv",
}


def _r_number_to_str(v: Any) -> str | None:
    if v is None or (isinstance(v, float) and v != v):
        return None
    if isinstance(v, float):
        if v == int(v) and abs(v) < 1e15:
            return str(int(v))
        return f"{v:.15g}"
    return str(v)


def _altrep_expand(cls: str, state: Any) -> RVector:
    """Materialize a serialized ALTREP object as an ordinary :class:`RVector`."""
    if cls in ("compact_intseq", "compact_realseq"):
        if isinstance(state, RVector) and len(state) == 3:
            n, n1, inc = (int(x) for x in state)
            rtype = INTSXP if cls == "compact_intseq" else REALSXP
            seq = range(n1, n1 + inc * n, inc) if inc else [n1] * n
            return RVector(rtype, (float(x) if rtype == REALSXP else x for x in seq))
        if isinstance(state, RVector):  # already expanded
            return RVector(state.rtype, state)
    if cls == "deferred_string":
        arg = state.items[0][1] if isinstance(state, RPairlist) else state
        if isinstance(arg, RVector):
            return RVector(STRSXP, (_r_number_to_str(x) for x in arg))
    if cls.startswith("wrap_"):
        inner = state.items[0][1] if isinstance(state, RPairlist) else state
        if isinstance(inner, RVector):
            return RVector(inner.rtype, inner)
    if isinstance(state, RVector):
        return RVector(state.rtype, state)
    raise ValueError(f"unsupported ALTREP class {cls!r}")


def unserialize(data: bytes) -> Any:
    """Decode one R-serialized object; gzip/bzip2/xz-compressed input (as
    written by ``saveRDS``) is decompressed first."""
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    elif data[:3] == b"BZh":
        data = bz2.decompress(data)
    elif data[:6] == b"\xfd7zXZ\x00":
        data = lzma.decompress(data)
    return RUnserializer(data).read()


def _lazyload_blob(blob: bytes, compressed: int) -> bytes:
    """Decompress one value of a lazy-load ``.rdb`` file (R's R_decompress1/2/3)."""
    if not compressed:
        return blob
    (n,) = struct.unpack_from(">I", blob, 0)
    if compressed == 1:
        out = zlib.decompress(blob[4:])
    else:
        kind, body = blob[4:5], blob[5:]
        if kind == b"0":
            out = body
        elif kind == b"Z":
            out = zlib.decompress(body)
        elif kind == b"2":
            out = bz2.decompress(body)
        elif kind == b"X":
            out = lzma.decompress(body)
        else:
            raise ValueError(f"unknown lazy-load compression type {kind!r}")
    if len(out) != n:
        raise ValueError(f"lazy-load value: expected {n} bytes, got {len(out)}")
    return out


def read_lazyload_db(base: str | os.PathLike[str]) -> dict[str, Any]:
    """Read every variable of an R lazy-load database ``<base>.rdx`` + ``<base>.rdb``.

    The ``.rdx`` index is a (gzip- or zlib-compressed) serialized list whose
    ``variables`` element maps names to ``(offset, length)`` into the ``.rdb``;
    each such slice is a compressed serialization of the value.
    """
    base = Path(base)
    raw = base.with_suffix(".rdx").read_bytes()
    if raw[:2] != b"\x1f\x8b" and raw[4:5] == b"\x78":  # length-prefixed zlib
        raw = zlib.decompress(raw[4:])
    index = unserialize(raw)
    if not isinstance(index, RVector):
        raise ValueError("unexpected lazy-load index")
    entries = dict(zip(index.names or [], index))
    variables = entries["variables"]
    compressed = entries.get("compressed")
    level = 1
    if isinstance(compressed, RVector) and compressed:
        c = compressed[0]
        level = int(c) if c is not None else 1
    rdb = base.with_suffix(".rdb").read_bytes()
    out: dict[str, Any] = {}
    for name, (offset, length) in zip(variables.names or [], variables):
        out[name] = unserialize(_lazyload_blob(rdb[offset : offset + length], level))
    return out


# --------------------------------------------------------------------------- #
# helpers to cut text to size
# --------------------------------------------------------------------------- #


def _take(text: str, size_bytes: int, start: int = 0) -> str:
    """Text from character ``start`` on, as short as possible but with at least
    ``size_bytes`` UTF-8 bytes, extended to the end of the word it stops in."""
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


# --------------------------------------------------------------------------- #
# English: Jane Austen
# --------------------------------------------------------------------------- #

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
    """The six novels as lists of lines (``NA`` lines dropped), decoded from
    the ``r-cran-janeaustenr`` package's lazy-load database."""
    db = read_lazyload_db(_package_path("r-cran-janeaustenr", _AUSTEN_DB + ".rdb").with_suffix(""))
    out: dict[str, list[str]] = {}
    for name in AUSTEN_NOVELS:
        vec = db.get(name)
        if not isinstance(vec, RVector) or vec.rtype != STRSXP:
            raise RuntimeError(f"janeaustenr: {name!r} is not a character vector")
        out[name] = [s for s in vec if s is not None]
    return out


def austen_text() -> str:
    """All six novels, every line joined with ``"\\n"`` (about 4.0 MB).

    Cached in ``bench/data/austen.txt`` after the first call.
    """
    cache = DATA_DIR / "austen.txt"
    if cache.exists():
        return cache.read_text(encoding="utf-8")
    novels = austen_novels()
    text = "\n".join(line for name in AUSTEN_NOVELS for line in novels[name])
    _write_atomic(cache, text)
    return text


def english(size_bytes: int) -> str:
    """Real English prose of at least ``size_bytes`` UTF-8 bytes.

    A prefix of Jane Austen's six novels (starting with "SENSE AND
    SENSIBILITY"), one line of the original per line.  The novels total about
    4.0 MB; for a larger size the whole text is repeated (joined by a newline)
    as often as needed, so a 10 MB corpus holds each novel two or three times.
    """
    return _take(_repeat_to(austen_text(), size_bytes), size_bytes)


def held_out_english(size_bytes: int) -> str:
    """English text of at least ``size_bytes`` bytes taken from the *end* of
    the Austen text (the end of "Persuasion" and before), starting at a line.

    It does not overlap ``english(n)`` as long as ``n + size_bytes`` stays
    below the size of the whole text (about 4.0 MB), so a tokenizer trained on
    ``english(n)`` can be evaluated on it.  At most half of the text is
    available (``ValueError`` beyond).
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


# --------------------------------------------------------------------------- #
# Python code: the stdlib
# --------------------------------------------------------------------------- #

_SKIP_DIRS = {"site-packages", "dist-packages", "__pycache__"}


def _stdlib_files() -> Iterator[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        for name in sorted(filenames):
            if name.endswith(".py"):
                yield Path(dirpath) / name


def python_code(size_bytes: int) -> str:
    """Real Python source of at least ``size_bytes`` bytes: the interpreter's
    standard library ``*.py`` files (``sysconfig.get_paths()["stdlib"]``,
    without ``site-packages``), walked in sorted order and concatenated, each
    file ending with a newline.  Files that are not valid UTF-8 are skipped.
    Deterministic for a given Python installation; repeated if too small.
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


# --------------------------------------------------------------------------- #
# Multilingual: Debian fortunes + Firefox language packs
# --------------------------------------------------------------------------- #

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

    Only regular files of the package's own folder (no ``.dat`` indexes, no
    symlinks, no sub-folders: the Spanish ``off/`` section is left out), and
    no quotes made mostly of box-drawing characters (tables)."""
    root = _deb_root(package) / folder
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
    """Translated strings of a Firefox language pack: one document per
    ``.ftl``/``.properties`` file (sorted by name), one string per line; only
    strings containing non-ASCII letters are kept (so CSS values, keys and
    untranslated English are dropped)."""
    root = _deb_root(package)
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
    """Mix documents of all languages: next comes the language that has
    contributed the fewest bytes so far (ties: ``_LANG_ORDER``), so every
    prefix of the result is roughly balanced while all languages last."""
    pos = {lang: 0 for lang in by_lang}
    emitted = {lang: 0 for lang in by_lang}
    order = sorted(by_lang, key=lambda l: _LANG_ORDER.index(l) if l in _LANG_ORDER else 99)
    out: list[str] = []
    live = [l for l in order if by_lang[l]]
    while live:
        lang = min(live, key=lambda l: (emitted[l], order.index(l)))
        doc = by_lang[lang][pos[lang]]
        out.append(doc)
        emitted[lang] += len(doc.encode("utf-8")) + 2
        pos[lang] += 1
        if pos[lang] >= len(by_lang[lang]):
            live.remove(lang)
    return "\n\n".join(out)


def multilingual_text() -> str:
    """The whole multilingual corpus (about 8 MB), cached in
    ``bench/data/multilingual.txt``: German, Spanish, Russian and Chinese
    (classical poems and sayings) fortunes, and Arabic, Hindi, Japanese and
    Korean Firefox interface strings, interleaved by bytes."""
    cache = DATA_DIR / "multilingual.txt"
    if cache.exists():
        return cache.read_text(encoding="utf-8")
    by_lang: dict[str, list[str]] = {}
    for package, (folder, lang) in _FORTUNES.items():
        by_lang[lang] = _fortune_docs(package, folder)
    for package, lang in _FIREFOX_L10N.items():
        by_lang[lang] = _l10n_docs(package)
    text = _interleave(by_lang)
    _write_atomic(cache, text)
    return text


def multilingual(size_bytes: int) -> str:
    """Real multilingual text of at least ``size_bytes`` bytes: a prefix of
    :func:`multilingual_text`, in which Chinese, Russian, Arabic, German,
    Hindi, Japanese, Spanish and Korean documents alternate (each language
    gets about an equal share of bytes until its source runs out, so the first
    few MB are balanced).  Repeated whole if more is asked than exists.

    The Firefox language packs follow Debian security updates, so the
    Arabic/Hindi/Japanese/Korean part can change when the cache in
    ``bench/data/`` is rebuilt from a newer package.
    """
    return _take(_repeat_to(multilingual_text(), size_bytes, sep="\n\n"), size_bytes)


# --------------------------------------------------------------------------- #


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


def english_and_code(size_bytes: int) -> str:
    """All of Austen (~4 MB of English prose) followed by stdlib Python to fill ``size_bytes``.

    The 10 MB benchmark corpus: real text with many distinct chunks, rather than the novels repeated.
    """
    prose = austen_text()
    rest = max(0, size_bytes - len(prose.encode("utf-8")))
    return prose + ("\n" + python_code(rest) if rest else "")
