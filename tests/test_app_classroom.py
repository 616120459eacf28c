"""The Classroom page through Streamlit's AppTest: walk every lesson to its end, the quiz, share links.

What each step shows is read back from the page's HTML and checked against values worked by hand
(11 -> 9 -> 7, the pieces of ``unbelievably``, ``aab`` merged out of order).
"""

from __future__ import annotations

import html
import re

import pytest
from helpers import click, html_bodies, open_app, page_html, share_link
from streamlit.testing.v1 import AppTest

from views import lessons

PAGE = "app_pages/classroom.py"


def open_page(query: dict | None = None) -> AppTest:
    """The Classroom opened by a link (``query``), straight on the page."""
    return open_app(PAGE, query=query, timeout=30)


def where(at) -> tuple[int, int, int]:
    """(lesson, step, steps) as the page's step indicator shows them."""
    m = re.search(r'class="cls-head" data-lesson="(\d+)" data-step="(\d+)" data-steps="(\d+)"', page_html(at))
    assert m, "no step header on the page"
    return tuple(int(x) for x in m.groups())


def rows(at) -> list[tuple[str, int, list[str]]]:
    """Every row of big token boxes: (label, token count, the tokens)."""
    out = []
    for m in re.finditer(r'<div class="cls-row [^"]*" data-n="(\d+)"[^>]*>(.*?)</div>', page_html(at)):
        label = re.search(r'class="cls-rowlabel">([^<]*)<', m.group(2))
        toks = re.findall(r'data-tok="([^"]*)"', m.group(2))
        out.append((label.group(1) if label else "", int(m.group(1)), toks))
    return out


def notes(at) -> str:
    return "\n".join(b for b in html_bodies(at) if 'class="cls-notes"' in b)


# --- navigation and what each step shows ----------------------------------------------------------------


def test_opens_on_lesson_1_step_1_and_writes_the_url():
    at = open_page()
    assert where(at) == (1, 1, 7)
    assert at.query_params.get("lesson") == "1" and at.query_params.get("step") == "1"
    assert "presenter" not in at.query_params
    assert at.button(key="lesson_back").disabled
    assert rows(at)[0] == ("the text", 11, list("aaabdaaabac"))
    assert not notes(at)


def test_walk_lesson_1_to_its_end():
    at = open_page()
    seen = {}
    for step in range(1, 8):
        assert where(at) == (1, step, 7)
        assert at.query_params["step"] == str(step)
        seen[step] = (rows(at), page_html(at))
        if step < 7:
            click(at, "lesson_next")
    # 11 tokens to start; the pairs counted with the (a,a) x4 winner
    assert seen[1][0][0][1] == 11
    assert 'data-pair="(a, a)" data-count="4"' in seen[3][1] and "merged next" in seen[3][1]
    # merge 1: (a,a) -> Z, 11 -> 9
    after1 = [r for r in seen[4][0] if r[0] == "after merge 1"][0]
    assert after1[1:] == (9, ["Z", "a", "b", "d", "Z", "a", "b", "a", "c"])
    assert 'data-counts="11,9"' in seen[4][1]
    # the tie at merge 2: (Z,a) and (a,b) both 2, each rule's pick listed
    assert 'data-pair="(Z, a)" data-count="2"' in seen[6][1] and 'data-pair="(a, b)" data-count="2"' in seen[6][1]
    assert "first-seen" in seen[6][1] and "lexical" in seen[6][1] and "Hugging Face" in seen[6][1]
    # merge 2: (a,b) -> Y, 9 -> 7, and the whole story 11 -> 9 -> 7
    after2 = [r for r in seen[7][0] if r[0] == "after merge 2"][0]
    assert after2[1:] == (7, ["Z", "Y", "d", "Z", "Y", "a", "c"])
    assert 'data-counts="11,9,7"' in seen[7][1]
    assert "Z = aa" in seen[7][1] and "Y = ab" in seen[7][1]
    # the last step offers the next lesson in the Next button's place
    assert at.button(key="lesson_next").label.startswith("Next lesson")


def test_walk_every_lesson_to_its_end_with_next():
    at = open_page()
    visited = []
    for _ in range(200):
        visited.append(where(at)[:2])
        if at.button(key="lesson_next").disabled:
            break
        click(at, "lesson_next")
    expected = [(n, s) for n in range(1, 9) for s in range(1, len(lessons.lesson(n).steps) + 1)]
    assert visited == expected
    assert at.query_params["lesson"] == "8" and at.query_params["step"] == str(len(lessons.lesson(8).steps))


def test_lesson_2_compression_shows_the_curve():
    at = open_page({"lesson": "2", "step": "2"})
    assert 'data-counts="23,20,17,14,11,8"' in page_html(at)  # hello hello hello world, 3 tokens per merge
    click(at, "lesson_next")
    charts = at.get("plotly_chart")
    assert len(charts) == 1
    import json

    spec = json.loads(charts[0].proto.spec)
    assert spec["data"][0]["y"][0] == 1.0 and len(spec["data"][0]["x"]) == 301


def test_lesson_3_unbelievably_pieces():
    at = open_page({"lesson": "3", "step": "4"})
    body = page_html(at)
    tokens_row = re.search(r'<span class="cls-rowlabel">tokens</span>(.*?)<span class="cls-n">', body).group(1)
    assert re.findall(r'class="cls-chip[^"]*"[^>]*>([^<]*)<', tokens_row) == ["un", "believ", "abl", "y"]
    assert "cls-alert" in tokens_row  # 'y' was never seen


def test_lesson_5_out_of_order():
    at = open_page({"lesson": "5", "step": "2"})
    assert rows(at)[-1][1:] == (1, ["Y"])  # in order: aab -> Z b -> Y
    click(at, "lesson_next")
    r = rows(at)
    assert r[1][0] == "apply #2 (nothing to merge)" and r[1][1:] == (3, ["a", "a", "b"])
    assert r[-1][1:] == (2, ["Z", "b"])  # out of order: a merge missed


def test_back_crosses_to_the_previous_lesson_and_picker_jumps():
    at = open_page({"lesson": "2", "step": "1"})
    assert at.button(key="lesson_back").label.startswith("◀ Previous lesson")
    click(at, "lesson_back")
    assert where(at) == (1, 7, 7)
    at.selectbox(key="lesson_pick").set_value(6).run()
    assert where(at) == (6, 1, 3) and at.query_params["lesson"] == "6" and at.query_params["step"] == "1"
    assert "12 characters" in page_html(at) and "17 bytes" in page_html(at)


def test_last_step_of_last_lesson_disables_next():
    last8 = len(lessons.lesson(8).steps)
    at = open_page({"lesson": "8", "step": str(last8)})
    assert where(at) == (8, last8, last8) and at.button(key="lesson_next").disabled
    assert "&lt;0x73&gt;" in page_html(at)  # the two families' lesson ends on byte fallback, escaped
    last = len(lessons.lesson(7).steps)
    at = open_page({"lesson": "7", "step": str(last)})
    assert where(at) == (7, last, last) and not at.button(key="lesson_next").disabled
    body = page_html(at)
    # learned pieces of the markers when they are plain text (escaped), none when they are special
    plain, special = body.split("markers declared special")
    assert "&lt;|" in plain.split("markers as plain text")[1] and "<|" not in body
    assert '<span class="cls-note">none</span>' in special


# --- share links ----------------------------------------------------------------------------------------


def test_link_restores_lesson_step_and_presenter():
    at = open_page({"lesson": "1", "step": "3", "presenter": "1"})
    assert where(at) == (1, 3, 7)
    assert at.session_state["presenter"] is True and at.toggle(key="presenter").value is True
    assert at.query_params["presenter"] == "1"
    assert "font-size:23px" in page_html(at)  # the presenter CSS is on the page
    link = share_link(at)
    assert link == "?lesson=1&step=3&presenter=1"
    # turning presenter view off drops it from the URL
    at.toggle(key="presenter").set_value(False).run()
    assert "presenter" not in at.query_params and "font-size:23px" not in page_html(at)


def test_share_link_uses_the_apps_address():
    at = AppTest.from_file("../app.py", default_timeout=30)
    at.context = {"url": "http://lab.example:8501/classroom"}
    at.query_params["lesson"] = "4"
    at.query_params["step"] = "2"
    at.switch_page(PAGE).run()
    assert share_link(at) == "http://lab.example:8501/classroom?lesson=4&step=2"


@pytest.mark.parametrize(
    "query, expect_where, words",
    [
        ({"lesson": "99"}, (1, 1), ["lesson=99", "1–8", "lesson 1"]),
        ({"lesson": "99", "step": "3"}, (1, 1), ["lesson=99"]),
        ({"lesson": "2", "step": "-5"}, (2, 1), ["step=-5", "1–3", "step 1"]),
        ({"lesson": "1", "step": "abc"}, (1, 1), ["step='abc'", "not a whole number"]),
        ({"lesson": "x<b>y</b>", "step": "2"}, (1, 1), ["not a whole number", "lesson='x<b>y</b>'"]),
        ({"lesson": "3", "step": "2", "presenter": "maybe"}, (3, 2), ["presenter='maybe'"]),
    ],
)
def test_tampered_links_fall_back_with_a_note(query, expect_where, words):
    at = open_page(query)
    assert where(at)[:2] == expect_where
    raw = notes(at)
    assert raw, "a tampered link must say what it did"
    text = html.unescape(raw)
    for w in words:
        assert w in text, (w, text)
    assert "<b>y</b>" not in raw  # shown as text, not markup
    # the URL now holds the values shown
    assert at.query_params["lesson"] == str(expect_where[0]) and at.query_params["step"] == str(expect_where[1])
    # the note goes away once the teacher moves on
    click(at, "lesson_next")
    assert not notes(at)


def test_link_read_once_then_session_state_wins():
    at = open_page({"lesson": "4", "step": "2"})
    click(at, "lesson_next")
    assert where(at)[:2] == (4, 3)
    at.switch_page("app_pages/player.py").run()
    at.switch_page(PAGE).run()
    assert where(at)[:2] == (4, 3)


# --- the quiz ------------------------------------------------------------------------------------------


def quiz_options(at, quiz_id: str) -> list[str]:
    radio = at.radio(key=f"quiz_pick_{quiz_id}")
    return [str(o) for o in radio.options]


def answer(at, quiz_id: str, label: str) -> AppTest:
    quiz = {q.id: q for s in lessons.lesson(1).steps if (q := s.quiz)}[quiz_id]
    idx = [o.label for o in quiz.options].index(label)
    at.radio(key=f"quiz_pick_{quiz_id}").set_value(idx).run()
    return click(at, "quiz_check")


def score(at) -> tuple[int, int]:
    m = re.search(r'class="cls-score" data-right="(\d+)" data-answered="(\d+)"', page_html(at))
    return int(m.group(1)), int(m.group(2))


def test_quiz_counts_a_right_and_a_wrong_answer():
    at = open_page({"lesson": "1", "step": "2"})
    assert score(at) == (0, 0)
    assert quiz_options(at, "l1s2") == ["(a, a)", "(a, b)", "(b, d)", "(d, a)", "(b, a)", "(a, c)"]
    answer(at, "l1s2", "(a, a)")
    assert score(at) == (1, 1) and "Quiz score: 1 / 1" in page_html(at)
    assert 'data-right="1"' in page_html(at) and "occurs 4 times" in page_html(at)
    assert at.radio(key="quiz_pick_l1s2").disabled  # one answer per question
    for _ in range(3):
        click(at, "lesson_next")
    assert where(at)[:2] == (1, 5)
    answer(at, "l1s5", "(b, d)")
    assert score(at) == (1, 2) and "Quiz score: 1 / 2" in page_html(at)
    assert 'class="cls-verdict cls-wrong"' in page_html(at)
    # going back shows the earlier answer, graded, without counting it again
    for _ in range(3):
        click(at, "lesson_back")
    assert where(at)[:2] == (1, 2) and score(at) == (1, 2) and "cls-verdict cls-right" in page_html(at)
    click(at, "quiz_reset")
    assert score(at) == (0, 0) and not at.radio(key="quiz_pick_l1s2").disabled
    # nothing selected after a reset (issue 25): the pick is None, so the browser clears it too
    assert at.radio(key="quiz_pick_l1s2").value is None and at.session_state["quiz_pick_l1s2"] is None
    click(at, "quiz_check")
    assert score(at) == (0, 0)


def test_quiz_tie_counts_as_right_with_the_rule():
    at = open_page({"lesson": "1", "step": "5"})
    answer(at, "l1s5", "(Z, a)")
    body = page_html(at)
    assert score(at) == (1, 1) and "cls-verdict cls-right" in body
    assert "tie" in body and "lexical" in body


def test_check_without_a_choice_asks_for_one():
    at = open_page({"lesson": "1", "step": "2"})
    click(at, "quiz_check")
    assert score(at) == (0, 0)
    assert any("Pick a pair first" in c.value for c in at.caption)


def test_one_token_is_not_called_tokens():
    """The review of 29 Nov: lesson 5 step 2 read "1 tokens" on the projector (``aab`` → Z b → Y)."""
    at = open_page({"lesson": "5", "step": "2"})
    assert where(at)[:2] == (5, 2)
    body = page_html(at)
    assert ("Y", 1) in [(r[2][0], r[1]) for r in rows(at) if len(r[2]) == 1], rows(at)
    assert "<b>1</b> token<" in body and "<b>1</b> tokens" not in body
