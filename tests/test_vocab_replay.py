"""Recovering merges from ranks and replaying a real vocabulary on a text, checked against tiktoken."""

from __future__ import annotations

from pathlib import Path

import pytest
from tiktoken_reference import tiktoken_encoding

import bpe
from bpe.vocab_replay import MAX_REPLAY_BYTES, recover_merges, recover_pair, replay

ENGLISH = (Path(__file__).resolve().parents[1] / "sample_texts" / "english.txt").read_text(encoding="utf-8")
MULTI = (Path(__file__).resolve().parents[1] / "sample_texts" / "multilingual.txt").read_text(encoding="utf-8")


def test_recovered_merges_build_every_token_from_two_lower_ranked_ones():
    tok = bpe.load_pretrained("cl100k_base")
    merges = recover_merges(tok)
    assert len(merges) == 100_000 and recover_merges(tok) is merges  # computed once
    enc = tiktoken_encoding("cl100k_base")
    for m in merges[::97]:
        left, right = m.pair
        assert left < m.new_id and right < m.new_id
        assert enc.decode_single_token_bytes(left) + enc.decode_single_token_bytes(
            right
        ) == enc.decode_single_token_bytes(m.new_id)
        # tiktoken itself, encoding the token's bytes with only lower ranks available, ends with that pair
    assert [m.order for m in merges] == sorted(m.order for m in merges)


def test_a_hand_made_vocabulary_where_ranks_and_learned_pairs_differ():
    # ranks: a b c, "bc" 3, "ab" 4, "abc" 5. The recovered pair of "abc" is ("a", "bc") (BPE with lower
    # ranks merges "bc" first); a merge list learned as ab, then ab+c would say ("ab", "c").
    base = {bytes([i]): i for i in range(256)}
    vocab = {r: t for t, r in base.items()}
    vocab.update({256: b"bc", 257: b"ab", 258: b"abc", 259: b"xab"})
    tok = bpe.Tokenizer.from_ranks({t: i for i, t in vocab.items()}, pattern=None)
    assert recover_pair(tok, 258) == (ord("a"), 256)
    assert recover_pair(tok, 259) == (ord("x"), 257)
    rep = replay(tok, "abc xab")  # one chunk (no pattern)
    assert rep.ids_at(len(rep.steps)) == tok.encode("abc xab") == [258, 32, 259]
    assert [(s.new_id, s.pair) for s in rep.steps] == [
        (256, (98, 99)),
        (257, (97, 98)),
        (258, (97, 256)),
        (259, (120, 257)),
    ]
    assert [s.new_id for s in rep.steps] == sorted(s.new_id for s in rep.steps)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@pytest.mark.parametrize("text", [ENGLISH, MULTI, "<|endoftext|> hello <|endoftext|>\n\n  world  "])
def test_the_last_step_is_tiktoken_and_every_step_is_consistent(name, text):
    tok = bpe.load_pretrained(name)
    enc = tiktoken_encoding(name)
    rep = replay(tok, text)
    n = len(rep.steps)
    assert rep.ids_at(n) == enc.encode(text, allowed_special="all")
    assert rep.count_at(0) == len(text.encode("utf-8")) - sum(
        len(s.encode()) - 1 for s in tok.special_tokens for _ in range(text.count(s))
    )
    orders = [s.order for s in rep.steps]
    assert orders == sorted(set(orders))
    previous = rep.count_at(0)
    for k in (1, 2, 3, n // 2, n):
        step = rep.steps[k - 1]
        ids = rep.ids_at(k)
        assert len(ids) == rep.count_at(k) == step.tokens_after
        assert b"".join(tok.token_bytes(i) for i in ids) == text.encode("utf-8")
        assert step.token == tok.token_bytes(step.new_id)
        left, right = step.pair
        assert tok.token_bytes(left) + tok.token_bytes(right) == step.token
        assert step.count >= 1
        # the step made exactly `count` new tokens (no cascades on these texts)
        assert step.cascade == 0 and len(rep.new_at(k)) == step.count
        assert all(ids[j] == step.new_id for j in rep.new_at(k))
        assert step.tokens_after <= previous
        previous = step.tokens_after
    offsets = [o for _, o, _ in rep.tokens_at(n)]
    assert offsets == sorted(offsets) and offsets[0] == 0


def test_llama3_replay_reaches_its_ids_although_some_ranks_do_not_rise():
    tok = bpe.load_pretrained("llama3")
    from testkit import corpora

    text = corpora.multilingual(150_000)
    rep = replay(tok, text)
    assert rep.ids_at(len(rep.steps)) == tok.encode(text, allowed_special="all")
    assert any(s.cascade for s in rep.steps) or any(s.lookups for s in rep.steps)


def test_deepseek_merge_list_replay_reaches_hugging_faces_ids():
    tok = bpe.load_pretrained("deepseek_v3")
    rep = replay(tok, MULTI)
    assert rep.ids_at(len(rep.steps)) == tok.encode(MULTI)
    assert all(s.other_pairs == () for s in rep.steps)  # a merge list has one pair per token


def test_bad_input_is_refused():
    tok = bpe.load_pretrained("cl100k_base")
    with pytest.raises(ValueError, match="at most"):
        replay(tok, "a" * (MAX_REPLAY_BYTES + 1))
    with pytest.raises(ValueError, match="not special tokens"):
        replay(tok, "x", allowed_special={"<|nope|>"})
    with pytest.raises(TypeError):
        replay(tok, b"x")
    rep = replay(tok, "hi")
    with pytest.raises(ValueError, match="from 0 to"):
        rep.tokens_at(len(rep.steps) + 1)
    assert replay(tok, "").steps == () and replay(tok, "").ids_at(0) == []
    # a char-level merge list replays where its tokens spell the text: "ab" is a + b -> ab (by hand); a character
    # outside its alphabet, with neither byte fallback nor an unknown token, is refused with a sentence
    char_level = bpe.train({"ab": 3}, 3, level="char").tokenizer()
    rep = replay(char_level, "ab")
    assert [s.token for s in rep.steps] == [b"ab"] and rep.ids_at(0) == [0, 1] and rep.ids_at(1) == [2]
    with pytest.raises(ValueError, match="cannot be replayed on this text: 'z' .* not in this char-level"):
        replay(char_level, "abz")


# ----------------------------------------------------------------------------------------------------
# SentencePiece-style tokenizer.json files (Llama 2, Mistral 7B): built with Hugging Face tokenizers' own API


@pytest.fixture(scope="module")
def llama_files():
    pytest.importorskip("tokenizers")
    from testkit import corpora
    from testkit.sentencepiece_files import llama_like

    corpus = corpora.english(40_000) + corpora.multilingual(12_000)
    return [
        (hf, bpe.loads({"tokenizer.json": hf.to_str().encode()}))
        for hf in (llama_like(corpus, 700, legacy=True), llama_like(corpus, 700, legacy=False))
    ]


def test_a_sentencepiece_style_tokenizer_json_replays_to_hugging_faces_ids(llama_files):
    """Llama 2's layout (Prepend + Replace normalizers) and the newer Metaspace(prepend_scheme="first"): the last
    step's ids are HF's own on the torture set, Unicode edges and the multilingual sample; every step's tokens
    spell the text as the tokenizer sees it (spaces as ▁), and characters it lacks are <0xNN> tokens."""
    from tests.torture import TORTURE

    texts = TORTURE + [MULTI, "🦜 parrot <s> special </s>", "  two  spaces ", "", "ﬁ ① ½ 中文"]
    for hf, tok in llama_files:
        for text in texts:
            rep = replay(tok, text)
            n = len(rep.steps)
            assert rep.ids_at(n) == hf.encode(text, add_special_tokens=False).ids, text[:40]
            for k in {0, n // 3, n}:
                assert b"".join(tok.token_bytes(i) for i in rep.ids_at(k)) == rep.text.encode(), (text[:40], k)
                assert rep.nodes().tokens_at(k) == rep.tokens_at(k)
            assert [s.tokens_after for s in rep.steps[-1:]] == [len(rep.ids_at(n))] * bool(n)
        rep = replay(tok, "a 🦜")
        assert "▁" in rep.text and [tok.token_text(i) for i in rep.ids_at(len(rep.steps))][-4:] == [
            "<0xF0>",
            "<0x9F>",
            "<0xA6>",
            "<0x9C>",
        ]


def test_a_tokenizer_whose_tokens_do_not_spell_the_text_is_refused_saying_why():
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import models, pre_tokenizers, trainers

    quick = tokenizers.Tokenizer(models.BPE(unk_token="[UNK]"))
    quick.pre_tokenizer = pre_tokenizers.Whitespace()
    quick.train_from_iterator([ENGLISH], trainer=trainers.BpeTrainer(vocab_size=400, special_tokens=["[UNK]"]))
    tok = bpe.loads({"tokenizer.json": quick.to_str().encode()})
    for text in ("hello world", "helloworld"):  # refused whatever the text: Whitespace drops the spaces
        with pytest.raises(ValueError, match=r"its pipeline \(Whitespace\) drops characters"):
            replay(tok, text)
    sp = tokenizers.SentencePieceBPETokenizer()  # <unk>, no byte tokens
    sp.train_from_iterator([ENGLISH], vocab_size=400, min_frequency=2, show_progress=False)
    tok = bpe.loads({"tokenizer.json": sp.to_str().encode()})
    rep = replay(tok, "the words")
    assert rep.ids_at(len(rep.steps)) == sp.encode("the words").ids
    with pytest.raises(ValueError, match=r"'🦜' \(U\+1F99C\) is not in its vocabulary and it has no byte fallback"):
        replay(tok, "the 🦜")
