"""A folder ``transformers.AutoTokenizer.from_pretrained`` loads offline: ``tokenizer.json`` (the Hugging Face
file of :mod:`bpe.formats.hf`) plus ``tokenizer_config.json`` with ``"tokenizer_class":
"PreTrainedTokenizerFast"`` and ``special_tokens_map.json``.

The generic class matters: a model-specific class (``GPT2Tokenizer``, ``Qwen2Tokenizer``) would load too but
silently replace our pre-tokenizer with its own. Reading the folder back needs only ``tokenizer.json``
(:func:`bpe.load` does that).

>>> import bpe, json
>>> files = dumps(bpe.train("ab ab", 257, special_tokens=["<|endoftext|>"]).tokenizer())
>>> sorted(files), json.loads(files["tokenizer_config.json"])["tokenizer_class"]
(['special_tokens_map.json', 'tokenizer.json', 'tokenizer_config.json'], 'PreTrainedTokenizerFast')
"""

from __future__ import annotations

from typing import Any

from ..tokenizer import Tokenizer
from .common import HF_FILE, json_bytes
from .hf import to_hf_json

__all__ = ["dumps", "CONFIG_FILE", "SPECIAL_TOKENS_MAP"]

CONFIG_FILE = "tokenizer_config.json"
SPECIAL_TOKENS_MAP = "special_tokens_map.json"

_ROLES = {
    "bos_token": ("<|begin_of_text|>", "<｜begin▁of▁sentence｜>", "<s>"),
    "eos_token": ("<|endoftext|>", "<|end_of_text|>", "<｜end▁of▁sentence｜>", "</s>"),
    "unk_token": ("<unk>",),
    "pad_token": ("<pad>", "<|finetune_right_pad_id|>", "<｜▁pad▁｜>"),
}


def dumps(tok: Tokenizer, *, model_max_length: int | None = None) -> dict[str, bytes]:
    """``tok`` as a folder ``transformers.AutoTokenizer.from_pretrained`` loads: ``{file name: bytes}``.

    Special tokens are registered as such (``added_tokens_decoder``, ``additional_special_tokens``); those
    with a known role become ``bos_token``/``eos_token``/``unk_token``/``pad_token``. No BOS/EOS is added on
    encoding (no post-processor), so ``encode(text, add_special_tokens=False)`` and plain ``encode(text)``
    both give our ids.
    """
    data = to_hf_json(tok)
    specials = sorted(tok.special_tokens.items(), key=lambda kv: kv[1])
    roles: dict[str, str] = {}
    for role, spellings in _ROLES.items():
        found = next((s for s in spellings if s in tok.special_tokens), None)
        if found is not None:
            roles[role] = found
    if tok.unk_token:
        roles["unk_token"] = tok.unk_token
    config: dict[str, Any] = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "clean_up_tokenization_spaces": False,
        "model_max_length": model_max_length or 1_000_000_000_000_000_019_884_624_838_656,
        "added_tokens_decoder": {
            str(i): {
                "content": s,
                "lstrip": False,
                "normalized": False,
                "rstrip": False,
                "single_word": False,
                "special": True,
            }
            for s, i in specials
        },
        "additional_special_tokens": [s for s, _ in specials if s not in roles.values()],
        "bpe_lab": {"name": tok.name, "pattern": None if tok.pattern is None else tok.pattern.name},
    }
    config.update(roles)
    special_map: dict[str, Any] = dict(roles)
    special_map["additional_special_tokens"] = config["additional_special_tokens"]
    return {HF_FILE: json_bytes(data), CONFIG_FILE: json_bytes(config), SPECIAL_TOKENS_MAP: json_bytes(special_map)}
