"""Property tests: the incremental trainer against the recount-everything reference, on random inputs.

The reference (``bpe.reference``) is the tutorials' loop, written to be obviously right; the fast trainer
must learn exactly its merges, in order, with the same counts, for every tie rule, both levels, with and
without a pre-tokenizer, on texts, documents and word-count maps, through both of its backends.
"""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import bpe
from bpe.reference import merge_ids, train_reference

TIES = ["lexical", "first", "hf", "max_bytes"]
PATTERNS = [None, "gpt4", "gpt2", "gpt4o", "deepseek_v3"]

# Small alphabets make repeated pairs (and ties) likely; a few non-ASCII characters exercise bytes.
small_text = st.text(alphabet=st.sampled_from(list("aab  bc\n.'é世👍")), min_size=1, max_size=60)
any_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40)
documents = st.lists(small_text, min_size=1, max_size=4)
word_counts = st.dictionaries(
    st.text(alphabet="abcde", min_size=1, max_size=6), st.integers(1, 9), min_size=1, max_size=8
)

common = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _fast(data, n, **kw):
    base = 256 if kw.get("level", "byte") == "byte" else None
    if base is None:
        # char level: the base is the distinct characters of the (pattern-free) corpus
        from bpe.corpus import build_corpus

        base = len(build_corpus(data, pattern=kw.get("pattern"), level="char").alphabet)
    run = bpe.train(data, base + n, **kw)
    return [(m.pair, m.count) for m in run.merges], run


@common
@given(
    text=small_text,
    tie=st.sampled_from(TIES),
    pattern=st.sampled_from(PATTERNS),
    level=st.sampled_from(["byte", "char"]),
    backend=st.sampled_from(["chunks", "positions"]),
    n=st.integers(0, 25),
)
def test_trainer_equals_reference_on_text(text, tie, pattern, level, backend, n):
    fast, _ = _fast(text, n, pattern=pattern, tie_break=tie, level=level, backend=backend)
    assert fast == train_reference(text, n, pattern=pattern, tie_break=tie, level=level)


@common
@given(
    docs=documents,
    tie=st.sampled_from(TIES),
    pattern=st.sampled_from([None, "gpt4"]),
    backend=st.sampled_from(["chunks", "positions"]),
    n=st.integers(0, 25),
)
def test_trainer_equals_reference_on_documents(docs, tie, pattern, backend, n):
    fast, _ = _fast(docs, n, pattern=pattern, tie_break=tie, backend=backend)
    assert fast == train_reference(docs, n, pattern=pattern, tie_break=tie)


@common
@given(
    words=word_counts,
    tie=st.sampled_from(TIES),
    level=st.sampled_from(["byte", "char"]),
    backend=st.sampled_from(["chunks", "positions"]),
    n=st.integers(0, 20),
)
def test_trainer_equals_reference_on_word_counts(words, tie, level, backend, n):
    fast, _ = _fast(words, n, tie_break=tie, level=level, backend=backend)
    assert fast == train_reference(words, n, tie_break=tie, level=level)


@common
@given(text=small_text, tie=st.sampled_from(TIES))
def test_min_frequency_stops_like_reference(text, tie):
    fast, run = _fast(text, 30, pattern=None, tie_break=tie, min_frequency=3)
    assert fast == train_reference(text, 30, pattern=None, tie_break=tie, min_frequency=3)
    assert all(c >= 3 for _, c in fast)
    if len(fast) < 30:
        assert "min_frequency" in run.stop_reason or "no pair" in run.stop_reason


@common
@given(train_text=small_text, other=any_text, pattern=st.sampled_from(PATTERNS), n=st.integers(0, 30))
def test_decode_encode_round_trip(train_text, other, pattern, n):
    run = bpe.train(train_text, 256 + n, pattern=pattern)
    tok = run.tokenizer()
    for text in (train_text, other):
        assert tok.decode(tok.encode(text)) == text


@common
@given(train_text=small_text, other=small_text, k=st.integers(0, 30), pattern=st.sampled_from(PATTERNS))
def test_encoding_with_first_k_merges_equals_replaying_them(train_text, other, k, pattern):
    run = bpe.train(train_text, 256 + 30, pattern=pattern)
    k = min(k, len(run.merges))
    tok = run.tokenizer(k)
    expected: list[int] = []
    for chunk in bpe.pretokenize(other, pattern):
        ids = list(chunk.encode("utf-8"))
        for m in run.merges[:k]:
            ids = merge_ids(ids, m.pair, m.id)
        expected.extend(ids)
    assert tok.encode(other) == expected


@common
@given(text=small_text, pattern=st.sampled_from(PATTERNS), n=st.integers(1, 30))
def test_tokens_after_is_the_corpus_token_count(text, pattern, n):
    run = bpe.train(text, 256 + n, pattern=pattern)
    for m in run.merges:
        tok = run.tokenizer(m.rank + 1)
        assert m.tokens_after == len(tok.encode(text))
    assert run.tokens_before == len(text.encode("utf-8"))


@common
@given(text=small_text, tie=st.sampled_from(TIES), n=st.integers(1, 20))
def test_recorded_top_pairs_and_ties_match_a_recount(text, tie, n):
    """top_pairs[0] is the winner, counts are exact, and ties are the other pairs with the winner's count."""
    from bpe.reference import get_stats

    run = bpe.train(text, 256 + n, pattern=None, tie_break=tie, top_k=50)
    ids = list(text.encode("utf-8"))
    for m in run.merges:
        stats = get_stats([ids], [1])
        assert m.top_pairs[0] == (m.pair, m.count) == (m.pair, stats[m.pair])
        for pair, count in m.top_pairs:
            assert stats[pair] == count
        all_ties = {p for p, c in stats.items() if c == m.count and p != m.pair}
        assert set(m.ties) <= all_ties
        assert len(m.ties) == min(len(all_ties), 49)
        assert m.ties_capped == (len(all_ties) >= 49)
        counts = [c for _, c in m.top_pairs]
        assert counts == sorted(counts, reverse=True)
        assert len(m.top_pairs) == min(50, len(stats))
        ids = merge_ids(ids, m.pair, m.id)


# Longer texts with many distinct pairs, so that the trainer's window of best pairs runs dry and is refilled
# many times during a run (it holds 2 * top_k + 24 pairs).
long_text = st.text(alphabet=st.sampled_from(list("abcdefgh  \n.é")), min_size=20, max_size=400)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.one_of(long_text, st.lists(long_text, min_size=1, max_size=3)),
    tie=st.sampled_from(["lexical", "hf"]),
    pattern=st.sampled_from([None, "gpt4", "gpt2"]),
    backend=st.sampled_from(["chunks", "positions"]),
    top_k=st.integers(0, 6),
    n=st.integers(1, 60),
)
def test_recorded_top_pairs_are_the_recount_in_tie_order(data, tie, pattern, backend, top_k, n):
    """Every merge's top pairs are exactly the best ``top_k`` pairs of a full recount, sorted by count and
    then by the tie rule (the rule that picks the winner orders the runners-up too)."""
    from bpe.corpus import build_corpus
    from bpe.reference import get_stats
    from bpe.visible import hf_rank_table

    hf = hf_rank_table()
    key = (lambda p: p) if tie == "lexical" else (lambda p: (hf.get(p[0], p[0]), hf.get(p[1], p[1])))
    run = bpe.train(data, 256 + n, pattern=pattern, tie_break=tie, backend=backend, top_k=top_k)
    corpus = build_corpus(data, pattern=pattern, level="byte")
    chunks = [[ord(c) for c in chunk] for chunk in corpus.chunks]
    for m in run.merges:
        stats = get_stats(chunks, corpus.weights)
        expected = sorted(stats.items(), key=lambda pc: (-pc[1], key(pc[0])))[: max(top_k, 1)]
        assert m.top_pairs == tuple(expected)
        assert m.ties == tuple(p for p, c in expected[1:] if c == m.count)
        assert m.ties_capped == (top_k > 1 and len(expected) == top_k and expected[-1][1] == m.count)
        chunks = [merge_ids(ids, m.pair, m.id) for ids in chunks]


@common
@given(
    text=small_text,
    normalize=st.sampled_from([None, "NFC", "NFKC"]),
    specials=st.lists(st.sampled_from(["b ", "<|x|>", "é"]), max_size=2, unique=True),
)
def test_base_vocab_size_is_the_base_training_starts_from(text, normalize, specials):
    """``bpe.base_vocab_size`` (before training) is the size of the base the trainer builds (after), and a
    vocabulary of base + merges + specials asks for exactly those merges; hand-checked cases too."""
    assert (
        bpe.base_vocab_size("abca", "char") == 3
        and bpe.base_vocab_size("ab<|x|>", "char", special_tokens=["<|x|>"]) == 2
    )
    assert bpe.base_vocab_size("anything", "byte") == 256
    base = bpe.base_vocab_size(text, "char", normalize=normalize, special_tokens=specials)
    try:
        run = bpe.train(
            text, base + 1 + len(specials), pattern=None, level="char", normalize=normalize, special_tokens=specials
        )
    except bpe.TrainingDataError:  # nothing left once the special tokens are cut out
        assert base == 0
        return
    assert len(run.base) == base
    assert run.vocab_size_requested - len(run.base) - len(run.special_tokens) == 1


# Weighted words over a small alphabet: many merges find their pair in one unique chunk only (the loop's
# one-chunk path), with neighbours on one side, both sides or none, repeats ("abab", "aaa") and weights > 1.
weighted_words = st.dictionaries(
    st.text(alphabet="abcd", min_size=1, max_size=7), st.integers(1, 5), min_size=1, max_size=12
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=weighted_words, tie=st.sampled_from(["lexical", "hf"]), top_k=st.integers(0, 5), n=st.integers(1, 40))
@example(words={"aaaaaa": 2, "ba": 1}, tie="lexical", top_k=3, n=3)  # "AAA" merging (A, A): one token less, not two
def test_merges_in_one_chunk_keep_counts_and_top_pairs_exact(words, tie, top_k, n):
    """Merges, counts and every merge's top pairs equal a full recount's, on weighted words (the reference
    loop for the merges; the top pairs sorted by count, then by the tie rule)."""
    from bpe.corpus import build_corpus
    from bpe.reference import get_stats
    from bpe.visible import hf_rank_table

    hf = hf_rank_table()
    key = (lambda p: p) if tie == "lexical" else (lambda p: (hf.get(p[0], p[0]), hf.get(p[1], p[1])))
    run = bpe.train(words, 256 + n, pattern=None, tie_break=tie, backend="chunks", top_k=top_k)
    assert [(m.pair, m.count) for m in run.merges] == train_reference(words, n, pattern=None, tie_break=tie)
    corpus = build_corpus(words, pattern=None, level="byte")
    chunks = [[ord(c) for c in chunk] for chunk in corpus.chunks]
    for m in run.merges:
        stats = get_stats(chunks, corpus.weights)
        expected = sorted(stats.items(), key=lambda pc: (-pc[1], key(pc[0])))[: max(top_k, 1)]
        assert m.top_pairs == tuple(expected)
        chunks = [merge_ids(ids, m.pair, m.id) for ids in chunks]
        assert m.tokens_after == sum(len(ids) * w for ids, w in zip(chunks, corpus.weights))


# Weights up to 40 and more distinct pairs than the window's ~30 entries: pair counts on both sides of the
# threshold below which a pair waits outside the window in a per-count list rather than the heap
# (bpe.train_loop.LOW_COUNTS), which is also drawn, so the lists are poured into the heap at every level.
heavy_words = st.dictionaries(
    st.text(alphabet="abcdefgh", min_size=2, max_size=8), st.integers(1, 40), min_size=6, max_size=30
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=heavy_words, tie=st.sampled_from(["lexical", "hf"]), top_k=st.integers(0, 5), low=st.integers(0, 24))
def test_low_count_lists_keep_merges_and_top_pairs_exact(words, tie, top_k, low):
    """Every merge and its top pairs equal a full recount's whatever counts wait outside the heap."""
    from bpe import train_loop
    from bpe.reference import get_stats
    from bpe.visible import hf_rank_table

    hf = hf_rank_table()
    key = (lambda p: p) if tie == "lexical" else (lambda p: (hf.get(p[0], p[0]), hf.get(p[1], p[1])))
    saved, train_loop.LOW_COUNTS = train_loop.LOW_COUNTS, low
    try:
        run = bpe.train(words, 256 + 60, pattern=None, tie_break=tie, backend="chunks", top_k=top_k)
    finally:
        train_loop.LOW_COUNTS = saved
    assert [(m.pair, m.count) for m in run.merges] == train_reference(words, 60, pattern=None, tie_break=tie)
    chunks = [[ord(c) for c in word] for word in words]
    weights = list(words.values())
    for m in run.merges:
        expected = sorted(get_stats(chunks, weights).items(), key=lambda pc: (-pc[1], key(pc[0])))
        assert m.top_pairs == tuple(expected[: max(top_k, 1)])
        chunks = [merge_ids(ids, m.pair, m.id) for ids in chunks]
