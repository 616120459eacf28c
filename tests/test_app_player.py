"""AppTest: the merge player page driven through its widgets and the player component's reports.

The component plays in the browser; here its data (the run and window payloads, the control) is read from
the page and its reports are simulated (``tests/player_driver.py``): what Python does when the browser says
"paused at merge k". Expected values are hand-worked on ``aaabdaaabac`` (merges ``a a`` x4, ``a b`` x2 tied
with ``aa a``, ``aa ab`` x2; 11 -> 9 -> 7 -> 5 tokens) or read from the sample index, never from the code
under test.
"""

from __future__ import annotations

import player_driver as P
import pytest
from helpers import html_words, open_app, own_script, page_messages, pick_tables, share_link
from streamlit.testing.v1 import AppTest

import appstate.caches
import appstate.keys
import appstate.sources

SUBMIT = "FormSubmitter:player_paste_form-Train on this text"
HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)><b>bold</b>"
CLASSIC = ["a", "a", "a", "b", "d", "a", "a", "a", "b", "a", "c"]


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


def tree(at) -> str:
    bodies = [h.proto.body for h in at.get("html") if 'class="bpe-pl-tree"' in h.proto.body]
    assert len(bodies) == 1
    return html_words(bodies[0])


def tabs(at) -> list[str]:
    return [t.label for t in at.tabs]


def step(at) -> int:
    return at.session_state[appstate.keys.PLAYER_STEP]


def error_texts(at) -> list[str]:
    """Error messages: Streamlit's boxes and the escaped HTML ones that carry user strings."""
    return page_messages(at, "error")


# --------------------------------------------------------------------------- first load


def test_first_load_trains_the_default_sample_and_shows_merge_zero(at):
    first = appstate.sources.samples()[0]
    run = P.run_payload(at)
    assert run["n"] == first.default_vocab_size - 256
    assert P.k(at) == 0 and step(at) == 0
    c = P.control(at)
    assert c["speed"] == 2 and c["tag"] == run["tag"] == P.window(at)["tag"] and not c["quiz"]
    # the curve starts at one token per byte (the whole training text, before any merge)
    assert run["tokens"][0] == run["bytes"]
    assert run["held"] is not None and run["held_bytes"] > 0  # the sample is long enough to hold some out
    assert tabs(at) == ["Merges (0)", "Vocabulary (256)"]
    # the Tokenize page sees the player's run and merge
    assert at.session_state[appstate.keys.PLAYER_RUN][1].vocab_size == first.default_vocab_size


def test_the_run_is_sent_once_while_the_player_moves(at):
    """A report reruns the page, but the run's and the window's data stay the same bytes (Streamlit then
    sends them as cached references), and the player element keeps its identity."""
    before = {
        n: (P.element(at, n).proto.id, P.element(at, n).proto.bytes)
        for n in ("bpe_merge_player", "bpe_merge_player_window")
    }
    P.report(at, 5)
    P.report(at, 7)
    after = {n: (P.element(at, n).proto.id, P.element(at, n).proto.bytes) for n in before}
    assert after == before and P.k(at) == 7 and step(at) == 7


# --------------------------------------------------------------------------- the player's reports


def test_reports_move_every_python_panel_on_the_classic_example(at):
    classic(at)
    assert P.texts(at) == CLASSIC and tabs(at)[0] == "Merges (0)"
    assert "Nothing merged yet" in html_words("".join(h.proto.body for h in at.get("html")))

    P.step(at)
    assert step(at) == 1 and P.k(at) == 1
    assert P.texts(at) == ["aa", "a", "b", "d", "aa", "a", "b", "a", "c"]
    assert tabs(at) == ["Merges (1)", "Vocabulary (257)"]
    assert "was made by merge 1" in tree(at) and "4 times" in tree(at)
    assert at.query_params["merge"] == "1"

    P.step(at)
    assert len(P.texts(at)) == 7 and "was made by merge 2" in tree(at)
    P.step(at, -1)
    assert step(at) == 1
    P.report(at, 0)
    assert step(at) == 0 and P.texts(at) == CLASSIC


def test_the_last_merge(at):
    classic(at)
    P.report(at, 3)
    assert P.texts(at) == ["aaab", "d", "aaab", "a", "c"]
    assert "merge 3" in tree(at) and "2 times" in tree(at)
    P.report(at, 99)  # past the end (a tampered report): the last merge
    assert step(at) == 3


def test_highlighted_tokens_are_the_ones_this_merge_made(at):
    classic(at)
    w = P.window(at)
    made_by_1 = [s for s, f in zip(w["start"], w["from"]) if f == 1]
    assert made_by_1 == [0, 5]  # the two "aa" of aaabdaaabac


def test_reports_about_another_run_or_not_a_number_are_ignored(at):
    classic(at)
    P.report(at, 2, tag="another-run")
    assert step(at) == 0
    P.report(at, "2")
    assert step(at) == 0 and not at.exception
    P.report(at, 1, speed="fast", metric="<b>")
    assert step(at) == 1 and at.session_state[appstate.keys.PLAYER_SPEED] == 2
    assert at.session_state[appstate.keys.PLAYER_METRIC] == "bytes_per_token"


def test_speed_and_metric_reported_by_the_player_are_kept_and_linked(at):
    P.report(at, 4, speed=30, metric="tokens")
    assert at.session_state[appstate.keys.PLAYER_SPEED] == 30 and at.query_params["speed"] == "30"
    c = P.control(at)
    assert c["speed"] == 30 and c["metric"] == "tokens"
    assert "speed=30" in share_link(at)


def test_clicking_a_token_explains_it(at):
    classic(at)
    P.report(at, 2, explain=256)
    assert at.text_input(key="player_tree_query").value == "256"
    assert "was made by merge 1" in tree(at)
    at.button(key="player_tree_newest").click().run()
    assert "was made by merge 2" in tree(at)


def test_python_moves_the_player_only_on_purpose(at):
    """The control's seek number rises for a new run (and a link, a quiz answer), not for a report."""
    classic(at)
    seq = P.control(at)["seq"]
    P.report(at, 2)
    assert P.control(at)["seq"] == seq and P.k(at) == 2
    at.number_input(key="player_merges").set_value(2).run()
    assert P.control(at)["seq"] == seq + 1 and P.k(at) == 0


# --------------------------------------------------------------------------- settings retrain


def test_changing_merges_retrains_and_restarts(at):
    classic(at)
    P.step(at)
    at.number_input(key="player_merges").set_value(2).run()
    assert step(at) == 0 and P.run_payload(at)["n"] == 2


def test_a_merge_budget_the_text_cannot_reach_is_explained(at):
    classic(at)
    at.number_input(key="player_merges").set_value(300).run()
    # aaabdaaabac goes down to one token in 7 merges (11 -> 1); a pair is then no longer there
    assert P.run_payload(at)["n"] == 7
    assert any("This text allowed 7 merges, not 300" in c.value for c in at.caption)


def test_tie_rule_first_seen_changes_the_second_merge(at):
    classic(at)
    at.selectbox(key="player_tie_break").set_value("first").run()
    run = P.run_payload(at)
    # after "aa", the tie between "aa"+"a" (seen first) and "a"+"b" goes the other way
    assert run["pair"][2:4] == [256, 97] and run["label"][257] == "aaa" and "first seen" in run["tie"]


def test_char_level_and_no_pretokenizer(at):
    classic(at)
    at.radio(key="player_level").set_value("char").run()
    at.selectbox(key="player_pattern").set_value("none").run()
    assert not at.exception
    run = P.run_payload(at)
    assert run["unit"] == "character" and run["n"] == 3
    P.step(at)
    assert P.texts(at)[0] == "aa"


def test_nfc_normalization_changes_the_base_tokens(at):
    at.radio(key="player_source").set_value("paste").run()
    at.text_area(key="player_paste").input("cafe\u0301")  # e + combining acute: 6 bytes, 5 in NFC
    at.button(key=SUBMIT).click().run()
    assert len(P.drawn(at)) == 6
    at.checkbox(key="player_nfc").check().run()
    assert len(P.drawn(at)) == 5


def test_special_tokens_of_the_chat_sample(at):
    at.selectbox(key="player_sample").set_value("chat").run()
    assert "<|im_start|>" in at.text_input(key="player_specials").value
    run, w = P.run_payload(at), P.window(at)
    assert w["sp"] and all(run["label"][w["id"][i]] in ("<|im_start|>", "<|im_end|>", "<|endoftext|>") for i in w["sp"])
    assert {run["label"][w["id"][i]] for i in w["sp"]} >= {"<|im_start|>", "<|im_end|>"}


def test_custom_pattern(at):
    classic(at)
    at.selectbox(key="player_pattern").set_value("custom").run()
    at.text_input(key="player_custom_pattern").input("a|[^a]+").run()
    assert not error_texts(at)
    # chunks a a a bd a a a b a c: the only pair inside a chunk is "bd", so one merge, then training stops
    assert P.run_payload(at)["n"] == 1


# --------------------------------------------------------------------------- sources and bad input


def test_pasted_markup_travels_as_text(at):
    at.radio(key="player_source").set_value("paste").run()
    at.text_area(key="player_paste").input(HOSTILE)
    at.button(key=SUBMIT).click().run()
    assert not error_texts(at) and not at.exception
    run = P.run_payload(at)
    P.report(at, min(5, run["n"]))
    shown = "".join(P.texts(at)).replace("·", " ")
    assert shown == HOSTILE  # every character, as labels (drawn as text)
    for piece in run["piece"].values():  # the only HTML the browser inserts: escaped
        assert "<script" not in piece and "<img" not in piece and "<b>" not in piece
    for h in at.get("html"):
        assert own_script(h.proto.body) or "<script" not in h.proto.body
        assert "<img" not in h.proto.body and "<b>bold" not in h.proto.body


def test_empty_paste_gives_a_message_and_the_app_recovers(at):
    at.radio(key="player_source").set_value("paste").run()
    at.button(key=SUBMIT).click().run()
    assert any("empty" in e for e in error_texts(at))
    assert not P.mounted(at)
    at.radio(key="player_source").set_value("sample").run()
    assert not error_texts(at) and P.mounted(at) and P.k(at) == 0


def test_invalid_regex_gives_a_message_and_the_app_recovers(at):
    at.selectbox(key="player_pattern").set_value("custom").run()
    at.text_input(key="player_custom_pattern").input("(unclosed").run()
    assert any("not a valid regex" in e for e in error_texts(at))
    assert not at.exception
    at.selectbox(key="player_pattern").set_value("gpt2").run()
    assert not error_texts(at) and P.k(at) == 0


def test_too_large_paste_is_refused_with_its_size(at):
    at.radio(key="player_source").set_value("paste").run()
    # Over the box's character limit: refused whole, as a browser does (nothing reaches the server).
    at.text_area(key="player_paste").input("x" * (appstate.sources.MAX_TRAIN_BYTES + 10))
    at.button(key=SUBMIT).click().run()
    assert not at.exception and len(at.text_area(key="player_paste").value) <= appstate.sources.MAX_TRAIN_BYTES
    # Within the character limit but over the byte limit (2-byte characters): refused with its size.
    at.text_area(key="player_paste").input("ü" * (appstate.sources.MAX_TRAIN_BYTES // 2 + 10))
    at.button(key=SUBMIT).click().run()
    assert any("at most" in e for e in error_texts(at))


def test_upload_prompt_without_a_file(at):
    at.radio(key="player_source").set_value("upload").run()
    assert any("Upload a .txt file" in e for e in error_texts(at))


# --------------------------------------------------------------------------- panels, windows, state sharing


def test_merge_tree_follows_the_merge_or_a_typed_token(at):
    classic(at)
    P.report(at, 3)
    assert "merge 3" in tree(at) and "2 times" in tree(at)
    at.text_input(key="player_tree_query").input("256").run()
    assert "was made by merge 1" in tree(at) and "4 times" in tree(at)
    at.text_input(key="player_tree_query").input("zzz").run()
    assert any("no token spells" in w for w in page_messages(at, "warning"))


def test_merges_table_lists_left_and_right_tokens(at):
    classic(at)
    P.report(at, 2)
    frame, vocab = pick_tables(at)
    assert list(frame["merge"]) == [2, 1] and list(frame["left"]) == ["a", "a"] and list(frame["right"]) == ["b", "a"]
    assert list(frame["new token"]) == ["ab", "aa"] and list(frame["count"]) == [2, 4]
    assert "id" not in frame and frame["ids"] == [257, 256]  # a pick reports the new token's id
    assert vocab["id"][:2] == [257, 256] and vocab["made by"][:2] == ["merge 2", "merge 1"]
    assert not at.dataframe  # no data grid on the player


def test_a_long_text_is_drawn_as_a_window_that_can_move_to_a_merge(at):
    at.radio(key="player_source").set_value("paste").run()
    # "zq" occurs only after the first window (and before the last 10%, held out of training)
    text = "plain words here. " * 150 + "zqzq zqzq zqzq " + "plain words here. " * 60
    at.text_area(key="player_paste").input(text)
    at.button(key=SUBMIT).click().run()
    w = P.window(at)
    assert w["chars"] <= appstate.caches.WINDOW_CHARS < w["total"]
    run = P.run_payload(at)
    zq = next(r for r in range(run["n"]) if run["label"][run["base"] + r] == "zq")
    P.report(at, zq + 1)
    assert not any(f == zq + 1 for f in P.window(at)["from"])  # none in this window...
    at.button(key="player_to_occurrence").click().run()
    w = P.window(at)
    assert w["first"] > 0 and any(f == zq + 1 for f in w["from"])  # ...then the window moved to one
    assert P.k(at) == zq + 1


def test_step_and_settings_survive_a_page_switch(at):
    classic(at)
    P.report(at, 2)
    at.switch_page("app_pages/tokenize_page.py").run()
    assert step(at) == 2
    at.switch_page("app_pages/player.py").run()
    assert at.session_state["player_sample"] == "aaabdaaabac"
    assert step(at) == 2 and P.k(at) == 2


def test_export_buttons_offer_the_formats_the_run_allows(at):
    classic(at)
    downloads = {d.proto.id.rsplit("-", 1)[1]: d.proto for d in at.get("download_button")}
    # the tokenizer's formats, and the run as a web page (tests/browser/test_player_use_browser.py opens it)
    assert set(downloads) == {"player_export_hf", "player_export_tiktoken", "player_export_merges", "player_run_page"}
    assert not any(d.disabled for d in downloads.values())
    at.radio(key="player_level").set_value("char").run()
    # character-level vocabularies have no tiktoken / GPT-2 byte spelling: those two say why instead
    assert {b.key for b in at.button if b.key and b.key.startswith("player_export") and b.disabled} == {
        "player_export_tiktoken",
        "player_export_merges",
    }
    assert any("char level" in m for m in page_messages(at, "info"))


def test_presenter_and_palette_reach_the_player(at):
    at.toggle(key="presenter").set_value(True).run()
    assert P.control(at)["presenter"] is True
    default = P.run_payload(at)["palette"]
    at.radio(key="palette").set_value("okabe_ito").run()
    assert P.run_payload(at)["palette"] != default and P.run_payload(at)["accent"]["winner"] == "#D55E00"


def test_sentencepiece_level_plays_merges_of_words_with_their_space_as_a_leading_bar(at):
    """The classic sample's text as SentencePiece-style: "aaabdaaabac" has no space, so the text becomes
    "▁aaabdaaabac" (one ▁ in front): the base is a b c d ▁ (5), and by hand with the HF tie rule the first merge
    is (a, a) counted 4 (overlaps), the drawn text starts with the ▁ token."""
    classic(at)
    at.radio(key="player_level").set_value("sentencepiece").run()
    at.selectbox(key="player_tie_break").set_value("hf").run()
    assert not at.exception and not error_texts(at)
    run = P.run_payload(at)
    assert run["unit"] == "character" and run["base"] == 5 and run["tokens"][0] == 12
    assert run["label"][:5] == ["a", "b", "c", "d", "▁"] and run["count"][0] == 4
    assert P.texts(at, 0)[:2] == ["▁", "a"]
    P.step(at)
    assert "aa" in P.texts(at)
    # the pre-tokenizer is not used at this level: its picker is off and says so (the review of 29 Nov)
    assert at.selectbox(key="player_pattern").disabled
    assert any("Not used at the SentencePiece-style level" in c.value for c in at.sidebar.caption)
    at.radio(key="player_level").set_value("byte").run()
    assert not at.selectbox(key="player_pattern").disabled


# --------------------------------------------------------------------------- SentencePiece-style: coverage

RARE = "aaaaaaaaa bbbbbbbbbz"  # as the tokenizer sees it: ▁aaaaaaaaa▁bbbbbbbbbz, 21 characters: a 9, b 9, ▁ 2, z 1


def P_open(**kwargs) -> AppTest:
    at = open_app(**kwargs)
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_character_coverage_sends_the_rarest_character_to_byte_fallback_and_is_linked():
    """By hand: coverage 0.9995 must keep 20.99 of the 21 characters, so all four (▁ a b z) are the alphabet;
    coverage 0.95 is reached at 20 (a, b, ▁): z is left out and drawn as its byte, <0x7A>."""
    at = P_open(query={"text": RARE, "level": "sentencepiece", "tie": "hf", "merges": "2"})
    box = at.selectbox(key=appstate.keys.PLAYER_COVERAGE)
    assert box.value == 0.9995 and "sentencepiece's default" in box.format_func(box.value)
    run = P.run_payload(at)
    assert run["base"] == 4 and P.texts(at, 0) == ["▁"] + ["a"] * 9 + ["▁"] + ["b"] * 9 + ["z"]
    assert at.query_params["coverage"] == "0.9995"
    box.set_value(0.95).run()
    assert not at.exception and not error_texts(at)
    run = P.run_payload(at)
    assert run["base"] == 3 and P.texts(at, 0)[-1] == "<0x7A>" and len(P.texts(at, 0)) == 21
    z = P.drawn(at, 0)[-1][1]
    assert z in run["fallback"] and 'class="bpe-bf"' in run["piece"][str(z)]
    assert at.query_params["coverage"] == "0.95" and "coverage=0.95" in share_link(at)
    assert tabs(at) == ["Merges (0)", "Vocabulary (3 + 256 byte tokens)"]
    # the vocabulary table lists the 256 byte-fallback tokens; the summary names the family, not "metaspace"
    vocab = [t for t in pick_tables(at) if "made by" in t][0]
    rows = [(tok, by) for tok, by in zip(vocab["token"], vocab["made by"]) if by == "byte fallback"]
    assert len(rows) == 256 and rows[0][0] == "<0x00>" and ("<0x7A>", "byte fallback") in rows
    summary = html_words(" ".join(h.proto.body for h in at.get("html") if "Training on" in h.proto.body))
    assert "SentencePiece-style" in summary and "character coverage 0.95: 3 characters" in summary
    assert "metaspace" not in summary
    # a click on the byte token explains it
    P.report(at, 0, explain=z)
    assert "byte-fallback token" in tree(at) and "byte 0x7A" in tree(at)


def test_the_coverage_box_shows_only_for_the_sentencepiece_level_and_a_link_restores_it(at):
    assert appstate.keys.PLAYER_COVERAGE not in [s.key for s in at.selectbox]
    assert "coverage" not in at.query_params
    assert "SentencePiece-style (▁)" in at.radio(key="player_level").options
    at2 = P_open(query={"text": RARE, "level": "sentencepiece", "coverage": "0.99", "merge": "1"})
    assert at2.session_state[appstate.keys.PLAYER_COVERAGE] == 0.99 and P.k(at2) == 1
    assert not any("coverage" in n for n in at2.session_state[appstate.keys.PLAYER_NOTES])


@pytest.mark.parametrize("raw", ["abc", "0.5", "nan", "1e0", "-1", "<b>x</b>", "2"])
def test_a_tampered_coverage_falls_back_to_the_default_with_a_note(raw):
    at = P_open(query={"text": RARE, "level": "sentencepiece", "coverage": raw})
    assert not at.exception and at.session_state[appstate.keys.PLAYER_COVERAGE] == 0.9995
    notes = " ".join(at.session_state[appstate.keys.PLAYER_NOTES])
    assert "coverage=" in notes and "not one of the coverages offered" in notes and "using 0.9995" in notes
    assert P.run_payload(at)["base"] == 4 and at.query_params["coverage"] == "0.9995"
    assert "<b>x</b>" not in " ".join(h.proto.body for h in at.get("html"))
