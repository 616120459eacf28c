"""The catalogue of reasons two merge lists part: each :data:`CAUSES` name with a title, a paragraph and a
tiny example (pure data; :mod:`bpe.compare` names one, the app and the CLI print it).

>>> CAUSES[0], CAUSES[-1], CATALOGUE["tie_rule"].title
('identical', 'unknown', 'Another tie rule')
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CAUSES", "CATALOGUE", "Cause", "RULE_NAMES"]

#: Every cause :func:`bpe.compare` may name, in the order it prefers them when two explain B equally far.
CAUSES = (
    "identical",
    "tie_rule",
    "counting_per_chunk",
    "pretokenization",
    "special_tokens",
    "normalization",
    "stale_counts",
    "different_text",
    "unknown",
)

#: Tie rules in words (bpe's four and the exercise notebook's ``min`` over visible strings).
RULE_NAMES = {
    "lexical": "lexical (smaller token ids, rustbpe)",
    "first": "first seen (minbpe, Python's max over a dict)",
    "hf": "Hugging Face (bytes in visible-character order)",
    "max_bytes": "greatest bytes (the course rule)",
    "visible": "smallest visible strings (the exercise notebook's min)",
}


@dataclass(frozen=True)
class Cause:
    """One entry of the catalogue."""

    name: str
    title: str
    explanation: str
    example: str


CATALOGUE: dict[str, Cause] = {
    c.name: c
    for c in (
        Cause(
            "identical",
            "Identical",
            "Every merge agrees, in the same order: the two trainers learned the same tokenizer from this text.",
            "aaabdaaabac: (a, a) then (a, b) on both sides.",
        ),
        Cause(
            "tie_rule",
            "Another tie rule",
            "Both trainers count pairs the same way, but when two pairs have the same count they pick different "
            "ones. Python's max() over a dict keeps the first pair it met (minbpe); rustbpe takes the smaller ids; "
            "Hugging Face orders bytes by their visible characters; the course takes the lexicographically "
            "greatest pair of byte strings. State the rule your reference uses and break ties exactly that way.",
            "aaabdaaabac after Z = aa: (Z, a) and (a, b) both occur twice. First seen and greatest bytes take "
            '(Z, a) (b"aa" > b"a"); lexical and Hugging Face take (a, b).',
        ),
        Cause(
            "counting_per_chunk",
            "A pair counted once per chunk",
            "A pair must be counted every time it occurs. Collecting a chunk's pairs in a set (as the exercise "
            "notebook's get_pairs does) counts a pair once per pre-token however often it repeats inside it, so "
            "pairs repeated inside words (aa in aaaa, ss in Mississippi) lose to pairs spread over many words.",
            '"aaaa ab ab" with GPT-2\'s pattern: (a, a) occurs 3 times, all in one chunk; per chunk it counts 1, '
            "so a pair of two chunks, ( , a) or (a, b), wins instead.",
        ),
        Cause(
            "pretokenization",
            "Merging across pre-tokenizer chunks",
            "The reference cuts the text with a regex (GPT-2's or GPT-4's pattern) before counting, so no merge "
            "joins a word with the space or punctuation around it. Counting over the whole text (or with another "
            'pattern) finds pairs such as "g." or "o w" that the reference never sees.',
            '"dog. dog!" with GPT-4\'s pattern: chunks dog . ␣dog !, so (g, .) never occurs; without: it does.',
        ),
        Cause(
            "special_tokens",
            "Merging across or into special tokens",
            "Special tokens such as <|endoftext|> are cut out of the text before training: they are never split, "
            "never merged and no merge crosses them. Training on the raw string merges its characters "
            "(<|, endoftext, |>) like ordinary text and joins them with the text around it.",
            '"hi<|endoftext|>hi": the reference trains on "hi" twice; merging into the special token '
            "learns (<, |) and (|, >).",
        ),
        Cause(
            "normalization",
            "Skipping (or adding) NFC",
            "The reference normalizes the text (NFC: é as one code point, two bytes) before counting; without it a "
            "decomposed é is e plus a combining accent (three bytes), so the pairs around accented letters differ.",
            '"cafe\\u0301" (decomposed): NFC makes it café, with the pair (f, é); without NFC it stays e + ◌́.',
        ),
        Cause(
            "stale_counts",
            "Counts not updated after a merge",
            "After a merge, the pairs it destroyed must lose the occurrences it used up. An incremental trainer "
            "that only adds the new pairs keeps those old counts, so a pair that is no longer there can still win.",
            '"abc abc abd": after (a, b), (b, c) occurs 0 times, but a stale count still says 2.',
        ),
        Cause(
            "different_text",
            "Trained on another text",
            "B's merges join bytes that never occur next to each other in this text, so B was not trained on it "
            "(or it was read with another encoding or cut off).",
            'B merges (q, u) but this text has no "qu".',
        ),
        Cause(
            "unknown",
            "Not one of the usual mistakes",
            "No single change among tie rules, counting per chunk, pre-tokenization, special tokens, NFC or "
            "stale counts reproduces B further than A does. Check how new ids are numbered (an off-by-one id makes "
            'later merges join the wrong tokens), the merge step itself (overlapping pairs, "aaa") and '
            "min_frequency or the vocabulary size.",
            'Merging "aaa" must give [aa, a]: left to right, without overlap.',
        ),
    )
}
