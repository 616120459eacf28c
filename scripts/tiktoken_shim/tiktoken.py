"""``import tiktoken`` -> ``bpe.tiktoken``: put this folder first on PYTHONPATH (scripts/tiktoken_suite.sh does)
to run a tiktoken program, or tiktoken's own tests, on ``bpe``. Subprocesses inherit it."""

import sys

import bpe.tiktoken as _surface

sys.modules[__name__] = _surface
for _name in ("core", "load", "model", "registry"):
    sys.modules[f"{__name__}.{_name}"] = getattr(_surface, _name)
