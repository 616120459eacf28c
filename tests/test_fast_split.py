"""The ``re`` rewrite of the registry's patterns (:mod:`bpe.fast_split`) against ``regex.findall`` of the
pattern as published (the independent source): chunk for chunk on the torture set, on ~1 MB of real text
that never repeats, and on random strings of mixed scripts, digits, whitespace and emoji.
"""

from __future__ import annotations

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from torture import LONG_CHUNKS, TORTURE

from bpe import fast_split
from bpe.fast_split import Splitter, Unsupported, parse, splitter
from bpe.patterns import PATTERNS
from bpe.splitting import pretokenize
from testkit import distinct_corpora

STAGES = sorted({(name, s) for name, p in PATTERNS.items() for s in p.stages})


def reference(source: str):
    return regex.compile(source, flags=regex.V1).findall


@pytest.fixture(scope="module")
def big_text() -> str:
    """~1.1 MB: English (Austen, fortunes, Python docs) and eight other scripts, cut in documents."""
    return distinct_corpora.english(600_000) + distinct_corpora.multilingual(500_000)


@pytest.mark.parametrize(("name", "source"), STAGES)
def test_every_registry_stage_has_a_splitter(name, source):
    assert splitter(source) is not None, name


@pytest.mark.parametrize(("name", "source"), STAGES)
def test_the_torture_set_splits_as_regex_does(name, source):
    fresh = Splitter(source)  # starts with the ASCII characters only: each text adds its own
    ref = reference(source)
    for text in [*TORTURE, *LONG_CHUNKS, "\n".join(TORTURE)]:
        assert fresh.findall(text) == ref(text), (name, text[:40])


@pytest.mark.parametrize(("name", "source"), STAGES)
def test_a_megabyte_of_real_text_splits_as_regex_does(name, source, big_text):
    ref = reference(source)
    english, rest = big_text[:600_000], big_text[600_000:]
    sp = Splitter(source)
    assert sp.findall(english) == ref(english)
    assert sp.findall(big_text) == ref(big_text)  # ~2,000 more characters listed
    assert sp.findall(rest[:5000]) == ref(rest[:5000])  # nothing new: the same pattern again


def test_past_the_limit_regex_takes_over(big_text):
    source = PATTERNS["gpt4o"].stages[0]
    sp = Splitter(source, direct_limit=len(fast_split.SEED) + 50)
    assert sp.findall("plain ASCII, 123") == reference(source)("plain ASCII, 123")
    assert sp.findall(big_text[-100_000:]) is None
    text = "Ωmega für 5€"
    assert sp.findall(text) == reference(source)(text)  # still under the limit alone
    # and the public path gives regex's chunks either way
    assert pretokenize(big_text[-100_000:], "gpt4o") == reference(source)(big_text[-100_000:])


def test_short_texts_with_new_characters_wait_to_be_listed_in_one_compile():
    """Past the eager lists, a short text that brings new characters is left to ``regex`` (no compile) and
    its characters are listed with the batch's last one; a long text lists its own at once."""
    source = PATTERNS["gpt4o"].stages[0]
    ref = reference(source)
    sp = Splitter(source)
    han = "".join(chr(c) for c in range(0x4E00, 0x4E00 + fast_split.EAGER_LIMIT - len(fast_split.SEED) + 1))
    assert sp.findall(han + " 1") == ref(han + " 1")  # a batch's worth at once: listed
    shorts = [f"x{chr(0xAC00 + k)}'s {k}!" for k in range(fast_split.PENDING_BATCH)]
    compiled = sp._direct
    assert all(sp.findall(t) is None for t in shorts[:-1])  # regex's turn: nothing compiled
    assert sp._direct is compiled
    assert sp.findall(shorts[-1]) == ref(shorts[-1])  # the batch is full: one compile lists them all
    assert sp._direct is not compiled
    assert all(sp.findall(t) == ref(t) for t in shorts)
    long_text = "ab Ωmega " * (fast_split.LONG_TEXT // 9 + 1) + "\u0e01\u0e32"  # Thai, new: listed at once
    assert sp.findall(long_text) == ref(long_text)
    assert pretokenize(shorts[0] + "\u0e02", "gpt4o") == ref(shorts[0] + "\u0e02")


_MIXED = (
    list("abcXYZ ſ'KkSsTtLlVvEeRrDdMm ßǅ\u0130\u0131")
    + list("0123456789٣४")
    + [" ", "  ", "\t", "\n", "\r", "\r\n", "\u00a0", "\u3000", "\u2028", "\x0b", "\x85"]
    + list("東京タワーひらがな한국어мирمرحباनमस्तेक्षéé́x̃ﬁ")
    + list(".,;:!?/\\-_'\"()[]{}<>@#$%^&*+=|~`")
    + ["👍", "👍🏽", "👨\u200d👩\u200d👧", "🇺🇸", "❤️", "\u200b", "\ufeff", "▁", "\x00", "\x7f", "🙂"]
)


@pytest.mark.parametrize(("name", "source"), STAGES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pieces=st.lists(st.sampled_from(_MIXED), max_size=40),
    other=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20),
)
def test_random_mixed_strings_split_as_regex_does(name, source, pieces, other):
    text = "".join(pieces) + other
    assert Splitter(source).findall(text) == reference(source)(text)
    assert splitter(source).findall(text) in (None, reference(source)(text))


def test_no_character_folds_into_two_letters_of_a_case_insensitive_literal():
    # the rewrite matches (?i) literals one character at a time: no single character may match "ll", "ve",
    # "re" (regex's full case folding would let it)
    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    for pair in ("ll", "ve", "re"):
        assert all(len(m) == 2 for m in regex.findall(f"(?i:{pair})", every, flags=regex.V1)), pair


@pytest.mark.parametrize("source", [r"(\w+)\1", r"\bword\b", r"(?P<x>a)|b", r"(?i)ab"])
def test_what_the_rewrite_does_not_handle_stays_with_regex(source):
    with pytest.raises(Unsupported):
        parse(source)
    assert splitter(source) is None


def test_the_rewrite_keeps_structure_and_drops_only_the_case_flag():
    template, atoms = parse(r"(?i:'s)|\p{N}{1,3}+|\s++$|\s+(?!\S)")
    assert [p for p in template if isinstance(p, str)] == [
        "(?:",
        ")",
        "|",
        "{1,3}",
        "+",
        "|",
        "+",
        "+",
        "$",
        "|",
        "+",
        "(?!",
        ")",
    ]
    assert atoms == [("'", True), ("s", True), (r"\p{N}", False), (r"\s", False), (r"\S", False)]
    assert fast_split.DIRECT_LIMIT >= len(fast_split.SEED) + 2500  # a multilingual megabyte's characters fit
