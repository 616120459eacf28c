"""The merge player's settings in words: the tie rules, the sidebar's help texts, how a character coverage is
named, and where the SentencePiece-style trainer differs from Google's sentencepiece -- plain text, shared by
the player (:mod:`views.player`), its payload and the Compare page.

>>> TIE_RULES["first"][0]
'first seen'
"""

from __future__ import annotations

__all__ = ["TIE_RULES", "SETTINGS_HELP", "SENTENCEPIECE_DIFFERENCES", "coverage_label"]

#: tie-break rule -> (short name, what it means)
TIE_RULES = {
    "lexical": ("lexical", "smaller token ids win, as in rustbpe"),
    "first": ("first seen", "the pair seen first in the text wins, as in minbpe"),
    "hf": ("Hugging Face", "bytes in the order of their visible characters win, as in HF tokenizers"),
    "max_bytes": ("greatest bytes", "the lexicographically greatest pair of byte strings wins, a course's rule"),
}


#: The sidebar's help texts (what each training setting does)
SETTINGS_HELP = {
    "merges": "Vocabulary size = base tokens (256 bytes, or the text's distinct characters) + merges + special "
    "tokens. Training stops early when no pair is left to merge.",
    "pattern": "The regex that cuts the text into chunks first. No merge crosses a chunk boundary, so it decides "
    "what a token can be.",
    "custom": "Python `regex` syntax (\\p{L} for letters …). Text no branch matches is kept as chunks of its own.",
    "level": "Byte level (GPT-2 onward) starts from the 256 byte values; character level from the characters "
    "that occur in the text. SentencePiece-style (Llama 2, Mistral 7B, Gemma) is character level with every space "
    "turned into ▁ and glued to the front of the next word (the pre-tokenizer above is not used); characters "
    "outside its alphabet fall back to byte tokens <0xNN>. Its merges are those of Hugging Face's "
    "SentencePieceBPETokenizer trainer (tie rule: Hugging Face); Google's sentencepiece also cuts at "
    "punctuation and script changes, so its merges drift apart after a few dozen (docs/sentencepiece.md).",
    "coverage": "The share of the text's characters the alphabet keeps, most frequent first (SentencePiece's "
    "character_coverage; 0.9995 is its default). The rarest characters are left out of training and "
    "fall back to their UTF-8 bytes, one <0xNN> token each (🦜 is <0xF0> <0x9F> <0xA6> <0x9C>). "
    "1 keeps every character: no byte fallback on the training text.",
    "tie": "When pairs have the same count: " + "; ".join(f"{v[0]}: {v[1]}" for v in TIE_RULES.values()) + ".",
    "nfc": "Unicode NFC: é typed as e + ◌́ becomes one character é before training.",
    "special": "Separated by spaces or commas. They are cut out of the text before training, get ids of their "
    "own and are never merged.",
}


#: Where our SentencePiece-style trainer (pinned to Hugging Face's SentencePieceBPETokenizer) differs from Google's
#: sentencepiece (model_type=bpe), measured in docs/sentencepiece.md: (what, why), plain text.
SENTENCEPIECE_DIFFERENCES = (
    (
        "The same start",
        "On 200 KB of English the first 63 merges are identical (▁t, he, ▁a, in, ▁s …): both count pairs inside the "
        "same ▁-words.",
    ),
    (
        "It cuts more finely",
        "sentencepiece also splits at script changes and between letters and digits or punctuation, so it never "
        "learns s. or s, or 's (ours does); the counts differ and the orders drift apart after a few dozen merges.",
    ),
    (
        "Its vocabulary size counts more",
        "Its vocab_size includes <unk> <s> </s> and the 256 byte tokens; here the 256 <0xNN> tokens come on top, so "
        "the same size holds more merges.",
    ),
    (
        "Ties and pruning",
        "sentencepiece keeps a pool of candidate pairs refreshed now and then and drops pieces it deems unused; "
        "Hugging Face (and this player, tie rule Hugging Face) recounts exactly, the textbook loop the player "
        "replays.",
    ),
    (
        "Defaults",
        "sentencepiece normalizes with nmt_nfkc and collapses runs of spaces; here the text is kept (NFC only if "
        "ticked) and every space is a ▁. Character coverage works alike: the rarest characters fall back to bytes.",
    ),
)


def coverage_label(coverage: float) -> str:
    """How the sidebar names a character coverage.

    >>> coverage_label(1.0), coverage_label(0.9995), coverage_label(0.99)
    ('1 (every character)', "0.9995 (sentencepiece's default)", '0.99')
    """
    c = float(coverage)
    return f"{c:g}" + {1.0: " (every character)", 0.9995: " (sentencepiece's default)"}.get(c, "")
