"""``tiktoken.model``: which encoding a model uses (tiktoken 0.14.0's tables).

>>> encoding_name_for_model("gpt-3.5-turbo-0301")
'cl100k_base'
"""

from __future__ import annotations

from ..encodings import MODEL_PREFIX_TO_ENCODING, MODEL_TO_ENCODING, encoding_for_model, encoding_name_for_model

__all__ = ["MODEL_TO_ENCODING", "MODEL_PREFIX_TO_ENCODING", "encoding_for_model", "encoding_name_for_model"]
