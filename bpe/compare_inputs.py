"""The two sides of a comparison as merge lists: a run, a tokenizer, tokenizer files or a list of pairs.

Every side becomes a :class:`MergeList`: its merges in order as ``(left bytes, right bytes)`` (a char-level
token counts as its UTF-8 bytes), so two tokenizers whose ids differ still compare merge by merge.
:func:`merge_list` takes a :class:`bpe.Run`, a :class:`bpe.Tokenizer`, a file path or a list of pairs;
:func:`merge_list_from_files` takes uploaded files ``{name: bytes}``: ``merges.txt`` alone, ``vocab.json`` +
``merges.txt``, ``tokenizer.json``, a ``.tiktoken`` file, a minbpe ``.model``, or a JSON list of merged pairs
(the shape a course trainer returns): ``[["a", "b"], ...]`` with each byte string written in latin-1 (one
character U+0000-U+00FF per byte), or ``{"encoding": "hex", "merges": [["61", "62"], ...]}``. Nothing is
unpickled. A file that is none of these gets one sentence (:class:`CompareInputError`).

>>> merge_list_from_files({"merges.txt": "#version: 0.2\\nĠ t\\nĠt he\\n".encode()}).pairs
((b' ', b't'), (b' t', b'he'))
>>> merge_list([("a", "b"), (b"ab", b"c")]).pairs
((b'a', b'b'), (b'ab', b'c'))
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from .formats import FormatError
from .loading import loads
from .merge_recovery import recover_merges
from .run import Run
from .tokenizer import Tokenizer
from .userfiles import NotARegularFile, read_regular_file
from .visible import CHAR_TO_BYTE

__all__ = [
    "MergeList",
    "Pair",
    "CompareInputError",
    "merge_list",
    "merge_list_from_files",
    "pairs_tokenizer",
    "LIST_FORMATS",
]

Pair = tuple[bytes, bytes]
#: What an upload may be, in words (the page says it; errors repeat it).
LIST_FORMATS = (
    "merges.txt, vocab.json + merges.txt, tokenizer.json, a .tiktoken file, a minbpe .model, or a "
    'JSON list of merged pairs as byte strings ([["a", "b"], ...] in latin-1, or '
    '{"encoding": "hex", "merges": [["61", "62"], ...]})'
)


class CompareInputError(ValueError):
    """A side of a comparison that cannot be read as a merge list; the message is one sentence."""


@dataclass(frozen=True)
class MergeList:
    """One side of a comparison: its merges as byte pairs, in order, and where they came from."""

    pairs: tuple[Pair, ...]
    #: what the side is, for a reader ("your merges.txt", "trained here: ...")
    name: str
    run: Run | None = None
    tokenizer: Tokenizer | None = None


def _token_bytes(t: Any, n: int, source: str) -> bytes:
    if isinstance(t, (bytes, bytearray)):
        return bytes(t)
    if isinstance(t, str):
        try:
            return t.encode("latin-1")
        except UnicodeEncodeError:
            raise CompareInputError(
                f"{source}: merge #{n + 1} has {t!r}, which is not a byte string in latin-1 "
                "(one character U+0000-U+00FF per byte)"
            ) from None
    if isinstance(t, (list, tuple)) and all(isinstance(x, int) and 0 <= x < 256 for x in t):
        return bytes(t)
    raise CompareInputError(f"{source}: merge #{n + 1} has {t!r}; expected a byte string")


def _pairs_from_list(items: Any, source: str, encoding: str = "latin-1") -> tuple[Pair, ...]:
    if not isinstance(items, (list, tuple)):
        raise CompareInputError(f"{source}: expected a list of merged pairs")
    out = []
    for n, item in enumerate(items):
        if not isinstance(item, (list, tuple)) or len(item) != 2:
            raise CompareInputError(f"{source}: merge #{n + 1} is {item!r}; expected a pair [left, right]")
        if encoding == "hex":
            try:
                pair = (bytes.fromhex(item[0]), bytes.fromhex(item[1]))
            except (TypeError, ValueError):
                raise CompareInputError(f"{source}: merge #{n + 1} is {item!r}, which is not two hex strings") from None
        else:
            pair = (_token_bytes(item[0], n, source), _token_bytes(item[1], n, source))
        if not pair[0] or not pair[1]:
            raise CompareInputError(f"{source}: merge #{n + 1} has an empty token")
        out.append(pair)
    return tuple(out)


def _pairs_from_json(data: bytes, source: str) -> tuple[Pair, ...]:
    try:
        raw = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise CompareInputError(f"{source} is not valid UTF-8 JSON") from None
    if isinstance(raw, dict):
        encoding = raw.get("encoding", "latin-1")
        if encoding not in ("latin-1", "hex"):
            raise CompareInputError(f'{source}: encoding must be "latin-1" or "hex", not {encoding!r}')
        return _pairs_from_list(raw.get("merges"), source, encoding)
    return _pairs_from_list(raw, source)


def _is_pair_json(data: bytes) -> bool:
    """A JSON list of pairs (or our {"encoding", "merges"} object), not a tokenizer.json."""
    head = data.lstrip()[:1]
    if head == b"[":
        return True
    if head != b"{":
        return False
    try:
        raw = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return False
    return isinstance(raw, dict) and "encoding" in raw and "merges" in raw and "model" not in raw


def _pairs_from_merges_txt(data: bytes, source: str) -> tuple[Pair, ...]:
    """``left right`` lines: GPT-2's visible bytes, or plain UTF-8 text when a token has other characters."""
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        raise CompareInputError(f'{source} is not UTF-8 text; expected merges.txt lines "left right"') from None
    spelled = []
    for n, line in enumerate(ln for ln in lines if ln.strip() and not ln.startswith("#version")):
        parts = line.split(" ")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise CompareInputError(f'{source}: line {n + 1} is {line[:60]!r}; expected two tokens "left right"')
        spelled.append(parts)
    if not spelled:
        raise CompareInputError(f"{source} holds no merges")
    visible = all(c in CHAR_TO_BYTE for pair in spelled for t in pair for c in t)
    if visible:
        return tuple((bytes(CHAR_TO_BYTE[c] for c in a), bytes(CHAR_TO_BYTE[c] for c in b)) for a, b in spelled)
    return tuple((a.encode("utf-8"), b.encode("utf-8")) for a, b in spelled)


def _tokenizer_pairs(tok: Tokenizer) -> tuple[Pair, ...]:
    if tok.mode == "merges":
        return tuple((tok.token_bytes(a), tok.token_bytes(b)) for a, b in tok.merges)
    try:
        merges = recover_merges(tok)
    except ValueError as exc:
        raise CompareInputError(f"{tok.name or 'the tokenizer'}: {exc}") from None
    return tuple((tok.token_bytes(m.pair[0]), tok.token_bytes(m.pair[1])) for m in merges)


def _run_pairs(run: Run) -> tuple[Pair, ...]:
    def tb(i: int) -> bytes:
        t = run.token(i)
        return t if isinstance(t, bytes) else t.encode("utf-8")

    return tuple((tb(m.pair[0]), tb(m.pair[1])) for m in run.merges)


def merge_list_from_files(files: Mapping[str, bytes]) -> MergeList:
    """Uploaded files ``{name: bytes}`` -> their merge list (see the module docstring)."""
    if not files:
        raise CompareInputError(f"no file given: expected {LIST_FORMATS}")
    names = list(files)
    lows = [Path(n).name.lower() for n in names]
    shown = " + ".join(names)
    if len(files) == 1:
        name, data = names[0], files[names[0]]
        if lows[0].endswith(".txt"):
            return MergeList(_pairs_from_merges_txt(data, name), name)
        if lows[0].endswith(".json") and _is_pair_json(data):
            return MergeList(_pairs_from_json(data, name), name)
        if data.lstrip()[:1] == b"[":
            return MergeList(_pairs_from_json(data, name), name)
    for name, data in files.items():  # (else the error names whichever file the formats' detection settled on)
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            raise CompareInputError(f"{name} is not UTF-8 text; expected {LIST_FORMATS}") from None
    try:
        tok = loads(dict(files))
    except (FormatError, ValueError) as exc:
        message = (str(exc).splitlines() or [type(exc).__name__])[0].rstrip(".")
        if "expected" not in message:
            message += f"; expected {LIST_FORMATS}"
        raise CompareInputError(message) from None
    return MergeList(_tokenizer_pairs(tok), shown, tokenizer=tok)


def merge_list(side: Any, name: str | None = None) -> MergeList:
    """A :class:`MergeList` from a run, a tokenizer, a path (a file or folder) or a sequence of pairs."""
    if isinstance(side, MergeList):
        return side
    if isinstance(side, Run):
        return MergeList(_run_pairs(side), name or "run", run=side)
    if isinstance(side, Tokenizer):
        return MergeList(_tokenizer_pairs(side), name or side.name or "tokenizer", tokenizer=side)
    if isinstance(side, (str, Path)):
        path = Path(side)
        try:
            if path.is_dir():
                files = {
                    str(p): read_regular_file(p)
                    for p in sorted(path.iterdir())
                    if p.is_file() and p.suffix.lower() in (".json", ".txt", ".tiktoken", ".model")
                }
            else:
                files = {str(path): read_regular_file(path)}
                partner = {"merges.txt": "vocab.json", "vocab.json": "merges.txt"}.get(path.name.lower())
                if partner and (path.parent / partner).is_file():
                    files[str(path.parent / partner)] = read_regular_file(path.parent / partner)
        except (OSError, NotARegularFile) as exc:
            raise CompareInputError(f"{side}: {getattr(exc, 'strerror', None) or exc}") from None
        found = merge_list_from_files(files)
        return MergeList(found.pairs, name or str(side), tokenizer=found.tokenizer)
    if isinstance(side, Sequence):
        return MergeList(_pairs_from_list(side, name or "the merge list"), name or "merge list")
    raise CompareInputError(
        f"cannot compare a {type(side).__name__}: give a Run, a Tokenizer, a path or a list of merged pairs"
    )


def pairs_tokenizer(
    pairs: Sequence[Pair],
    *,
    pattern: Any = "gpt4",
    special_tokens: Mapping[str, int] | None = None,
    normalize: str | None = None,
    name: str = "merge list",
) -> Tokenizer:
    """A byte-level tokenizer that applies ``pairs`` in order (tokens made by no earlier merge are skipped,
    with the merges after them that need them).

    >>> tok = pairs_tokenizer([(b"a", b"b"), (b"ab", b"c")], pattern=None)
    >>> [tok.token_bytes(i) for i in tok.encode("abcab")]
    [b'abc', b'ab']
    """
    vocab: dict[int, bytes] = {b: bytes([b]) for b in range(256)}
    ids = {t: i for i, t in vocab.items()}
    merges: dict[tuple[int, int], int] = {}
    for a, b in pairs:
        if a not in ids or b not in ids or (ids[a], ids[b]) in merges:
            continue
        new = len(vocab)
        vocab[new] = a + b
        merges[(ids[a], ids[b])] = new
        ids[a + b] = new
    specials = {s: len(vocab) + i for i, s in enumerate(special_tokens or {})}
    return Tokenizer.from_merges(
        vocab, merges, pattern=pattern, special_tokens=specials, normalize=normalize, name=name
    )
