"""The real ``python -m bpe`` in a subprocess: train -> export -> encode -> decode, and one-line errors.

Expected ids come from Hugging Face ``tokenizers`` / ``tiktoken`` loading the files the CLI wrote.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEXT = (
    "Round trip: “quotes”, naïve café, 日本語のテキスト, مرحبا, emoji 👍🏽 👨‍👩‍👧, numbers 1234567,\n"
    "\ttabs and   spaces   \n\n  trailing newline\n"
)


def bpe(*args: str, stdin: bytes | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    env.pop("BPE_LAB_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "bpe", *args],
        input=stdin if stdin is not None else b"",
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )


def one_line_error(result: subprocess.CompletedProcess) -> str:
    err = result.stderr.decode("utf-8")
    assert "Traceback" not in err
    assert err.startswith("bpe: error: ") and err.endswith("\n") and err.count("\n") == 1, err
    assert result.stdout == b""
    return err


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    corpora = pytest.importorskip("testkit.corpora")
    path = tmp_path_factory.mktemp("data") / "train.txt"
    path.write_text(corpora.english(150_000) + "\n" + " ".join(str(i * 7919) for i in range(1500)), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def trained(tmp_path_factory, corpus) -> dict[str, Path]:
    """One training run per format, through the CLI."""
    out = {}
    for fmt in ("hf", "merges", "tiktoken"):
        folder = tmp_path_factory.mktemp(fmt)
        result = bpe(
            "train",
            str(corpus),
            "--vocab-size",
            "800",
            "--pattern",
            "gpt4",
            "--tie-break",
            "hf",
            "--special-token",
            "<|endoftext|>",
            "--out",
            str(folder),
            "--format",
            fmt,
        )
        assert result.returncode == 0, result.stderr
        assert f"wrote {folder}" in result.stdout.decode()
        out[fmt] = folder
    return out


def _ids(result: subprocess.CompletedProcess) -> list[int]:
    assert result.returncode == 0, result.stderr
    return [int(x) for x in result.stdout.split()]


# ----------------------------------------------------------------------------------------------------


def test_help_explains_commands_examples_and_exit_codes():
    main = bpe("--help")
    assert main.returncode == 0
    out = main.stdout.decode()
    for word in ("train", "encode", "decode", "info", "export", "examples:", "exit codes:", "cl100k_base"):
        assert word in out
    for command in ("train", "encode", "decode", "info", "export"):
        sub = bpe(command, "--help")
        assert sub.returncode == 0 and "examples:" in sub.stdout.decode()
    assert "--vocab-size" in bpe("train", "--help").stdout.decode()


def test_no_command_prints_help_and_fails():
    result = bpe()
    assert result.returncode == 2 and b"COMMAND" in result.stderr


@pytest.mark.parametrize("fmt", ["hf", "merges", "tiktoken"])
def test_train_export_encode_decode_round_trip(trained, fmt, tmp_path):
    folder = trained[fmt]
    source = tmp_path / "text.txt"
    source.write_bytes(TEXT.encode("utf-8"))
    ids = _ids(bpe("encode", "-t", str(folder), "-f", str(source)))
    assert _ids(bpe("encode", "-t", str(folder), stdin=TEXT.encode("utf-8"))) == ids
    decoded = bpe("decode", "-t", str(folder), stdin=" ".join(map(str, ids)).encode())
    assert decoded.returncode == 0 and decoded.stdout == TEXT.encode("utf-8")
    # the ids are what the independent tool computes from the files the CLI wrote
    if fmt == "hf":
        tokenizers = pytest.importorskip("tokenizers")
        expected = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json")).encode(TEXT).ids
    elif fmt == "tiktoken":
        tiktoken = pytest.importorskip("tiktoken")
        from tiktoken.load import load_tiktoken_bpe

        meta = json.loads((folder / "bpe_lab.json").read_text(encoding="utf-8"))
        expected = tiktoken.Encoding(
            "cli",
            pat_str=meta["pat_str"],
            special_tokens=meta["special_tokens"],
            mergeable_ranks=load_tiktoken_bpe(str(folder / "tokenizer.tiktoken")),
        ).encode(TEXT)
    else:
        tokenizers = pytest.importorskip("tokenizers")
        from tokenizers import Regex, models, pre_tokenizers

        from bpe.formats import to_onig
        from bpe.patterns import get_pattern

        hf = tokenizers.Tokenizer(models.BPE.from_file(str(folder / "vocab.json"), str(folder / "merges.txt")))
        hf.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(to_onig(get_pattern("gpt4").regex)), behavior="isolated"),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        )
        expected = hf.encode(TEXT).ids
    assert ids == expected


@pytest.mark.slow
def test_encode_with_gpt4_matches_tiktoken(tmp_path):
    tiktoken = pytest.importorskip("tiktoken")
    from tiktoken.load import load_tiktoken_bpe

    from bpe.pretrained import vocabulary_path

    raw = tmp_path / "cl100k_base.tiktoken"
    raw.write_bytes(gzip.decompress(vocabulary_path("cl100k_base").read_bytes()))
    enc = tiktoken.Encoding(
        "cl100k_base",
        mergeable_ranks=load_tiktoken_bpe(str(raw)),
        special_tokens={"<|endoftext|>": 100257},
        pat_str=r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
    )
    assert _ids(bpe("encode", "--tokenizer", "cl100k_base", *TEXT.split(" "))) == enc.encode(TEXT)
    both = TEXT + "<|endoftext|>"
    assert _ids(bpe("encode", "-t", "cl100k_base", "--allow-special", stdin=both.encode())) == enc.encode(
        both, allowed_special="all"
    )
    assert _ids(bpe("encode", "-t", "cl100k_base", "--special-as-text", stdin=both.encode())) == enc.encode(
        both, disallowed_special=()
    )


def test_show_tokens_count_and_json():
    plain = bpe("encode", "-t", "cl100k_base", "--show", "tokens", "--color", "never", "hello world 👍🏽")
    assert plain.returncode == 0
    assert plain.stdout.decode() == "hello| world| 👍|🏽\n"  # the emoji's pieces grouped into characters
    colored = bpe("encode", "-t", "cl100k_base", "--show", "tokens", "--color", "always", "hello world")
    assert b"\x1b[" in colored.stdout and b"hello" in colored.stdout and b"|" not in colored.stdout
    assert bpe("encode", "-t", "o200k_base", "--show", "count", "hello world").stdout == b"2\n"
    data = json.loads(bpe("encode", "-t", "cl100k_base", "--show", "json", "hello world").stdout)
    assert data["tokens"] == ["hello", "Ġworld"] and len(data["ids"]) == 2


def test_export_of_a_pretrained_vocabulary_is_the_published_file(tmp_path):
    import hashlib

    result = bpe("export", "cl100k_base", "--format", "tiktoken", "--out", str(tmp_path / "cl100k"))
    assert result.returncode == 0, result.stderr
    data = (tmp_path / "cl100k" / "tokenizer.tiktoken").read_bytes()
    # tiktoken's published sha256 of cl100k_base.tiktoken: we write back the very same bytes
    assert hashlib.sha256(data).hexdigest() == "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
    meta = json.loads((tmp_path / "cl100k" / "bpe_lab.json").read_text(encoding="utf-8"))
    assert meta["special_tokens"]["<|endofprompt|>"] == 100276


def test_info_describes_a_pretrained_and_a_trained_tokenizer(trained):
    out = bpe("info", "cl100k_base").stdout.decode()
    # cl100k_base: 100,256 ranked tokens = 256 bytes + 100,000 merges; 5 special tokens
    assert "100,261 tokens (100,000 merges, 5 special tokens)" in out
    assert "<|endoftext|> = 100257" in out and "<|endofprompt|> = 100276" in out and "GPT-4" in out
    mine = bpe("info", str(trained["hf"] / "tokenizer.json"))
    assert mine.returncode == 0 and "800 tokens" in mine.stdout.decode()


def test_progress_bar_on_a_terminal(corpus, tmp_path):
    """tqdm draws the bar when stderr is a terminal, and stays silent when it is redirected."""
    pty = pytest.importorskip("pty")
    leader, follower = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "bpe", "train", str(corpus), "--vocab-size", "600", "--out", str(tmp_path / "tty")],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=follower,
        cwd=ROOT,
        env=env,
    )
    os.close(follower)
    chunks = []
    while True:  # read while it runs, so a full terminal buffer never blocks the child
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    assert proc.wait(timeout=120) == 0
    bar = b"".join(chunks).decode("utf-8", "replace")
    assert "training" in bar and "344/344" in bar and "merge" in bar
    piped = bpe("train", str(corpus), "--vocab-size", "300", "--out", str(tmp_path / "piped"))
    assert piped.returncode == 0 and piped.stderr == b""


# ----------------------------------------------------------------------------------------------------
# Errors: one line, no traceback, a meaningful exit code


def test_missing_input_file(tmp_path):
    result = bpe("train", str(tmp_path / "nope.txt"), "--vocab-size", "300", "--out", str(tmp_path / "o"))
    assert result.returncode == 3
    assert "nope.txt: no such file" in one_line_error(result)


def test_input_that_is_not_text(tmp_path):
    binary = tmp_path / "image.bin"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe\x00")
    result = bpe("train", str(binary), "--vocab-size", "300", "--out", str(tmp_path / "o"))
    assert result.returncode == 4
    assert "not UTF-8" in one_line_error(result)


def test_bad_tokenizer_file(tmp_path):
    corrupt = tmp_path / "tokenizer.json"
    corrupt.write_text('{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [', encoding="utf-8")
    result = bpe("encode", "-t", str(corrupt), "hello")
    assert result.returncode == 4
    assert "not valid JSON" in one_line_error(result)
    wordpiece = tmp_path / "wp.json"
    wordpiece.write_text(json.dumps({"model": {"type": "WordPiece", "vocab": {"a": 0}}}), encoding="utf-8")
    result = bpe("info", str(wordpiece))
    assert result.returncode == 4 and "WordPiece" in one_line_error(result)


@pytest.mark.parametrize(
    "pattern, message",
    [("(unclosed", "does not compile"), ("gtp4", "not a pattern name"), (r"\p{Nope}+", "does not compile")],
)
def test_bad_pattern(corpus, tmp_path, pattern, message):
    result = bpe("train", str(corpus), "--vocab-size", "300", "--pattern", pattern, "--out", str(tmp_path / "o"))
    assert result.returncode == 2
    assert message in one_line_error(result)
    assert not (tmp_path / "o").exists()


def test_missing_tokenizer(tmp_path):
    for command in (["encode", "hello"], ["decode", "1", "2"]):
        result = bpe(command[0], "-t", str(tmp_path / "absent"), *command[1:])
        assert result.returncode == 3
        assert "not found" in one_line_error(result)
    result = bpe("info", "gpt5_base")
    assert result.returncode == 3 and "cl100k_base, o200k_base" in one_line_error(result)


def test_bad_ids_special_tokens_and_options():
    result = bpe("decode", "-t", "cl100k_base", "12", "abc")
    assert result.returncode == 4 and "'abc' is not a token id" in one_line_error(result)
    result = bpe("decode", "-t", "cl100k_base", "999999999")
    assert result.returncode == 4 and "unknown token id" in one_line_error(result)
    result = bpe("encode", "-t", "cl100k_base", "a <|endoftext|> b")
    assert result.returncode == 4 and "--allow-special" in one_line_error(result)
    result = bpe("train", "x.txt", "--vocab-size", "many", "--out", "o")
    assert result.returncode == 2 and "'many' is not a whole number" in one_line_error(result)
    result = bpe("train", "x.txt", "--vocab-size", "100", "--out", "o")
    assert result.returncode == 2 and "below the 256 byte tokens" in one_line_error(result)
    result = bpe("frobnicate")
    assert result.returncode == 2 and "invalid choice" in one_line_error(result)


# ----------------------------------------------------------------------------------------------------
# Closed standard input and an output that cannot be written (issue 14): one line, a meaningful exit code


def bpe_stdin_closed(*args: str) -> subprocess.CompletedProcess:
    """``python -m bpe ARGS <&-`` through a real shell: file descriptor 0 closed, as a user would."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    env.pop("BPE_LAB_DEBUG", None)
    return subprocess.run(
        ["bash", "-c", '"$@" <&-', "bash", sys.executable, "-m", "bpe", *args],
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )


@pytest.mark.parametrize(
    "args, what",
    [
        (["encode", "-t", "cl100k_base"], "the text"),
        (["train", "-", "--vocab-size", "300", "--out", "never_written"], "the text"),
        (["decode", "-t", "cl100k_base"], "the ids"),
    ],
    ids=["encode", "train", "decode"],
)
def test_closed_stdin_is_a_one_line_error(args, what):
    result = bpe_stdin_closed(*args)
    err = one_line_error(result)
    assert result.returncode == 3, err  # NOT_FOUND: the input does not exist
    assert f"standard input is closed: nothing to read {what} from" in err
    assert "internal error" not in err
    assert not (ROOT / "never_written").exists()


def test_closed_stdin_does_not_matter_when_the_text_is_given():
    result = bpe_stdin_closed("encode", "-t", "cl100k_base", "--show", "count", "hello world")
    assert result.returncode == 0 and result.stdout.strip() == b"2", result.stderr


@pytest.mark.parametrize("command", ["train", "export"])
@pytest.mark.parametrize("where", ["under-a-file", "file-in-the-way"])
def test_uncreatable_out_is_a_one_line_error(tmp_path, command, where):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    out = blocker / "tokenizer" if where == "under-a-file" else blocker
    if command == "train":
        result = bpe(
            "train",
            "-",
            "--vocab-size",
            "260",
            "--quiet",
            "--format",
            "tiktoken",
            "--out",
            str(out),
            stdin=b"hello hello hello world",
        )
    else:
        tok = tmp_path / "tok"
        assert (
            bpe("train", "-", "--vocab-size", "260", "--quiet", "--out", str(tok), stdin=b"hello hello").returncode == 0
        )
        result = bpe("export", str(tok), "--format", "tiktoken", "--out", str(out))
    err = one_line_error(result)
    assert "internal error" not in err, err
    if where == "under-a-file":  # CANNOT_WRITE
        assert (
            result.returncode == 5 and f"--out {out}: cannot write there: a file stands where a folder is needed" in err
        )
    else:  # --out names a file, the format writes a folder: a bad command line value
        assert result.returncode == 4 and f"{out} is a file; this format is written into a folder" in err
    assert blocker.read_text() == "not a folder"  # nothing overwritten


def test_train_sentencepiece_style_writes_a_file_hugging_face_encodes_alike(corpus, tmp_path):
    tokenizers = pytest.importorskip("tokenizers")
    out = tmp_path / "sp"
    result = bpe(
        "train",
        str(corpus),
        "--vocab-size",
        "600",
        "--family",
        "sentencepiece",
        "--tie-break",
        "hf",
        "--character-coverage",
        "0.9995",
        "--out",
        str(out),
    )
    assert result.returncode == 0, result.stderr
    data = json.loads((out / "tokenizer.json").read_text(encoding="utf-8"))
    assert data["pre_tokenizer"]["type"] == "Metaspace" and data["model"]["byte_fallback"] is True
    hf = tokenizers.Tokenizer.from_file(str(out / "tokenizer.json"))
    expected = hf.encode(TEXT, add_special_tokens=False).ids
    assert _ids(bpe("encode", "-t", str(out), stdin=TEXT.encode("utf-8"))) == expected
    assert "<0xF0>" in hf.encode("🦜", add_special_tokens=False).tokens
    bad = bpe("train", str(corpus), "--vocab-size", "600", "--character-coverage", "1.5", "--out", str(out))
    assert bad.returncode == 2 and b"not above 0 and at most 1" in bad.stderr


def test_train_unk_token_for_a_char_level_tokenizer(tmp_path):
    """Issue 34, item 7: a char-level tokenizer's error advises an unknown token, and ``train --unk-token``
    makes one. Expected ids: Hugging Face ``tokenizers`` loading the tokenizer.json the CLI wrote."""
    tokenizers = pytest.importorskip("tokenizers")
    text = tmp_path / "t.txt"
    text.write_text("low lower lowest newer wider " * 20, encoding="utf-8")
    plain, unk = tmp_path / "plain", tmp_path / "unk"
    assert bpe("train", str(text), "--vocab-size", "40", "--level", "char", "--out", str(plain)).returncode == 0
    unseen = "lowest café"  # c, a, f, é are not in the alphabet
    result = bpe("encode", "-t", str(plain), unseen)
    assert result.returncode == 4
    err = one_line_error(result)
    assert "not in this char-level tokenizer's alphabet" in err and "--unk-token '<unk>'" in err, err
    # the advice, followed
    result = bpe("train", str(text), "--vocab-size", "40", "--level", "char", "--unk-token", "<unk>", "--out", str(unk))
    assert result.returncode == 0, result.stderr
    hf = tokenizers.Tokenizer.from_file(str(unk / "tokenizer.json"))
    unk_id = hf.token_to_id("<unk>")
    assert unk_id is not None
    expected = hf.encode(unseen).ids
    assert expected.count(unk_id) == 4
    assert _ids(bpe("encode", "-t", str(unk), unseen)) == expected
    # byte level never meets an unknown character: the flag is refused with a sentence
    result = bpe("train", str(text), "--vocab-size", "300", "--unk-token", "<unk>", "--out", str(tmp_path / "b"))
    assert result.returncode == 2 and "--unk-token is for --level char" in one_line_error(result)
