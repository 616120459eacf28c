"""The merge player replaying a real vocabulary (GPT-4's, Llama 3's ...) on a text: payloads and panels.

The player component (``components/merge_player``) plays a :class:`bpe.vocab_replay.VocabReplay` the way
it plays a trained run: :func:`replay_payload` is its run payload (``mode: "replay"``), :func:`replay_window`
its text window. Step ``k`` (0..N) is the text after the ``k`` lowest-ranked merges that fire on it; the
tokens the browser draws at step ``k`` are the replay's :meth:`~bpe.vocab_replay.VocabReplay.tokens_at`
``(k)`` (Python computes, the browser only filters by step and lays out).

What a replay payload holds beyond a run payload's keys (``views.player_payload.run_payload``):

* ``mode`` ``"replay"``, ``vocab`` (the vocabulary's label), ``vocab_size``;
* per step ``r`` (0-based; step ``r + 1``): ``new`` (the id it makes), ``rank`` (its merge's rank: the
  token's rank in a tiktoken vocabulary, the merge's line in a merge list), ``pair`` (the pair that makes
  the token, recovered from the ranks; ``-1, -1`` for a token no two smaller tokens make, which only a
  whole-chunk lookup reaches), ``count`` (how often it fires in the text);
* sparse ``{step index: ...}`` maps of what tiktoken's rank order does differently (see
  :data:`DIFFERENCES`): ``alt`` (flat ``left, right, count`` of the other splits this text builds the token
  from), ``lookups`` and ``cascade`` (counts);
* the top pairs before step ``r + 1`` are the merges of steps ``r + 1 .. r + TOP_PAIRS``: the one that
  fires now and those that fire next, in rank order, with their counts (``top_*``, as in a run payload);
* labels, byte lengths, colors and inner HTML only for the ids the replay uses (``{id: value}`` maps).

>>> import bpe
>>> from bpe.vocab_replay import replay
>>> rep = replay(bpe.load_pretrained("cl100k_base"), "hello hello")
>>> p = replay_payload(rep, tag="t", vocab="GPT-4")
>>> p["n"], p["tokens"], [p["label"][str(i)] for i in p["new"][:3]]
(6, [11, 9, 8, 6, 4, 3, 2], ['el', '·h', 'lo'])
"""

from __future__ import annotations

import html
from typing import Sequence

import pandas as pd

from bpe.vocab_replay import StepNodes, VocabReplay

from .player import PLAYER_CSS, quoted
from .player_payload import SCHEMA, TOP_PAIRS, token_looks, window_payload
from .spans import fallback_label, token_label
from .spans import window as cut_window
from .theme import PALETTES, accent_colors
from .vocab_tree import build_tree_html, find_token, step_of_token

__all__ = [
    "replay_payload",
    "replay_window",
    "replay_window_payload",
    "DIFFERENCES",
    "differences",
    "differences_frame",
    "steps_frame",
    "STEP_COLUMNS",
    "build_tree_html",
    "replay_summary",
    "explainer_html",
    "step_of_token",
    "first_offset",
    "find_token",
]

#: In plain words: where a tiktoken vocabulary's rank order differs from applying learned pairs in order
#: (the facts are in :mod:`bpe.vocab_replay`). Keys are the payload's sparse maps.
DIFFERENCES = {
    "alt": (
        "Another split",
        "A tiktoken vocabulary ranks tokens, not pairs: it joins any two neighbours whose bytes together "
        "form a token, lowest rank first. So it can build a token from a split training never learned "
        "(“a” + “bc” where training merged “ab” + “c”). The player shows the learned pair; the "
        "other split is named on the step.",
    ),
    "lookups": (
        "Whole-chunk lookup",
        "If a whole pre-tokenizer chunk is itself a token, tiktoken takes it as it is, without "
        "merging. When merging pairs alone would not reach that token, the replay shows the merges "
        "pairs would make and then one lookup step that joins the rest at the token's rank.",
    ),
    "cascade": (
        "A merge that had to wait",
        "In a merge list learned by training, a merge can only happen after the merges that made its "
        "parts, so ranks rise along a word. A vocabulary put together from several sources (Llama 3 "
        "added 28,000 tokens to GPT-4's) can need a higher-ranked merge first; the lower-ranked merge "
        "that was waiting for it then happens in the same step.",
    ),
}


def _bytes(tok, i: int) -> bytes:
    return tok.token_bytes(i)


def _base_size(tok) -> int:
    """The base tokens a replay starts from: 256 bytes, or a char-level vocabulary's single characters."""
    if tok.level == "byte":
        return 256
    return sum(1 for i, t in tok.vocab.items() if isinstance(t, str) and len(t) == 1 and not tok.is_special(i))


def replay_payload(rep: VocabReplay, *, tag: str, vocab: str, palette: str = "default", top: int = TOP_PAIRS) -> dict:
    """Everything the player needs at every step of the replay ``rep``, as JSON-ready data (see the module
    docstring); ``vocab`` names the vocabulary in the player's words (e.g. "GPT-4")."""
    tok = rep.tokenizer
    steps = rep.steps
    n = len(steps)
    colors = list(PALETTES.get(palette, PALETTES["default"]))
    start = rep.tokens_at(0)  # the bytes (and special tokens) of step 0
    used: set[int] = {i for i, _, _ in start}
    pair: list[int] = []
    alt: dict[str, list[int]] = {}
    lookups: dict[str, int] = {}
    cascade: dict[str, int] = {}
    for r, s in enumerate(steps):
        p = s.pair if s.pair is not None else (-1, -1)  # no two smaller tokens make it: a lookup only
        pair += p
        used.update(i for i in p if i >= 0)
        used.add(s.new_id)
        if s.other_pairs:
            alt[str(r)] = [x for (a, b), c in s.other_pairs for x in (a, b, c)]
            used.update(i for (a, b), _ in s.other_pairs for i in (a, b))
        if s.lookups:
            lookups[str(r)] = s.lookups
        if s.cascade:
            cascade[str(r)] = s.cascade
    specials = {i for i, _, sp in start if sp}
    used |= specials
    ids = sorted(used)
    labels, nbytes, color, pieces = token_looks(ids, tok.token_bytes, palette, fallback=tok.fallback_byte)
    fallback = [i for i in ids if tok.fallback_byte(i) is not None]
    labels, nbytes, color = ({str(i): v for i, v in zip(ids, values)} for values in (labels, nbytes, color))
    top_n: list[int] = []
    top_i: list[int] = []
    top_c: list[int] = []
    for r in range(n):
        entries = range(r, min(n, r + top))
        top_n.append(len(entries))
        top_i.extend(entries)  # the table of pairs is the steps' pairs, in step order
        top_c.extend(steps[j].count for j in entries)
    tokens = [rep.count_at(0)] + [s.tokens_after for s in steps]
    return {
        "v": SCHEMA,
        "tag": tag,
        "mode": "replay",
        "vocab": vocab,
        "vocab_size": tok.vocab_size,
        "n": n,
        "unit": "byte" if tok.level == "byte" else "character",
        "base": _base_size(tok),
        "specials": len(tok.special_tokens),
        "bytes": len(rep.text.encode("utf-8")),
        "complete": True,
        "stop": "",
        "tie": "",
        "palette": colors,
        "accent": accent_colors(palette),
        "label": labels,
        "nbytes": nbytes,
        "color": color,
        "special": sorted(specials),
        "piece": pieces,
        "fallback": fallback,
        "pair": pair,
        "count": [s.count for s in steps],
        "ties": [0] * n,
        "capped": [],
        "tokens": tokens,
        "held": None,
        "held_bytes": 0,
        "new": [s.new_id for s in steps],
        "rank": [s.order for s in steps],
        "alt": alt,
        "lookups": lookups,
        "cascade": cascade,
        "top_pairs": pair,
        "top_n": top_n,
        "top_i": top_i,
        "top_c": top_c,
    }


def replay_window(rep: VocabReplay, start: int, size: int) -> StepNodes:
    """The stretch of the replayed text the player draws: the whole pre-tokenizer chunks that start from
    character ``start`` on, over about ``size`` characters (cut at a line or a space).

    >>> import bpe
    >>> from bpe.vocab_replay import replay
    >>> rep = replay(bpe.load_pretrained("cl100k_base"), "one two three four five")
    >>> replay_window(rep, 0, 9).text, replay_window(rep, 5, 9).text
    ('one two three', ' three four')
    """
    text = rep.text
    start = max(0, min(int(start), len(text)))
    piece, _cut = cut_window(text[start:], size)
    first = len(text[:start].encode("utf-8"))
    return rep.nodes(first, first + len(piece.encode("utf-8")))


def replay_window_payload(
    nodes: StepNodes,
    *,
    tag: str,
    n_steps: int,
    total_chars: int,
    first_char: int,
    level: str = "byte",
    byte_fallback: bool = False,
) -> dict:
    """The window payload of ``nodes`` (:func:`replay_window`): the same layout as a trained run's window
    (``level`` and ``byte_fallback`` of the replayed tokenizer: byte-fallback tokens are drawn under their
    character)."""
    return window_payload(
        nodes,
        tag=tag,
        n_merges=n_steps,
        level=level,
        first_char=first_char,
        total_chars=total_chars,
        byte_fallback=byte_fallback,
    )


def first_offset(rep: VocabReplay, k: int) -> int | None:
    """The character offset in ``rep.text`` of the first token step ``k`` made (None for step 0).

    >>> import bpe
    >>> from bpe.vocab_replay import replay
    >>> rep = replay(bpe.load_pretrained("cl100k_base"), "hello hello")
    >>> first_offset(rep, 1)
    1
    """
    made = rep.new_at(k)
    if not made:
        return None
    byte = rep.tokens_at(k)[made[0]][1]
    return len(rep.text.encode("utf-8")[:byte].decode("utf-8", "ignore"))


# ----------------------------------------------------------------------------------------------------
# The panels under the player


def _label(tok, i: int) -> str:
    byte = tok.fallback_byte(i)
    return fallback_label(byte) if byte is not None else token_label(_bytes(tok, i))


def _quoted(tok, i: int) -> str:
    return quoted(_label(tok, i))


def differences(rep: VocabReplay) -> list[tuple[int, str, str]]:
    """``(step, kind, what)`` for every step where the rank order differs from applying learned pairs;
    ``kind`` is a key of :data:`DIFFERENCES`, ``what`` says it in words (plain text)."""
    tok = rep.tokenizer
    out = []
    for s in rep.steps:
        if s.other_pairs:
            splits = "; ".join(f"{_quoted(tok, a)} + {_quoted(tok, b)} ×{c:,}" for (a, b), c in s.other_pairs)
            out.append((s.index, "alt", f"{_quoted(tok, s.new_id)} also built here as {splits}"))
        if s.lookups:
            out.append(
                (
                    s.index,
                    "lookups",
                    f"{_quoted(tok, s.new_id)}: {s.lookups:,} of its {s.count:,} are "
                    "whole chunks looked up, not merged from a pair",
                )
            )
        if s.cascade:
            out.append(
                (
                    s.index,
                    "cascade",
                    f"{s.cascade:,} lower-ranked merge{'s' if s.cascade != 1 else ''} "
                    f"could only happen now, after {_quoted(tok, s.new_id)} was made",
                )
            )
    return out


def differences_frame(rep: VocabReplay) -> pd.DataFrame:
    """The steps of :func:`differences` as a table (step, what happens, in words)."""
    rows = [{"step": k, "what": DIFFERENCES[kind][0], "here": what} for k, kind, what in differences(rep)]
    return pd.DataFrame(rows, columns=["step", "what", "here"])


STEP_COLUMNS = ["step", "rank", "left", "right", "new token", "count", "tokens after"]


def steps_frame(rep: VocabReplay, k: int, *, limit: int = 300) -> pd.DataFrame:
    """The steps up to ``k``, newest first (at most ``limit``), with the id each makes (column ``id``)."""
    tok = rep.tokenizer
    rows = []
    for s in reversed(rep.steps[max(0, k - limit) : k]):
        left, right = s.pair if s.pair is not None else (None, None)
        rows.append(
            {
                "step": s.index,
                "rank": s.order,
                "left": _label(tok, left) if left is not None else "(whole chunk)",
                "right": _label(tok, right) if right is not None else "",
                "new token": token_label(s.token),
                "count": s.count,
                "tokens after": s.tokens_after,
                "id": s.new_id,
            }
        )
    return pd.DataFrame(rows, columns=STEP_COLUMNS + ["id"])


def replay_summary(rep: VocabReplay, *, title: str, vocab: str, cut: bool = False) -> str:
    """One line about the replay (escaped HTML): the text, its size, the vocabulary, steps and tokens."""
    n = len(rep.steps)
    unit = "bytes" if rep.tokenizer.level == "byte" else "base tokens"
    bits = [
        f"<b>{html.escape(title)}</b>",
        f"{len(rep.text):,} characters, {rep.count_at(0):,} {unit}"
        + (" (the first part of a longer text)" if cut else ""),
        f"{html.escape(vocab)}’s vocabulary ({rep.tokenizer.vocab_size:,} tokens)",
        f"{n:,} of its merges fire → {rep.count_at(n):,} tokens",
    ]
    return '<div class="bpe-pl-sub">Replaying on ' + " · ".join(bits) + "</div>"


def explainer_html(vocab: str, counts: Sequence[tuple[str, int]], *, merge_list: bool = False) -> str:
    """The three ways tiktoken's rank order differs from applying learned pairs, in plain words, each with how
    many steps of this replay it happens on (``counts``: ``(kind, steps)``). ``merge_list``: the vocabulary is
    a merge list (a ``tokenizer.json``), which the replay applies exactly as learned: said so instead."""
    if merge_list:
        looked = dict(counts).get("lookups", 0)
        return (
            PLAYER_CSS + '<div class="bpe-rp-explain"><p>Each step applies one of '
            f"{html.escape(vocab)}’s merges everywhere in the text, in the order of its merge list; the last step "
            "gives exactly the ids of its tokenizer. A tokenizer.json keeps the learned pairs themselves, so "
            "this is exactly replaying a training run’s merges: none of tiktoken’s differences (another split, "
            "a merge that had to wait) can happen"
            + (
                f"; {looked:,} step{'s' if looked != 1 else ''} look a whole chunk up (its ignore_merges option)."
                if looked
                else "."
            )
            + " Characters it lacks are written as their UTF-8 bytes, one &lt;0xNN&gt; token each "
            "(byte fallback), when it has those tokens.</p></div>"
        )
    seen = dict(counts)
    items = []
    for kind, (name, words) in DIFFERENCES.items():
        k = seen.get(kind, 0)
        where = (
            f'<span class="bpe-rp-n" data-kind="{kind}">{k:,} step{"s" if k != 1 else ""} of this replay</span>'
            if k
            else f'<span class="bpe-rp-n" data-kind="{kind}">not on this text</span>'
        )
        items.append(f"<li><b>{html.escape(name)}</b> — {where}. {html.escape(words)}</li>")
    return (
        PLAYER_CSS + "<style>.bpe-rp-explain{font-size:.92rem;line-height:1.5}.bpe-rp-explain li{margin:.3rem 0}"
        ".bpe-rp-n{background:#f1f1f4;border-radius:.3rem;padding:0 .3rem}</style>"
        '<div class="bpe-rp-explain">'
        f"<p>Each step applies one of {html.escape(vocab)}’s merges everywhere in the text, lowest rank first; "
        "the last step gives exactly the ids of its tokenizer. Its vocabulary file keeps a rank per token, "
        "not a list of learned pairs: each token’s pair is recovered by running BPE on the token’s own bytes "
        "with lower ranks only. Stepping through ranks is almost the same as replaying a training run’s "
        "merges — except in three ways:</p><ul>" + "".join(items) + "</ul></div>"
    )
