"""Tests for testkit/distinct_corpora.py: benchmark text that never repeats (issue 23).

The pure parts (interleaving, the repeat check) run offline on hand-made text; tests marked ``slow`` build
the corpus from Debian packages (``apt-get download`` the first time, cached in ``testkit/data/``).
"""

from __future__ import annotations

import pytest

from testkit import corpora, distinct_corpora


def test_interleave_keeps_every_document_once_in_proportion():
    # "a" is three times the size of "b": after each "b" document come about three "a" documents
    a = "".join(f"a{i}\n" for i in range(9))
    b = "".join(f"b{i}\n" for i in range(3))
    out = distinct_corpora._interleave({"a": a, "b": b}, doc_chars=3)
    docs = out.splitlines()
    assert sorted(docs) == sorted(a.splitlines() + b.splitlines())
    assert [d for d in docs if d[0] == "a"] == a.splitlines()  # each source keeps its order
    assert docs[:4] == ["a0", "b0", "a1", "a2"]  # smallest share taken first
    for n in range(4, len(docs) + 1, 4):  # every prefix in proportion
        share_b = sum(d[0] == "b" for d in docs[:n]) / n
        assert 0.15 <= share_b <= 0.35


def test_repeat_report_finds_a_repeated_passage():
    lines = [f"line {i} of a text that does not repeat itself anywhere" for i in range(100)]
    distinct = "\n".join(lines) + "\n"
    assert distinct_corpora.repeat_report(distinct)["repeated_windows"] == 0
    assert distinct_corpora.repeat_report(distinct)["repeated_line_fraction"] == 0
    passage = "\n".join(lines[10:40]) + "\n"  # ~1.7 KB, comes back once
    twice = distinct + passage
    report = distinct_corpora.repeat_report(twice)
    assert report["repeated_windows"] >= 1
    assert report["repeated_line_fraction"] == pytest.approx(60 / 130)


@pytest.mark.slow
def test_english_never_repeats_and_mixes_its_sources():
    text = distinct_corpora.english(10_000_000)
    assert 10_000_000 <= len(text.encode("utf-8")) <= 10_000_064
    assert distinct_corpora.english(10_000_000) == text
    # all three sources in the first MB
    head = text[:1_000_000]
    assert "Elinor" in head  # Austen
    assert ".. c:function::" in head  # the Python docs (sorted: the C API first)
    assert "\n\n" in head and "-- " in head  # fortunes' attributions
    report = distinct_corpora.repeat_report(text)
    assert report["repeated_windows"] <= report["windows"] // 1000  # Austen repeated: 60% of them
    # the point of it: far more distinct chunks than the repeated Austen text of the same size
    import regex

    import bpe

    pat = regex.compile(bpe.get_pattern("gpt4").regex)
    assert len(set(pat.findall(text))) > 2 * len(set(pat.findall(corpora.english(10_000_000))))


@pytest.mark.slow
def test_english_refuses_to_repeat():
    with pytest.raises(ValueError):
        distinct_corpora.english(len(distinct_corpora.english_text().encode("utf-8")) + 1)


@pytest.mark.slow
def test_multilingual_one_mb_does_not_repeat():
    text = distinct_corpora.multilingual(1_000_000)
    assert text == corpora.multilingual(1_000_000)
    assert distinct_corpora.repeat_report(text)["repeated_windows"] == 0
