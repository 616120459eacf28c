"""Exports other tools load: a transformers folder (AutoTokenizer, offline) and minbpe's .model file."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

import bpe  # noqa: E402
from bpe.cli import main as cli  # noqa: E402
from bpe.formats.minbpe import dumps as minbpe_dumps  # noqa: E402
from bpe.formats.minbpe import loads as minbpe_loads
from bpe.formats.transformers import dumps as transformers_dumps  # noqa: E402

SAMPLES = Path(__file__).resolve().parents[1] / "sample_texts"


@pytest.fixture(scope="module")
def held_out() -> str:
    from testkit import corpora

    return (
        corpora.held_out_english(60_000)
        + "\n"
        + (SAMPLES / "multilingual.txt").read_text(encoding="utf-8")
        + (SAMPLES / "emoji.txt").read_text(encoding="utf-8")
        + "\n  trailing  \n\n"
    )


def _auto(tmp_path: Path, tok: bpe.Tokenizer):
    from transformers import AutoTokenizer

    folder = tmp_path / "export"
    for name, data in transformers_dumps(tok).items():
        folder.mkdir(exist_ok=True)
        (folder / name).write_bytes(data)
    return AutoTokenizer.from_pretrained(str(folder))


@pytest.fixture(scope="module")
def trained() -> bpe.Tokenizer:
    text = (SAMPLES / "english.txt").read_text(encoding="utf-8") + (SAMPLES / "python_code.txt").read_text(
        encoding="utf-8"
    )
    return bpe.train(text, 600, pattern="gpt4", special_tokens=["<|endoftext|>", "<pad>"]).tokenizer()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["trained", "cl100k_base", "qwen3", "deepseek_v3"])
def test_autotokenizer_loads_the_folder_offline_and_gives_our_ids(tmp_path, held_out, trained, name):
    tok = trained if name == "trained" else bpe.load_pretrained(name)
    auto = _auto(tmp_path, tok)
    ours = tok.encode(held_out, disallowed_special=())
    assert auto.encode(held_out, add_special_tokens=False) == ours
    assert auto.encode(held_out) == ours  # no BOS/EOS is added
    special = sorted(tok.special_tokens)[0]
    text = f"a{special} b"
    assert auto.encode(text, add_special_tokens=False) == tok.encode(text, allowed_special="all")
    assert auto.decode(ours) == tok.decode(ours)
    assert set(auto.all_special_tokens) >= {special}


def test_the_config_names_the_generic_class_and_the_roles(trained):
    import json

    files = transformers_dumps(trained)
    config = json.loads(files["tokenizer_config.json"])
    assert config["tokenizer_class"] == "PreTrainedTokenizerFast"
    assert config["eos_token"] == "<|endoftext|>" and config["pad_token"] == "<pad>"
    assert config["added_tokens_decoder"][str(trained.special_tokens["<pad>"])]["content"] == "<pad>"
    assert json.loads(files["special_tokens_map.json"])["eos_token"] == "<|endoftext|>"


# ----------------------------------------------------------------------------------------------------
# minbpe


def test_a_hand_written_minbpe_model_encodes_as_worked_by_hand():
    # aaabdaaabac: aa -> 256, ab -> 257, (aa)(ab) -> 258; minbpe merges the lowest-ranked pair first:
    # a a a b d a a a b a c -> 256 a b d 256 a b a c -> 256 257 d 256 257 a c -> 258 d 258 a c
    model = b"minbpe v1\n\n1\n<|end|> 259\n97 97\n97 98\n256 257\n"
    tok = minbpe_loads(model)
    assert tok.encode("aaabdaaabac") == [258, 100, 258, 97, 99]
    assert tok.encode("aaab<|end|>", allowed_special="all") == [258, 259]
    assert tok.pattern is None and tok.token_bytes(258) == b"aaab"


def test_minbpe_round_trip_keeps_ids_pattern_and_specials(trained, held_out, tmp_path):
    files = minbpe_dumps(trained)
    lines = files["tokenizer.model"].decode().splitlines()
    assert lines[0] == "minbpe v1" and lines[1] == bpe.get_pattern("gpt4").regex and lines[2] == "2"
    assert lines[3:5] == [f"{s} {i}" for s, i in sorted(trained.special_tokens.items(), key=lambda kv: kv[1])]
    assert len(lines) == 5 + len(trained.merges)
    back = minbpe_loads(files["tokenizer.model"])
    assert back.merges == trained.merges and back.special_tokens == trained.special_tokens
    assert back.pattern.name == "gpt4"
    assert back.encode(held_out, allowed_special="all") == trained.encode(held_out, allowed_special="all")
    assert "] -> [" in files["tokenizer.vocab"].decode()
    # through the CLI and bpe.load
    out = tmp_path / "m"
    bpe.save(trained, tmp_path / "hf", format="hf")
    assert cli(["export", str(tmp_path / "hf"), "--format", "minbpe", "--out", str(out)]) == 0
    assert (out / "tokenizer.model").read_bytes() == files["tokenizer.model"]
    assert bpe.load(out).encode("hello world") == trained.encode("hello world")
    assert bpe.load(out / "tokenizer.model").merges == trained.merges


def test_minbpe_refuses_what_it_cannot_hold():
    with pytest.raises(bpe.FormatError, match="numbers the 256 bytes"):
        minbpe_dumps(bpe.load_pretrained("cl100k_base"))
    with pytest.raises(bpe.FormatError, match="char level"):
        minbpe_dumps(bpe.train("abab", 3, level="char").tokenizer())
    with pytest.raises(bpe.FormatError, match="whitespace"):
        minbpe_dumps(bpe.train("abab", 258, special_tokens=["<a b>"]).tokenizer())
    with pytest.raises(bpe.FormatError, match="stages"):
        minbpe_dumps(bpe.train("abab 123", 258, pattern="deepseek_v3").tokenizer())
    with pytest.raises(bpe.FormatError, match="NFC"):
        minbpe_dumps(bpe.train("abab", 258, normalize="NFC").tokenizer())


@pytest.mark.parametrize(
    "data, message",
    [
        (b"minbpe v2\n\n0\n", "minbpe v1"),
        (b"minbpe v1\n\nx\n", "number of special tokens"),
        (b"minbpe v1\n\n2\n<a> 300\n", "announced"),
        (b"minbpe v1\n\n0\n97\n", "left_id right_id"),
        (b"minbpe v1\n\n0\n97 999\n", "not defined"),
        (b"minbpe v1\n\n1\n<a> 256\n97 97\n", "also a byte or merge"),
        (b"\xff\xfe", "UTF-8"),
        (b"minbpe v1\n(unclosed\n0\n", "cannot be used"),
    ],
)
def test_malformed_minbpe_files_get_a_message(data, message):
    with pytest.raises(bpe.FormatError, match=message):
        minbpe_loads(data)
