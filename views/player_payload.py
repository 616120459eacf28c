"""What the merge player component draws, as plain data: one payload per run, one per text window.

The component (``components/merge_player``) animates a recorded run in the browser. Everything it shows
comes from here, computed by the same views the rest of the app uses, so the browser only filters and
lays out:

* :func:`run_payload` -- once per run (and palette): every merge's pair, new id, count, ties and the token
  count after it; the top pairs before every merge; each token's visible label (:func:`views.spans.
  token_label`), its inner HTML where that is more than its escaped label (:func:`views.spans.piece_html`:
  whitespace marks, byte chips), its byte length and its color (:func:`views.theme.color_for`); the
  compression curves (training and held-out token counts after every merge).
* :func:`window_payload` -- once per text window: the window's replay (``bpe.replay.Replay``): each node's
  byte offset, id, and the steps at which it is on screen; the
  pre-tokenizer chunk starts; each character's byte length and label (to write the character that tokens
  split at byte level make above them, as :func:`views.spans.render_spans` with ``group_chars`` does).

Step ``k`` (0..N) is the state after ``k`` merges. A node is on screen at step ``k`` when
``from <= k <= to`` (``from`` = rank of the merge that made it + 1, 0 for a base token; ``to`` = rank of the
merge that consumed it, N if none). Highlighted at step ``k >= 1``: the nodes with ``from == k``.

Both payloads travel as gzip-compressed compact JSON (:func:`pack`; the browser inflates them with
``DecompressionStream``), so a 1 MB text with 4,096 merges costs ~0.2 MB on the websocket, once.

>>> import bpe
>>> run = bpe.train("aaabdaaabac", 259, pattern=None)
>>> p = run_payload(run, tag="t")
>>> p["n"], p["pair"][:2], p["count"][:3], p["tokens"]
(3, [97, 97], [4, 2, 2], [11, 9, 7, 5])
>>> unpack(pack(p)) == p
True
"""

from __future__ import annotations

import gzip
import html
import json
from typing import Callable, Iterable, Sequence

from .player_settings import TIE_RULES
from .spans import fallback_html, fallback_label, piece_html, token_label
from .theme import PALETTES, accent_colors, color_for

__all__ = ["run_payload", "token_looks", "window_payload", "pack", "unpack", "locate", "SCHEMA", "TOP_PAIRS"]

#: Version of the payload layout (the component refuses another).
SCHEMA = 1
#: Bars in the pair chart: enough to see the runners-up and the ties, few enough to read on a projector.
TOP_PAIRS = 12


def _bytes(run, token_id: int) -> bytes:
    t = run.token(token_id)
    return t if isinstance(t, bytes) else t.encode("utf-8")


def token_looks(
    ids: Iterable[int],
    token_bytes: Callable[[int], bytes],
    palette: str = "default",
    fallback: Callable[[int], "int | None"] | None = None,
) -> tuple[list[str], list[int], list[int], dict[str, str]]:
    """How the player draws each token of ``ids`` (in order): its visible label (:func:`views.spans.token_label`),
    its byte length, its color (an index into ``palette``'s colors), and ``{id: inner HTML}``
    (:func:`views.spans.piece_html`) only where that is more than the escaped label. ``token_bytes(id)``
    gives a token's bytes; ``fallback(id)`` the byte of a byte-fallback token ``<0xNN>`` (None for any other):
    such a token is labelled ``<0xNN>`` and drawn as a byte-fallback chip (:func:`views.spans.fallback_html`).
    Shared by a run's payload and a replay's (:mod:`views.vocab_player`).

    >>> labels, nbytes, color, pieces = token_looks([97, 32, 256], lambda i: b"ab" if i == 256 else bytes([i]))
    >>> labels, nbytes, list(pieces)
    (['a', '·', 'ab'], [1, 1, 2], ['32'])
    >>> token_looks([300], lambda i: bytes([0xE2]), fallback=lambda i: 0xE2)[::3]
    (['<0xE2>'], {'300': '<span class="bpe-bf" title="byte fallback: byte 0xE2 of a character outside the alphabet">&lt;0xE2&gt;</span>'})
    """
    colors = PALETTES.get(palette, PALETTES["default"])
    index = {c: i for i, c in enumerate(colors)}
    labels: list[str] = []
    nbytes: list[int] = []
    color: list[int] = []
    pieces: dict[str, str] = {}
    for i in ids:
        data = token_bytes(i)
        byte = fallback(i) if fallback is not None else None
        if byte is not None:
            labels.append(fallback_label(byte))
            nbytes.append(1)
            color.append(index[color_for(i, palette)])
            pieces[str(i)] = fallback_html(byte)
            continue
        labels.append(token_label(data))
        nbytes.append(len(data))
        color.append(index[color_for(i, palette)])
        piece = piece_html(data)
        if piece != html.escape(labels[-1], quote=True):
            pieces[str(i)] = piece
    return labels, nbytes, color, pieces


def run_payload(
    run,
    *,
    tag: str,
    heldout_counts: Sequence[int] | None = None,
    heldout_bytes: int = 0,
    palette: str = "default",
    top: int = TOP_PAIRS,
) -> dict:
    """Everything the player needs at every step of ``run`` (a ``bpe.Run``), as JSON-ready data.

    ``tag`` names the run (the window payload and the component's reports carry it, so nothing from
    another run is ever mixed in). ``heldout_counts``: token counts of the held-out text after 0..N merges
    (N + 1 values) and ``heldout_bytes`` its size, or None. Keys:

    * ``n`` merges, ``unit`` ("byte" or "character"), ``base`` base tokens, ``specials`` special tokens,
      ``bytes`` of the training text, ``complete``, ``stop`` (why training stopped), ``tie`` (how ties
      are broken, in words), ``palette`` and ``accent`` colors;
    * per token id ``0 .. vocab_size - 1`` (and the 256 byte-fallback tokens after them, SentencePiece-style):
      ``label``, ``nbytes``, ``color`` (index into ``palette``),
      ``special`` (ids of special tokens), ``piece`` ({id: inner HTML}, only where it differs from the
      escaped label), ``fallback`` (ids of the byte-fallback tokens ``<0xNN>``; empty unless SentencePiece-style);
    * per merge ``r`` (rank, 0-based): ``pair`` (flat: left, right, ...), ``count``, ``ties`` (how many
      other pairs had the winner's count; ``capped`` lists ranks where there may be more);
      ``tokens`` (N + 1 counts: after 0..N merges), ``held`` (the same for held-out text, or None),
      ``held_bytes``;
    * the top pairs before each merge: ``top_pairs`` (a table of distinct pairs, flat), per merge
      ``top_n`` entries, then flat ``top_i`` (index into the table) and ``top_c`` (count). The winner is
      first; entries with the winner's count are ties.
    """
    n = len(run.merges)
    vocab = run.vocab_size
    base = len(run.base)
    colors = list(PALETTES.get(palette, PALETTES["default"]))
    # a SentencePiece-style run's 256 byte-fallback tokens <0xNN> follow its vocabulary (bpe.Run.tokenizer)
    fallback = 256 if run.byte_fallback else 0
    labels, nbytes, color, pieces = token_looks(
        range(vocab + fallback),
        lambda i: bytes([i - vocab]) if i >= vocab else _bytes(run, i),
        palette,
        fallback=(lambda i: i - vocab if i >= vocab else None) if fallback else None,
    )
    pair: list[int] = []
    counts: list[int] = []
    ties: list[int] = []
    capped: list[int] = []
    table: dict[tuple[int, int], int] = {}
    top_n: list[int] = []
    top_i: list[int] = []
    top_c: list[int] = []
    for m in run.merges:
        pair += m.pair
        counts.append(m.count)
        ties.append(len(m.ties))
        if getattr(m, "ties_capped", False):
            capped.append(m.rank)
        entries = m.top_pairs[:top]
        top_n.append(len(entries))
        for p, c in entries:
            top_i.append(table.setdefault(tuple(p), len(table)))
            top_c.append(c)
    name, how = TIE_RULES.get(run.tie_break, (run.tie_break, ""))
    held = list(heldout_counts) if heldout_counts is not None and len(heldout_counts) == n + 1 else None
    return {
        "v": SCHEMA,
        "tag": tag,
        "n": n,
        "unit": "byte" if run.level == "byte" else "character",
        "base": base,
        "specials": len(run.special_tokens),
        "bytes": run.n_bytes,
        "complete": bool(run.complete),
        "stop": run.stop_reason,
        "tie": f"broken by the {name} rule" + (f": {how}" if how else ""),
        "palette": colors,
        "accent": accent_colors(palette),
        "label": labels,
        "nbytes": nbytes,
        "color": color,
        "special": sorted(run.special_tokens.values()),
        "piece": pieces,
        "fallback": list(range(vocab, vocab + fallback)),
        "pair": pair,
        "count": counts,
        "ties": ties,
        "capped": capped,
        "tokens": run.token_counts(),
        "held": held,
        "held_bytes": int(heldout_bytes) if held else 0,
        "top_pairs": [x for p in table for x in p],
        "top_n": top_n,
        "top_i": top_i,
        "top_c": top_c,
    }


def window_payload(
    rep, *, tag: str, n_merges: int, level: str, first_char: int = 0, total_chars: int = 0, byte_fallback: bool = False
) -> dict:
    """The replay ``rep`` of a text window (``Replay.build`` of the run tagged ``tag``) as JSON-ready data.

    ``first_char``: where the window starts in the training text, ``total_chars`` the training text's length
    (0: the window is the whole text). Keys: ``tag``; ``first``, ``chars``, ``total``, ``bytes``;
    per node (sorted by offset, longest first) ``start``, ``id``, ``from``, ``to``; ``sp`` (indices of
    special-token nodes); ``cs`` (byte offsets where a pre-tokenizer chunk starts); ``ch_len`` and
    ``ch_label`` (each character's UTF-8 length and visible label; empty unless byte level or ``byte_fallback``
    with multi-byte characters, the only cases where tokens can split a character: byte-fallback tokens are
    drawn under the character they spell).

    >>> import bpe
    >>> from bpe.replay import MergeIndex, Replay
    >>> run = bpe.train("aaabdaaabac", 259, pattern=None)
    >>> w = window_payload(Replay.build(run, MergeIndex(run), "aaab"), tag="t", n_merges=3, level="byte")
    >>> [(s, i, f, t) for s, i, f, t in zip(w["start"], w["id"], w["from"], w["to"])]
    [(0, 258, 3, 3), (0, 256, 1, 2), (0, 97, 0, 0), (1, 97, 0, 0), (2, 257, 2, 2), (2, 97, 0, 1), (3, 98, 0, 1)]
    """
    start = [int(x) for x in rep.start]
    made = [int(x) for x in rep.made]
    parent = [int(x) for x in rep.parent]
    text = rep.text
    multibyte = (level == "byte" or byte_fallback) and any(ord(c) > 127 for c in text)
    return {
        "v": SCHEMA,
        "tag": tag,
        "first": int(first_char),
        "chars": len(text),
        "total": int(total_chars or len(text)),
        "bytes": int(rep.n_bytes),
        "start": start,
        "id": [int(x) for x in rep.ids],
        "from": [m + 1 for m in made],
        "to": [min(p, n_merges) for p in parent],
        "sp": [i for i, s in enumerate(rep.special) if s],
        "cs": sorted(int(x) for x in rep.chunk_starts),
        "ch_len": [len(c.encode("utf-8", "surrogatepass")) for c in text] if multibyte else [],
        "ch_label": [token_label(c.encode("utf-8", "surrogatepass")) for c in text] if multibyte else [],
    }


def pack(payload: dict) -> bytes:
    """Compact JSON, gzip-compressed, deterministic (the same payload gives the same bytes, so Streamlit
    re-sends an unchanged one as a cached reference)."""
    raw = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return gzip.compress(raw, compresslevel=6, mtime=0)


def unpack(data: bytes) -> dict:
    """The payload :func:`pack` made."""
    return json.loads(gzip.decompress(data).decode("utf-8"))


def locate(run, index, text: str, rank: int, *, block: int = 20_000) -> int | None:
    """The character offset in ``text`` (normalized like the training text) of the first token that merge
    ``rank`` makes, or None. Replays ``text`` a block at a time (cut at a line or a space) and stops at the
    first hit, so a merge near the start of a long text is found at once.

    >>> import bpe
    >>> from bpe.replay import MergeIndex
    >>> run = bpe.train("xyz abab abab", 257, pattern=None)
    >>> locate(run, MergeIndex(run), "xyz abab abab", 0)
    4
    """
    from bpe.replay import Replay

    from .spans import window

    pos = 0
    while pos < len(text):
        piece, _cut = window(text[pos:], block)
        rep = Replay.build(run, index, piece)
        hits = [s for s, m in zip(rep.start, rep.made) if int(m) == rank]
        if hits:
            first = min(int(s) for s in hits)
            return pos + len(piece.encode("utf-8")[:first].decode("utf-8", "ignore"))
        pos += len(piece) or len(text)
    return None
