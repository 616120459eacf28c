"""A replayed text (:class:`bpe.replay.Replay`) as drawable token spans.

The library replays a run on a text and gives each token at a step as ``(id, byte offset, special)``; this
turns them into :class:`views.spans.Span` objects for :func:`views.spans.render_spans`.

>>> import bpe
>>> from bpe.replay import MergeIndex, Replay
>>> run = bpe.train("aaabdaaabac", 258, pattern=None)
>>> [(s.data, s.start) for s in replay_spans(Replay.build(run, MergeIndex(run), "aaab"), 2)]
[(b'aa', 0), (b'ab', 2)]
"""

from __future__ import annotations

from bpe.replay import Replay

from .spans import Span

__all__ = ["replay_spans"]


def replay_spans(rep: Replay, k: int) -> list[Span]:
    """The text's tokens after the first ``k`` merges, as spans (byte offsets within the text)."""
    data = rep.index.data
    return [Span(i, data(i), start, special) for i, start, special in rep.tokens_at(k)]
