"""Unit tests for the merge player's views: the replay engine, the charts, the words and tables.

Expected values are worked out by hand from small texts (``aaabdaaabac``: merge ``a a`` (4 times), then
``a b`` tied with ``aa a`` (2 each), 11 -> 9 -> 7 tokens), or come from an independent path (the library's
``Tokenizer.encode`` with the first k merges), never from the code under test.
"""
from __future__ import annotations

import json
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import appstate  # noqa: E402
import bpe  # noqa: E402
from views.charts import compression_figure, downsample, pair_counts_figure, pair_label  # noqa: E402
from views.player import (find_token, merge_sentence, merge_tree_html, merges_frame, status_html,  # noqa: E402
                          vocab_frame)
from bpe.replay import MergeIndex, Replay  # noqa: E402
from views.replay import replay_spans  # noqa: E402
from views.spans import render_spans  # noqa: E402
from views.theme import accent_colors  # noqa: E402

A, B, C, D = 97, 98, 99, 100


# --------------------------------------------------------------------------- pair chart

def bars(fig):
    spec = json.loads(fig.to_json())
    bar = spec["data"][0]
    return bar, spec["layout"]


def test_pair_chart_before_the_first_merge_is_the_first_decision(classic):
    bar, layout = bars(pair_counts_figure(classic, 1))
    labels = layout["yaxis"]["ticktext"]
    assert bar["x"][0] == 4 and '"a" + "a"' in labels[0] and labels[0].startswith("▶")
    assert bar["customdata"][0] == [A, A, "winner"]
    assert bar["marker"]["color"][0] == accent_colors()["winner"]
    assert sorted(bar["x"][1:], reverse=True) == [2, 1, 1, 1, 1]   # ab 2; bd da ba ac once


def test_pair_chart_marks_the_tie_broken_by_the_lexical_rule(classic):
    bar, layout = bars(pair_counts_figure(classic, 2))
    roles = {tuple(c[:2]): c[2] for c in bar["customdata"]}
    assert roles[(A, B)] == "winner"          # (97, 98) < (256, 97)
    assert roles[(256, A)] == "tie"
    tie_row = [c[:2] for c in bar["customdata"]].index([256, A])
    assert layout["yaxis"]["ticktext"][tie_row].startswith("=")
    assert bar["marker"]["color"][tie_row] == accent_colors()["tie"]
    assert "aa" in layout["yaxis"]["ticktext"][tie_row]


def test_first_seen_rule_breaks_the_same_tie_the_other_way():
    run = bpe.train("aaabdaaabac", 258, pattern=None, tie_break="first")
    assert run.merges[1].pair == (256, A)     # "aa" + "a" occurs first in the text
    bar, _ = bars(pair_counts_figure(run, 2))
    assert bar["customdata"][0] == [256, A, "winner"]


def test_pair_chart_follows_the_palette(classic):
    bar, _ = bars(pair_counts_figure(classic, 2, palette="okabe_ito"))
    assert bar["marker"]["color"][0] == accent_colors("okabe_ito")["winner"] != accent_colors()["winner"]
    assert bar["marker"]["color"][1] == accent_colors("okabe_ito")["tie"]


def test_pair_chart_step_zero_shows_the_upcoming_merge(classic):
    bar, layout = bars(pair_counts_figure(classic, 0))
    assert bar["customdata"][0][2] == "winner" and "merged first" in layout["xaxis"]["title"]["text"]


def test_pair_labels_are_visible_forms():
    run = bpe.train("a b\tc\nd é", 256, pattern=None)
    assert pair_label(run, (32, 9)) == '"·" + "→"'
    assert pair_label(run, (10, 0xC3)) == '"↵" + "<C3>"'


def test_empty_run_gives_a_message_not_a_crash():
    run = bpe.train("a", 300, pattern=None)
    assert not run.merges
    fig = pair_counts_figure(run, 0)
    assert "nothing to merge" in fig.layout.annotations[0].text
    assert merge_sentence(run, 0).startswith("Merge 0 / 0")


# --------------------------------------------------------------------------- compression chart

def test_compression_chart_tokens_and_bytes_per_token(classic):
    fig = compression_figure(classic.token_counts(), classic.n_bytes, 2,
                             heldout_counts=[4, 3, 2, 1], heldout_bytes=4, metric="tokens")
    train, marker = fig.data[0], fig.data[1]
    assert list(train.y) == [11, 9, 7, 5] and list(marker.x) == [2] and list(marker.y) == [7]
    held = fig.data[2]
    assert list(held.y) == [4, 3, 2, 1]
    assert fig.layout.shapes[0].x0 == 2
    fig = compression_figure(classic.token_counts(), classic.n_bytes, 3, metric="bytes_per_token")
    assert list(fig.data[0].y) == pytest.approx([11 / 11, 11 / 9, 11 / 7, 11 / 5])
    assert len(fig.data) == 2                 # no held-out text, no held-out curve


def test_compression_chart_downsamples_long_runs_but_keeps_the_current_step():
    counts = list(range(10_000, 0, -1))
    fig = compression_figure(counts, 20_000, 4_321, points=100)
    xs = list(fig.data[0].x)
    assert len(xs) < 200 and 4_321 in xs and xs[0] == 0 and xs[-1] == len(counts) - 1
    assert downsample(5, 100) == [0, 1, 2, 3, 4, 5]


# --------------------------------------------------------------------------- words, tables, tree

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
    assert html.count("base byte") == 4      # a a a b
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
    assert appstate.split_heldout("a" * 100) == ("a" * 100, "")
    text = "word " * 1000
    train, held = appstate.split_heldout(text)
    assert train + held == text and train.endswith(" ") and 0.05 < len(held) / len(text) < 0.15


def test_decode_text_file_messages():
    assert appstate.decode_text_file("\ufeffhi".encode()) == "hi"
    with pytest.raises(appstate.SourceError, match="not UTF-8 text: byte 0xFF at position 2"):
        appstate.decode_text_file(b"ab\xff")
    with pytest.raises(appstate.SourceError, match="empty"):
        appstate.decode_text_file(b"")


def test_check_train_text_limits():
    with pytest.raises(appstate.SourceError, match="empty"):
        appstate.check_train_text("")
    with pytest.raises(appstate.SourceError, match="at most"):
        appstate.check_train_text("x" * (appstate.MAX_TRAIN_BYTES + 1))
    assert appstate.first_bytes("é" * 10, 5) == "éé"


def test_parse_specials_and_base_size():
    assert appstate.parse_specials("<|a|>,<|b|>  <|a|>") == ("<|a|>", "<|b|>")
    assert appstate.base_size("abca", "char", None, ()) == 3
    assert appstate.base_size("ab<|x|>", "char", None, ("<|x|>",)) == 2
    assert appstate.base_size("e\u0301", "char", "NFC", ()) == 1
    assert appstate.base_size("anything", "byte", None, ()) == 256


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
    assert export_file(run, "hf")          # HF files hold char-level tokenizers


def test_tokens_that_split_a_character_are_grouped_under_it():
    run = bpe.train("é é", 256, pattern=None)          # no merges: é is two byte tokens C3 A9
    spans = replay_spans(Replay.build(run, MergeIndex(run), "aé"), 0)
    html = render_spans(spans, group_chars=True)
    body = html.split("</style>", 1)[1]
    assert body.count('<ruby class="bpe-grp"') == 1
    group = body.split('<ruby class="bpe-grp"', 1)[1].split("</ruby>", 1)[0]
    assert "C3" in group and "A9" in group and "<rt>é</rt>" in group
    assert '>a</span>' not in group                       # the whole "a" stays outside the group
    assert "bpe-grp" not in render_spans(spans).split("</style>", 1)[1]   # off by default
