"""AppTest: share links of the merge player (restore, tampered parameters), the shared presenter/palette
parameters, and the player's "predict the next merge" quiz.

Hand-worked values: ``aaabdaaabac`` at byte level, no pre-tokenizer, lexical ties: merges ``a a`` (count 4),
``a b`` (2, tied with ``aa a``), ``aa ab`` (2).
"""

from __future__ import annotations

import player_driver as P
import pytest
from helpers import open_app, page_html, share_link
from streamlit.testing.v1 import AppTest

import appstate.keys
import appstate.player_state
import appstate.sources


def notes(at) -> str:
    return "\n".join(h.proto.body for h in at.get("html") if "bpe-pl-notes" in h.proto.body)


def test_link_restores_pasted_text_settings_and_merge():
    at = open_app(
        query={
            "text": "low lower lowest newer newest",
            "merges": "9",
            "pattern": r"\w+|\s+",
            "level": "char",
            "tie": "first",
            "nfc": "1",
            "special": "<|x|>",
            "merge": "4",
        }
    )
    ss = at.session_state
    assert (
        ss[appstate.keys.PLAYER_SOURCE] == "paste" and ss[appstate.keys.PLAYER_PASTE] == "low lower lowest newer newest"
    )
    assert ss[appstate.keys.PLAYER_MERGES] == 9 and ss[appstate.keys.PLAYER_PATTERN] == "custom"
    assert ss[appstate.keys.PLAYER_CUSTOM_PATTERN] == r"\w+|\s+"
    assert (
        ss[appstate.keys.PLAYER_LEVEL] == "char"
        and ss[appstate.keys.PLAYER_TIE_BREAK] == "first"
        and ss[appstate.keys.PLAYER_NFC] is True
    )
    assert ss[appstate.keys.PLAYER_SPECIALS] == "<|x|>"
    assert ss[appstate.keys.PLAYER_STEP] == 4 and P.k(at) == 4 and P.run_payload(at)["n"] == 9
    assert not notes(at)
    # ... and writes it back, in the documented names
    qp = at.query_params
    assert qp["text"] == "low lower lowest newer newest" and qp["merges"] == "9" and qp["merge"] == "4"
    assert qp["pattern"] == r"\w+|\s+" and qp["level"] == "char" and qp["tie"] == "first" and qp["nfc"] == "1"
    assert qp["special"] == "<|x|>" and "sample" not in qp
    assert share_link(at).startswith("?text=low+lower")
    # the player pausing one merge later moves the URL's merge
    P.step(at)
    assert at.query_params["merge"] == "5" and "merge=5" in share_link(at)


def test_link_restores_a_sample_and_registry_pattern():
    at = open_app(query={"sample": "aaabdaaabac", "pattern": "none", "merge": "2"})
    assert (
        at.session_state[appstate.keys.PLAYER_SAMPLE] == "aaabdaaabac"
        and at.session_state[appstate.keys.PLAYER_PATTERN] == "none"
    )
    assert P.k(at) == 2 and P.run_payload(at)["n"] == 3 and not notes(at)
    assert at.query_params["sample"] == "aaabdaaabac" and at.query_params["merges"] == "3"


def test_no_link_writes_the_defaults():
    at = open_app()
    assert at.query_params["merge"] == "0" and at.query_params["sample"] == appstate.sources.samples()[0].key
    assert at.query_params["speed"] == "2"
    assert not notes(at)


def test_link_restores_the_speed():
    at = open_app(query={"sample": "aaabdaaabac", "speed": "30", "merge": "1"})
    assert P.control(at)["speed"] == 30 and at.query_params["speed"] == "30" and P.k(at) == 1
    at = open_app(query={"speed": "7"})
    assert P.control(at)["speed"] == 2 and "speed='7'" in notes(at).replace("&#x27;", "'")


@pytest.mark.parametrize(
    "query, words",
    [
        ({"merge": "-5"}, ["merge=-5", "showing merge 0"]),
        ({"merges": "abc"}, ["merges='abc'", "not a whole number"]),
        ({"vocab": "abc"}, ["vocab='abc'", "not a whole number"]),
        ({"pattern": "("}, ["pattern='('", "not a valid regex", "using gpt4"]),
        ({"pattern": "gpt-4"}, ["pattern='gpt-4'", "not a pre-tokenizer name (did you mean gpt4?)", "using gpt4"]),
        ({"sample": "<b>nope</b>"}, ["sample='<b>nope</b>'", "not one of"]),
        ({"level": "bits", "tie": "coin", "nfc": "maybe"}, ["level='bits'", "tie='coin'", "nfc='maybe'"]),
        ({"text": "x" * 2001}, ["2,001 characters"]),
        ({"presenter": "maybe", "palette": "neon"}, ["presenter='maybe'", "palette='neon'"]),
        ({"speed": "fast"}, ["speed='fast'", "using 2"]),
    ],
)
def test_tampered_links_fall_back_to_defaults_with_a_note(query, words):
    at = open_app(query=query)
    ss = at.session_state
    first = appstate.sources.samples()[0]
    assert ss[appstate.keys.PLAYER_SOURCE] == "sample" and ss[appstate.keys.PLAYER_SAMPLE] == first.key
    assert ss[appstate.keys.PLAYER_MERGES] == appstate.player_state.sample_defaults(first)[appstate.keys.PLAYER_MERGES]
    assert (
        ss[appstate.keys.PLAYER_PATTERN] == "gpt4"
        and ss[appstate.keys.PLAYER_LEVEL] == "byte"
        and ss[appstate.keys.PLAYER_STEP] == 0
    )
    assert ss[appstate.keys.PLAYER_TIE_BREAK] == "lexical" and ss[appstate.keys.PLAYER_NFC] is False
    raw = notes(at)
    for w in words:
        assert w.replace("'", "&#x27;").replace("<", "&lt;").replace(">", "&gt;") in raw, (w, raw)
    assert "<b>nope" not in raw
    assert P.k(at) == 0 and not at.error
    # the URL now holds what is shown; the note goes once the user moves on
    assert at.query_params["merge"] == "0"
    P.step(at)
    assert not notes(at)


def test_merge_beyond_the_run_shows_the_last_with_a_note():
    at = open_app(query={"sample": "aaabdaaabac", "pattern": "none", "merge": "50"})
    assert P.k(at) == 3 and P.run_payload(at)["n"] == 3 and "merge=50" in notes(at)


def test_the_link_is_a_copy_link_box_not_a_code_block():
    # st.code made every fresh page load Streamlit's syntax highlighter (1.6 MB) for this one link
    at = open_app(query={"sample": "english", "merge": "3"})
    assert len(at.code) == 0
    assert share_link(at).endswith(
        "?sample=english&merges=256&pattern=gpt4&level=byte&tie=lexical&nfc=0&speed=2&merge=3"
    )
    P.report(at, 6)  # a step of the player: the same box, a new link
    assert share_link(at).endswith("&merge=6") and len(at.code) == 0


def test_presenter_and_palette_from_the_link_on_the_player():
    at = open_app(query={"presenter": "1", "palette": "okabe_ito"})
    assert at.session_state["presenter"] is True and at.session_state["palette"] == "okabe_ito"
    assert at.toggle(key="presenter").value is True
    assert "font-size:23px" in page_html(at)  # presenter CSS
    assert at.query_params["presenter"] == "1" and at.query_params["palette"] == "okabe_ito"
    assert "presenter=1" in share_link(at) and "palette=okabe_ito" in share_link(at)
    at.toggle(key="presenter").set_value(False).run()
    assert "presenter" not in at.query_params and "font-size:23px" not in page_html(at)


# --- predict the next merge -----------------------------------------------------------------------------


def quiz_player() -> AppTest:
    at = open_app(query={"sample": "aaabdaaabac", "pattern": "none"})
    assert at.session_state["player_quiz"] is False  # off by default
    at.toggle(key="player_quiz").set_value(True).run()
    assert not at.exception
    return at


def pick(at, label: str) -> AppTest:
    r = P.quiz_radio(at)
    r.set_value(r.options.index(label) if label in r.options else int(label)).run()
    at.button(key="player_quiz_check").click().run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_quiz_right_and_wrong_answers_are_counted_and_revealed():
    at = quiz_player()
    assert P.k(at) == 0 and P.control(at)["quiz"] is True  # the player hides the answer (chart, first merge)
    labels = list(P.quiz_radio(at).options)
    right = next(i for i, label in enumerate(labels) if label.replace(" ", "").replace("\\", "") in ("(a,a)",))
    pick(at, str(right))
    assert at.session_state[appstate.keys.PLAYER_STEP] == 1 and P.k(at) == 1  # revealed: the player moved on
    assert 'data-right="1"' in page_html(at) and "Quiz score: 1 / 1" in page_html(at)
    # merge 2: (a, b) and (aa, a) tie at 2; anything else is wrong
    labels = list(P.quiz_radio(at).options)
    wrong = next(
        i for i, label in enumerate(labels) if label.replace(" ", "").replace("\\", "") not in ("(a,b)", "(aa,a)")
    )
    pick(at, str(wrong))
    assert at.session_state[appstate.keys.PLAYER_STEP] == 2
    assert 'class="cls-verdict cls-wrong"' in page_html(at) and "Quiz score: 1 / 2" in page_html(at)
    assert list(at.session_state["quiz_results"].values()) == [True, False]


def test_quiz_tie_counts_as_right():
    at = quiz_player()
    P.step(at)  # stepping works with the quiz on (skips a question)
    labels = list(P.quiz_radio(at).options)
    tied = next(i for i, label in enumerate(labels) if label.replace(" ", "").replace("\\", "") == "(aa,a)")
    pick(at, str(tied))
    body = page_html(at)
    assert "cls-right" in body and "tie" in body and "lexical" in body
    assert "Quiz score: 1 / 1" in body


def test_quiz_next_question_starts_with_nothing_picked():
    """Issues 25 and 34: a pick belongs to its question. After a check, and after the player moves on without
    one, the next question is a radio of its own with nothing picked, and no pick is kept for another question;
    checking then scores nothing."""
    at = quiz_player()
    labels = list(P.quiz_radio(at).options)
    pick(at, str(next(i for i, label in enumerate(labels) if label.replace(" ", "").replace("\\", "") == "(a,b)")))
    assert "Quiz score: 0 / 1" in page_html(at)  # (a, a) occurs 4 times: (a, b) is wrong at merge 1
    assert P.quiz_radio(at).key.endswith(":2") and P.quiz_radio(at).value is None  # merge 2's own radio
    at.button(key="player_quiz_check").click().run()
    assert "Pick a pair first" in page_html(at) + " ".join(c.value for c in at.caption)
    assert "Quiz score: 0 / 1" in page_html(at) and P.k(at) == 1
    # picked, not checked, and the player steps: the next question opens empty
    P.quiz_radio(at).set_value(0).run()
    P.step(at)
    assert P.k(at) == 2 and P.quiz_radio(at).value is None
    # "Pick a pair first" was said about the last question: not shown with this one until its own Check
    assert not any("Pick a pair first" in c.value for c in at.caption)
    at.button(key="player_quiz_check").click().run()
    assert any("Pick a pair first" in c.value for c in at.caption)
    assert "Quiz score: 0 / 1" in page_html(at) and P.k(at) == 2


def test_quiz_question_asked_again_opens_empty():
    """Issue 34: a pick left on a question does not come back when the player returns to it (a step on and
    back), and a check then scores nothing."""
    at = quiz_player()
    P.quiz_radio(at).set_value(0).run()
    assert P.quiz_radio(at).value == 0
    P.step(at)
    assert P.quiz_radio(at).key.endswith(":2") and P.quiz_radio(at).value is None
    P.step(at, -1)
    assert P.quiz_radio(at).key.endswith(":1") and P.quiz_radio(at).value is None
    at.button(key="player_quiz_check").click().run()
    assert "Pick a pair first" in page_html(at) + " ".join(c.value for c in at.caption) and P.k(at) == 0


def test_quiz_off_stepping_still_works_and_the_answer_is_shown():
    at = open_app(query={"sample": "aaabdaaabac", "pattern": "none"})
    assert P.quiz_radio(at) is None
    assert P.control(at)["quiz"] is False
    P.step(at)
    assert P.k(at) == 1 and not at.exception


def test_quiz_seek_moves_the_player_once():
    """Check and reveal raises the control's seek number: the browser player jumps to the revealed merge."""
    at = quiz_player()
    seq = P.control(at)["seq"]
    labels = list(P.quiz_radio(at).options)
    pick(at, str(next(i for i, label in enumerate(labels) if label.replace(" ", "").replace("\\", "") == "(a,a)")))
    assert P.control(at)["seq"] == seq + 1 and P.k(at) == 1
    P.step(at)  # the browser's next report does not move it again
    assert P.control(at)["seq"] == seq + 1 and P.k(at) == 2


def test_a_link_with_the_course_tie_rule_restores_it():
    at = open_app(query={"sample": "english", "tie": "max_bytes", "merges": "50"})
    assert at.session_state[appstate.keys.PLAYER_TIE_BREAK] == "max_bytes" and not at.exception
    assert "greatest bytes" in page_html(at)


def test_a_bad_merges_with_a_sample_names_no_number_it_does_not_train():
    """The review of 29 Nov: ``?sample=multilingual&level=char&merges=100000`` said "showing merges 256" and
    trained the sample's own 384."""
    at = open_app(query={"sample": "multilingual", "level": "char", "merges": "100000"})
    sample = next(s for s in appstate.sources.samples() if s.key == "multilingual")
    trained = at.session_state[appstate.keys.PLAYER_MERGES]
    assert trained == appstate.player_state.sample_defaults(sample)[appstate.keys.PLAYER_MERGES]
    raw = notes(at)
    assert "merges=100000" in raw and "outside 1–" in raw, raw
    assert "showing merges" not in raw and "uses its own number of merges" in raw, raw
    assert at.query_params["merges"] == str(trained) and not at.error
