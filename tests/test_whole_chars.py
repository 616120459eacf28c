"""Starting safe characters whole (bpe/whole_chars.py) changes no id.

Checked against the plain rule on bytes (:func:`bpe.merging.apply_ranks`, which never starts a character
whole): hand-built vocabularies where a character must not start whole (a stray-byte token below it; a token
over the whole character below its own merge), random vocabularies of 1-4-byte characters and stray-byte
tokens at random ranks; and random text of many scripts against tiktoken.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tiktoken_reference import tiktoken_encoding

import bpe
from bpe.merging import apply_ranks
from bpe.rank_merge import RankMerge
from bpe.whole_chars import WholeChars, merge_from_chars

BYTES = {bytes([b]): b for b in range(256)}


def _plain(text: str, ranks: dict[bytes, int]) -> list[int]:
    return [ranks[t] for t in apply_ranks(text.encode("utf-8"), ranks)]


def test_a_stray_byte_token_below_the_character_keeps_it_in_bytes():
    ranks = BYTES | {b"a\xc3": 256, "é".encode(): 300}  # "a" + é's lead byte merges before é does
    assert _plain("aé", ranks) == [256, 0xA9]
    assert RankMerge(ranks).from_chars("aé") == [256, 0xA9]
    assert RankMerge(ranks).from_chars("éé") == [300, 300]  # no "a" before: whole
    assert merge_from_chars("aé", WholeChars(ranks, [b"a\xc3"]), ranks) is None
    # dropping condition 2 (no stray tokens given) would start é whole and give other ids
    assert merge_from_chars("aé", WholeChars(ranks, []), ranks) == [ord("a"), 300] != _plain("aé", ranks)


def test_a_token_over_the_whole_character_below_its_own_merge_falls_back():
    wen = "文".encode()
    ranks = BYTES | {wen[:2]: 300, "a文".encode(): 301, b"wa": 350, wen: 400}
    # plain: the character's first merge (300), then "wa" (350), then the character (400); "a文" never forms
    assert _plain("wa文", ranks) == [350, 400]
    assert RankMerge(ranks).from_chars("wa文") == [350, 400]
    assert merge_from_chars("wa文", WholeChars(ranks, []), ranks) is None  # condition 3 caught it


def test_characters_start_whole_where_they_may():
    ranks = BYTES | {"文".encode()[:2]: 256, "文".encode(): 257, "字".encode()[:2]: 258, "字".encode(): 259}
    ranks |= {"文字".encode(): 260}
    chars = WholeChars(ranks, [])
    assert merge_from_chars("文字文", chars, ranks) == [260, 257] == _plain("文字文", ranks)
    assert chars["文"][:2] == (3, 257) and chars["x"][:2] == (1, -1)


#: characters of 1-4 bytes, and a combining mark; their bytes (and ASCII) make the random tokens
ALPHABET = "ab é文字ж😀\u0301"


@st.composite
def vocabularies(draw):
    """All 256 bytes, plus random tokens cut from random strings of :data:`ALPHABET` at any byte (so some
    hold a stray lead or continuation byte), at random ranks; and a text of the alphabet."""
    texts = draw(st.lists(st.text(ALPHABET, min_size=1, max_size=4), max_size=40))
    cuts = draw(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=len(texts), max_size=len(texts)))
    extra = []
    for t, (a, b) in zip(texts, cuts):
        data = t.encode("utf-8")
        piece = data[a : len(data) - b] if len(data) - b - a >= 2 else data
        if len(piece) >= 2 and piece not in extra:
            extra.append(piece)
    for ch in draw(st.lists(st.sampled_from("é文字ж😀"), max_size=5)):  # some characters as whole tokens
        data = ch.encode("utf-8")
        for k in range(2, len(data) + 1):
            if data[:k] not in extra:
                extra.append(data[:k])
    for a, b, j, k in draw(st.lists(st.tuples(*[st.sampled_from(ALPHABET)] * 2, st.integers(1, 4), st.integers(1, 4)))):
        edge = a.encode("utf-8")[-j:] + b.encode("utf-8")[:k]  # a token across two characters, often partial
        if len(edge) >= 2 and edge not in extra:
            extra.append(edge)
    order = draw(st.permutations(range(len(extra))))
    ranks = dict(BYTES)
    for r, i in enumerate(order):
        ranks[extra[i]] = 256 + r
    text = draw(st.text(ALPHABET, min_size=1, max_size=30) | st.text("é文字ж😀 a", min_size=2, max_size=12))
    return ranks, text


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=vocabularies())
def test_random_vocabularies_merge_as_the_plain_rule(case):
    ranks, text = case
    assert RankMerge(ranks).from_chars(text) == _plain(text, ranks)


#: characters of many scripts, combining marks, emoji and their joiners, and what stray-byte tokens end with
SCRIPTS = list(
    "Иногда по-русски ёЁ 東京タワーで会いましょう 我爱北京天安门。مرحبا بالعالم नमस्ते क्षत्रिय 안녕하세요 "
    "ελληνικά עברית ไทย ქართული Հայերեն ∑∫≈ é é ñ ß ﬁ \u0301\u0308\u200d\ufe0f 👍🏽👨‍👩‍👧 🇺🇸 "
    "€£¥ ― “quotes” …\u00a0\u3000 the a 1 ,.!?'"
)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(text=st.text(alphabet=st.sampled_from(SCRIPTS), max_size=120))
def test_random_text_of_many_scripts_gives_tiktoken_ids(name, text):
    tok = bpe.load_pretrained(name)
    tok._rank_merge.forget()
    assert tok.encode_ordinary(text) == tiktoken_encoding(name).encode_ordinary(text)
