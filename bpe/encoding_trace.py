"""How a :class:`bpe.Tokenizer` shows its work: a text's tokens as strings (:meth:`TraceAPI.encode_pieces`)
and one chunk's encoding merge by merge (:meth:`TraceAPI.encode_trace`). :class:`TraceAPI` is a mixin of
:class:`bpe.Tokenizer`, like :class:`bpe.encoding_api.EncodingAPI`."""

from __future__ import annotations

from abc import abstractmethod
from typing import TYPE_CHECKING

from .corpus import check_text
from .merging import TraceStep, trace_merges, trace_ranks
from .splitting import pretokenize
from .visible import normalize_text

if TYPE_CHECKING:
    from .hf_pipeline import Pipeline
    from .patterns import Pattern

__all__ = ["TraceAPI"]


class TraceAPI:
    """:meth:`encode_pieces` and :meth:`encode_trace`, on top of :class:`bpe.Tokenizer`'s own."""

    if TYPE_CHECKING:  # what the tokenizer provides
        mode: str
        level: str
        pattern: Pattern | None
        normalize: str | None
        pipeline: Pipeline | None
        merges: dict[tuple[int, int], int]
        ignore_merges: bool
        fuse_unk: bool
        unk_id: int | None
        _rank: dict[tuple[int, int], int]
        _ranks: dict[bytes, int]
        _ids_by_token: dict[bytes | str, int]

        @abstractmethod
        def encode_ordinary(self, text: str) -> list[int]:
            """(the tokenizer's)"""

        @abstractmethod
        def token_text(self, token_id: int) -> str:
            """(the tokenizer's)"""

        @abstractmethod
        def _merge_ids(self, ids: list[int]) -> list[int]:
            """(the tokenizer's)"""

        @abstractmethod
        def _base_ids(self, chunk: str, unknown: dict[int, str] | None = None) -> list[int]:
            """(the tokenizer's)"""

    def encode_pieces(self, text: str) -> list[str]:
        """The text's tokens as strings (char level) or GPT-2 visible strings (byte level).

        At char level, characters the alphabet lacks stay as pieces of their own instead of raising:
        how the tutorials show an unseen word falling back to smaller pieces. With an ``unk_token`` the
        pieces line up with :meth:`encode`'s ids (an unknown piece is the text the unknown id stands for).

        >>> from bpe import train
        >>> tok = train({"ab": 3}, 3, level="char").tokenizer()
        >>> tok.encode_pieces("aby")
        ['ab', 'y']
        """
        if self.level == "byte" or self.mode == "ranks" or self.pipeline is not None:
            return [self.token_text(i) for i in self.encode_ordinary(text)]
        text = normalize_text(text, self.normalize)
        pieces: list[str] = []
        for chunk in pretokenize(text, self.pattern):
            unknown: dict[int, str] = {}
            ids = self._merge_ids(self._base_ids(chunk, unknown))
            for n, i in enumerate(ids):
                if i >= 0:
                    pieces.append(self.token_text(i))
                elif self.fuse_unk and self.unk_id is not None and n and ids[n - 1] < 0:
                    pieces[-1] += unknown[i]  # one unknown token for the run, as encode() gives
                else:
                    pieces.append(unknown[i])
        return pieces

    def encode_trace(self, chunk: str) -> list[TraceStep]:
        """How one chunk is encoded, merge by merge.

        The first step holds the base tokens; each later step names the pair merged, the new id, its rank
        and where the new tokens sit. The last step's ids equal ``encode_ordinary(chunk)`` when the chunk is
        one pre-tokenizer chunk.

        >>> from bpe import train
        >>> tok = train("aaabdaaabac", 258, pattern=None).tokenizer()
        >>> [(s.ids, s.pair) for s in tok.encode_trace("aaab")]
        [((97, 97, 97, 98), None), ((256, 97, 98), (97, 97)), ((256, 257), (97, 98))]
        """
        check_text(chunk)
        chunk = normalize_text(chunk, self.normalize)
        if self.mode == "ranks":
            return trace_ranks(chunk.encode("utf-8"), self._ranks)
        steps = trace_merges(self._base_ids(chunk), self.merges, self._rank)
        if self.ignore_merges:
            whole = self._ids_by_token.get(chunk.encode("utf-8") if self.level == "byte" else chunk)
            if whole is not None and steps[-1].ids != (whole,):
                # looked up whole before merging (ignore_merges): that shortcut wins over the merge path
                steps.append(TraceStep((whole,), None, whole, None, (0,)))
        return steps
