"""GPT-2's ``vocab.json`` + ``merges.txt``: tokens spelled in GPT-2's visible byte alphabet (``Ġ`` for a
space), merges one ``left right`` line each in rank order, with ``bpe_lab.json`` alongside for what those
two files cannot say (the pattern, the special tokens).

>>> import bpe
>>> tok = bpe.train("hug hug hugs", 260, pattern="gpt4").tokenizer()
>>> files = dumps(tok)
>>> list(files)
['vocab.json', 'merges.txt', 'bpe_lab.json']
>>> files["merges.txt"].decode().splitlines()[:2]
['#version: 0.2', 'h u']
>>> loads(files["vocab.json"], files["merges.txt"], sidecar=files["bpe_lab.json"]).encode("hugs") == tok.encode("hugs")
True
"""

from __future__ import annotations

from pathlib import PurePath

from ..tokenizer import Tokenizer
from .common import (
    HF_BYTELEVEL_PATTERN,
    MERGES_FILE,
    SIDECAR,
    VOCAB_FILE,
    build_merges,
    byte_vocab,
    check_exportable,
    check_vocab,
    json_bytes,
    make_tokenizer,
    merge_list,
    merge_pairs,
    parse_json,
    read_sidecar,
    sidecar_json,
    sidecar_pattern,
    token_string,
)
from .errors import FormatError, UnsupportedFormatError

__all__ = ["dumps", "loads"]


def dumps(tok: Tokenizer) -> dict[str, bytes]:
    """``{"vocab.json": ..., "merges.txt": ..., "bpe_lab.json": ...}`` for a byte-level tokenizer."""
    check_exportable(tok, "merges")
    sidecar = sidecar_json(tok, "merges")
    pairs, _ = merge_list(tok)
    vocab = {token_string(tok, i): i for i in sorted(tok.vocab)}
    lines = ["#version: 0.2"] + [f"{token_string(tok, a)} {token_string(tok, b)}" for a, b in pairs]
    return {
        VOCAB_FILE: json_bytes(vocab),
        MERGES_FILE: ("\n".join(lines) + "\n").encode("utf-8"),
        SIDECAR: json_bytes(sidecar),
    }


def loads(
    vocab_data: bytes,
    merges_data: bytes,
    *,
    vocab_source: str = VOCAB_FILE,
    merges_source: str = MERGES_FILE,
    sidecar: bytes | None = None,
    sidecar_source: str = SIDECAR,
) -> Tokenizer:
    """``vocab.json`` + ``merges.txt`` bytes -> a tokenizer (merge order = the lines' order).

    Pattern and special tokens come from ``sidecar`` (``bpe_lab.json``) when given; otherwise GPT-2's
    pattern is assumed (what these files mean for GPT-2 and RoBERTa), and the tokens no merge produces
    (other than the 256 bytes) are taken to be special tokens (``<|endoftext|>``).
    """
    vocab = check_vocab(parse_json(vocab_data, vocab_source, "a {token: id} vocab.json"), vocab_source)
    try:
        lines = merges_data.decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise FormatError(f"{merges_source} cannot be read as text: {exc}") from None
    lines = [ln for ln in lines if ln.strip() and not ln.startswith("#version")]
    merges = build_merges(vocab, merge_pairs(lines, merges_source), merges_source)
    meta = read_sidecar(sidecar, sidecar_source)
    if meta.get("level", "byte") != "byte":
        raise UnsupportedFormatError(f"{vocab_source}: only byte-level vocab.json files are supported")
    if "special_tokens" in meta:
        specials = dict(meta["special_tokens"])
    else:
        made = set(merges.values())
        specials = {t: i for t, i in vocab.items() if i not in made and len(t) != 1 and t not in ("",)}
    pattern = sidecar_pattern(meta, HF_BYTELEVEL_PATTERN, sidecar_source)
    path = PurePath(vocab_source)
    token_vocab = byte_vocab(vocab, set(specials.values()), vocab_source)
    return make_tokenizer(
        vocab_source,
        lambda: Tokenizer.from_merges(
            token_vocab,
            merges,
            pattern=pattern,
            special_tokens=specials,
            normalize=meta.get("normalize"),
            name=str(meta.get("name") or path.parent.name or path.stem),
            ignore_merges=bool(meta.get("ignore_merges", False)),
        ),
    )
