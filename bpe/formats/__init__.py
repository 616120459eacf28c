"""Tokenizer files the ecosystem loads: write ours, read theirs, on disk or in memory.

Five formats, one module each, each written and read back:

* ``"hf"`` (:mod:`bpe.formats.hf`): a Hugging Face ``tokenizer.json``;
* ``"merges"`` (:mod:`bpe.formats.merges`): GPT-2's ``vocab.json`` + ``merges.txt`` (+ ``bpe_lab.json``);
* ``"tiktoken"`` (:mod:`bpe.formats.tiktoken`): a ``.tiktoken`` file (+ ``bpe_lab.json``);
* ``"transformers"`` (:mod:`bpe.formats.transformers`): ``tokenizer.json`` + ``tokenizer_config.json``, a
  folder ``transformers.AutoTokenizer.from_pretrained`` loads (read back through its ``tokenizer.json``);
* ``"minbpe"`` (:mod:`bpe.formats.minbpe`): Karpathy's minbpe ``tokenizer.model`` (+ ``tokenizer.vocab``).

In memory a tokenizer's files are a ``{file name: bytes}`` dict: :func:`dumps` writes one,
:func:`loads` reads one (an upload, a zip's members) and recognizes the format from the names and contents;
:func:`zip_files` packs one for a download. On disk, :func:`save` and :func:`load` do the same through a
path. Messages name files as the caller named them. The regex dialect rewrite for ``tokenizer.json`` is
:mod:`bpe.formats.onig`; the errors are in :mod:`bpe.formats.errors`.

:func:`bpe.load` and :func:`bpe.loads` (in :mod:`bpe.loading`) add what a file alone cannot know: the
names of the pretrained vocabularies and the official ``cl100k_base``/``o200k_base`` files.

>>> import bpe
>>> tok = bpe.train("low lower lowest", 262, pattern="gpt4").tokenizer()
>>> files = dumps(tok, "merges")
>>> sorted(files)
['bpe_lab.json', 'merges.txt', 'vocab.json']
>>> loads(files).encode("lowest low") == tok.encode("lowest low")
True
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path
from typing import Any, Callable, Mapping

from ..patterns import Pattern
from ..tokenizer import Tokenizer
from ..userfiles import NotARegularFile, read_regular_file
from . import hf, merges, minbpe, tiktoken, transformers
from .common import HF_FILE, MERGES_FILE, SIDECAR, VOCAB_FILE, file_name, read_sidecar
from .errors import FormatError, UnsupportedFormatError
from .hf import from_hf_json, to_hf_json
from .onig import from_onig, to_onig
from .tiktoken import UNSET, AssumedPatternWarning, RanksDefaults, _Unset, parse_tiktoken, tokenizer_from_ranks

__all__ = [
    "FORMATS",
    "FormatError",
    "UnsupportedFormatError",
    "dumps",
    "loads",
    "save",
    "load",
    "read_files",
    "detect_format",
    "zip_files",
    "to_hf_json",
    "from_hf_json",
    "parse_tiktoken",
    "tokenizer_from_ranks",
    "RanksDefaults",
    "to_onig",
    "from_onig",
    "SIDECAR",
    "AssumedPatternWarning",
    "UNSET",
]

#: The formats :func:`dumps` / :func:`save` write and :func:`loads` / :func:`load` read.
FORMATS = ("hf", "merges", "tiktoken", "transformers", "minbpe")
_WRITERS: dict[str, Callable[[Tokenizer], dict[str, bytes]]] = {
    "hf": hf.dumps,
    "merges": merges.dumps,
    "tiktoken": tiktoken.dumps,
    "transformers": transformers.dumps,
    "minbpe": minbpe.dumps,
}
_KNOWN_FILES = (HF_FILE, VOCAB_FILE, MERGES_FILE, SIDECAR)
_EXPECTED = "expected tokenizer.json, a .tiktoken file, vocab.json + merges.txt, or a minbpe .model file"


def dumps(tok: Tokenizer, format: str = "hf") -> dict[str, bytes]:
    """``tok``'s files in ``format`` (one of :data:`FORMATS`): ``{file name: bytes}``.

    Raises :class:`FormatError` when the format cannot hold the tokenizer (a char-level tokenizer as
    tiktoken, a multi-stage pattern as tiktoken, two tokens with the same bytes...).

    >>> import bpe
    >>> list(dumps(bpe.train("ab ab", 257).tokenizer(), "tiktoken"))
    ['tokenizer.tiktoken', 'bpe_lab.json']
    """
    if format not in FORMATS:
        raise FormatError(f"unknown format {format!r}; choose one of: {', '.join(FORMATS)}")
    return _WRITERS[format](tok)


def zip_files(files: Mapping[str, bytes]) -> bytes:
    """A zip archive holding ``files`` (fixed timestamps: the same files give the same bytes).

    >>> import zipfile, io
    >>> zipfile.ZipFile(io.BytesIO(zip_files({"a.txt": b"hi"}))).read("a.txt")
    b'hi'
    """
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data, compress_type=zipfile.ZIP_DEFLATED)
    return buf.getvalue()


def save(tok: Tokenizer, path: "str | Path", format: str = "hf") -> list[Path]:
    """Write ``tok`` in ``format``; return the files written.

    ``"hf"`` writes ``path`` itself when it ends in ``.json``, else ``path/tokenizer.json``; the others
    write into the folder ``path`` (created if needed).

    >>> import tempfile, bpe
    >>> tok = bpe.train("hug hug hugs", 260, pattern="gpt4").tokenizer()
    >>> folder = tempfile.mkdtemp()
    >>> [p.name for p in save(tok, folder, format="merges")]
    ['vocab.json', 'merges.txt', 'bpe_lab.json']
    >>> load(folder).encode("hugs") == tok.encode("hugs")
    True
    """
    files = dumps(tok, format)
    path = Path(path)
    if format == "hf" and path.suffix == ".json":
        targets = [path]
        path.parent.mkdir(parents=True, exist_ok=True)
    else:
        if path.exists() and not path.is_dir():
            raise FormatError(f"{path} is a file; this format is written into a folder")
        path.mkdir(parents=True, exist_ok=True)
        targets = [path / name for name in files]
    for target, data in zip(targets, files.values()):
        target.write_bytes(data)
    return targets


# ----------------------------------------------------------------------------------------------------
# Reading


def detect_format(files: Mapping[str, bytes]) -> tuple[str, list[str]]:
    """``(format, names of the files that hold it)`` among ``files`` (``{name: bytes}``).

    Names decide first: ``bpe_lab.json``'s ``format``, then ``tokenizer.json``, a ``.tiktoken`` file,
    ``vocab.json`` + ``merges.txt``; uploads keep their own names, so a lone ``.json`` is taken as a
    ``tokenizer.json``, a ``.json`` next to a ``.txt`` as ``vocab.json`` + ``merges.txt``. A file with
    another name is known by its content (a JSON object, or ``base64 rank`` lines).

    >>> detect_format({"my.json": b"{}", "my.txt": b""})
    ('merges', ['my.json', 'my.txt'])
    """
    names = {name: file_name(name) for name in files}
    sidecar = next((n for n, low in names.items() if low == SIDECAR), None)
    meta = read_sidecar(files[sidecar], sidecar) if sidecar is not None else {}
    rest = [n for n in names if n != sidecar]
    # a transformers folder's other files say nothing its tokenizer.json does not
    rest = [n for n in rest if names[n] not in (transformers.CONFIG_FILE, transformers.SPECIAL_TOKENS_MAP)] or rest
    jsons = [n for n in rest if names[n].endswith(".json")]
    txts = [n for n in rest if names[n].endswith(".txt")]
    vocab = [n for n in jsons if names[n] == VOCAB_FILE] or (jsons[:1] if txts and len(jsons) == 1 else [])
    merges_txt = [n for n in txts if names[n] == MERGES_FILE] or txts[:1]
    candidates = {
        "hf": [n for n in jsons if names[n] == HF_FILE][:1] or ([] if txts or vocab else jsons[:1]),
        "tiktoken": sorted(n for n in rest if names[n].endswith(".tiktoken"))[:1],
        "merges": vocab + merges_txt[:1] if vocab or merges_txt else [],
    }
    order = [meta["format"]] if meta.get("format") in candidates else []
    for fmt in order + ["hf", "tiktoken", "merges"]:
        if candidates[fmt]:
            return fmt, candidates[fmt]
    for name in rest:  # minbpe's .model (Llama's tokenizer.model is a .tiktoken file: content decides)
        if files[name][:9] == b"minbpe v1":
            return "minbpe", [name]
    for name in rest:  # an unknown name: look at the content
        head = files[name][:4096]
        if head.lstrip().startswith(b"{"):
            return "hf", [name]
        if re.match(rb"[A-Za-z0-9+/=]+ \d+\r?\n", head):
            return "tiktoken", [name]
    if len(rest) == 1:
        raise UnsupportedFormatError(f"{rest[0]}: not a tokenizer file we know ({_EXPECTED})")
    shown = ", ".join(files) or "no files"
    raise FormatError(f"no tokenizer found in {shown}: {_EXPECTED}")


def loads(
    files: Mapping[str, bytes],
    *,
    known: Mapping[str, RanksDefaults] | None = None,
    pattern: "str | Pattern | None | _Unset" = UNSET,
) -> Tokenizer:
    """A tokenizer from its files in memory: ``{file name: bytes}`` (uploads, a zip's members).

    The format is found by :func:`detect_format`. ``known`` maps the sha256 of ``.tiktoken`` files to what
    they mean when no ``bpe_lab.json`` comes with them (see :func:`bpe.loads`); ``pattern`` is the pre-tokenizer
    of a ``.tiktoken`` file no ``bpe_lab.json`` or ``known`` entry describes (else GPT-4's, with a warning).
    Errors name the files by the names given.

    >>> import bpe
    >>> tok = bpe.train("hug hug hugs", 260, pattern="gpt4").tokenizer()
    >>> loads({"my_tokenizer.json": dumps(tok)["tokenizer.json"]}).encode("hugs") == tok.encode("hugs")
    True
    """
    fmt, names = detect_format(files)
    sidecar = next((n for n in files if file_name(n) == SIDECAR), None)
    side: dict[str, Any] = {"sidecar": files[sidecar], "sidecar_source": sidecar} if sidecar is not None else {}
    if fmt == "hf":
        return hf.loads(files[names[0]], source=names[0])
    if fmt == "tiktoken":
        return tiktoken.loads(files[names[0]], source=names[0], known=known, pattern=pattern, **side)
    if fmt == "minbpe":
        return minbpe.loads(files[names[0]], source=names[0])
    if len(names) < 2:
        present = names[0]
        missing = VOCAB_FILE if file_name(present).endswith(".txt") else MERGES_FILE
        raise FormatError(f"{present} needs the {missing} saved with it ({VOCAB_FILE} + {MERGES_FILE})")
    return merges.loads(files[names[0]], files[names[1]], vocab_source=names[0], merges_source=names[1], **side)


def read_files(path: "str | Path") -> dict[str, bytes]:
    """The tokenizer files ``path`` names, read into ``{path as text: bytes}`` for :func:`loads`.

    A folder gives the tokenizer files in it; a file gives itself plus, for ``vocab.json`` /
    ``merges.txt`` / ``.tiktoken`` files, its partner and the ``bpe_lab.json`` next to it.

    >>> import tempfile, bpe
    >>> folder = tempfile.mkdtemp()
    >>> _ = save(bpe.train("ab ab", 257).tokenizer(), folder, format="tiktoken")
    >>> sorted(name.rsplit("/", 1)[1] for name in read_files(folder + "/tokenizer.tiktoken"))
    ['bpe_lab.json', 'tokenizer.tiktoken']
    """
    path = Path(path)
    if path.is_dir():
        wanted = (
            [path / n for n in _KNOWN_FILES] + sorted(path.glob("*.tiktoken"))[:1] + sorted(path.glob("*.model"))[:1]
        )
        out = _read_existing(wanted)
        if not any(file_name(n) != SIDECAR for n in out):
            raise FormatError(f"no tokenizer found in the folder {path}: {_EXPECTED}")
        return out
    if not path.exists():
        raise FormatError(f"{path} does not exist")
    out = {str(path): _read(path)}
    low = path.name.lower()
    if low.endswith(".json") and low not in (VOCAB_FILE, SIDECAR):
        return out  # a tokenizer.json stands alone
    partner = {VOCAB_FILE: MERGES_FILE}.get(low, VOCAB_FILE if low.endswith(".txt") else None)
    siblings = ([path.parent / partner] if partner else []) + [path.parent / SIDECAR]
    out.update(_read_existing([p for p in siblings if p != path]))
    if partner and str(path.parent / partner) not in out:
        raise FormatError(f"{path.parent / partner} does not exist ({VOCAB_FILE} needs {MERGES_FILE} next to it)")
    return out


def load(
    path: "str | Path",
    *,
    known: Mapping[str, RanksDefaults] | None = None,
    pattern: "str | Pattern | None | _Unset" = UNSET,
) -> Tokenizer:
    """Load a tokenizer saved by :func:`save` or made elsewhere, whatever the format.

    ``path`` is a ``tokenizer.json``, a ``.tiktoken`` file, a ``vocab.json`` or ``merges.txt``, or a folder
    holding one of them. (:func:`bpe.load` also takes the names of pretrained vocabularies.)
    """
    return loads(read_files(path), known=known, pattern=pattern)


def _read(path: Path) -> bytes:
    """A tokenizer file's bytes; a device, FIFO or socket (a link to ``/dev/zero``) is refused unread."""
    try:
        return read_regular_file(path)
    except NotARegularFile as exc:
        raise FormatError(f"{exc}; {_EXPECTED}") from None
    except OSError as exc:
        raise FormatError(f"{path} cannot be read: {exc.strerror or exc}") from None


def _read_existing(paths: list[Path]) -> dict[str, bytes]:
    # every path that exists and is not a folder: a FIFO named tokenizer.json is refused, not skipped
    return {str(p): _read(p) for p in paths if p.exists() and not p.is_dir()}
