"""Real vocabularies, offline: GPT-4, GPT-4o, Llama 3 and 4, Qwen, DeepSeek-V3 and Mistral's tekken.

Every vocabulary file comes inside a pinned Python package (the entries of :data:`PRETRAINED`, in
:mod:`bpe.pretrained_registry`, say which package, which file in it, its sha256 and licence). We read the
file only, never the package's code: the package is located with :func:`importlib.util.find_spec` (which
does not import it), the file is checked against its sha256 before use, so a changed or damaged file is
refused, and nothing is ever downloaded. The heavy packages (Llama's, Mistral's) are an optional extra,
``requirements-vocabs.txt``: without them :func:`load_pretrained` raises :class:`PretrainedError` naming the
install command, and :func:`is_installed` says so beforehand.

Ids equal each model's reference implementation on a torture set and on >= 1 MB of real text (tests:
``tests/test_vocabs.py``). The only known differences come from Unicode versions: the ``regex`` module
knows characters assigned in Unicode 15-17 that tiktoken's Rust regex or Hugging Face's Oniguruma do not
(CJK Extension J, new scripts); such a character can be split differently. On text made of characters
known to Unicode 14 the ids are identical.

>>> enc = load_pretrained("cl100k_base")
>>> enc.encode("hello world")
[15339, 1917]
>>> enc.decode([15339, 1917])
'hello world'
>>> enc.encode("<|endoftext|>", allowed_special="all")
[100257]
"""

from __future__ import annotations

import base64
import binascii
import gc
import gzip
import hashlib
import importlib.util
import json
import threading
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import Any, Callable, Mapping

from .formats import FormatError, RanksDefaults, from_hf_json, parse_tiktoken, tokenizer_from_ranks
from .patterns import get_pattern
from .pretrained_registry import ALIASES, OPTIONAL_REQUIREMENTS, PRETRAINED, PretrainedSpec
from .tokenizer import Tokenizer
from .visible import from_visible

__all__ = [
    "PretrainedSpec",
    "PRETRAINED",
    "ALIASES",
    "PretrainedError",
    "load_pretrained",
    "pretrained_names",
    "resolve_name",
    "is_installed",
    "pretrained_status",
    "read_vocabulary",
    "vocabulary_path",
    "KNOWN_FILES",
    "OPTIONAL_REQUIREMENTS",
]


class PretrainedError(ValueError):
    """A pretrained vocabulary that cannot be loaded: unknown name, package not installed, wrong hash."""


#: sha256 of each pretrained ``.tiktoken`` file -> its pattern, special tokens, normalization and name, for
#: :func:`bpe.load` to recognize the files (GPT-4's, Llama's ``tokenizer.model``, Qwen's) without a
#: ``bpe_lab.json`` next to them.
def _known_files() -> dict[str, RanksDefaults]:
    known: dict[str, RanksDefaults] = {}
    for spec in PRETRAINED.values():
        digest = spec.sha256 if spec.format == "tiktoken" else spec.tiktoken_sha256
        # a file shared by two entries (o200k_base / o200k_harmony) means the first, the vocabulary it names
        if digest and digest not in known:
            known[digest] = RanksDefaults(
                pattern=spec.pattern, special_tokens=spec.special_tokens or {}, name=spec.name, normalize=spec.normalize
            )
    return known


KNOWN_FILES: Mapping[str, RanksDefaults] = MappingProxyType(_known_files())


def resolve_name(name: str) -> str | None:
    """The :data:`PRETRAINED` name that ``name`` (any case, or an alias) stands for, else ``None``.

    >>> resolve_name("Qwen2.5"), resolve_name("GPT-4o"), resolve_name("nope")
    ('qwen3', 'o200k_base', None)
    """
    if not isinstance(name, str):
        return None
    key = name.strip().lower()
    return key if key in PRETRAINED else ALIASES.get(key)


def pretrained_names() -> list[str]:
    """The names :func:`load_pretrained` accepts (installed or not; see :func:`is_installed`).

    >>> pretrained_names()[:3]
    ['cl100k_base', 'o200k_base', 'llama3']
    """
    return list(PRETRAINED)


def _spec(name: str) -> PretrainedSpec:
    """The entry of ``name`` (any letter case, or an alias), or :class:`PretrainedError` listing the names."""
    if not isinstance(name, str):
        raise TypeError(f"the vocabulary name must be a str, not {type(name).__name__}")
    key = resolve_name(name)
    if key is None:
        raise PretrainedError(f"unknown pretrained vocabulary {name!r}; choose one of: {', '.join(PRETRAINED)}")
    return PRETRAINED[key]


def _package_folder(spec: PretrainedSpec) -> Path | None:
    """The installed package's folder, found without importing the package (we use its files only)."""
    try:
        found = importlib.util.find_spec(spec.module)
    except (ImportError, ValueError):
        return None
    for folder in (found.submodule_search_locations or []) if found is not None else []:
        if (Path(folder) / spec.file).is_file():
            return Path(folder)
    return None


def _missing_message(spec: PretrainedSpec) -> str:
    where = (
        f"the optional extra {OPTIONAL_REQUIREMENTS} (`pip install -r {OPTIONAL_REQUIREMENTS}`)"
        if spec.optional
        else "requirements.txt (`pip install -r requirements.txt`)"
    )
    return (
        f"the {spec.label} vocabulary is not installed: its file {spec.file} comes with the Python package "
        f"{spec.package!r} ({spec.licence}); install it with `{spec.install_command}`, or with {where}"
    )


def vocabulary_path(name: str) -> Path:
    """Where the installed package keeps the vocabulary file of ``name``.

    Raises :class:`PretrainedError` naming the install command when the package is not installed.
    """
    spec = _spec(name)
    folder = _package_folder(spec)
    if folder is None:
        raise PretrainedError(_missing_message(spec))
    return folder / spec.file


def is_installed(name: str) -> bool:
    """Whether the package holding vocabulary ``name`` is installed (the file is not read or checked).

    >>> is_installed("cl100k_base")
    True
    """
    return _package_folder(_spec(name)) is not None


def pretrained_status() -> list[tuple[PretrainedSpec, bool]]:
    """Every vocabulary with whether it is installed, in registry order: what a picker lists.

    A vocabulary that is not installed names its install command in :attr:`PretrainedSpec.install_command`.

    >>> [(spec.name, ok) for spec, ok in pretrained_status()][:2]
    [('cl100k_base', True), ('o200k_base', True)]
    """
    return [(spec, _package_folder(spec) is not None) for spec in PRETRAINED.values()]


def _read_checked(spec: PretrainedSpec, path: Path | None = None, sha256: str = "") -> tuple[bytes, Path]:
    """The file's bytes (uncompressed), checked against the registry's sha256 (another file of the package:
    ``path`` and its ``sha256``)."""
    path = path or vocabulary_path(spec.name)
    sha256 = sha256 or spec.sha256
    try:
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise PretrainedError(f"the {spec.name} vocabulary file {path} cannot be read: {exc}") from None
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise PretrainedError(
            f"the {spec.name} vocabulary file {path} has sha256 {digest}, expected {sha256}: the file "
            f"was changed or damaged, or the package is not version {spec.version}; reinstall it with "
            f"`pip install --force-reinstall {spec.package}=={spec.version}`"
        )
    return data, path


def read_vocabulary(name: str) -> dict[bytes, int]:
    """The ranks ``{token bytes: rank}`` of a tiktoken-format vocabulary, read and checked against its sha256.

    >>> len(read_vocabulary("cl100k_base"))
    100256
    """
    spec = _spec(name)
    if spec.format == "gpt2":
        return _gpt2_ranks(spec, *_read_checked(spec))
    if spec.format != "tiktoken":
        raise PretrainedError(f"{spec.name} is not a tiktoken ranks file (its format is {spec.format!r})")
    data, path = _read_checked(spec)
    try:
        return parse_tiktoken(data, source=str(path))
    except FormatError as exc:
        raise PretrainedError(str(exc)) from None


# ----------------------------------------------------------------------------------------------------
# Building each format


def _build_tiktoken(spec: PretrainedSpec, data: bytes, path: Path) -> Tokenizer:
    try:
        ranks = parse_tiktoken(data, source=str(path))
        return tokenizer_from_ranks(
            ranks,
            pattern=spec.pattern,
            special_tokens=spec.special_tokens or {},
            name=spec.name,
            normalize=spec.normalize,
        )
    except FormatError as exc:
        raise PretrainedError(str(exc)) from None


def _gpt2_ranks(spec: PretrainedSpec, data: bytes, path: Path) -> dict[bytes, int]:
    """GPT-2's ranks from ``encoder.json`` (tokens in bytes_to_unicode's visible form -> id), checked against
    the merge order of ``vocab.bpe`` as tiktoken's ``data_gym_to_mergeable_bpe_ranks`` does, plus
    :attr:`PretrainedSpec.space_runs` (p50k_base)."""
    doc = _json(data, path)
    specials = spec.special_tokens or {}
    merges_path = path.parent / PurePosixPath(spec.merges_file).name
    merges, _ = _read_checked(spec, merges_path, spec.merges_sha256)
    try:
        ranks = {from_visible(token): int(rank) for token, rank in doc.items() if token not in specials}
        lines = merges.decode("utf-8").split("\n")[1:-1]
        unordered = [n for n, line in enumerate(lines) if ranks[b"".join(map(from_visible, line.split()))] != 256 + n]
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise PretrainedError(f"{path}: not GPT-2's encoder.json and vocab.bpe: {exc!r}") from None
    if unordered or sorted(ranks.values()) != list(range(len(ranks))):
        raise PretrainedError(f"{path}: the ranks do not follow the merges of {merges_path.name}")
    top = len(ranks)
    for n in range(spec.space_runs):
        ranks[b" " * (n + 2)] = top + 1 + n if top in specials.values() else top + n
    return ranks


def _build_gpt2(spec: PretrainedSpec, data: bytes, path: Path) -> Tokenizer:
    try:
        return tokenizer_from_ranks(
            _gpt2_ranks(spec, data, path),
            pattern=spec.pattern,
            special_tokens=spec.special_tokens or {},
            name=spec.name,
        )
    except FormatError as exc:
        raise PretrainedError(str(exc)) from None


def _json(data: bytes, path: Path) -> Any:
    try:
        return json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PretrainedError(f"{path} is not valid JSON: {exc}") from None


def _build_tekken(spec: PretrainedSpec, data: bytes, path: Path) -> Tokenizer:
    """Mistral's tekken JSON: ``config`` (pattern, vocabulary size, number of specials) and ``vocab``
    (``rank``, base64 ``token_bytes``). As mistral-common does, only the first
    ``default_vocab_size - default_num_special_tokens`` ranks are used and ids are ``rank + n_special``."""
    doc = _json(data, path)
    try:
        config = doc["config"]
        n_special = int(config["default_num_special_tokens"])
        inner = int(config["default_vocab_size"]) - n_special
        ranks = {base64.b64decode(entry["token_bytes"], validate=True): entry["rank"] for entry in doc["vocab"][:inner]}
        pattern_matches = config["pattern"] == _pattern_regex(spec.pattern)
    except (KeyError, TypeError, ValueError, binascii.Error) as exc:
        raise PretrainedError(f"{path} is not a tekken tokenizer file: {exc!r}") from None
    if not pattern_matches:
        raise PretrainedError(f"{path}: its pattern differs from the registry's {spec.pattern!r}")
    if sorted(ranks.values()) != list(range(inner)):
        raise PretrainedError(f"{path}: the ranks are not 0..{inner - 1}")
    try:
        return tokenizer_from_ranks(
            ranks, pattern=spec.pattern, special_tokens=spec.special_tokens or {}, name=spec.name, offset=n_special
        )
    except FormatError as exc:
        raise PretrainedError(f"{path}: {exc}") from None


def _pattern_regex(name: str) -> str:
    return get_pattern(name).regex


def _stages(name: str) -> tuple[str, ...]:
    return get_pattern(name).stages


def _build_hf(spec: PretrainedSpec, data: bytes, path: Path) -> Tokenizer:
    """A Hugging Face ``tokenizer.json``, with the registry's pattern and every added token special.

    Hugging Face matches added tokens in the text whether or not they are marked ``special`` (DeepSeek's
    ``<think>`` is not), so all of them are special tokens here. The pre-tokenizer's regexes are those of
    the registry pattern (the file is pinned by its sha256; ``tests/test_vocabs.py`` checks the splits
    against Hugging Face's).
    """
    doc = _json(data, path)
    try:
        for entry in doc.get("added_tokens") or []:
            entry["special"] = True
        steps = doc["pre_tokenizer"]["pretokenizers"]
        if [step["type"] for step in steps] != ["Split"] * len(_stages(spec.pattern)) + ["ByteLevel"]:
            raise FormatError(f"its pre-tokenizer is not the {spec.pattern} pattern's Split stages + ByteLevel")
        # The Split regexes are spelled with literal characters where the registry writes escapes (\u4e00):
        # the registry pattern replaces them (same splits, see the tests), the ByteLevel step stays.
        doc["pre_tokenizer"] = steps[-1]
        loaded = from_hf_json(doc, source=str(path))
    except (FormatError, AttributeError, KeyError, TypeError) as exc:
        raise PretrainedError(f"{path} is not the expected tokenizer.json: {exc}") from None
    vocab = {i: t for i, t in loaded.vocab.items() if isinstance(t, bytes) and not loaded.is_special(i)}
    return Tokenizer.from_merges(
        vocab,
        loaded.merges,
        pattern=spec.pattern,
        special_tokens=loaded.special_tokens,
        normalize=spec.normalize,
        name=spec.name,
        ignore_merges=loaded.ignore_merges,
    )


_BUILDERS: Mapping[str, Callable[[PretrainedSpec, bytes, Path], Tokenizer]] = {
    "tiktoken": _build_tiktoken,
    "tekken": _build_tekken,
    "hf": _build_hf,
    "gpt2": _build_gpt2,
}

_cache: dict[str, Tokenizer] = {}
_lock = threading.Lock()


def load_pretrained(name: str) -> Tokenizer:
    """A real model's tokenizer, offline: ``name`` is a :data:`PRETRAINED` name or an :data:`ALIASES` one.

    Encoding follows the model's own tokenizer: tiktoken's rule for ``.tiktoken`` vocabularies (the whole
    chunk is looked up first, then the lowest-ranked adjacent pair is merged, leftmost first), Hugging Face's
    merge-list rule for DeepSeek-V3, and tiktoken's special-token rules everywhere (special-token strings
    raise unless allowed). The file is read and hash-checked once per process (thread-safe); later calls
    return the same object. A vocabulary whose package is not installed raises :class:`PretrainedError`
    naming the install command.

    >>> load_pretrained("o200k_base").encode("Hello, world!")
    [13225, 11, 2375, 0]
    >>> load_pretrained("cl100k_base") is load_pretrained("cl100k_base")
    True
    """
    spec = _spec(name)
    tok = _cache.get(spec.name)
    if tok is not None:
        return tok
    with _lock:
        tok = _cache.get(spec.name)
        if tok is None:
            data, path = _read_checked(spec)
            tok = _BUILDERS[spec.format](spec, data, path)
            tok.__dict__["_reducer"] = (load_pretrained, (spec.name,))  # pickled by name, as tiktoken does
            _cache[spec.name] = tok
            _to_oldest_generation()
    return tok


def _to_oldest_generation() -> None:
    """Move every object the collector tracks to its oldest generation (``freeze`` then ``unfreeze``: a
    splice, nothing is walked), as :func:`bpe.train` does with what it built.

    A vocabulary's tables live as long as the process; left young, the first collections after the load
    walk them (the pair table, the boundary sets: measured ~10 ms of gen-0 and gen-1 passes inside the first
    encode of 100 KB with ``o200k_base``, ~40 % of it), where they would only ever be found alive."""
    if gc.isenabled():
        gc.freeze()
        gc.unfreeze()
