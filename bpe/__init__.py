"""BPE Lab's library: byte pair encoding you can step through.

>>> import bpe
>>> run = bpe.train("aaabdaaabac", 258, pattern=None)
>>> [run.token(m.id) for m in run.merges]
[b'aa', b'ab']
>>> tok = run.tokenizer()
>>> tok.decode(tok.encode("aaabdaaabac"))
'aaabdaaabac'

The pieces: :mod:`bpe.visible` (bytes <-> GPT-2's visible characters), :mod:`bpe.patterns` (the
pre-tokenizer registry), :mod:`bpe.corpus` (training data -> weighted chunks), :mod:`bpe.trainer`
(incremental BPE training that records every merge), :mod:`bpe.reference` (the naive loop, our oracle),
:mod:`bpe.tokenizer` (encode / decode / trace).
"""
from .corpus import MAX_VOCAB_SIZE, TrainingDataError
from .formats import FORMATS, FormatError, UnsupportedFormatError, load
from .pretrained import PRETRAINED, PretrainedError, load_pretrained
from .patterns import (PATTERNS, Chunk, Pattern, PatternError, PatternTimeout, SplitResult, get_pattern,
                       pretokenize, split)
from .reference import train_reference
from .tokenizer import DisallowedSpecialError, Tokenizer, TraceStep, UnknownCharacterError
from .trainer import TIE_BREAKS, Merge, MergeStream, Run, train
from .visible import from_visible, normalize_text, to_visible

__all__ = [
    "train", "train_reference", "Run", "Merge", "MergeStream", "TIE_BREAKS", "Tokenizer", "TraceStep",
    "PATTERNS", "Pattern", "Chunk", "SplitResult", "get_pattern", "split", "pretokenize",
    "to_visible", "from_visible", "normalize_text",
    "PatternError", "PatternTimeout", "TrainingDataError", "DisallowedSpecialError", "UnknownCharacterError",
    "MAX_VOCAB_SIZE",
    "load_pretrained", "PRETRAINED", "PretrainedError", "load", "FORMATS", "FormatError", "UnsupportedFormatError",
]
