"""Exports that Hugging Face ``tokenizers`` and ``tiktoken`` load with identical ids, imports of their files,
round trips through our loader, and clear refusals of what we do not support.

Expected ids always come from the independent tool, never from our own encoder. Tests that run an
independent tool are marked slow (they still run in CI).
"""

from __future__ import annotations

import json

import formats_kit as kit
import pytest
from formats_kit import EXTRA, SPECIALS
from formats_kit import train as _trained
from formats_kit import with_specials as _with_specials

import bpe
from bpe import formats
from bpe.formats import FormatError, UnsupportedFormatError, to_onig

tokenizers = pytest.importorskip("tokenizers")
tiktoken = pytest.importorskip("tiktoken")
from tokenizers import Regex, models, pre_tokenizers  # noqa: E402

corpora = pytest.importorskip("testkit.corpora")


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
# Export -> the independent tools


@pytest.mark.slow
@pytest.mark.parametrize(
    "pattern", ["gpt4", "gpt4o", "llama3", "deepseek_v3", None, r"\p{L}+|\p{N}|\s+|[^\s\p{L}\p{N}]+"]
)
def test_hf_tokenizer_json_encodes_like_hugging_face(tmp_path, training_text, held_out, pattern):
    tok = (
        _trained(training_text, pattern, special_tokens=SPECIALS)
        if pattern is not None
        else _trained(training_text[:60_000], None, vocab_size=400)
    )
    text = held_out if pattern is not None else held_out[:20_000]
    [path] = bpe.save(tok, tmp_path, format="hf")
    assert path.name == "tokenizer.json"
    hf = tokenizers.Tokenizer.from_file(str(path))
    expected = hf.encode(text).ids
    assert tok.encode(text) == expected
    assert hf.decode(expected) == tok.decode(expected) == text


@pytest.mark.slow
def test_hf_export_keeps_special_tokens_and_normalization(tmp_path, training_text, held_out):
    tok = _trained(training_text, "gpt4", special_tokens=SPECIALS, normalize="NFC")
    path = tmp_path / "named.json"
    assert bpe.save(tok, path, format="hf") == [path]
    hf = tokenizers.Tokenizer.from_file(str(path))
    text = _with_specials(held_out) + "cafe\u0301"
    assert tok.encode(text, allowed_special="all") == hf.encode(text).ids
    data = json.loads(path.read_text(encoding="utf-8"))
    assert [(t["content"], t["id"], t["special"]) for t in data["added_tokens"]] == [
        (s, tok.special_tokens[s], True) for s in SPECIALS
    ]
    assert data["decoder"]["type"] == "ByteLevel"
    assert [p["type"] for p in data["pre_tokenizer"]["pretokenizers"]] == ["Split", "ByteLevel"]


@pytest.mark.slow
def test_tiktoken_export_encodes_like_tiktoken(tmp_path, trained, held_out):
    from tiktoken.load import load_tiktoken_bpe

    files = bpe.save(trained, tmp_path / "tt", format="tiktoken")
    assert [f.name for f in files] == ["tokenizer.tiktoken", "bpe_lab.json"]
    meta = json.loads(files[1].read_text(encoding="utf-8"))
    enc = tiktoken.Encoding(
        "trained",
        pat_str=meta["pat_str"],
        mergeable_ranks=load_tiktoken_bpe(str(files[0])),
        special_tokens=meta["special_tokens"],
    )
    text = _with_specials(held_out)
    assert trained.encode(text, allowed_special="all") == enc.encode(text, allowed_special="all")
    assert trained.encode_ordinary(text) == enc.encode_ordinary(text)


@pytest.mark.slow
def test_vocab_and_merges_files_load_in_hugging_face(tmp_path, trained, held_out):
    files = bpe.save(trained, tmp_path / "vm", format="merges")
    assert [f.name for f in files] == ["vocab.json", "merges.txt", "bpe_lab.json"]
    assert files[1].read_text(encoding="utf-8").startswith("#version")
    model = models.BPE.from_file(str(files[0]), str(files[1]))
    hf = tokenizers.Tokenizer(model)
    hf.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(to_onig(bpe.get_pattern("gpt4").regex)), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    assert trained.encode(held_out) == hf.encode(held_out).ids


@pytest.mark.slow
def test_pretrained_cl100k_exports_to_hugging_face_with_tiktoken_ids(tmp_path):
    """A ranks-only vocabulary gets its merges recovered; HF then encodes exactly as tiktoken does."""
    import gzip

    from tiktoken.load import load_tiktoken_bpe

    tok = bpe.load_pretrained("cl100k_base")
    [path] = bpe.save(tok, tmp_path / "cl100k", format="hf")
    hf = tokenizers.Tokenizer.from_file(str(path))
    raw = tmp_path / "cl100k_base.tiktoken"
    raw.write_bytes(gzip.decompress(bpe.pretrained.vocabulary_path("cl100k_base").read_bytes()))
    enc = tiktoken.Encoding(
        "cl100k",
        pat_str=bpe.get_pattern("gpt4").regex,
        mergeable_ranks=load_tiktoken_bpe(str(raw)),
        special_tokens=dict(tok.special_tokens),
    )
    text = corpora.held_out_english(30_000) + corpora.multilingual(30_000) + EXTRA
    assert hf.encode(text).ids == enc.encode_ordinary(text)


# ----------------------------------------------------------------------------------------------------
# Round trips through our own loader


@pytest.mark.parametrize("fmt", ["hf", "merges", "tiktoken"])
def test_round_trip_preserves_encoding(tmp_path, trained, held_out, fmt):
    bpe.save(trained, tmp_path / fmt, format=fmt)
    back = bpe.load(tmp_path / fmt)
    assert isinstance(back, bpe.Tokenizer)
    assert back.special_tokens == trained.special_tokens
    assert back.pattern is not None and back.pattern.name == "gpt4"
    text = _with_specials(held_out)
    # the expected ids are the original tokenizer's; HF and tiktoken agree with them (tests above)
    assert back.encode(text, allowed_special="all") == trained.encode(text, allowed_special="all")
    assert back.decode(back.encode(text, allowed_special="all")) == text


@pytest.mark.parametrize("fmt", ["hf", "merges", "tiktoken"])
def test_load_finds_the_format_from_a_file_path(tmp_path, trained, fmt):
    files = bpe.save(trained, tmp_path, format=fmt)
    assert bpe.load(files[0]).encode(EXTRA) == trained.encode(EXTRA)


def test_round_trip_of_custom_pattern_and_no_pattern(tmp_path, training_text):
    for pattern in (r"[a-z]+|\d|\s+|[^a-z\d\s]+", None):
        tok = _trained(training_text[:50_000], pattern, vocab_size=400)
        for fmt in ("hf", "merges", "tiktoken"):
            bpe.save(tok, tmp_path / f"{fmt}{pattern is None}", format=fmt)
            back = bpe.load(tmp_path / f"{fmt}{pattern is None}")
            assert (back.pattern is None) == (pattern is None)
            assert back.encode(EXTRA) == tok.encode(EXTRA)


@pytest.mark.slow
def test_the_official_tiktoken_file_alone_is_recognized(tmp_path):
    import gzip

    path = tmp_path / "cl100k_base.tiktoken"
    path.write_bytes(gzip.decompress(bpe.pretrained.vocabulary_path("cl100k_base").read_bytes()))
    tok = bpe.load(path)
    # known by its sha256: tiktoken's pattern and special tokens come with it
    assert tok.pattern.name == "gpt4" and tok.special_tokens["<|fim_suffix|>"] == 100260
    assert tok.encode(EXTRA) == bpe.load_pretrained("cl100k_base").encode(EXTRA)


def test_char_level_goes_to_hf_only(tmp_path, training_text):
    tok = bpe.train(training_text[:50_000], 300, pattern="gpt4", level="char").tokenizer()
    [path] = bpe.save(tok, tmp_path, format="hf")
    hf = tokenizers.Tokenizer.from_file(str(path))
    text = training_text[60_000:80_000]
    alphabet = {t for t in tok.vocab.values() if len(t) == 1}
    text = "".join(c for c in text if c in alphabet)
    assert tok.encode(text) == hf.encode(text).ids
    back = bpe.load(path)
    assert back.level == "char" and back.encode(text) == hf.encode(text).ids
    for fmt in ("tiktoken", "merges"):
        with pytest.raises(FormatError, match="char level"):
            bpe.save(tok, tmp_path / fmt, format=fmt)


# ----------------------------------------------------------------------------------------------------
# In memory: dumps / loads (what the app uses: uploads and downloads never touch the disk)


@pytest.mark.parametrize("fmt", formats.FORMATS)
def test_dumps_writes_the_same_files_as_save(trained, tmp_path, fmt):
    files = bpe.dumps(trained, fmt)
    written = bpe.save(trained, tmp_path / fmt, format=fmt)
    assert {p.name: p.read_bytes() for p in written} == files


@pytest.mark.parametrize("fmt", formats.FORMATS)
def test_loads_under_any_upload_names(trained, fmt):
    """Uploads keep the names people gave them: a lone .json is a tokenizer.json, a .json beside a .txt is
    vocab.json + merges.txt; the result encodes like the tokenizer that was saved."""
    renamed = {
        "tokenizer.json": "my-model.json",
        "vocab.json": "gpt2-vocab.json",
        "merges.txt": "gpt2-merges.txt",
        "tokenizer.tiktoken": "mine.tiktoken",
        "bpe_lab.json": "bpe_lab.json",
    }
    files = {renamed.get(name, name): data for name, data in bpe.dumps(trained, fmt).items()}
    assert bpe.loads(files).encode(EXTRA) == trained.encode(EXTRA)
    assert formats.detect_format(files)[0] == {"transformers": "hf"}.get(fmt, fmt)  # read via tokenizer.json


def test_zip_files_round_trip_and_same_bytes_each_time(trained):
    import io
    import zipfile

    files = bpe.dumps(trained, "merges")
    data = bpe.zip_files(files)
    assert bpe.zip_files(files) == data  # no timestamps: a download's bytes depend on its files only
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert {n: z.read(n) for n in z.namelist()} == files


def test_errors_name_the_uploaded_file_not_a_path():
    with pytest.raises(FormatError, match=r"^my upload\.json is not valid JSON"):
        bpe.loads({"my upload.json": b"{nope"})
    with pytest.raises(FormatError, match=r"^ranks\.tiktoken, line 2: expected 'base64-token rank'"):
        bpe.loads({"ranks.tiktoken": b"IQ== 0\nnot a line\n"})
    with pytest.raises(FormatError, match=r"^gpt2-merges\.txt needs the vocab\.json saved with it"):
        bpe.loads({"gpt2-merges.txt": b"#version: 0.2\na b\n"})
    with pytest.raises(UnsupportedFormatError, match=r"^notes\.bin: not a tokenizer file we know"):
        bpe.loads({"notes.bin": b"\x00\x01"})
    with pytest.raises(FormatError, match="no tokenizer found"):
        bpe.loads({})


@pytest.mark.slow
def test_the_official_tiktoken_bytes_alone_are_recognized_in_memory():
    """bpe.loads knows cl100k_base's file by its sha256; bpe.formats.loads (files only) cannot, and falls back
    to GPT-4's pattern with no special tokens. Ids from tiktoken itself."""
    import gzip

    from tiktoken_reference import tiktoken_encoding

    data = gzip.decompress(bpe.pretrained.vocabulary_path("cl100k_base").read_bytes())
    tok = bpe.loads({"upload.tiktoken": data})
    assert tok.name == "cl100k_base" and tok.special_tokens["<|endoftext|>"] == 100257
    text = EXTRA + "<|endoftext|>"
    assert tok.encode(text, allowed_special="all") == tiktoken_encoding("cl100k_base").encode(
        text, allowed_special="all"
    )
    with pytest.warns(formats.AssumedPatternWarning, match="assumed to be 'gpt4'"):  # never silently
        plain = formats.loads({"upload.tiktoken": data})
    assert plain.name == "upload" and plain.special_tokens == {} and plain.assumed_pattern == "gpt4"
