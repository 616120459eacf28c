"""Hugging Face ``tokenizer.json``: a BPE model, a ``Split(regex, Isolated)`` + ``ByteLevel`` pre-tokenizer,
a ``ByteLevel`` decoder, special tokens as added tokens. ``tokenizers.Tokenizer.from_file`` loads what we
write and encodes to the same ids; we read byte-level BPE files made by ``tokenizers`` (merges written as
``["a", "b"]`` or ``"a b"``) and refuse anything else (WordPiece, Unigram, SentencePiece-style BPE with
byte fallback ...) with a message naming what is not supported.

>>> import bpe
>>> tok = bpe.train("low lower lowest", 262, pattern="gpt4").tokenizer()
>>> files = dumps(tok)
>>> list(files)
['tokenizer.json']
>>> loads(files["tokenizer.json"], source="tokenizer.json").encode("lowest low") == tok.encode("lowest low")
True
"""

from __future__ import annotations

import copy
import re
from pathlib import PurePath
from typing import Any, Mapping, cast

from ..patterns import PATTERNS, Pattern
from ..tokenizer import Tokenizer
from ..visible import METASPACE_CHAR, split_metaspace
from .common import (
    HF_BYTELEVEL_PATTERN,
    HF_FILE,
    build_merges,
    byte_vocab,
    check_exportable,
    check_vocab,
    json_bytes,
    make_tokenizer,
    merge_list,
    merge_pairs,
    parse_json,
    special_added_tokens,
    token_string,
)
from .errors import FormatError, UnsupportedFormatError
from .hf_steps import NOT_BPE, ONLY_BPE, pipeline_tokenizer
from .hf_steps import describe as _describe
from .hf_steps import node_type as _type
from .onig import pattern_from_onig, to_onig

__all__ = ["to_hf_json", "from_hf_json", "dumps", "loads"]


def _normalizer_json(form: str | None) -> dict | None:
    form = split_metaspace(form)[0]
    return None if form is None else {"type": form.upper()}


#: a SentencePiece-style tokenizer's pre-tokenizer and decoders, as HF writes Llama/Mistral ones
_METASPACE = {"type": "Metaspace", "replacement": METASPACE_CHAR, "prepend_scheme": "always", "split": True}
_METASPACE_DECODER = {"type": "Sequence", "decoders": [{"type": "ByteFallback"}, _METASPACE, {"type": "Fuse"}]}


def _pre_tokenizer_json(tok: Tokenizer) -> dict:
    if split_metaspace(tok.normalize)[1]:
        return dict(_METASPACE)
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}
    splits = (
        []
        if tok.pattern is None
        else [
            {"type": "Split", "pattern": {"Regex": to_onig(stage)}, "behavior": "Isolated", "invert": False}
            for stage in tok.pattern.stages
        ]
    )
    if tok.level == "char":
        if not splits:
            return None  # type: ignore[return-value]
        return splits[0] if len(splits) == 1 else {"type": "Sequence", "pretokenizers": splits}
    if not splits:
        return byte_level
    return {"type": "Sequence", "pretokenizers": splits + [byte_level]}


def to_hf_json(tok: Tokenizer) -> dict[str, Any]:
    """The Hugging Face ``tokenizer.json`` of ``tok``, as a dict (``json.dumps`` it to write).

    >>> from bpe import train
    >>> d = to_hf_json(train("ab ab ab", 257, pattern="gpt4").tokenizer())
    >>> d["model"]["type"], d["model"]["merges"], d["pre_tokenizer"]["pretokenizers"][1]["type"]
    ('BPE', [['a', 'b']], 'ByteLevel')
    """
    if tok.pipeline is not None:
        return copy.deepcopy(tok.pipeline.source)  # read from a tokenizer.json: written back as it was
    check_exportable(tok, "hf")
    pairs, ignore_merges = merge_list(tok)
    vocab = {token_string(tok, i): i for i in sorted(tok.vocab)}
    merges = [[token_string(tok, a), token_string(tok, b)] for a, b in pairs]
    added = [
        {
            "id": i,
            "content": s,
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
        for s, i in sorted(tok.special_tokens.items(), key=lambda kv: kv[1])
    ]
    byte_level = tok.level == "byte"
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": _normalizer_json(tok.normalize),
        "pre_tokenizer": _pre_tokenizer_json(tok),
        "post_processor": None,
        "decoder": (
            {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}
            if byte_level
            else _METASPACE_DECODER
            if split_metaspace(tok.normalize)[1]
            else {"type": "Fuse"}
        ),
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": tok.unk_token,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": tok.fuse_unk,
            "byte_fallback": tok.byte_fallback,
            "ignore_merges": ignore_merges,
            "vocab": vocab,
            "merges": merges,
        },
    }


def _hf_normalizer(node: Any) -> str | None:
    if node is None:
        return None
    kind = _type(node)
    if kind in ("NFC", "NFD", "NFKC", "NFKD"):
        return kind
    if kind == "Sequence" and isinstance(node.get("normalizers"), list):
        inner = node["normalizers"]
        if not inner:
            return None
        if len(inner) == 1:
            return _hf_normalizer(inner[0])
    raise UnsupportedFormatError(
        f"the normalizer {_describe(node)} is not supported "
        "(only none or one Unicode normalization form: NFC, NFD, NFKC, NFKD)"
    )


def _split_regex(node: dict) -> str:
    behavior = node.get("behavior", "Isolated")
    if behavior != "Isolated" or node.get("invert", False):
        raise UnsupportedFormatError(
            f"a Split pre-tokenizer with behavior {behavior!r}"
            f"{' and invert' if node.get('invert') else ''} is not supported "
            "(only behavior 'Isolated', as tiktoken splits)"
        )
    pattern = node.get("pattern")
    if isinstance(pattern, dict) and isinstance(pattern.get("Regex"), str):
        return pattern["Regex"]
    if isinstance(pattern, dict) and isinstance(pattern.get("String"), str):
        return re.escape(pattern["String"])
    raise FormatError(f"a Split pre-tokenizer has no usable pattern: {pattern!r}")


def _hf_pre_tokenizer(node: Any) -> tuple[str, Pattern | None]:
    """``(level, pattern)`` from a ``pre_tokenizer`` node."""
    if node is None:
        return "char", None
    steps = node.get("pretokenizers") if _type(node) == "Sequence" else [node]
    if not isinstance(steps, list):
        raise FormatError(f"the pre_tokenizer {node!r} is malformed")
    kinds = [_type(s) for s in steps]
    byte_levels = [i for i, k in enumerate(kinds) if k == "ByteLevel"]
    if (
        any(k not in ("Split", "ByteLevel") for k in kinds)
        or len(byte_levels) > 1
        or (byte_levels and byte_levels[0] != len(steps) - 1)
    ):
        if "Metaspace" in kinds:
            raise UnsupportedFormatError(
                "this is a SentencePiece-style BPE (Metaspace pre-tokenizer), not a byte-level BPE; "
                "only byte-level BPE tokenizer.json files are supported"
            )
        raise UnsupportedFormatError(
            f"the pre-tokenizer {_describe(node)} is not supported; supported: ByteLevel, or Split(regex, "
            "Isolated) pre-tokenizers followed by ByteLevel(use_regex=false)"
        )
    stages = [_split_regex(s) for s in steps if _type(s) == "Split"]
    if not byte_levels:
        return "char", pattern_from_onig(stages) if stages else None
    byte_level = steps[-1]
    if byte_level.get("add_prefix_space", False):
        raise UnsupportedFormatError(
            "ByteLevel(add_prefix_space=true) is not supported (it inserts a space "
            "before the text); only add_prefix_space=false"
        )
    if byte_level.get("use_regex", True):
        if stages:
            raise UnsupportedFormatError("a Split followed by ByteLevel(use_regex=true) is not supported")
        return "byte", PATTERNS[HF_BYTELEVEL_PATTERN]
    return "byte", pattern_from_onig(stages) if stages else None


def _is_legacy_char(data: dict) -> bool:
    """The char-level files :func:`bpe.save` writes (Split regexes, Fuse, one normalization form): read as
    before, with our pattern machinery (the player replays them)."""
    model, pre, dec, norm = data["model"], data.get("pre_tokenizer"), data.get("decoder"), data.get("normalizer")
    if model.get("byte_fallback") or model.get("continuing_subword_prefix") or model.get("end_of_word_suffix"):
        return False
    steps = pre.get("pretokenizers") if _type(pre) == "Sequence" else ([] if pre is None else [pre])
    if not isinstance(steps, list) or any(
        _type(s) != "Split" or s.get("behavior", "Isolated") != "Isolated" or s.get("invert") for s in steps
    ):
        return False
    if dec is not None and _type(dec) != "Fuse":
        return False
    try:
        _hf_normalizer(norm)
    except FormatError:
        return False
    return True


def from_hf_json(data: Any, *, source: str = "tokenizer.json") -> Tokenizer:
    """A :class:`bpe.Tokenizer` from a parsed Hugging Face ``tokenizer.json``.

    Supported: a BPE model (no dropout, byte fallback or subword affixes) with a ``ByteLevel`` pre-tokenizer,
    alone or after ``Split(regex, Isolated)`` steps, a ``ByteLevel`` decoder, an optional Unicode
    normalization, special added tokens (``"special": true``). The post-processor (e.g. a template adding
    BOS) is not applied: encoding matches ``encode(text, add_special_tokens=False)``. Also read: the
    char-level BPE files :func:`bpe.save` writes (``Split`` only, ``Fuse`` decoder).

    >>> import bpe
    >>> tok = from_hf_json(to_hf_json(bpe.train("ab ab", 257, pattern="gpt4").tokenizer()), source="t.json")
    >>> tok.name, tok.encode("ab")
    ('t', [256])
    """
    if not isinstance(data, dict) or not isinstance(data.get("model"), dict):
        raise FormatError(f"{source} is not a Hugging Face tokenizer.json (no 'model' object)")
    model = data["model"]
    kind = model.get("type", "BPE" if "merges" in model else None)
    if kind != "BPE":
        raise UnsupportedFormatError(
            f"{source}: {NOT_BPE.get(kind, f'the model type {kind!r} is not BPE')}. {ONLY_BPE}"
        )
    if model.get("dropout") not in (None, 0, 0.0):
        raise UnsupportedFormatError(f"{source}: BPE dropout ({model['dropout']}) is not supported")
    pre = data.get("pre_tokenizer")
    pre_kinds = (
        [_type(s) for s in (pre.get("pretokenizers") or [] if _type(pre) == "Sequence" else [pre])]
        if isinstance(pre, dict)
        else []
    )
    if "ByteLevel" not in pre_kinds and not _is_legacy_char(data):
        path = PurePath(source)
        return pipeline_tokenizer(
            data, source, path.parent.name if path.name == HF_FILE and path.parent.name else path.stem
        )
    for key, what in (
        ("byte_fallback", "byte fallback with a ByteLevel pre-tokenizer"),
        ("continuing_subword_prefix", "a continuing-subword prefix"),
        ("end_of_word_suffix", "an end-of-word suffix"),
    ):
        if model.get(key):
            raise UnsupportedFormatError(f"{source}: BPE with {what} is not supported; only byte-level BPE")
    if model.get("dropout") not in (None, 0, 0.0):
        raise UnsupportedFormatError(f"{source}: BPE dropout ({model['dropout']}) is not supported")
    level, pattern = _hf_pre_tokenizer(data.get("pre_tokenizer"))
    decoder = data.get("decoder")
    allowed_decoders = ("ByteLevel",) if level == "byte" else ("Fuse",)
    if decoder is not None and _type(decoder) not in allowed_decoders:
        if level == "char":
            raise UnsupportedFormatError(
                f"{source}: a BPE without a ByteLevel pre-tokenizer (decoder {_describe(decoder)}) is not "
                "byte-level BPE; only byte-level BPE tokenizer.json files are supported"
            )
        raise UnsupportedFormatError(
            f"{source}: the decoder {_describe(decoder)} is not supported (a byte-level BPE decodes with ByteLevel)"
        )
    normalize = _hf_normalizer(data.get("normalizer"))
    vocab = check_vocab(model.get("vocab"), source)
    specials = special_added_tokens(data, vocab, source)
    special_ids = set(specials.values())
    merges = build_merges(vocab, merge_pairs(model.get("merges", []), source), source)
    path = PurePath(source)
    name = path.parent.name if path.name == HF_FILE and path.parent.name else path.stem
    if level == "byte":
        token_vocab: Mapping[int, bytes | str] = byte_vocab(vocab, special_ids, source)
    else:
        token_vocab = {i: t for t, i in vocab.items() if i not in special_ids}
    unk = model.get("unk_token")
    if level == "char" and unk is not None and unk not in specials:
        if not isinstance(unk, str) or unk not in vocab:
            raise FormatError(f"{source}: the unk_token {unk!r} is not in the vocabulary")
        specials[unk] = vocab[unk]  # Hugging Face encodes unknown characters to it, added token or not
        token_vocab = {i: t for i, t in token_vocab.items() if i != vocab[unk]}
    ignore_merges = bool(model.get("ignore_merges", False))
    if level == "byte":  # a byte-level BPE never meets an unknown character: its unk_token goes unused
        return make_tokenizer(
            source,
            lambda: Tokenizer.from_merges(
                cast("dict[int, bytes]", token_vocab),
                merges,
                pattern=pattern,
                special_tokens=specials,
                normalize=normalize,
                name=name,
                ignore_merges=ignore_merges,
            ),
        )
    return make_tokenizer(
        source,
        lambda: Tokenizer.from_char_merges(
            cast("dict[int, str]", token_vocab),
            merges,
            pattern=pattern,
            special_tokens=specials,
            normalize=normalize,
            name=name,
            ignore_merges=ignore_merges,
            unk_token=unk,
            fuse_unk=bool(model.get("fuse_unk", False)),
        ),
    )


def dumps(tok: Tokenizer) -> dict[str, bytes]:
    """``{"tokenizer.json": its bytes}``."""
    return {HF_FILE: json_bytes(to_hf_json(tok))}


def loads(data: bytes, *, source: str = HF_FILE) -> Tokenizer:
    """A tokenizer from the bytes of a ``tokenizer.json`` (see :func:`from_hf_json`); ``source`` names the
    file in messages and gives the tokenizer its name."""
    return from_hf_json(parse_json(data, source, "a Hugging Face tokenizer.json"), source=source)
