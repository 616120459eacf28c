"""The live room's question and its CSV in real browsers (issue 34, items 2 and 5): a teacher at a projector's
1280x720 and two students on phones (390x844), each in a browser context of its own, on one server.

Item 2, the repro: a pasted paragraph (here by its ``?text=`` link: the same run), the teacher's player at merge
24, *Ask the room* about merge 25 -- where 19 pairs tie with the winner (every pair left occurs once) and the
room listed 20 full-width buttons on a phone, the histogram below the projector's fold. Now: at most 4 options,
the ones ``views.quiz.next_merge_quiz`` gives over ``bpe.train`` of the same text (from the library, not read
from the page); each phone shows the room's status line, the question and every option on one screen, even a
student who had scrolled down to the player; the teacher, who scrolled just far enough to see *Ask*, sees the
whole histogram and *Reveal* after asking.

Item 5: the two students answer different options; the CSV downloaded from the teacher's panel (Playwright's
``expect_download``, parsed with the ``csv`` module) has the question with those counts, the merged pair and
how many were right (graded by ``views.quiz.grade`` from the library); after *Close the room* the panel still
offers it, revealed.

Screenshots: tests/artifacts/room-question-teacher-1280.png, room-question-student-390.png,
room-question-closed-1280.png.
"""

from __future__ import annotations

import csv
import io
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

import bpe
from bpe.excerpt import heldout_start
from views.quiz import grade, next_merge_quiz

from .conftest import settled, shot, wait_idle

MP = ".st-key-merge_player [data-testid=stBidiComponentIsolated] .mp"
#: the issue's pasted paragraph (tests/browser/test_lecturer_browser.py's)
PARAGRAPH = (
    "The quick brown fox jumps over the lazy dog near the river bank. Another paragraph of plain English "
    "text, written as a lecturer would paste it: a story about tokenizers, their merges, and the pairs "
    "they learn."
)
MERGE = 25
PHONE = {"width": 390, "height": 844}
OPTION = ".st-key-room_poll [data-testid=stButton] button"


def expected_quiz():
    """The question about ``MERGE`` as the library asks it: the app's defaults (GPT-4's pattern, bytes, lexical
    ties; the last tenth held out)."""
    run = bpe.train(PARAGRAPH[: heldout_start(PARAGRAPH)], vocab_size=256 + MERGE + 1, pattern="gpt4")
    assert len(run.merges[MERGE - 1].ties) >= 9  # the repro's many ties
    return next_merge_quiz(run, MERGE - 1, quiz_id="x", n_options=4)


def header_bottom(page) -> float:
    return page.evaluate("() => document.querySelector('[data-testid=stHeader]')?.getBoundingClientRect().bottom || 0")


#: the boxes of the elements matching a selector that are not left over from an earlier run (the room's
#: one-second refresh marks the panel's elements stale while it runs, then draws them again)
BOXES_JS = (
    "els => els.filter(e => !e.closest('[data-stale=true]')).map(e => { const r = e.getBoundingClientRect();"
    " return [r.top, r.bottom]; })"
)


def on_screen(page, selector: str, height: int) -> None:
    """Every element matching ``selector`` is wholly on screen: below Streamlit's fixed header, above the
    bottom edge. Waits until one is drawn by a finished run (not stale)."""
    # one read: the waited-for element and its box (a refresh between two reads marks it stale again)
    boxes = page.wait_for_function(
        f"sel => {{ const b = ({BOXES_JS})([...document.querySelectorAll(sel)]); return b.length ? b : null; }}",
        arg=selector,
    ).json_value()
    assert boxes, f"{selector} is not drawn"
    top = header_bottom(page)
    for y0, y1 in boxes:
        assert y0 >= top - 1 and y1 <= height + 1, (selector, y0, y1, top, height)


def csv_rows(path: str) -> list[dict]:
    with open(path, encoding="utf-8-sig", newline="") as f:
        return list(csv.DictReader(f))


def ask_the_room(t) -> None:
    """The teacher scrolls just far enough to see "Ask the room" (at the screen's bottom edge) and asks; waits
    until the histogram is drawn and still. Once per room: a later test finds the question open."""
    wait_idle(t)
    if not t.locator(".st-key-room_poll_box .lr-poll").count():
        ask = t.locator(".st-key-room_ask").get_by_role("button", name=f"Ask the room about merge {MERGE}")
        ask.evaluate("e => e.scrollIntoView({block: 'end'})")
        ask.click()
    t.wait_for_selector(".st-key-room_poll_box .lr-poll")
    wait_idle(t)
    settled(t, ".st-key-room_poll_box")


@pytest.fixture(scope="module")
def room(browser, server_url):
    contexts = []

    def context(**kwargs):
        ctx = browser.new_context(**kwargs)
        contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(30_000)
        return page

    teacher = context(viewport={"width": 1280, "height": 720}, accept_downloads=True)
    teacher.goto(f"{server_url}/?presenter=1&merge={MERGE - 1}&text=" + quote(PARAGRAPH))
    teacher.wait_for_selector(f'{MP}[data-ready="1"]', timeout=90_000)
    wait_idle(teacher, 60_000)
    teacher.click(".st-key-room_start button")
    teacher.wait_for_selector(".lr-join[data-code]")
    link = teacher.inner_text(".lr-link").strip()
    students = [context(viewport=PHONE, is_mobile=True, has_touch=True) for _ in range(2)]
    for s in students:
        s.goto(link)
        s.wait_for_selector(".lr-status[data-following='1']", timeout=90_000)
        expect(s.locator(f"{MP} .mp-k")).to_contain_text(f"Merge {MERGE - 1} /", timeout=30_000)
        wait_idle(s)
    yield {"teacher": teacher, "students": students, "quiz": expected_quiz()}
    for ctx in contexts:
        ctx.close()


def test_the_room_question_is_four_pairs_on_one_phone_screen_and_the_histogram_in_view(room):
    t, students, quiz = room["teacher"], room["students"], room["quiz"]
    labels = [o.label for o in quiz.options]
    assert len(labels) == 4
    # one student has scrolled down to the player's tokens when the question comes
    s1 = students[0]
    s1.locator(f"{MP} .mp-tokens").evaluate("e => e.scrollIntoView({block: 'start'})")
    assert s1.locator(".lr-status").bounding_box()["y"] < 0
    ask_the_room(t)
    assert [x.strip() for x in t.locator(".lr-poll .lr-label").all_inner_texts()] == labels
    on_screen(t, ".st-key-room_poll_box", 720)  # the histogram and Reveal, whole
    on_screen(t, ".lr-hist", 720)
    for s in students:
        s.wait_for_selector(".st-key-room_poll .lr-question[data-poll]", timeout=10_000)
        assert f"merge {MERGE}" in s.inner_text(".st-key-room_poll .lr-question")
        wait_idle(s)
        settled(s, ".st-key-room_poll")
        assert [x.strip() for x in s.locator(OPTION).all_inner_texts()] == labels  # <= 4, the library's
        for part in (
            ".lr-status",
            ".st-key-room_poll .lr-question",
            OPTION,
            ".st-key-room_poll [data-testid=stCaptionContainer]",
        ):
            on_screen(s, part, PHONE["height"])
    shot(t, "room-question-teacher-1280")
    shot(s1, "room-question-student-390")


def test_the_csv_has_the_counts_after_two_students_answer_and_after_closing(room):
    t, (s1, s2), quiz = room["teacher"], room["students"], room["quiz"]
    labels = [o.label for o in quiz.options]
    winner = next(o.label for o in quiz.options if o.pair == quiz.winner)
    wrong = [i for i in range(4) if not grade(quiz, i).right]
    picks = {0: labels.index(winner), 1: wrong[0] if wrong else (labels.index(winner) + 1) % 4}
    ask_the_room(t)  # (asked by the test above, unless it stopped before)
    for i, s in enumerate((s1, s2)):
        s.wait_for_selector(".st-key-room_poll .lr-question[data-poll]")
        s.locator(".st-key-room_poll").get_by_role("button", name=labels[picks[i]], exact=True).click()
        s.wait_for_selector(".st-key-room_poll [data-testid=stCaptionContainer]:has-text('Your answer is in')")
    expect(t.locator(".lr-poll")).to_have_attribute("data-total", "2", timeout=10_000)
    want = [sum(1 for p in picks.values() if p == i) for i in range(4)]
    right = sum(1 for p in picks.values() if grade(quiz, p).right)

    def check(row: dict, revealed: bool) -> None:
        assert row["Question"] == "1" and row["Merge"] == str(MERGE)
        assert [row[f"Option {i}"] for i in range(1, 5)] == labels
        assert [int(row[f"Count {i}"]) for i in range(1, 5)] == want
        assert row["Merged pair"] == winner and row["Answers"] == "2" and row["Right answers"] == str(right)
        assert len(row["Asked (UTC)"]) == 19 and bool(row["Revealed (UTC)"]) is revealed

    with t.expect_download() as download:  # while the room is open: the counts of now
        t.locator(".st-key-room_csv").get_by_role("button", name="Download the questions (CSV)").click()
    assert download.value.suggested_filename.startswith("live-room-") and download.value.suggested_filename.endswith(
        ".csv"
    )
    rows = csv_rows(download.value.path())
    assert len(rows) == 1
    check(rows[0], revealed=False)
    t.click(".st-key-room_reveal button")
    expect(t.locator(".lr-label.lr-win").first).to_be_visible(timeout=10_000)
    wait_idle(t)
    t.locator(".st-key-room_close").get_by_role("button", name="Close the room").click()
    t.wait_for_selector(".lr-closed-record[data-questions='1']")
    for s in (s1, s2):
        s.wait_for_selector(".lr-closed", timeout=10_000)  # the students read that it closed
    wait_idle(t)
    after = t.locator(".st-key-room_csv_closed").get_by_role("button", name="Download the questions (CSV)")
    t.locator(".st-key-room_start").evaluate("e => e.scrollIntoView({block: 'center'})")
    on_screen(t, ".lr-closed-record", 720)
    on_screen(t, ".st-key-room_csv_closed", 720)
    shot(t, "room-question-closed-1280")
    with t.expect_download() as download:  # on closing: the room's record, kept by the session
        after.click()
    rows = csv_rows(download.value.path())
    assert len(rows) == 1
    check(rows[0], revealed=True)
    raw = open(download.value.path(), "rb").read()
    assert (
        raw.startswith(b"\xef\xbb\xbf") and list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))[0][0] == "Question"
    )
