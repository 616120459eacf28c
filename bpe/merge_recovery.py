"""A vocabulary's merges, recovered: the pair that makes each token, for tokenizers that store only ranks.

A tiktoken vocabulary (GPT-4's ``cl100k_base``, Llama 3, Qwen, tekken) stores no merge list, only a rank per
token. :func:`recover_pair` finds a token's pair the way minbpe's ``recover_merges`` does: run BPE on the
token's own bytes using only lower-ranked tokens; the two parts left are its pair. :func:`recover_merges`
does it for every token, once per tokenizer. A merge-list tokenizer simply gives its list.
:mod:`bpe.vocab_replay` replays them on a text; :mod:`bpe.formats` writes them as a merge list.

>>> import bpe
>>> tok = bpe.train("aaabdaaabac", 258, pattern=None).tokenizer()   # Wikipedia's example: aa, then ab
>>> recover_pair(tok, 256), recover_pair(tok, 257), recover_pair(tok, 97)
((97, 97), (97, 98), None)
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass

from .merging import lower_rank_parts
from .tokenizer import Tokenizer

__all__ = ["RecoveredMerge", "recover_pair", "recover_merges", "merge_order"]


@dataclass(frozen=True, slots=True)
class RecoveredMerge:
    """Merge number ``order`` joins ``pair`` (two token ids) into ``new_id``."""

    order: int
    pair: tuple[int, int]
    new_id: int


def recover_pair(tok: Tokenizer, token_id: int) -> tuple[int, int] | None:
    """The pair that makes ``token_id``: the learned pair (merge-list tokenizers) or, for a ranks
    (tiktoken) vocabulary, the two parts left by BPE on its bytes with lower ranks only. ``None`` for a
    single byte or a special token, or a token that no two lower-ranked tokens make.

    >>> import bpe
    >>> tok = bpe.load_pretrained("cl100k_base")
    >>> [tok.token_bytes(i) for i in recover_pair(tok, tok.encode(" hello")[0])]
    [b' h', b'ello']
    """
    if tok.is_special(token_id):
        return None
    if tok.mode == "merges":
        return _merge_pairs(tok).get(token_id)
    token = tok.token_bytes(token_id)
    if len(token) < 2:
        return None
    parts = lower_rank_parts(tok._ranks, token, token_id)
    if len(parts) != 2:
        return None
    return tok._ranks[parts[0]], tok._ranks[parts[1]]


_pairs_cache: "weakref.WeakKeyDictionary[Tokenizer, dict[int, tuple[int, int]]]" = weakref.WeakKeyDictionary()
_merges_cache: "weakref.WeakKeyDictionary[Tokenizer, tuple[RecoveredMerge, ...]]" = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def merge_order(tok: Tokenizer) -> dict[int, int]:
    """new id -> the rank of the merge that makes it, for a merge-list tokenizer.

    >>> import bpe
    >>> merge_order(bpe.train("aaabdaaabac", 258, pattern=None).tokenizer())
    {256: 0, 257: 1}
    """
    return {new: r for r, new in enumerate(tok.merges.values())}


def _merge_pairs(tok: Tokenizer) -> dict[int, tuple[int, int]]:
    with _lock:
        found = _pairs_cache.get(tok)
        if found is None:
            found = _pairs_cache[tok] = {new: pair for pair, new in tok.merges.items()}
    return found


def recover_merges(tok: Tokenizer) -> tuple[RecoveredMerge, ...]:
    """Every merge of ``tok`` in order: its merge list, or one merge per multi-byte token of a ranks
    (tiktoken) vocabulary, recovered as :func:`recover_pair` does (minbpe's ``recover_merges``).

    Computed once per tokenizer (a few seconds for a 200,000-token vocabulary). Raises ``ValueError`` if a
    token cannot be made from two lower-ranked ones (then it is no BPE vocabulary).

    >>> import bpe
    >>> merges = recover_merges(bpe.load_pretrained("cl100k_base"))
    >>> len(merges), merges[0]
    (100000, RecoveredMerge(order=256, pair=(220, 220), new_id=256))
    """
    with _lock:
        done = _merges_cache.get(tok)
    if done is not None:
        return done
    if tok.mode == "merges":
        out = tuple(RecoveredMerge(r, pair, new) for r, (pair, new) in enumerate(tok.merges.items()))
    else:
        ranks = tok._ranks
        merges = []
        for token, rank in sorted(ranks.items(), key=lambda kv: kv[1]):
            if len(token) == 1:
                continue
            parts = lower_rank_parts(ranks, token, rank)
            if len(parts) != 2:
                raise ValueError(f"token {rank} ({token!r}) cannot be built from two lower-ranked tokens")
            merges.append(RecoveredMerge(rank, (ranks[parts[0]], ranks[parts[1]]), rank))
        out = tuple(merges)
    with _lock:
        _merges_cache[tok] = out
    return out
