"""``tiktoken.load``, offline: reading ``.tiktoken`` files and GPT-2's ``vocab.bpe`` + ``encoder.json``.

A local path is read. A URL is never fetched: it is read from tiktoken's cache when the file is there
(``TIKTOKEN_CACHE_DIR`` or ``DATA_GYM_CACHE_DIR``, named by the sha1 of the URL, as tiktoken names it), else,
for OpenAI's published URLs (``openaipublic.blob.core.windows.net``), from the package of ``bpe``'s registry
that holds the same bytes; anything else raises ``ValueError``. ``expected_hash`` is checked as tiktoken
checks it.

>>> url = "https://openaipublic.blob.core.windows.net/encodings/r50k_base.tiktoken"
>>> ranks = load_tiktoken_bpe(url, "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930")
>>> len(ranks), ranks[b"hello"]
(50256, 31373)
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import os
from pathlib import Path

from ..pretrained import read_vocabulary, vocabulary_path
from ..visible import from_visible

__all__ = [
    "read_file",
    "check_hash",
    "read_file_cached",
    "load_tiktoken_bpe",
    "data_gym_to_mergeable_bpe_ranks",
    "dump_tiktoken_bpe",
]

_OPENAI = "https://openaipublic.blob.core.windows.net/"
#: OpenAI's published files -> (registry name, the file: its main file, "merges" or "ranks" written out)
_PUBLISHED = {
    _OPENAI + "encodings/r50k_base.tiktoken": ("r50k_base", "ranks"),
    _OPENAI + "encodings/p50k_base.tiktoken": ("p50k_base", "ranks"),
    _OPENAI + "encodings/cl100k_base.tiktoken": ("cl100k_base", "file"),
    _OPENAI + "encodings/o200k_base.tiktoken": ("o200k_base", "file"),
    _OPENAI + "gpt-2/encodings/main/encoder.json": ("gpt2", "file"),
    _OPENAI + "gpt-2/encodings/main/vocab.bpe": ("gpt2", "merges"),
}


def _tiktoken_bytes(ranks: dict[bytes, int]) -> bytes:
    return b"".join(
        base64.b64encode(t) + b" " + str(r).encode() + b"\n" for t, r in sorted(ranks.items(), key=lambda x: x[1])
    )


def _published(blobpath: str) -> bytes:
    name, which = _PUBLISHED[blobpath]
    if which == "ranks":
        return _tiktoken_bytes(read_vocabulary(name))
    path = vocabulary_path(name)
    if which == "merges":
        path = path.parent / "vocab.bpe"
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def read_file(blobpath: str) -> bytes:
    """A local file's bytes, or one of OpenAI's published files from the registry's packages (offline)."""
    if "://" not in blobpath:
        return Path(blobpath).read_bytes()
    if blobpath in _PUBLISHED:
        return _published(blobpath)
    raise ValueError(
        f"{blobpath} is not available offline: bpe.tiktoken never downloads; pass a local path, or "
        "put the file in TIKTOKEN_CACHE_DIR under the sha1 of its URL"
    )


def check_hash(data: bytes, expected_hash: str) -> bool:
    """Whether ``data``'s sha256 is ``expected_hash``."""
    return hashlib.sha256(data).hexdigest() == expected_hash


def read_file_cached(blobpath: str, expected_hash: str | None = None) -> bytes:
    """:func:`read_file`, looking first in tiktoken's cache folder (read only: nothing is written)."""
    cache_dir = os.environ.get("TIKTOKEN_CACHE_DIR", os.environ.get("DATA_GYM_CACHE_DIR", ""))
    if cache_dir:
        cached = Path(cache_dir) / hashlib.sha1(blobpath.encode()).hexdigest()
        if cached.is_file():
            data = cached.read_bytes()
            if expected_hash is None or check_hash(data, expected_hash):
                return data
    contents = read_file(blobpath)
    if expected_hash and not check_hash(contents, expected_hash):
        raise ValueError(f"Hash mismatch for data read from {blobpath} (expected {expected_hash}).")
    return contents


def load_tiktoken_bpe(tiktoken_bpe_file: str, expected_hash: str | None = None) -> dict[bytes, int]:
    """A ``.tiktoken`` file's ranks ``{token bytes: rank}``."""
    ranks: dict[bytes, int] = {}
    for line in read_file_cached(tiktoken_bpe_file, expected_hash).splitlines():
        if not line:
            continue
        try:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
        except Exception as exc:
            raise ValueError(f"Error parsing line {line!r} in {tiktoken_bpe_file}") from exc
    return ranks


def data_gym_to_mergeable_bpe_ranks(
    vocab_bpe_file: str,
    encoder_json_file: str,
    vocab_bpe_hash: str | None = None,
    encoder_json_hash: str | None = None,
    clobber_one_byte_tokens: bool = False,
) -> dict[bytes, int]:
    """GPT-2's ranks from its ``vocab.bpe`` (merges, in order) and ``encoder.json`` (token -> id), which must
    agree (as tiktoken checks)."""
    merges = read_file_cached(vocab_bpe_file, vocab_bpe_hash).decode().split("\n")[1:-1]
    byte_order = [b for b in range(256) if chr(b).isprintable() and chr(b) != " "]
    byte_order += [b for b in range(256) if b not in byte_order]
    ranks = {bytes([b]): i for i, b in enumerate(byte_order)}
    for first, second in (m.split() for m in merges):
        ranks[from_visible(first) + from_visible(second)] = len(ranks)
    encoder = {
        from_visible(k): v
        for k, v in json.loads(read_file_cached(encoder_json_file, encoder_json_hash)).items()
        if k not in ("<|endoftext|>", "<|startoftext|>")
    }
    if clobber_one_byte_tokens:
        ranks.update({k: v for k, v in encoder.items() if len(k) == 1})
    if ranks != encoder:
        raise ValueError(f"{encoder_json_file} does not follow the merges of {vocab_bpe_file}")
    return ranks


def dump_tiktoken_bpe(bpe_ranks: dict[bytes, int], tiktoken_bpe_file: str) -> None:
    """Write ranks as a ``.tiktoken`` file (a local path)."""
    Path(tiktoken_bpe_file).write_bytes(_tiktoken_bytes(bpe_ranks))
