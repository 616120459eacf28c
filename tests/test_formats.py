"""Exports that Hugging Face ``tokenizers`` and ``tiktoken`` load with identical ids, imports of their files,
round trips through our loader, and clear refusals of what we do not support.

Expected ids always come from the independent tool, never from our own encoder. Tests that run an
independent tool are marked slow (they still run in CI).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import bpe
from bpe import formats
from bpe.formats import FormatError, UnsupportedFormatError, from_onig, to_onig

tokenizers = pytest.importorskip("tokenizers")
tiktoken = pytest.importorskip("tiktoken")
from tokenizers import Regex, decoders, models, normalizers, pre_tokenizers, trainers  # noqa: E402

corpora = pytest.importorskip("testkit.corpora")

SPECIALS = ["<|endoftext|>", "<|pad|>"]
EXTRA = (
    "Numbers 1234567 and 3.14159; DON'T we'll \n\n\n  spaces   \t\n"
    "日本語のテキスト 한국어 مرحبا नमस्ते 👨‍👩‍👧 👍🏽 🇺🇸 café café\r\n"
)
#: tiktoken's cl100k pattern as written for ``tokenizers`` users (no possessive interval)
HF_GPT4_REGEX = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""


#: numbers, so that digit merges exist (Austen has few) and digit grouping matters
NUMBERS = " ".join(f"{1700 + (i * 37) % 400} {i * 7919 % 100000}" for i in range(2000))


@pytest.fixture(scope="module")
def training_text() -> str:
    return corpora.english(300_000) + "\n" + NUMBERS


@pytest.fixture(scope="module")
def held_out() -> str:
    return (
        corpora.held_out_english(60_000)
        + corpora.multilingual(30_000)
        + corpora.python_code(30_000)
        + EXTRA
        + " ".join(f"{i * 104729 % 10**7}" for i in range(500))
    )


def _trained(text: str, pattern, **kwargs) -> bpe.Tokenizer:
    return bpe.train(text, kwargs.pop("vocab_size", 1200), pattern=pattern, tie_break="hf", **kwargs).tokenizer()


@pytest.fixture(scope="module")
def trained(training_text) -> bpe.Tokenizer:
    return _trained(training_text, "gpt4", special_tokens=SPECIALS)


def _with_specials(text: str) -> str:
    return text[:5000] + "<|endoftext|>" + text[5000:9000] + "<|pad|><|endoftext|>" + text[9000:]


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
# Files made by Hugging Face tokenizers


def _hf_trained(text: str, pre_tokenizer, vocab_size: int = 1200) -> "tokenizers.Tokenizer":
    hf = tokenizers.Tokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizer
    hf.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["<|endoftext|>"],
        show_progress=False,
    )
    hf.train_from_iterator([text], trainer)
    return hf


@pytest.mark.slow
@pytest.mark.parametrize("notation", ["pairs", "strings"])
@pytest.mark.parametrize("regex", [HF_GPT4_REGEX, bpe.get_pattern("gpt4").regex], ids=["hf-style", "tiktoken-string"])
def test_import_hf_trained_gpt4_byte_level(tmp_path, training_text, held_out, notation, regex):
    hf = _hf_trained(
        training_text,
        pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(regex), behavior="isolated"),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        ),
    )
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
def test_import_hf_gpt2_style_byte_level(tmp_path, training_text, held_out):
    hf = _hf_trained(training_text, pre_tokenizers.ByteLevel(add_prefix_space=False))
    path = tmp_path / "tokenizer.json"
    hf.save(str(path))
    ours = bpe.load(path)
    assert ours.pattern.name == "gpt2"
    assert ours.encode(held_out) == hf.encode(held_out).ids


@pytest.mark.slow
def test_import_gpt2_style_vocab_and_merges_without_sidecar(tmp_path, training_text, held_out):
    """vocab.json + merges.txt as HF writes them (no bpe_lab.json): GPT-2's pattern is assumed, and the
    tokens no merge makes (<|endoftext|>) are special."""
    hf = _hf_trained(training_text, pre_tokenizers.ByteLevel(add_prefix_space=False))
    hf.model.save(str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["merges.txt", "vocab.json"]
    ours = bpe.load(tmp_path)
    assert ours.special_tokens == {"<|endoftext|>": hf.token_to_id("<|endoftext|>")}
    text = held_out + "<|endoftext|>"
    assert ours.encode(text, allowed_special="all") == hf.encode(text).ids


@pytest.mark.slow
def test_import_hf_ignore_merges(tmp_path, training_text, held_out):
    hf = _hf_trained(
        training_text,
        pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(HF_GPT4_REGEX), behavior="isolated"),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        ),
    )
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
