"""Bad input to the library: each gets a clear exception (a ValueError or TypeError subclass with a
message that says what is wrong), never a hang and never a traceback from deep inside."""

from __future__ import annotations

import time

import pytest

import bpe

CATASTROPHIC = r"(a|a)+$"  # exponential backtracking even in the `regex` module (which defuses (a+)+$)


def test_empty_text():
    with pytest.raises(bpe.TrainingDataError, match="empty"):
        bpe.train("", 300)
    with pytest.raises(bpe.TrainingDataError, match="empty"):
        bpe.train([], 300)
    with pytest.raises(bpe.TrainingDataError, match="empty"):
        bpe.train({"word": 0}, 300)


def test_whitespace_only_text_trains():
    run = bpe.train("   \n\n   \t ", 260, pattern="gpt4")
    tok = run.tokenizer()
    assert tok.decode(tok.encode("  \n")) == "  \n"


@pytest.mark.parametrize("size", [0, 1, 255])
def test_vocab_size_below_the_base(size):
    with pytest.raises(bpe.TrainingDataError, match=r"below the base vocabulary.*at least 256"):
        bpe.train("hello", size)


def test_vocab_size_counts_special_tokens():
    with pytest.raises(bpe.TrainingDataError, match="at least 258"):
        bpe.train("hello", 257, special_tokens=["<|a|>", "<|b|>"])
    run = bpe.train("hello", 258, special_tokens=["<|a|>", "<|b|>"])
    assert len(run.merges) == 0 and dict(run.special_tokens) == {"<|a|>": 256, "<|b|>": 257}


@pytest.mark.parametrize("size", [10**9, "300", 3.5, None, True])
def test_vocab_size_not_usable(size):
    with pytest.raises(bpe.TrainingDataError, match="vocab_size"):
        bpe.train("hello", size)


def test_huge_vocab_size_on_small_text_stops_early_and_says_why():
    run = bpe.train("abcabc", 100_000, pattern=None)
    assert 0 < len(run.merges) < 10
    assert "no pair left" in run.stop_reason
    assert not run.complete


@pytest.mark.parametrize(
    "data,match",
    [
        (b"bytes", "not bytes"),
        (123, "not int"),
        ([1, 2], "document 0 is a int"),
        ({"a": -1}, "whole number >= 0"),
        ({1: 2}, "str keys"),
    ],
)
def test_non_text_data(data, match):
    with pytest.raises(bpe.TrainingDataError, match=match):
        bpe.train(data, 300)


def test_invalid_regex_is_a_clear_error():
    with pytest.raises(bpe.PatternError, match=r"does not compile: missing \)"):
        bpe.train("hello", 300, pattern="(")
    with pytest.raises(bpe.PatternError, match="does not compile"):
        bpe.split("hello", "[a-")


def test_runaway_regex_times_out_instead_of_hanging():
    t0 = time.perf_counter()
    with pytest.raises(bpe.PatternTimeout, match="longer than"):
        bpe.split("a" * 40 + "!", CATASTROPHIC, timeout=0.5)
    with pytest.raises(bpe.PatternTimeout):
        bpe.train("a" * 40 + "!", 300, pattern=CATASTROPHIC, timeout=0.5)
    assert time.perf_counter() - t0 < 10  # a hang detector: 1.0 s measured (2 x 0.5 s), 10x


def test_pattern_matching_the_empty_string_loses_no_text():
    result = bpe.split("ab c", r"x*")
    assert "".join(result.texts) == "ab c"
    assert result.unmatched == [(0, 4)]
    tok = bpe.train("ab c ab", 260, pattern=r"x*").tokenizer()
    assert tok.decode(tok.encode("ab c")) == "ab c"


def test_lone_surrogates():
    with pytest.raises(bpe.TrainingDataError, match="lone surrogate U\\+D800 at position 2"):
        bpe.train("ab\ud800cd", 300)
    tok = bpe.train("abcd", 257).tokenizer()
    with pytest.raises(ValueError, match="lone surrogate"):
        tok.encode("x\udfffy")


def test_bad_options():
    with pytest.raises(bpe.TrainingDataError, match="tie_break"):
        bpe.train("abc", 300, tie_break="random")
    with pytest.raises(bpe.TrainingDataError, match="level"):
        bpe.train("abc", 300, level="word")
    with pytest.raises(bpe.TrainingDataError, match="min_frequency"):
        bpe.train("abc", 300, min_frequency=0)
    with pytest.raises(ValueError, match="normalization"):
        bpe.train("abc", 300, normalize="NFX")
    with pytest.raises(bpe.TrainingDataError, match="special tokens"):
        bpe.train("abc", 300, special_tokens=[""])


def test_special_tokens_in_text():
    run = bpe.train("hi<|endoftext|>hi<|endoftext|>", 256 + 5, pattern="gpt4", special_tokens=["<|endoftext|>"])
    assert all(b"<|" not in m.token for m in run.merges)  # never merged, never split
    tok = run.tokenizer()
    eot = run.special_tokens["<|endoftext|>"]
    with pytest.raises(bpe.DisallowedSpecialError, match="allowed_special"):
        tok.encode("a<|endoftext|>b")
    assert tok.encode("a<|endoftext|>b", allowed_special="all")[1] == eot
    plain = tok.encode("a<|endoftext|>b", disallowed_special=())
    assert eot not in plain and tok.decode(plain) == "a<|endoftext|>b"


def test_decode_rejects_unknown_ids_and_strict_mode_raises():
    tok = bpe.train("héllo", 256, pattern=None).tokenizer()
    with pytest.raises(ValueError, match="unknown token id 999"):
        tok.decode([999])
    partial = tok.encode("é")[:1]
    assert tok.decode(partial) == "\ufffd"
    with pytest.raises(UnicodeDecodeError):
        tok.decode(partial, errors="strict")


def test_tokenizer_k_out_of_range():
    run = bpe.train("aaabdaaabac", 258, pattern=None)
    with pytest.raises(ValueError, match="from 0 to 2"):
        run.tokenizer(5)
    with pytest.raises(ValueError, match="from 0 to 2"):
        run.tokenizer(-1)


def test_unknown_pattern_name_is_treated_as_regex_and_must_compile():
    # "gpt5" is not a registry name: it is taken as a (valid) regex matching the literal text "gpt5".
    result = bpe.split("a gpt5 b", "gpt5")
    assert [c.text for c in result if c.branch is not None] == ["gpt5"]
