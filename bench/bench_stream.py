"""Streaming encode (``Tokenizer.encode_iterable``): peak memory against the stream's length, on real text.

    python -m bench.bench_stream                         # cl100k_base, 5 / 20 / 50 MB of English
    python -m bench.bench_stream --vocabulary gpt2 --mb 5 50 100

Every size runs in a fresh interpreter (a subprocess of this one): it loads the vocabulary and 1 MB of real
English (bench corpora), then streams ``mb`` MB -- that megabyte over and over, cut into 4,096-character
pieces at arbitrary places, so chunks span pieces -- through ``encode_iterable``, counting the ids without
keeping them. It reports the wall time, the ids, and the process's peak resident memory (``ru_maxrss``)
before and after the stream: the growth is what the stream costs. Up to 5 MB the ids are also compared with
``encode`` of the whole text. A first pass over the megabyte, before
the measurement, fills the chunk cache (bounded, see :mod:`bpe.chunk_cache`), so the growth is the
stream's own and not the cache's.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time


def _worker(vocabulary: str, mb: int) -> dict[str, float]:
    import bpe
    from testkit import corpora

    tok = bpe.get_encoding(vocabulary)
    text = corpora.english(1_000_000)
    tok.encode_ordinary(text)  # the chunk cache, filled before measuring
    piece = 4096

    def stream():
        for _ in range(mb):
            for i in range(0, len(text), piece):
                yield text[i : i + piece]

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    ids = sum(1 for _ in tok.encode_iterable(stream()))
    seconds = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out: dict[str, float] = {
        "mb": mb,
        "ids": ids,
        "seconds": round(seconds, 2),
        "rss_before_mb": round(before / 1024, 1),
        "rss_after_mb": round(after / 1024, 1),
        "growth_mb": round((after - before) / 1024, 1),
    }
    if mb <= 5:  # small enough to hold: the streamed ids equal encode() of the whole text
        out["equal_to_encode"] = list(tok.encode_iterable(stream())) == tok.encode("".join(stream()))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vocabulary", default="cl100k_base")
    parser.add_argument("--mb", type=int, nargs="+", default=[5, 20, 50])
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(_worker(args.vocabulary, args.mb[0])))
        return
    with open("/proc/loadavg") as f:
        print(f"load average: {f.read().split()[:3]}")
    for mb in args.mb:
        out = subprocess.run(
            [sys.executable, "-m", "bench.bench_stream", "--worker", "--vocabulary", args.vocabulary, "--mb", str(mb)],
            capture_output=True,
            text=True,
            check=True,
        )
        print(out.stdout.strip())


if __name__ == "__main__":
    main()
