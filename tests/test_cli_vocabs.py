"""The CLI with the open models' vocabularies: list, info, encode by name or alias, export, missing packages."""

from __future__ import annotations

import importlib.util

import pytest

import bpe
from bpe import pretrained
from bpe.cli import NOT_FOUND, main


def _run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_list_names_every_vocabulary_with_its_package_and_state(capsys):
    code, out, _ = _run(capsys, "list")
    assert code == 0
    for spec in pretrained.PRETRAINED.values():
        line = next(ln for ln in out.splitlines() if ln.startswith(spec.name + " "))
        assert f"{spec.package} {spec.version}" in line and line.endswith("installed")


def test_list_shows_the_install_command_of_a_missing_package(capsys, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        pretrained.importlib.util, "find_spec", lambda name: None if name == "mistral_common" else real(name)
    )
    code, out, _ = _run(capsys, "list")
    assert code == 0
    line = next(ln for ln in out.splitlines() if ln.startswith("tekken "))
    assert "not installed: pip install mistral-common==1.13.1" in line
    assert "pip install -r requirements-vocabs.txt" in out


def test_a_missing_package_is_one_line_naming_the_command(capsys, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(pretrained, "_cache", {})
    monkeypatch.setattr(
        pretrained.importlib.util, "find_spec", lambda name: None if name == "llama_models" else real(name)
    )
    code, out, err = _run(capsys, "encode", "-t", "llama3", "hello")
    assert code == NOT_FOUND and out == ""
    assert err.count("\n") == 1 and "pip install llama-models==0.3.0" in err


@pytest.mark.parametrize(
    "name, alias", [("qwen3", "Qwen2.5"), ("deepseek_v3", "deepseek"), ("tekken", "mistral"), ("llama3", "llama3.1")]
)
def test_encode_by_name_or_alias_gives_the_library_ids(capsys, name, alias):
    text = "Hello, 世界! 12345"
    code, out, _ = _run(capsys, "encode", "-t", alias, text)
    assert code == 0
    assert [int(x) for x in out.split()] == bpe.load_pretrained(name).encode(text)


def test_info_summarizes_thousands_of_special_tokens_and_names_the_source(capsys):
    code, out, _ = _run(capsys, "info", "llama4", "--merges", "2")
    assert code == 0
    assert "2,048 special tokens" in out and "(2,036 more)" in out
    assert "llama-models 0.3.0" in out and "Llama 4 Community License" in out and "models:" in out
    special_line = next(ln for ln in out.splitlines() if ln.startswith("special tokens:"))
    assert len(special_line) < 800


def test_export_a_pretrained_vocabulary_for_transformers(capsys, tmp_path):
    code, out, _ = _run(capsys, "export", "cl100k_base", "--format", "transformers", "--out", str(tmp_path / "t"))
    assert code == 0 and out.count("wrote") == 3
    assert bpe.load(tmp_path / "t").encode("hello world") == [15339, 1917]
    code, _, err = _run(capsys, "export", "cl100k_base", "--format", "minbpe", "--out", str(tmp_path / "m"))
    assert code != 0 and "numbers the 256 bytes" in err
