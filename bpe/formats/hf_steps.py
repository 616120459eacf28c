"""Hugging Face ``tokenizer.json`` files whose BPE is not byte level (SentencePiece-style: Llama 2, Mistral
7B, Gemma; the quicktour's ``Whitespace`` + ``[UNK]``): their normalizers, pre-tokenizers and decoders read into
a :class:`bpe.hf_pipeline.Pipeline` (:func:`pipeline_tokenizer`). Every regex in such a file goes through the
library's one guard for regexes from outside (:class:`bpe.hf_regex.FileRegex`). :mod:`bpe.formats.hf` reads the
rest of the file.

>>> steps = _norm_steps({"type": "Replace", "pattern": {"Regex": " +"}, "content": "_"}, [])
>>> steps[0]("a   b")
'a_b'
>>> _norm_steps({"type": "Replace", "pattern": {"Regex": "b{2000000}"}, "content": "x"}, [])
Traceback (most recent call last):
...
bpe.formats.errors.UnsupportedFormatError: the Replace normalizer regex 'b{2000000}' cannot be used: the pattern is too large to compile: its counted repeats ({n} and {m,n}) write it out to at least 2,000,002 units, and the limit is 50,000 (a{1000} alone is 1,002)
"""

from __future__ import annotations

from typing import Any

import regex

from .. import hf_pipeline as hfp
from ..hf_regex import FileRegex
from ..patterns import PatternError
from ..tokenizer import Tokenizer
from .common import check_vocab, make_tokenizer, merge_pairs, special_added_tokens
from .errors import FormatError, UnsupportedFormatError
from .onig import from_onig

__all__ = ["pipeline_tokenizer", "NOT_BPE", "ONLY_BPE", "describe", "node_type"]


def node_type(node: Any) -> str | None:
    """A node's ``"type"`` (None for anything but a dict)."""
    return node.get("type") if isinstance(node, dict) else None


def describe(node: Any) -> str:
    """A node in a few words for messages (``Sequence[Split, ByteLevel]``)."""
    kind = node_type(node)
    if kind == "Sequence":
        inner = node.get("pretokenizers") or node.get("normalizers") or node.get("decoders") or []
        return "Sequence[" + ", ".join(str(node_type(x)) for x in inner) + "]"
    return repr(kind) if kind else repr(node)


#: What a tokenizer.json whose model is not BPE is, in the refusal (BPE Lab plays merges; these have none)
NOT_BPE = {
    "WordPiece": "This is a WordPiece tokenizer (BERT-style): it is not BPE and has no merges to play",
    "Unigram": "This is a Unigram tokenizer (T5/ALBERT-style SentencePiece): it is not BPE and has no merges to play",
    "WordLevel": "This is a WordLevel tokenizer (a plain word list): it is not BPE and has no merges to play",
}
ONLY_BPE = (
    "BPE Lab reads BPE tokenizers: byte-level (GPT-2, Llama 3, Qwen...) or SentencePiece-style "
    "(Llama 2, Mistral 7B, Gemma)."
)

# ----------------------------------------------------------------------------------------------------
# BPE that is not byte level: SentencePiece-style (Llama 2, Mistral 7B, Gemma), the quicktour's Whitespace BPE

#: JSON behaviour names -> ours
_BEHAVIOR = {
    "Removed": "removed",
    "Isolated": "isolated",
    "MergedWithPrevious": "merged_with_previous",
    "MergedWithNext": "merged_with_next",
    "Contiguous": "contiguous",
}
_SUPPORTED_PRE = (
    "Whitespace, WhitespaceSplit, Metaspace, Punctuation, Digits, BertPreTokenizer, "
    "CharDelimiterSplit, Split and Sequence"
)
_SUPPORTED_NORM = "NFC, NFD, NFKC, NFKD, Lowercase, Prepend, Replace, Strip and Sequence"
_SUPPORTED_DEC = "ByteFallback, Metaspace, Fuse, Strip, Replace, BPEDecoder and Sequence"


def _file_regex(source: str, shown: str, where: str, literal: bool = False) -> FileRegex:
    """``source`` through the library's one guard for regexes from outside (:class:`bpe.hf_regex.FileRegex`);
    refused in one sentence naming the step and the file's own regex (``shown``)."""
    try:
        return FileRegex(source, literal=literal)
    except PatternError as exc:
        raise UnsupportedFormatError(f"the {where} regex {shown!r} cannot be used: {exc}") from None


def _compiled(node: Any, where: str) -> FileRegex:
    """A ``{"String": s}`` / ``{"Regex": r}`` pattern as a guarded regex (Oniguruma rewritten)."""
    if isinstance(node, dict) and isinstance(node.get("String"), str):
        return _file_regex(regex.escape(node["String"]), node["String"], where, literal=True)
    if isinstance(node, dict) and isinstance(node.get("Regex"), str):
        return _file_regex(from_onig(node["Regex"]), node["Regex"], where)
    raise FormatError(f"the {where} has no usable pattern: {node!r}")


def _behavior(node: dict, default: str) -> str:
    raw = node.get("behavior", default)
    if raw not in _BEHAVIOR:
        raise FormatError(f"unknown split behavior {raw!r} in {describe(node)}")
    return _BEHAVIOR[raw]


def _prepend_scheme(node: dict) -> str:
    scheme = node.get("prepend_scheme")
    if scheme is None:  # files written before tokenizers 0.15
        scheme = "always" if node.get("add_prefix_space", True) else "never"
    if scheme not in ("always", "first", "never"):
        raise FormatError(f"unknown Metaspace prepend_scheme {scheme!r}")
    return scheme


def _pre_steps(node: Any, names: list[str]) -> list:
    if node is None:
        return []
    kind = node_type(node)
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
        return [
            hfp.split_regex(
                _file_regex(regex.escape(delim), delim, "CharDelimiterSplit", literal=True), "removed", False
            )
        ]
    if kind == "Split":
        return [
            hfp.split_regex(
                _compiled(node.get("pattern"), "Split pre-tokenizer"),
                _behavior(node, "Isolated"),
                bool(node.get("invert", False)),
            )
        ]
    if kind == "Metaspace":
        replacement = node.get("replacement", "▁")
        if not isinstance(replacement, str) or len(replacement) != 1:
            raise FormatError(f"the Metaspace replacement must be one character, not {replacement!r}")
        return [hfp.metaspace(replacement, _prepend_scheme(node), bool(node.get("split", True)))]
    if kind == "ByteLevel":
        raise UnsupportedFormatError(
            "a ByteLevel pre-tokenizer after other pre-tokenizers than Split is not "
            f"supported (supported with a char-level BPE: {_SUPPORTED_PRE})"
        )
    raise UnsupportedFormatError(
        f"the pre-tokenizer {describe(node)} is not supported; supported: ByteLevel "
        f"(after Split regexes), or {_SUPPORTED_PRE}"
    )


def _norm_steps(node: Any, names: list[str]) -> list:
    if node is None:
        return []
    kind = node_type(node)
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
        return [
            hfp.Replace(
                literal if isinstance(literal, str) else _compiled(pattern, "Replace normalizer"), node["content"]
            )
        ]
    raise UnsupportedFormatError(f"the normalizer {describe(node)} is not supported; supported: {_SUPPORTED_NORM}")


def _decoder_steps(node: Any) -> list:
    kind = node_type(node)
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
        return [
            hfp.ReplaceDecoder(
                literal if isinstance(literal, str) else _compiled(pattern, "Replace decoder"), node["content"]
            )
        ]
    if kind == "BPEDecoder":
        return [hfp.BPEDecoder(str(node.get("suffix", "</w>")))]
    raise UnsupportedFormatError(
        f"the decoder {describe(node)} is not supported with a char-level BPE; supported: {_SUPPORTED_DEC}"
    )


def _describe_pipeline(data: dict, model: dict, pre_names: list[str], norm_names: list[str]) -> str:
    metaspace = "Metaspace" in pre_names or (
        any(n in ("Replace", "Prepend") for n in norm_names) and "▁" in model.get("vocab", {})
    )
    kind = "SentencePiece-style BPE" if metaspace or model.get("byte_fallback") else "char-level BPE"
    bits = [", ".join(pre_names) or "no pre-tokenizer"]
    if norm_names:
        bits.append("normalizer " + ", ".join(norm_names))
    if model.get("byte_fallback"):
        bits.append("byte fallback")
    if model.get("unk_token"):
        bits.append(f"unknown token {model['unk_token']}")
    return f"{kind} ({'; '.join(bits)})"


def pipeline_tokenizer(data: dict, source: str, name: str) -> Tokenizer:
    """A char-level :class:`bpe.Tokenizer` running the file's own pipeline (see the module's note)."""
    model = data["model"]
    pre_names: list[str] = []
    norm_names: list[str] = []
    pre = _pre_steps(data.get("pre_tokenizer"), pre_names)
    norm = _norm_steps(data.get("normalizer"), norm_names)
    decoder = data.get("decoder")
    decoders = None if decoder is None else tuple(_decoder_steps(decoder))
    vocab = check_vocab(model.get("vocab"), source)
    specials = special_added_tokens(data, vocab, source)
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
        made = left + (right[len(prefix) :] if prefix and right.startswith(prefix) else right)
        try:
            merges.setdefault((vocab[left], vocab[right]), vocab[made])
        except KeyError as exc:
            raise FormatError(
                f"{source}: merge #{n} ({left!r}, {right!r}) uses {exc.args[0]!r}, which is not in the vocabulary"
            ) from None
    pipeline = hfp.Pipeline(
        normalizers=tuple(norm),
        pre_tokenizers=tuple(pre),
        decoders=decoders,
        vocab=vocab,
        unk_token=unk,
        fuse_unk=bool(model.get("fuse_unk", False)),
        byte_fallback=bool(model.get("byte_fallback", False)),
        prefix=prefix,
        suffix=model.get("end_of_word_suffix") or None,
        source=data,
        description=_describe_pipeline(data, model, pre_names, norm_names),
        steps=tuple(pre_names + norm_names),
    )
    special_ids = set(specials.values())
    token_vocab = {i: t for t, i in vocab.items() if i not in special_ids}
    return make_tokenizer(
        source,
        lambda: Tokenizer.from_pipeline(
            token_vocab,
            merges,
            pipeline,
            special_tokens=specials,
            name=name,
            ignore_merges=bool(model.get("ignore_merges", False)),
        ),
    )
