"""bpe.incremental: a text re-encoded edit by edit gives exactly the ids of encoding the whole text again --
for every registry vocabulary and a tokenizer trained here, with bursts of random edits aimed at the places
where a local re-encode could go wrong (chunk boundaries, inside special tokens, emoji and CJK, whitespace runs,
digit groups). GPT-4 and GPT-4o are also checked against tiktoken itself (an independent encoder)."""

from __future__ import annotations

import random

import pytest
from tiktoken_reference import tiktoken_encoding

import bpe
from bpe.incremental import IncrementalEncoder, NotIncremental, can_edit_incrementally

NAMES = [spec.name for spec, ok in bpe.pretrained_status() if ok]

BASE = (
    "Hello world! It's 12345678 o'clock.  \n\n  Spaces   and\ttabs\t\t\n"
    "日本語のテキスト、中文文本。 Emoji: 👨‍👩‍👧‍👦 🇫🇷 👍🏽 café naïve\n"
    "<|endoftext|> special <|fim_prefix|>x<|fim_suffix|> [INST] hi [/INST] <s></s> <think>ok</think>\n"
    "def f(x):\n    return x**2  # comment\n\n\n" + "word " * 20 + "1234567890 " * 3
)

PIECES = [
    "",
    " ",
    "  ",
    "\n",
    "\n\n",
    "\t",
    "a",
    "Z",
    "'s",
    "'S",
    "12",
    "3",
    "12345",
    "日本",
    "文",
    "👨‍👩",
    "🇫",
    "🏽",
    "é",
    "<|",
    "|>",
    "<|endoftext|>",
    "endoftext",
    "<|endof",
    "text|>",
    "<s>",
    "[INST]",
    "<think>",
    ".",
    "...",
    "!?",
    "x" * 40,
    "   \n  ",
    "-",
    "_name",
    ".com",
    "Ünïcödé",
]


def _specials(tok, text, specials):
    return tok.encode(text, allowed_special="all") if specials and tok.special_tokens else tok.encode_ordinary(text)


def _random_edit(rng: random.Random, text: str) -> tuple[int, int, str]:
    at = rng.randint(0, len(text))
    if rng.random() < 0.5 and text:
        # aim at a boundary the text has: around a special token, a space, a digit, a CJK character, an emoji
        marks = [i for i, ch in enumerate(text) if ch in " <|>\n\t1日👨🇫é["] or [0]
        at = min(len(text), max(0, rng.choice(marks) + rng.randint(-2, 3)))
    removed = min(len(text) - at, rng.choice([0, 0, 1, 1, 2, 3, 7, 15]))
    inserted = "".join(rng.choice(PIECES) for _ in range(rng.choice([0, 1, 1, 2, 3])))
    return at, removed, inserted


def _burst(tok, specials: bool, seed: int, n: int = 60, check=None) -> None:
    rng = random.Random(seed)
    if tok.normalize == "NFC":
        base = bpe.normalize_text(BASE, "NFC")
    else:
        base = BASE
    inc = IncrementalEncoder(tok, base, specials=specials)
    assert list(inc.ids) == _specials(tok, base, specials)
    text = base
    for step in range(n):
        at, removed, inserted = _random_edit(rng, text)
        new = text[:at] + inserted + text[at + removed :]
        if tok.normalize == "NFC" and bpe.normalize_text(new, "NFC") != new:
            with pytest.raises(NotIncremental):
                inc.edit(at, removed, inserted)
            inc = IncrementalEncoder(tok, text, specials=specials)  # (the page encodes such a text whole)
            continue
        before = list(inc.ids)
        first, deleted, new_ids = inc.edit(at, removed, inserted)
        text = new
        want = _specials(tok, text, specials)
        assert list(inc.ids) == want, (step, at, removed, inserted)
        assert before[:first] + new_ids + before[first + deleted :] == want  # the splice it reports
        assert inc.special_count == sum(map(tok.is_special, want))
        if check is not None:
            assert list(inc.ids) == check(text), (step, at, removed, inserted)


@pytest.mark.parametrize("specials", [True, False])
@pytest.mark.parametrize("name", NAMES)
def test_random_edit_bursts_equal_a_full_encode(name, specials):
    tok = bpe.load_pretrained(name)
    assert can_edit_incrementally(tok)
    _burst(tok, specials, seed=hash(name) % 1000 + specials)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_random_edit_bursts_equal_tiktoken(name):
    enc = tiktoken_encoding(name)
    _burst(bpe.load_pretrained(name), True, seed=7, n=40, check=lambda text: enc.encode(text, allowed_special="all"))


@pytest.mark.parametrize("pattern", ["gpt4", "gpt2", None])
def test_random_edit_bursts_trained_tokenizer(pattern):
    tok = bpe.train(BASE * 3, 400, pattern=pattern, special_tokens=["<|endoftext|>"]).tokenizer()
    _burst(tok, True, seed=3, n=40)


def test_from_empty_and_back():
    tok = bpe.load_pretrained("cl100k_base")
    inc = IncrementalEncoder(tok, "")
    assert list(inc.ids) == []
    inc.edit(0, 0, "hello there")
    assert list(inc.ids) == tok.encode("hello there")
    inc.edit(0, 11, "")
    assert list(inc.ids) == [] and inc.text == ""


def test_a_one_character_edit_of_a_long_text_reencodes_a_few_chunks():
    tok = bpe.load_pretrained("cl100k_base")
    text = "The quick brown fox jumps over the lazy dog. " * 20_000
    inc = IncrementalEncoder(tok, text)
    first, deleted, new = inc.edit(450_000, 0, "x")
    assert deleted < 20 and len(new) < 20
    assert list(inc.ids) == tok.encode(inc.text)


def test_refuses_what_it_cannot_do_locally():
    tok = bpe.train("aab aab", 260, pattern=r"\w+|\W").tokenizer()  # a custom pattern (may look behind)
    assert not can_edit_incrementally(tok)
    with pytest.raises(NotIncremental):
        IncrementalEncoder(tok, "aab")
    with pytest.raises(ValueError):
        IncrementalEncoder(bpe.load_pretrained("cl100k_base"), "abc").edit(2, 5, "")


def test_an_nfc_tokenizer_refuses_exactly_the_edits_that_make_the_text_not_nfc():
    # (the check after an edit looks only between the ASCII characters around it: a combining mark typed after
    # a letter, a Hangul vowel after a leading consonant, far from or next to ASCII, must still be caught)
    import unicodedata

    tok = bpe.load_pretrained("qwen3")
    pieces = ["\u0301", "\u0323", "e", "\u1100", "\u1161", "\u11a8", "가", " ", "x", "日本", "\u0958", "é", ""]
    rng = random.Random(4)
    text = "한국어 텍스트와 café, 日本語の文章" * 3
    inc = IncrementalEncoder(tok, text)
    refused = 0
    for _ in range(300):
        at = rng.randint(0, len(text))
        removed = min(len(text) - at, rng.choice([0, 0, 1, 2]))
        inserted = "".join(rng.choice(pieces) for _ in range(rng.choice([1, 1, 2])))
        new = text[:at] + inserted + text[at + removed :]
        if not unicodedata.is_normalized("NFC", new):
            refused += 1
            with pytest.raises(NotIncremental):
                inc.edit(at, removed, inserted)
            inc = IncrementalEncoder(tok, text)
            continue
        inc.edit(at, removed, inserted)
        text = new
        assert list(inc.ids) == tok.encode(text, allowed_special="all")
    assert refused > 20
