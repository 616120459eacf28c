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


def _mixed(n: int) -> str:
    """~``n`` characters of several scripts, digits, code, whitespace runs and combining marks (decomposed: NFC
    changes them), with a special token in the middle."""
    block = (
        "The quick brown fox, 12345 jumps. 日本語のテキスト 😀👨‍👩‍👧 Ελληνικά русский текст\n"
        "  def f(x):\n\treturn x**2   \ncafe\u0301 \u1100\u1161\u11a8 naïve <|endoftext|> end\n\n"
    )
    return (block * (n // len(block) + 1))[:n]


@pytest.mark.parametrize("specials", [True, False])
@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_a_big_pastes_first_screen_is_the_start_of_tiktokens_ids(name, specials):
    # the preview (appstate/tokenize_preview.py) shows the first tokens before the whole text is encoded: they
    # must be exactly tiktoken's first ids of the whole text, and cover the first screen (~1,000 characters)
    from tiktoken_reference import tiktoken_encoding

    ref = tiktoken_encoding(name)
    tok = bpe.load_pretrained(name)
    for n in (50_000, 2_999, 3_001, 40):
        text = _mixed(n)
        first = LiveColumn(tok, name, specials=specials).preview(text)
        assert first is not None and first.text is None
        whole = ref.encode(text, allowed_special="all") if specials else ref.encode_ordinary(text)
        assert list(first.ids) == whole[: len(first.ids)]
        shown = sum(first.lens)
        assert shown >= min(len(text.encode("utf-8")), 2_000)  # (a first screen and more)
        assert list(first.lens) == [len(ref.decode_single_token_bytes(i)) for i in first.ids]
        if specials and shown > 200:
            assert first.special == tuple(i for i, t in enumerate(first.ids) if t == ref.eot_token)
        if n <= 3_000:
            assert list(first.ids) == whole  # (a short text: all of it)


def test_a_normalizing_tokenizers_first_screen_lies_on_the_normalized_text():
    tok = bpe.load_pretrained("qwen3")
    text = _mixed(20_000)
    first = LiveColumn(tok, "Qwen", specials=True).preview(text)
    assert first is not None and first.text is not None
    want = tok.encode(text, allowed_special="all")
    assert list(first.ids) == want[: len(first.ids)]
    assert sum(first.lens) == len(first.text.encode("utf-8")) and "cafe\u0301" not in first.text


def test_what_a_paste_leaves_to_encode():
    tok = bpe.load_pretrained("cl100k_base")
    col = LiveColumn(tok, "GPT-4", specials=True)
    assert col.pending("hello world") == len("hello world")  # (nothing held yet: all of it)
    col.update("hello world")
    assert col.pending("hello world, and more") == len(", and more")
    assert col.pending("hello" + "x" * 500 + " world") == 500


def test_an_edit_of_a_text_that_normalization_changes_leaves_little_to_encode():
    # Qwen holds the NFC text; an edit of a text that is not NFC (decomposed marks all over) is still small
    col = LiveColumn(bpe.load_pretrained("qwen3"), "Qwen", specials=True)
    text = _mixed(20_000)
    col.update(text)
    assert col.pending(text[:10_000] + "x" + text[10_000:]) == 1
