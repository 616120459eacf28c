"""A pytest plugin for tiktoken's own suite (scripts/tiktoken_suite.sh): bpe's source is not "local code" to
hypothesis.

Hypothesis draws strings from the constants of the modules it counts as the project's own (any module outside
site-packages). Run from a checkout, bpe is such a module, so tiktoken's ``test_hyp_roundtrip`` is sometimes
fed ``"<|endoftext|>"`` from bpe's special-token tables and ``encode`` rightly refuses it, as tiktoken itself
does. Real tiktoken, installed in site-packages, is never fed its own constants; neither is bpe here.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis.internal.conjecture import providers

_BPE = Path(__file__).resolve().parents[2] / "bpe"
_is_local = providers.is_local_module_file  # AttributeError if hypothesis moved it: look again


def _not_bpe(path: str) -> bool:
    return _is_local(path) and not Path(path).resolve().is_relative_to(_BPE)


providers.is_local_module_file = _not_bpe  # type: ignore[assignment]
