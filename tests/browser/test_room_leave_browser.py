"""A live room's students who leave it, in real browsers: one who taps "Replay a real vocabulary" and one who
goes to another page, then the teacher closing the room (review of the room: a Replay left the room without a
word; a closed room's answer was sent to a part of the page that was gone, which Streamlit logged as "The
fragment with id ... does not exist anymore").

* Replay: the student's line says in one sentence that they stopped following, with Rejoin, which brings
  back the teacher's player where the teacher is (the merge read on the teacher's page).
* Close: every student's page that shows the room says once that it has closed, its long poll of
  ``_bpe/room/CODE`` ends (the mailbox's loop, read in the page's registry, and no request after the close,
  counted by the browser even after a rerun of the page), one 404 at most (the request that was waiting when
  the room closed), and the server logs no fragment that does not exist anymore.

Screenshots: tests/artifacts/room-leave-*.png (1280x720 and a 390 px phone).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import server_log, shot_at, wait_idle
from .test_live_room_browser import HANG, MP, K, merge_text, open_player

#: the page's live room as the mailbox holds it (components/merge_player/mailbox.js): [polling?, in a room?]
LOOP = "() => { const r = globalThis[Symbol.for('bpe-lab.merge-player')]?.room; return [!!r?.looping, !!r?.data]; }"
STALE = "does not exist anymore"


@pytest.fixture(scope="module")
def room(browser, server_url):
    contexts = []

    def context(width=1280, height=900):
        ctx = browser.new_context(viewport={"width": width, "height": height})
        contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(30_000)
        watch = {"requests": [], "errors": []}
        page.on("request", lambda r: "/_bpe/room/" in r.url and watch["requests"].append(r.url))
        page.on("console", lambda m: m.type == "error" and watch["errors"].append(m.text))
        page.watch = watch
        return page

    teacher = context(1280, 1100)
    open_player(teacher, f"{server_url}/?presenter=1&sample=english&merges=64")
    teacher.click(".st-key-room_start button")
    teacher.wait_for_selector(".lr-join[data-code]")
    link = teacher.inner_text(".lr-link").strip()
    phone, replaying, away = context(390, 844), context(), context()
    for s in (phone, replaying, away):
        open_player(s, link)
        s.wait_for_selector(".lr-status[data-following='1']")
    yield {"teacher": teacher, "phone": phone, "replaying": replaying, "away": away}
    for ctx in contexts:
        ctx.close()


def _replay(page) -> None:
    page.locator("[data-testid=stButtonGroup] button", has_text="Replay a real vocabulary").click()
    page.wait_for_selector(".lr-status[data-following='0']", timeout=HANG * 1000)


def test_replay_says_the_student_stopped_following_and_rejoin_goes_back(room):
    t, s = room["teacher"], room["replaying"]
    _replay(s)
    line = s.locator(".lr-status:visible")
    expect(line).to_have_count(1)  # one line, not a line and a note
    expect(line).to_contain_text("you stopped following the teacher to replay a vocabulary")
    expect(s.locator(".st-key-room_rejoin button:visible")).to_have_count(1)
    shot_at(s, "room-leave-replay-1280", ".st-key-room_student", 1280, 720)
    s.set_viewport_size({"width": 1280, "height": 900})
    t.click(f"{MP} .mp-step")  # the teacher moves on meanwhile
    t.click(f"{MP} .mp-step")
    wait_idle(t)
    target = merge_text(t)
    s.click(".st-key-room_rejoin button:visible")
    s.wait_for_selector(".lr-status[data-following='1']", timeout=HANG * 1000)
    expect(s.locator(K)).to_have_text(target, timeout=HANG * 1000)  # the teacher's player, where the teacher is
    _replay(s)  # (and it replays again for the close below)
    phone = room["phone"]
    _replay(phone)
    shot_at(phone, "room-leave-replay-390", ".st-key-room_student", 390, 844)
    phone.locator(".st-key-room_rejoin button:visible").click()
    phone.wait_for_selector(".lr-status[data-following='1']", timeout=HANG * 1000)
    expect(phone.locator(K)).to_have_text(target, timeout=HANG * 1000)


def test_closing_the_room_ends_every_students_polling_once(room, server_url):
    t, phone, replaying, away = room["teacher"], room["phone"], room["replaying"], room["away"]
    # a student who went to another page in the app (no new page load: its mailbox's last long poll is
    # still waiting when the room closes); a step of the teacher's first, so that poll is a fresh one
    t.click(f"{MP} .mp-step")
    expect(away.locator(K)).to_have_text(merge_text(t), timeout=HANG * 1000)
    away.get_by_role("link", name="Tokenize", exact=True).click()
    away.wait_for_url("**/tokenize**")
    wait_idle(away, 60_000)
    for s in (phone, replaying):
        wait_idle(s)
    before = {id(s): (len(s.watch["requests"]), len(s.watch["errors"])) for s in (phone, replaying, away)}
    asked = away.evaluate("() => window.__bpeRuns.asked")
    with away.expect_response(lambda r: "/_bpe/room/" in r.url, timeout=HANG * 1000) as answer:
        t.locator(".st-key-room_close").get_by_role("button", name="Close the room").click()
    assert answer.value.status == 404  # the room it was waiting on has closed ...
    # ... and nobody on this page is told: the part of the page that asked is gone (two frames: the mailbox
    # would have sent its rerun right after the answer)
    away.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert away.evaluate("() => window.__bpeRuns.asked") == asked
    for s in (phone, replaying):
        closed = s.locator(".lr-closed:visible")
        expect(closed).to_have_count(1, timeout=HANG * 1000)
        expect(closed).to_contain_text("has closed: the player is yours now")
        s.wait_for_function(f"() => {{ const [looping, inRoom] = ({LOOP})(); return !looping && !inRoom; }}")
    phone.click(f"{MP} .mp-step")  # a rerun of the page's player and panels: nothing starts polling again
    wait_idle(phone)
    shot_at(phone, "room-leave-closed-390", ".lr-closed", 390, 844)
    shot_at(replaying, "room-leave-closed-1280", ".lr-closed", 1280, 720)
    for s in (phone, replaying, away):
        requests, errors = before[id(s)]
        assert s.watch["requests"][requests:] == [], "a closed room was asked again"
        assert s.evaluate(LOOP) == [False, False], (s.url, s.watch)
        new_errors = s.watch["errors"][errors:]
        assert len(new_errors) <= 1 and all("404" in e for e in new_errors), new_errors
    wait_idle(t)
    assert STALE not in server_log(server_url)
