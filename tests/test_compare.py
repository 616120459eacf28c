"""``bpe.compare``: deliberately wrong trainers, written here, are diagnosed with their mistake.

Each wrong trainer below is the tutorials' loop with one mistake a student makes (counting a pair once per
pre-token as the exercise notebook does, no regex split, another tie rule, merging into special tokens, no
NFC, counts never lowered after a merge). They share no code with ``bpe``: their own copy of GPT-2's
pattern, their own split on the special token, the textbook merge step of ``testkit.naive_bpe``. A is ``bpe.train`` with the reference
settings; ``compare(A, wrong merges, text=...)`` must name the mistake, on at least two texts each.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from pathlib import Path

import pytest
import regex

import bpe
from bpe.compare import Reference
from bpe.compare_causes import CATALOGUE, CAUSES
from testkit.naive_bpe import gpt2_bytes_to_unicode, merge_pair, naive_train, pair_counts

ROOT = Path(__file__).resolve().parents[1]
GPT2 = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
EOT = "<|endoftext|>"
N = 40


def wrong_trainer(
    text: str,
    n: int,
    *,
    split_regex: bool = True,
    split_special: bool = True,
    nfc: bool = False,
    per_chunk: bool = False,
    rule: str = "lexical",
    stale: bool = False,
) -> list[tuple[bytes, bytes]]:
    """The tutorials' loop over pre-token counts, ids 256+ for new tokens; one knob per mistake."""
    if nfc:
        text = unicodedata.normalize("NFC", text)
    docs = text.split(EOT) if split_special else [text]
    words: Counter[tuple[int, ...]] = Counter()  # insertion order = first appearance
    for doc in docs:
        for piece in regex.findall(GPT2, doc) if split_regex else [doc] if doc else []:
            words[tuple(piece.encode("utf-8"))] += 1
    vocab = [bytes([b]) for b in range(256)]

    def count_all() -> dict[tuple[int, int], int]:  # per_chunk: the exercise notebook's get_pairs, a set
        return pair_counts(words, once_per_word=per_chunk)

    merges = []
    counts = count_all()
    for _ in range(n):
        if not stale:
            counts = count_all()
        if not counts or max(counts.values()) <= 0:
            break
        if rule == "first":  # Python's max over a dict: the first pair met
            best = max(counts, key=counts.get)
        else:  # the smaller id pair
            best = min(counts, key=lambda p: (-counts[p], p))
        new = len(vocab)
        vocab.append(vocab[best[0]] + vocab[best[1]])
        merges.append((vocab[best[0]], vocab[best[1]]))
        merged: Counter[tuple[int, ...]] = Counter()
        for word, w in words.items():
            after = merge_pair(word, best, new)
            if stale and after != word:  # the mistake: add the new pairs, never take the lost ones off
                for p in zip(after, after[1:]):
                    if new in p:
                        counts[p] = counts.get(p, 0) + w
            merged[after] += w
        words = merged
        counts.pop(best, None)
    return merges


def text_of(name: str) -> str:
    return (ROOT / "sample_texts" / name).read_text(encoding="utf-8")


ENGLISH = text_of("english.txt")
REPEATS = "aaaa aaaa banana bananas aaaa ab ab cabbage baggage " * 4
ACCENTS = unicodedata.normalize("NFD", text_of("multilingual.txt")[:1500])
DECOMPOSED = unicodedata.normalize("NFD", "café crème brûlée, naïve façade, résumé, élève, où, déjà vu. " * 5)
WITH_EOT = f"hello world{EOT}the cat sat{EOT}on the mat{EOT}hello there{EOT}" * 3
STORY = EOT.join(ENGLISH[i : i + 100] for i in range(0, 3000, 100)) + EOT


def reference(text: str, *, rule: str = "lexical", specials=(), normalize=None) -> bpe.Run:
    return bpe.train(
        text, 256 + len(specials) + N, pattern="gpt2", tie_break=rule, special_tokens=specials, normalize=normalize
    )


CASES = [
    # (cause, text, the reference's settings, the wrong trainer's knobs)
    ("counting_per_chunk", ENGLISH, {}, {"per_chunk": True}),
    ("counting_per_chunk", REPEATS, {}, {"per_chunk": True}),
    ("pretokenization", ENGLISH, {}, {"split_regex": False}),
    ("pretokenization", REPEATS, {}, {"split_regex": False}),
    ("tie_rule", ENGLISH, {}, {"rule": "first"}),
    ("tie_rule", REPEATS, {}, {"rule": "first"}),
    ("special_tokens", WITH_EOT, {"specials": [EOT]}, {"split_special": False}),
    ("special_tokens", STORY, {"specials": [EOT]}, {"split_special": False}),
    ("normalization", ACCENTS, {"normalize": "NFC"}, {"nfc": False}),
    ("normalization", DECOMPOSED, {"normalize": "NFC"}, {"nfc": False}),
    ("stale_counts", ENGLISH, {}, {"stale": True}),
    ("stale_counts", REPEATS, {}, {"stale": True}),
]


@pytest.mark.parametrize("cause,text,ref,knobs", CASES, ids=[f"{c[0]}-{i % 2}" for i, c in enumerate(CASES)])
def test_a_wrong_trainer_is_diagnosed_with_its_mistake(cause, text, ref, knobs):
    a = reference(text, **ref)
    right = wrong_trainer(text, N, nfc=ref.get("normalize") == "NFC")
    # the test's own trainer without its mistake is the reference: bpe agrees with it merge for merge
    assert bpe.compare(a, right, text=text).cause == "identical"
    wrong = wrong_trainer(
        text,
        N,
        nfc=False if "nfc" in knobs else ref.get("normalize") == "NFC",
        **{k: v for k, v in knobs.items() if k != "nfc"},
    )
    c = bpe.compare(a, wrong, text=text)
    assert c.first is not None and c.equal == c.first.number - 1 < N
    assert c.first.a_pair == right[c.equal] and c.first.b_pair == wrong[c.equal]
    assert c.cause == cause, c.summary()
    assert c.best is not None and c.best.agree > c.equal


def test_identical_runs_report_identical():
    for text in (ENGLISH, REPEATS):
        a = reference(text)
        c = bpe.compare(a, reference(text), text=text)
        n = len(a.merges)
        assert c.cause == "identical" and c.first is None and c.equal == n
        assert f"identical for all {n} merges" in c.summary()


def test_a_tie_shows_both_counts_and_which_rule_picks_which():
    # aaabdaaabac after aa: (a, b) and (aa, a) both occur twice
    a = bpe.train("aaabdaaabac", 259, pattern=None, tie_break="lexical")
    b = bpe.train("aaabdaaabac", 259, pattern=None, tie_break="max_bytes")
    c = bpe.compare(a, b, text="aaabdaaabac")
    d = c.first
    assert (c.equal, d.number, d.a_pair, d.b_pair) == (1, 2, (b"a", b"b"), (b"aa", b"a"))
    assert (d.a_count, d.b_count, d.tied) == (2, 2, True)
    assert d.picks == {"lexical": "A", "first": "B", "hf": "A", "max_bytes": "B", "visible": "A"}
    assert c.cause == "tie_rule"


def test_a_pair_that_was_not_the_most_frequent():
    a = bpe.train("aaabdaaabac", 258, pattern=None)
    c = bpe.compare(a, [(b"a", b"a"), (b"b", b"d")], text="aaabdaaabac")
    assert (c.first.a_count, c.first.b_count, c.first.tied) == (2, 1, False)


def test_another_text_is_different_text():
    a = reference(ENGLISH)
    other = wrong_trainer("quiz quiz quick quack zzz qq " * 20, N)
    assert bpe.compare(a, other, text=ENGLISH).cause == "different_text"


def test_every_cause_has_a_catalogue_entry():
    assert set(CATALOGUE) == set(CAUSES) == set(bpe.compare_causes.CAUSES)
    for entry in CATALOGUE.values():
        assert entry.explanation.endswith(".") and entry.example


# --- uploads: every format loads, a malformed one gets one sentence --------------------------------

U2B = {c: b for b, c in gpt2_bytes_to_unicode().items()}


@pytest.fixture(scope="module")
def hf_files(tmp_path_factory):
    """A byte-level BPE trained by Hugging Face tokenizers, saved as tokenizer.json and vocab.json + merges.txt."""
    tokenizers = pytest.importorskip("tokenizers")
    tok = tokenizers.Tokenizer(tokenizers.models.BPE())
    tok.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=256 + 60, show_progress=False, initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator([ENGLISH], trainer)
    folder = tmp_path_factory.mktemp("hf")
    tok.save(str(folder / "tokenizer.json"))
    tok.model.save(str(folder))
    raw = __import__("json").loads((folder / "tokenizer.json").read_text(encoding="utf-8"))["model"]["merges"]
    expected = [tuple(bytes(U2B[c] for c in side) for side in (m.split(" ") if isinstance(m, str) else m)) for m in raw]
    return folder, expected


def test_hugging_face_files_load_and_match_the_hf_tie_rule(hf_files):
    folder, expected = hf_files
    read = bpe.compare_inputs.merge_list_from_files
    one = read({"tokenizer.json": (folder / "tokenizer.json").read_bytes()})
    alone = read({"merges.txt": (folder / "merges.txt").read_bytes()})
    both = read(
        {"vocab.json": (folder / "vocab.json").read_bytes(), "merges.txt": (folder / "merges.txt").read_bytes()}
    )
    assert list(one.pairs) == list(alone.pairs) == list(both.pairs) == expected and len(expected) == 60
    a = bpe.train(ENGLISH, 256 + 60, pattern="gpt2", tie_break="hf")
    c = bpe.compare(a, folder / "tokenizer.json", text=ENGLISH)
    assert c.cause == "identical" and c.equal == 60


def test_tiktoken_minbpe_and_json_lists_load(tmp_path):
    import base64
    import json

    merges = wrong_trainer(ENGLISH, 30)
    tokens = [bytes([b]) for b in range(256)] + [a + b for a, b in merges]
    ranks = b"".join(base64.b64encode(t) + b" %d\n" % i for i, t in enumerate(tokens))
    read = bpe.compare_inputs.merge_list_from_files
    assert list(read({"mine.tiktoken": ranks}).pairs) == merges
    ids = {t: i for i, t in enumerate(tokens)}
    model = "minbpe v1\n\n0\n" + "".join(f"{ids[a]} {ids[b]}\n" for a, b in merges)
    assert list(read({"basic.model": model.encode()}).pairs) == merges
    latin = json.dumps([[a.decode("latin-1"), b.decode("latin-1")] for a, b in merges]).encode()
    hexed = json.dumps({"encoding": "hex", "merges": [[a.hex(), b.hex()] for a, b in merges]}).encode()
    assert list(read({"merges.json": latin}).pairs) == list(read({"m.json": hexed}).pairs) == merges
    # a path and an in-memory list of byte strings
    (tmp_path / "pairs.json").write_bytes(latin)
    assert bpe.compare(bpe.train(ENGLISH, 256 + 30, pattern="gpt2"), tmp_path / "pairs.json", text=ENGLISH).identical
    assert bpe.compare(merges, [(a.decode("latin-1"), b.decode("latin-1")) for a, b in merges]).identical


@pytest.mark.parametrize(
    "files",
    [
        {"merges.txt": b"just-one-token-per-line\nx\n"},
        {"merges.txt": b"\xff\xfe\x00garbage"},
        {"merges.json": b'{"encoding": "base64", "merges": []}'},
        {"merges.json": b'[["a", "b", "c"]]'},
        {"pairs.json": b'[["\\u4e16", "b"]]'},
        {"model.pkl": b"\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00]\x94."},
        {"tokenizer.json": b'{"model": 3'},
        {"vocab.json": b"{}"},
    ],
)
def test_a_malformed_upload_gets_one_sentence(files):
    with pytest.raises(bpe.CompareInputError) as info:
        bpe.compare_inputs.merge_list_from_files(files)
    message = str(info.value)
    assert "\n" not in message and "Traceback" not in message and 10 < len(message) < 400, message


def _merges_txt(pairs) -> bytes:
    b2u = gpt2_bytes_to_unicode()
    return (
        "#version: 0.2\n" + "".join(f"{''.join(b2u[x] for x in a)} {''.join(b2u[x] for x in b)}\n" for a, b in pairs)
    ).encode("utf-8")


def test_cli_compare_prints_the_first_difference_and_the_cause(tmp_path):
    import os
    import subprocess
    import sys

    (tmp_path / "train.txt").write_text(ENGLISH, encoding="utf-8")
    bpe.save(reference(ENGLISH).tokenizer(), tmp_path / "ref.json")
    wrong = wrong_trainer(ENGLISH, N, rule="first")
    (tmp_path / "merges.txt").write_bytes(_merges_txt(wrong))
    (tmp_path / "bad.txt").write_bytes(b"no pairs here\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")

    def cli(*args):
        return subprocess.run(
            [sys.executable, "-m", "bpe", "compare", *args], capture_output=True, env=env, cwd=tmp_path, timeout=120
        )

    out = cli("ref.json", "merges.txt", "--text", "train.txt")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.decode().splitlines()
    equal = next(i for i, (p, q) in enumerate(zip(reference(ENGLISH).merges, wrong)) if p.token != q[0] + q[1])
    assert f"agree on the first {equal} merges; merge {equal + 1} differs:" in lines
    assert lines[-1].startswith("cause: tie_rule") and len(lines) <= 5
    same = cli("ref.json", "ref.json")
    assert same.returncode == 0 and f"identical for all {N} merges" in same.stdout.decode()
    bad = cli("ref.json", "bad.txt", "--text", "train.txt")
    err = bad.stderr.decode()
    assert bad.returncode != 0 and err.startswith("bpe: error: bad.txt: line 1") and err.count("\n") == 1


def exercise_notebook_trainer(text: str, n: int) -> list[tuple[bytes, bytes]]:
    """The exercise notebook's loop (seed 004): NFC, Qwen's pattern, GPT-2 visible symbols, every pre-token
    in a list, its pairs as a set (once per pre-token), ties to min() of the visible strings."""
    b2u = gpt2_bytes_to_unicode()
    qwen = (
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
        r"|\s+(?!\S)|\s+"
    )
    corpus = Counter(
        tuple(b2u[b] for b in piece.encode("utf-8"))
        for piece in regex.findall(qwen, unicodedata.normalize("NFC", text))
    )

    def pick(stats: Counter) -> tuple[str, str]:
        top = max(stats.values())
        return min(p for p, c in stats.items() if c == top)

    return [
        tuple(bytes(U2B[c] for c in side) for side in pair) for pair in naive_train(corpus, n, pick, once_per_word=True)
    ]


@pytest.mark.parametrize("text", [ENGLISH, REPEATS], ids=["english", "repeats"])
def test_the_exercise_notebook_reference_and_a_student_who_counts_every_occurrence(text):
    ref = Reference(pattern="qwen2", normalize="NFC", counting="per_chunk", tie_break="visible")
    notebook = exercise_notebook_trainer(text, 30)
    assert list(ref.train(text, 30)) == notebook
    student = Reference(pattern="qwen2", normalize="NFC", tie_break="visible").train(text, 30)
    c = bpe.compare(notebook, student, text=text, reference=ref)
    assert c.first is not None and c.cause == "counting_per_chunk", c.summary()


def test_a_binary_file_beside_good_ones_is_the_one_named(hf_files):
    """The review of 29 Nov: a good merges.txt plus binary.txt said "merges.txt needs the vocab.json"; binary.txt
    alone said it is not UTF-8 text. Now both say the latter."""
    folder, _ = hf_files
    junk = bytes(range(256)) * 4
    for files in ({"merges.txt": (folder / "merges.txt").read_bytes(), "binary.txt": junk}, {"binary.txt": junk}):
        with pytest.raises(bpe.CompareInputError) as info:
            bpe.compare_inputs.merge_list_from_files(files)
        assert str(info.value).startswith("binary.txt is not UTF-8 text"), str(info.value)
