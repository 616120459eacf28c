"""Unit tests for the merge player's views: the replay engine, the charts, the words and tables.

Expected values are worked out by hand from small texts (``aaabdaaabac``: merge ``a a`` (4 times), then
``a b`` tied with ``aa a`` (2 each), 11 -> 9 -> 7 tokens), or come from an independent path (the library's
``Tokenizer.encode`` with the first k merges), never from the code under test.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest

import appstate.sources
import bpe
from bpe.excerpt import split_heldout
from bpe.replay import MergeIndex, Replay
from views.player import find_token, merge_sentence, merge_tree_html, merges_frame, pair_label, status_html, vocab_frame
from views.player_payload import run_payload
from views.replay import replay_spans
from views.spans import render_spans
from views.theme import accent_colors

A, B, C, D = 97, 98, 99, 100


# --------------------------------------------------------------------------- pair chart


def bars(run, k, palette="default"):
    """The pair chart at step k as the player draws it from the run payload: (left, right, count, role,
    color) per bar. The chart at step k is the one that decided merge k (at k = 0: the first merge); the
    winner comes first, pairs with its count are ties."""
    p = run_payload(run, tag="t", palette=palette)
    r = max(0, k - 1)
    start = sum(p["top_n"][:r])
    out = []
    for j in range(start, start + p["top_n"][r]):
        i, c = p["top_i"][j], p["top_c"][j]
        role = "winner" if j == start else "tie" if c == p["count"][r] else ""
        color = p["accent"]["winner" if role == "winner" else "tie" if role == "tie" else "other"]
        out.append((p["top_pairs"][2 * i], p["top_pairs"][2 * i + 1], c, role, color))
    return out


def test_pair_chart_before_the_first_merge_is_the_first_decision(classic):
    chart = bars(classic, 1)
    assert chart[0] == (A, A, 4, "winner", accent_colors()["winner"])
    assert sorted(c for _, _, c, _, _ in chart[1:]) == [1, 1, 1, 1, 2]  # ab 2; bd da ba ac once
    assert bars(classic, 0) == chart  # step 0 shows the decision still to come


def test_pair_chart_marks_the_tie_broken_by_the_lexical_rule(classic):
    roles = {(a, b): role for a, b, _, role, _ in bars(classic, 2)}
    assert roles[(A, B)] == "winner"  # (97, 98) < (256, 97)
    assert roles[(256, A)] == "tie"
    tie = next(bar for bar in bars(classic, 2) if bar[:2] == (256, A))
    assert tie[4] == accent_colors()["tie"]


def test_first_seen_rule_breaks_the_same_tie_the_other_way():
    run = bpe.train("aaabdaaabac", 258, pattern=None, tie_break="first")
    assert run.merges[1].pair == (256, A)  # "aa" + "a" occurs first in the text
    assert bars(run, 2)[0][:4] == (256, A, 2, "winner")


def test_pair_chart_follows_the_palette(classic):
    chart = bars(classic, 2, palette="okabe_ito")
    assert chart[0][4] == accent_colors("okabe_ito")["winner"] != accent_colors()["winner"]
    assert chart[1][4] == accent_colors("okabe_ito")["tie"]


def test_pair_labels_are_visible_forms():
    run = bpe.train('a b\tc\nd é "q"', 256, pattern=None)
    assert pair_label(run, (32, 9)) == '"·" + "→"'
    assert pair_label(run, (10, 0xC3)) == '"↵" + "<C3>"'
    assert pair_label(run, (32, 34)) == '"·" + \'"\''  # a quote stays readable


def test_empty_run_gives_a_message_not_a_crash():
    run = bpe.train("a", 300, pattern=None)
    assert not run.merges
    p = run_payload(run, tag="t")
    assert p["n"] == 0 and p["top_n"] == [] and p["tokens"] == [1]
    assert merge_sentence(run, 0).startswith("Merge 0 / 0")


# --------------------------------------------------------------------------- compression curves


def test_compression_curves_carry_tokens_after_every_merge(classic):
    p = run_payload(classic, tag="t", heldout_counts=[4, 3, 2, 1], heldout_bytes=4)
    assert p["tokens"] == [11, 9, 7, 5] and p["bytes"] == 11
    assert [p["bytes"] / t for t in p["tokens"]] == pytest.approx([11 / 11, 11 / 9, 11 / 7, 11 / 5])
    assert p["held"] == [4, 3, 2, 1] and p["held_bytes"] == 4
    assert run_payload(classic, tag="t")["held"] is None  # no held-out text, no held-out curve


# --------------------------------------------------------------------------- words, tables, tree


def test_status_line_counts_one_token_in_the_singular():
    run = bpe.train("aaabdaaabac", 300, pattern=None)
    # by hand: aa, ab, aaab (pairs seen twice) leave 5 tokens; 4 merges of pairs seen once leave one token
    assert len(run.merges) == 7 and run.token_counts()[-1] == 1
    text = re.sub(r"<[^>]+>", "", status_html(run, 7).split("</style>", 1)[1])
    assert "Training text: 1 token (from 11: −10)" in text


def test_merge_sentence_spells_out_the_merge_and_the_tie(classic):
    assert merge_sentence(classic, 1) == 'Merge 1 / 3: "a" + "a" → "aa" (new id 256, count 4)'
    s = merge_sentence(classic, 2)
    assert s.startswith('Merge 2 / 3: "a" + "b" → "ab"')
    assert "tied with 1 other pair, broken by the lexical rule" in s
    assert merge_sentence(classic, 0).startswith("Merge 0 / 3: nothing merged yet")


class _Tags(HTMLParser):
    """Collects the tags, attributes and text of an HTML string."""

    def __init__(self, html):
        super().__init__()
        self.tags, self.attrs, self.text = set(), set(), []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attrs.update(name for name, _ in attrs)

    def handle_data(self, data):
        self.text.append(data)


HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)><b>bold</b>"


def test_render_spans_of_hostile_text_shows_it_literally():
    run = bpe.train(HOSTILE, 270, pattern="gpt4")
    html = render_spans(replay_spans(Replay.build(run, MergeIndex(run), HOSTILE), 5))
    parsed = _Tags(html.split("</style>", 1)[1])
    assert parsed.tags <= {"div", "span"}
    assert parsed.attrs <= {"class", "style", "title", "data-id"}
    assert "".join(parsed.text).strip() == HOSTILE.replace(" ", "·")


def test_status_and_tree_html_escape_markup_in_tokens():
    run = bpe.train(HOSTILE * 3, 300, pattern=None)
    for html in (status_html(run, 20), merge_tree_html(run, run.merges[19].id, 20)):
        parsed = _Tags(html.split("</style>", 1)[1])
        assert parsed.tags <= {"div", "span", "b"}
        assert "onerror" not in parsed.attrs and "src" not in parsed.attrs


def test_merges_and_vocab_tables(classic):
    mf = merges_frame(classic, 2)
    assert mf["merge"].tolist() == [2, 1] and mf["new token"].tolist() == ["ab", "aa"]
    assert mf["left"].tolist() == ["a", "a"] and mf["right"].tolist() == ["b", "a"]
    assert mf["count"].tolist() == [2, 4]
    vf = vocab_frame(classic, 2)
    assert len(vf) == 256 + 2 and vf["id"].tolist()[:2] == [257, 256]
    assert vf["made by"].tolist()[0] == "merge 2"
    big = bpe.train("abcdefghij" * 3, 256 + 9, pattern=None)
    assert len(big.merges) == 9
    vf = vocab_frame(big, 9, limit=4)
    assert vf["made by"].tolist()[:5] == ["merge 9", "merge 8", "merge 7", "merge 6", "base byte"]
    assert len(vf) == 4 + 256


def test_merge_tree_names_pair_rank_and_count(classic):
    html = merge_tree_html(classic, 258, 3)
    assert "merge 3" in html and "<b>2</b> times" in html
    assert "id 256 · merge 1 · count 4" in html and "id 257 · merge 2 · count 2" in html
    assert html.count("base byte") == 4  # a a a b
    future = merge_tree_html(classic, 258, 1)
    assert "Not made yet" in future and "not made yet" in future


def test_find_token_by_id_text_and_visible_form(classic):
    assert find_token(classic, "257", 3) == (257, "")
    assert find_token(classic, "aaab", 3) == (258, "")
    run = bpe.train("hello hello", 258, pattern="gpt2")
    space_h = run.merges[0].id if run.merges[0].token == b" h" else None
    if space_h is not None:
        assert find_token(run, "·h", 2)[0] == space_h == find_token(run, "Ġh", 2)[0]
    tid, why = find_token(classic, "9999", 3)
    assert tid is None and "no token with id 9999" in why
    assert find_token(classic, "", 3) == (None, "")


# --------------------------------------------------------------------------- appstate helpers


def test_split_heldout_keeps_short_texts_and_splits_long_ones_at_a_space():
    assert split_heldout("a" * 100) == ("a" * 100, "")
    text = "word " * 1000
    train, held = split_heldout(text)
    assert train + held == text and train.endswith(" ") and 0.05 < len(held) / len(text) < 0.15


def test_decode_text_file_messages():
    assert appstate.sources.decode_text_file("\ufeffhi".encode()) == "hi"
    with pytest.raises(appstate.sources.SourceError, match="not UTF-8 text: byte 0xFF at position 2"):
        appstate.sources.decode_text_file(b"ab\xff")
    with pytest.raises(appstate.sources.SourceError, match="empty"):
        appstate.sources.decode_text_file(b"")


def test_check_train_text_limits():
    with pytest.raises(appstate.sources.SourceError, match="empty"):
        appstate.sources.check_train_text("")
    with pytest.raises(appstate.sources.SourceError, match="at most"):
        appstate.sources.check_train_text("x" * (appstate.sources.MAX_TRAIN_BYTES + 1))
    assert appstate.sources.first_bytes("é" * 10, 5) == "éé"


def test_parse_specials():
    assert appstate.sources.parse_specials("<|a|>,<|b|>  <|a|>") == ("<|a|>", "<|b|>")


# --------------------------------------------------------------------------- export


@pytest.mark.parametrize("fmt", ["hf", "tiktoken", "merges"])
def test_export_files_load_back_with_the_same_ids(fmt, tmp_path):
    import io
    import zipfile

    from views.player import export_file

    run = bpe.train("hello hello hello world, aaabdaaabac", 270, pattern="gpt4", special_tokens=["<|end|>"])
    data = export_file(run, fmt)
    if fmt == "hf":
        target = tmp_path / "tokenizer.json"
        target.write_bytes(data)
        assert json.loads(data)["model"]["type"] == "BPE"
    else:
        target = tmp_path / "folder"
        zipfile.ZipFile(io.BytesIO(data)).extractall(target)
        assert "bpe_lab.json" in {p.name for p in target.iterdir()}
    loaded = bpe.load(target)
    text = "hello world aaab <|end|>"
    assert loaded.encode(text, allowed_special="all") == run.tokenizer().encode(text, allowed_special="all")


def test_export_refuses_what_a_format_cannot_hold():
    from views.player import export_file

    run = bpe.train("aaabdaaabac", 6, pattern=None, level="char")
    with pytest.raises(ValueError, match="char level"):
        export_file(run, "tiktoken")
    assert export_file(run, "hf")  # HF files hold char-level tokenizers


def test_tokens_that_split_a_character_are_grouped_under_it():
    run = bpe.train("é é", 256, pattern=None)  # no merges: é is two byte tokens C3 A9
    spans = replay_spans(Replay.build(run, MergeIndex(run), "aé"), 0)
    html = render_spans(spans, group_chars=True)
    body = html.split("</style>", 1)[1]
    assert body.count('<ruby class="bpe-grp"') == 1
    group = body.split('<ruby class="bpe-grp"', 1)[1].split("</ruby>", 1)[0]
    assert "C3" in group and "A9" in group and "<rt>é</rt>" in group
    assert ">a</span>" not in group  # the whole "a" stays outside the group
    assert "bpe-grp" not in render_spans(spans).split("</style>", 1)[1]  # off by default


# --------------------------------------------------------------------------- SentencePiece-style: byte fallback


def _sp_run():
    """ "▁aaaaaaaaa▁bbbbbbbbbz" at coverage 0.95 (by hand: a 9 + b 9 + ▁ 2 = 20 of 21 characters): z is left to
    byte fallback, so the alphabet is a b ▁ and z is the token <0x7A>, the 0x7A-th after the vocabulary."""
    return bpe.train("aaaaaaaaa bbbbbbbbbz", 5, family="sentencepiece", tie_break="hf", character_coverage=0.95)


def test_byte_fallback_tokens_are_labelled_and_drawn_as_their_own_chips():
    from views.player import fallback_byte, sentencepiece_differences_html, source_summary, token_chip
    from views.player_payload import window_payload

    run = _sp_run()
    assert run.base == ("a", "b", "▁") and run.vocab_size == 5
    z = run.vocab_size + 0x7A
    assert fallback_byte(run, z) == 0x7A and fallback_byte(run, 4) is None
    chip = token_chip(run, z)
    assert 'class="bpe-bf"' in chip and "&lt;0x7A&gt;" in chip and "<0x7A>" not in chip
    p = run_payload(run, tag="t")
    assert p["fallback"] == list(range(5, 5 + 256)) and p["label"][z] == "<0x7A>" and p["nbytes"][z] == 1
    assert 'class="bpe-bf"' in p["piece"][str(z)]
    rep = Replay.build(run, MergeIndex(run), bpe.normalize_text("aaaaaaaaa bbbbbbbbbz 🦜", run.normalize))
    w = window_payload(rep, tag="t", n_merges=len(run.merges), level="char", byte_fallback=True)
    # the parrot's four byte tokens lie under it: the window tells each character's byte length
    assert w["ch_len"][-1] == 4 and w["ch_label"][-1] == "🦜"
    assert [p["label"][i] for i in rep.ids_at(0)[-6:]] == ["<0x7A>", "▁", "<0xF0>", "<0x9F>", "<0xA6>", "<0x9C>"]
    # the vocabulary table lists them, the tree explains one, a typed <0x7A> finds it
    frame = vocab_frame(run, 1)
    assert list(frame[frame["made by"] == "byte fallback"]["token"])[:2] == ["<0x00>", "<0x01>"]
    assert "byte-fallback token" in merge_tree_html(run, z, 1) and "byte 0x7A" in merge_tree_html(run, z, 1)
    assert find_token(run, "<0x7A>", 1) == (z, "") and find_token(run, str(z), 1) == (z, "")
    assert find_token(run, str(run.vocab_size + 256), 1)[0] is None
    # the summary names the family and the coverage, not the internal pattern and normalization names
    words = source_summary(run, title="t", coverage=0.95)
    assert "SentencePiece-style" in words and "character coverage 0.95: 3 characters" in words
    assert "metaspace" not in words and "char level" not in words
    assert "&lt;0xNN&gt;" in status_html(run, 0)
    help_html = sentencepiece_differences_html()
    assert "SentencePieceBPETokenizer" in help_html and "split" in help_html and "<script" not in help_html


def test_a_byte_level_run_has_no_byte_fallback_tokens(classic):
    from views.player import fallback_byte

    assert run_payload(classic, tag="t")["fallback"] == [] and fallback_byte(classic, classic.vocab_size) is None
    assert "byte fallback" not in set(vocab_frame(classic, 3)["made by"])
