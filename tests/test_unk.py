"""Char-level unknown characters: an ``unk_token`` with Hugging Face BPE's semantics (checked against
``tokenizers``), and the word-frequency lesson's pipeline (seed 002: ``<pad>``, ``<unk>``, ``unbelievably``)."""

from __future__ import annotations

import json

import pytest
from test_seeds import TOY, _seed_002_train  # seed 002's word-frequency corpus and its pipeline

import bpe
from bpe import formats

ALPHABET = sorted({c for w in TOY for c in w})
WORDS = ["the", "unbelievable", "believable", "unable", "foxes", "unbelievably", "xyz", "fox!?y", "yyy", "zebras", "q"]


def _ours(fuse: bool) -> bpe.Tokenizer:
    run = bpe.train(
        TOY,
        len(ALPHABET) + 2 + 16,
        level="char",
        special_tokens=["<pad>", "<unk>"],
        unk_token="<unk>",
        fuse_unk=fuse,
        tie_break="hf",
        pattern=None,
    )
    return run.tokenizer()


def _hf(fuse: bool, split: bool = False):
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE(unk_token="<unk>", fuse_unk=fuse))
    tok.pre_tokenizer = (
        pre_tokenizers.Split(Regex(r"\S+|\s+"), "isolated") if split else pre_tokenizers.WhitespaceSplit()
    )
    trainer = trainers.BpeTrainer(
        vocab_size=len(ALPHABET) + 2 + 16, special_tokens=["<pad>", "<unk>"], show_progress=False
    )
    tok.train_from_iterator([w for w, c in TOY.items() for _ in range(c)], trainer)
    return tok


@pytest.mark.parametrize("fuse", [False, True])
def test_unknown_characters_encode_like_hugging_face_bpe(fuse):
    ours, hf = _ours(fuse), _hf(fuse)
    for word in WORDS:
        assert [ours.token_text(i) for i in ours.encode(word)] == hf.encode(word).tokens, word
        assert len(ours.encode_pieces(word)) == len(ours.encode(word))
        assert "".join(ours.encode_pieces(word)) == word


def test_the_lessons_pipeline_end_to_end():
    run = bpe.train(
        TOY,
        len(ALPHABET) + 2 + 16,
        level="char",
        special_tokens=["<pad>", "<unk>"],
        unk_token="<unk>",
        tie_break="first",
        pattern=None,
    )
    tok = run.tokenizer()
    pad, unk = tok.special_tokens["<pad>"], tok.special_tokens["<unk>"]
    assert tok.unk_id == unk and pad != unk
    ids = tok.encode("unbelievably")
    pieces = tok.encode_pieces("unbelievably")
    # the seed notebook's own loop gives the pieces; 'y', never seen, becomes the unknown token
    _, seed_tokenize = _seed_002_train(TOY, 16)
    assert pieces == seed_tokenize("unbelievably") and pieces[-1] == "y"
    assert [tok.token_text(i) for i in ids] == pieces[:-1] + ["<unk>"]
    assert ids[-1] == unk and unk not in ids[:-1]
    assert tok.decode(ids) == "unbelievabl<unk>"
    assert tok.encode("<pad>", allowed_special="all") == [pad]
    # a trace through the unknown character, and a merge-limited tokenizer keep the unknown token
    assert tok.encode_trace("by")[-1].ids[-1] == unk
    assert run.tokenizer(2).encode("y") == [unk]


def test_without_an_unknown_token_the_clear_error_stays():
    tok = bpe.train(TOY, len(ALPHABET) + 16, level="char", pattern=None).tokenizer()
    with pytest.raises(bpe.UnknownCharacterError, match=r"'y'.*unk_token"):
        tok.encode("unbelievably")


def test_unknown_token_rules():
    with pytest.raises(bpe.TrainingDataError, match="byte-level"):
        bpe.train("abc", 258, unk_token="<unk>")
    run = bpe.train({"ab": 3}, 5, level="char", unk_token="<unk>")  # added to the special tokens
    assert run.special_tokens == {"<unk>": 3} and run.tokenizer().encode("ac") == [0, 3]
    with pytest.raises(ValueError, match="must be one of the special tokens"):
        bpe.Tokenizer.from_char_merges({0: "a"}, {}, pattern=None, unk_token="<unk>")
    with pytest.raises(TypeError, match="unk_token"):  # a byte-level tokenizer never meets an unknown character
        bpe.Tokenizer.from_merges(
            {i: bytes([i]) for i in range(256)}, {}, special_tokens={"<unk>": 256}, unk_token="<unk>"
        )  # type: ignore[call-arg]


@pytest.mark.parametrize("fuse", [False, True])
def test_exports_carry_the_unknown_token(tmp_path, fuse):
    from tokenizers import Tokenizer

    ours = _ours(fuse)
    data = formats.to_hf_json(ours)
    assert data["model"]["unk_token"] == "<unk>" and data["model"]["fuse_unk"] is fuse
    theirs = Tokenizer.from_str(json.dumps(data))
    for word in WORDS:
        assert theirs.encode(word, add_special_tokens=False).ids == ours.encode(word), word
    bpe.save(ours, tmp_path / "t", format="hf")
    back = bpe.load(tmp_path / "t")
    assert back.unk_token == "<unk>" and back.fuse_unk is fuse
    assert all(back.encode(w) == ours.encode(w) for w in WORDS)
    config = json.loads(bpe.dumps(ours, "transformers")["tokenizer_config.json"])
    assert config["unk_token"] == "<unk>"


def test_a_hugging_face_char_level_file_with_an_unknown_token_loads():
    hf = _hf(True, split=True)
    tok = formats.from_hf_json(json.loads(hf.to_str()))
    assert tok.level == "char" and tok.unk_token == "<unk>" and tok.fuse_unk
    for text in WORDS + [" ".join(WORDS)]:
        assert tok.encode(text) == hf.encode(text).ids, text


def test_an_unknown_character_is_refused_however_warm_the_cache():
    # The chunk cache looks a batch up in one pass once it holds at least as many chunks as the batch; the
    # unknown character's error must still reach the caller (it was once swallowed as "no miss left", and the
    # token tax got None for the ids).
    tok = bpe.train({"abc ": 5}, 10, level="char").tokenizer()
    warm = " ".join("abc"[: 1 + i % 3] * (1 + i // 3) for i in range(300))
    tok.encode(warm)
    with pytest.raises(bpe.UnknownCharacterError, match="alphabet"):
        tok.encode("abc αβγ")
