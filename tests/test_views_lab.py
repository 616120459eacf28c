"""The Pre-tokenizer lab's views, without a server.

Expected splits are worked by hand from each regex as its tokenizer ships it (the upstream file named in its
``source`` in bpe/pattern_registry.py: tiktoken's ``openai_public.py``, a model's ``tokenizer.json``, ...),
or come from the `regex` module running tiktoken's own pattern strings, never from our views.
"""

from __future__ import annotations

import html as htmllib
import re
import time

import pytest
import regex
from tiktoken_reference import tiktoken_pattern

import bpe
from bpe import split_stats
from views import lab, lab_measure


def chunk_tags(html: str) -> list[str]:
    return re.findall(r'<span class="lab-chunk[^"]*"[^>]*>', html.split("</style>")[-1])


def attr(tag: str, name: str) -> str:
    return re.search(rf'{name}="([^"]*)"', tag).group(1)


# ----------------------------------------------------------------------------------------------------
# Branch coloring


def test_gpt4_chunks_are_colored_by_the_branch_that_matched():
    # GPT-4 (cl100k): 'I' letters (branch 2), "'m" contraction (1), ' ' lone space (8: \s+(?!\S) fails
    # before a digit), '202' and '5' digits in threes (3). Branch numbers are 1-based on screen.
    res = bpe.split("I'm 2025", "gpt4")
    out = lab.chunks_html(res)
    tags = chunk_tags(out)
    assert [attr(t, "data-branch") for t in tags] == ["1", "0", "7", "2", "2"]
    colors = lab.pattern_colors(res.pattern)
    for t in tags:
        b = int(attr(t, "data-branch"))
        assert f"background:{colors[b]}" in t
    assert len(set(colors)) == len(colors) == 8  # every GPT-4 branch its own color
    # hover says the branch in words
    assert 'title="branch 1: an English contraction suffix' in out
    assert "one to three digits" in out


def test_branch_numbers_for_color_blind_readers():
    out = lab.chunks_html(bpe.split("I'm", "gpt4"), numbers=True)
    assert re.findall(r'<span class="lab-bn">(\d)</span>', out) == ["2", "1"]


def test_colorblind_palette_differs():
    assert lab.branch_color(0, "okabe_ito") != lab.branch_color(0, "default")
    assert len({lab.branch_color(i, "okabe_ito") for i in range(8)}) == 8
    gpt4 = bpe.PATTERNS["gpt4"]
    assert lab.pattern_colors(gpt4, "okabe_ito") != lab.pattern_colors(gpt4, "default")
    assert len(set(lab.pattern_colors(gpt4, "okabe_ito"))) == 8


def test_same_kind_of_branch_same_color_in_every_pattern():
    # digits: GPT-2 branch 3 (runs), GPT-4 branch 3 (threes), Qwen2 branch 3 (single), DeepSeek stage 1,
    # Kimi K2 branch 4: one color for "digits" everywhere
    digits = {
        name: [
            i
            for i, (_s, _n, rx) in enumerate(bpe.PATTERNS[name].branches)
            if r"\p{N}" in rx and "\\s" not in rx and "[^" not in rx
        ][0]
        for name in ("gpt2", "gpt4", "qwen2", "deepseek_v3", "kimi_k2")
    }
    assert digits == {"gpt2": 2, "gpt4": 2, "qwen2": 2, "deepseek_v3": 0, "kimi_k2": 3}
    assert len({lab.pattern_colors(bpe.PATTERNS[n])[i] for n, i in digits.items()}) == 1
    # GPT-4o's two word branches: same hue family, not the same color
    o = lab.pattern_colors(bpe.PATTERNS["gpt4o"])
    assert o[0] != o[1] and o[0] == lab.pattern_colors(bpe.PATTERNS["gpt4"])[1]
    # DeepSeek's CJK stage has a color no other branch of it has
    d = lab.pattern_colors(bpe.PATTERNS["deepseek_v3"])
    assert d.count(d[1]) == 1
    assert "CJK run" in lab.kinds_key_html() and "digits" in lab.kinds_key_html()


def test_legend_explains_every_branch_with_counts():
    pattern = bpe.PATTERNS["gpt4"]
    res = bpe.split("I'm 2025", pattern)
    out = lab.legend_html(pattern, res)
    rows = re.findall(r'<tr data-branch="(\d+)">(.*?)</tr>', out, flags=re.S)
    assert [int(r[0]) for r in rows] == list(range(len(pattern.branches))) == list(range(8))
    for i, body in rows:
        assert htmllib.escape(pattern.describe_branch(int(i))) in body
    counts = {int(i): int(re.search(r'lab-n">(\d+)×', body).group(1)) for i, body in rows}
    assert counts == {0: 1, 1: 1, 2: 2, 3: 0, 4: 0, 5: 0, 6: 0, 7: 1}


def test_deepseek_cjk_run_is_colored_by_the_stage_that_cut_it():
    # DeepSeek-V3: stage 1 isolates digit groups, stage 2 runs of CJK/kana; stage 3 splits the rest.
    res = bpe.split("abc中文かな12", "deepseek_v3")
    assert res.texts == ["abc", "中文かな", "12"]
    tags = chunk_tags(lab.chunks_html(res))
    # flattened branches: 0 = stage 1 digits, 1 = stage 2 CJK, 3 = stage 3 letters
    assert [attr(t, "data-branch") for t in tags] == ["3", "1", "0"]
    assert "stage 2" in htmllib.unescape(attr(tags[1], "title"))
    legend = lab.legend_html(bpe.PATTERNS["deepseek_v3"], res)
    assert "Stage 2" in legend and "Stage 3" in legend


# ----------------------------------------------------------------------------------------------------
# Unmatched text


def test_unmatched_text_is_flagged():
    res = bpe.split("ab12", r"[a-z]+")
    out = lab.chunks_html(res)
    tags = chunk_tags(out)
    assert len(tags) == 2
    assert "lab-unmatched" in tags[1] and attr(tags[1], "data-branch") == "none"
    assert "no branch" in attr(tags[1], "title")
    legend = lab.legend_html(res.pattern, res)
    assert 'data-branch="none"' in legend and "1×" in legend


def test_pattern_that_matches_only_empty_strings():
    split = split_stats.safe_split("banana", r"(?=a)")
    assert split.ok and split.result.texts == ["banana"] and split.result.unmatched == [(0, 6)]
    stats = split_stats.pattern_stats("banana", r"(?=a)")
    assert stats.empty_only and stats.unmatched_chars == 6 and stats.chunks == 1


# ----------------------------------------------------------------------------------------------------
# Where patterns disagree


def test_boundary_marks_gpt2_against_gpt4o():
    # GPT-2 cuts "I'm" into I + 'm; GPT-4o keeps the contraction on the word: I'm
    gpt2 = bpe.split("I'm here", "gpt2")
    gpt4o = bpe.split("I'm here", "gpt4o")
    assert gpt2.texts == ["I", "'m", " here"] and gpt4o.texts == ["I'm", " here"]
    extra, missing = split_stats.boundary_marks(gpt2, gpt4o)
    assert (extra, missing) == ({1}, set())
    out = lab.chunks_html(gpt2, extra=extra, missing=missing, ref_label="GPT-4o")
    tags = chunk_tags(out)
    assert ["lab-extra" in t for t in tags] == [False, True, False]
    assert "GPT-4o does not cut here" in attr(tags[1], "title")
    # the other way round: a dotted line inside GPT-4o's "I'm", between I and 'm
    extra2, missing2 = split_stats.boundary_marks(gpt4o, gpt2)
    assert (extra2, missing2) == (set(), {1})
    out2 = lab.chunks_html(gpt4o, extra=extra2, missing=missing2, ref_label="GPT-2")
    assert re.search(r'>I<span class="lab-miss" title="GPT-2 cuts here"></span>&#x27;m<', out2)


def test_no_marks_against_itself():
    res = bpe.split("I CAN'T, it’s 1234567", "gpt4")
    assert split_stats.boundary_marks(res, res) == (set(), set())
    out = lab.chunks_html(res)
    assert "lab-extra" not in out.split("</style>")[-1] and 'class="lab-miss"' not in out


def test_whole_text_stats_and_table_row():
    text = "I'm here"
    gpt2 = split_stats.pattern_stats(text, "gpt2")
    gpt4o = split_stats.pattern_stats(text, "gpt4o")
    assert gpt2.chunks == 3 and gpt2.boundaries.tolist() == [1, 3]
    assert gpt4o.boundaries.tolist() == [3]
    row = lab_measure.stats_row("GPT-2", gpt2, len(text), gpt4o)
    assert row["cuts not in reference"] == 1 and row["reference cuts missing"] == 0
    frame = lab.counts_frame([row, lab_measure.stats_row("GPT-4o", gpt4o, len(text), gpt4o)])
    assert frame["chunks"].tolist() == [3, 2]
    assert list(frame.columns)[:2] == ["pattern", "chunks"]


@pytest.mark.parametrize(
    "text",
    [
        "I'm sure you're right, but I CAN'T say it's done. it’s",
        "Year 2025, code 1234567\n\n   trailing   \n\tx",
        "HelloWorld XMLHttpRequest 中文かな 👍🏽👍🏽!!",
    ],
)
@pytest.mark.parametrize("encoding, name", [("cl100k_base", "gpt4"), ("o200k_base", "gpt4o"), ("r50k_base", "gpt2")])
def test_chunk_counts_match_the_regex_module_on_tiktokens_patterns(text, encoding, name):
    pat = regex.compile(tiktoken_pattern(encoding))
    expected = pat.findall(text)
    stats = split_stats.pattern_stats(text, name)
    assert stats.chunks == len(expected)
    assert stats.boundaries.tolist() == [sum(map(len, expected[:k])) for k in range(1, len(expected))]
    assert bpe.split(text, name).texts == expected


# ----------------------------------------------------------------------------------------------------
# Safety: escaping, bad patterns, timeouts


def test_text_and_custom_regex_are_escaped():
    res = bpe.split("<b>x</b><script>alert(1)</script>", r"<[^>]*>|[^<]+")
    out = lab.chunks_html(res) + lab.legend_html(res.pattern, res)
    body = out.replace(lab.LAB_CSS, "").split("</style>")[-1]
    assert "<b>" not in body and "<script" not in body
    assert "&lt;b&gt;" in body and "&lt;[^&gt;]*&gt;" in body


@pytest.mark.parametrize(
    "pattern, words",
    [
        ("(", "does not compile: missing )"),
        ("[a-", "does not compile: unterminated character set"),
        (r"\p{Foo}", "does not compile: unknown property"),
        ("", "The pattern is empty"),
    ],
)
def test_bad_patterns_come_back_as_sentences(pattern, words):
    split = split_stats.safe_split("some text", pattern)
    assert not split.ok and words in split.error
    assert split.error[0].isupper()
    if pattern:
        assert split_stats.pattern_stats("some text", pattern).error


def test_catastrophic_pattern_stops_at_the_time_limit():
    text = "a" * 3000 + "b"
    t0 = time.perf_counter()
    split = split_stats.safe_split(text, r"(a+)+$")
    elapsed = time.perf_counter() - t0
    assert not split.ok and "longer than" in split.error and "backtracking" in split.error
    # the time limit is about 1 s (measured 1.0 s): a hang detector at 10x that, the point is that it stops
    assert elapsed < split_stats.interactive_timeout(text) + 9
    t0 = time.perf_counter()
    assert split_stats.pattern_stats(text, r"(a+)+$").error
    assert time.perf_counter() - t0 < split_stats.interactive_timeout(text) + 9


def test_drawing_is_bounded():
    res = bpe.split("word " * 2000, "gpt4")
    out = lab.chunks_html(res, max_chars=100)
    # chunks "word", " word", ... start at 0, 4, 9, ..., 99: the 21 that start before character 100
    assert len(chunk_tags(out)) == 21 and "more characters not drawn" in out


def test_custom_branches_take_the_color_of_their_kind():
    """Issue 25, item 9: a custom pattern's branches are colored by what they match, as the key says (its
    letters branch was drawn in the contraction color); a branch of several kinds gets the "other" color."""
    custom = bpe.get_pattern(r"\p{L}+|\p{N}+|[^\s\p{L}\p{N}]+|\s+")
    gpt2 = bpe.PATTERNS["gpt2"]  # branches: contraction, letters, digits, punctuation, ... (its notes)
    ref = lab.pattern_colors(gpt2)
    assert lab.pattern_colors(custom) == [ref[1], ref[2], ref[3], lab.pattern_colors(bpe.PATTERNS["gpt4"])[7]]
    assert lab.pattern_colors(custom)[0] != ref[0]
    mixed = lab.pattern_colors(bpe.get_pattern(r"\w+|'s|\s+"))
    assert mixed[0] == lab.OTHER_COLORS["default"] and mixed[1] == ref[0]
    assert lab.OTHER_COLORS["default"] not in lab.pattern_colors(bpe.PATTERNS["gpt4"])
    assert "other" in lab.kinds_key_html(other=True) and 'data-kind="other"' not in lab.kinds_key_html()
