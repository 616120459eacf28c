"""tiktoken's import surface over ``bpe``: ``import bpe.tiktoken as tiktoken`` runs a tiktoken program
unchanged, offline, in pure Python.

It presents tiktoken 0.14.0's public API -- ``Encoding``, ``get_encoding``, ``list_encoding_names``,
``encoding_for_model``, ``encoding_name_for_model`` and the modules ``core``, ``registry``, ``model`` and
``load`` -- with ``bpe``'s tokenizers behind it: an encoding is a :class:`bpe.Tokenizer` (which has all of
``Encoding``'s methods, :mod:`bpe.encoding_api`), the vocabularies come from ``bpe``'s registry (offline,
hash-checked), the ids are tiktoken's. tiktoken itself is never imported.

>>> import bpe.tiktoken as tiktoken
>>> enc = tiktoken.get_encoding("gpt2")
>>> enc.encode("hello world"), enc.decode([31373, 995])
([31373, 995], 'hello world')
>>> tiktoken.encoding_for_model("gpt-4o").name
'o200k_base'
>>> isinstance(enc, tiktoken.Encoding)
True

Not offered: ``Encoding.encode_to_numpy`` (``bpe`` does not use numpy) and ``Encoding.encode_with_unstable``
(tiktoken calls it unstable).
"""

from __future__ import annotations

from . import core, load, model, registry
from .core import Encoding
from .model import encoding_for_model, encoding_name_for_model
from .registry import get_encoding, list_encoding_names

__all__ = [
    "Encoding",
    "get_encoding",
    "list_encoding_names",
    "encoding_for_model",
    "encoding_name_for_model",
    "core",
    "load",
    "model",
    "registry",
]

#: the tiktoken version whose surface this presents
__version__ = "0.14.0"
