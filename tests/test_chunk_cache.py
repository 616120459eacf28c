"""The ranks vocabulary's chunk cache (whole-token chunks looked up without a merge call) and the cyclic
collector around a long encode: ids against each chunk's own ids, the collector's state as the caller left it."""

from __future__ import annotations

import gc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe import chunk_cache
from bpe.chunk_cache import ChunkCache, RankCache

WORDS = ["ab", "ba", "cc", "bb", "aa", "abcd", "ca", "dd", "a", "abc", "é", "éa"]
#: the chunks that are one token (by their UTF-8 bytes), and their ids; id 0 among them (a falsy id)
RANKS = {"ab".encode(): 0, b"cc": 7, b"abcd": 3, "é".encode(): 11, b"a": 5}


def merge(chunk: str) -> tuple[int, ...]:
    return tuple(100 + b for b in chunk.encode())


def expected(chunk: str) -> tuple[int, ...]:
    whole = RANKS.get(chunk.encode())
    return (whole,) if whole is not None else merge(chunk)


@settings(max_examples=150, deadline=None)
@given(
    batches=st.lists(st.lists(st.sampled_from(WORDS), max_size=40), max_size=5),
    batch=st.sampled_from([3, 8, 1 << 16]),
    probe=st.sampled_from([2, 1024]),
)
def test_rank_cache_gives_each_chunks_ids_and_merges_each_new_chunk_once(batches, batch, probe):
    saved = chunk_cache.BATCH, chunk_cache.PROBE
    chunk_cache.BATCH, chunk_cache.PROBE = batch, probe
    merged: list[str] = []
    try:
        cache = RankCache(lambda c: merged.append(c) or merge(c), RANKS)
        for chunks in batches:
            assert cache.encode_all(chunks) == [i for c in chunks for i in expected(c)]
    finally:
        chunk_cache.BATCH, chunk_cache.PROBE = saved
    assert sorted(merged) == sorted(set(merged))  # each once
    assert not set(merged) & {c for c in WORDS if c.encode() in RANKS}  # never a whole token


@pytest.mark.parametrize("enabled", [True, False])
def test_a_long_encode_leaves_the_collector_as_it_found_it(enabled, monkeypatch):
    monkeypatch.setattr(chunk_cache, "BATCH", 4)
    seen: list[bool] = []
    cache = ChunkCache(lambda c: seen.append(gc.isenabled()) or (len(c),))
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        assert cache.encode_all([f"w{i}" for i in range(10)]) == [2] * 10
        assert gc.isenabled() is enabled
        assert seen and not any(seen)  # off while encoding more than one batch
        cache.encode_all(["x"])  # one batch: off while encoding too, then as it was
        assert gc.isenabled() is enabled and seen[-1] is False
    finally:
        gc.enable() if was else gc.disable()


@pytest.mark.parametrize("batch", [2, 1 << 16])
def test_an_encoders_error_turns_the_collector_back_on(batch, monkeypatch):
    monkeypatch.setattr(chunk_cache, "BATCH", batch)  # a long encode (several batches) and a short one

    def bad(chunk: str) -> tuple[int, ...]:
        if chunk == "bad":
            raise ValueError("bad chunk")
        return (1,)

    assert gc.isenabled()
    with pytest.raises(ValueError, match="bad chunk"):
        ChunkCache(bad).encode_all(["a", "b", "c", "bad", "d"])
    assert gc.isenabled()
