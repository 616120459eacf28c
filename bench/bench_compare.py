"""How long ``bpe.compare`` takes to diagnose, and the tie rules' training cost (``max_bytes`` runs on the
trainer's heap walk, like ``first``).

    python -m bench.bench_compare

Prints one line per case: the text's size, B's mistake, the cause found, the seconds (median of 3). Run it on a
quiet machine and say the load (``uptime``) with the figures.
"""

from __future__ import annotations

import statistics
import time
from functools import partial
from pathlib import Path

import bpe
from bpe.compare import Reference

ROOT = Path(__file__).resolve().parents[1]


def _median(fn, runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    samples = ROOT / "sample_texts"
    mixed = "\n".join(
        (samples / f).read_text(encoding="utf-8") for f in ("english.txt", "multilingual.txt", "chat.txt")
    )
    for label, text, merges in (
        ("english 3.7 KB", (samples / "english.txt").read_text(encoding="utf-8"), 256),
        ("three samples 9 KB", mixed, 500),
    ):
        for rule in bpe.TIE_BREAKS:
            seconds = _median(partial(bpe.train, text, 256 + merges, pattern="gpt4", tie_break=rule))
            print(f"train   {label:20} {merges} merges  tie {rule:9}  {seconds:.3f} s")
        a = bpe.train(text, 256 + merges, pattern="gpt4")
        cases = {
            "another tie rule": bpe.train(text, 256 + merges, pattern="gpt4", tie_break="first"),
            "per-chunk counting": Reference(pattern="gpt4", counting="per_chunk").train(text, merges),
            "no pre-tokenizer": bpe.train(text, 256 + merges, pattern=None),
        }
        for mistake, b in cases.items():
            found = bpe.compare(a, b, text=text)
            seconds = _median(partial(bpe.compare, a, b, text=text))
            print(f"compare {label:20} {mistake:20} -> {found.cause:20} {seconds:.2f} s")


if __name__ == "__main__":
    main()
