"""What the three formats share: the ``bpe_lab.json`` sidecar, token spellings, merge lists, JSON bytes,
and the checks that turn a parsed file into a :class:`bpe.Tokenizer` or refuse it with a clear message.

Every reader takes a ``source``: the name the caller knows the file by (a path, an upload's name), used in
every message.
"""

from __future__ import annotations

import json
import sys
from pathlib import PurePath
from typing import Any, Callable, Mapping, Sequence

from ..merge_recovery import recover_merges
from ..patterns import PATTERNS, Pattern, PatternError, get_pattern
from ..tokenizer import Tokenizer
from ..visible import from_visible, to_visible
from .errors import FormatError, UnsupportedFormatError

__all__ = [
    "SIDECAR",
    "HF_FILE",
    "TIKTOKEN_FILE",
    "VOCAB_FILE",
    "MERGES_FILE",
    "WHOLE_TEXT_REGEX",
    "HF_BYTELEVEL_PATTERN",
    "file_name",
    "json_bytes",
    "parse_json",
    "check_exportable",
    "token_string",
    "merge_list",
    "sidecar_json",
    "read_sidecar",
    "sidecar_pattern",
    "check_vocab",
    "merge_pairs",
    "build_merges",
    "byte_vocab",
    "make_tokenizer",
    "special_added_tokens",
]

#: The file that carries pattern, special tokens and level next to ``.tiktoken`` and ``vocab.json``.
SIDECAR = "bpe_lab.json"
HF_FILE = "tokenizer.json"
TIKTOKEN_FILE = "tokenizer.tiktoken"
VOCAB_FILE = "vocab.json"
MERGES_FILE = "merges.txt"
#: tiktoken needs *some* regex; with no pre-tokenizer the whole text is one chunk.
WHOLE_TEXT_REGEX = r"[\s\S]+"
#: Hugging Face's ByteLevel(use_regex=True) splits with GPT-2's regex; our "gpt2" entry splits the same.
HF_BYTELEVEL_PATTERN = "gpt2"


def file_name(source: str) -> str:
    """The last part of a path or upload name, in lower case (what formats are recognized by).

    >>> file_name("/tmp/My Tokenizer/Vocab.JSON")
    'vocab.json'
    """
    return PurePath(source).name.lower()


def json_bytes(data: Any) -> bytes:
    """``data`` as the UTF-8 JSON we write: non-ASCII kept, indented, a final newline."""
    return (json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def parse_json(data: bytes, source: str, what: str) -> Any:
    """Parse JSON bytes, or raise :class:`FormatError` naming ``source`` and what it should have held."""
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise FormatError(f"{source} is not a text file; expected {what}") from None
    except json.JSONDecodeError as exc:
        raise FormatError(
            f"{source} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); expected {what}"
        ) from None
    except ValueError as exc:
        # a number of more than sys.get_int_max_str_digits() digits (4,300): int() refuses to convert it
        if "digits" not in str(exc):
            raise FormatError(f"{source} is not valid JSON; expected {what}") from None
        raise FormatError(
            f"{source} holds a number too long to read (more than {sys.get_int_max_str_digits():,} "
            f"digits); expected {what}"
        ) from None
    except RecursionError:
        # json's decoder recurses once per nested array/object: "[" * 100000 would end in a RecursionError
        raise FormatError(f"{source} nests arrays or objects too deeply to be read; expected {what}") from None


# ----------------------------------------------------------------------------------------------------
# Export


def check_exportable(tok: Tokenizer, fmt: str) -> None:
    """Raise :class:`FormatError` when ``fmt`` cannot hold ``tok`` (char level, two tokens spelled alike)."""
    if tok.pipeline is not None and fmt not in ("hf", "transformers"):
        raise FormatError(
            f"this is a {tok.pipeline.description}, read from a tokenizer.json; only tokenizer.json "
            "holds its normalizers and pre-tokenizers (save it with format='hf')"
        )
    if fmt == "tiktoken" and tok.level != "byte":
        raise FormatError(
            "tiktoken vocabularies are byte level; this tokenizer is char level "
            "(train with level='byte', or save with format='hf')"
        )
    if fmt == "merges" and tok.level != "byte":
        raise FormatError(
            "vocab.json + merges.txt spell tokens in GPT-2's byte alphabet; this tokenizer is "
            "char level (save it with format='hf')"
        )
    seen: dict[bytes | str, int] = {}
    for i, t in tok.vocab.items():
        if tok.is_special(i):
            continue
        if t in seen:
            raise FormatError(
                f"tokens {seen[t]} and {i} have the same {'bytes' if tok.level == 'byte' else 'text'}"
                f" {t!r}; {fmt} files name tokens by their bytes, so they cannot hold both"
            )
        seen[t] = i
    if fmt != "tiktoken" and tok.special_tokens:
        spellings = {to_visible(t) if isinstance(t, bytes) else t for t in seen}
        for s in tok.special_tokens:
            if s in spellings:
                raise FormatError(
                    f"the special token {s!r} is spelled like an ordinary token; {fmt} files name "
                    "tokens by their spelling, so they cannot hold both"
                )


def token_string(tok: Tokenizer, token_id: int) -> str:
    """A token as ``vocab.json``/``tokenizer.json`` spell it: visible bytes, or the text itself."""
    if tok.is_special(token_id):
        return tok.token_text(token_id)
    t = tok.vocab[token_id]
    return to_visible(t) if isinstance(t, bytes) else t


def merge_list(tok: Tokenizer) -> tuple[list[tuple[int, int]], bool]:
    """``(left id, right id)`` per merge in rank order, and whether whole chunks must be looked up first.

    A ranks-mode (tiktoken) vocabulary has no merge list: each token's pair is recovered by running BPE on
    its bytes with the lower ranks only (:func:`bpe.merge_recovery.recover_merges`, computed once per
    tokenizer); the tokenizer then needs ``ignore_merges`` (tiktoken looks the whole chunk up first).
    """
    if tok.mode == "merges":
        return list(tok.merges), tok.ignore_merges
    try:
        return [m.pair for m in recover_merges(tok)], True
    except ValueError as exc:
        raise FormatError(str(exc)) from None


def sidecar_json(tok: Tokenizer, fmt: str) -> dict[str, Any]:
    """The ``bpe_lab.json`` of ``tok`` saved as ``fmt``: ``pat_str`` and ``special_tokens`` are the keys of
    ``tiktoken.Encoding``; ``pattern``, ``level``, ``normalize``, ``ignore_merges`` what we need on top."""
    pattern = tok.pattern
    pat_str: str | None
    if pattern is None:
        pat_str, name = WHOLE_TEXT_REGEX, None
    else:
        pat_str = pattern.regex if len(pattern.stages) == 1 else None
        name = pattern.regex if pattern.custom else pattern.name
    if fmt == "tiktoken" and pat_str is None and pattern is not None:
        raise FormatError(
            f"tiktoken takes one regex; the pattern {pattern.name!r} has {len(pattern.stages)} "
            "stages (save it with format='hf')"
        )
    return {
        "format": fmt,
        "name": tok.name or "bpe-lab",
        "pat_str": pat_str,
        "special_tokens": dict(sorted(tok.special_tokens.items(), key=lambda kv: kv[1])),
        "pattern": name,
        "level": tok.level,
        "normalize": tok.normalize,
        "ignore_merges": tok.ignore_merges if tok.mode == "merges" else True,
        "bpe_lab": 1,
    }


# ----------------------------------------------------------------------------------------------------
# Import


def read_sidecar(data: bytes | None, source: str) -> dict[str, Any]:
    """The parsed ``bpe_lab.json`` (``{}`` when there is none), its special tokens checked."""
    if data is None:
        return {}
    meta = parse_json(data, source, f"{SIDECAR} (pattern and special tokens)")
    if not isinstance(meta, dict):
        raise FormatError(f"{source} must hold a JSON object")
    specials = meta.get("special_tokens") or {}
    if not isinstance(specials, dict) or not all(
        isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) for k, v in specials.items()
    ):
        raise FormatError(f"{source}: 'special_tokens' must be a {{string: id}} object")
    return meta


def sidecar_pattern(meta: Mapping[str, Any], default: str | None, source: str) -> Pattern | None:
    """The pre-tokenizer a sidecar names (``pattern``, else ``pat_str``), else ``default``."""
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


def check_vocab(vocab: Any, source: str) -> dict[str, int]:
    """A ``{token: id}`` object with whole, distinct ids, or :class:`FormatError`."""
    if not isinstance(vocab, dict) or not vocab:
        raise FormatError(f"{source}: the vocabulary must be a non-empty {{token: id}} object")
    for token, i in vocab.items():
        if isinstance(i, bool) or not isinstance(i, int) or i < 0:
            raise FormatError(f"{source}: the id of {token!r} is {i!r}; ids are whole numbers >= 0")
    if len(set(vocab.values())) != len(vocab):
        raise FormatError(f"{source}: two tokens share one id")
    return vocab


def merge_pairs(raw: Any, source: str) -> list[tuple[str, str]]:
    """Merges written as ``["a", "b"]`` or ``"a b"`` -> ``[("a", "b"), ...]``."""
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
            raise FormatError(f'{source}: merge #{n} is {item!r}; expected ["left", "right"] or "left right"')
        pairs.append((parts[0], parts[1]))
    return pairs


def build_merges(
    vocab: Mapping[str, int],
    pairs: Sequence[tuple[str, str]],
    source: str,
) -> dict[tuple[int, int], int]:
    """Spelled pairs -> ``(left id, right id) -> merged id`` through the vocabulary."""
    merges: dict[tuple[int, int], int] = {}
    for n, (left, right) in enumerate(pairs):
        try:
            merges.setdefault((vocab[left], vocab[right]), vocab[left + right])
        except KeyError as exc:
            raise FormatError(
                f"{source}: merge #{n} ({left!r}, {right!r}) uses {exc.args[0]!r}, which is not in the vocabulary"
            ) from None
    return merges


def byte_vocab(vocab: Mapping[str, int], special_ids: set[int], source: str) -> dict[int, bytes]:
    """A visible-alphabet ``{token: id}`` -> ``{id: bytes}`` (special ids left out)."""
    out: dict[int, bytes] = {}
    for token, i in vocab.items():
        if i in special_ids:
            continue
        try:
            out[i] = from_visible(token)
        except ValueError:
            raise UnsupportedFormatError(
                f"{source}: the token {token!r} is not spelled in GPT-2's byte alphabet, so this is not a "
                "byte-level BPE vocabulary"
            ) from None
    return out


def special_added_tokens(data: Mapping[str, Any], vocab: Mapping[str, int], source: str) -> dict[str, int]:
    """A tokenizer.json's special added tokens, ``{content: id}``; FormatError on a malformed entry,
    UnsupportedFormatError on a non-special one that is not the model's own token.

    >>> special_added_tokens({"added_tokens": [{"content": "<s>", "id": 5, "special": True}]}, {}, "t.json")
    {'<s>': 5}
    """
    specials: dict[str, int] = {}
    for entry in data.get("added_tokens") or []:
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("content"), str)
            or not isinstance(entry.get("id"), int)
        ):
            raise FormatError(f"{source}: malformed added token {entry!r}")
        if entry.get("special", False):
            specials[entry["content"]] = entry["id"]
        elif vocab.get(entry["content"]) != entry["id"]:
            raise UnsupportedFormatError(
                f"{source}: the non-special added token {entry['content']!r} is not "
                "supported (only special added tokens)"
            )
    return specials


def make_tokenizer(source: str, build: Callable[[], Tokenizer]) -> Tokenizer:
    """``build()`` (one of :class:`Tokenizer`'s constructors), its complaints (a byte missing...) turned into
    :class:`UnsupportedFormatError`."""
    try:
        return build()
    except ValueError as exc:
        raise UnsupportedFormatError(f"{source}: {exc}") from None
