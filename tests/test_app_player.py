"""AppTest: the merge player driven through its widgets, checking the state, the charts' data and the HTML.

AppTest does not tick ``run_every`` timers: while playing, every ``at.run()`` is one frame. Expected values
are hand-worked on ``aaabdaaabac`` (merges ``a a`` x4, ``a b`` x2 tied with ``aa a``, ``aa ab`` x2;
11 -> 9 -> 7 -> 5 tokens) or read from the sample index, never from the code under test.
"""
from __future__ import annotations

import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import appstate  # noqa: E402

SUBMIT = "FormSubmitter:player_paste_form-Train on this text"
HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)><b>bold</b>"


@pytest.fixture
def at():
    app = AppTest.from_file("../app.py", default_timeout=30)
    app.run()
    assert not app.exception, app.exception
    return app


def classic(at):
    """Switch to the aaabdaaabac sample (256 + 3 merges in its index entry)."""
    at.selectbox(key="player_sample").set_value("aaabdaaabac").run()
    assert not at.exception
    return at


def status(at) -> str:
    """The text of the status line in the step_status container."""
    bodies = [h.proto.body for h in at.get("html") if 'class="bpe-pl-status"' in h.proto.body]
    assert len(bodies) == 1, "exactly one status line"
    return _text(bodies[0])


def spans_html(at) -> str:
    bodies = [h.proto.body for h in at.get("html") if 'class="bpe-tokens"' in h.proto.body]
    assert len(bodies) == 1
    return bodies[0]


class _Tokens(HTMLParser):
    """The text of every ``bpe-tok`` span (marks and byte chips included), in order."""

    def __init__(self):
        super().__init__()
        self.tokens: list[str] = []
        self.depth = 0          # nesting inside the current token span

    def handle_starttag(self, tag, attrs):
        cls = dict(attrs).get("class") or ""
        if self.depth:
            self.depth += tag == "span"
        elif tag == "span" and cls.split()[:1] == ["bpe-tok"]:
            self.tokens.append("")
            self.depth = 1

    def handle_endtag(self, tag):
        if self.depth and tag == "span":
            self.depth -= 1

    def handle_data(self, data):
        if self.depth:
            self.tokens[-1] += data


def tokens(at) -> list[str]:
    """The token spans' texts (visible marks included), in order."""
    p = _Tokens()
    p.feed(spans_html(at).split("</style>", 1)[1])
    return p.tokens


def chart_elements(at):
    """The two charts: live_plotly component instances (st.plotly_chart if the component is unavailable)."""
    live = [c for c in at.get("component_instance") if c.proto.component_name.endswith("live_plotly")]
    return live or at.get("plotly_chart")


def charts(at) -> tuple[dict, dict]:
    specs = []
    for c in chart_elements(at):
        if hasattr(c.proto, "json_args"):
            specs.append(json.loads(json.loads(c.proto.json_args)["figure"]))
        else:
            specs.append(json.loads(c.proto.spec))
    assert len(specs) == 2
    return specs[0], specs[1]


def step(at) -> int:
    return at.session_state[appstate.PLAYER_STEP]


class _Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts: list[str] = []
        self.in_style = False

    def handle_starttag(self, tag, attrs):
        self.in_style = tag == "style"

    def handle_endtag(self, tag):
        self.in_style = False

    def handle_data(self, data):
        if not self.in_style:
            self.parts.append(data)


def _text(html: str) -> str:
    p = _Text()
    p.feed(html)
    return re.sub(r"\s+", " ", "".join(p.parts)).strip()


def error_texts(at) -> list[str]:
    return [e.value for e in at.error]


# --------------------------------------------------------------------------- first load

def test_first_load_trains_the_default_sample_and_shows_merge_zero(at):
    first = appstate.samples()[0]
    merges = first.default_vocab_size - 256
    assert status(at).startswith(f"Merge 0 / {merges} — nothing merged yet")
    assert step(at) == 0 and at.session_state[appstate.PLAYER_PLAYING] is False
    pair, comp = charts(at)
    assert pair["data"][0]["customdata"][0][2] == "winner"
    # training curve starts at one token per byte
    assert comp["data"][0]["y"][0] == pytest.approx(1.0)
    # the Tokenize page sees the player's run and step
    assert at.session_state[appstate.PLAYER_RUN][1].vocab_size == first.default_vocab_size


def test_charts_keep_their_identity_from_step_to_step(at):
    """The charts are updated in place (a new identity would mount a new chart at every step)."""
    before = [c.proto.id for c in chart_elements(at)]
    at.button(key="step").click().run()
    after = [c.proto.id for c in chart_elements(at)]
    assert before == after and len(set(after)) == 2
    assert charts(at)[0]["layout"]["xaxis"]["title"]["text"].endswith("merge 1")


def test_controls_exist_with_their_keys(at):
    keys = {b.key for b in at.button}
    assert {"play", "step", "back", "reset"} <= keys
    assert at.select_slider(key="speed").value == 2
    assert at.slider(key="jump").value == 0


# --------------------------------------------------------------------------- stepping

def test_step_back_reset_on_the_classic_example(at):
    classic(at)
    assert status(at).startswith("Merge 0 / 3")
    assert len(tokens(at)) == 11

    at.button(key="step").click().run()
    assert step(at) == 1
    assert status(at).startswith("Merge 1 / 3: a + a → aa (new id 256, count 4)")
    assert tokens(at) == ["aa", "a", "b", "d", "aa", "a", "b", "a", "c"]
    html = spans_html(at)
    assert html.count("bpe-new") == 2 + 1          # the two new "aa" tokens (+1 in the CSS)
    pair, comp = charts(at)
    bar = pair["data"][0]
    assert bar["x"][0] == 4 and bar["customdata"][0] == [97, 97, "winner"]

    at.button(key="step").click().run()
    assert status(at).startswith("Merge 2 / 3: a + b → ab")
    assert "tied with 1 other pair, broken by the lexical rule" in status(at)
    assert len(tokens(at)) == 7
    pair, _ = charts(at)
    roles = {tuple(c[:2]): c[2] for c in pair["data"][0]["customdata"]}
    assert roles[(97, 98)] == "winner" and roles[(256, 97)] == "tie"

    at.button(key="back").click().run()
    assert step(at) == 1 and status(at).startswith("Merge 1 / 3")
    at.button(key="reset").click().run()
    assert step(at) == 0 and len(tokens(at)) == 11
    assert at.button(key="back").disabled


def test_step_stops_at_the_end(at):
    classic(at)
    for _ in range(3):
        at.button(key="step").click().run()
    assert status(at).startswith("Merge 3 / 3: aa + ab → aaab")
    assert tokens(at) == ["aaab", "d", "aaab", "a", "c"]
    assert at.button(key="step").disabled


def test_jump_lands_on_the_merge_and_moves_every_panel(at):
    classic(at)
    at.slider(key="jump").set_value(2).run()
    assert step(at) == 2
    assert status(at).startswith("Merge 2 / 3")
    assert len(tokens(at)) == 7
    pair, comp = charts(at)
    assert "just before merge 2" in pair["layout"]["xaxis"]["title"]["text"]
    assert comp["layout"]["shapes"][0]["x0"] == 2
    marker = comp["data"][1]
    assert marker["x"] == [2] and marker["y"] == [pytest.approx(11 / 7)]


def test_compression_metric_tokens(at):
    classic(at)
    at.segmented_control(key="player_metric").set_value("tokens").run()
    _, comp = charts(at)
    assert comp["data"][0]["y"] == [11, 9, 7, 5]


# --------------------------------------------------------------------------- playing

def test_play_advances_each_frame_and_stops_by_itself_at_the_end(at):
    classic(at)
    at.button(key="play").click().run()
    assert at.session_state[appstate.PLAYER_PLAYING] is True
    assert step(at) == 0                     # pressing play does not skip a merge
    assert at.button(key="play").label == "Pause"
    assert not [s for s in at.slider if s.key == "jump"]      # a progress bar stands in while playing
    at.run()
    assert step(at) == 1 and status(at).startswith("Merge 1 / 3")
    at.run()
    at.run()
    assert step(at) == 3
    assert at.session_state[appstate.PLAYER_PLAYING] is False    # stopped by itself
    assert at.button(key="play").label == "Play"
    at.run()
    assert step(at) == 3


def test_pause_holds(at):
    classic(at)
    at.button(key="play").click().run()
    at.run()
    assert step(at) == 1
    at.button(key="play").click().run()      # pause
    assert at.session_state[appstate.PLAYER_PLAYING] is False
    for _ in range(3):
        at.run()
    assert step(at) == 1 and status(at).startswith("Merge 1 / 3")


def test_play_at_the_end_starts_again(at):
    classic(at)
    at.slider(key="jump").set_value(3).run()
    at.button(key="play").click().run()
    assert step(at) == 0 and at.session_state[appstate.PLAYER_PLAYING] is True


def test_speed_sets_merges_per_frame(at):
    first = appstate.samples()[0]
    at.select_slider(key="speed").set_value(200).run()
    at.button(key="play").click().run()
    at.run()
    # 200 merges/s at 5 frames/s: 40 merges per frame
    assert step(at) == min(40, first.default_vocab_size - 256)


def test_step_while_playing_pauses(at):
    classic(at)
    at.button(key="play").click().run()
    at.run()
    at.button(key="step").click().run()
    assert step(at) == 2 and at.session_state[appstate.PLAYER_PLAYING] is False


# --------------------------------------------------------------------------- settings retrain

def test_changing_merges_retrains_and_restarts(at):
    classic(at)
    at.button(key="step").click().run()
    at.number_input(key="player_merges").set_value(2).run()
    assert step(at) == 0 and status(at).startswith("Merge 0 / 2")


def test_tie_rule_first_seen_changes_the_second_merge(at):
    classic(at)
    at.selectbox(key="player_tie_break").set_value("first").run()
    at.slider(key="jump").set_value(2).run()
    # after "aa", the tie between "aa"+"a" (seen first) and "a"+"b" goes the other way
    assert status(at).startswith("Merge 2 / 3: aa + a → aaa")
    assert "first seen rule" in status(at)


def test_char_level_and_no_pretokenizer(at):
    classic(at)
    at.radio(key="player_level").set_value("char").run()
    at.selectbox(key="player_pattern").set_value("none").run()
    assert not at.exception
    assert status(at).startswith("Merge 0 / 3") and "one token per character" in status(at)
    at.button(key="step").click().run()
    assert tokens(at)[0] == "aa"


def test_nfc_normalization_changes_the_base_tokens(at):
    at.radio(key="player_source").set_value("paste").run()
    at.text_area(key="player_paste").input("cafe\u0301")     # e + combining acute: 6 bytes, 5 in NFC
    at.button(key=SUBMIT).click().run()
    assert len(tokens(at)) == 6
    at.checkbox(key="player_nfc").check().run()
    assert len(tokens(at)) == 5


def test_special_tokens_of_the_chat_sample(at):
    at.selectbox(key="player_sample").set_value("chat").run()
    assert "<|im_start|>" in at.text_input(key="player_specials").value
    html = spans_html(at)
    assert "bpe-special" in html and "&lt;|im_start|&gt;" in html


def test_custom_pattern(at):
    classic(at)
    at.selectbox(key="player_pattern").set_value("custom").run()
    at.text_input(key="player_custom_pattern").input("a|[^a]+").run()
    assert not at.error
    # chunks a a a bd a a a b a c: the only pair inside a chunk is "bd", so one merge, then training stops
    assert status(at).startswith("Merge 0 / 1")


# --------------------------------------------------------------------------- sources and bad input

def test_pasted_text_retrains_and_shows_markup_literally(at):
    at.radio(key="player_source").set_value("paste").run()
    at.text_area(key="player_paste").input(HOSTILE)
    at.button(key=SUBMIT).click().run()
    assert not at.error and not at.exception
    assert status(at).startswith("Merge 0 /")
    for _ in range(5):
        at.button(key="step").click().run()
    html = spans_html(at)
    body = html.split("</style>", 1)[1]
    assert "<script" not in body and "<img" not in body and "<b>" not in body
    assert _text(body).replace("·", " ") == HOSTILE
    for h in at.get("html"):
        assert "<script" not in h.proto.body and "<img" not in h.proto.body
    assert "<b>bold" not in "".join(h.proto.body for h in at.get("html"))


def test_empty_paste_gives_a_message_and_the_app_recovers(at):
    at.radio(key="player_source").set_value("paste").run()
    at.button(key=SUBMIT).click().run()
    assert any("empty" in e for e in error_texts(at))
    assert not chart_elements(at)
    at.radio(key="player_source").set_value("sample").run()
    assert not at.error and status(at).startswith("Merge 0 /")


def test_invalid_regex_gives_a_message_and_the_app_recovers(at):
    at.selectbox(key="player_pattern").set_value("custom").run()
    at.text_input(key="player_custom_pattern").input("(unclosed").run()
    assert any("not a valid regex" in e for e in error_texts(at))
    assert not at.exception
    at.selectbox(key="player_pattern").set_value("gpt2").run()
    assert not at.error and status(at).startswith("Merge 0 /")


def test_too_large_paste_is_refused_with_its_size(at):
    at.radio(key="player_source").set_value("paste").run()
    # Over the box's character limit: refused whole, as a browser does (nothing reaches the server).
    at.text_area(key="player_paste").input("x" * (appstate.MAX_TRAIN_BYTES + 10))
    at.button(key=SUBMIT).click().run()
    assert not at.exception and len(at.text_area(key="player_paste").value) <= appstate.MAX_TRAIN_BYTES
    # Within the character limit but over the byte limit (2-byte characters): refused with its size.
    at.text_area(key="player_paste").input("ü" * (appstate.MAX_TRAIN_BYTES // 2 + 10))
    at.button(key=SUBMIT).click().run()
    assert any("at most" in e for e in error_texts(at))


def test_upload_prompt_without_a_file(at):
    at.radio(key="player_source").set_value("upload").run()
    assert any("Upload a .txt file" in e for e in error_texts(at))


# --------------------------------------------------------------------------- merge tree, state sharing

def test_merge_tree_follows_the_step_or_a_typed_token(at):
    classic(at)
    at.slider(key="jump").set_value(3).run()
    tree = [h.proto.body for h in at.get("html") if 'class="bpe-pl-head"' in h.proto.body]
    assert len(tree) == 1 and "merge 3" in _text(tree[0]) and "2 times" in _text(tree[0])
    at.text_input(key="player_tree_query").input("256").run()
    tree = [h.proto.body for h in at.get("html") if 'class="bpe-pl-head"' in h.proto.body]
    assert "was made by merge 1" in _text(tree[0]) and "4 times" in _text(tree[0])
    at.text_input(key="player_tree_query").input("zzz").run()
    assert any("no token spells" in w.value for w in at.warning)


def test_step_and_settings_survive_a_page_switch(at):
    classic(at)
    at.button(key="step").click().run()
    at.button(key="step").click().run()
    at.switch_page("app_pages/tokenize_page.py").run()
    assert step(at) == 2
    at.switch_page("app_pages/player.py").run()
    assert at.session_state["player_sample"] == "aaabdaaabac"
    assert step(at) == 2 and status(at).startswith("Merge 2 / 3")


def test_export_buttons_offer_the_formats_the_run_allows(at):
    classic(at)
    downloads = {d.proto.id.rsplit("-", 1)[1]: d.proto for d in at.get("download_button")}
    assert set(downloads) == {"player_export_hf", "player_export_tiktoken", "player_export_merges"}
    assert not any(d.disabled for d in downloads.values())
    at.radio(key="player_level").set_value("char").run()
    # character-level vocabularies have no tiktoken / GPT-2 byte spelling: those two say why instead
    assert {b.key for b in at.button if b.key and b.key.startswith("player_export") and b.disabled} == {
        "player_export_tiktoken", "player_export_merges"}
    assert any("char level" in c.value for c in at.caption)
