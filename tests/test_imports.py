"""What the import tools cannot see: the modules really import, and the library loads nothing but ``regex``.

The direction of imports, the rooms the library never reaches and the absence of cycles (imports inside
functions included) are import-linter's contracts in ``.importlinter``; an import inside a library function
is ruff's PLC0415 (``ruff.toml``). scripts/test.sh runs both before pytest. Those read the source; this file
runs it, in one fresh interpreter per check rather than one per module (that cost ~2 minutes of the suite):

- every module of the app's packages imports (a name that is not there, an error at import time);
- importing every module of ``bpe`` loads no third-party package but ``regex``. That is an allow-list:
  import-linter forbids the packages it is told of, and a new dependency of any name would pass it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The packages whose every module must import, and the top-level modules beside them.
PACKAGES = ("bpe", "views", "appstate", "liveroom", "components", "serving", "guard")
TOP_LEVEL = ("trainjobs",)
#: Scripts that live in a package but are run, not imported (``streamlit run components/merge_player/harness.py``).
SCRIPTS = {"components.merge_player.harness"}
#: The library's one dependency.
BPE_THIRD_PARTY = {"regex"}


def module_names(package: str) -> list[str]:
    """Every module of a package, dotted (``python -m bpe``'s ``__main__`` is left out: importing it runs
    the CLI)."""
    names = []
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__main__" or ".".join(parts) in SCRIPTS:
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join(parts))
    return names


def _in_a_fresh_interpreter(modules: list[str]) -> dict:
    """Import ``modules`` in order in a new interpreter; what it loaded, as top-level package names."""
    script = (
        "import importlib, json, sys\n"
        "before = set(sys.modules)\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in set(sys.modules) - before})))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return {"loaded": json.loads(result.stdout.strip().splitlines()[-1])}


def test_the_module_lists_are_complete():
    bpe_modules = module_names("bpe")
    for name in ("bpe", "bpe.tokenizer", "bpe.formats.hf", "bpe.cli", "bpe.pretrained_registry"):
        assert name in bpe_modules, name
    assert "bpe.__main__" not in bpe_modules
    assert len(bpe_modules) > 30
    assert len(module_names("views")) > 10 and "views.lessons.by_hand" in module_names("views")


def test_every_library_module_loads_only_the_standard_library_and_regex():
    """Not streamlit, plotly, pandas, numpy, nor the CLI's optional tqdm (imported only when a bar is
    drawn): nothing of any name outside the standard library but ``regex``."""
    loaded = set(_in_a_fresh_interpreter(module_names("bpe"))["loaded"])
    foreign = loaded - set(sys.stdlib_module_names) - BPE_THIRD_PARTY - {"bpe", "_distutils_hack"}
    assert not foreign, f"importing bpe loads {sorted(foreign)}"
    assert "regex" in loaded and "bpe" in loaded  # the check sees what is loaded


def test_every_module_of_the_app_imports():
    """One interpreter for all: a cycle that bites only in some order is ruled out statically by the
    contracts (every import counts, inside functions too), so the order here does not matter."""
    modules = [name for package in PACKAGES if (ROOT / package).is_dir() for name in module_names(package)]
    modules += [name for name in TOP_LEVEL if (ROOT / f"{name}.py").is_file()]
    assert len(modules) > 90
    loaded = _in_a_fresh_interpreter(modules)["loaded"]
    assert {"bpe", "views", "appstate", "streamlit"} <= set(loaded)
