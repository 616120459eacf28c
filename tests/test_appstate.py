"""The shared run cache: bounded by entries and by total merges, one training per key under concurrency."""

from __future__ import annotations

import threading
import time

import bpe
from appstate.runs import _RunCache


def _run(n_merges: int) -> bpe.Run:
    return bpe.train("abcdefghijklmnopqrstuvwxyz" * 4, 256 + n_merges, pattern=None)


def test_evicts_least_recently_used_by_entries():
    cache = _RunCache(entries=2, max_merges=10**9)
    cache.get_or_train("a", lambda: _run(1))
    cache.get_or_train("b", lambda: _run(1))
    cache.get("a")  # a is now the most recent
    cache.get_or_train("c", lambda: _run(1))
    assert cache.get("b") is None and cache.get("a") is not None and cache.get("c") is not None


def test_evicts_by_total_merges_but_keeps_the_newest():
    cache = _RunCache(entries=100, max_merges=30)
    cache.get_or_train("a", lambda: _run(20))
    cache.get_or_train("b", lambda: _run(20))  # 40 > 30: a goes
    assert cache.get("a") is None and cache.get("b") is not None and cache.merges == 20
    big = cache.get_or_train("big", lambda: _run(50))  # over the bound alone: kept, the rest goes
    assert len(big.merges) > 20
    assert len(cache) == 1 and cache.get("big") is big and cache.merges == len(big.merges)


def test_concurrent_requests_for_one_key_train_once():
    cache = _RunCache(entries=4)
    calls = []

    def slow_train():
        calls.append(1)
        time.sleep(0.3)
        return _run(3)

    results = []
    threads = [threading.Thread(target=lambda: results.append(cache.get_or_train("k", slow_train))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1
    assert len(results) == 8 and all(r is results[0] for r in results)


def test_an_upload_over_the_read_limit_is_refused_unread():
    """Streamlit accepts up to 60 MB (.streamlit/config.toml); the player reads at most 50 MiB: above it the
    file is refused by its size alone, its bytes never read (the browser test uploads 5 MB: the read path)."""
    from helpers import FakeUpload

    from appstate import sources

    class Unreadable(FakeUpload):
        def getvalue(self) -> bytes:
            raise AssertionError("read")

    f = Unreadable("huge.txt", b"")
    f.size = 50 * 1024 * 1024 + 1
    info = sources.read_upload(f)
    assert "huge.txt" in info["error"] and "too large to read" in info["error"] and info["text"] == ""
    ok = sources.read_upload(FakeUpload("fine.txt", b"x" * 3_000_000))
    assert ok["error"] == "" and ok["truncated"] and len(ok["text"]) == 2_000_000
