"""Karpathy's minbpe ``.model`` file: a ``minbpe v1`` line, the split pattern (an empty line for none), the
number of special tokens, one ``token id`` line each, then one ``left right`` line per merge, the merge's new
id being 256 + its line number.

minbpe numbers the 256 bytes 0-255 by value and is byte level, so only tokenizers numbered that way export
(what :func:`bpe.train` makes); GPT-4's ``cl100k_base`` does not (it puts ``!`` at 0). A ``.vocab`` file with
each token's text is written alongside for people, as minbpe's ``save`` does (minbpe never reads it).
Encoding a loaded file follows minbpe: apply the lowest-ranked learned pair first.

>>> import bpe
>>> tok = bpe.train("hug hug hugs", 260, pattern=None, special_tokens=["<|end|>"]).tokenizer()
>>> files = dumps(tok)
>>> files["tokenizer.model"].decode().splitlines()
['minbpe v1', '', '1', '<|end|> 259', '104 117', '256 103', '32 257']
>>> loads(files["tokenizer.model"]).encode("hugs") == tok.encode("hugs")
True
"""

from __future__ import annotations

from ..tokenizer import Tokenizer
from ..visible import to_visible
from .common import merge_list, sidecar_pattern
from .errors import FormatError, UnsupportedFormatError

__all__ = ["dumps", "loads", "MODEL_FILE", "VOCAB_TEXT_FILE"]

MODEL_FILE = "tokenizer.model"
VOCAB_TEXT_FILE = "tokenizer.vocab"


def _minbpe_merges(tok: Tokenizer) -> list[tuple[int, int]]:
    """The merge pairs in order, checking that minbpe's numbering (bytes 0-255, merges 256+) holds."""
    if tok.level != "byte":
        raise FormatError("minbpe is byte level; this tokenizer is char level (save it with format='hf')")
    if any(not tok.is_special(b) and tok.vocab.get(b) != bytes([b]) for b in range(256)):
        raise FormatError(
            "minbpe numbers the 256 bytes 0-255 by value and merges from 256 on; this vocabulary numbers them "
            "differently (GPT-4's cl100k_base puts '!' at 0), so its ids would change: save it as hf or "
            "tiktoken instead"
        )
    pairs, _ = merge_list(tok)
    made = (
        list(tok.merges.values())
        if tok.mode == "merges"
        else sorted(i for i, t in tok.vocab.items() if not tok.is_special(i) and len(t) > 1)
    )
    for n, new_id in enumerate(made):
        if new_id != 256 + n:
            raise FormatError(f"minbpe gives merge #{n} the id {256 + n}; this tokenizer gives it {new_id}")
    return pairs


def dumps(tok: Tokenizer) -> dict[str, bytes]:
    """``tok`` as minbpe's ``tokenizer.model`` (+ ``tokenizer.vocab`` for people).

    Raises :class:`bpe.FormatError` when minbpe cannot hold it: char level, ids not numbered minbpe's way,
    a multi-stage pattern (DeepSeek's), a pattern or special token containing a line break, or a special
    token containing whitespace (minbpe splits those lines at whitespace).
    """
    pairs = _minbpe_merges(tok)
    if tok.pattern is not None and len(tok.pattern.stages) != 1:
        raise FormatError(
            f"minbpe takes one regex; the pattern {tok.pattern.name!r} has {len(tok.pattern.stages)} stages"
        )
    pattern = "" if tok.pattern is None else tok.pattern.regex
    if "\n" in pattern or "\r" in pattern:
        raise FormatError("minbpe stores the pattern on one line; this pattern contains a line break")
    for s in tok.special_tokens:
        if not s or any(c.isspace() for c in s):
            raise FormatError(
                f"minbpe writes 'token id' lines split at whitespace; the special token {s!r} contains whitespace"
            )
    if tok.normalize:
        raise FormatError(f"minbpe has no normalization step; this tokenizer applies {tok.normalize}")
    specials = sorted(tok.special_tokens.items(), key=lambda kv: kv[1])
    lines = ["minbpe v1", pattern, str(len(specials))]
    lines += [f"{s} {i}" for s, i in specials]
    lines += [f"{a} {b}" for a, b in pairs]
    made = {256 + n: pair for n, pair in enumerate(pairs)}
    vocab_lines = []
    for i in sorted(tok.vocab):
        if tok.is_special(i):
            continue
        shown = to_visible(tok.token_bytes(i))
        if i in made:
            a, b = made[i]
            vocab_lines.append(f"[{to_visible(tok.token_bytes(a))}][{to_visible(tok.token_bytes(b))}] -> [{shown}] {i}")
        else:
            vocab_lines.append(f"[{shown}] {i}")
    return {
        MODEL_FILE: ("\n".join(lines) + "\n").encode("utf-8"),
        VOCAB_TEXT_FILE: ("\n".join(vocab_lines) + "\n").encode("utf-8"),
    }


def _is_id(text: str) -> bool:
    """ASCII digits, at most 18 (``str.isdigit`` also takes ``²`` and 5,000-digit strings, which ``int``
    refuses).

    >>> _is_id("42"), _is_id("²"), _is_id("9" * 5000), _is_id("-1")
    (True, False, False, False)
    """
    return 0 < len(text) <= 18 and text.isascii() and text.isdigit()


def loads(data: bytes, *, source: str = MODEL_FILE) -> Tokenizer:
    """A minbpe ``.model`` file's bytes -> a merge-list tokenizer with minbpe's ids and rules.

    >>> tok = loads(b"minbpe v1\\n\\n1\\n<|end|> 257\\n97 97\\n")
    >>> tok.encode("aaa<|end|>", allowed_special="all"), tok.pattern
    ([256, 97, 257], None)
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise FormatError(f"{source} is not UTF-8 text; expected a minbpe .model file") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or lines[0].strip() != "minbpe v1":
        raise UnsupportedFormatError(f"{source}: the first line is not 'minbpe v1', so this is no minbpe model")
    if len(lines) < 3:
        raise FormatError(f"{source}: expected the version, the pattern and the number of special tokens")
    pattern_line = lines[1].rstrip("\r")
    try:
        if not _is_id(lines[2].strip()):
            raise ValueError
        n_special = int(lines[2].strip())
    except ValueError:
        raise FormatError(f"{source}, line 3: the number of special tokens, got {lines[2][:40]!r}") from None
    if n_special < 0 or len(lines) < 3 + n_special:
        raise FormatError(f"{source}: {n_special} special tokens announced, {max(0, len(lines) - 3)} lines follow")
    specials: dict[str, int] = {}
    for k in range(3, 3 + n_special):
        parts = lines[k].split()
        if len(parts) != 2 or not _is_id(parts[1]):
            raise FormatError(f"{source}, line {k + 1}: expected 'special_token id', got {lines[k][:60]!r}")
        specials[parts[0]] = int(parts[1])
    vocab: dict[int, bytes] = {b: bytes([b]) for b in range(256)}
    merges: dict[tuple[int, int], int] = {}
    new_id = 255
    for k in range(3 + n_special, len(lines)):
        parts = lines[k].split()
        if not parts:
            continue
        new_id += 1
        if len(parts) != 2 or not all(_is_id(p) for p in parts):
            raise FormatError(f"{source}, line {k + 1}: expected 'left_id right_id', got {lines[k][:60]!r}")
        a, b = int(parts[0]), int(parts[1])
        if a not in vocab or b not in vocab:
            raise FormatError(f"{source}, line {k + 1}: merge ({a}, {b}) uses an id not defined before it")
        vocab[new_id] = vocab[a] + vocab[b]
        merges[(a, b)] = new_id
    clash = sorted(set(specials.values()) & set(vocab))
    if clash:
        raise FormatError(f"{source}: special token id {clash[0]} is also a byte or merge id")
    pattern = sidecar_pattern({"pat_str": pattern_line}, None, source) if pattern_line else None
    try:
        return Tokenizer.from_merges(vocab, merges, pattern=pattern, special_tokens=specials, name="minbpe")
    except ValueError as exc:
        raise FormatError(f"{source}: {exc}") from None
