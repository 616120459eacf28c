"""A live room on the Classroom in real browsers (issue 20: "Classroom lessons follow the same way (lesson and
step)"): a teacher in presenter view starts a room on the Classroom; two students (one on a phone) join by
the link; each of the teacher's steps, a lesson picked, reaches every student's page (waiting on the student's
step header; how fast -- the 1 s promise -- is measured by ``bench/live_room.py`` on the player's room, which
the Classroom's shares); a student who steps on their own
explores until Rejoin; the teacher goes back to the Merge player and the students' pages follow.

Expected places are the clicks made (lesson 1 has 7 steps, tests/test_app_classroom.py walks them).
Screenshots: tests/artifacts/live-classroom-*.png.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import settled, shot_at, wait_idle

#: a hang detector, not the promise (within 1 s, measured by ``python -m bench.live_room``: p95 0.73 s, slowest
#: 1.72 s with 30 students; 0.19-0.51 s a step here): 30 s (a page's default wait), over 15x the slowest seen
HANG = 30.0
#: the teacher's count of students refreshes every 5 s: 30 s (ms) is over 5x that
COUNT = 30_000
HEAD = ".cls-head"
#: the student's step header, read in its page: the time (ms since the epoch) once it shows [lesson, step]
SHOWS = (
    "([l, s]) => { const h = document.querySelector('.cls-head');"
    " return !!h && h.dataset.lesson === String(l) && h.dataset.step === String(s) && Date.now(); }"
)


def at(page) -> tuple[int, int]:
    h = page.locator(HEAD)
    return int(h.get_attribute("data-lesson")), int(h.get_attribute("data-step"))


def click_at(page, selector: str) -> int:
    """Click ``selector``'s button in the page; when (ms since the epoch, every context's clock)."""
    return page.locator(selector).evaluate("b => { b.click(); return Date.now(); }")


def followed(teacher, students, clicked: int, what: str) -> float:
    """Wait until the teacher's page and every student's show the same lesson and step; the seconds from the
    teacher's click to the last student showing it, printed: a figure, not a bound."""
    wait_idle(teacher)
    target = list(at(teacher))
    shown = [s.wait_for_function(SHOWS, arg=target, timeout=HANG * 1000).json_value() for s in students]
    took = (max(shown) - clicked) / 1000
    print(f"{what}: the students showed lesson/step {target} {took:.2f} s after the teacher's click")
    return took


@pytest.fixture(scope="module")
def room(browser, server_url):
    contexts = []

    def context(width=1280, height=900):
        ctx = browser.new_context(viewport={"width": width, "height": height})
        contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(30_000)
        return page

    teacher = context(1280, 720)
    teacher.goto(f"{server_url}/classroom?presenter=1")
    teacher.wait_for_selector(HEAD, timeout=90_000)
    wait_idle(teacher, 60_000)
    teacher.click(".st-key-room_start button")
    teacher.wait_for_selector(".lr-join[data-code]")
    code = teacher.get_attribute(".lr-join", "data-code")
    link = teacher.inner_text(".lr-link").strip()
    students = [context(390, 844), context()]
    yield {"teacher": teacher, "code": code, "link": link, "students": students}
    for ctx in contexts:
        ctx.close()


def test_students_join_the_classroom_by_the_link_and_follow_each_step(room, server_url):
    t, students = room["teacher"], room["students"]
    assert room["link"] == f"{server_url}/classroom?join={room['code']}"
    t.click(".st-key-lesson_next button")
    wait_idle(t)
    assert at(t) == (1, 2)
    for s in students:  # they join late: they land on the teacher's step
        s.goto(room["link"])
        s.wait_for_selector(".lr-status[data-following='1']", timeout=90_000)
        expect(s.locator(HEAD)).to_have_attribute("data-step", "2")
    expect(t.locator(".lr-students")).to_have_attribute("data-students", "2", timeout=COUNT)
    shot_at(t, "live-classroom-presenter-1280", ".st-key-room_panel", 1280, 720)
    took = [followed(t, students, click_at(t, ".st-key-lesson_next button"), "next") for _ in range(3)]
    took.append(followed(t, students, click_at(t, ".st-key-lesson_back button"), "back"))
    t.locator(".st-key-lesson_pick").scroll_into_view_if_needed()  # (scrolled down to the room's corner: a
    settled(t, ".st-key-lesson_pick")  # click while the page scrolls opens nothing)
    t.locator(".st-key-lesson_pick").click()
    option = t.get_by_role("option", name=re.compile(r"Words, counts and an unseen word"))  # lesson 3
    option.wait_for()
    clicked = t.evaluate("Date.now()")  # (before the click: a bound on the safe side)
    option.click()
    wait_idle(t)
    assert at(t) == (3, 1)
    took.append(followed(t, students, clicked, "lesson picked"))
    print("teacher's step -> students' pages (s):", [round(x, 3) for x in took])
    shot_at(students[0], "live-classroom-student-390", ".st-key-room_student", 390, 844)


def test_a_student_who_steps_explores_until_rejoin(room):
    t, (s1, s2) = room["teacher"], room["students"]
    before = at(s1)
    s1.click(".st-key-lesson_next button")
    s1.wait_for_selector(".lr-status[data-following='0']")
    # (the room's line is drawn above the lesson: in the same rerun it can show before the step does)
    expect(s1.locator(HEAD)).to_have_attribute("data-step", str(before[1] + 1), timeout=HANG * 1000)
    wait_idle(s1)
    mine = at(s1)
    assert mine == (before[0], before[1] + 1)
    followed(t, [s2], click_at(t, ".st-key-lesson_next button"), "next, one student exploring")
    wait_idle(s1)
    assert at(s1) == mine  # exploring: not moved
    s1.click(".st-key-room_rejoin button:visible")
    s1.wait_for_selector(".lr-status[data-following='1']")
    expect(s1.locator(HEAD)).to_have_attribute("data-step", str(at(t)[1]), timeout=HANG * 1000)


def test_the_teacher_back_on_the_player_brings_the_students_along(room):
    t, students = room["teacher"], room["students"]
    t.locator('[data-testid="stExpandSidebarButton"]').click()
    t.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Merge player", exact=True).click()
    t.wait_for_selector(".st-key-merge_player", timeout=60_000)
    for s in students:
        s.wait_for_selector(".st-key-merge_player [data-testid=stBidiComponentIsolated]", timeout=60_000)
        s.wait_for_selector(".lr-status[data-following='1']", timeout=30_000)
        assert s.locator(HEAD).count() == 0


def test_a_reload_keeps_the_teacher_leading_and_a_student_the_same_student(browser, server_url):
    """A reload is a new Streamlit session: the teacher's browser keeps the room's key in a cookie (never on
    the page) and leads the same room again; a student's keeps its id (counted once) and its join= link."""
    tctx = browser.new_context(viewport={"width": 1280, "height": 900})
    sctx = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        t, s = tctx.new_page(), sctx.new_page()
        t.goto(f"{server_url}/classroom?presenter=1&lesson=2&step=2")
        t.wait_for_selector(HEAD, timeout=90_000)
        wait_idle(t, 60_000)
        t.click(".st-key-room_start button")
        t.wait_for_selector(".lr-join[data-code]")
        code = t.get_attribute(".lr-join", "data-code")
        lead = {c["name"]: c for c in tctx.cookies()}.get("bpe_lab_lead")
        assert lead and lead["value"].startswith(code + ".") and lead["sameSite"] == "Strict"
        assert lead["value"].split(".", 1)[1] not in t.content()  # the key is never on the page
        s.goto(f"{server_url}/classroom?join={code}")
        s.wait_for_selector(".lr-status[data-following='1'][data-lesson='2'][data-step='2']", timeout=90_000)
        expect(t.locator(".lr-students")).to_have_attribute("data-students", "1", timeout=COUNT)
        s.reload()
        s.wait_for_selector(".lr-status[data-following='1'][data-lesson='2'][data-step='2']", timeout=90_000)
        t.reload()
        t.wait_for_selector(f".lr-join[data-code='{code}']", timeout=90_000)  # the same room, still the teacher's
        expect(t.locator(".lr-students")).to_have_attribute("data-students", "1", timeout=COUNT)  # one student
        wait_idle(t)
        t.click(".st-key-lesson_next button")  # and it still leads
        s.wait_for_selector(".cls-head[data-lesson='2'][data-step='3']", timeout=HANG * 1000)
        preview = tctx.new_page()  # the join link in the teacher's own browser: the students' side
        preview.goto(f"{server_url}/classroom?join={code}")
        preview.wait_for_selector(".lr-status[data-following='1'][data-step='3']", timeout=90_000)
        assert preview.locator(".st-key-room_panel").count() == 0
        preview.close()
        t.click(".st-key-room_close button")
        s.wait_for_selector(".lr-closed", timeout=HANG * 1000)
        wait_idle(t)
        assert "bpe_lab_lead" not in {c["name"] for c in tctx.cookies()}  # closed: the key is dropped
    finally:
        tctx.close()
        sctx.close()


def test_start_a_live_room_is_on_the_first_screen(browser, server_url):
    """Review: in presenter view "Start a live room" was below the lesson, off a 1280x720 projector's screen.
    It is in the lesson's controls row (on a 390 px phone too); the room's code, link and QR code open under
    that row, above the lesson, in an expander the teacher can fold (it stays folded while they step)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        t = ctx.new_page()
        t.set_default_timeout(30_000)
        t.goto(f"{server_url}/classroom?presenter=1")
        t.wait_for_selector(HEAD, timeout=90_000)
        wait_idle(t, 60_000)
        for width, height in ((1280, 720), (390, 844)):
            t.set_viewport_size({"width": width, "height": height})
            wait_idle(t)
            start = t.locator(".st-key-room_start button:visible")
            expect(start).to_have_count(1)
            settled(t, ".st-key-room_start button:visible")
            box = start.bounding_box()
            assert box and 0 <= box["y"] and box["y"] + box["height"] <= height, (width, box)  # no scrolling
            assert t.evaluate("() => document.querySelector('[data-testid=stMain]').scrollTop") == 0
            shot_at(t, f"live-classroom-start-{width}", ".st-key-lesson_controls", width, height)
        t.set_viewport_size({"width": 1280, "height": 720})
        t.click(".st-key-room_start button")
        t.wait_for_selector(".lr-join[data-code]")
        settled(t, ".st-key-room_panel")
        panel = t.locator(".st-key-room_panel").bounding_box()
        lesson = t.locator(".st-key-lesson_step").bounding_box()
        assert panel["y"] + panel["height"] <= 720 and panel["y"] < lesson["y"]  # the QR code on the first screen
        shot_at(t, "live-classroom-room-1280", ".st-key-lesson_controls", 1280, 720)
        t.locator(".st-key-room_panel summary").click()  # folded: the lesson has the screen again
        expect(t.locator(".lr-join")).to_be_hidden()
        t.click(".st-key-lesson_next button")
        t.wait_for_selector(".cls-head[data-step='2']")
        wait_idle(t)
        expect(t.locator(".lr-join")).to_be_hidden()  # stays folded
        t.locator(".st-key-room_panel summary").click()
        t.click(".st-key-room_close button")
        t.wait_for_selector(".st-key-room_start button")
    finally:
        ctx.close()
