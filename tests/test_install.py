"""`pip install .` in a fresh virtual environment made with Debian's python3 (issue 22): it installs the `bpe`
package alone (its only dependency `regex`) and the `bpe` command, and what a notebook user gets from it
imports nothing of the app and starts no process.

Everything happens in the test's temporary folder: the files the package is built from are copied there (the
build writes beside them), the environment is made there, and the checks run from there, outside the
checkout, with no PYTHONPATH, so only what was installed can be imported. The environment is made without pip
(``venv --without-pip``: a second); this interpreter's pip installs into it (``pip --python``). About 5 s of
CPU; its wall time grows with the machine's load.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_pattern_runner import CATASTROPHIC, FRESH_INTERPRETER, SLACK

ROOT = Path(__file__).resolve().parents[1]
DEBIAN_PYTHON = Path("/usr/bin/python3")
#: What the package is built from (pyproject.toml names README.md and LICENSE).
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "bpe")

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not DEBIAN_PYTHON.exists(), reason="no Debian python3 here")]


def run(args, cwd: Path, **kw) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    return subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300, **kw)


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    """A fresh environment of Debian's python3 with `pip install <a copy of the checkout>` done; its folder."""
    where = tmp_path_factory.mktemp("install")
    src = where / "src"
    src.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(ROOT / name, src / name)
    made = run([DEBIAN_PYTHON, "-m", "venv", "--without-pip", where / "venv"], cwd=where)
    if made.returncode != 0:
        pytest.skip(f"Debian's python3 cannot make a virtual environment here: {made.stderr.strip()[-300:]}")
    installed = run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            where / "venv" / "bin" / "python",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            src,
        ],
        cwd=where,
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    return where


def test_it_installs_the_library_alone_with_regex(venv):
    listed = run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            venv / "venv" / "bin" / "python",
            "list",
            "--format=json",
            "--disable-pip-version-check",
        ],
        cwd=venv,
    )
    assert listed.returncode == 0, listed.stderr
    assert {p["name"].lower() for p in json.loads(listed.stdout)} - {"pip", "setuptools"} == {"bpe-lab", "regex"}
    where = run(
        [
            venv / "venv" / "bin" / "python",
            "-c",
            "import bpe, importlib.metadata as m, importlib.util as u; print(bpe.__file__); "
            "print(m.metadata('bpe-lab')['License-Expression']); "
            "print([n for n in ('guard', 'testkit', 'appstate', 'views', 'bench') if u.find_spec(n)]); "
            "import pathlib, bpe.tiktoken; print((pathlib.Path(bpe.__file__).parent / 'py.typed').is_file(), "
            "bpe.tiktoken.__name__)",
        ],
        cwd=venv,
    )
    assert where.returncode == 0, where.stderr
    path, licence, app_rooms, typed = where.stdout.splitlines()
    assert Path(path).is_relative_to(venv / "venv")  # the installed copy, not the checkout
    assert licence == "MIT" and app_rooms == "[]"
    assert typed == "True bpe.tiktoken"  # PEP 561's marker ships, and the tiktoken surface with the library


def test_the_bpe_command_helps_and_trains(venv):
    helped = run([venv / "venv" / "bin" / "bpe", "--help"], cwd=venv)
    assert helped.returncode == 0 and helped.stdout.startswith("usage: bpe "), helped.stderr
    (venv / "book.txt").write_text("low lower lowest " * 20, encoding="utf-8")
    trained = run(
        [venv / "venv" / "bin" / "bpe", "train", "book.txt", "--vocab-size", "260", "--out", "tok"], cwd=venv
    )  # tqdm is not installed: the training runs without a progress bar
    assert trained.returncode == 0, trained.stderr
    assert "trained 4 merges" in trained.stdout and (venv / "tok" / "tokenizer.json").is_file()


def test_importing_it_pulls_no_app_package_and_a_custom_regex_starts_no_process(venv):
    """The same checks as tests/test_pattern_runner.py's, on the installed package."""
    out = run([venv / "venv" / "bin" / "python", "-c", FRESH_INTERPRETER], cwd=venv)
    assert out.returncode == 0, out.stderr
    fresh = json.loads(out.stdout)
    assert fresh["imported"] == []
    assert fresh["texts"] == fresh["pieces"] == ["ab", " ", "12"] and fresh["merges"] == ["ab", "abc"]
    assert fresh["children"] == [] and fresh["threads"] == 1
    assert fresh["stopped"] is not None and "longer than 1 s" in fresh["stopped"], CATASTROPHIC
    assert fresh["cpu"] < 1.0 + SLACK
