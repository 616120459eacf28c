"""The pre-tokenizer registry's data: each pattern's exact regex string(s), where it comes from, and one
sentence per top-level alternation branch; plus the other names people type, and the kinds of branch the
notes describe (:func:`branch_kind`). Pure data: :mod:`bpe.patterns` compiles it into
:data:`bpe.PATTERNS`.

To add a pattern, append a ``dict`` to :data:`REGISTRY` with the string exactly as its tokenizer ships it
(quote the ``source``) and one note per top-level ``|`` branch; ``tests/test_patterns.py`` checks notes
and branches line up.
"""

from __future__ import annotations

from typing import Any

__all__ = ["REGISTRY", "ALIASES", "BRANCH_KINDS", "branch_kind"]

_CONTRACTIONS = "an English contraction suffix ('s 't 're 've 'm 'll 'd)"
_CONTRACTIONS_I = "an English contraction suffix ('s 't 're 've 'm 'll 'd), in any letter case"
_WS_LOOKAHEAD = "a run of whitespace not followed by a non-space, i.e. all but the last space before a word"
_WS_ANY = "any remaining whitespace"

#: One entry per registry pattern, in display order: the keyword arguments of a :class:`bpe.Pattern`'s
#: builder (``name``, ``label``, ``stages``: the exact regex strings, ``source``, ``summary``, ``notes``:
#: one sentence per top-level branch).
REGISTRY: list[dict[str, Any]] = [
    dict(
        name="gpt2",
        label="GPT-2",
        stages=[r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""],
        source="tiktoken tiktoken_ext/openai_public.py r50k_pat_str (gpt2, r50k_base, p50k_base)",
        summary="Letters, digits and punctuation each in runs, an optional leading space glued on.",
        notes=[
            _CONTRACTIONS + ", lower case only",
            "a run of letters, with an optional leading space",
            "a run of digits of any length, with an optional leading space",
            "a run of punctuation or symbols, with an optional leading space",
            "whitespace at the very end of the text",
            _WS_LOOKAHEAD,
            "a single whitespace character",
        ],
    ),
    dict(
        name="gpt4",
        label="GPT-4 (cl100k)",
        stages=[
            r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
        ],
        source="tiktoken tiktoken_ext/openai_public.py cl100k_base pat_str (GPT-4, GPT-3.5)",
        summary="Case-insensitive contractions, digits in groups of up to 3, newlines kept apart from words.",
        notes=[
            _CONTRACTIONS_I,
            "a run of letters, with one optional leading non-letter non-digit (a space, a quote...)",
            "one to three digits",
            "a run of punctuation or symbols with an optional leading space and the line breaks after it",
            "whitespace at the very end of the text",
            "whitespace up to and including a line break",
            _WS_LOOKAHEAD,
            "a single whitespace character",
        ],
    ),
    dict(
        name="gpt4o",
        label="GPT-4o (o200k)",
        stages=[
            "|".join(
                [
                    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
                    r"""\p{N}{1,3}""",
                    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
                    r"""\s*[\r\n]+""",
                    r"""\s+(?!\S)""",
                    r"""\s+""",
                ]
            )
        ],
        source="tiktoken tiktoken_ext/openai_public.py o200k_base (GPT-4o; Llama 4 uses the same string)",
        summary="Words split at case changes (HelloWorld -> Hello World), contractions glued to the word.",
        notes=[
            "a word: capitals then at least one lower-case letter (or mark), an optional contraction",
            "a word in capitals, possibly followed by lower case, an optional contraction",
            "one to three digits",
            "a run of punctuation or symbols with an optional leading space, then line breaks or slashes",
            "whitespace ending in line breaks",
            _WS_LOOKAHEAD,
            _WS_ANY,
        ],
    ),
    dict(
        name="llama3",
        label="Llama 3",
        stages=[
            r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
        ],
        source="meta-llama/llama3 llama/tokenizer.py (same string in llama.cpp src/llama-vocab.cpp)",
        summary="GPT-4's pattern without possessive quantifiers; splits like minbpe's GPT-4 variant.",
        notes=[
            _CONTRACTIONS_I,
            "a run of letters with one optional leading non-letter non-digit",
            "one to three digits",
            "punctuation or symbols with an optional leading space and the line breaks after",
            "whitespace ending in line breaks",
            _WS_LOOKAHEAD,
            _WS_ANY,
        ],
    ),
    dict(
        name="qwen2",
        label="Qwen2 / Qwen3",
        stages=[
            r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
        ],
        source="huggingface/transformers models/qwen2/tokenization_qwen2.py PRETOKENIZE_REGEX (Qwen2, 2.5, 3)",
        summary="Like Llama 3 but every digit is its own chunk; the Qwen tokenizer applies NFC first.",
        notes=[
            _CONTRACTIONS_I,
            "a run of letters with one optional leading non-letter non-digit",
            "a single digit",
            "punctuation or symbols with an optional leading space and the line breaks after",
            "whitespace ending in line breaks",
            _WS_LOOKAHEAD,
            _WS_ANY,
        ],
    ),
    dict(
        name="qwen35",
        label="Qwen3.5",
        stages=[
            r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
        ],
        source="llama.cpp src/llama-vocab.cpp (QWEN35), quoting Qwen3.5's tokenizer.json",
        summary="Qwen2's pattern with combining marks kept inside words (Devanagari, Arabic vowel signs).",
        notes=[
            _CONTRACTIONS_I,
            "a run of letters and combining marks with one optional leading non-letter",
            "a single digit",
            "punctuation or symbols (not marks) with an optional leading space and line breaks after",
            "whitespace ending in line breaks",
            _WS_LOOKAHEAD,
            _WS_ANY,
        ],
    ),
    dict(
        name="deepseek_v3",
        label="DeepSeek-V3",
        stages=[
            r"""\p{N}{1,3}""",
            r"""[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+""",
            r"""[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
        ],
        source="llama.cpp src/llama-vocab.cpp DEEPSEEK3_LLM: three Split(Isolated) pre-tokenizers in sequence",
        summary="Three splits in a row: digit groups first, then runs of CJK ideographs and kana, then words.",
        notes=[
            "stage 1: one to three digits",
            "stage 2: a run of CJK ideographs, hiragana or katakana",
            "stage 3: one ASCII punctuation mark followed by ASCII letters (.com, _name)",
            "stage 3: letters and marks with one optional leading non-letter non-punctuation",
            "stage 3: punctuation or symbols with an optional leading space and line breaks after",
            "stage 3: whitespace ending in line breaks",
            "stage 3: " + _WS_LOOKAHEAD,
            "stage 3: " + _WS_ANY,
        ],
    ),
    dict(
        name="tekken",
        label="Mistral tekken",
        stages=[
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
        ],
        source="huggingface/transformers tokenization_utils_tokenizers.py fix_mistral_regex (Nemo, Small 3.x)",
        summary="GPT-4o's case-aware words without contractions, and single digits.",
        notes=[
            "a word: capitals then at least one lower-case letter (or mark)",
            "a word in capitals, possibly followed by lower case",
            "a single digit",
            "punctuation or symbols with an optional leading space, then line breaks or slashes",
            "whitespace ending in line breaks",
            _WS_LOOKAHEAD,
            _WS_ANY,
        ],
    ),
    dict(
        name="kimi_k2",
        label="Kimi K2",
        stages=[
            r"""[\p{Han}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]*[\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]+[\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
        ],
        source="Kimi K2 tokenization_kimi.py (quoted in llama.cpp); needs regex.V1 for && set intersection",
        summary="GPT-4o-style case-aware words, with runs of Chinese characters kept together.",
        notes=[
            "a run of Han (Chinese) characters",
            "a non-Han word: capitals then lower case, an optional contraction",
            "a non-Han word in capitals, possibly followed by lower case, an optional contraction",
            "one to three digits",
            "punctuation or symbols with an optional leading space and line breaks after",
            "whitespace ending in line breaks",
            _WS_LOOKAHEAD,
            _WS_ANY,
        ],
    ),
    dict(
        name="metaspace",
        label="SentencePiece (▁words)",
        stages=[r"""▁[^▁]*|[^▁]+"""],
        source="huggingface/tokenizers Metaspace(split=true): cut before every ▁ (merged with the next); "
        "the text's spaces are ▁ already (normalization '+metaspace')",
        summary="SentencePiece-style: each chunk is a ▁ (a space) and the word after it.",
        notes=["a ▁ (a space) and everything up to the next ▁", "text before the first ▁"],
    ),
    dict(
        name="gpt4_minbpe",
        label="GPT-4 (minbpe variant)",
        stages=[
            r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+"""
        ],
        source="karpathy/minbpe minbpe/regex.py GPT4_SPLIT_PATTERN (rustbpe's default too)",
        summary="GPT-4's pattern without the end-of-text branch: differs only on trailing whitespace with a newline.",
        notes=[
            _CONTRACTIONS_I,
            "a run of letters with one optional leading non-letter non-digit",
            "one to three digits",
            "punctuation or symbols with an optional leading space and line breaks after",
            "whitespace up to and including a line break",
            _WS_LOOKAHEAD,
            _WS_ANY,
        ],
    ),
    dict(
        name="nanochat",
        label="nanochat",
        stages=[
            r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,2}| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+"""
        ],
        source="karpathy/nanochat nanochat/tokenizer.py SPLIT_PATTERN",
        summary="minbpe's GPT-4 pattern with digits in runs of one or two.",
        notes=[
            _CONTRACTIONS_I,
            "a run of letters with one optional leading non-letter non-digit",
            "one or two digits",
            "punctuation or symbols with an optional leading space and line breaks after",
            "whitespace up to and including a line break",
            _WS_LOOKAHEAD,
            _WS_ANY,
        ],
    ),
]

#: Other names people type.
ALIASES = {
    "cl100k": "gpt4",
    "cl100k_base": "gpt4",
    "o200k": "gpt4o",
    "o200k_base": "gpt4o",
    "r50k": "gpt2",
    "r50k_base": "gpt2",
    "qwen": "qwen2",
    "qwen3": "qwen2",
    "deepseek": "deepseek_v3",
    "mistral": "tekken",
    "minbpe": "gpt4_minbpe",
    "llama4": "gpt4o",
}


#: What a branch does (:meth:`Pattern.branch_kind`), in a fixed order: the lab gives the same kind the same
#: color in every pattern, so "digits are orange" holds for GPT-2, GPT-4 and Qwen alike.
BRANCH_KINDS = (
    "contraction",
    "letters",
    "digits",
    "punctuation",
    "space at end",
    "line breaks",
    "spaces before a word",
    "other whitespace",
    "CJK run",
)


def branch_kind(note: str) -> str | None:
    """The kind of a branch (one of :data:`BRANCH_KINDS`) from its one-sentence note, ``None`` when the
    note does not say.

    >>> branch_kind("one to three digits"), branch_kind("stage 2: a run of CJK ideographs, hiragana or katakana")
    ('digits', 'CJK run')
    """
    n = note.lower()
    if n.startswith("stage ") and ":" in n:
        n = n.split(":", 1)[1].strip()
    if "whitespace" in n:
        if "end of the text" in n:
            return "space at end"
        if "line break" in n:
            return "line breaks"
        if "not followed" in n:
            return "spaces before a word"
        return "other whitespace"
    if "contraction suffix" in n:
        return "contraction"
    if "non-han" not in n and ("cjk" in n or "han (" in n):
        return "CJK run"
    if "letter" in n or "word" in n:
        return "letters"
    if "digit" in n:
        return "digits"
    if "punctuation" in n:
        return "punctuation"
    return None
