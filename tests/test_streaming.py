"""``Tokenizer.encode_iterable``: the ids of ``encode("".join(pieces))``, exactly, however the text is cut, and
memory that does not grow with the stream.

The oracle is ``encode`` on the whole text (itself equal to tiktoken / Hugging Face in the vocabulary tests).
The stream's window is set to one character here, so every piece makes the encoder look for a cut: each cut
the tests make is a place where a chunk could be split.
"""

from __future__ import annotations

import random
import tracemalloc

import pytest
from torture import TORTURE

import bpe
from bpe import encoding_api

CUTS = [
    "\n\n",
    "hello world",
    "it's",
    "don't",
    "1234567",
    "   \n  x",
    "a\r\n\r\nb",
    "<|endoftext|>",
    "x<|endoftext|>y <|fim_prefix|>",
    "é\u0301",
    "e\u0301\u0301",
    "\u1100\u1161\u11a8",
    "👍🏽🇺🇸",
    "CamelCaseHTTP",
    "    def f():\n        return",
    "  \t \n",
    "tabs\t\t",
    "'S 'll",
    "\u00a0\u3000x",
    "東京2024年",
    "ab cd  ef   gh",
]
TEXTS = CUTS + TORTURE


@pytest.fixture(autouse=True)
def tiny_window(monkeypatch):
    monkeypatch.setattr(encoding_api, "STREAM_WINDOW", 1)


def _tokenizers() -> list[tuple[str, bpe.Tokenizer]]:
    trained_byte = bpe.train("low lower lowest newest widest 1234 it's\n\n  x", 300, pattern="gpt4").tokenizer()
    sp = bpe.train("hello world hello there low lower", 40, family="sentencepiece").tokenizer()
    names = [n for n in ["cl100k_base", "o200k_base", "gpt2", "qwen3", "deepseek_v3", "llama3"] if bpe.is_installed(n)]
    return [(n, bpe.get_encoding(n)) for n in names] + [("trained", trained_byte), ("sentencepiece", sp)]


@pytest.fixture(scope="module", params=_tokenizers(), ids=lambda p: p[0])
def tok(request) -> bpe.Tokenizer:
    return request.param[1]


def _encode(tok: bpe.Tokenizer, text: str, **kw) -> list[int]:
    if tok.level == "char":
        text = "".join(ch for ch in text if ch.isascii() and ch.isprintable() or ch == " ")
    return tok.encode(text, **kw)


def _clean(tok: bpe.Tokenizer, text: str) -> str:
    if tok.level == "char":  # a tiny char-level alphabet: keep the characters it can encode
        return "".join(ch for ch in text if ch in "".join(str(t) for t in tok.vocab.values()) or ch == " ")
    return text


def test_every_cut_in_two_gives_the_whole_texts_ids(tok):
    for text in TEXTS:
        text = _clean(tok, text)
        want = tok.encode(text, disallowed_special=())
        for i in range(len(text) + 1):
            got = list(tok.encode_iterable([text[:i], text[i:]], disallowed_special=()))
            assert got == want, (text, i)


def test_a_character_at_a_time_and_random_pieces(tok):
    rng = random.Random(7)
    for text in TEXTS + ["\n".join(TORTURE)]:
        text = _clean(tok, text)
        want = tok.encode(text, disallowed_special=())
        assert list(tok.encode_iterable(iter(text), disallowed_special=())) == want, text
        for _ in range(3):
            cuts = sorted(rng.sample(range(len(text) + 1), min(len(text) + 1, rng.randint(1, 12))))
            pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
            assert list(tok.encode_iterable(pieces, disallowed_special=())) == want, (text, cuts)


def test_random_texts_of_boundary_characters():
    """Fuzz: texts drawn from the characters where chunks meet (spaces, newlines, apostrophes, digits, case,
    combining marks, specials), cut at random."""
    rng = random.Random(33)
    alphabet = [
        " ",
        "  ",
        "\n",
        "\r\n",
        "\t",
        "'",
        "'s",
        "a",
        "B",
        "1",
        "22",
        "é",
        "\u0301",
        "😀",
        ".",
        "!?",
        "<|endoftext|>",
        "<|endof",
        "|>",
        "\u00a0",
        "東",
    ]
    for name in ["cl100k_base", "o200k_base", "gpt2"]:
        tok = bpe.get_encoding(name)
        for _ in range(150):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
            cuts = sorted(rng.sample(range(len(text) + 1), min(len(text) + 1, rng.randint(1, 8))))
            pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)])]
            for kw in ({"allowed_special": "all"}, {"disallowed_special": ()}):
                assert list(tok.encode_iterable(pieces, **kw)) == tok.encode(text, **kw), (name, pieces, kw)


def test_special_tokens_cut_in_two_are_carried_over_and_a_disallowed_one_still_raises():
    tok = bpe.get_encoding("cl100k_base")
    text = "a<|endoftext|>b<|fim_prefix|><|endoftext|>"
    want = tok.encode(text, allowed_special="all")
    assert list(tok.encode_iterable(iter(text), allowed_special="all")) == want
    assert (
        list(tok.encode_iterable(["a<|endo", "ftext|", ">b<|fim_prefix|><", "|endoftext|>"], allowed_special="all"))
        == want
    )
    with pytest.raises(ValueError):
        list(tok.encode_iterable(["hi <|endof", "text|> there"]))
    assert list(tok.encode_iterable(["hi <|endof", "text|>"], disallowed_special=())) == tok.encode_ordinary(
        "hi <|endoftext|>"
    )


def test_lazy_it_yields_before_the_stream_ends():
    tok = bpe.get_encoding("gpt2")

    def stream():
        yield "hello world and more words "
        raise RuntimeError("the stream broke after its first piece")

    ids = tok.encode_iterable(stream())
    assert next(ids) == 31373  # "hello", before the generator is read again
    with pytest.raises(TypeError):
        list(tok.encode_iterable([b"bytes"]))


def _peak(tok: bpe.Tokenizer, megabytes: int) -> tuple[int, int]:
    """(ids counted, peak bytes allocated by Python) encoding a stream of ``megabytes`` MB that is never held
    whole: lines of a long run of dashes (one chunk, few ids), each chunk known to the chunk cache after the
    first (the encoder's own speed is not what is measured)."""
    line = "-" * 995 + " ok\n"
    lines = 1_000_000 * megabytes // len(line)
    tracemalloc.start()
    try:
        count = sum(1 for _ in tok.encode_iterable(line for _ in range(lines)))
        return count, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_peak_memory_is_flat_on_a_50_megabyte_stream(monkeypatch):
    monkeypatch.setattr(encoding_api, "STREAM_WINDOW", 1 << 16)
    tok = bpe.get_encoding("cl100k_base")
    tok.encode("-" * 995 + " ok\n")  # warm the chunk cache: what stays is the stream's own memory
    small_ids, small = _peak(tok, 5)
    big_ids, big = _peak(tok, 50)
    assert big_ids == 10 * small_ids
    assert big < 1.5 * small + 256_000, (small, big)
    assert big < 4_000_000  # a few windows of text, against 50 MB read
