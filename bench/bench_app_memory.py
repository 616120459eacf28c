"""The app's trainings: what a worker process costs, and how much memory the server keeps (issue 14).

Two parts, run with ``python -m bench.bench_app_memory`` (``--part worker`` or ``--part memory`` for one):

**worker** -- one training in the server's own process (``bpe.train``) against the same training in a
worker process (``trainjobs.SharedTraining``, as ``appstate.runs.get_run`` runs it), interleaved, ``--repeat``
times each; medians. Also the parts of the worker's overhead: pickling the ``Run`` back (dumps in the
worker, loads in the server, its size) and the smallest training's round trip (fork of the helper,
send, answer).
Two sizes: the English sample with 512 tokens, and 1 MB of Austen with 4,096.

**memory** -- a real ``streamlit run app.py`` server driven by Chromium: its RSS at the start, after
``--trainings`` (200) trainings of varied small pasted texts (2-30 KB, 50-1,500 merges, several
pre-tokenizers: each a new entry in the run cache and the caches keyed on runs), and after ``--uploads``
(20) uploads of distinct 20 MB text files on the player (trained on their first 2 MB). RSS is sampled
along the way; the report states the peak, the plateau and the bound.

The bound, from the code: the run cache keeps at most ``appstate.runs.RUN_CACHE_ENTRIES`` runs and
``appstate.runs.RUN_CACHE_MERGES`` merges in all (the newest always kept); the caches of what the player
derives from a run (payloads, windows, held-out counts, exports) are bounded by entries. The player's
upload keeps one decoded text (at most 2 MB) per session; Streamlit's uploaded-file manager keeps the
last file of each session's uploader.
"""

from __future__ import annotations

import argparse
import json
import pickle
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import bpe  # noqa: E402
from bench.harness import RESULTS, start_server  # noqa: E402
from guard import trainjobs  # noqa: E402
from testkit.app_server import CHROMIUM, CHROMIUM_ARGS, IDLE, PLAYER, conditions, rss_mb, stop_server, tree_rss_mb  # noqa: E402,E501

# ----------------------------------------------------------------------------------------------------
# Part 1: what a worker costs per training


def _in_worker(fn, *args, **kwargs):
    t = trainjobs.SharedTraining(fn, args, kwargs, seconds=600)
    t.join()
    return t.wait()


def worker_cost(repeat: int) -> dict:
    from testkit.corpora import english

    trainjobs.isolation.warm_up()
    time.sleep(1.0)  # the helper has imported bpe
    cases = {
        "english sample, 512": ((ROOT / "sample_texts" / "english.txt").read_text(encoding="utf-8"), 512),
        "1 MB Austen, 4096": (english(1_000_000), 4096),
    }
    out = {}
    empty = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        _in_worker(bpe.train, "abab", 257, pattern=None)  # the least a training can be
        empty.append(time.perf_counter() - t0)
    out["smallest training in a worker (ms)"] = round(statistics.median(empty) * 1000, 1)
    for name, (text, vocab) in cases.items():
        here, there = [], []
        for i in range(repeat):  # interleaved, the order alternating
            for where in ("here", "there") if i % 2 == 0 else ("there", "here"):
                t0 = time.perf_counter()
                run = bpe.train(text, vocab) if where == "here" else _in_worker(bpe.train, text, vocab)
                (here if where == "here" else there).append(time.perf_counter() - t0)
        data = pickle.dumps(run, protocol=pickle.HIGHEST_PROTOCOL)
        dumps = statistics.median(
            [_timed(lambda run=run: pickle.dumps(run, protocol=pickle.HIGHEST_PROTOCOL)) for _ in range(repeat)]
        )
        loads = statistics.median([_timed(lambda data=data: pickle.loads(data)) for _ in range(repeat)])
        tracemalloc.start()
        kept = pickle.loads(data)
        held = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        del kept
        out[name] = {
            "merges": len(run.merges),
            "in-process median (s)": round(statistics.median(here), 3),
            "worker median (s)": round(statistics.median(there), 3),
            "worker extra (ms)": round((statistics.median(there) - statistics.median(here)) * 1000, 1),
            "ratio": round(statistics.median(there) / statistics.median(here), 2),
            "Run pickle (MB)": round(len(data) / 1e6, 2),
            "pickle dumps (ms)": round(dumps * 1000, 1),
            "pickle loads (ms)": round(loads * 1000, 1),
            "Run in memory (MB, tracemalloc)": round(held / 1e6, 2),
            "bytes per merge in memory": round(held / max(1, len(run.merges))),
        }
    return out


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


# ----------------------------------------------------------------------------------------------------
# Part 2: the server's RSS after many trainings and large uploads

WORDS = (
    "the of and to in a is that for it as was with be by on not he I this are or his from at which "
    "but have an they you were her she there been one all we their has would when what if will more "
    "token merge pair byte vocabulary encode decode model train text unicode chunk rank"
).split()


def small_text(i: int) -> str:
    """A different text every ``i``: 2-30 KB of words, numbers and punctuation."""
    rng = random.Random(i)
    size = rng.randint(2_000, 30_000)
    out, n = [], 0
    while n < size:
        w = rng.choice(WORDS) if rng.random() < 0.85 else f"{rng.randint(0, 10 ** rng.randint(1, 6))}"
        w = w + rng.choice(["", "", "", ",", ".", "!", "\n"])
        out.append(w)
        n += len(w) + 1
    return f"text {i}: " + " ".join(out)


def big_file(i: int, size: int) -> bytes:
    rng = random.Random(10_000 + i)
    line = " ".join(rng.choice(WORDS) for _ in range(40)) + f" {i}\n"
    body = (line * (size // len(line) + 1))[:size]
    return body.encode()


def player_shown(page, settle_ms: int, timeout_ms: int) -> bool:
    """After an action: wait ``settle_ms`` and for the script to finish, then whether the player is drawn and
    ready within ``timeout_ms`` (a training that does not show counts as a failure, it does not stop the run)."""
    page.wait_for_timeout(settle_ms)
    page.wait_for_selector(IDLE)
    try:
        page.wait_for_selector(f'{PLAYER}[data-ready="1"]', timeout=timeout_ms)
    except Exception:  # noqa: BLE001
        return False
    return True


def memory(trainings: int, uploads: int, upload_mb: int) -> dict:
    from playwright.sync_api import sync_playwright

    proc, url = start_server("bench_app_memory_server.log")
    samples: list[tuple[str, float, float, float]] = []
    t_start = time.perf_counter()

    def sample(label: str) -> float:
        """The server's RSS (and, recorded too, with its worker helper and any training worker)."""
        rss = rss_mb(proc.pid)
        samples.append((label, round(time.perf_counter() - t_start, 1), round(rss, 1), round(tree_rss_mb(proc.pid), 1)))
        return rss

    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 1200})
            page.set_default_timeout(120_000)
            page.goto(url)
            page.wait_for_selector(f'{PLAYER}[data-ready="1"]')
            page.wait_for_selector(IDLE)
            rss_start = sample("start (first page, default sample trained)")
            # -- trainings
            page.locator(".st-key-player_source label").filter(has_text="Paste").first.click()
            page.wait_for_selector(IDLE)
            patterns = ["GPT-4 (cl100k)", "GPT-2", "None (the whole text is one chunk)"]
            failures = 0
            for i in range(trainings):
                rng = random.Random(i)
                if i % 20 == 0:  # now and then another pre-tokenizer
                    page.click(".st-key-player_pattern [role=combobox]")
                    page.keyboard.type(patterns[(i // 20) % len(patterns)][:8])
                    page.get_by_role("option", name=patterns[(i // 20) % len(patterns)], exact=True).click()
                    page.wait_for_timeout(200)
                    page.wait_for_selector(IDLE)
                merges = page.locator(".st-key-player_merges input")
                merges.fill(str(rng.randint(50, 1500)))
                merges.press("Enter")
                page.wait_for_timeout(100)
                page.wait_for_selector(IDLE)
                area = page.locator(".st-key-player_paste textarea")
                area.fill(small_text(i))
                area.press("Control+Enter")
                failures += not player_shown(page, 150, 60_000)
                if (i + 1) % 25 == 0:
                    sample(f"after {i + 1} trainings")
            rss_trainings = sample(f"after {trainings} trainings")
            # -- uploads
            page.locator(".st-key-player_source label").filter(has_text="Upload").first.click()
            page.wait_for_selector(IDLE)
            for i in range(uploads):
                page.set_input_files(
                    ".st-key-player_upload input[type=file]",
                    files=[
                        {"name": f"big{i}.txt", "mimeType": "text/plain", "buffer": big_file(i, upload_mb * 1_000_000)}
                    ],
                )
                page.wait_for_timeout(300)
                page.wait_for_selector(IDLE)
                page.locator(".st-key-player_upload_truncate label").click()
                failures += not player_shown(page, 300, 120_000)
                sample(f"after upload {i + 1}")
            rss_uploads = sample(f"after {uploads} uploads")
            browser.close()
        time.sleep(3)
        rss_closed = sample("3 s after the browser closed")
    finally:
        stop_server(proc)
    return {
        "rss_start_mb": round(rss_start, 1),
        "rss_after_trainings_mb": round(rss_trainings, 1),
        "rss_after_uploads_mb": round(rss_uploads, 1),
        "rss_after_close_mb": round(rss_closed, 1),
        "peak_mb": max(s[2] for s in samples),
        "failures": failures,
        "samples": samples,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", choices=["worker", "memory", "all"], default="all")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--trainings", type=int, default=200)
    ap.add_argument("--uploads", type=int, default=20)
    ap.add_argument("--upload-mb", type=int, default=20)
    args = ap.parse_args(argv)
    report = {"conditions": conditions()}
    print(report["conditions"])
    if args.part in ("worker", "all"):
        report["worker"] = worker_cost(args.repeat)
        print(json.dumps(report["worker"], indent=1))
    if args.part in ("memory", "all"):
        report["memory"] = memory(args.trainings, args.uploads, args.upload_mb)
        m = report["memory"]
        for label, t, rss, tree in m["samples"]:
            print(f"  {t:7.1f} s  {rss:7.1f} MB  (with workers {tree:7.1f} MB)  {label}")
        print(
            f"RSS: start {m['rss_start_mb']} MB, after {args.trainings} trainings {m['rss_after_trainings_mb']} MB, "
            f"after {args.uploads} uploads of {args.upload_mb} MB {m['rss_after_uploads_mb']} MB, peak "
            f"{m['peak_mb']} MB, after the browser closed {m['rss_after_close_mb']} MB; "
            f"{m['failures']} trainings did not show"
        )
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_app_memory.json").write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
