"""What the format tests share (tests/test_formats*.py): the training text, the held-out text and the
tokenizer trained on it, each made once per process (``functools.cache``: a 300 kB training and a 120 kB
held-out text that both modules read and never change)."""

from __future__ import annotations

import functools

import bpe
from testkit import corpora

SPECIALS = ["<|endoftext|>", "<|pad|>"]
EXTRA = (
    "Numbers 1234567 and 3.14159; DON'T we'll \n\n\n  spaces   \t\n"
    "日本語のテキスト 한국어 مرحبا नमस्ते 👨‍👩‍👧 👍🏽 🇺🇸 café café\r\n"
)
#: tiktoken's cl100k pattern as written for ``tokenizers`` users (no possessive interval)
HF_GPT4_REGEX = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""

#: numbers, so that digit merges exist (Austen has few) and digit grouping matters
NUMBERS = " ".join(f"{1700 + (i * 37) % 400} {i * 7919 % 100000}" for i in range(2000))


@functools.cache
def training_text() -> str:
    return corpora.english(300_000) + "\n" + NUMBERS


@functools.cache
def held_out() -> str:
    return (
        corpora.held_out_english(60_000)
        + corpora.multilingual(30_000)
        + corpora.python_code(30_000)
        + EXTRA
        + " ".join(f"{i * 104729 % 10**7}" for i in range(500))
    )


def train(text: str, pattern, **kwargs) -> bpe.Tokenizer:
    return bpe.train(text, kwargs.pop("vocab_size", 1200), pattern=pattern, tie_break="hf", **kwargs).tokenizer()


@functools.cache
def trained() -> bpe.Tokenizer:
    """GPT-4's pattern and two special tokens on :func:`training_text` (read only by every test)."""
    return train(training_text(), "gpt4", special_tokens=SPECIALS)


def with_specials(text: str) -> str:
    return text[:5000] + "<|endoftext|>" + text[5000:9000] + "<|pad|><|endoftext|>" + text[9000:]
