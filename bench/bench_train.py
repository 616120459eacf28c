"""Training benchmark: our pure-Python trainer against HF ``tokenizers``, ``rustbpe`` and a naive trainer.

Everything in one run, on real corpora built offline (``bench/corpora.py``), byte level, GPT-4 pattern:

* 1 MB and 10 MB x vocab 4096 and 16384: whole-run seconds (best of a few runs) and ratios;
* ``pattern=None`` (the text is one chunk) on 1 MB -> 4096;
* the player's costs on 1 MB: time to the first merge, per-merge median and p99 (with top-k recording);
* the naive recount-every-merge trainer, capped: seconds per merge, extrapolated to the whole run.

The merges are also compared (ours with ``tie_break="hf"`` vs HF, ``"lexical"`` vs rustbpe) so a speed-up
that changed the result would show. Run: ``python -m bench.bench_train [--quick]``.
"""
from __future__ import annotations

import argparse
import gc
import json
import platform
import statistics
import sys
import time
from pathlib import Path

import bpe
from bpe.corpus import build_corpus
from bpe.formats import to_onig
from bpe.reference import train_reference
from bpe.trainer import MergeStream

from . import corpora

RESULTS = Path(__file__).resolve().parent / "results"


def best_of(fn, repeats: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeats):
        gc.collect()
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def hf_train(text: str, vocab_size: int):
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

    tk = Tokenizer(models.BPE())
    tk.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(to_onig(bpe.PATTERNS["gpt4"].regex)), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=0, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tk.train_from_iterator([text], trainer=trainer)
    return tk


def hf_merges(tk) -> list[tuple[str, str]]:
    merges = json.loads(tk.to_str())["model"]["merges"]
    return [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in merges]


def rustbpe_train(text: str, vocab_size: int, pattern: str = "gpt4_minbpe"):
    import rustbpe

    tk = rustbpe.Tokenizer()
    tk.train_from_iterator(iter([text]), vocab_size, pattern=bpe.PATTERNS[pattern].regex)
    return tk


def rustbpe_tokens(tk) -> list[bytes]:
    return [bytes(b) for b, r in sorted(tk.get_mergeable_ranks(), key=lambda x: x[1]) if r >= 256]


def our_visible_merges(run) -> list[tuple[str, str]]:
    return [(bpe.to_visible(run.token(a)), bpe.to_visible(run.token(b))) for a, b in (m.pair for m in run.merges)]


def player_costs(text: str, n_merges: int) -> dict:
    gc.collect()
    t0 = time.perf_counter()
    corpus = build_corpus(text, pattern="gpt4", level="byte")
    stream = MergeStream(corpus, n_merges, top_k=20)
    next(stream)
    first = time.perf_counter() - t0
    steps = []
    gc.freeze()
    try:
        while True:
            a = time.perf_counter()
            try:
                next(stream)
            except StopIteration:
                break
            steps.append(time.perf_counter() - a)
    finally:
        gc.unfreeze()
    steps.sort()
    return {"first_merge_ms": first * 1000, "step_median_ms": statistics.median(steps) * 1000,
            "step_p99_ms": steps[int(len(steps) * 0.99)] * 1000, "step_max_ms": steps[-1] * 1000,
            "steps": len(steps) + 1}


def naive_per_merge(text: str, merges: int) -> float:
    t0 = time.perf_counter()
    train_reference(text, merges, pattern="gpt4", tie_break="lexical")
    return (time.perf_counter() - t0) / merges


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1 MB only, one repeat")
    args = ap.parse_args(argv)
    sizes = [1_000_000] if args.quick else [1_000_000, 10_000_000]
    repeats = 1 if args.quick else 3
    rows = []
    print(f"python {platform.python_version()} on {platform.machine()}, bpe trainer vs HF tokenizers / rustbpe")
    print(f"{'corpus':>8} {'vocab':>6} {'ours s':>8} {'ours+top20':>10} {'HF s':>7} {'rustbpe':>8} "
          f"{'ours/HF':>8} {'ours/rust':>9} {'=HF':>4} {'=rust':>5}")
    for size in sizes:
        text = corpora.english(size) if size <= 4_000_000 else corpora.english_and_code(size)
        for vocab in (4096, 16384):
            reps = repeats if size <= 1_000_000 else max(1, repeats - 1)
            t_ours, run_hf = best_of(lambda: bpe.train(text, vocab, pattern="gpt4", tie_break="hf", top_k=0), reps)
            t_top, _ = best_of(lambda: bpe.train(text, vocab, pattern="gpt4", tie_break="hf"), 1)
            t_hf, hf = best_of(lambda: hf_train(text, vocab), reps)
            t_rust, rt = best_of(lambda: rustbpe_train(text, vocab), reps)
            run_lex = bpe.train(text, vocab, pattern="gpt4_minbpe", tie_break="lexical", top_k=0)
            same_hf = our_visible_merges(run_hf) == hf_merges(hf)
            same_rust = [m.token for m in run_lex.merges] == rustbpe_tokens(rt)
            row = dict(corpus_bytes=len(text.encode()), vocab=vocab, ours_s=t_ours, ours_topk_s=t_top, hf_s=t_hf,
                       rustbpe_s=t_rust, ratio_hf=t_ours / t_hf, ratio_rustbpe=t_ours / t_rust,
                       same_as_hf=same_hf, same_as_rustbpe=same_rust)
            rows.append(row)
            print(f"{size / 1e6:>6.0f}MB {vocab:>6} {t_ours:>8.2f} {t_top:>10.2f} {t_hf:>7.2f} {t_rust:>8.2f} "
                  f"{row['ratio_hf']:>7.2f}x {row['ratio_rustbpe']:>8.2f}x {'yes' if same_hf else 'NO':>4} "
                  f"{'yes' if same_rust else 'NO':>5}", flush=True)
    text1 = corpora.english(1_000_000)
    t_none, run_none = best_of(lambda: bpe.train(text1, 4096, pattern=None, top_k=0), 1)
    print(f"pattern=None, 1 MB -> 4096: {t_none:.2f} s ({len(run_none.merges)} merges; target <= 10 s)")
    costs = player_costs(text1, 3840)
    print(f"player on 1 MB: first merge {costs['first_merge_ms']:.0f} ms (target <= 150), step median "
          f"{costs['step_median_ms']:.3f} ms, p99 {costs['step_p99_ms']:.3f} ms (target <= 1), "
          f"max {costs['step_max_ms']:.1f} ms")
    naive_n = 3
    per = naive_per_merge(text1, naive_n)
    t_ours_1mb = rows[0]["ours_s"]
    print(f"naive recount trainer, 1 MB: {per:.2f} s per merge (capped at {naive_n} merges); extrapolated to "
          f"3840 merges: {per * 3840:.0f} s = {per * 3840 / t_ours_1mb:.0f}x ours")
    RESULTS.mkdir(exist_ok=True)
    out = dict(rows=rows, pattern_none_s=t_none, player=costs, naive_s_per_merge=per)
    (RESULTS / "train.json").write_text(json.dumps(out, indent=2))
    ok = all(r["same_as_hf"] and r["same_as_rustbpe"] for r in rows)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
