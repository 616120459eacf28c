"""The worked examples of the tutorials BPE Lab was conceived from (the "seeds"), as tests.

Every expected value here was worked by hand (written out in the comments) or is quoted from the seed
documents themselves; the seed notebook's own training loop is reproduced verbatim as an oracle. The
tutorials are not part of this repository and the test reads nothing of them: all it needs is written here.
"""

from __future__ import annotations

from collections import defaultdict

import pytest

import bpe
from bpe.reference import merge_ids

A, B, C, D = (ord(c) for c in "abcd")


# --- seed 001: "aaabdaaabac" ------------------------------------------------------------------------
# Pairs: (a,a) x4 (two "aaa" runs, overlapping), (a,b) x2, the rest x1. Merge 1: (a,a) -> Z, giving
# Z a b d Z a b a c (9 tokens). Then (Z,a) and (a,b) tie at 2: the lexical rule takes (97,98) < (256,97),
# i.e. (a,b) -> Y: Z Y d Z Y a c (7 tokens). The "first" rule takes (Z,a), which occurs first.


def test_aaabdaaabac_lexical_merges_and_lengths():
    run = bpe.train("aaabdaaabac", 256 + 2, pattern=None, tie_break="lexical")
    assert [m.pair for m in run.merges] == [(A, A), (A, B)]
    assert [m.count for m in run.merges] == [4, 2]
    assert run.token_counts() == [11, 9, 7]
    assert run.merges[1].ties == ((256, A),)
    assert run.merges[0].ties == ()
    assert run.tokenizer().encode("aaabdaaabac") == [256, 257, D, 256, 257, A, ord("c")]


def test_aaabdaaabac_first_rule_takes_the_pair_seen_first():
    run = bpe.train("aaabdaaabac", 256 + 2, pattern=None, tie_break="first")
    assert [m.pair for m in run.merges] == [(A, A), (256, A)]
    assert run.token_counts() == [11, 9, 7]


def test_aaabdaaabac_at_char_level_uses_small_ids():
    run = bpe.train("aaabdaaabac", 4 + 2, pattern=None, level="char")  # alphabet a b c d = ids 0..3
    assert run.base == ("a", "b", "c", "d")
    assert [m.pair for m in run.merges] == [(0, 0), (0, 1)]
    assert [m.token for m in run.merges] == ["aa", "ab"]


# --- seed 000: "hello hello hello world" -------------------------------------------------------------
# Byte level, no pre-tokenizer, 23 bytes. Count-3 pairs tie: (h,e) (e,l) (l,l) (l,o) (o,' ').
# Lexical: (e,l)=(101,108) is smallest -> "el"; then (h,el)=(104,256) beats (l,o)=(108,111) -> "hel";
# then (l,o) -> "lo"; then (hel,lo) -> "hello"; then ("hello", " ") x3 -> "hello ". Each removes 3 tokens.


def test_hello_world_by_hand():
    run = bpe.train("hello hello hello world", 256 + 5, pattern=None, tie_break="lexical")
    assert [m.token for m in run.merges] == [b"el", b"hel", b"lo", b"hello", b"hello "]
    assert run.token_counts() == [23, 20, 17, 14, 11, 8]
    assert {(ord("h"), ord("e")), (ord("l"), ord("l")), (ord("l"), ord("o")), (ord("o"), 32)} == set(run.merges[0].ties)


def test_hello_becomes_one_token_and_round_trips():
    text = "hello hello hello world"
    for tie in bpe.TIE_BREAKS:
        tok = bpe.train(text, 256 + 10, pattern="gpt2", tie_break=tie).tokenizer()
        assert tok.encode_pieces("hello")[0] == "hello"
        assert tok.decode(tok.encode(text)) == text


# --- seed 001: why pre-tokenize, and why order matters ------------------------------------------------


def test_dog_regex_split_from_the_seed():
    # The seed: "dog. dog!" after regex -> "dog" "." " dog" "!"
    assert bpe.pretokenize("dog. dog!", "gpt4") == ["dog", ".", " dog", "!"]


def test_without_a_regex_dog_punctuation_merges_across_the_word():
    text = "dog dog. dog!"
    no_regex = {m.token for m in bpe.train(text * 3, 256 + 12, pattern=None).merges}
    with_regex = {m.token for m in bpe.train(text * 3, 256 + 12, pattern="gpt4").merges}
    assert any(t.startswith(b"dog") and (b"." in t or b"!" in t) for t in no_regex)
    assert all(not (b"g." in t or b"g!" in t) for t in with_regex)


def test_order_matters_when_encoding_aab():
    # The seed: merges (97,97)->256 then (256,98)->257. In order: [257]; reversed: [256, 98].
    ids = [A, A, B]
    in_order = merge_ids(merge_ids(ids, (A, A), 256), (256, B), 257)
    reversed_order = merge_ids(merge_ids(ids, (256, B), 257), (A, A), 256)
    assert in_order == [257] and reversed_order == [256, 98]
    run = bpe.train("aab aab aab", 256 + 2, pattern=None, tie_break="lexical")
    assert [m.pair for m in run.merges] == [(A, A), (256, B)]
    assert run.tokenizer().encode("aab") == [257]


def test_trace_of_aaab_from_the_seed():
    # The seed: "aaab" with (97,97)->256, (256,97)->257: [97,97,97,98] -> [256,97,98] -> [257,98]
    run = bpe.train("aaab aaab", 256 + 2, pattern=None, tie_break="lexical")
    assert [m.pair for m in run.merges][:1] == [(A, A)]
    tok = run.tokenizer()
    steps = tok.encode_trace("aaab")
    assert steps[0].ids == (A, A, A, B)
    assert steps[1].ids == (256, A, B) and steps[1].pair == (A, A)


# --- seed 002: the word-frequency toy corpus, at char level ------------------------------------------

TOY = {
    "the": 50,
    "fox": 30,
    "foxes": 5,
    "boxes": 12,
    "wishes": 8,
    "un": 20,
    "able": 25,
    "unable": 12,
    "believe": 18,
    "believer": 6,
    "believable": 8,
    "unbelievable": 3,
}


def _seed_002_train(word_counts, num_merges):
    """The seed notebook's own loop, verbatim in substance (an independent oracle)."""

    def get_stats(vocab):
        pairs = defaultdict(int)
        for word, freq in vocab.items():
            symbols = word.split()
            for i in range(len(symbols) - 1):
                pairs[(symbols[i], symbols[i + 1])] += freq
        return pairs

    def merge_word(symbols, pair):
        a, b = pair
        merged, i = [], 0
        while i < len(symbols):
            if i < len(symbols) - 1 and symbols[i] == a and symbols[i + 1] == b:
                merged.append(a + b)
                i += 2
            else:
                merged.append(symbols[i])
                i += 1
        return merged

    vocab = {" ".join(list(w)): f for w, f in word_counts.items()}
    merges = []
    for _ in range(num_merges):
        stats = get_stats(vocab)
        if not stats:
            break
        best = max(stats, key=stats.get)
        merges.append(best)
        vocab = {" ".join(merge_word(w.split(), best)): f for w, f in vocab.items()}

    def tokenize(word):
        tokens = list(word)
        for pair in merges:
            tokens = merge_word(tokens, pair)
        return tokens

    return merges, tokenize


def test_word_frequency_corpus_matches_the_seed_loop():
    seed_merges, seed_tokenize = _seed_002_train(TOY, 16)
    alphabet = sorted({c for w in TOY for c in w})
    run = bpe.train(TOY, len(alphabet) + 16, level="char", tie_break="first")
    ours = [(run.token(a), run.token(b)) for a, b in (m.pair for m in run.merges)]
    assert ours == seed_merges
    tok = run.tokenizer()
    for word in ["the", "unbelievable", "believable", "unable", "foxes", "unbelievably"]:
        assert tok.encode_pieces(word) == seed_tokenize(word), word


def test_unbelievably_falls_back_to_known_pieces():
    alphabet = sorted({c for w in TOY for c in w})
    run = bpe.train(TOY, len(alphabet) + 16, level="char", tie_break="first")
    pieces = run.tokenizer().encode_pieces("unbelievably")
    assert "".join(pieces) == "unbelievably"
    assert pieces[-1] == "y"  # 'y' never occurs in the corpus: it stays a piece of its own
    assert len(pieces) < len("unbelievably")
    with pytest.raises(bpe.UnknownCharacterError, match="'y'"):
        run.tokenizer().encode("unbelievably")


# --- seed 004: GPT-2 visible bytes, Qwen pre-tokenization with NFC -----------------------------------


def test_visible_bytes_from_the_seed():
    assert bpe.to_visible(bytes([0])) == "Ā"
    assert bpe.to_visible(bytes([20])) == "Ĕ"
    assert bpe.to_visible(b"A") == "A"
    assert bpe.to_visible(bytes([255])) == "ÿ"
    assert bpe.to_visible(" token".encode()) == "Ġtoken"
    assert bpe.to_visible("\ntoken".encode()) == "Ċtoken"
    assert bpe.from_visible("Ġtoken") == b" token"


def test_qwen_pretokenize_assertion_from_the_seed():
    text = "...I know he dyin' (oh my, oh my God) 6-7, I just bipped right on the highway (Bip, bip)"
    assert bpe.pretokenize(text, "qwen2") == [
        "...",
        "I",
        " know",
        " he",
        " dyin",
        "'",
        " (",
        "oh",
        " my",
        ",",
        " oh",
        " my",
        " God",
        ")",
        " ",
        "6",
        "-",
        "7",
        ",",
        " I",
        " just",
        " bipped",
        " right",
        " on",
        " the",
        " highway",
        " (",
        "Bip",
        ",",
        " bip",
        ")",
    ]


def test_qwen_nfc_corpus_of_the_four_texts():
    texts = ["A sentence", "A 69 number", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 OK.", "Tabs\tand newlines\nare also tokens."]
    chunks = [bpe.to_visible(c.encode()) for t in texts for c in bpe.pretokenize(bpe.normalize_text(t, "NFC"), "qwen2")]
    assert chunks == [
        "A",
        "Ġsentence",
        "A",
        "Ġ",
        "6",
        "9",
        "Ġnumber",
        "ðĿĶĺðĿĶ«ðĿĶ¦ðĿĶłðĿĶ¬ðĿĶ¡ðĿĶ¢",
        "ĠOK",
        ".",
        "Tabs",
        "ĉand",
        "Ġnewlines",
        "Ċ",
        "are",
        "Ġalso",
        "Ġtokens",
        ".",
    ]


def test_nfc_training_merges_composed_characters():
    # "é" as e + combining acute (3 bytes) becomes one code point (2 bytes) under NFC.
    run = bpe.train("cafe\u0301 cafe\u0301", 256, pattern=None, normalize="NFC")
    assert run.tokens_before == len("café café".encode())
    tok = bpe.train("x", 256, pattern=None, normalize="NFC").tokenizer()
    assert tok.decode(tok.encode("cafe\u0301")) == "caf\u00e9"
