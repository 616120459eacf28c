"""Spike: can the ranks-rule merge loop be made ~2x faster on multilingual text, exactly? (a finding, not a test)

Issue 12 asks encoding 1 MB of multilingual text to cost at most 3.0x (cl100k) / 3.5x (o200k) tiktoken's time,
cold. Measured on main at d452ad4 (bench_encode, load 1.8-2.3): 5.0x and 6.6x. Our warm run (every chunk
cached) already takes about tiktoken's whole time (0.07 s), so the targets need the merges of the unique
chunks (cl100k: 25,456 chunks that are not one token, 374 KB, ~275,000 merges; o200k: 21,631, 358 KB) to
cost at most ~2x tiktoken's whole time: 2-2.4x less than now (~10.5 / ~13 us per chunk here, ~1 us per merge:
``min`` + ``index`` + two dict lookups + two deletions, almost all interpreter overhead).

This script runs each idea below on those chunks (process CPU time, medians of rounds interleaved between the
variants, every output checked equal to :func:`bpe.merging.apply_ranks`):

    python -m bench.spikes.multilingual_merge [--vocabulary o200k_base] [--rounds 7]

Findings (2-core machine at load 4-8, so provisional; CPU time per chunk, median):

* **tight** -- the same loop with C-level ``map`` chains for the first round, a sentinel instead of the empty
  check and ``try`` for the right neighbour: 10.9 vs 10.9 us (cl100k), 16.4 vs 16.1 us (o200k). No gain: the
  cost is one interpreter round per merge, not the set-up.
* **pieces** -- cut the chunk where two neighbouring bytes occur next to each other in *no* token (no merge can
  ever join them: every merge makes a token), encode the pieces separately and cache them. Exact. cl100k has
  only 6,611 such byte pairs inside tokens, so CJK/kana/hangul chunks cut at ~half their character
  boundaries; the unique pieces alone cost half the chunks' merging (0.21 vs 0.43 s), but finding the cuts
  (a 65,536-entry table over the byte pairs, 50 ms to build at load) and the piece cache eat most of it:
  9.9 vs 10.9 and 10.7 vs 12.4 us in two runs (-9 to -14 %), for 60 ms more per load. o200k has 10,439
  byte pairs inside tokens: almost no cut, 15.7 vs 13.3 us (+18 %).
* **chars** -- merge each multi-byte character alone (cached per character), then run the loop on the
  characters' tokens; exact only if no pair across two characters (any state of the left one's last part and
  the right one's first part) ranks below the highest merge inside any character of the chunk, else fall back.
  That holds for 27 % of the non-ASCII chunks (a leading space's ``" \\xd0"`` ranks 1,301 in cl100k, common
  bigrams such as "ет" or "ال" rank below rare letters): slower overall. A per-boundary condition is not
  enough (a finished neighbour may already have merged further, into a token the check never saw). Measured:
  15.1 vs 12.4 us (+22 %).
* **compatible pairs** -- a split is the BPE encoding iff every two neighbouring tokens re-encode to
  themselves (github/rust-gems ``bpe``, Corollary IIIa), so a guess could be verified with a cached pair check.
  But the distinct neighbouring pairs of the final encodings (cl100k 39,392 pairs, 249 KB; o200k 36,694, 321
  KB) hold about as many bytes as the chunks themselves: cold, checking them costs what merging does.

So none of these gets the 2x, exactly, in pure Python; the remaining routes are a process per core (then
bench_encode reports tiktoken's threaded batch too, which is ~2x faster on two cores, so the comparison does
not improve) or a linear-time encoder (rust-gems' backtracking with an Aho-Corasick automaton over the
vocabulary: too costly to build per load in Python).
"""
from __future__ import annotations

import argparse
import statistics
import time
from itertools import repeat
from operator import lshift, or_

import bpe
from bpe.merging import _NO_RANK, LONG_CHUNK, apply_ranks, merge_by_rank, merge_parts
from bpe.splitting import pretokenize
from testkit import corpora

_SINGLE = [bytes([b]) for b in range(256)]


def tight(ranks, table):
    get, sg, tg, no = ranks.get, _SINGLE.__getitem__, table.__getitem__, _NO_RANK

    def encode(data: bytes) -> list[bytes]:
        parts = list(map(sg, data))
        if len(parts) > LONG_CHUNK:
            return merge_by_rank(parts, lambda a, b: get(a + b), lambda a, b, _rank: a + b)
        pr = list(map(tg, map(or_, map(lshift, data[:-1], repeat(8)), data[1:])))
        pr.append(no)  # sentinel: min() never sees an empty list
        best = min(pr)
        while best != no:
            i = pr.index(best)
            parts[i] += parts[i + 1]
            del parts[i + 1]
            del pr[i]
            if i:
                pr[i - 1] = get(parts[i - 1] + parts[i], no)
            try:
                pr[i] = get(parts[i] + parts[i + 1], no)
            except IndexError:
                pass
            best = min(pr)
        return parts
    return encode


def pieces(ranks, table):
    big = b"\x00".join(ranks)  # byte pairs inside tokens; pairs with a 0 byte redone token by token
    inside = {p for p in map(or_, map(lshift, big[:-1], repeat(8)), big[1:]) if p >> 8 and p & 255}
    for tok in ranks:
        if 0 in tok:
            inside.update(a << 8 | b for a, b in zip(tok, tok[1:]))
    hard_table = bytearray(b"\x01") * 65536
    for p in inside:
        hard_table[p] = 0
    hard = bytes(hard_table).__getitem__
    cache: dict[bytes, list[bytes]] = {}

    def encode(data: bytes) -> list[bytes]:
        flags = bytes(map(hard, map(or_, map(lshift, data[:-1], repeat(8)), data[1:])))
        cut = flags.find(1)
        if cut < 0:
            return apply_ranks(data, ranks, table)
        out: list[bytes] = []
        start = 0
        while True:
            end = len(data) if cut < 0 else cut + 1
            piece = data[start:end]
            ids = cache.get(piece)
            if ids is None:
                ids = cache[piece] = apply_ranks(piece, ranks, table)
            out += ids
            if cut < 0:
                return out
            start = end
            cut = flags.find(1, end)
    encode.reset = cache.clear
    return encode


def chars(ranks, table):
    get = ranks.get
    char_info: dict[str, tuple] = {}
    cross: dict[str, int] = {}

    def info(ch: str) -> tuple:
        parts = [bytes([b]) for b in ch.encode("utf-8")]
        right, left, top = {parts[-1]}, {parts[0]}, -1
        while len(parts) > 1:
            found = [(r, i) for i in range(len(parts) - 1) if (r := get(parts[i] + parts[i + 1])) is not None]
            if not found:
                break
            r, i = min(found)
            top = max(top, r)
            parts[i:i + 2] = [parts[i] + parts[i + 1]]
            right.add(parts[-1])
            left.add(parts[0])
        out = char_info[ch] = (parts, top, tuple(right), tuple(left))
        return out

    def cross_rank(two: str) -> int:
        a, b = char_info[two[0]], char_info[two[1]]
        out = cross[two] = min((get(left + right, _NO_RANK) for left in a[2] for right in b[3]), default=_NO_RANK)
        return out

    def encode(data: bytes) -> list[bytes]:
        text = data.decode("utf-8")
        if text.isascii():
            return apply_ranks(data, ranks, table)
        top, parts = -1, []
        for ch in text:
            inf = char_info.get(ch) or info(ch)
            parts += inf[0]
            top = max(top, inf[1])
        for i in range(len(text) - 1):
            two = text[i:i + 2]
            x = cross.get(two)
            if (cross_rank(two) if x is None else x) <= top:
                return apply_ranks(data, ranks, table)
        return merge_parts(parts, ranks)  # the library's loop, on the characters' tokens
    return encode


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.spikes.multilingual_merge")
    parser.add_argument("--vocabulary", default="cl100k_base", choices=["cl100k_base", "o200k_base"])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    tok = bpe.load_pretrained(args.vocabulary)
    ranks, table = tok.ranks, tok._pair_table
    chunks = dict.fromkeys(pretokenize(corpora.multilingual(1_000_000), tok.pattern))
    data = [c.encode("utf-8") for c in chunks if c.encode("utf-8") not in ranks]
    print(f"{args.vocabulary}: {len(data):,} unique chunks that are not one token, {sum(map(len, data)):,} bytes")
    variants = {"current": lambda d: apply_ranks(d, ranks, table)}
    for name, make in (("tight", tight), ("pieces", pieces), ("chars", chars)):
        t0 = time.process_time()
        variants[name] = make(ranks, table)
        print(f"  {name}: built in {(time.process_time() - t0) * 1000:.0f} ms")
    expected = [variants["current"](d) for d in data]
    times: dict[str, list[float]] = {name: [] for name in variants}
    for name, encode in variants.items():
        assert [encode(d) for d in data] == expected, name
    for _ in range(args.rounds):
        for name, encode in variants.items():
            getattr(encode, "reset", lambda: None)()
            t0 = time.process_time()
            for d in data:
                encode(d)
            times[name].append(time.process_time() - t0)
    for name, ts in times.items():
        print(f"  {name:8} {statistics.median(ts) / len(data) * 1e6:6.2f} us per chunk (CPU, median of "
              f"{args.rounds}); same tokens as current: yes")


if __name__ == "__main__":
    main()
