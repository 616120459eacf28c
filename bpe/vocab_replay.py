"""Watch a real vocabulary build your text: its merges recovered from the ranks, replayed in rank order.

A tiktoken vocabulary (GPT-4's ``cl100k_base``, Llama 3, Qwen, tekken) stores no merge list, only a rank per
token; :mod:`bpe.merge_recovery` finds each token's pair (:func:`~bpe.merge_recovery.recover_merges`, as
minbpe's ``recover_merges`` does; re-exported here). :func:`replay` encodes a text the model's way, records every merge that fires, and orders them by rank, so a player can
step through "GPT-4 builds this paragraph": step *k* applies, everywhere in the text, the *k*-th lowest rank
that fires on it.

Where tiktoken's rank order differs from applying learned pairs (a trained merge list, as
:class:`bpe.Run` replays it):

* **Ranks rank tokens, not pairs.** tiktoken merges the adjacent pair whose *concatenated bytes* form the
  lowest-ranked token. The same token can then be built from a different split than the recovered pair
  (``"a" + "bc"`` where training merged ``"ab" + "c"``): a step lists such pairs in
  :attr:`ReplayStep.other_pairs`.
* **Whole chunks are looked up first.** If a pre-tokenizer chunk is itself a token, tiktoken returns it
  without merging. When plain BPE would not reach that token, the replay shows the merges BPE would make
  and then one *lookup* step that joins the rest (:attr:`ReplayStep.lookups`).
* **Ranks need not rise along a chunk.** In a trained merge list a merge can only fire after the merges
  that made its parts, so ranks rise. In a vocabulary assembled from several sources (Llama 3 appended
  28,000 tokens to ``cl100k_base``'s) a chunk can need a higher-ranked merge before a lower-ranked one can
  apply. That lower-ranked merge then fires in the same step as the merge it waits for
  (:attr:`ReplayStep.cascade`). Measured on 700 KB of mixed text: 7 of ~20,700 distinct chunks for Llama 3,
  none for GPT-4, GPT-4o, Qwen or tekken.

The last step's tokens are exactly the tokenizer's ids for the text.

>>> import bpe
>>> rep = replay(bpe.load_pretrained("cl100k_base"), "hello hello")
>>> [(s.token, s.count) for s in rep.steps][:3]
[(b'el', 2), (b' h', 1), (b'lo', 2)]
>>> rep.ids_at(len(rep.steps)) == bpe.load_pretrained("cl100k_base").encode("hello hello")
True
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from typing import Any

from .merge_recovery import RecoveredMerge, recover_merges, recover_pair
from .replay_steps import Event, ReplayStep, StepNodes, check_spelled, chunk_events, running_max
from .special_tokens import SpecialChoice, allowed_specials, cut_at_specials
from .splitting import pretokenize_pieces
from .tokenizer import Tokenizer

__all__ = [
    "RecoveredMerge",
    "recover_merges",
    "recover_pair",
    "ReplayStep",
    "VocabReplay",
    "StepNodes",
    "replay",
    "MAX_REPLAY_BYTES",
]

#: Replays are for a window of text a person reads (the player draws it): larger texts are refused.
MAX_REPLAY_BYTES = 200_000


class VocabReplay:
    """A text encoded once with every merge recorded; any step's tokens on demand.

    ``steps[k - 1]`` is step ``k``; step 0 is the text as base tokens (bytes; characters for a
    SentencePiece-style tokenizer, with byte fallback for the ones it lacks). :meth:`ids_at` and
    :meth:`tokens_at` give the state after ``k`` steps; ``ids_at(len(steps))`` equals ``tok.encode(text)``
    (with the same ``allowed_special``). Offsets are UTF-8 byte offsets in the *normalized* text
    (:attr:`text`; Qwen applies NFC; a SentencePiece-style tokenizer's text has its spaces as ``▁``).
    """

    def __init__(
        self,
        tok: Tokenizer,
        text: str,
        pieces: list[tuple[str, int | None]],
        chunk_events: dict[str, tuple[Event, ...]],
    ):
        self.tokenizer = tok
        self.text = text
        self._pieces = pieces  # (chunk text, None) or (special string, special id)
        self._events = chunk_events
        #: each chunk's base ids (bytes; at char level its characters, a rare one as <0xNN> byte tokens)
        self._base = {c: tuple(tok._base_ids(c)) for c in chunk_events}
        self._prefix_max = {c: running_max([e.order for e in evs]) for c, evs in chunk_events.items()}
        self.steps: tuple[ReplayStep, ...] = self._build_steps()
        self._thresholds = [s.order for s in self.steps]

    # -- building ----------------------------------------------------------------------------------
    def _build_steps(self) -> tuple[ReplayStep, ...]:
        tok = self.tokenizer
        occurrences = Counter(c for c, sid in self._pieces if sid is None)
        fired: dict[int, Counter[tuple[int, int]]] = {}
        count: Counter[int] = Counter()
        cascade: Counter[int] = Counter()
        lookups: Counter[int] = Counter()
        shrink: Counter[int] = Counter()
        new_id_of: dict[int, int] = {}
        for chunk, n in occurrences.items():
            events = self._events[chunk]
            for e, active in zip(events, self._prefix_max[chunk]):
                shrink[active] += n * (e.width - 1)
                if e.order == active:
                    count[active] += n
                    new_id_of[active] = e.new_id
                    if e.pair is None:
                        lookups[active] += n
                    else:
                        fired.setdefault(active, Counter())[e.pair] += n
                else:
                    cascade[active] += n
        total = self.base_count
        steps = []
        for index, order in enumerate(sorted(shrink), 1):
            total -= shrink[order]
            new_id = new_id_of[order] if order in new_id_of else self._new_id(order)
            pair = recover_pair(tok, new_id)
            others = tuple(
                sorted(((p, c) for p, c in fired.get(order, Counter()).items() if p != pair), key=lambda pc: -pc[1])
            )
            steps.append(
                ReplayStep(
                    index=index,
                    order=order,
                    new_id=new_id,
                    token=tok.token_bytes(new_id),
                    pair=pair,
                    count=count[order],
                    tokens_after=total,
                    other_pairs=others,
                    lookups=lookups[order],
                    cascade=cascade[order],
                )
            )
        return tuple(steps)

    def _new_id(self, order: int) -> int:
        if self.tokenizer.mode == "ranks":
            return order
        return self.tokenizer._merge_result[order]

    # -- reading -----------------------------------------------------------------------------------
    @property
    def base_count(self) -> int:
        """Tokens before any merge: the text's bytes, or at char level its characters (and the bytes of those
        written as byte-fallback tokens), and one per special token."""
        base = self._base
        return sum(len(base[c]) if sid is None else 1 for c, sid in self._pieces)

    def count_at(self, k: int) -> int:
        """The text's token count after ``k`` steps.

        >>> import bpe
        >>> rep = replay(bpe.load_pretrained("cl100k_base"), "hello hello")
        >>> rep.count_at(0), rep.count_at(len(rep.steps))
        (11, 2)
        """
        self._check(k)
        return self.base_count if k == 0 else self.steps[k - 1].tokens_after

    def _check(self, k: int) -> None:
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= len(self.steps):
            raise ValueError(f"k must be a whole number from 0 to {len(self.steps)}, not {k!r}")

    def _chunk_ids(self, chunk: str, threshold: int, memo: dict[Any, Any]) -> tuple[int, ...]:
        events = self._events[chunk]
        p = bisect_right(self._prefix_max[chunk], threshold)
        key = (chunk, p)
        ids = memo.get(key)
        if ids is None:
            ids = list(self._base[chunk])
            for e in events[:p]:
                ids[e.at : e.at + e.width] = [e.new_id]
            ids = memo[key] = tuple(ids)
        return ids

    def tokens_at(self, k: int) -> list[tuple[int, int, bool]]:
        """``(token id, UTF-8 byte offset in the text, is special)`` for every token after ``k`` steps."""
        self._check(k)
        threshold = self._thresholds[k - 1] if k else -1
        memo: dict[Any, Any] = {}
        out: list[tuple[int, int, bool]] = []
        offset = 0
        tok = self.tokenizer
        for chunk, sid in self._pieces:
            if sid is not None:
                out.append((sid, offset, True))
                offset += len(chunk.encode("utf-8"))
                continue
            for i in self._chunk_ids(chunk, threshold, memo):
                out.append((i, offset, False))
                offset += len(tok.token_bytes(i))
        return out

    def ids_at(self, k: int) -> list[int]:
        """The token ids after ``k`` steps."""
        return [i for i, _, _ in self.tokens_at(k)]

    def new_at(self, k: int) -> list[int]:
        """Indexes into ``tokens_at(k)`` of the tokens step ``k`` created: what a player highlights.

        >>> import bpe
        >>> rep = replay(bpe.load_pretrained("cl100k_base"), "hello hello")
        >>> rep.new_at(1), [t for t, _, _ in rep.tokens_at(1)][:2]
        ([1, 6], [71, 301])
        """
        self._check(k)
        if k == 0:
            return []
        before = self._thresholds[k - 2] if k > 1 else -1
        now = self._thresholds[k - 1]
        out: list[int] = []
        n = 0
        memo: dict[Any, Any] = {}
        for chunk, sid in self._pieces:
            if sid is not None:
                n += 1
                continue
            prefix = self._prefix_max[chunk]
            start, stop = bisect_right(prefix, before), bisect_right(prefix, now)
            ids = list(self._chunk_ids(chunk, before, memo))
            made = [False] * len(ids)
            for e in self._events[chunk][start:stop]:
                ids[e.at : e.at + e.width] = [e.new_id]
                made[e.at : e.at + e.width] = [True]
            out.extend(n + j for j, flag in enumerate(made) if flag)
            n += len(ids)
        return out

    def nodes(self, first_byte: int = 0, stop_byte: int | None = None) -> StepNodes:
        """The tokens of every step in the stretch of :attr:`text` made of the whole pre-tokenizer chunks
        (and special tokens) that start in ``[first_byte, stop_byte)`` (byte offsets; default: all of it).

        At every step ``k`` its nodes on screen are exactly :meth:`tokens_at` ``(k)`` in that stretch.

        >>> import bpe
        >>> rep = replay(bpe.load_pretrained("cl100k_base"), "hello hello")
        >>> nodes = rep.nodes()
        >>> nodes.tokens_at(len(rep.steps)) == [(i, o, s) for i, o, s in rep.tokens_at(len(rep.steps))]
        True
        """
        n = len(self.steps)
        step_of = {s.order: s.index for s in self.steps}
        tok = self.tokenizer
        rows: list[tuple[int, int, int, int, int, bool]] = []  # start, end, id, made, parent, special
        starts: set[int] = set()
        offset = 0
        base = None
        parts: list[str] = []
        for chunk, sid in self._pieces:
            size = len(chunk.encode("utf-8"))
            if offset < first_byte or (stop_byte is not None and offset >= stop_byte):
                offset += size
                continue
            if base is None:
                base = offset
            at = offset - base
            parts.append(chunk)
            if at:
                starts.add(at)
            if sid is not None:
                rows.append((at, at + size, sid, -1, n, True))
                offset += size
                continue
            live: list[int] = []  # row index of each token of the chunk now
            pos = at
            for i in self._base[chunk]:
                w = len(tok.token_bytes(i))
                live.append(len(rows))
                rows.append((pos, pos + w, i, -1, n, False))
                pos += w
            for e, active in zip(self._events[chunk], self._prefix_max[chunk]):
                step = step_of[active] - 1
                gone = live[e.at : e.at + e.width]
                for j in gone:
                    s0, e0, i0, m0, _, sp0 = rows[j]
                    rows[j] = (s0, e0, i0, m0, step, sp0)
                live[e.at : e.at + e.width] = [len(rows)]
                rows.append((rows[gone[0]][0], rows[gone[-1]][1], e.new_id, step, n, False))
            offset += size
        rows.sort(key=lambda r: (r[0], -r[1]))
        cols = list(zip(*rows)) if rows else [()] * 6
        text = "".join(parts)
        return StepNodes(
            text=text,
            first_byte=base or 0,
            start=tuple(cols[0]),
            ids=tuple(cols[2]),
            made=tuple(cols[3]),
            parent=tuple(cols[4]),
            special=tuple(bool(x) for x in cols[5]),
            chunk_starts=frozenset(starts),
            n_bytes=len(text.encode("utf-8")),
        )

    def __repr__(self) -> str:
        return (
            f"VocabReplay({self.tokenizer.name or 'tokenizer'}: {len(self.steps)} steps, "
            f"{self.base_count} -> {self.count_at(len(self.steps))} tokens)"
        )


def replay(tok: Tokenizer, text: str, *, allowed_special: SpecialChoice = "all") -> VocabReplay:
    """Encode ``text`` with ``tok``, recording every merge, for a step-by-step replay in merge order.

    Special-token strings in ``allowed_special`` (default: all of them) stay single special tokens; others
    are text. The text is normalized as the tokenizer does (Qwen: NFC). Byte-level tokenizers, and
    SentencePiece-style ones (a ``tokenizer.json`` like Llama 2's or Mistral 7B's: characters, spaces as ``▁``,
    ``<0xNN>`` byte fallback), whose replayed :attr:`VocabReplay.text` is the text as they see it (``▁Hello▁world``).
    A tokenizer whose tokens do not spell the text (a pre-tokenizer that drops the spaces, an unknown token, a
    continuing-subword prefix) is refused with a ``ValueError`` saying so; so are texts over
    :data:`MAX_REPLAY_BYTES` (a replay is for a window a person reads).

    >>> import bpe
    >>> rep = replay(bpe.train("low lower lowest", 30, family="sentencepiece", tie_break="hf").tokenizer(), "lowé")
    >>> rep.text, [s.token.decode() for s in rep.steps], [rep.tokenizer.token_text(i) for i in rep.ids_at(3)]
    ('▁lowé', ['lo', '▁lo', '▁low'], ['▁low', '<0xC3>', '<0xA9>'])
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    if tok.level != "byte" and tok.mode != "merges":
        raise ValueError("replay needs a byte-level or a SentencePiece-style tokenizer")
    text = tok._prepare(text)
    size = len(text.encode("utf-8"))
    if size > MAX_REPLAY_BYTES:
        raise ValueError(
            f"the text is {size:,} bytes; a replay takes at most {MAX_REPLAY_BYTES:,} (choose a shorter window)"
        )
    plain, specials = cut_at_specials(text, allowed_specials(tok.special_tokens, allowed_special))
    # one time limit for the text; a tokenizer.json's own pipeline (normalizers, Metaspace...) at char level
    chunked = tok.pipeline.chunks(plain) if tok.pipeline is not None else pretokenize_pieces(plain, tok.pattern)
    pieces: list[tuple[str, int | None]] = []
    for i, chunks in enumerate(chunked):
        if tok.level == "char":
            check_spelled(tok, plain[i], chunks)
        pieces.extend((c, None) for c in chunks)
        if i < len(specials):
            pieces.append((specials[i], tok.special_tokens[specials[i]]))
    if tok.level == "char":
        text = "".join(c for c, _ in pieces)  # the text as the tokenizer sees it: spaces as ▁
    events = {c: chunk_events(tok, c) for c, sid in pieces if sid is None}
    return VocabReplay(tok, text, pieces, events)
