"""The pre-tokenizer registry: exact patterns, branch attribution, unmatched text, the facts in patterns.md."""

from __future__ import annotations

import regex
from hypothesis import given, settings
from hypothesis import strategies as st

import bpe
from bpe.regex_syntax import top_level_branches
from bpe.splitting import pretokenize

REQUIRED = ["gpt2", "gpt4", "gpt4o", "llama3", "qwen2", "qwen35", "deepseek_v3", "tekken", "kimi_k2", "gpt4_minbpe"]

# tiktoken's own cl100k string (tiktoken_ext/openai_public.py), typed independently of bpe/patterns.py
TIKTOKEN_CL100K = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)

texts = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80)
tricky = st.text(alphabet=st.sampled_from(list("aZ9 \t\n\r'’.,!é中カ👍\u200d")), max_size=60)


def test_registry_has_every_pattern_with_source_and_branch_notes():
    for name in REQUIRED:
        p = bpe.PATTERNS[name]
        assert p.source and p.summary and p.label
        assert len(p.branch_notes) == len(p.branches), name
        assert all(p.branch_notes), name


def test_gpt4_is_tiktokens_exact_string():
    assert bpe.PATTERNS["gpt4"].regex == TIKTOKEN_CL100K


@settings(max_examples=300, deadline=None)
@given(text=texts)
def test_registry_patterns_lose_no_text(text):
    """The fast path uses findall for single-regex registry patterns: every character must be matched.

    DeepSeek-V3's three stages leave some characters to no branch (unassigned code points, a lone
    zero-width joiner...); its staged split keeps them as pieces of their own, so no text is lost either.
    """
    for name, p in bpe.PATTERNS.items():
        result = bpe.split(text, name)
        assert "".join(result.texts) == text
        if len(p.stages) == 1:
            assert result.unmatched == [], (name, result.unmatched)
        assert pretokenize(text, name) == result.texts


def test_deepseek_leaves_a_lone_zero_width_joiner_to_no_branch():
    r = bpe.split("a \u200d b", "deepseek_v3")
    assert "".join(r.texts) == "a \u200d b"
    assert any(r.text[s:e] == "\u200d" for s, e in r.unmatched)


@settings(max_examples=200, deadline=None)
@given(text=tricky)
def test_branch_attribution_names_a_branch_that_matches_the_chunk_exactly(text):
    for name in ["gpt2", "gpt4", "gpt4o", "qwen2", "kimi_k2"]:
        p = bpe.PATTERNS[name]
        for c in bpe.split(text, name):
            stage, _i, branch_src = p.branches[c.branch]
            m = regex.compile(branch_src, flags=regex.V1).match(text, c.start)
            assert m is not None and m.end() == c.end, (name, c)


@settings(max_examples=200, deadline=None)
@given(text=tricky)
def test_facts_from_patterns_md(text):
    # minbpe's GPT-4 pattern and Llama 3's split identically
    assert bpe.pretokenize(text, "gpt4_minbpe") == bpe.pretokenize(text, "llama3")
    # the GPT-2 variants split identically (tiktoken's r50k vs the original release)
    original = r"""'s|'t|'re|'ve|'m|'ll|'d| ?[\p{L}]+| ?[\p{N}]+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
    assert bpe.pretokenize(text, "gpt2") == regex.findall(original, text)


def test_cl100k_and_minbpe_differ_only_on_trailing_newline_whitespace():
    assert bpe.pretokenize("hello\n ", "gpt4") == ["hello", "\n "]
    assert bpe.pretokenize("hello\n ", "gpt4_minbpe") == ["hello", "\n", " "]


def test_digit_grouping_differs_by_family():
    assert bpe.pretokenize("1234567", "gpt2") == ["1234567"]
    assert bpe.pretokenize("1234567", "gpt4") == ["123", "456", "7"]
    assert bpe.pretokenize("1234567", "qwen2") == list("1234567")
    assert bpe.pretokenize("1234567", "nanochat") == ["12", "34", "56", "7"]


def test_o200k_splits_camel_case_and_keeps_contractions():
    assert bpe.pretokenize("HelloWorld", "gpt4o") == ["Hello", "World"]
    assert bpe.pretokenize("HelloWorld", "gpt4") == ["HelloWorld"]
    assert bpe.pretokenize("I'm", "gpt4o") == ["I'm"]
    assert bpe.pretokenize("I'm", "gpt4") == ["I", "'m"]
    assert bpe.pretokenize("CAN'T", "gpt4") == ["CAN", "'T"]
    assert bpe.pretokenize("CAN'T", "gpt2") == ["CAN", "'", "T"]  # GPT-2's contractions are lower case only


def test_kimi_k2_set_intersection_needs_v1_and_keeps_words():
    # In regex V0 `&&` is literal and whole words silently vanish; the registry compiles with V1.
    assert bpe.pretokenize("hello 世界 world", "kimi_k2") == ["hello", " ", "世界", " world"]


def test_deepseek_three_stages_and_stage_credit():
    r = bpe.split("ab中文 1234 x.com", "deepseek_v3")
    assert r.texts == ["ab", "中文", " ", "123", "4", " x", ".com"]
    p = bpe.PATTERNS["deepseek_v3"]
    stages = [p.branches[c.branch][0] for c in r]
    # digits from stage 1, the CJK run from stage 2 (which cut it out, though stage 3 re-matches it whole)
    assert stages[1] == 1 and stages[3] == 0 and stages[4] == 0 and stages[0] == 2


def test_unmatched_text_is_kept_and_reported():
    r = bpe.split("ab 12 cd", r"[a-z]+")
    assert r.texts == ["ab", " 12 ", "cd"]
    assert r.unmatched == [(2, 6)]
    assert [c.branch for c in r] == [0, None, 0]


def test_top_level_branches_respects_groups_classes_and_escapes():
    assert top_level_branches(r"a|(b|c)|[|]|\||d") == ["a", "(b|c)", "[|]", r"\|", "d"]
    assert top_level_branches(r"[\p{L}&&[^\p{Han}]]+|x") == [r"[\p{L}&&[^\p{Han}]]+", "x"]
    assert top_level_branches(r"[]|]|y") == ["[]|]", "y"]
    for p in bpe.PATTERNS.values():
        assert sum(len(top_level_branches(s)) for s in p.stages) == len(p.branches)


def test_custom_pattern_with_global_flag_and_backreference():
    r = bpe.split("AbC abc", r"(?i)[a-c]+|\s")
    assert r.texts == ["AbC", " ", "abc"] and r.unmatched == []
    r = bpe.split("aa bb ab", r"(\w)\1|\s|\w")
    assert "".join(r.texts) == "aa bb ab"


def test_the_encoders_cut_is_the_labs_cut_for_every_registry_pattern():
    """The encoder cuts with :func:`pretokenize` (no branch attribution: a multi-stage pattern's pieces are cut
    stage by stage on their own); the lab with :func:`bpe.split`. DeepSeek-V3's three stages are where they
    could part: pieces one stage leaves uncut, digits between matches, text no stage matches."""
    from tests.torture import LONG_CHUNKS, TORTURE, real_text

    texts = [*TORTURE, *LONG_CHUNKS, real_text()[:20_000], "12345 abc 你好世界123 ", "", "1", "\n\n 42"]
    for name in bpe.PATTERNS:
        for text in texts:
            assert pretokenize(text, name) == bpe.split(text, name).texts, (name, text[:40])
