"""tiktoken's ``.tiktoken`` file: one ``base64(token bytes) rank`` line per token, with ``bpe_lab.json``
alongside, whose ``pat_str`` and ``special_tokens`` are the arguments ``tiktoken.Encoding`` takes.

A ``.tiktoken`` file alone cannot say its pattern or special tokens: ``bpe_lab.json`` does, else the
pattern the caller names (``pattern=``), else the caller's :class:`RanksDefaults` for that file
(:func:`bpe.load` passes the official ones -- r50k, p50k, cl100k, o200k, Llama's, Qwen's -- recognized by
their sha256), else GPT-4's pattern and no special tokens, with an :class:`AssumedPatternWarning` naming it
(and :attr:`bpe.Tokenizer.assumed_pattern` set): a wrong pattern gives wrong ids, never silently.

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
import warnings
from dataclasses import dataclass, field
from functools import partial
from pathlib import PurePath
from typing import Mapping

from ..patterns import Pattern
from ..tokenizer import Tokenizer
from .common import SIDECAR, TIKTOKEN_FILE, check_exportable, json_bytes, read_sidecar, sidecar_json, sidecar_pattern
from .errors import FormatError, UnsupportedFormatError

__all__ = [
    "RanksDefaults",
    "AssumedPatternWarning",
    "parse_tiktoken",
    "tokenizer_from_ranks",
    "dumps",
    "loads",
    "UNSET",
]


class AssumedPatternWarning(UserWarning):
    """A ``.tiktoken`` file was loaded with a pattern nobody named: neither a ``bpe_lab.json``, nor the
    caller, nor a known file's sha256 said which."""


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


#: ``pattern=UNSET``: the caller names no pattern (``None`` means: no pre-tokenizer)
UNSET = _Unset()


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
    fast = _parse_plain(data)
    if fast is not None:
        return fast
    ranks: dict[bytes, int] = {}
    b64decode = base64.b64decode
    for line_no, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        try:
            token, rank_text = line.split()
            token_bytes, rank = b64decode(token, validate=True), int(rank_text)
        except (ValueError, binascii.Error):
            shown = line[:60].decode("utf-8", "replace")
            raise FormatError(f"{source}, line {line_no}: expected 'base64-token rank', got {shown!r}") from None
        if token_bytes in ranks:
            # a dict would keep the last rank silently: the token's first rank would become a hole
            raise FormatError(
                f"{source}, line {line_no}: the token {token_bytes[:40]!r} already has rank "
                f"{ranks[token_bytes]}; a .tiktoken vocabulary lists each token once"
            )
        ranks[token_bytes] = rank
    if not ranks:
        raise FormatError(f"{source} holds no tokens")
    return ranks


#: what the fields of a plain file hold: base64 tokens, decimal ranks
_FIELD_BYTES = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
_B64 = partial(binascii.a2b_base64, strict_mode=True)  # what ``base64.b64decode(validate=True)`` calls


def _parse_plain(data: bytes) -> dict[bytes, int] | None:
    """:func:`parse_tiktoken` of a file of plain ``token rank`` lines (one space, one newline: every real
    file) in C-level passes, ~2x faster than line by line; ``None`` for anything else -- a blank line, other
    whitespace, a bad token or rank, a repeated token, no token -- which the line-by-line parse reads (and
    names the line at fault).

    >>> _parse_plain(b"IQ== 0\\nIg== 1"), _parse_plain(b"IQ== 0\\n\\nIg== 1\\n")
    ({b'!': 0, b'"': 1}, None)
    """
    rest = data.translate(None, _FIELD_BYTES)  # each line " \n": one space between two fields, nothing else
    if not data.endswith(b"\n"):
        rest += b"\n"
    fields = data.split()
    if rest != b" \n" * (len(rest) // 2) or len(fields) != len(rest):
        return None
    try:
        ranks = dict(zip(map(_B64, fields[0::2]), map(int, fields[1::2])))
    except (ValueError, binascii.Error):
        return None
    return ranks if ranks and 2 * len(ranks) == len(fields) else None


def tokenizer_from_ranks(
    ranks: Mapping[bytes, int],
    *,
    pattern: "str | Pattern | None",
    special_tokens: Mapping[str, int],
    name: str = "",
    normalize: str | None = None,
    offset: int = 0,
) -> Tokenizer:
    """A tiktoken-style tokenizer (``mode="ranks"``) from ``{token bytes: rank}`` and its specials.

    Token ids are ``rank + offset`` (Mistral's tekken puts its 1,000 special tokens first); the merge order
    is the rank order either way. ``normalize`` is applied to text before encoding (Qwen: NFC).

    >>> tok = tokenizer_from_ranks({bytes([b]): b for b in range(256)} | {b"ab": 256}, pattern=None,
    ...                            special_tokens={"<|end|>": 257})
    >>> tok.encode("abc<|end|>", allowed_special="all")
    [256, 99, 257]
    """
    ids = map((offset).__add__, ranks.values()) if offset else ranks.values()
    vocab = dict(zip(ids, ranks))
    if len(vocab) != len(ranks):
        raise FormatError("two tokens share one rank: a .tiktoken vocabulary needs one rank per token")
    clash = sorted(set(vocab) & set(special_tokens.values()))
    if clash:
        raise FormatError(f"special token id {clash[0]} is also the rank of an ordinary token")
    return Tokenizer.from_ranks(
        dict(zip(vocab.values(), vocab)) if offset else ranks,
        pattern=pattern,
        special_tokens=special_tokens,
        name=name,
        normalize=normalize,
    )


def dumps(tok: Tokenizer) -> dict[str, bytes]:
    """``{"tokenizer.tiktoken": ..., "bpe_lab.json": ...}`` for a byte-level tokenizer."""
    check_exportable(tok, "tiktoken")
    sidecar = sidecar_json(tok, "tiktoken")
    ordered = sorted((i, tok.token_bytes(i)) for i in tok.vocab if not tok.is_special(i))
    text = "".join(f"{base64.b64encode(t).decode('ascii')} {i}\n" for i, t in ordered)
    return {TIKTOKEN_FILE: text.encode("ascii"), SIDECAR: json_bytes(sidecar)}


def loads(
    data: bytes,
    *,
    source: str = TIKTOKEN_FILE,
    sidecar: bytes | None = None,
    sidecar_source: str = SIDECAR,
    known: Mapping[str, RanksDefaults] | None = None,
    pattern: "str | Pattern | None | _Unset" = UNSET,
) -> Tokenizer:
    """A ``.tiktoken`` file's bytes -> a tiktoken-style tokenizer (``mode="ranks"``).

    The pattern and special tokens come from ``sidecar`` (the bytes of ``bpe_lab.json``) when given; else
    from ``known[sha256 of data]`` when the file is one the caller knows; else none, and the pattern the
    caller names (``pattern``: a registry name, a regex or ``None``), else GPT-4's with an
    :class:`AssumedPatternWarning`.

    >>> import warnings
    >>> data = "".join(f"{base64.b64encode(bytes([b])).decode()} {b}\\n" for b in range(256)).encode()
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     tok = loads(data, source="mine.tiktoken")
    >>> tok.assumed_pattern, str(caught[0].message)[:61]
    ('gpt4', 'mine.tiktoken: an unknown .tiktoken file with no bpe_lab.json')
    >>> loads(data, source="mine.tiktoken", pattern="gpt2").pattern.name
    'gpt2'
    """
    ranks = parse_tiktoken(data, source=source)
    meta = read_sidecar(sidecar, sidecar_source)
    defaults = RanksDefaults()
    found = None
    if not meta and known:
        found = known.get(hashlib.sha256(data).hexdigest())
        defaults = found or defaults
    assumed = None
    if meta:
        chosen = sidecar_pattern(meta, defaults.pattern, sidecar_source)
    elif not isinstance(pattern, _Unset):
        chosen = sidecar_pattern({}, pattern, source) if isinstance(pattern, str) else pattern
    elif found is not None:
        chosen = sidecar_pattern({}, found.pattern, source)
    else:
        assumed = str(defaults.pattern)
        chosen = sidecar_pattern({}, assumed, source)
        warnings.warn(
            AssumedPatternWarning(
                f"{source}: an unknown .tiktoken file with no bpe_lab.json: its pre-tokenizer is assumed to be "
                f"{assumed!r} (GPT-4's) and it has no special tokens; if that is wrong its ids are wrong: name the "
                "pattern (bpe.load(path, pattern='gpt2')) or save a bpe_lab.json beside it"
            ),
            stacklevel=4,
        )
    pattern = chosen
    specials = dict(meta.get("special_tokens") or defaults.special_tokens)
    name = meta.get("name") or defaults.name or PurePath(source).stem
    normalize = meta.get("normalize") if meta else defaults.normalize
    try:
        tok = tokenizer_from_ranks(ranks, pattern=pattern, special_tokens=specials, name=str(name), normalize=normalize)
        tok.assumed_pattern = assumed
        return tok
    except ValueError as exc:
        raise UnsupportedFormatError(f"{source}: {exc}") from None
