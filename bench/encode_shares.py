"""How much of a cold multilingual encode is left once non-ASCII merging is set aside:
``python -m bench.encode_shares [VOCAB] [ROUNDS]``.

In one process, each round cold (the chunk cache, the pieces and the boundary verdicts forgotten), CPU time
with the collector off, medians: the whole ``encode_ordinary`` of 1 MB of multilingual text that never
repeats (:mod:`testkit.distinct_corpora`), then its parts alone — the pre-tokenizer, the whole-chunk look-up of
every distinct chunk, the merges of the distinct chunks that are not one token, ASCII and non-ASCII apart.
What the encode costs beyond the non-ASCII merges is what no faster merge loop can remove.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time

import bpe
from bpe.splitting import pretokenize
from testkit import distinct_corpora

from .conditions import load_average


def shares(vocab: str, rounds: int) -> dict[str, float]:
    tok = bpe.load_pretrained(vocab)
    text = distinct_corpora.multilingual(1_000_000)
    merge, ranks = tok._rank_merge, tok._ranks
    res: dict[str, list[float]] = {}

    def timed(label: str, fn):
        gc.collect()
        gc.disable()
        t = time.process_time()
        out = fn()
        res.setdefault(label, []).append(time.process_time() - t)
        gc.enable()
        return out

    for _ in range(rounds):
        tok._cache.clear()
        merge.forget()
        timed("encode cold", lambda: tok.encode_ordinary(text))
        chunks = timed("  pre-tokenizer", lambda: pretokenize(text, tok.pattern))
        distinct = list(dict.fromkeys(chunks))
        timed("  whole-chunk look-ups (distinct)", lambda d=distinct: [ranks.get(c.encode()) for c in d])
        to_merge = [c for c in distinct if c.encode() not in ranks]
        other = [c for c in to_merge if not c.isascii()]
        ascii_ = [c for c in to_merge if c.isascii()]
        merge.forget()
        timed("  merges, non-ASCII chunks (cold pieces)", lambda o=other: [merge.merged(c) for c in o])
        timed("  merges, ASCII chunks", lambda a=ascii_: [merge.merged(c) for c in a])
    med = {k: statistics.median(v) for k, v in res.items()}
    print(
        f"{vocab}: {len(chunks):,} chunks, {len(distinct):,} distinct, {len(other):,} non-ASCII and "
        f"{len(ascii_):,} ASCII to merge; CPU s, medians of {rounds}:"
    )
    for k, v in med.items():
        print(f"  {k:42s} {v:6.3f}  {[round(x, 3) for x in res[k]]}")
    rest = med["encode cold"] - med["  merges, non-ASCII chunks (cold pieces)"]
    print(f"  {'the encode without its non-ASCII merges':42s} {rest:6.3f}")
    return med


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("vocab", nargs="?", default="o200k_base")
    ap.add_argument("rounds", nargs="?", type=int, default=5)
    args = ap.parse_args(argv)
    print(f"load average {load_average()}")
    shares(args.vocab, args.rounds)
    print(f"load average {load_average()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
