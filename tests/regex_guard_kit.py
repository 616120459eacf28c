"""Issue 32's repros (tests/test_regex_guard*.py): the size scanner read a "[" in a comment as a class and
measured 3 and 5 units for patterns that compile to hundreds of megabytes; and tokenizer.json files that carry
them (or a catastrophically backtracking regex) in a Split, Replace or decoder (tests/test_regex_guard_files.py,
tests/test_regex_guard_app.py)."""

import json

from testkit import hf_json

COMMENT_BOMB = "(?#[)a{100000000}(?#])"
VERBOSE_BOMB = "(?x)a#[\n{100000000}#]"
LINK_BOMB = "(?#[)a{4000000}(?#])"  # the 30-byte link's pattern


def tokenizer_json(pre=None, norm=None, dec=None) -> bytes:
    """A tokenizer.json file's bytes with these parts (:func:`testkit.hf_json.tokenizer_json`)."""
    return json.dumps(hf_json.tokenizer_json(pre, norm, dec)).encode()


REPLACE_BOMB = tokenizer_json(norm={"type": "Replace", "pattern": {"Regex": "b{2000000}"}, "content": "x"})
DECODER_BOMB = tokenizer_json(dec={"type": "Replace", "pattern": {"Regex": LINK_BOMB}, "content": "x"})
SPLIT_BOMB = tokenizer_json(pre={"type": "Split", "pattern": {"Regex": VERBOSE_BOMB}, "behavior": "Removed"})
#: a Split(Isolated) alone is read as our own pre-tokenizer pattern (the legacy path): the same guard
ISOLATED_BOMB = tokenizer_json(pre={"type": "Split", "pattern": {"Regex": COMMENT_BOMB}, "behavior": "Isolated"})
REDOS_SPLIT = tokenizer_json(
    pre={"type": "Split", "pattern": {"Regex": "(a|aa)+$"}, "behavior": "Removed", "invert": False}
)
REDOS_REPLACE = tokenizer_json(norm={"type": "Replace", "pattern": {"Regex": "(a|aa)+$"}, "content": "x"})
REDOS_TEXT = "a" * 60 + "b"
