"""An exact encoder of another shape, measured against ours: ``python -m bench.backtrack_probe [VOCAB] [TEXT]``.

Issue 36's eighth pass. tiktoken's rule merges the lowest-ranked pair until none is left
(:mod:`bpe.rank_merge`: ~8 merges a chunk of English, each a ``min``, an ``index``, three ``del`` and two
look-ups). Another way to the same ids, from GitHub's ``bpe`` crate ("So many tokens, so little time"; the
idea learnt, this code our own): take the longest token at the start, then the longest after it, and keep a
token only if it *fits* the one before — the rule alone on their two tokens' bytes gives those two tokens
back. A sequence in which every neighbouring pair fits is the rule's output (the crate's claim; checked here
chunk for chunk); when no token fits, the last one is taken back (a place found to lead nowhere is
remembered).

Whether a pair fits is read from each token's last merge (its split, from the rule run on the token's own
bytes): undo the later of the two tokens' last merges, one at a time; the pair fits if at no stage the two
innermost parts make a token ranked below the merge that undoes that stage. That needs the rule's merges in
a token to come in rising rank order and every token to be its own bytes' result (checked, and true for
every token of ``cl100k_base`` and ``o200k_base``). The longest token tried at a place is bounded by the longest
token starting with the place's two bytes (a table of 65,536).

What it measures: the distinct chunks of a text that never repeats which are not one token (what a cold
encode merges), through both encoders; ids compared, CPU time interleaved (medians), and how many dict
look-ups each makes a chunk. The split table is built here for every token (~4 s; a real encoder would have
to ship it).

>>> probe = Backtrack({b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"bc": 4, b"abc": 5})
>>> probe.encode(b"abcab"), probe.encode(b"cab")
([5, 3], [2, 3])
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from typing import Mapping

import bpe
from bpe.merging import _NO_RANK
from bpe.rank_merge import RankMerge
from bpe.splitting import pretokenize
from testkit import distinct_corpora

from .conditions import load_average


class Backtrack:
    """The longest tokens that fit, with backtracking; ``ranks`` token bytes -> rank (= id)."""

    def __init__(self, ranks: Mapping[bytes, int]):
        self.ranks = ranks
        n = max(ranks.values()) + 1
        self.bytes_of = [b""] * n
        for token, rank in ranks.items():
            self.bytes_of[rank] = token
        self.left = list(range(n))  # a token's last merge: its left part (itself for a byte)
        self.right = list(range(n))
        unusable = [rank for rank, token in enumerate(self.bytes_of) if len(token) > 1 and not self._split(rank, token)]
        if unusable:
            raise ValueError(f"{len(unusable)} tokens are not their own bytes' result or merge out of rank order")
        self.longest = max(map(len, self.bytes_of))
        self.reach = [1] * 65536  # the longest token starting with two given bytes (1: none)
        for token in self.bytes_of:
            if len(token) > 1:
                k = token[0] << 8 | token[1]
                self.reach[k] = max(self.reach[k], len(token))
        self.lookups = 0

    def _split(self, rank: int, token: bytes) -> bool:
        parts = [token[i : i + 1] for i in range(len(token))]
        last_rank, cut = -1, 0
        while len(parts) > 1:
            pair_ranks = [self.ranks.get(a + b, _NO_RANK) for a, b in zip(parts, parts[1:])]
            best = min(pair_ranks)
            if best == _NO_RANK:
                break
            if best < last_rank:
                return False
            last_rank, i = best, pair_ranks.index(best)
            cut = len(parts[i])
            parts[i : i + 2] = [parts[i] + parts[i + 1]]
        if parts != [token]:
            return False
        self.left[rank], self.right[rank] = self.ranks[token[:cut]], self.ranks[token[cut:]]
        return True

    def fits(self, t1: int, t2: int) -> bool:
        """Whether the rule on ``t1``'s and ``t2``'s bytes together gives ``[t1, t2]``."""
        limit = _NO_RANK
        get, left, right, bytes_of = self.ranks.get, self.left, self.right, self.bytes_of
        while True:
            self.lookups += 1
            joined = get(bytes_of[t1] + bytes_of[t2])
            if joined is not None and joined < limit:
                return False
            if t1 > t2:  # t1's last merge came later: before it, its right part stood there
                limit, t1 = t1, right[t1]
                if t1 == limit:
                    limit, t2 = t2 + 1, left[t2]
                    if t2 + 1 == limit:
                        return True
            else:
                limit, t2 = t2 + 1, left[t2]
                if t2 + 1 == limit:
                    limit, t1 = t1, right[t1]
                    if t1 == limit:
                        return True

    def encode(self, data: bytes) -> list[int]:
        """The rule's ids for one chunk's bytes."""
        n, pos, get, reach = len(data), 0, self.ranks.get, self.reach
        out: list[int] = []
        ends = [0]
        dead: set[int] = set()
        end = min(n, reach[data[0] << 8 | data[1]]) if n > 1 else n
        while pos < n:
            while end > pos:
                self.lookups += 1
                token = get(data[pos:end])
                if token is not None and end not in dead and (not out or self.fits(out[-1], token)):
                    break
                end -= 1
            else:  # nothing fits here: take the last token back, try it shorter
                dead.add(pos)
                out.pop()
                ends.pop()
                end, pos = pos - 1, ends[-1]
                continue
            out.append(token)
            ends.append(end)
            pos = end
            end = min(n, pos + reach[data[pos] << 8 | data[pos + 1]]) if pos + 1 < n else n
        return out


def _cpu(fn) -> float:
    gc.disable()
    start = time.process_time()
    fn()
    spent = time.process_time() - start
    gc.enable()
    return spent


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.backtrack_probe", description=__doc__.splitlines()[0])
    ap.add_argument("vocabulary", nargs="?", default="o200k_base")
    ap.add_argument("text", nargs="?", default="english", choices=["english", "multilingual"])
    ap.add_argument("--mb", type=float, default=None, help="text size (10 for English, 1 multilingual)")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)
    size = int((args.mb or (10 if args.text == "english" else 1)) * 1e6)
    tok = bpe.load_pretrained(args.vocabulary)
    ranks = tok.ranks
    start = time.process_time()
    probe = Backtrack(ranks)
    print(
        f"load average {load_average()}; split table for {len(ranks):,} tokens: {time.process_time() - start:.2f} s CPU"
    )
    text = distinct_corpora.english(size) if args.text == "english" else distinct_corpora.multilingual(size)
    datas = [c.encode() for c in dict.fromkeys(pretokenize(text, tok.pattern)) if c.encode() not in ranks]
    merge = RankMerge(ranks)
    differ = sum(probe.encode(d) != merge(d) for d in datas)
    print(
        f"{args.vocabulary}, {args.text} {size:,} bytes: {len(datas):,} distinct chunks to merge, "
        f"{sum(map(len, datas)) / len(datas):.1f} bytes each; ids differing from the rule's: {differ}"
    )
    counted = _Counted(ranks)
    RankMerge.__call__(_with_ranks(merge, counted), datas[0])  # warm the counting path
    counted.n = 0
    loop = _with_ranks(merge, counted)
    for d in datas:
        RankMerge.__call__(loop, d)
    probe.lookups = 0
    for d in datas:
        probe.encode(d)
    print(
        f"dict look-ups a chunk: the merge loop {counted.n / len(datas):.1f}, "
        f"longest-that-fits {probe.lookups / len(datas):.1f}"
    )
    times: dict[str, list[float]] = {"merge loop (bpe.rank_merge)": [], "longest that fits": []}
    for r in range(args.rounds):
        sides = [("merge loop (bpe.rank_merge)", merge), ("longest that fits", probe.encode)]
        for name, fn in sides if r % 2 == 0 else sides[::-1]:
            times[name].append(_cpu(lambda fn=fn: [fn(d) for d in datas]))
    for name, runs in times.items():
        print(
            f"  {name:30s} {statistics.median(runs):.3f} s CPU (median of {args.rounds}: "
            f"{', '.join(f'{t:.3f}' for t in runs)})"
        )
    print(f"load average {load_average()}")
    return 0


class _Counted(dict):
    """A ranks dict whose ``get`` counts (to count the merge loop's look-ups)."""

    def __init__(self, ranks: Mapping[bytes, int]):
        super().__init__(ranks)
        self.n = 0

    def get(self, key, default=None):  # type: ignore[override]
        self.n += 1
        return super().get(key, default)


def _with_ranks(merge: RankMerge, ranks: Mapping[bytes, int]) -> RankMerge:
    clone = object.__new__(RankMerge)
    clone.__dict__.update(merge.__dict__)
    clone._ranks = ranks
    return clone


if __name__ == "__main__":
    raise SystemExit(main())
