"""tiktoken's registry functions over :mod:`bpe.pretrained`: :func:`get_encoding`, :func:`list_encoding_names`,
:func:`encoding_for_model`, :func:`encoding_name_for_model`.

The model tables are tiktoken 0.14.0's (``tiktoken/model.py``, MIT): a model name, or a prefix of it, names
the encoding. ``bpe``'s registry holds more than OpenAI's encodings: :func:`get_encoding` accepts every
:data:`bpe.PRETRAINED` name (``"llama3"``, ``"qwen3"``...), :func:`list_encoding_names` lists those installed.

>>> get_encoding("cl100k_base").encode("hello world")
[15339, 1917]
>>> encoding_name_for_model("gpt-4o-2024-05-13"), encoding_name_for_model("text-davinci-003")
('o200k_base', 'p50k_base')
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

from .pretrained import PRETRAINED, PretrainedError, load_pretrained, pretrained_status
from .tokenizer import Tokenizer

__all__ = [
    "get_encoding",
    "list_encoding_names",
    "encoding_for_model",
    "encoding_name_for_model",
    "OPENAI_ENCODINGS",
    "MODEL_TO_ENCODING",
    "MODEL_PREFIX_TO_ENCODING",
]

#: tiktoken's own encodings, in its order (``tiktoken.list_encoding_names()``).
OPENAI_ENCODINGS = ("gpt2", "r50k_base", "p50k_base", "p50k_edit", "cl100k_base", "o200k_base", "o200k_harmony")

#: A model name's prefix -> its encoding (tiktoken 0.14.0).
MODEL_PREFIX_TO_ENCODING: Mapping[str, str] = MappingProxyType(
    {
        "o1-": "o200k_base",
        "o3-": "o200k_base",
        "o4-mini-": "o200k_base",
        "gpt-5": "o200k_base",
        "gpt-4.5-": "o200k_base",
        "gpt-4.1-": "o200k_base",
        "chatgpt-4o-": "o200k_base",
        "gpt-4o-": "o200k_base",
        "gpt-4-": "cl100k_base",
        "gpt-3.5-turbo-": "cl100k_base",
        "gpt-35-turbo-": "cl100k_base",
        "gpt-oss-": "o200k_harmony",
        "ft:gpt-4o": "o200k_base",
        "ft:gpt-4": "cl100k_base",
        "ft:gpt-3.5-turbo": "cl100k_base",
        "ft:davinci-002": "cl100k_base",
        "ft:babbage-002": "cl100k_base",
    }
)

_R50K_MODELS = [
    "text-davinci-001",
    "text-curie-001",
    "text-babbage-001",
    "text-ada-001",
    "davinci",
    "curie",
    "babbage",
    "ada",
    "text-similarity-davinci-001",
    "text-similarity-curie-001",
    "text-similarity-babbage-001",
    "text-similarity-ada-001",
    "text-search-davinci-doc-001",
    "text-search-curie-doc-001",
    "text-search-babbage-doc-001",
    "text-search-ada-doc-001",
    "code-search-babbage-code-001",
    "code-search-ada-code-001",
]
_P50K_MODELS = [
    "text-davinci-003",
    "text-davinci-002",
    "code-davinci-002",
    "code-davinci-001",
    "code-cushman-002",
    "code-cushman-001",
    "davinci-codex",
    "cushman-codex",
]
_CL100K_MODELS = [
    "gpt-4",
    "gpt-3.5-turbo",
    "gpt-3.5",
    "gpt-35-turbo",
    "davinci-002",
    "babbage-002",
    "text-embedding-ada-002",
    "text-embedding-3-small",
    "text-embedding-3-large",
]

#: A model name -> its encoding (tiktoken 0.14.0).
MODEL_TO_ENCODING: Mapping[str, str] = MappingProxyType(
    {m: "o200k_base" for m in ["o1", "o3", "o4-mini", "gpt-5", "gpt-4.1", "gpt-4o"]}
    | {m: "cl100k_base" for m in _CL100K_MODELS}
    | {m: "r50k_base" for m in _R50K_MODELS}
    | {m: "p50k_base" for m in _P50K_MODELS}
    | {"text-davinci-edit-001": "p50k_edit", "code-davinci-edit-001": "p50k_edit", "gpt2": "gpt2", "gpt-2": "gpt2"}
)


def get_encoding(encoding_name: str) -> Tokenizer:
    """The tokenizer of a registry vocabulary by its exact name (tiktoken's ``get_encoding``): offline,
    hash-checked, one object per name. ``ValueError`` for a name the registry does not hold (a
    :class:`~bpe.PretrainedError`, also when its package is not installed).

    >>> get_encoding("gpt2").encode("hello <|endoftext|>", allowed_special="all")
    [31373, 220, 50256]
    """
    if not isinstance(encoding_name, str):
        raise ValueError(f"Expected a string in get_encoding, got {type(encoding_name)}")
    if encoding_name not in PRETRAINED:
        raise PretrainedError(f"Unknown encoding {encoding_name}: choose one of {', '.join(PRETRAINED)}")
    return load_pretrained(encoding_name)


def list_encoding_names() -> list[str]:
    """The names :func:`get_encoding` can load here: the registry's vocabularies whose package is
    installed, in registry order."""
    return [spec.name for spec, installed in pretrained_status() if installed]


def encoding_name_for_model(model_name: str) -> str:
    """The encoding a model uses (``"gpt-4o"`` -> ``"o200k_base"``); ``KeyError`` for an unknown model.

    >>> encoding_name_for_model("gpt-oss-120b")
    'o200k_harmony'
    """
    if model_name in MODEL_TO_ENCODING:
        return MODEL_TO_ENCODING[model_name]
    for prefix, name in MODEL_PREFIX_TO_ENCODING.items():
        if model_name.startswith(prefix):
            return name
    raise KeyError(
        f"Could not automatically map {model_name} to a tokeniser. Please use `get_encoding` to "
        "explicitly get the tokeniser you expect."
    ) from None


def encoding_for_model(model_name: str) -> Tokenizer:
    """The tokenizer a model uses (tiktoken's ``encoding_for_model``); ``KeyError`` for an unknown model."""
    return get_encoding(encoding_name_for_model(model_name))
