"""tiktoken's ``.tiktoken`` file: one ``base64(token bytes) rank`` line per token, with ``bpe_lab.json``
alongside, whose ``pat_str`` and ``special_tokens`` are the arguments ``tiktoken.Encoding`` takes.

A ``.tiktoken`` file alone cannot say its pattern or special tokens: ``bpe_lab.json`` does, else the
caller's :class:`RanksDefaults` for that file (:func:`bpe.load` passes the official cl100k/o200k ones,
recognized by their sha256), else GPT-4's pattern and no special tokens.

>>> import bpe
>>> tok = bpe.train("low lower lowest", 262, pattern="gpt4").tokenizer()
>>> files = dumps(tok)
>>> sorted(files)
['bpe_lab.json', 'tokenizer.tiktoken']
>>> back = loads(files["tokenizer.tiktoken"], source="tokenizer.tiktoken", sidecar=files["bpe_lab.json"])
>>> back.encode("lowest low") == tok.encode("lowest low")
True
"""
from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Mapping

from ..patterns import Pattern
from ..tokenizer import Tokenizer
from .common import SIDECAR, TIKTOKEN_FILE, check_exportable, json_bytes, read_sidecar, sidecar_json, sidecar_pattern
from .errors import FormatError, UnsupportedFormatError

__all__ = ["RanksDefaults", "parse_tiktoken", "tokenizer_from_ranks", "dumps", "loads"]


@dataclass(frozen=True)
class RanksDefaults:
    """What a ``.tiktoken`` file without ``bpe_lab.json`` is taken to mean: the pattern (a registry name or
    regex, or ``None``), the special tokens and the name (``None``: the file's stem)."""

    pattern: str | None = "gpt4"
    special_tokens: Mapping[str, int] = field(default_factory=dict)
    name: str | None = None
    #: Unicode normalization applied before encoding (Qwen's files: NFC)
    normalize: str | None = None


def parse_tiktoken(data: bytes, *, source: str = "the .tiktoken file") -> dict[bytes, int]:
    """Parse a ``.tiktoken`` file: one ``base64(token bytes) rank`` line per token -> ``{bytes: rank}``.

    >>> parse_tiktoken(b"IQ== 0\\nIg== 1\\n")
    {b'!': 0, b'"': 1}
    """
    ranks: dict[bytes, int] = {}
    b64decode = base64.b64decode
    for line_no, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        try:
            token, rank = line.split()
            token_bytes, rank = b64decode(token, validate=True), int(rank)
        except (ValueError, binascii.Error):
            shown = line[:60].decode("utf-8", "replace")
            raise FormatError(f"{source}, line {line_no}: expected 'base64-token rank', got {shown!r}") from None
        if token_bytes in ranks:
            # a dict would keep the last rank silently: the token's first rank would become a hole
            raise FormatError(f"{source}, line {line_no}: the token {token_bytes[:40]!r} already has rank "
                              f"{ranks[token_bytes]}; a .tiktoken vocabulary lists each token once")
        ranks[token_bytes] = rank
    if not ranks:
        raise FormatError(f"{source} holds no tokens")
    return ranks


def tokenizer_from_ranks(ranks: Mapping[bytes, int], *, pattern: "str | Pattern | None",
                         special_tokens: Mapping[str, int], name: str = "", normalize: str | None = None,
                         offset: int = 0) -> Tokenizer:
    """A tiktoken-style tokenizer (``mode="ranks"``) from ``{token bytes: rank}`` and its specials.

    Token ids are ``rank + offset`` (Mistral's tekken puts its 1,000 special tokens first); the merge order
    is the rank order either way. ``normalize`` is applied to text before encoding (Qwen: NFC).

    >>> tok = tokenizer_from_ranks({bytes([b]): b for b in range(256)} | {b"ab": 256}, pattern=None,
    ...                            special_tokens={"<|end|>": 257})
    >>> tok.encode("abc<|end|>", allowed_special="all")
    [256, 99, 257]
    """
    vocab = {rank + offset: token for token, rank in ranks.items()}
    if len(vocab) != len(ranks):
        raise FormatError("two tokens share one rank: a .tiktoken vocabulary needs one rank per token")
    clash = sorted(set(vocab) & set(special_tokens.values()))
    if clash:
        raise FormatError(f"special token id {clash[0]} is also the rank of an ordinary token")
    return Tokenizer(vocab=vocab, pattern=pattern, special_tokens=special_tokens, mode="ranks", name=name,
                     normalize=normalize)


def dumps(tok: Tokenizer) -> dict[str, bytes]:
    """``{"tokenizer.tiktoken": ..., "bpe_lab.json": ...}`` for a byte-level tokenizer."""
    check_exportable(tok, "tiktoken")
    sidecar = sidecar_json(tok, "tiktoken")
    ordered = sorted((i, t) for i, t in tok.vocab.items() if not tok.is_special(i))
    text = "".join(f"{base64.b64encode(t).decode('ascii')} {i}\n" for i, t in ordered)
    return {TIKTOKEN_FILE: text.encode("ascii"), SIDECAR: json_bytes(sidecar)}


def loads(data: bytes, *, source: str = TIKTOKEN_FILE, sidecar: bytes | None = None,
          sidecar_source: str = SIDECAR, known: Mapping[str, RanksDefaults] | None = None) -> Tokenizer:
    """A ``.tiktoken`` file's bytes -> a tiktoken-style tokenizer (``mode="ranks"``).

    The pattern and special tokens come from ``sidecar`` (the bytes of ``bpe_lab.json``) when given; else
    from ``known[sha256 of data]`` when the file is one the caller knows; else GPT-4's pattern and none.
    """
    ranks = parse_tiktoken(data, source=source)
    meta = read_sidecar(sidecar, sidecar_source)
    defaults = RanksDefaults()
    if not meta and known:
        defaults = known.get(hashlib.sha256(data).hexdigest(), defaults)
    pattern = sidecar_pattern(meta, defaults.pattern, sidecar_source)
    specials = dict(meta.get("special_tokens") or defaults.special_tokens)
    name = meta.get("name") or defaults.name or PurePath(source).stem
    normalize = meta.get("normalize") if meta else defaults.normalize
    try:
        return tokenizer_from_ranks(ranks, pattern=pattern, special_tokens=specials, name=str(name),
                                    normalize=normalize)
    except ValueError as exc:
        raise UnsupportedFormatError(f"{source}: {exc}") from None
