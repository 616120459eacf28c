"""Cutting a chunk where no token can cross (bpe/char_bounds.py) changes no id.

Three independent checks: random vocabularies of multi-byte characters and stray bytes against the plain
trace of the rule (:func:`bpe.merging.trace_ranks`, which never cuts); every free boundary judged on real
text against a brute-force search of the vocabulary's bytes; and real multilingual text against tiktoken.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tiktoken_reference import tiktoken_encoding

import bpe
from bpe.char_bounds import Crossable
from bpe.merging import trace_ranks
from bpe.rank_merge import RankMerge

#: characters of 1-4 bytes; their bytes (and ASCII) make the random tokens
ALPHABET = "ab é文字ж😀"


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
    order = draw(st.permutations(range(len(extra))))
    ranks = {bytes([b]): b for b in range(256)}
    for r, i in enumerate(order):
        ranks[extra[i]] = 256 + r
    text = draw(st.text(ALPHABET, min_size=1, max_size=30))
    return ranks, text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=vocabularies())
def test_cut_chunks_merge_as_the_plain_rule(case):
    ranks, text = case
    merge = RankMerge(ranks)
    expected = tuple(trace_ranks(text.encode("utf-8"), ranks)[-1].ids)  # whole-chunk lookup, then the rule
    assert merge.chunk_ids(text) == expected
    assert merge.chunk_ids(text) == expected  # its pieces remembered


def test_a_free_boundary_is_cut_and_a_held_one_is_not():
    ranks = {bytes([b]): b for b in range(256)} | {"文".encode()[:2]: 256, "字".encode()[:2]: 257}
    ranks |= {"文".encode(): 258, "字".encode(): 259, "ж".encode(): 260}
    ranks["ж".encode() + "文".encode()[:1]] = 261  # holds the boundary between ж and any 3-byte char starting so
    merge = RankMerge(ranks)
    assert merge.chunk_ids("文字文字") == (258, 259, 258, 259)
    assert set(merge.pieces) == {"文", "字"}
    cross = Crossable(ranks)
    assert cross["жж"] is False and cross["ж文"] is True and cross["文ж"] is False


#: the longest piece :func:`_held_by_bytes` looks up: two characters of at most 4 bytes each
MAX_PIECE = 8


def _ends(tokens: set[bytes]) -> tuple[set[bytes], set[bytes]]:
    """Every prefix and every suffix (up to :data:`MAX_PIECE` bytes) of every token: what "some token starts
    (ends) with these bytes" asks, by definition."""
    starts = {t[:k] for t in tokens for k in range(1, min(len(t), MAX_PIECE) + 1)}
    ends = {t[-k:] for t in tokens for k in range(1, min(len(t), MAX_PIECE) + 1)}
    return starts, ends


def _held_by_bytes(tokens: set[bytes], blob: bytes, ends: tuple[set[bytes], set[bytes]], pair: str) -> bool:
    """Whether some token is ``u + v`` with ``u`` a suffix of ``p``'s bytes or ending with them, ``v`` a prefix
    of ``c``'s bytes or starting with them (``blob``: every token between NULs; ``ends``: :func:`_ends`)."""
    p, c = pair[0].encode("utf-8"), pair[1].encode("utf-8")
    starts_with, ends_with = ends
    for i in range(1, len(p) + 1):
        for j in range(1, len(c) + 1):
            piece = p[-i:] + c[:j]
            whole_left, whole_right = i == len(p), j == len(c)
            if not whole_left and not whole_right and piece in tokens:
                return True
            if not whole_left and whole_right and piece in starts_with:
                return True
            if whole_left and not whole_right and piece in ends_with:
                return True
            if whole_left and whole_right and piece in blob:  # (a scan of every token's bytes)
                return True
    return False


@pytest.mark.slow
@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_every_free_boundary_of_real_text_is_held_by_no_token(name):
    from testkit import corpora

    tok = bpe.load_pretrained(name)
    tokens = set(tok.ranks)
    blob = b"\x00" + b"\x00".join(tokens) + b"\x00"
    ends = _ends(tokens)
    cross = Crossable(tok.ranks)
    text = corpora.multilingual(60_000)
    pairs = {a + b for a, b in zip(text, text[1:]) if not (a.isascii() and b.isascii()) and "\x00" not in a + b}
    free = sorted(p for p in pairs if not cross[p])
    assert len(free) > 200  # the cut is really exercised
    for pair in free:
        assert not _held_by_bytes(tokens, blob, ends, pair), pair
    held = sorted(p for p in pairs if cross[p])[:300]
    assert all(_held_by_bytes(tokens, blob, ends, p) for p in held)  # and "held" is not merely cautious here


@pytest.mark.slow
@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_multilingual_text_cold_equals_tiktoken_and_uses_the_pieces(name):
    from testkit import distinct_corpora

    tok = bpe.load_pretrained(name)
    tok._cache.clear()
    tok._rank_merge.forget()
    text = distinct_corpora.multilingual(300_000)
    assert tok.encode_ordinary(text) == tiktoken_encoding(name).encode_ordinary(text)
    assert len(tok._rank_merge.pieces) > 1000
