"""Our trainer against independent implementations on a real corpus (1 MB of Jane Austen, GPT-4 pattern).

* ``tie_break="hf"`` must learn exactly Hugging Face ``tokenizers``' BpeTrainer merges, in order;
* ``tie_break="lexical"`` exactly rustbpe's (merges read back from its mergeable ranks).

The expected merges come from those tools, never from our own output.
"""
from __future__ import annotations

import json

import pytest

import bpe
from bench import corpora
from bpe.formats import to_onig

pytestmark = pytest.mark.slow

VOCAB = 4096


@pytest.fixture(scope="module")
def text() -> str:
    t = corpora.english(1_000_000)
    assert len(t.encode()) >= 1_000_000
    return t


def test_hf_tie_rule_equals_hf_bpetrainer(text):
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

    tk = Tokenizer(models.BPE())
    # HF compiles Split patterns with Oniguruma: to_onig keeps cl100k's meaning there (see bpe.formats).
    tk.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(to_onig(bpe.PATTERNS["gpt4"].regex)), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    trainer = trainers.BpeTrainer(vocab_size=VOCAB, min_frequency=0, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tk.train_from_iterator([text], trainer=trainer)
    theirs = [tuple(m) if isinstance(m, list) else tuple(m.split(" "))
              for m in json.loads(tk.to_str())["model"]["merges"]]

    run = bpe.train(text, VOCAB, pattern="gpt4", tie_break="hf")
    ours = [(bpe.to_visible(run.token(a)), bpe.to_visible(run.token(b))) for a, b in (m.pair for m in run.merges)]
    assert len(theirs) == VOCAB - 256
    assert ours == theirs


def test_lexical_tie_rule_equals_rustbpe(text):
    rustbpe = pytest.importorskip("rustbpe")
    tk = rustbpe.Tokenizer()
    tk.train_from_iterator(iter([text]), VOCAB, pattern=bpe.PATTERNS["gpt4"].regex)
    ranked = sorted(tk.get_mergeable_ranks(), key=lambda item: item[1])
    theirs = [bytes(token) for token, rank in ranked if rank >= 256]

    run = bpe.train(text, VOCAB, pattern="gpt4", tie_break="lexical")
    assert len(theirs) == VOCAB - 256
    assert [m.token for m in run.merges] == theirs
    # and each merge's pair spells its token
    assert all(run.token(a) + run.token(b) == m.token for m in run.merges for a, b in [m.pair])


def test_without_a_pattern_the_position_backend_agrees_with_the_chunk_backend(text):
    sample = text[:40_000]
    a = bpe.train(sample, 600, pattern=None, backend="positions", top_k=5)
    b = bpe.train(sample, 600, pattern=None, backend="chunks", top_k=5)
    assert [(m.pair, m.count, m.tokens_after) for m in a.merges] == [(m.pair, m.count, m.tokens_after)
                                                                    for m in b.merges]
