"""Training time as the text and the vocabulary grow: ours, HF ``tokenizers`` and ``rustbpe`` on the same axes.

    python -m bench.scale_curves                       # text 0.1-10 MB at 16,384; vocab 1k-64k at 1 MB
    python -m bench.scale_curves --rounds 3 --max-mb 3  # quicker

Two curves, each point on text that never repeats (:func:`testkit.distinct_corpora.english`, cut into ~8 KB
documents as :mod:`bench.bench_train` feeds every trainer): the text from 0.1 to 10 MB at a vocabulary of
16,384, and the vocabulary from 1,024 to 65,536 on 1 MB. At each point ours (``bpe.train(docs, vocab)``, the
default call), HF (``train_from_iterator(docs)``, rayon: every core) and rustbpe (``train_from_iterator``,
every core) run interleaved, the order rotating each round; the median wall time is plotted (log-log), with
the ratios ours / HF and ours / rustbpe. Points of 3 MB and more run ``--big-rounds`` rounds (default 3, as the others).

Writes ``bench/results/scale_curves.json`` and ``docs/scale-curves.svg`` (drawn by :func:`svg_chart`: two
panels, one line a trainer).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
from html import escape
from pathlib import Path

import bpe
from testkit import corpora, distinct_corpora
from testkit.references import hf_train, rustbpe_train

from . import bench_encode, bench_train
from .conditions import conditions, describe, load_average

TEXT_MB = (0.1, 0.3, 1.0, 3.0, 10.0)
TEXT_VOCAB = 16_384
VOCABS = (1_024, 4_096, 16_384, 65_536)
VOCAB_MB = 1.0
TRAINERS = ("ours", "hf", "rustbpe")
COLORS = {"ours": "#d9480f", "hf": "#1c7ed6", "rustbpe": "#2f9e44"}
LABELS = {
    "ours": "BPE Lab (pure Python, 1 core)",
    "hf": "HF tokenizers (Rust, every core)",
    "rustbpe": "rustbpe (Rust, every core)",
}
SVG = Path(__file__).resolve().parent.parent / "docs" / "scale-curves.svg"


def point(size_bytes: int, vocab: int, rounds: int) -> dict:
    """One point: the three trainers on one text and vocabulary, interleaved; median wall and CPU seconds."""
    docs = corpora.documents(distinct_corpora.english(size_bytes))
    contenders = [
        bench_train.Contender("ours", lambda: bpe.train(docs, vocab), lambda run: len(run.merges)),
        bench_train.Contender("hf", lambda: hf_train(docs, vocab)),
        bench_train.Contender("rustbpe", lambda: rustbpe_train(docs, vocab)),
    ]
    times, kept, cpu = bench_train.interleaved(contenders, rounds)
    med = {n: statistics.median(t) for n, t in times.items()}
    return dict(
        mb=size_bytes / 1e6,
        vocab=vocab,
        documents=len(docs),
        merges=kept["ours"],
        rounds=rounds,
        times=times,
        cpu=cpu,
        median=med,
        median_cpu={n: statistics.median(t) for n, t in cpu.items()},
        ours_over_hf=med["ours"] / med["hf"],
        ours_over_rustbpe=med["ours"] / med["rustbpe"],
        load_average=load_average(),
    )


# ----------------------------------------------------------------------------------------------------
# The plot


def _ticks(lo: float, hi: float) -> list[float]:
    """1-2-5 ticks between ``lo`` and ``hi`` (log axis).

    >>> _ticks(0.1, 10)
    [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0]
    """
    out = []
    for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in (1, 2, 5):
            v = round(m * 10.0**e, 10)
            if lo * 0.999 <= v <= hi * 1.001:
                out.append(v)
    return out


def _fmt(v: float) -> str:
    """A tick label: ``0.1``, ``2``, ``16k``.

    >>> [_fmt(0.1), _fmt(2.0), _fmt(16384), _fmt(1000)]
    ['0.1', '2', '16k', '1k']
    """
    if v >= 1000:
        return f"{v / 1024:.0f}k" if v % 1024 == 0 else f"{v / 1000:.0f}k"
    return f"{v:g}"


def _panel(
    x0: int,
    title: str,
    xlabel: str,
    xs: list[float],
    series: dict[str, list[float]],
    y_lo: float,
    y_hi: float,
    x_ticks: list[float],
    ylabel: str,
    w: int = 400,
    h: int = 300,
) -> list[str]:
    """One log-log panel at horizontal offset ``x0`` spanning ``xs``: axes, ticks, a line and dots a series."""
    left, top, pw, ph = x0 + 72, 40, w - 92, h - 90
    lx0, lx1 = math.log10(min(xs)), math.log10(max(xs))
    ly0, ly1 = math.log10(y_lo), math.log10(y_hi)

    def px(x: float) -> float:
        return left + (math.log10(x) - lx0) / (lx1 - lx0) * pw

    def py(y: float) -> float:
        return top + ph - (math.log10(y) - ly0) / (ly1 - ly0) * ph

    out = [
        f'<text x="{left + pw / 2}" y="22" text-anchor="middle" font-weight="bold">{escape(title)}</text>',
        f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#868e96"/>',
    ]
    for t in _ticks(y_lo, y_hi):
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{py(t):.1f}" y2="{py(t):.1f}" stroke="#e9ecef"/>')
        out.append(f'<text x="{left - 6}" y="{py(t) + 4:.1f}" text-anchor="end">{_fmt(t)}</text>')
    for t in x_ticks:
        out.append(f'<line x1="{px(t):.1f}" x2="{px(t):.1f}" y1="{top}" y2="{top + ph}" stroke="#e9ecef"/>')
        out.append(f'<text x="{px(t):.1f}" y="{top + ph + 16}" text-anchor="middle">{_fmt(t)}</text>')
    out.append(f'<text x="{left + pw / 2}" y="{top + ph + 36}" text-anchor="middle">{escape(xlabel)}</text>')
    out.append(
        f'<text x="{x0 + 14}" y="{top + ph / 2}" text-anchor="middle" '
        f'transform="rotate(-90 {x0 + 14} {top + ph / 2})">{escape(ylabel)}</text>'
    )
    for name, ys in series.items():
        pts = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(xs, ys))
        out.append(f'<polyline points="{pts}" fill="none" stroke="{COLORS[name]}" stroke-width="2"/>')
        out.extend(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{COLORS[name]}"/>' for x, y in zip(xs, ys))
    return out


def svg_chart(by_text: list[dict], by_vocab: list[dict], note: str, metric: str = "median") -> str:
    """The two panels side by side as one SVG document (trainer colours in a legend below); ``metric``:
    ``"median"`` (wall seconds) or ``"median_cpu"`` (CPU seconds of every thread).

    >>> p = lambda mb, v, s: dict(mb=mb, vocab=v, median=dict(ours=s, hf=s / 2, rustbpe=s / 3))
    >>> svg = svg_chart([p(0.1, 16384, 1.0), p(1.0, 16384, 9.0)], [p(1.0, 1024, 2.0), p(1.0, 4096, 4.0)], "x<y")
    >>> svg.startswith("<svg") and svg.count("<polyline") == 6 and "x&lt;y" in svg
    True
    """
    every = [pt[metric][n] for pt in by_text + by_vocab for n in TRAINERS]
    ylabel = "seconds (wall, median)" if metric == "median" else "CPU seconds, all threads (median)"
    y_lo = 10 ** math.floor(math.log10(min(every)))
    y_hi = 10 ** math.ceil(math.log10(max(every)))
    xs_text = [pt["mb"] for pt in by_text]
    xs_vocab = [pt["vocab"] for pt in by_vocab]
    parts = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="820" height="360" viewBox="0 0 820 360" '
        'font-family="sans-serif" font-size="12">',
        '<rect width="820" height="360" fill="white"/>',
    ]
    parts += _panel(
        0,
        f"Text size (vocabulary {TEXT_VOCAB:,})",
        "text, MB",
        xs_text,
        {n: [pt[metric][n] for pt in by_text] for n in TRAINERS},
        y_lo,
        y_hi,
        xs_text,
        ylabel,
    )
    parts += _panel(
        410,
        f"Vocabulary size ({VOCAB_MB:g} MB of text)",
        "vocabulary",
        xs_vocab,
        {n: [pt[metric][n] for pt in by_vocab] for n in TRAINERS},
        y_lo,
        y_hi,
        xs_vocab,
        ylabel,
    )
    for i, name in enumerate(TRAINERS):
        x = 40 + i * 260
        parts.append(f'<line x1="{x}" x2="{x + 24}" y1="318" y2="318" stroke="{COLORS[name]}" stroke-width="3"/>')
        parts.append(f'<text x="{x + 30}" y="322">{escape(LABELS[name])}</text>')
    parts.append(f'<text x="410" y="348" text-anchor="middle" fill="#495057">{escape(note)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


# ----------------------------------------------------------------------------------------------------
# The run


def print_point(label: str, pt: dict) -> None:
    m, c = pt["median"], pt["median_cpu"]
    print(
        f"{label:>14} {pt['documents']:>5} {pt['merges']:>7,} {m['ours']:>8.2f} {m['hf']:>7.2f} {m['rustbpe']:>8.2f} "
        f"{pt['ours_over_hf']:>7.2f}x {pt['ours_over_rustbpe']:>8.2f}x  "
        f"{c['ours']:.2f}/{c['hf']:.2f}/{c['rustbpe']:.2f}  {pt['rounds']} rounds, "
        f"load {pt['load_average'].split()[0]}",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.scale_curves", description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3, help="rounds of a point below 3 MB")
    ap.add_argument("--big-rounds", type=int, default=3, help="rounds of a point of 3 MB and more")
    ap.add_argument("--max-mb", type=float, default=max(TEXT_MB))
    ap.add_argument("--no-svg", action="store_true", help="print and write the JSON only")
    ap.add_argument(
        "--plot",
        choices=("wall", "cpu"),
        default="wall",
        help="what the plot shows: wall seconds, or CPU seconds (steadier on a busy machine; HF's and "
        "rustbpe's count every thread)",
    )
    args = ap.parse_args(argv)
    cond = conditions(["tokenizers", "rustbpe", "regex"])
    print(describe(cond), flush=True)
    header = f"{'point':>14} {'docs':>5} {'merges':>7} {'ours s':>8} {'HF s':>7} {'rustbpe':>8} {'ours/HF':>8} {'ours/rust':>9}  CPU s ours/HF/rust"
    print("\n" + header, flush=True)
    by_text = []
    for mb in (m for m in TEXT_MB if m <= args.max_mb):
        pt = point(int(mb * 1e6), TEXT_VOCAB, args.big_rounds if mb >= 3 else args.rounds)
        by_text.append(pt)
        print_point(f"{mb:g} MB/{TEXT_VOCAB // 1024}k", pt)
    by_vocab = []
    for vocab in VOCABS:
        pt = point(int(VOCAB_MB * 1e6), vocab, args.rounds)
        by_vocab.append(pt)
        print_point(f"{VOCAB_MB:g} MB/{vocab // 1024}k", pt)
    cond["load_average_end"] = load_average()
    print(f"\nload average at the end: {cond['load_average_end']}")
    bench_encode.RESULTS.mkdir(exist_ok=True)
    (bench_encode.RESULTS / "scale_curves.json").write_text(
        json.dumps(dict(conditions=cond, by_text=by_text, by_vocab=by_vocab), indent=2)
    )
    if not args.no_svg:
        note = (
            f"{cond['machine']}, {cond['cores']} cores; load average {cond['load_average'].split()[0]} at the "
            f"start, {cond['load_average_end'].split()[0]} at the end; bpe {cond.get('bpe_commit', '?')}"
        )
        SVG.write_text(svg_chart(by_text, by_vocab, note, "median" if args.plot == "wall" else "median_cpu"))
        print(f"wrote {SVG}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
