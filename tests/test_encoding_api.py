"""tiktoken's ``Encoding`` surface on ``bpe.Tokenizer``, and ``bpe.tiktoken`` as a drop-in: each method
against tiktoken's own answer on the same vocabulary (tiktoken_reference.py builds it offline).

tiktoken's own test suite also runs against ``bpe.tiktoken`` (scripts/tiktoken_suite.sh, run by CI).
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from tiktoken_reference import tiktoken_encoding
from torture import TORTURE

import bpe
import bpe.tiktoken

pytest.importorskip("tiktoken")
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def pair():
    return bpe.get_encoding("cl100k_base"), tiktoken_encoding("cl100k_base")


def test_n_vocab_is_the_largest_id_plus_one_and_vocab_size_counts_tokens(pair):
    ours, ref = pair
    assert (ours.n_vocab, ours.max_token_value) == (ref.n_vocab, ref.max_token_value) == (100277, 100276)
    assert ours.vocab_size == 100261  # tokens; ids have holes (100261..100275)
    eop = ours.encode("<|endofprompt|>", allowed_special="all")[0]
    assert eop < ours.n_vocab  # an embedding table of n_vocab rows holds every id (the IndexError)
    assert bpe.get_encoding("o200k_base").n_vocab == tiktoken_encoding("o200k_base").n_vocab == 200019
    trained = bpe.train("low lower lowest", 262).tokenizer()
    assert trained.n_vocab == trained.vocab_size == 262


def test_batches_single_tokens_and_bytes_equal_tiktoken(pair):
    ours, ref = pair
    texts = TORTURE[:12]
    assert ours.encode_batch(texts, num_threads=2, disallowed_special=()) == ref.encode_batch(
        texts, num_threads=2, disallowed_special=()
    )
    assert ours.encode_ordinary_batch(texts) == ref.encode_ordinary_batch(texts)
    ids = ref.encode_ordinary_batch(texts)
    assert ours.decode_batch(ids) == ref.decode_batch(ids)
    assert ours.decode_bytes_batch(ids, num_threads=1) == ref.decode_bytes_batch(ids, num_threads=1)
    assert ours.decode_tokens_bytes(ids[2]) == ref.decode_tokens_bytes(ids[2])
    for token in ["hello", b" world", "<|endoftext|>", b"\xe4\xbd", "<|fim_middle|>"]:
        assert ours.encode_single_token(token) == ref.encode_single_token(token)
    for i in [0, 255, 15339, 100255, 100257, 100276]:
        assert ours.decode_single_token_bytes(i) == ref.decode_single_token_bytes(i)
    assert ours.token_byte_values() == ref.token_byte_values()
    assert (ours.eot_token, ours.special_tokens_set) == (ref.eot_token, ref.special_tokens_set)
    assert ours.is_special_token(100257) and not ours.is_special_token(15339)


def test_offsets_and_raw_bytes_equal_tiktoken(pair):
    ours, ref = pair
    for text in [
        "hello world<|endoftext|> green cow",
        "我非常渴望与人工智能一起工作",
        "நடிகர் சூர்யா",
        " Ġ除",
        *TORTURE[:8],
    ]:
        ids = ref.encode(text, allowed_special="all")
        assert ours.decode_with_offsets(ids) == ref.decode_with_offsets(ids)
    for data in [b" \xec\x8b\xa4\xed", b"\x80" * 5, b"hello \xff world  \xe4", b"   \n\n\xc3", b"", b"ok"]:
        assert ours._encode_bytes(data) == ref._encode_bytes(data), data
    assert ours._encode_single_piece("helloqqqq") == ref._encode_single_piece("helloqqqq")


def test_errors_are_tiktokens_types(pair):
    ours, ref = pair
    for enc in (ours, ref):
        with pytest.raises(KeyError):
            enc.encode_single_token("qqqqqqqqzzz")
        with pytest.raises(KeyError):
            enc.decode_single_token_bytes(100256)  # a hole between the tokens and the special tokens
        with pytest.raises(ValueError):
            enc.encode("<|endoftext|>")
    with pytest.raises(ValueError):  # bpe's earlier type still catches an unknown id
        ours.decode([100256])
    with pytest.raises(KeyError):
        bpe.encoding_for_model("no-such-model")
    with pytest.raises(ValueError):
        bpe.get_encoding("no_such_encoding")


def test_model_names_map_as_tiktoken():
    import tiktoken

    for model in [
        "gpt2",
        "gpt-4",
        "gpt-4o",
        "gpt-4o-2024-05-13",
        "text-davinci-003",
        "text-davinci-edit-001",
        "gpt-3.5-turbo-0301",
        "gpt-oss-120b",
        "davinci",
        "o3-mini",
        "gpt-5-nano",
        "ft:gpt-4o:x",
    ]:
        assert bpe.encoding_name_for_model(model) == tiktoken.encoding_name_for_model(model)
    assert set(bpe.tiktoken.list_encoding_names()) == set(tiktoken.list_encoding_names())
    assert set(bpe.tiktoken.list_encoding_names()) <= set(bpe.list_encoding_names())


def test_pickle_keeps_registry_vocabularies_by_name_and_others_by_value():
    enc = bpe.get_encoding("gpt2")
    assert pickle.loads(pickle.dumps(enc)) is enc
    custom = bpe.tiktoken.Encoding(
        "custom", pat_str=enc._pat_str, mergeable_ranks=enc._mergeable_ranks, special_tokens={"<|pickle|>": 100_000}
    )
    back = pickle.loads(pickle.dumps(custom))
    assert back.encode("<|pickle|> hi", allowed_special="all") == custom.encode("<|pickle|> hi", allowed_special="all")
    assert back.encode("<|pickle|> hi", allowed_special="all")[0] == 100_000
    assert isinstance(custom, bpe.tiktoken.Encoding) and isinstance(enc, bpe.tiktoken.Encoding)
    with pytest.raises(ValueError):
        bpe.tiktoken.Encoding("bad", pat_str="x", mergeable_ranks={b"a": 0}, special_tokens={}, explicit_n_vocab=5)


PROGRAM = """
import tiktoken
from tiktoken.load import load_tiktoken_bpe

enc = tiktoken.encoding_for_model("gpt-4o")
ids = enc.encode("Hello, world! <|endoftext|>", allowed_special={"<|endoftext|>"})
print(enc.name, ids, enc.decode(ids), enc.n_vocab)
gpt2 = tiktoken.get_encoding("gpt2")
print(gpt2.encode_batch(["hello world", "goodbye world"]), gpt2.decode_single_token_bytes(31373))
ranks = load_tiktoken_bpe("https://openaipublic.blob.core.windows.net/encodings/p50k_base.tiktoken",
                          "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069")
custom = tiktoken.Encoding(name="p50k_mine", pat_str=gpt2._pat_str, mergeable_ranks=ranks,
                           special_tokens={"<|endoftext|>": 50256})
print(custom.encode("    x"), sorted(tiktoken.list_encoding_names()))
"""


def test_a_tiktoken_program_runs_unchanged_on_bpe_and_prints_what_tiktoken_prints(tmp_path, pair):
    """The same program text under ``import tiktoken`` (the real one, its files from its cache) and under
    ``bpe.tiktoken`` (the shim of scripts/tiktoken_shim puts it at ``import tiktoken``; offline)."""
    env = {
        "PYTHONPATH": f"{ROOT / 'scripts' / 'tiktoken_shim'}:{ROOT}",
        "PATH": "/usr/bin:/bin",
        "TIKTOKEN_CACHE_DIR": str(tmp_path / "empty"),
    }
    ours = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=300)
    assert ours.returncode == 0, ours.stderr
    lines = ours.stdout.splitlines()
    ref = tiktoken_encoding("o200k_base")
    ids = ref.encode("Hello, world! <|endoftext|>", allowed_special={"<|endoftext|>"})
    assert lines[0] == f"o200k_base {ids} Hello, world! <|endoftext|> 200019"
    assert lines[1] == "[[31373, 995], [11274, 16390, 995]] b'hello'"
    assert lines[2].startswith("[50258, 2124] ") and "'p50k_edit'" in lines[2]  # "   " is p50k's 50258
    # and no real tiktoken behind it:
    check = subprocess.run(
        [sys.executable, "-c", "import tiktoken, sys; print(tiktoken.__name__)"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert check.stdout.strip() == "bpe.tiktoken"


def test_bpe_never_imports_tiktoken():
    code = "import sys, bpe, bpe.tiktoken; bpe.get_encoding('gpt2').encode('x'); print('tiktoken' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr
