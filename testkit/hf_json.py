"""A minimal Hugging Face ``tokenizer.json`` (a BPE of four tokens, no merges) around the parts a test or a
benchmark puts in it: a pre-tokenizer, a normalizer, a decoder. The hostile files of issue 32 carry their
regex in one of these (tests/regex_guard_kit.py, bench/regex_guard.py).

>>> tokenizer_json(pre={"type": "Whitespace"})["pre_tokenizer"]
{'type': 'Whitespace'}
"""

from __future__ import annotations

VOCAB = {"[UNK]": 0, "a": 1, "b": 2, "x": 3}


def tokenizer_json(pre: dict | None = None, norm: dict | None = None, dec: dict | None = None) -> dict:
    """The file's content as a dict (``json.dumps`` it): ``pre``, ``norm``, ``dec`` as given, the rest fixed."""
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": norm,
        "pre_tokenizer": pre,
        "post_processor": None,
        "decoder": dec,
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": "[UNK]",
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "vocab": dict(VOCAB),
            "merges": [],
        },
    }
