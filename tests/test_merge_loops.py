"""The rank-merge loop (tiktoken's rule) on random input: with and without the two-byte table, against the
plain step-by-step trace, and on random text against tiktoken itself.

``bpe.merging.apply_ranks`` is the hot loop of encoding; ``trace_ranks`` is the same rule written plainly
(one best pair per step, no tables), and tiktoken is the independent reference for real vocabularies.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tiktoken_reference import tiktoken_encoding

import bpe
from bpe.merging import apply_ranks, byte_pair_ranks, trace_ranks
from bpe.rank_merge import RankMerge

common = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def vocabularies(draw):
    """A random ranks vocabulary over a few bytes: all 256 single bytes plus random longer tokens whose
    ranks are random (so merges are not always in the order a trainer would learn them)."""
    alphabet = draw(st.lists(st.integers(0, 255), min_size=2, max_size=5, unique=True))
    extra = draw(
        st.lists(
            st.binary(min_size=2, max_size=5).map(lambda b: bytes(alphabet[x % len(alphabet)] for x in b)),
            max_size=30,
            unique=True,
        )
    )
    order = draw(st.permutations(range(len(extra))))
    ranks = {bytes([b]): b for b in range(256)}
    for r, i in enumerate(order):
        ranks.setdefault(extra[i], 256 + r)
    text = draw(st.lists(st.sampled_from(alphabet), min_size=0, max_size=40).map(bytes))
    return ranks, text


@common
@given(case=vocabularies())
def test_apply_ranks_with_and_without_the_pair_table_equals_the_plain_trace(case):
    ranks, data = case
    plain = trace_ranks(data, ranks)
    last = plain[-1] if plain[-1].pair is not None or len(plain) == 1 else plain[-2]  # before the whole-chunk step
    by_rank = {r: t for t, r in ranks.items()}
    expected = [by_rank[i] for i in last.ids]
    assert apply_ranks(data, ranks) == expected
    assert apply_ranks(data, ranks, byte_pair_ranks(ranks)) == expected


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(
    text=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80)
    | st.text(alphabet=st.sampled_from(list("Иногда по-русски 東京タワー مرحبا नमस्ते 안녕 the ,.!")), max_size=80)
)
def test_random_text_gives_tiktoken_ids(name, text):
    assert bpe.load_pretrained(name).encode_ordinary(text) == tiktoken_encoding(name).encode_ordinary(text)


@common
@given(case=vocabularies(), repeat=st.integers(1, 12))
def test_rank_merge_on_ids_equals_the_plain_trace(case, repeat):
    # RankMerge: the same rule on ids and offsets (the heap past LONG_CHUNK bytes: up to 480 here)
    ranks, data = case
    data = data * repeat
    merge = RankMerge(ranks)
    expected = apply_ranks(data, ranks)
    assert merge(data) == [ranks[t] for t in expected]
    if _utf8(data):  # tiktoken's whole-chunk lookup first, then the rule: the trace's last step
        assert merge.chunk_ids(data.decode("utf-8")) == trace_ranks(data, ranks)[-1].ids


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def test_the_chunk_cache_gives_the_same_ids_cold_and_warm():
    # cold (cache smaller than the batch: __missing__) and warm (one pass, misses filled after): same ids
    from bpe.chunk_cache import ChunkCache

    calls: list[str] = []
    cache = ChunkCache(lambda c: calls.append(c) or (len(c), ord(c[0])))
    first = ["ab", "c", "ab", "dde", "c"]
    assert cache.encode_all(first) == [2, 97, 1, 99, 2, 97, 3, 100, 1, 99]
    assert sorted(calls) == ["ab", "c", "dde"]
    again = ["c", "xyz", "ab", "xyz"]  # the cache (3) is no smaller than this batch (4 - 1 known twice)...
    cache.update({f"k{i}": (i,) for i in range(5)})  # ...make sure: 8 >= 4
    assert cache.encode_all(again) == [1, 99, 3, 120, 2, 97, 3, 120]
    assert calls.count("xyz") == 1


@common
@given(
    batches=st.lists(
        st.lists(st.sampled_from(["ab", "ba", "cc", "bb", "aa", "abcd", "ca", "dd", "a", "abc"]), max_size=40),
        max_size=5,
    ),
    batch=st.sampled_from([3, 8, 1 << 16]),
    probe=st.sampled_from([2, 1024]),
)
def test_the_chunk_cache_gives_each_chunks_ids_in_order(batches, batch, probe):
    # one-token chunks (every even length) are spliced from the chunk -> id table, the others looked up:
    # whatever the mix, the batch size, the probe's and what the cache holds already, the ids are each chunk's
    from bpe import chunk_cache

    def encode(chunk: str) -> tuple[int, ...]:
        return (len(chunk),) if len(chunk) % 2 == 0 else tuple(map(ord, chunk))

    saved = chunk_cache.BATCH, chunk_cache.PROBE
    chunk_cache.BATCH, chunk_cache.PROBE = batch, probe
    try:
        cache = chunk_cache.ChunkCache(encode)
        for chunks in batches:
            expected = [i for c in chunks for i in encode(c)]
            assert cache.encode_all(chunks) == expected
    finally:
        chunk_cache.BATCH, chunk_cache.PROBE = saved


def test_the_chunk_cache_passes_the_encoders_value_error_on():
    from bpe.chunk_cache import ChunkCache

    def encode(chunk: str) -> tuple[int, ...]:
        if chunk == "bad":
            raise ValueError("bad chunk")
        return (len(chunk),)

    cache = ChunkCache(encode)
    cache.encode_all([f"w{i}" for i in range(20)])  # warm: the next batch goes through the one-token table
    with pytest.raises(ValueError, match="bad chunk"):
        cache.encode_all(["w1", "bad", "w2"])
