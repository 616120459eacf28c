"""Tokenizer files the ecosystem loads: write ours, read theirs.

Three formats, each written and read back:

* ``"hf"`` — a Hugging Face ``tokenizer.json``: a BPE model, a ``Split(regex, Isolated)`` + ``ByteLevel``
  pre-tokenizer, a ``ByteLevel`` decoder, special tokens as added tokens. ``tokenizers.Tokenizer.from_file``
  loads it and encodes to the same ids.
* ``"merges"`` — GPT-2's ``vocab.json`` + ``merges.txt`` (tokens spelled in GPT-2's visible byte alphabet,
  ``Ġ`` for a space), with ``bpe_lab.json`` alongside for what those two files cannot say (the pattern,
  the special tokens).
* ``"tiktoken"`` — a ``.tiktoken`` file (``base64(token bytes) rank`` per line) with ``bpe_lab.json``
  alongside, whose ``pat_str`` and ``special_tokens`` are the arguments ``tiktoken.Encoding`` takes.

:func:`load` detects the format of a file or folder and returns a :class:`bpe.Tokenizer`. It also reads
byte-level BPE ``tokenizer.json`` files made by Hugging Face ``tokenizers`` (merges written as
``["a", "b"]`` or ``"a b"``); anything else (WordPiece, Unigram, SentencePiece-style BPE with byte
fallback ...) is refused with a message naming what is not supported.

>>> import tempfile, bpe
>>> tok = bpe.train("low lower lowest", 262, pattern="gpt4").tokenizer()
>>> folder = tempfile.mkdtemp()
>>> [p.name for p in tok.save(folder, format="hf")]
['tokenizer.json']
>>> bpe.load(folder).encode("lowest low") == tok.encode("lowest low")
True

Regex dialects: Hugging Face compiles ``Split`` patterns with Oniguruma (Ruby syntax), where ``X{1,3}+`` is
*not* possessive but means ``(?:X{1,3})+``, and ``$``/``^`` match at every line end/start. Exports rewrite
our (Python ``regex``) patterns into an Oniguruma pattern with the same matches, and imports rewrite the
other way (:func:`to_onig`, :func:`from_onig`). Shorthand classes keep each engine's own Unicode meaning:
``\\w`` includes the zero-width joiner in ``regex`` but not in Oniguruma, so prefer ``\\p{L}``-style classes
(as every registry pattern does) in patterns meant for export.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from pathlib import Path
from typing import Any, Mapping, Sequence

from .patterns import PATTERNS, Pattern, PatternError, class_end, get_pattern
from .tokenizer import Tokenizer
from .visible import from_visible, to_visible

__all__ = ["FORMATS", "FormatError", "UnsupportedFormatError", "save", "load", "detect_format",
           "to_hf_json", "from_hf_json", "parse_tiktoken", "to_onig", "from_onig", "SIDECAR"]

#: The formats :func:`save` writes and :func:`load` reads.
FORMATS = ("hf", "merges", "tiktoken")
#: The file that carries pattern, special tokens and level next to ``.tiktoken`` and ``vocab.json``.
SIDECAR = "bpe_lab.json"
HF_FILE = "tokenizer.json"
TIKTOKEN_FILE = "tokenizer.tiktoken"
#: tiktoken needs *some* regex; with no pre-tokenizer the whole text is one chunk.
WHOLE_TEXT_REGEX = r"[\s\S]+"
#: Hugging Face's ByteLevel(use_regex=True) splits with GPT-2's regex; our "gpt2" entry splits the same.
_HF_BYTELEVEL_PATTERN = "gpt2"


class FormatError(ValueError):
    """A tokenizer file that cannot be read or written: missing, corrupt, or not what it claims."""


class UnsupportedFormatError(FormatError):
    """A valid tokenizer file of a kind we do not support (WordPiece, Unigram, non-byte-level BPE...)."""


# ----------------------------------------------------------------------------------------------------
# Regex dialects: Python ``regex`` (ours, tiktoken's fancy-regex) <-> Oniguruma (Hugging Face)

_INTERVAL = re.compile(r"\{\d+(?:,\d*)?\}")


def _rewrite(pattern: str, *, wrap: tuple[str, str], dollar: str, caret: str) -> str:
    """Rewrite every ``ATOM{n,m}+`` as ``wrap[0] + ATOM{n,m} + wrap[1]`` and every bare ``$`` and ``^``.

    A forward scan that knows where each atom (escape, class, group, character) starts; the rewrites are
    insertions before a position and replacements of one character, so nested ones compose.
    """
    inserts: dict[int, str] = {}
    replace: dict[int, str] = {}
    groups: list[int] = []
    last_atom: int | None = None
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            j = i + 2
            if pattern[i + 1:i + 2] in ("p", "P", "x", "N", "u", "U", "k", "g") and pattern[j:j + 1] == "{":
                j = pattern.find("}", j) + 1 or n
            last_atom, i = i, j
        elif c == "[":
            last_atom, i = i, class_end(pattern, i)
        elif c == "(":
            groups.append(i)
            last_atom, i = None, i + 1
            prefix = _GROUP_PREFIX.match(pattern, i)  # (?:  (?i:  (?=  (?<name> ...
            if prefix:
                i = prefix.end()
        elif c == ")":
            last_atom, i = (groups.pop() if groups else None), i + 1
        elif c == "{" and last_atom is not None and _INTERVAL.match(pattern, i):
            end = _INTERVAL.match(pattern, i).end()
            if pattern[end:end + 1] == "+":
                inserts[last_atom] = wrap[0] + inserts.get(last_atom, "")
                replace[end] = wrap[1]
                end += 1
            last_atom, i = None, end
        elif c in "$^":
            replace[i] = dollar if c == "$" else caret
            last_atom, i = None, i + 1
        elif c in "*+?|":
            last_atom = last_atom if c != "|" else None
            i += 1
        else:
            last_atom, i = i, i + 1
    if not inserts and not replace:
        return pattern
    return "".join(inserts.get(k, "") + replace.get(k, ch) for k, ch in enumerate(pattern))


_GROUP_PREFIX = re.compile(r"\?(?:P?<[A-Za-z_]\w*>|[A-Za-z\-]*:|[=!>|]|<[=!])?")


def to_onig(pattern: str) -> str:
    """A Python-``regex`` pattern as an Oniguruma pattern with the same matches (for ``tokenizer.json``).

    ``X{n,m}+`` (possessive) becomes the atomic group ``(?>X{n,m})``; ``$`` (end, or before a final newline)
    becomes ``(?=\\n?\\z)``; ``^`` becomes ``\\A``.

    >>> to_onig(r"\\p{N}{1,3}+|\\s++$")
    '(?>\\\\p{N}{1,3})|\\\\s++(?=\\\\n?\\\\z)'
    """
    return _rewrite(pattern, wrap=("(?>", ")"), dollar=r"(?=\n?\z)", caret=r"\A")


def from_onig(pattern: str) -> str:
    """An Oniguruma (``tokenizer.json``) pattern as a Python-``regex`` pattern with the same matches.

    >>> from_onig(r"\\p{N}{1,3}+")
    '(?:\\\\p{N}{1,3})+'
    """
    return _rewrite(pattern, wrap=("(?:", ")+"), dollar="(?m:$)", caret="(?m:^)")


def _pattern_from_onig(stages: Sequence[str]) -> Pattern:
    """The registry entry whose exported (Oniguruma) stages are exactly ``stages``, else a custom pattern."""
    for entry in PATTERNS.values():
        if tuple(stages) == tuple(to_onig(s) for s in entry.stages):
            return entry
    if len(stages) != 1:
        raise UnsupportedFormatError(
            f"{len(stages)} Split pre-tokenizers in a row are supported only for the registry's multi-stage "
            "patterns (deepseek_v3)")
    try:
        return get_pattern(from_onig(stages[0]))
    except PatternError as exc:
        raise UnsupportedFormatError(f"the pre-tokenizer regex {stages[0]!r} cannot be used here: {exc}") from None


# ----------------------------------------------------------------------------------------------------
# Export

def _check_exportable(tok: Tokenizer, fmt: str) -> None:
    if fmt == "tiktoken" and tok.level != "byte":
        raise FormatError("tiktoken vocabularies are byte level; this tokenizer is char level "
                          "(train with level='byte', or save with format='hf')")
    if fmt == "merges" and tok.level != "byte":
        raise FormatError("vocab.json + merges.txt spell tokens in GPT-2's byte alphabet; this tokenizer is "
                          "char level (save it with format='hf')")
    seen: dict[bytes | str, int] = {}
    for i, t in tok.vocab.items():
        if tok.is_special(i):
            continue
        if t in seen:
            raise FormatError(f"tokens {seen[t]} and {i} have the same {'bytes' if tok.level == 'byte' else 'text'}"
                              f" {t!r}; {fmt} files name tokens by their bytes, so they cannot hold both")
        seen[t] = i
    if fmt != "tiktoken" and tok.special_tokens:
        spellings = {to_visible(t) if isinstance(t, bytes) else t for t in seen}
        for s in tok.special_tokens:
            if s in spellings:
                raise FormatError(f"the special token {s!r} is spelled like an ordinary token; {fmt} files name "
                                  "tokens by their spelling, so they cannot hold both")


def _token_string(tok: Tokenizer, token_id: int) -> str:
    """A token as ``vocab.json``/``tokenizer.json`` spell it: visible bytes, or the text itself."""
    if tok.is_special(token_id):
        return tok._special_by_id[token_id]
    t = tok.vocab[token_id]
    return to_visible(t) if isinstance(t, bytes) else t


def _merge_list(tok: Tokenizer) -> tuple[list[tuple[int, int]], bool]:
    """``(left id, right id)`` per merge in rank order, and whether whole chunks must be looked up first.

    A ranks-mode (tiktoken) vocabulary has no merge list: each token's pair is recovered by running BPE on
    its bytes with the lower ranks only (minbpe's ``recover_merges``); the tokenizer then needs
    ``ignore_merges`` (tiktoken looks the whole chunk up first).
    """
    if tok.mode == "merges":
        return list(tok.merges), tok.ignore_merges
    ranks = tok._ranks
    pairs: list[tuple[int, int]] = []
    for token, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
        if len(token) == 1:
            continue
        parts = _bpe_with_lower_ranks(ranks, token, rank)
        if len(parts) != 2:
            raise FormatError(f"token {rank} ({token!r}) cannot be built from two lower-ranked tokens")
        pairs.append((ranks[parts[0]], ranks[parts[1]]))
    return pairs, True


def _bpe_with_lower_ranks(ranks: Mapping[bytes, int], token: bytes, max_rank: int) -> list[bytes]:
    parts = [token[i:i + 1] for i in range(len(token))]
    while len(parts) > 2:
        best_i, best = -1, max_rank
        for i in range(len(parts) - 1):
            r = ranks.get(parts[i] + parts[i + 1])
            if r is not None and r < best:
                best_i, best = i, r
        if best_i < 0:
            break
        parts[best_i:best_i + 2] = [parts[best_i] + parts[best_i + 1]]
    return parts


def _normalizer_json(form: str | None) -> dict | None:
    return None if form is None else {"type": form.upper()}


def _pre_tokenizer_json(tok: Tokenizer) -> dict:
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
    _check_exportable(tok, "hf")
    pairs, ignore_merges = _merge_list(tok)
    vocab = {_token_string(tok, i): i for i in sorted(tok.vocab)}
    merges = [[_token_string(tok, a), _token_string(tok, b)] for a, b in pairs]
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
                    if byte_level else {"type": "Fuse"}),
        "model": {
            "type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
            "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False,
            "ignore_merges": ignore_merges, "vocab": vocab, "merges": merges,
        },
    }


def _sidecar(tok: Tokenizer, fmt: str) -> dict[str, Any]:
    pattern = tok.pattern
    if pattern is None:
        pat_str, name = WHOLE_TEXT_REGEX, None
    else:
        pat_str = pattern.regex if len(pattern.stages) == 1 else None
        name = pattern.regex if pattern.custom else pattern.name
    if fmt == "tiktoken" and pat_str is None:
        raise FormatError(f"tiktoken takes one regex; the pattern {pattern.name!r} has {len(pattern.stages)} "
                          "stages (save it with format='hf')")
    return {"format": fmt, "name": tok.name or "bpe-lab", "pat_str": pat_str,
            "special_tokens": dict(sorted(tok.special_tokens.items(), key=lambda kv: kv[1])),
            "pattern": name, "level": tok.level, "normalize": tok.normalize,
            "ignore_merges": tok.ignore_merges if tok.mode == "merges" else True, "bpe_lab": 1}


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def _folder(path: Path) -> Path:
    if path.exists() and not path.is_dir():
        raise FormatError(f"{path} is a file; this format is written into a folder")
    path.mkdir(parents=True, exist_ok=True)
    return path


def save(tok: Tokenizer, path: "str | Path", format: str = "hf") -> list[Path]:
    """Write ``tok`` in ``format`` (``"hf"``, ``"merges"`` or ``"tiktoken"``); return the files written.

    ``"hf"`` writes ``path`` itself when it ends in ``.json``, else ``path/tokenizer.json``; the other two
    write into the folder ``path`` (created if needed).
    """
    if format not in FORMATS:
        raise FormatError(f"unknown format {format!r}; choose one of: {', '.join(FORMATS)}")
    path = Path(path)
    _check_exportable(tok, format)
    if format == "hf":
        target = path if path.suffix == ".json" else _folder(path) / HF_FILE
        if path.suffix == ".json":
            target.parent.mkdir(parents=True, exist_ok=True)
        data = to_hf_json(tok)
        _write_json(target, data)
        return [target]
    folder = _folder(path)
    sidecar = _sidecar(tok, format)
    if format == "merges":
        pairs, _ = _merge_list(tok)
        vocab = {_token_string(tok, i): i for i in sorted(tok.vocab)}
        lines = ["#version: 0.2"] + [f"{_token_string(tok, a)} {_token_string(tok, b)}" for a, b in pairs]
        files = [folder / "vocab.json", folder / "merges.txt", folder / SIDECAR]
        _write_json(files[0], vocab)
        files[1].write_text("\n".join(lines) + "\n", encoding="utf-8")
    else:
        ordered = sorted((i, t) for i, t in tok.vocab.items() if not tok.is_special(i))
        text = "".join(f"{base64.b64encode(t).decode('ascii')} {i}\n" for i, t in ordered)
        files = [folder / TIKTOKEN_FILE, folder / SIDECAR]
        files[0].write_text(text, encoding="ascii")
    _write_json(files[-1], sidecar)
    return files


# ----------------------------------------------------------------------------------------------------
# Import

def _read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FormatError(f"{path} does not exist") from None
    except UnicodeDecodeError:
        raise FormatError(f"{path} is not a text file; expected {what}") from None
    except json.JSONDecodeError as exc:
        raise FormatError(f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
                          f"expected {what}") from None
    except OSError as exc:
        raise FormatError(f"{path} cannot be read: {exc.strerror or exc}") from None


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
        return "char", _pattern_from_onig(stages) if stages else None
    byte_level = steps[-1]
    if byte_level.get("add_prefix_space", False):
        raise UnsupportedFormatError("ByteLevel(add_prefix_space=true) is not supported (it inserts a space "
                                     "before the text); only add_prefix_space=false")
    if byte_level.get("use_regex", True):
        if stages:
            raise UnsupportedFormatError("a Split followed by ByteLevel(use_regex=true) is not supported")
        return "byte", PATTERNS[_HF_BYTELEVEL_PATTERN]
    return "byte", _pattern_from_onig(stages) if stages else None


def _merge_pairs(raw: Any, source: str) -> list[tuple[str, str]]:
    if not isinstance(raw, list):
        raise FormatError(f"{source}: 'merges' must be a list")
    pairs = []
    for n, item in enumerate(raw):
        if isinstance(item, str):
            parts = item.split(" ")
        elif isinstance(item, list):
            parts = item
        else:
            parts = []
        if len(parts) != 2 or not all(isinstance(p, str) and p for p in parts):
            raise FormatError(f"{source}: merge #{n} is {item!r}; expected [\"left\", \"right\"] or \"left right\"")
        pairs.append((parts[0], parts[1]))
    return pairs


def _build_merges(vocab: Mapping[str, int], pairs: Sequence[tuple[str, str]], source: str,
                  ) -> dict[tuple[int, int], int]:
    merges: dict[tuple[int, int], int] = {}
    for n, (left, right) in enumerate(pairs):
        try:
            merges.setdefault((vocab[left], vocab[right]), vocab[left + right])
        except KeyError as exc:
            raise FormatError(f"{source}: merge #{n} ({left!r}, {right!r}) uses {exc.args[0]!r}, which is not in "
                              "the vocabulary") from None
    return merges


def _byte_vocab(vocab: Mapping[str, int], special_ids: set[int], source: str) -> dict[int, bytes]:
    out: dict[int, bytes] = {}
    for token, i in vocab.items():
        if i in special_ids:
            continue
        try:
            out[i] = from_visible(token)
        except ValueError:
            raise UnsupportedFormatError(
                f"{source}: the token {token!r} is not spelled in GPT-2's byte alphabet, so this is not a "
                "byte-level BPE vocabulary") from None
    return out


def _make_tokenizer(source: str, **kwargs) -> Tokenizer:
    try:
        return Tokenizer(**kwargs)
    except ValueError as exc:
        raise UnsupportedFormatError(f"{source}: {exc}") from None


def _check_vocab(vocab: Any, source: str) -> dict[str, int]:
    if not isinstance(vocab, dict) or not vocab:
        raise FormatError(f"{source}: the vocabulary must be a non-empty {{token: id}} object")
    for token, i in vocab.items():
        if isinstance(i, bool) or not isinstance(i, int) or i < 0:
            raise FormatError(f"{source}: the id of {token!r} is {i!r}; ids are whole numbers >= 0")
    if len(set(vocab.values())) != len(vocab):
        raise FormatError(f"{source}: two tokens share one id")
    return vocab


def from_hf_json(data: Any, *, source: str = "tokenizer.json") -> Tokenizer:
    """A :class:`bpe.Tokenizer` from a parsed Hugging Face ``tokenizer.json``.

    Supported: a BPE model (no dropout, byte fallback or subword affixes) with a ``ByteLevel`` pre-tokenizer,
    alone or after ``Split(regex, Isolated)`` steps, a ``ByteLevel`` decoder, an optional Unicode
    normalization, special added tokens (``"special": true``). The post-processor (e.g. a template adding
    BOS) is not applied: encoding matches ``encode(text, add_special_tokens=False)``. Also read: the
    char-level BPE files :func:`save` writes (``Split`` only, ``Fuse`` decoder).
    """
    if not isinstance(data, dict) or not isinstance(data.get("model"), dict):
        raise FormatError(f"{source} is not a Hugging Face tokenizer.json (no 'model' object)")
    model = data["model"]
    kind = model.get("type", "BPE" if "merges" in model else None)
    if kind != "BPE":
        raise UnsupportedFormatError(f"{source}: the model type {kind!r} is not supported; only byte-level "
                                     "BPE (not WordPiece, Unigram or WordLevel)")
    for key, what in (("byte_fallback", "byte fallback (SentencePiece-style BPE)"),
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
    vocab = _check_vocab(model.get("vocab"), source)
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
    merges = _build_merges(vocab, _merge_pairs(model.get("merges", []), source), source)
    path = Path(source)
    name = path.parent.name if path.name == HF_FILE and path.parent.name else path.stem
    if level == "byte":
        token_vocab: Mapping[int, bytes | str] = _byte_vocab(vocab, special_ids, source)
    else:
        token_vocab = {i: t for t, i in vocab.items() if i not in special_ids}
    return _make_tokenizer(source, vocab=token_vocab, merges=merges, pattern=pattern, level=level,
                           special_tokens=specials, normalize=normalize, name=name,
                           ignore_merges=bool(model.get("ignore_merges", False)))


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
            ranks[b64decode(token, validate=True)] = int(rank)
        except (ValueError, binascii.Error):
            shown = line[:60].decode("utf-8", "replace")
            raise FormatError(f"{source}, line {line_no}: expected 'base64-token rank', got {shown!r}") from None
    if not ranks:
        raise FormatError(f"{source} holds no tokens")
    return ranks


def _read_sidecar(folder: Path) -> dict[str, Any]:
    path = folder / SIDECAR
    if not path.is_file():
        return {}
    meta = _read_json(path, f"{SIDECAR} (pattern and special tokens)")
    if not isinstance(meta, dict):
        raise FormatError(f"{path} must hold a JSON object")
    specials = meta.get("special_tokens") or {}
    if not isinstance(specials, dict) or not all(
            isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) for k, v in specials.items()):
        raise FormatError(f"{path}: 'special_tokens' must be a {{string: id}} object")
    return meta


def _sidecar_pattern(meta: Mapping[str, Any], default: "str | None", source: str) -> "Pattern | None":
    if "pattern" in meta:
        name = meta["pattern"]
    elif meta.get("pat_str") is not None:
        name = meta["pat_str"]
    else:
        name = default
    if name is None:
        return None
    if not isinstance(name, str):
        raise FormatError(f"{source}: the pattern must be a string or null, not {name!r}")
    if name in PATTERNS:
        return PATTERNS[name]
    for entry in PATTERNS.values():
        if entry.stages == (name,):
            return entry
    try:
        return get_pattern(name)
    except PatternError as exc:
        raise FormatError(f"{source}: the pattern cannot be used: {exc}") from None


def load_tiktoken(path: "str | Path") -> Tokenizer:
    """A ``.tiktoken`` file -> a tiktoken-style tokenizer (``mode="ranks"``).

    The pattern and special tokens come from ``bpe_lab.json`` alongside; for the real ``cl100k_base`` /
    ``o200k_base`` files (recognized by their sha256) from :data:`bpe.pretrained.PRETRAINED`; otherwise the
    GPT-4 pattern and no special tokens are assumed.
    """
    from .pretrained import PRETRAINED, tokenizer_from_ranks

    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise FormatError(f"{path} cannot be read: {exc.strerror or exc}") from None
    ranks = parse_tiktoken(data, source=str(path))
    digest = hashlib.sha256(data).hexdigest()
    known = next((s for s in PRETRAINED.values() if s.sha256 == digest), None)
    meta = _read_sidecar(path.parent)
    if known is not None and not meta:
        pattern: Pattern | None = PATTERNS[known.pattern]
        specials = dict(known.special_tokens)
        name = known.name
    else:
        pattern = _sidecar_pattern(meta, "gpt4", str(path.parent / SIDECAR))
        specials = dict(meta.get("special_tokens") or {})
        name = meta.get("name") or path.stem
    try:
        return tokenizer_from_ranks(ranks, pattern=pattern, special_tokens=specials, name=str(name))
    except ValueError as exc:
        raise UnsupportedFormatError(f"{path}: {exc}") from None


def load_merges(vocab_path: "str | Path", merges_path: "str | Path") -> Tokenizer:
    """GPT-2 style ``vocab.json`` + ``merges.txt`` -> a tokenizer (merge order = the lines' order).

    Pattern and special tokens come from ``bpe_lab.json`` alongside when present; otherwise GPT-2's pattern
    is assumed (what these files mean for GPT-2 and RoBERTa), and the tokens no merge produces (other than
    the 256 bytes) are taken to be special tokens (``<|endoftext|>``).
    """
    vocab_path, merges_path = Path(vocab_path), Path(merges_path)
    vocab = _check_vocab(_read_json(vocab_path, "a {token: id} vocab.json"), str(vocab_path))
    try:
        lines = merges_path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise FormatError(f"{merges_path} does not exist (vocab.json needs merges.txt next to it)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise FormatError(f"{merges_path} cannot be read as text: {exc}") from None
    lines = [ln for ln in lines if ln.strip() and not ln.startswith("#version")]
    pairs = _merge_pairs(lines, str(merges_path))
    merges = _build_merges(vocab, pairs, str(merges_path))
    meta = _read_sidecar(vocab_path.parent)
    if meta.get("level", "byte") != "byte":
        raise UnsupportedFormatError(f"{vocab_path}: only byte-level vocab.json files are supported")
    if "special_tokens" in meta:
        specials = dict(meta["special_tokens"])
    else:
        made = set(merges.values())
        specials = {t: i for t, i in vocab.items()
                    if i not in made and len(t) != 1 and t not in ("",)}
    pattern = _sidecar_pattern(meta, _HF_BYTELEVEL_PATTERN, str(vocab_path.parent / SIDECAR))
    byte_vocab = _byte_vocab(vocab, set(specials.values()), str(vocab_path))
    return _make_tokenizer(str(vocab_path), vocab=byte_vocab, merges=merges, pattern=pattern, level="byte",
                           special_tokens=specials, normalize=meta.get("normalize"),
                           name=str(meta.get("name") or vocab_path.parent.name),
                           ignore_merges=bool(meta.get("ignore_merges", False)))


def load_hf(path: "str | Path") -> Tokenizer:
    """A Hugging Face ``tokenizer.json`` file -> a tokenizer (see :func:`from_hf_json`)."""
    path = Path(path)
    return from_hf_json(_read_json(path, "a Hugging Face tokenizer.json"), source=str(path))


def detect_format(path: "str | Path") -> tuple[str, list[Path]]:
    """``(format, files)`` for a tokenizer file or folder.

    A folder is looked into (``bpe_lab.json``'s ``format`` first, then ``tokenizer.json``, a ``.tiktoken``
    file, ``vocab.json`` + ``merges.txt``); a file is known by its name and content.
    """
    path = Path(path)
    if path.is_dir():
        meta = _read_sidecar(path)
        tiktoken_files = sorted(path.glob("*.tiktoken"))
        candidates = {
            "hf": [path / HF_FILE] if (path / HF_FILE).is_file() else [],
            "tiktoken": tiktoken_files[:1],
            "merges": [path / "vocab.json", path / "merges.txt"] if (path / "vocab.json").is_file() else [],
        }
        order = [meta["format"]] if meta.get("format") in FORMATS else []
        for fmt in order + ["hf", "tiktoken", "merges"]:
            if candidates[fmt]:
                return fmt, candidates[fmt]
        raise FormatError(f"no tokenizer found in the folder {path}: expected tokenizer.json, a .tiktoken file, "
                          "or vocab.json + merges.txt")
    if not path.exists():
        raise FormatError(f"{path} does not exist")
    name = path.name.lower()
    if name.endswith(".tiktoken"):
        return "tiktoken", [path]
    if name == "merges.txt" or name.endswith(".txt"):
        return "merges", [path.parent / "vocab.json", path]
    if name == "vocab.json":
        return "merges", [path, path.parent / "merges.txt"]
    if name.endswith(".json"):
        return "hf", [path]
    try:
        head = path.open("rb").read(4096)
    except OSError as exc:
        raise FormatError(f"{path} cannot be read: {exc.strerror or exc}") from None
    if head.lstrip().startswith(b"{"):
        return "hf", [path]
    if re.match(rb"[A-Za-z0-9+/=]+ \d+\r?\n", head):
        return "tiktoken", [path]
    raise UnsupportedFormatError(f"{path}: not a tokenizer file we know (expected tokenizer.json, a .tiktoken "
                                 "file, or vocab.json + merges.txt)")


def load(path: "str | Path") -> Tokenizer:
    """Load a tokenizer saved by :func:`save` or made elsewhere, whatever the format.

    ``path`` is a ``tokenizer.json``, a ``.tiktoken`` file, a ``vocab.json`` or ``merges.txt``, or a folder
    holding one of them. The name of a pretrained vocabulary (``"cl100k_base"``, ``"o200k_base"``) that is
    not an existing path loads that vocabulary.
    """
    from .pretrained import PRETRAINED, load_pretrained

    if isinstance(path, str) and path.strip().lower() in PRETRAINED and not Path(path).exists():
        return load_pretrained(path)
    fmt, files = detect_format(path)
    if fmt == "hf":
        return load_hf(files[0])
    if fmt == "tiktoken":
        return load_tiktoken(files[0])
    return load_merges(files[0], files[1])
