"""views.live_column: a column kept up to date edit by edit is the column a full encode gives
(views.encoded.encode_view + views.tokenize_payload.column_tokens, the page's old road): the same ids, byte
lengths, special-token indices, counts and specials found, edit after edit; and a tokenizer it cannot edit in
place says so (None) instead of guessing."""

from __future__ import annotations

import random

import pytest

import bpe
from views.encoded import encode_view
from views.live_column import LiveColumn
from views.tokenize_payload import column_tokens

TEXT = "Hello <|endoftext|> world, 12345 日本語 😀 café\n\n  end"
PIECES = ["", " ", "x", "<|endoftext|>", "<|", "|>", "😀", "日", "\n", "99"]


@pytest.mark.parametrize("specials", [True, False])
@pytest.mark.parametrize("name", ["cl100k_base", "llama3"])
def test_edit_by_edit_equals_the_full_road(name, specials):
    tok = bpe.load_pretrained(name)
    col = LiveColumn(tok, name, specials=specials)
    rng = random.Random(5)
    text = TEXT
    for _ in range(40):
        got = col.update(text)
        assert got is not None
        enc, tokens = got
        want_enc = encode_view(tok, text, specials_as_special=specials, name=name)
        want = column_tokens(tok, want_enc, text)
        assert list(tokens.ids) == list(want.ids) and list(tokens.lens) == list(want.lens)
        assert tokens.special == want.special and tokens.text is None
        assert (enc.n_tokens, enc.special_count, enc.other_count, enc.specials_found, enc.roundtrip_ok) == (
            want_enc.n_tokens,
            want_enc.special_count,
            want_enc.other_count,
            want_enc.specials_found,
            True,
        )
        at = rng.randint(0, len(text))
        text = text[:at] + rng.choice(PIECES) + text[at + rng.choice([0, 0, 1, 3]) :]


def test_a_pipeline_tokenizer_is_left_to_the_full_encode():
    tok = bpe.train("hello hello", 270, level="char", special_tokens=["<unk>"], unk_token="<unk>").tokenizer()
    assert LiveColumn(tok, "char", specials=True).update("hello") is None


def test_a_normalizing_tokenizer_is_kept_on_the_normalized_text():
    # Qwen normalizes to NFC: typed combining marks compose with the letter before them (e + U+0301 -> é),
    # decomposed Hangul jamo compose into syllables; the column's tokens lie on the normalized text, which
    # travels with it, and its ids are the full encode's of the text as typed
    tok = bpe.load_pretrained("qwen3")
    col = LiveColumn(tok, "Qwen", specials=True)
    pieces = ["\u0301", "e", "\u1100\u1161", "\u11a8", "x", " ", "\u0958", "<|endoftext|>", "😀", ""]
    rng = random.Random(11)
    text = "cafe\u0301 \u1100\u1161\u11a8 naïve <|endoftext|> end"
    for _ in range(40):
        got = col.update(text)
        assert got is not None
        enc, tokens = got
        want_enc = encode_view(tok, text, specials_as_special=True, name="Qwen")
        want = column_tokens(tok, want_enc, text)
        assert list(tokens.ids) == tok.encode(text, allowed_special="all") == list(want.ids)
        assert list(tokens.lens) == list(want.lens) and tokens.special == want.special
        assert tokens.text == want.text and enc.text == want_enc.text
        assert (enc.normalized, enc.n_tokens, enc.special_count, enc.specials_found) == (
            want_enc.normalized,
            want_enc.n_tokens,
            want_enc.special_count,
            want_enc.specials_found,
        )
        at = rng.randint(0, len(text))
        text = text[:at] + rng.choice(pieces) + text[at + rng.choice([0, 0, 1, 2]) :]
