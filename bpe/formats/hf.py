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
from typing import Any, Mapping

import regex

from .. import hf_pipeline as hfp
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
    token_string,
)
from .errors import FormatError, UnsupportedFormatError
from .onig import from_onig, pattern_from_onig, to_onig

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
    splits = [] if tok.pattern is None else [
        {"type": "Split", "pattern": {"Regex": to_onig(stage)}, "behavior": "Isolated", "invert": False}
        for stage in tok.pattern.stages]
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
    added = [{"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True}
             for s, i in sorted(tok.special_tokens.items(), key=lambda kv: kv[1])]
    byte_level = tok.level == "byte"
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": _normalizer_json(tok.normalize),
        "pre_tokenizer": _pre_tokenizer_json(tok),
        "post_processor": None,
        "decoder": ({"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}
                    if byte_level else _METASPACE_DECODER if split_metaspace(tok.normalize)[1] else {"type": "Fuse"}),
        "model": {
            "type": "BPE", "dropout": None, "unk_token": tok.unk_token, "continuing_subword_prefix": None,
            "end_of_word_suffix": None, "fuse_unk": tok.fuse_unk, "byte_fallback": tok.byte_fallback,
            "ignore_merges": ignore_merges, "vocab": vocab, "merges": merges,
        },
    }


def _type(node: Any) -> str | None:
    return node.get("type") if isinstance(node, dict) else None


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
    raise UnsupportedFormatError(f"the normalizer {_describe(node)} is not supported "
                                 "(only none or one Unicode normalization form: NFC, NFD, NFKC, NFKD)")


def _describe(node: Any) -> str:
    kind = _type(node)
    if kind == "Sequence":
        inner = node.get("pretokenizers") or node.get("normalizers") or node.get("decoders") or []
        return "Sequence[" + ", ".join(str(_type(x)) for x in inner) + "]"
    return repr(kind) if kind else repr(node)


def _split_regex(node: dict) -> str:
    behavior = node.get("behavior", "Isolated")
    if behavior != "Isolated" or node.get("invert", False):
        raise UnsupportedFormatError(f"a Split pre-tokenizer with behavior {behavior!r}"
                                     f"{' and invert' if node.get('invert') else ''} is not supported "
                                     "(only behavior 'Isolated', as tiktoken splits)")
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
    if any(k not in ("Split", "ByteLevel") for k in kinds) or len(byte_levels) > 1 or (
            byte_levels and byte_levels[0] != len(steps) - 1):
        if "Metaspace" in kinds:
            raise UnsupportedFormatError(
                "this is a SentencePiece-style BPE (Metaspace pre-tokenizer), not a byte-level BPE; "
                "only byte-level BPE tokenizer.json files are supported")
        raise UnsupportedFormatError(
            f"the pre-tokenizer {_describe(node)} is not supported; supported: ByteLevel, or Split(regex, "
            "Isolated) pre-tokenizers followed by ByteLevel(use_regex=false)")
    stages = [_split_regex(s) for s in steps if _type(s) == "Split"]
    if not byte_levels:
        return "char", pattern_from_onig(stages) if stages else None
    byte_level = steps[-1]
    if byte_level.get("add_prefix_space", False):
        raise UnsupportedFormatError("ByteLevel(add_prefix_space=true) is not supported (it inserts a space "
                                     "before the text); only add_prefix_space=false")
    if byte_level.get("use_regex", True):
        if stages:
            raise UnsupportedFormatError("a Split followed by ByteLevel(use_regex=true) is not supported")
        return "byte", PATTERNS[HF_BYTELEVEL_PATTERN]
    return "byte", pattern_from_onig(stages) if stages else None


#: What a tokenizer.json whose model is not BPE is, in the refusal (BPE Lab plays merges; these have none)
NOT_BPE = {
    "WordPiece": "This is a WordPiece tokenizer (BERT-style): it is not BPE and has no merges to play",
    "Unigram": "This is a Unigram tokenizer (T5/ALBERT-style SentencePiece): it is not BPE and has no merges to play",
    "WordLevel": "This is a WordLevel tokenizer (a plain word list): it is not BPE and has no merges to play",
}
ONLY_BPE = ("BPE Lab reads BPE tokenizers: byte-level (GPT-2, Llama 3, Qwen...) or SentencePiece-style "
            "(Llama 2, Mistral 7B, Gemma).")

# ----------------------------------------------------------------------------------------------------
# BPE that is not byte level: SentencePiece-style (Llama 2, Mistral 7B, Gemma), the quicktour's Whitespace BPE

#: JSON behaviour names -> ours
_BEHAVIOR = {"Removed": "removed", "Isolated": "isolated", "MergedWithPrevious": "merged_with_previous",
             "MergedWithNext": "merged_with_next", "Contiguous": "contiguous"}
_SUPPORTED_PRE = ("Whitespace, WhitespaceSplit, Metaspace, Punctuation, Digits, BertPreTokenizer, "
                  "CharDelimiterSplit, Split and Sequence")
_SUPPORTED_NORM = "NFC, NFD, NFKC, NFKD, Lowercase, Prepend, Replace, Strip and Sequence"
_SUPPORTED_DEC = "ByteFallback, Metaspace, Fuse, Strip, Replace, BPEDecoder and Sequence"


def _compiled(node: Any, where: str) -> Any:
    """A ``{"String": s}`` / ``{"Regex": r}`` pattern as a ``regex`` pattern (Oniguruma rewritten)."""
    if isinstance(node, dict) and isinstance(node.get("String"), str):
        return regex.compile(regex.escape(node["String"]))
    if isinstance(node, dict) and isinstance(node.get("Regex"), str):
        try:
            return regex.compile(from_onig(node["Regex"]))
        except regex.error as exc:
            raise UnsupportedFormatError(f"the {where} regex {node['Regex']!r} cannot be used: {exc}") from None
    raise FormatError(f"the {where} has no usable pattern: {node!r}")


def _behavior(node: dict, default: str) -> str:
    raw = node.get("behavior", default)
    if raw not in _BEHAVIOR:
        raise FormatError(f"unknown split behavior {raw!r} in {_describe(node)}")
    return _BEHAVIOR[raw]


def _prepend_scheme(node: dict) -> str:
    scheme = node.get("prepend_scheme")
    if scheme is None:   # files written before tokenizers 0.15
        scheme = "always" if node.get("add_prefix_space", True) else "never"
    if scheme not in ("always", "first", "never"):
        raise FormatError(f"unknown Metaspace prepend_scheme {scheme!r}")
    return scheme


def _pre_steps(node: Any, names: list[str]) -> list:
    if node is None:
        return []
    kind = _type(node)
    names.append(str(kind))
    if kind == "Sequence":
        steps = []
        for inner in node.get("pretokenizers") or []:
            steps.extend(_pre_steps(inner, names))
        names.remove("Sequence")
        return steps
    if kind == "Whitespace":
        return [hfp.whitespace()]
    if kind == "WhitespaceSplit":
        return [hfp.whitespace_split()]
    if kind == "BertPreTokenizer":
        return [hfp.whitespace_split(), hfp.punctuation("isolated")]
    if kind == "Punctuation":
        return [hfp.punctuation(_behavior(node, "Isolated"))]
    if kind == "Digits":
        return [hfp.digits(bool(node.get("individual_digits", False)))]
    if kind == "CharDelimiterSplit":
        delim = node.get("delimiter")
        if not isinstance(delim, str) or len(delim) != 1:
            raise FormatError(f"a CharDelimiterSplit needs one delimiter character, not {delim!r}")
        return [hfp.split_regex(regex.compile(regex.escape(delim)), "removed", False)]
    if kind == "Split":
        return [hfp.split_regex(_compiled(node.get("pattern"), "Split pre-tokenizer"), _behavior(node, "Isolated"),
                                bool(node.get("invert", False)))]
    if kind == "Metaspace":
        replacement = node.get("replacement", "▁")
        if not isinstance(replacement, str) or len(replacement) != 1:
            raise FormatError(f"the Metaspace replacement must be one character, not {replacement!r}")
        return [hfp.metaspace(replacement, _prepend_scheme(node), bool(node.get("split", True)))]
    if kind == "ByteLevel":
        raise UnsupportedFormatError("a ByteLevel pre-tokenizer after other pre-tokenizers than Split is not "
                                     f"supported (supported with a char-level BPE: {_SUPPORTED_PRE})")
    raise UnsupportedFormatError(f"the pre-tokenizer {_describe(node)} is not supported; supported: ByteLevel "
                                 f"(after Split regexes), or {_SUPPORTED_PRE}")


def _norm_steps(node: Any, names: list[str]) -> list:
    if node is None:
        return []
    kind = _type(node)
    if kind == "Sequence":
        steps = []
        for inner in node.get("normalizers") or []:
            steps.extend(_norm_steps(inner, names))
        return steps
    names.append(str(kind))
    if kind in ("NFC", "NFD", "NFKC", "NFKD"):
        return [hfp.NormalizationForm(kind)]
    if kind == "Lowercase":
        return [hfp.Lowercase()]
    if kind == "Prepend" and isinstance(node.get("prepend"), str):
        return [hfp.Prepend(node["prepend"])]
    if kind == "Strip":
        return [hfp.Strip(bool(node.get("strip_left", True)), bool(node.get("strip_right", True)))]
    if kind == "Replace" and isinstance(node.get("content"), str):
        pattern = node.get("pattern")
        literal = pattern.get("String") if isinstance(pattern, dict) else None
        return [hfp.Replace(literal if isinstance(literal, str) else _compiled(pattern, "Replace normalizer"),
                            node["content"])]
    raise UnsupportedFormatError(f"the normalizer {_describe(node)} is not supported; supported: {_SUPPORTED_NORM}")


def _decoder_steps(node: Any) -> list:
    kind = _type(node)
    if kind == "Sequence":
        steps = []
        for inner in node.get("decoders") or []:
            steps.extend(_decoder_steps(inner))
        return steps
    if kind == "ByteFallback":
        return [hfp.ByteFallbackDecoder()]
    if kind == "Fuse":
        return [hfp.FuseDecoder()]
    if kind == "Metaspace":
        return [hfp.MetaspaceDecoder(node.get("replacement", "▁"), _prepend_scheme(node))]
    if kind == "Strip":
        return [hfp.StripDecoder(str(node.get("content", " ")), int(node.get("start", 0)), int(node.get("stop", 0)))]
    if kind == "Replace" and isinstance(node.get("content"), str):
        pattern = node.get("pattern")
        literal = pattern.get("String") if isinstance(pattern, dict) else None
        return [hfp.ReplaceDecoder(literal if isinstance(literal, str) else _compiled(pattern, "Replace decoder"),
                                   node["content"])]
    if kind == "BPEDecoder":
        return [hfp.BPEDecoder(str(node.get("suffix", "</w>")))]
    raise UnsupportedFormatError(f"the decoder {_describe(node)} is not supported with a char-level BPE; "
                                 f"supported: {_SUPPORTED_DEC}")


def _is_legacy_char(data: dict) -> bool:
    """The char-level files :func:`bpe.save` writes (Split regexes, Fuse, one normalization form): read as
    before, with our pattern machinery (the player replays them)."""
    model, pre, dec, norm = data["model"], data.get("pre_tokenizer"), data.get("decoder"), data.get("normalizer")
    if model.get("byte_fallback") or model.get("continuing_subword_prefix") or model.get("end_of_word_suffix"):
        return False
    steps = pre.get("pretokenizers") if _type(pre) == "Sequence" else ([] if pre is None else [pre])
    if not isinstance(steps, list) or any(_type(s) != "Split" or s.get("behavior", "Isolated") != "Isolated"
                                          or s.get("invert") for s in steps):
        return False
    if dec is not None and _type(dec) != "Fuse":
        return False
    try:
        _hf_normalizer(norm)
    except FormatError:
        return False
    return True


def _describe_pipeline(data: dict, model: dict, pre_names: list[str], norm_names: list[str]) -> str:
    metaspace = "Metaspace" in pre_names or (any(n in ("Replace", "Prepend") for n in norm_names)
                                             and "▁" in model.get("vocab", {}))
    kind = "SentencePiece-style BPE" if metaspace or model.get("byte_fallback") else "char-level BPE"
    bits = [", ".join(pre_names) or "no pre-tokenizer"]
    if norm_names:
        bits.append("normalizer " + ", ".join(norm_names))
    if model.get("byte_fallback"):
        bits.append("byte fallback")
    if model.get("unk_token"):
        bits.append(f"unknown token {model['unk_token']}")
    return f"{kind} ({'; '.join(bits)})"


def _pipeline_tokenizer(data: dict, source: str, name: str) -> Tokenizer:
    model = data["model"]
    pre_names: list[str] = []
    norm_names: list[str] = []
    pre = _pre_steps(data.get("pre_tokenizer"), pre_names)
    norm = _norm_steps(data.get("normalizer"), norm_names)
    decoder = data.get("decoder")
    decoders = None if decoder is None else tuple(_decoder_steps(decoder))
    vocab = check_vocab(model.get("vocab"), source)
    specials: dict[str, int] = {}
    for entry in data.get("added_tokens") or []:
        if not isinstance(entry, dict) or not isinstance(entry.get("content"), str) or not isinstance(
                entry.get("id"), int):
            raise FormatError(f"{source}: malformed added token {entry!r}")
        if entry.get("special", False):
            specials[entry["content"]] = entry["id"]
        elif vocab.get(entry["content"]) != entry["id"]:
            raise UnsupportedFormatError(f"{source}: the non-special added token {entry['content']!r} is not "
                                         "supported (only special added tokens)")
    for key in ("continuing_subword_prefix", "end_of_word_suffix", "unk_token"):
        if model.get(key) is not None and not isinstance(model.get(key), str):
            raise FormatError(f"{source}: the model's {key} must be a string, not {model[key]!r}")
    prefix = model.get("continuing_subword_prefix") or None
    unk = model.get("unk_token")
    if unk is not None and unk not in vocab:
        raise FormatError(f"{source}: the unk_token {unk!r} is not in the vocabulary")
    # a merge (a, b) makes a + b without b's continuing-subword prefix (HF: a + b[prefix_len..])
    pairs = merge_pairs(model.get("merges", []), source)
    merges: dict[tuple[int, int], int] = {}
    for n, (left, right) in enumerate(pairs):
        made = left + (right[len(prefix):] if prefix and right.startswith(prefix) else right)
        try:
            merges.setdefault((vocab[left], vocab[right]), vocab[made])
        except KeyError as exc:
            raise FormatError(f"{source}: merge #{n} ({left!r}, {right!r}) uses {exc.args[0]!r}, which is not in "
                              "the vocabulary") from None
    pipeline = hfp.Pipeline(normalizers=tuple(norm), pre_tokenizers=tuple(pre), decoders=decoders, vocab=vocab,
                            unk_token=unk, fuse_unk=bool(model.get("fuse_unk", False)),
                            byte_fallback=bool(model.get("byte_fallback", False)), prefix=prefix,
                            suffix=model.get("end_of_word_suffix") or None, source=data,
                            description=_describe_pipeline(data, model, pre_names, norm_names),
                            steps=tuple(pre_names + norm_names))
    special_ids = set(specials.values())
    token_vocab = {i: t for t, i in vocab.items() if i not in special_ids}
    return make_tokenizer(source, vocab=token_vocab, merges=merges, pattern=None, level="char",
                          special_tokens=specials, name=name, ignore_merges=bool(model.get("ignore_merges", False)),
                          pipeline=pipeline)


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
        raise UnsupportedFormatError(f"{source}: {NOT_BPE.get(kind, f'the model type {kind!r} is not BPE')}. "
                                     f"{ONLY_BPE}")
    if model.get("dropout") not in (None, 0, 0.0):
        raise UnsupportedFormatError(f"{source}: BPE dropout ({model['dropout']}) is not supported")
    pre = data.get("pre_tokenizer")
    pre_kinds = [_type(s) for s in (pre.get("pretokenizers") or [] if _type(pre) == "Sequence" else [pre])] \
        if isinstance(pre, dict) else []
    if "ByteLevel" not in pre_kinds and not _is_legacy_char(data):
        path = PurePath(source)
        return _pipeline_tokenizer(data, source, path.parent.name if path.name == HF_FILE and path.parent.name
                                   else path.stem)
    for key, what in (("byte_fallback", "byte fallback with a ByteLevel pre-tokenizer"),
                      ("continuing_subword_prefix", "a continuing-subword prefix"),
                      ("end_of_word_suffix", "an end-of-word suffix")):
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
                "byte-level BPE; only byte-level BPE tokenizer.json files are supported")
        raise UnsupportedFormatError(f"{source}: the decoder {_describe(decoder)} is not supported "
                                     "(a byte-level BPE decodes with ByteLevel)")
    normalize = _hf_normalizer(data.get("normalizer"))
    vocab = check_vocab(model.get("vocab"), source)
    added = data.get("added_tokens") or []
    specials: dict[str, int] = {}
    for entry in added:
        if not isinstance(entry, dict) or not isinstance(entry.get("content"), str) or not isinstance(
                entry.get("id"), int):
            raise FormatError(f"{source}: malformed added token {entry!r}")
        if entry.get("special", False):
            specials[entry["content"]] = entry["id"]
        elif vocab.get(entry["content"]) != entry["id"]:
            raise UnsupportedFormatError(f"{source}: the non-special added token {entry['content']!r} is not "
                                         "supported (only special added tokens)")
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
    return make_tokenizer(source, vocab=token_vocab, merges=merges, pattern=pattern, level=level,
                          special_tokens=specials, normalize=normalize, name=name,
                          ignore_merges=bool(model.get("ignore_merges", False)),
                          # a byte-level BPE never meets an unknown character: its unk_token goes unused
                          unk_token=unk if level == "char" else None,
                          fuse_unk=bool(model.get("fuse_unk", False)) and level == "char")


def dumps(tok: Tokenizer) -> dict[str, bytes]:
    """``{"tokenizer.json": its bytes}``."""
    return {HF_FILE: json_bytes(to_hf_json(tok))}


def loads(data: bytes, *, source: str = HF_FILE) -> Tokenizer:
    """A tokenizer from the bytes of a ``tokenizer.json`` (see :func:`from_hf_json`); ``source`` names the
    file in messages and gives the tokenizer its name."""
    return from_hf_json(parse_json(data, source, "a Hugging Face tokenizer.json"), source=source)
