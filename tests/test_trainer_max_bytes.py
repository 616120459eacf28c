"""The course tie rule (``tie_break="max_bytes"``) against a naive trainer written here, as a course states it.

The course's rule: among the pairs with the highest count, take the lexicographically greatest pair of byte
strings, ``(a_bytes, b_bytes)`` compared as tuples. The trainer below recounts every pair of every
pre-token each merge, over words held as tuples of ``bytes`` (the course's representation; the loop is
``testkit.naive_bpe``'s): it shares no code with ``bpe`` (its own copy of GPT-2's pattern, its own split on the special token).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import regex

import bpe
from testkit.naive_bpe import gpt2_bytes_to_unicode, naive_train

# GPT-2's pre-tokenizer (tiktoken's r50k_base pattern), copied here rather than taken from bpe
GPT2 = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
EOT = "<|endoftext|>"
ROOT = Path(__file__).resolve().parents[1]


def naive_course_trainer(text: str, n_merges: int) -> list[tuple[bytes, bytes]]:
    """Merges as (left bytes, right bytes): recount everything, take max by (count, (a_bytes, b_bytes))."""
    words: Counter[tuple[bytes, ...]] = Counter()
    for doc in text.split(EOT):
        for piece in regex.findall(GPT2, doc):
            words[tuple(bytes([b]) for b in piece.encode("utf-8"))] += 1
    return naive_train(words, n_merges, lambda counts: max(counts, key=lambda p: (counts[p], p)))


def _random_text(seed: int, alphabet: str, n: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(n))


TEXTS = {
    # every pair once: the whole first merge is a tie among all of them
    "all ties": "abcdefgh ijklmnop",
    "hello": "hello hello hello world",
    "aaabdaaabac": "aaabdaaabac",
    "low lower": f"low low low low low lower lower newest newest newest newest newest newest widest widest widest"
    f"{EOT}low lower{EOT}",
    "accents": "café cafe éclair éclat ça ça ça çà ñandú ñu",
    "random ab": _random_text(1, "ab ", 300),
    "random abc.": _random_text(2, "abc .\n", 400),
    "digits": "1 12 123 1234 21 321 4321 " * 3,
}


@pytest.mark.parametrize("name", list(TEXTS))
def test_max_bytes_matches_the_naive_course_trainer(name):
    text = TEXTS[name]
    want = naive_course_trainer(text, 40)
    run = bpe.train(text, 256 + 1 + 40, pattern="gpt2", tie_break="max_bytes", special_tokens=[EOT])
    got = [(run.token(m.pair[0]), run.token(m.pair[1])) for m in run.merges]
    assert got == want
    # the texts have ties: the rule decides something on each
    assert any(m.ties for m in run.merges)


def test_max_bytes_is_not_another_rule():
    # "ab ba": every pair occurs once; the greatest bytes (b, a) beat lexical's smallest ids (space, b)...
    firsts = {rule: bpe.train("ab ba", 257, pattern=None, tie_break=rule).merges[0].token for rule in bpe.TIE_BREAKS}
    assert firsts["max_bytes"] == b"ba"
    assert firsts["lexical"] == b" b" and firsts["first"] == b"ab"


def test_longer_bytes_win_over_their_prefix():
    # (b"ab", b"c") against (b"a", b"bc")-like ties: a prefix sorts first, so the longer left token wins
    assert (b"ab", b"c") > (b"a", b"bc")
    text = "abx abx aby aby"
    want = naive_course_trainer(text, 6)
    run = bpe.train(text, 256 + 6, pattern="gpt2", tie_break="max_bytes")
    assert [(run.token(m.pair[0]), run.token(m.pair[1])) for m in run.merges] == want


@pytest.mark.parametrize("backend", ["chunks", "positions"])
def test_both_backends_and_no_pattern(backend):
    text = _random_text(3, "xyz ", 500)
    run = bpe.train(text, 256 + 30, pattern=None, tie_break="max_bytes", backend=backend)
    ref = bpe.train_reference(text, 30, pattern=None, tie_break="max_bytes")
    assert [(m.pair, m.count) for m in run.merges] == ref


def test_cli_trains_with_the_course_rule(tmp_path):
    text = TEXTS["low lower"]
    (tmp_path / "t.txt").write_text(text, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "bpe",
            "train",
            str(tmp_path / "t.txt"),
            "--vocab-size",
            "277",
            "--pattern",
            "gpt2",
            "--tie-break",
            "max_bytes",
            "--special-token",
            EOT,
            "--format",
            "merges",
            "--out",
            str(tmp_path / "out"),
            "--quiet",
        ],
        capture_output=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    back = {c: b for b, c in gpt2_bytes_to_unicode().items()}
    lines = (tmp_path / "out" / "merges.txt").read_text(encoding="utf-8").splitlines()
    pairs = [
        tuple(bytes(back[c] for c in side) for side in line.split(" "))
        for line in lines
        if line and not line.startswith("#")
    ]
    assert pairs == naive_course_trainer(text, 20)
