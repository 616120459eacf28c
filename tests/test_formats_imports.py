"""Files made by Hugging Face ``tokenizers`` read by our loader with its ids, clear refusals of what we do not
support, and the Oniguruma regex dialect of tokenizer.json. Exports and round trips: tests/test_formats.py.

Expected ids always come from the independent tool, never from our own encoder. Tests that run an
independent tool are marked slow (they still run in CI).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import formats_kit as kit
import pytest
from formats_kit import EXTRA, HF_GPT4_REGEX

import bpe
from bpe import formats
from bpe.formats import FormatError, UnsupportedFormatError, from_onig, to_onig

tokenizers = pytest.importorskip("tokenizers")
tiktoken = pytest.importorskip("tiktoken")
from tokenizers import Regex, decoders, models, normalizers, pre_tokenizers, trainers  # noqa: E402


@pytest.fixture(scope="module")
def training_text() -> str:
    return kit.training_text()


@pytest.fixture(scope="module")
def held_out() -> str:
    return kit.held_out()


@pytest.fixture(scope="module")
def trained() -> bpe.Tokenizer:
    return kit.trained()


# ----------------------------------------------------------------------------------------------------
# Files made by Hugging Face tokenizers


@functools.cache
def _hf_trained(split: str | None = None) -> "tokenizers.Tokenizer":
    """A byte-level BPE trained by Hugging Face on the training text, once per process (the tests only read
    it): GPT-2's ByteLevel pre-tokenizer, or with ``split`` that regex's chunks first (Split, "isolated")."""
    hf = tokenizers.Tokenizer(models.BPE())
    if split is None:
        hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    else:
        hf.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(split), behavior="isolated"),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        )
    hf.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=1200,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["<|endoftext|>"],
        show_progress=False,
    )
    hf.train_from_iterator([kit.training_text()], trainer)
    return hf


@pytest.mark.slow
@pytest.mark.parametrize("notation", ["pairs", "strings"])
@pytest.mark.parametrize("regex", [HF_GPT4_REGEX, bpe.get_pattern("gpt4").regex], ids=["hf-style", "tiktoken-string"])
def test_import_hf_trained_gpt4_byte_level(tmp_path, held_out, notation, regex):
    hf = _hf_trained(regex)
    data = json.loads(hf.to_str())
    if notation == "strings":
        data["model"]["merges"] = [" ".join(m) for m in data["model"]["merges"]]
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    ours = bpe.load(path)
    text = held_out + " 1234567890 digits 99999 <|endoftext|> end"
    assert ours.encode(text, allowed_special="all") == hf.encode(text).ids
    assert ours.special_tokens == {"<|endoftext|>": hf.token_to_id("<|endoftext|>")}


@pytest.mark.slow
def test_import_hf_gpt2_style_byte_level(tmp_path, held_out):
    hf = _hf_trained()
    path = tmp_path / "tokenizer.json"
    hf.save(str(path))
    ours = bpe.load(path)
    assert ours.pattern.name == "gpt2"
    assert ours.encode(held_out) == hf.encode(held_out).ids


@pytest.mark.slow
def test_import_gpt2_style_vocab_and_merges_without_sidecar(tmp_path, held_out):
    """vocab.json + merges.txt as HF writes them (no bpe_lab.json): GPT-2's pattern is assumed, and the
    tokens no merge makes (<|endoftext|>) are special."""
    hf = _hf_trained()
    hf.model.save(str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["merges.txt", "vocab.json"]
    ours = bpe.load(tmp_path)
    assert ours.special_tokens == {"<|endoftext|>": hf.token_to_id("<|endoftext|>")}
    text = held_out + "<|endoftext|>"
    assert ours.encode(text, allowed_special="all") == hf.encode(text).ids


@pytest.mark.slow
def test_import_hf_ignore_merges(tmp_path, held_out):
    hf = _hf_trained(HF_GPT4_REGEX)
    data = json.loads(hf.to_str())
    data["model"]["ignore_merges"] = True
    # make the whole-word shortcut matter: a token whose bytes the merges would not build
    data["model"]["vocab"]["Ġzqxj"] = len(data["model"]["vocab"])
    hf = tokenizers.Tokenizer.from_str(json.dumps(data))
    ours = formats.from_hf_json(data)
    text = held_out + " zqxj zqxjs"
    assert ours.encode(text) == hf.encode(text).ids


# ----------------------------------------------------------------------------------------------------
# Refusals


def _unsupported(tmp_path: Path, tok: "tokenizers.Tokenizer") -> Path:
    path = tmp_path / "tokenizer.json"
    tok.save(str(path))
    return path


@pytest.mark.slow
def test_wordpiece_and_unigram_are_refused_by_name(tmp_path):
    wp = tokenizers.Tokenizer(models.WordPiece({"[UNK]": 0, "a": 1, "##b": 2}, unk_token="[UNK]"))
    with pytest.raises(UnsupportedFormatError) as refused:
        bpe.load(_unsupported(tmp_path, wp))
    assert str(refused.value).endswith(
        "tokenizer.json: This is a WordPiece tokenizer (BERT-style): it is not BPE "
        "and has no merges to play. BPE Lab reads BPE tokenizers: byte-level (GPT-2, "
        "Llama 3, Qwen...) or SentencePiece-style (Llama 2, Mistral 7B, Gemma)."
    )
    uni = tokenizers.Tokenizer(models.Unigram([("<unk>", 0.0), ("a", -1.0), ("b", -2.0)], 0, False))
    with pytest.raises(
        UnsupportedFormatError,
        match=r"This is a Unigram tokenizer \(T5/ALBERT-style "
        r"SentencePiece\): it is not BPE and has no merges to play",
    ):
        bpe.load(_unsupported(tmp_path, uni))


@pytest.mark.slow
def test_what_byte_level_bpe_does_not_support_is_refused(tmp_path):
    """SentencePiece-style and Whitespace BPE files load (tests/test_sentencepiece_style.py); what a byte-level
    BPE file may not carry is still refused by name."""
    vocab = {"<unk>": 0, "a": 1, "b": 2, "ab": 3, "▁": 4}
    fallback = tokenizers.Tokenizer(models.BPE(vocab, [("a", "b")], unk_token="<unk>", byte_fallback=True))
    fallback.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    with pytest.raises(UnsupportedFormatError, match="byte fallback with a ByteLevel pre-tokenizer"):
        bpe.load(_unsupported(tmp_path, fallback))
    ws = tokenizers.Tokenizer(models.BPE(vocab, [("a", "b")], unk_token="<unk>"))
    ws.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Whitespace(), pre_tokenizers.ByteLevel(add_prefix_space=False)]
    )
    with pytest.raises(UnsupportedFormatError, match=r"Sequence\[Whitespace, ByteLevel\] is not supported"):
        bpe.load(_unsupported(tmp_path, ws))
    lower = tokenizers.Tokenizer(models.BPE({"a": 0}, []))
    lower.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    lower.normalizer = normalizers.Lowercase()
    with pytest.raises(UnsupportedFormatError, match="normalizer 'Lowercase'"):
        bpe.load(_unsupported(tmp_path, lower))


def test_corrupt_files_get_clear_messages(tmp_path, trained):
    [path] = bpe.save(trained, tmp_path / "ok", format="hf")
    truncated = tmp_path / "truncated.json"
    truncated.write_text(path.read_text(encoding="utf-8")[:5000], encoding="utf-8")
    with pytest.raises(FormatError, match="not valid JSON"):
        bpe.load(truncated)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["model"]["merges"][3] = ["Ġzz", "qq"]
    bad_merge = tmp_path / "bad_merge.json"
    bad_merge.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(FormatError, match="merge #3"):
        bpe.load(bad_merge)
    binary = tmp_path / "noise.bin"
    binary.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(FormatError, match="not a tokenizer file"):
        bpe.load(binary)
    other = tmp_path / "other.json"
    other.write_text('{"name": "not a tokenizer"}', encoding="utf-8")
    with pytest.raises(FormatError, match="no 'model'"):
        bpe.load(other)
    folder = bpe.save(trained, tmp_path / "tt", format="tiktoken")[0]
    folder.write_text("IQ== 0\nnot base64!! x\n", encoding="ascii")
    with pytest.raises(FormatError, match="line 2"):
        bpe.load(folder)
    with pytest.raises(FormatError, match="does not exist"):
        bpe.load(tmp_path / "missing.json")
    (tmp_path / "empty_dir").mkdir()
    with pytest.raises(FormatError, match="no tokenizer found"):
        bpe.load(tmp_path / "empty_dir")
    with pytest.raises(FormatError, match="unknown format"):
        bpe.save(trained, tmp_path / "x", format="sentencepiece")


@pytest.mark.slow
def test_missing_byte_tokens_are_explained(tmp_path, training_text):
    hf = tokenizers.Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    hf.train_from_iterator([training_text[:20_000]], trainers.BpeTrainer(vocab_size=300, show_progress=False))
    with pytest.raises(UnsupportedFormatError, match="all 256 single bytes"):
        bpe.load(_unsupported(tmp_path, hf))


# ----------------------------------------------------------------------------------------------------
# Regex dialects (Oniguruma in tokenizer.json)

TEXTS = [
    "12345 abc 1234567",
    "hello   \n\n world  ",
    "I'LL go's DON'T",
    "a\u00a0b \u2003c",
    "!!!\n\nok\n",
    "日本語 テキスト 123",
    "  trailing  ",
    "x\n",
    EXTRA,
]


@pytest.mark.slow
@pytest.mark.parametrize("name", list(bpe.PATTERNS))
def test_exported_regexes_split_like_ours_in_hugging_face(name):
    entry = bpe.PATTERNS[name]
    hf = pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(to_onig(s)), behavior="isolated") for s in entry.stages])
    for text in TEXTS + ["\n".join(TEXTS)]:
        assert [t for t, _ in hf.pre_tokenize_str(text)] == bpe.pretokenize(text, name)


@pytest.mark.slow
@pytest.mark.parametrize(
    "onig", [r"\p{N}{1,3}+|\p{L}+|\s+|[^\s\p{L}\p{N}]+", r"[a-z]+$|[a-z]|\s+", r"^[a-z]+|[a-z]|\s+"]
)
def test_imported_onig_regexes_split_like_hugging_face(onig):
    hf = pre_tokenizers.Split(Regex(onig), behavior="isolated")
    ours = from_onig(onig)
    for text in TEXTS + ["line one\nline two\n", "  a\n  b"]:
        assert bpe.pretokenize(text, ours) == [t for t, _ in hf.pre_tokenize_str(text)]


def test_tokenizers_the_formats_cannot_hold_are_refused(tmp_path):
    base = {i: bytes([i]) for i in range(256)}
    twice = bpe.Tokenizer(
        vocab={**base, 256: b"ab", 257: b"abc", 258: b"bc", 259: b"abc"},
        merges={(97, 98): 256, (256, 99): 257, (98, 99): 258, (97, 258): 259},
    )
    for fmt in formats.FORMATS:
        if fmt == "minbpe":  # names tokens by id: it can hold both
            bpe.save(twice, tmp_path / fmt, format=fmt)
            assert bpe.load(tmp_path / fmt).merges == twice.merges
            continue
        with pytest.raises(FormatError, match="tokens 257 and 259 have the same bytes"):
            bpe.save(twice, tmp_path / fmt, format=fmt)
    clash = bpe.Tokenizer(vocab={**base, 256: b"ab"}, merges={(97, 98): 256}, special_tokens={"ab": 257})
    with pytest.raises(FormatError, match="special token 'ab' is spelled like an ordinary token"):
        bpe.save(clash, tmp_path / "clash", format="hf")
    assert not (tmp_path / "clash").exists()
