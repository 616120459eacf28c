"""The replay forest (bpe.replay): a run replayed on a text at any merge step.

Expected values are worked out by hand from small texts (``aaabdaaabac``: merge ``a a`` (4 times), then
``a b`` tied with ``aa a`` (2 each), 11 -> 9 -> 7 tokens), or come from an independent path (the library's
``Tokenizer.encode`` with the first k merges), never from the code under test.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import appstate.sources
import bpe
from bpe.replay import MergeIndex, Replay, chunk_forest, heldout_token_counts

A, B, C, D = 97, 98, 99, 100


def replay(run, text):
    return Replay.build(run, MergeIndex(run), text)


def test_replay_classic_token_counts_and_ids(classic):
    rep = replay(classic, "aaabdaaabac")
    assert [rep.count_at(k) for k in range(4)] == [11, 9, 7, 5]
    assert rep.ids_at(0) == [A, A, A, B, D, A, A, A, B, A, C]
    assert rep.ids_at(1) == [256, A, B, D, 256, A, B, A, C]
    assert rep.ids_at(2) == [256, 257, D, 256, 257, A, C]
    assert rep.ids_at(3) == [258, D, 258, A, C]


def test_replay_tokens_carry_ids_and_offsets(classic):
    tokens = replay(classic, "aaabdaaabac").tokens_at(3)
    assert [(i, start) for i, start, _ in tokens] == [(258, 0), (D, 4), (258, 5), (A, 9), (C, 10)]


def test_overlapping_pair_merges_left_to_right():
    # "aaaa": (a, a) occurs 3 times (overlapping) but is merged twice, left to right
    run = bpe.train("aaaa", 257, pattern=None)
    assert run.merges[0].count == 3
    assert replay(run, "aaaaa").ids_at(1) == [256, 256, A]


def test_chunk_forest_marks_who_consumed_whom():
    nodes = chunk_forest([A, B, A, B], {(A, B): 0, (256, 256): 1}, 256)
    made_by = {(s, e, i): (m, p) for s, e, i, m, p in nodes}
    assert made_by[(0, 2, 256)] == (0, 1)  # made by merge 0, consumed by merge 1
    assert made_by[(0, 4, 257)][0] == 1
    assert made_by[(0, 1, A)] == (-1, 0)


def test_chunk_starts_follow_the_pretokenizer():
    run = bpe.train("hello hello world", 260, pattern="gpt2")
    rep = replay(run, "hello world")
    assert rep.chunk_starts == {5}  # " world" starts at byte 5
    assert [start for _, start, _ in rep.tokens_at(0)] == list(range(11))


def test_special_tokens_stay_whole_and_marked():
    run = bpe.train("ab<|x|>ab<|x|>ab", 258, pattern=None, special_tokens=["<|x|>"])
    tokens = replay(run, "ab<|x|>ab").tokens_at(1)
    x = run.special_tokens["<|x|>"]
    assert tokens == [(256, 0, False), (x, 2, True), (256, 7, False)]


def test_char_level_replay():
    run = bpe.train("aaabdaaabac", 5, pattern=None, level="char")  # alphabet a b c d = 4, one merge
    rep = replay(run, "aaabdaaabac")
    assert rep.count_at(1) == 9
    assert rep.index.data(rep.ids_at(1)[0]) == b"aa"


texts = st.text(alphabet=st.sampled_from(list("ab c\n.éé😀")), min_size=0, max_size=40)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    train_text=texts.filter(bool),
    shown=texts,
    pattern=st.sampled_from(["gpt4", None, "gpt2"]),
    merges=st.integers(0, 30),
)
def test_replay_equals_encoding_with_the_first_k_merges(train_text, shown, pattern, merges):
    """Whatever the text and k, the replay shows exactly what the tokenizer with k merges encodes."""
    run = bpe.train(train_text, 256 + merges, pattern=pattern)
    index = MergeIndex(run)
    rep = Replay.build(run, index, shown)
    counts = heldout_token_counts(run, index, shown)
    for k in range(len(run.merges) + 1):
        expected = run.tokenizer(k).encode(shown)
        assert rep.ids_at(k) == expected
        assert counts[k] == len(expected)


def test_heldout_counts_on_the_classic_example(classic):
    # "aaab" -> a a a b; aa a b; aa ab; aaab
    assert heldout_token_counts(classic, MergeIndex(classic), "aaab") == [4, 3, 2, 1]


def test_a_sentencepiece_style_run_replays_rare_characters_as_hugging_face_encodes_them(tmp_path):
    """A run trained as the player trains SentencePiece-style (character coverage 0.995: the rarest characters
    left to byte fallback), exported to tokenizer.json and loaded by Hugging Face tokenizers: the replay's last
    step is HF's ids on the torture set, the player's samples and text with characters never seen."""
    tokenizers = pytest.importorskip("tokenizers")
    from tests.torture import TORTURE

    text = appstate.sources.sample("multilingual").text
    run = bpe.train(text, 900, family="sentencepiece", tie_break="hf", character_coverage=0.995)
    [path] = bpe.save(run.tokenizer(), tmp_path / "tokenizer.json")
    hf = tokenizers.Tokenizer.from_file(str(path))
    index = MergeIndex(run)
    seen_fallback = False
    for s in TORTURE + [text, appstate.sources.sample("emoji").text, "🦜 中文 ﬁ"]:
        rep = Replay.build(run, index, bpe.normalize_text(s, run.normalize))
        ids = hf.encode(s, add_special_tokens=False).ids
        assert rep.ids_at(len(run.merges)) == ids, s[:40]
        assert rep.count_at(0) == heldout_token_counts(run, index, s)[0]
        seen_fallback |= any(index.fallback_byte(i) is not None for i in ids)
    assert seen_fallback
