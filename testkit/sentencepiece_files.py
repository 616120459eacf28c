"""SentencePiece-style ``tokenizer.json`` files built offline with Hugging Face ``tokenizers``' own API, for the
tests that upload one (the player's replay, the Tokenize page) and check ids against HF's.

:func:`llama_like` is laid out as Llama 2's and Mistral 7B's files are: ``<unk> <s> </s>``, the 256 byte tokens
``<0x00>``...``<0xFF>``, then the pieces and merges of HF's ``SentencePieceBPETokenizer`` trainer; ``byte_fallback``
and ``fuse_unk``; Llama 2's normalizers ``Prepend("▁")`` + ``Replace(" ", "▁")`` (``legacy``) or the newer
``Metaspace(prepend_scheme="first")`` pre-tokenizer.
"""

from __future__ import annotations

import json


def llama_like(corpus: str, vocab_size: int = 600, *, legacy: bool = True):
    """A ``tokenizers.Tokenizer`` (its ``to_str()`` is the tokenizer.json) trained on ``corpus``."""
    import tokenizers

    sp = tokenizers.SentencePieceBPETokenizer()
    sp.train_from_iterator([corpus], vocab_size=vocab_size, min_frequency=2, show_progress=False)
    return llama_layout(sp, legacy=legacy)


def llama_layout(sp, *, legacy: bool = True):
    """``sp`` (a trained HF tokenizer with a BPE model) laid out as Llama 2's file is (see the module's note)."""
    import tokenizers
    from tokenizers import decoders, models, normalizers, pre_tokenizers

    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2} | {f"<0x{b:02X}>": 3 + b for b in range(256)}
    data = json.loads(sp.to_str())
    for token in data["model"]["vocab"]:
        vocab.setdefault(token, len(vocab))
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in data["model"]["merges"]]
    hf = tokenizers.Tokenizer(models.BPE(vocab, merges, unk_token="<unk>", byte_fallback=True, fuse_unk=True))
    if legacy:
        hf.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
        hf.decoder = decoders.Sequence(
            [decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(" ", 1, 0)]
        )
    else:
        hf.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="first", split=False)
        hf.decoder = decoders.Sequence(
            [decoders.Metaspace(prepend_scheme="first"), decoders.ByteFallback(), decoders.Fuse()]
        )
    hf.add_special_tokens(["<unk>", "<s>", "</s>"])
    return hf
