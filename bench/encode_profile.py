"""Where a cold encode's time goes: ``python -m bench.encode_profile [VOCAB] [english|multilingual] [MB]``.

Splits one cold ``encode_ordinary`` of a text that never repeats (:mod:`testkit.distinct_corpora`) into the
steps the tokenizer takes — the pre-tokenizer (:mod:`bpe.fast_split`; ``regex.findall`` of the same pattern
beside it), looking every chunk up in a full chunk cache,
encoding the distinct chunks alone — in CPU time (``time.process_time``: steadier than wall time on a shared
machine), medians of ``--rounds``; then a cProfile of one cold encode, timed in CPU time too (relative costs).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import statistics
import time

import regex

import bpe
from bpe.splitting import pretokenize
from testkit import distinct_corpora

from .conditions import load_average


def breakdown(vocab: str, text: str, rounds: int) -> dict[str, float]:
    tok = bpe.load_pretrained(vocab)
    pat = regex.compile(tok.pattern.regex)
    res: dict[str, list[float]] = {}

    def timed(label: str, fn):
        t = time.process_time()
        out = fn()
        res.setdefault(label, []).append(time.process_time() - t)
        return out

    for _ in range(rounds):
        _forget(tok)
        gc.collect()
        timed("encode cold", lambda: tok.encode_ordinary(text))
        timed("  regex.findall (for comparison)", lambda: pat.findall(text))
        chunks = timed("  pre-tokenizer (bpe.fast_split)", lambda: pretokenize(text, tok.pattern))
        timed("  lookups in a full cache", lambda chunks=chunks: tok._cache.encode_all(chunks))
        distinct = list(dict.fromkeys(chunks))
        _forget(tok)
        gc.collect()
        timed("  encoding the distinct chunks alone", lambda distinct=distinct: tok._cache.encode_all(distinct))
    merged = sum(c.encode("utf-8") not in tok.ranks for c in distinct)
    print(
        f"{vocab}: {len(text.encode('utf-8')):,} bytes, {len(chunks):,} chunks, {len(distinct):,} distinct, "
        f"{merged:,} of them not one token (merged); CPU s, medians of {rounds}:"
    )
    med = {k: statistics.median(v) for k, v in res.items()}
    for k, v in med.items():
        print(f"  {k:38s} {v:7.3f}  {[round(x, 2) for x in res[k]]}")
    tok._cache.clear()
    return med


def _forget(tok) -> None:
    """Back to a cold start: the chunk cache, and the merged pieces and judged boundaries of the ranks rule."""
    tok._cache.clear()
    if getattr(tok, "_rank_merge", None) is not None:
        tok._rank_merge.forget()


def profile(vocab: str, text: str, top: int) -> None:
    tok = bpe.load_pretrained(vocab)
    _forget(tok)
    pr = cProfile.Profile(time.process_time)  # CPU time: the load's waiting is not charged to a function
    pr.enable()
    tok.encode_ordinary(text)
    pr.disable()
    pstats.Stats(pr).sort_stats("tottime").print_stats(top)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.encode_profile", description=__doc__.splitlines()[0])
    ap.add_argument("vocab", nargs="?", default="cl100k_base")
    ap.add_argument("text", nargs="?", default="english", choices=["english", "multilingual"])
    ap.add_argument("mb", nargs="?", type=float, default=None, help="default: 10 (English), 1 (multilingual)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--top", type=int, default=12, help="cProfile rows (0: no profile)")
    args = ap.parse_args(argv)
    mb = args.mb if args.mb is not None else (10.0 if args.text == "english" else 1.0)
    text = getattr(distinct_corpora, args.text)(int(mb * 1e6))
    print(f"load average {load_average()}")
    breakdown(args.vocab, text, args.rounds)
    if args.top:
        profile(args.vocab, text, args.top)
    print(f"load average {load_average()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
