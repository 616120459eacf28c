"""What a replay (:mod:`bpe.vocab_replay`) is made of and how it is recorded: its records (:class:`ReplayStep`,
:class:`StepNodes`), the merges a tokenizer makes on one chunk, in its own order (:func:`chunk_events`), and
the check that a char-level tokenizer's tokens spell the text (:func:`check_spelled`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .merge_recovery import merge_order
from .tokenizer import Tokenizer

__all__ = ["ReplayStep", "StepNodes", "Event", "running_max", "chunk_events", "check_spelled"]


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """One step of a replay: merge ``order`` fires ``count`` times in the text, making ``new_id``.

    ``pair`` is the pair that makes the token (learned, or recovered from the ranks); ``other_pairs`` lists
    ``(pair, count)`` when this text builds the token from a different split; ``lookups`` counts whole-chunk
    lookups (tiktoken's shortcut) among ``count``; ``cascade`` counts merges of *lower* order that could only
    fire now. ``tokens_after`` is the whole text's token count after this step.
    """

    index: int
    order: int
    new_id: int
    token: bytes
    pair: tuple[int, int] | None
    count: int
    tokens_after: int
    other_pairs: tuple[tuple[tuple[int, int], int], ...] = ()
    lookups: int = 0
    cascade: int = 0


@dataclass(frozen=True, slots=True)
class Event:
    """One merge on a chunk: at position ``at``, ``width`` tokens become ``new_id`` (``order``: its place in merge order)."""

    order: int
    new_id: int
    pair: tuple[int, int] | None  # None: a whole-chunk lookup
    at: int  # index in the chunk's ids where the new token lands
    width: int  # how many ids it replaces (2 for a merge)


@dataclass(frozen=True, slots=True)
class StepNodes:
    """Every token a stretch of a replayed text holds at some step, for a player that filters by step.

    Parallel tuples sorted by byte offset, longest first (the layout of :class:`bpe.replay.Replay`, in
    steps instead of merge ranks): node ``i`` is token ``ids[i]`` at byte ``start[i]`` of :attr:`text`, on
    screen from step ``made[i] + 1`` to step ``parent[i]`` (``made`` -1: a byte or a special token;
    ``parent`` = the number of steps when nothing consumes it). A node made and consumed by the same step
    (a cascade) has ``parent == made``: never on screen. ``chunk_starts``: byte offsets (in :attr:`text`,
    not 0) where a pre-tokenizer chunk or a special token starts. :attr:`first_byte`: where :attr:`text`
    starts in the replayed text.
    """

    text: str
    first_byte: int
    start: tuple[int, ...]
    ids: tuple[int, ...]
    made: tuple[int, ...]
    parent: tuple[int, ...]
    special: tuple[bool, ...]
    chunk_starts: frozenset[int]
    n_bytes: int

    def tokens_at(self, k: int) -> list[tuple[int, int, bool]]:
        """``(id, byte offset in text, is special)`` of the nodes on screen at step ``k``."""
        return [
            (i, s, sp)
            for i, s, sp, m, p in zip(self.ids, self.start, self.special, self.made, self.parent)
            if m < k <= p
        ]


def running_max(values: Sequence[int]) -> list[int]:
    """The greatest value so far, at each position."""
    out, best = [], -1
    for v in values:
        best = v if v > best else best
        out.append(best)
    return out


def chunk_events(tok: Tokenizer, chunk: str) -> tuple[Event, ...]:
    """Every merge the tokenizer makes on one chunk, in the order it makes them."""
    events: list[Event] = []
    if tok.mode == "ranks":
        ranks = tok._ranks
        data = chunk.encode("utf-8")
        parts = [data[i : i + 1] for i in range(len(data))]
        while len(parts) > 1:
            best_i, best = -1, None
            for i in range(len(parts) - 1):
                r = ranks.get(parts[i] + parts[i + 1])
                if r is not None and (best is None or r < best):
                    best_i, best = i, r
            if best is None:
                break
            events.append(Event(best, best, (ranks[parts[best_i]], ranks[parts[best_i + 1]]), best_i, 2))
            parts[best_i : best_i + 2] = [parts[best_i] + parts[best_i + 1]]
        whole = ranks.get(data)
        if whole is not None and len(parts) > 1:
            events.append(Event(whole, whole, None, 0, len(parts)))
        return tuple(events)
    ids = tok._base_ids(chunk)
    rank = tok._rank
    while len(ids) > 1:
        found = [(rank[p], i) for i, p in enumerate(zip(ids, ids[1:])) if p in rank]
        if not found:
            break
        r, i = min(found)
        new = tok._merge_result[r]
        events.append(Event(r, new, (ids[i], ids[i + 1]), i, 2))
        ids[i : i + 2] = [new]
    if tok.ignore_merges:
        whole = tok._ids_by_token.get(chunk.encode("utf-8") if tok.level == "byte" else chunk)
        if whole is not None and ids != [whole]:
            # Hugging Face's ignore_merges: the whole chunk wins; shown as a final lookup at the order of the
            # merge that makes that token (after every merge if none does)
            order = merge_order(tok).get(whole, len(tok.merges))
            events.append(Event(order, whole, None, 0, len(ids)))
    return tuple(events)


def check_spelled(tok: Tokenizer, segment: str, chunks: list[str]) -> None:
    """Refuse (``ValueError``) a char-level tokenizer whose tokens would not spell ``segment``'s text: the
    player lays the tokens on the text, byte by byte."""
    if tok.pipeline is not None:
        probe = "a b  c,\td\n"  # (whatever the text: a pipeline that drops spaces is refused on every text)
        seen = [tok.pipeline.normalize(t) for t in (segment, probe)]
        kept = ["".join(c) for c in (chunks, tok.pipeline.chunks([probe])[0])]
        if any(
            k.replace("\u2581", " ").lstrip(" ") != n.replace("\u2581", " ").lstrip(" ") for k, n in zip(kept, seen)
        ):
            steps = ", ".join(tok.pipeline.steps) or "its pre-tokenizer"
            raise ValueError(
                f"This tokenizer cannot be replayed: its pipeline ({steps}) drops characters of the text (such as the spaces "
                "between words), so its tokens do not spell your text. The replay plays byte-level tokenizers and "
                "SentencePiece-style ones (spaces kept as ▁, e.g. Metaspace with byte fallback)."
            )
    for chunk in chunks:
        try:
            ids = tok._base_ids(chunk)
        except ValueError as exc:  # an unseen character, and neither byte fallback nor an unknown token
            raise ValueError(f"This tokenizer cannot be replayed on this text: {exc}") from None
        spelled = b"".join(tok.token_bytes(i) for i in ids)
        if spelled == chunk.encode("utf-8"):
            continue
        unknown = [c for c in chunk if tok.unk_id is not None and tok._base_ids(c) == [tok.unk_id]]
        if unknown:
            why = (
                f"the character {unknown[0]!r} (U+{ord(unknown[0]):04X}) is not in its vocabulary and it has no "
                f"byte fallback: it becomes the unknown token {tok.unk_token!r}"
            )
        else:
            why = (
                "its tokens are not spelled like the text (a continuing-subword prefix or end-of-word suffix, "
                "or characters it drops)"
            )
        raise ValueError(
            f"This tokenizer cannot be replayed on this text: {why}, so its tokens do not spell your text. "
            "The replay plays byte-level tokenizers and SentencePiece-style ones with byte fallback."
        )
