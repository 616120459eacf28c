"""A live room in real browsers (issue 20): a teacher and 3 students, each in a browser context of its own,
on one server.

The teacher (presenter view) starts a room; two students join by the link, a third late; the students'
"Merge k / N" must come to equal the teacher's after a step, a jump, play and pause (waiting on the students'
status lines; how fast is measured by ``bench/live_room.py``, not here); detach and rejoin; a poll whose histogram counts
equal the answers given, a reveal with each student's verdict; a student who tries to drive changes nothing;
a code that does not exist says so.

Expected answers are the English sample's, worked out independently in ``test_quiz_browser.py``'s issue repro:
(·, t) is merge 2. Screenshots: tests/artifacts/live-room-*.png.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import shot_at, wait_idle

MP = ".st-key-merge_player [data-testid=stBidiComponentIsolated] .mp"
K = f"{MP} .mp-k"
#: a hang detector, not the promise: the promise (every student's screen within 1 s of the teacher's action) is
#: measured and printed by ``python -m bench.live_room`` (docs/performance.md: p95 0.73 s, slowest 1.72 s with
#: 30 students); 30 s (a page's default wait) is over 15x the slowest seen, so only a room that stopped
#: following fails here, on a machine twice as slow and busy too
HANG = 30.0


def open_player(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector(f'{MP}[data-ready="1"]', timeout=90_000)
    wait_idle(page, 60_000)


def merge_text(page) -> str:
    return page.locator(K).inner_text().strip()


#: the student's "Merge k / N", read in its page: the time (ms since the epoch) once it is ``target``
SHOWS = (
    "target => { const h = document.querySelector('.st-key-merge_player [data-testid=stBidiComponentIsolated]');"
    " const e = h && h.shadowRoot && h.shadowRoot.querySelector('.mp-k');"
    " return !!e && e.textContent.trim() === target && Date.now(); }"
)


def act(page, control: str) -> int:
    """Click one of the teacher's player buttons (``.mp-step`` ...) in the page; when it was clicked (ms since
    the epoch, the machine's clock that every browser context shares)."""
    return page.locator(f"{MP} {control}").evaluate("b => { b.click(); return Date.now(); }")


def followed(teacher, students, clicked: int, what: str) -> float:
    """Wait until every student's "Merge k / N" equals the teacher's; the seconds from the teacher's click
    (``clicked``, from :func:`act`) to the last student showing it (each student's page says when), printed:
    a figure, not a bound (``bench/live_room.py`` measures it)."""
    target = merge_text(teacher)
    try:
        shown = [s.wait_for_function(SHOWS, arg=target, timeout=HANG * 1000).json_value() for s in students]
    except Exception as e:  # when did the room hear it? (the play state's age, from the room's own route)
        code = teacher.get_attribute(".lr-join", "data-code")
        play = teacher.evaluate(
            "async c => { const r = await fetch('/_bpe/room/' + c);"
            " const p = await r.json(); return [Date.now() - p.age, p.merge, p.v]; }",
            code,
        )
        raise AssertionError(
            f"{what}: the students did not show {target} within {HANG:g} s of the teacher's "
            f"click; the room had it {(play[0] - clicked) / 1000:.2f} s after the click (merge "
            f"{play[1]}, version {play[2]})"
        ) from e
    took = (max(shown) - clicked) / 1000
    print(f"{what}: followed in {took:.2f} s")
    return took


#: a page's section 4 (Python's panels below the player): its heading's merge and its Merges tab's count, once
#: both read ``k`` (False until then)
PANELS_AT = (
    "k => { const h = [...document.querySelectorAll('h5')].find(e => e.innerText.startsWith('4 ·'));"
    " const t = document.querySelector('[data-testid=stTab]');"
    " return !!h && !!t && h.innerText.endsWith(`at merge ${k}`) && t.innerText.startsWith(`Merges (${k})`); }"
)


def panels_at(page, k: int) -> None:
    """Scroll to the page's section 4 (Python's panels: the heading, the merges and vocabulary tabs), as a
    student who reads it does, and wait until it shows merge ``k``, as the page promises ("These panels follow
    the player when it pauses"). (A student's player reports the room's merge when the panels are on the
    screen, or once they are scrolled to: a phone shows the player.)"""
    page.locator("h5", has_text="4 ·").first.evaluate(
        "h => { h.scrollIntoView({block: 'start'}); h.scrollIntoView({block: 'center'}); }"
    )
    try:
        page.wait_for_function(PANELS_AT, arg=k, timeout=HANG * 1000)
    except Exception:
        head = page.locator("h5", has_text="4 ·").first.inner_text()
        tab = page.locator("[data-testid=stTab]").first.inner_text()
        raise AssertionError(f"section 4 never showed merge {k}: {head!r}, {tab!r}") from None


@pytest.fixture(scope="module")
def room(browser, server_url):
    contexts = []

    def context(width=1280, height=1100):
        ctx = browser.new_context(viewport={"width": width, "height": height})
        contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(30_000)
        return page

    teacher = context()
    open_player(teacher, f"{server_url}/?presenter=1&sample=english&merges=64")
    teacher.click(".st-key-room_start button")
    teacher.wait_for_selector(".lr-join[data-code]")
    code = teacher.get_attribute(".lr-join", "data-code")
    link = teacher.inner_text(".lr-link").strip()
    students = [context(390, 900), context(), context()]
    yield {"teacher": teacher, "code": code, "link": link, "students": students, "context": context}
    for ctx in contexts:
        ctx.close()


def test_the_room_shows_its_code_link_and_qr_code(room, server_url):
    t = room["teacher"]
    code = room["code"]
    assert len(code) == 6 and code.isalnum()
    assert room["link"] == f"{server_url}/?join={code}" or room["link"] == f"{server_url}/player?join={code}"
    qr = t.locator("[data-testid=lr-qr]")
    assert qr.get_attribute("src").startswith("data:image/svg+xml;base64,")
    assert qr.evaluate("img => img.complete && img.naturalWidth > 100")  # the SVG decodes as an image


def test_students_join_by_the_link_and_land_where_the_teacher_is(room):
    t, (s1, s2, _) = room["teacher"], room["students"]
    for _ in range(3):
        t.click(f"{MP} .mp-step")
    assert merge_text(t).startswith("Merge 3 / 64")
    for s in (s1, s2):
        open_player(s, room["link"])
        s.wait_for_selector(".lr-status[data-following='1']")
        expect(s.locator(K)).to_have_text(merge_text(t), timeout=HANG * 1000)
    assert s1.locator(".st-key-room_start").count() == 0  # a student cannot start or drive a room


def test_step_jump_play_and_pause_are_followed(room):
    t, students = room["teacher"], room["students"][:2]
    followed(t, students, act(t, ".mp-step"), "step")
    clicked = t.locator(f"{MP} .mp-jump input").evaluate(
        "(e) => { e.value = '40'; e.dispatchEvent(new Event('input', {bubbles: true})); return Date.now(); }"
    )
    assert merge_text(t).startswith("Merge 40 / 64")
    followed(t, students, clicked, "jump")
    followed(t, students, act(t, ".mp-reset"), "reset")
    act(t, ".mp-play")  # 2 merges a second
    for s in students:
        expect(s.locator(MP)).to_have_attribute("data-playing", "1", timeout=HANG * 1000)
    t.wait_for_function(
        "sel => { const r = document.querySelector('.st-key-merge_player "
        "[data-testid=stBidiComponentIsolated]').shadowRoot.querySelector('.mp');"
        " return Number(r.dataset.merge) >= 3; }",
        arg=MP,
    )
    # each browser plays on its own clock from the teacher's play state: a student's merge moves on past the
    # teacher's merge then, read in the student's own page. How close to the teacher's clock (2 merges a second)
    # is printed, a figure (bench.live_room measures it): a bound of "give or take a second" failed at load 17,
    # when a busy machine hands a page the play state seconds late
    k, then = t.evaluate(
        "() => [Number(document.querySelector('.st-key-merge_player "
        "[data-testid=stBidiComponentIsolated]').shadowRoot.querySelector('.mp').dataset.merge),"
        " Date.now()]"
    )
    for s in students:
        m, now = s.wait_for_function(
            "(k) => { const m = Number(document.querySelector('.st-key-merge_player [data-testid="
            "stBidiComponentIsolated]').shadowRoot.querySelector('.mp').dataset.merge);"
            " return m >= Math.min(64, k + 2) && [m, Date.now()]; }",
            arg=k,
            timeout=HANG * 1000,
        ).json_value()
        print(
            f"play: a student at merge {m}, {(min(64, k + 2 * (now - then) / 1000) - m) / 2:+.2f} s behind "
            "the teacher's clock"
        )
    clicked = act(t, ".mp-play")  # pause
    followed(t, students, clicked, "pause")
    for s in students:
        expect(s.locator(MP)).to_have_attribute("data-playing", "0")


def test_a_students_panels_follow_the_paused_room(room):
    """The tester's repro: a student on a phone (390x844) joins; the teacher steps 5 merges and stops; the
    student's player shows "Merge 5 / 64" and its section 4 below must read merge 5 too (it stayed at merge 0:
    the player followed the room without telling Python, so the panels followed only the student's own steps)."""
    t, phone = room["teacher"], room["context"](390, 844)
    act(t, ".mp-reset")  # (disabled, and nothing happens, when the teacher is at merge 0)
    expect(t.locator(K)).to_contain_text("Merge 0 / 64")
    open_player(phone, room["link"])
    phone.wait_for_selector(".lr-status[data-following='1']")
    expect(phone.locator(K)).to_have_text(merge_text(t), timeout=HANG * 1000)
    panels_at(phone, 0)
    for _ in range(5):
        act(t, ".mp-step")
    assert merge_text(t).startswith("Merge 5 / 64")
    expect(phone.locator(K)).to_have_text(merge_text(t), timeout=HANG * 1000)
    panels_at(t, 5)  # the teacher's own panels say so
    panels_at(phone, 5)
    phone.close()  # (the room's other tests count their own three students)


def test_detach_explore_and_rejoin(room):
    t, s1 = room["teacher"], room["students"][0]
    s1.click(".st-key-room_detach button:visible")
    s1.wait_for_selector(".lr-status[data-following='0']")
    t.click(f"{MP} .mp-step")
    t.click(f"{MP} .mp-step")
    wait_idle(t)
    before = merge_text(t)
    s1.click(f"{MP} .mp-reset")  # explores on its own: stays at 0
    expect(s1.locator(K)).to_have_text("Merge 0 / 64")
    wait_idle(s1)
    assert merge_text(t) == before  # and the teacher is not moved
    s1.click(".st-key-room_rejoin button:visible")  # one click: back where the teacher is
    s1.wait_for_selector(".lr-status[data-following='1']")
    expect(s1.locator(K)).to_have_text(before, timeout=HANG * 1000)


def test_a_late_joiner_lands_where_the_teacher_is(room):
    t, s3 = room["teacher"], room["students"][2]
    open_player(s3, room["link"])
    s3.wait_for_selector(".lr-status[data-following='1']")
    expect(s3.locator(K)).to_have_text(merge_text(t), timeout=HANG * 1000)
    followed(t, room["students"], act(t, ".mp-step"), "step, three students")


def test_a_student_cannot_drive_the_room(room):
    t, (s1, s2, s3) = room["teacher"], room["students"]
    at = merge_text(t)
    s3.click(f"{MP} .mp-step")  # the student's own player moves ...
    s3.click(f"{MP} .mp-step")
    s3.click(f"{MP} .mp-play")
    s3.click(f"{MP} .mp-play")
    wait_idle(s3)
    s3.locator(f"{MP} .mp-jump input").evaluate(
        "(e) => { e.value = '60'; e.dispatchEvent(new Event('input', {bubbles: true})); }"
    )
    wait_idle(s3)
    expect(s3.locator(K)).to_have_text("Merge 60 / 64")
    wait_idle(t)
    assert merge_text(t) == at  # ... the teacher's does not,
    for s in (s1, s2):
        assert merge_text(s) == at  # nor the other students'
    followed(t, [s1, s2, s3], act(t, ".mp-back"), "back")  # the teacher's next action brings it back


def test_poll_counts_equal_the_answers_and_reveal(room):
    t, (s1, s2, s3) = room["teacher"], room["students"]
    t.click(f"{MP} .mp-reset")
    act(t, ".mp-step")  # merge 1: the question is about merge 2
    for s in (s1, s2, s3):  # (set-up: the timed actions are the tests above)
        expect(s.locator(K)).to_have_text(merge_text(t), timeout=HANG * 1000)
    wait_idle(t)
    t.click(".st-key-room_ask button")
    for s in (s1, s2, s3):
        s.wait_for_selector(".st-key-room_poll .lr-question", timeout=HANG * 1000)
        assert "merge 2" in s.inner_text(".st-key-room_poll .lr-question")
    options = [b.strip() for b in s1.locator(".st-key-room_poll button").all_inner_texts()]
    assert "(·, t)" in options and len(options) >= 3
    wrong = [o for o in options if o != "(·, t)"]
    picks = {0: "(·, t)", 1: wrong[0], 2: wrong[0]}
    for i, s in enumerate((s1, s2, s3)):
        s.locator(".st-key-room_poll:visible").get_by_role("button", name=picks[i], exact=True).click()
        s.wait_for_selector(".st-key-room_poll [data-testid=stCaptionContainer]:has-text('Your answer is in')")
    s2.locator(".st-key-room_poll:visible").get_by_role("button", name=wrong[1], exact=True).click()  # changes its mind
    picks[1] = wrong[1]
    expected = [sum(1 for p in picks.values() if p == o) for o in options]
    for i, n in enumerate(expected):
        expect(t.locator(f".lr-count[data-option='{i}']")).to_have_text(str(n), timeout=HANG * 1000)
    expect(t.locator(".lr-poll")).to_have_attribute("data-total", "3")
    shot_at(t, "live-room-presenter-1280", ".st-key-room_panel", 1280, 720)
    t.set_viewport_size({"width": 1280, "height": 1100})
    t.click(".st-key-room_reveal button")
    expect(t.locator(".lr-label.lr-win")).to_have_text("(·, t)", timeout=HANG * 1000)
    verdicts = []
    for s in (s1, s2, s3):
        s.wait_for_selector(".st-key-room_poll .cls-verdict", timeout=HANG * 1000)
        verdicts.append(s.get_attribute(".st-key-room_poll .cls-verdict", "data-right"))
    assert verdicts == ["1", "0", "0"]
    expect(s1.locator(".lr-score")).to_have_attribute("data-right", "1")
    expect(s2.locator(".lr-score")).to_have_attribute("data-right", "0")
    expect(t.locator(K)).to_contain_text("Merge 2 / 64")  # the reveal steps to the merge asked about
    for s in (s1, s2, s3):
        expect(s.locator(K)).to_have_text(merge_text(t), timeout=HANG * 1000)
        panels_at(s, 2)  # and the panels below each student's player follow it there
    shot_at(s1, "live-room-student-390", ".st-key-room_student", 390, 844)


def test_a_code_that_does_not_exist_says_so(room, server_url):
    page = room["context"]()
    page.goto(f"{server_url}/?join=ZZZ%3Cb%3E")
    page.wait_for_selector(".lr-join-error", timeout=60_000)
    text = page.inner_text(".lr-join-error")
    assert "There is no live room with the code 'ZZZ<b>'" in text  # escaped: shown as typed, not markup
    assert page.locator(".lr-join-error b").count() == 0
    assert page.locator(".lr-status").count() == 0
