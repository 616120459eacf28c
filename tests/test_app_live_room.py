"""AppTest: a live room's Python side (issue 20). The teacher's session (presenter view) and students' sessions
are separate AppTests on the process's room store; the browser's player reports are simulated
(``player_driver.report``). The browser side, with real players following: tests/browser/test_live_room_browser.py.

Expected quiz answers are the hand-worked ``aaabdaaabac`` ones (no pre-tokenizer: merge 1 is (a, a), 4 times).
"""

from __future__ import annotations

import json
import re

import player_driver as P
import pytest
from helpers import FakeUpload, click, html_bodies, no_exception, open_app

import liveroom as rooms
from appstate import keys, sources
from liveroom import poll_counts

CLASSIC = {"presenter": "1", "sample": "aaabdaaabac", "pattern": "none"}


def follow(at) -> dict:
    found = [e for e in at.get("bidi_component") if e.proto.component_name == "bpe_merge_player_follow"]
    assert len(found) == 1
    return json.loads(found[0].proto.json)


@pytest.fixture
def teacher():
    at = open_app(query=CLASSIC)
    click(at, "room_start")
    no_exception(at.run())  # (the start reruns the whole page: the player is told it leads)
    assert keys.ROOM_LEAD in at.session_state
    return at


def room_of(at) -> dict:
    return rooms.store().room(at.session_state[keys.ROOM_LEAD][0])


def test_start_shows_code_link_and_qr_and_the_player_leads(teacher):
    code = teacher.session_state[keys.ROOM_LEAD][0]
    assert len(code) == 6 and set(code) <= set(rooms.ALPHABET)
    panel = next(b for b in html_bodies(teacher) if "lr-join" in b)
    assert f'data-code="{code}"' in panel and f"?join={code}" in panel
    assert 'src="data:image/svg+xml;base64,' in panel
    assert P.control(teacher)["lead"] is True
    assert room_of(teacher)["settings"]["sample"] == "aaabdaaabac"


def test_not_in_presenter_view_no_room_button():
    at = open_app(query={"sample": "aaabdaaabac"})
    assert not [b for b in at.button if b.key == "room_start"]


def test_teacher_reports_become_the_rooms_play_state(teacher):
    P.report(teacher, 2)
    no_exception(teacher)
    play = room_of(teacher)["play"]
    assert (play["merge"], play["playing"]) == (2, False)
    P.report(teacher, 2, playing=True, speed=5)
    play = room_of(teacher)["play"]
    assert (play["merge"], play["playing"], play["speed"]) == (2, True, 5)


def test_a_student_joins_gets_the_run_and_follows(teacher):
    P.report(teacher, 1)
    code = teacher.session_state[keys.ROOM_LEAD][0]
    student = open_app(query={"join": code.lower()})
    assert student.session_state[keys.ROOM_JOIN] == code
    assert student.session_state[keys.PLAYER_SAMPLE] == "aaabdaaabac"
    assert student.session_state[keys.PLAYER_PATTERN] == "none"
    assert P.run_payload(student)["n"] == P.run_payload(teacher)["n"] == 3
    f = follow(student)
    assert f["on"] and f["code"] == code and f["merge"] == 1 and f["tag"] == P.control(student)["tag"]
    assert "lead" not in P.control(student) or not P.control(student)["lead"]
    assert not [b for b in student.button if b.key == "room_start"]
    click(student, "room_detach")
    assert follow(student)["on"] is False
    seq = follow(student).get("seq")
    click(student, "room_rejoin")
    assert follow(student)["on"] is True and follow(student)["seq"] != seq


def test_a_students_reports_do_not_move_the_room(teacher):
    P.report(teacher, 1)
    code = teacher.session_state[keys.ROOM_LEAD][0]
    student = open_app(query={"join": code})
    P.report(student, 3, playing=True)
    no_exception(student)
    assert room_of(teacher)["play"]["merge"] == 1 and not room_of(teacher)["play"]["playing"]


def test_a_following_students_report_of_the_rooms_merge_moves_their_panels(teacher):
    """The student's player, stopped on the teacher's merge, reports it (as a step of its own is reported): the
    panels below it (section 4) follow, and the room is not moved (the browser side: the live-room browser test's
    ``test_a_students_panels_follow_the_paused_room``)."""
    P.report(teacher, 2)
    student = open_app(query={"join": teacher.session_state[keys.ROOM_LEAD][0]})
    assert follow(student)["merge"] == 2 and [t.label for t in student.tabs][0] == "Merges (0)"
    no_exception(P.report(student, 2))
    assert student.session_state[keys.PLAYER_STEP] == 2 and follow(student)["on"] is True
    assert [t.label for t in student.tabs] == ["Merges (2)", "Vocabulary (258)"]
    assert any(m.value.endswith("— at merge 2") for m in student.markdown)
    assert room_of(teacher)["play"]["merge"] == 2 and not room_of(teacher)["play"]["playing"]


def test_a_bad_code_says_so_escaped():
    at = open_app(query={"join": "<b>nope</b>"})
    boxes = [b for b in html_bodies(at) if "lr-join-error" in b]
    assert len(boxes) == 1 and "There is no live room" in boxes[0]
    assert "<b>nope" not in boxes[0] and "&lt;b&gt;nope" in boxes[0]
    assert keys.ROOM_JOIN not in at.session_state


def test_poll_answers_histogram_and_reveal(teacher):
    code = teacher.session_state[keys.ROOM_LEAD][0]
    students = [open_app(query={"join": code}) for _ in range(3)]
    click(teacher, "room_ask")
    poll = room_of(teacher)["poll"]
    assert poll["open"] and poll["k"] == 0
    labels = []
    for s in students:
        no_exception(s.run())
        labels = [b.label.replace("\\", "") for b in s.button if (b.key or "").startswith("room_opt_")]
    right = labels.index("(a, a)")  # merge 1 is (a, a), 4 times
    wrong = next(i for i, label in enumerate(labels) if label != "(a, a)")
    picks = [right, wrong, right]
    for s, pick in zip(students, picks):
        click(s, f"room_opt_{pick}")
    expected = [picks.count(i) for i in range(len(labels))]
    assert poll_counts(room_of(teacher)) == expected
    no_exception(teacher.run())
    hist = next(b for b in html_bodies(teacher) if "lr-poll" in b)
    for i, n in enumerate(expected):
        assert f'data-option="{i}">{n}<' in hist
    assert "student" not in hist.split("lr-hist")[1]  # counts only
    click(teacher, "room_reveal")
    no_exception(teacher.run())
    assert teacher.session_state[keys.PLAYER_STEP] == 1  # the reveal steps to the merge asked about
    assert room_of(teacher)["play"]["merge"] == 1 and room_of(teacher)["poll"]["revealed"]
    verdicts = []
    for s in students:
        no_exception(s.run())
        v = [b for b in html_bodies(s) if "cls-verdict" in b and "data-right" in b]
        verdicts.append('data-right="1"' in v[-1])
    assert verdicts == [True, False, True]


def test_close_ends_the_room_for_students(teacher):
    code = teacher.session_state[keys.ROOM_LEAD][0]
    student = open_app(query={"join": code})
    click(teacher, "room_close")
    no_exception(teacher.run())
    assert rooms.store().room(code) is None and keys.ROOM_LEAD not in teacher.session_state
    no_exception(student.run())
    assert any("lr-closed" in b for b in html_bodies(student))
    assert follow(student)["on"] is False


def test_the_teachers_new_run_reaches_the_students(teacher):
    code = teacher.session_state[keys.ROOM_LEAD][0]
    student = open_app(query={"join": code})
    sig = room_of(teacher).get("sig", 0)
    no_exception(teacher.selectbox(key="player_sample").set_value("english").run())
    room = room_of(teacher)
    assert room["settings"]["sample"] == "english" and room["sig"] == sig + 1 and room["play"]["merge"] == 0
    no_exception(student.run())  # (the student's player heard "sig" changed: its page reruns)
    no_exception(student.run())
    assert student.session_state[keys.PLAYER_SAMPLE] == "english"
    assert P.control(student)["tag"] == P.control(teacher)["tag"]


def test_rejoin_brings_back_the_teachers_run(teacher):
    code = teacher.session_state[keys.ROOM_LEAD][0]
    student = open_app(query={"join": code})
    click(student, "room_detach")
    no_exception(student.selectbox(key="player_sample").set_value("english").run())  # explores another text
    assert P.control(student)["tag"] != P.control(teacher)["tag"]
    click(student, "room_rejoin")
    no_exception(student.run())
    assert student.session_state[keys.PLAYER_SAMPLE] == "aaabdaaabac"
    assert P.control(student)["tag"] == P.control(teacher)["tag"] and follow(student)["on"]


# ----------------------------------------------------------------------------------------------------
# The Classroom follows the same way: lesson and step (expected places are the clicks made: lesson 1 has
# at least 3 steps, views/lessons)

CLASSROOM = "app_pages/classroom.py"


def where(at) -> tuple[int, int]:
    """(lesson, step) the page's step header shows; fails when the page is not the Classroom."""
    m = re.search(r'class="cls-head" data-lesson="(\d+)" data-step="(\d+)"', "\n".join(html_bodies(at)))
    assert m, "not on the Classroom"
    return int(m.group(1)), int(m.group(2))


def on_player(at) -> bool:
    return bool([e for e in at.get("bidi_component") if e.proto.component_name == "bpe_merge_player"])


def to_classroom(at):
    at.switch_page(CLASSROOM)
    return no_exception(at.run())


def test_the_teachers_classroom_step_is_the_rooms_and_the_player_takes_it_back(teacher):
    to_classroom(teacher)
    assert room_of(teacher)["lesson"] == {"lesson": 1, "step": 1}
    sig = room_of(teacher)["sig"]
    click(teacher, "lesson_next")
    assert room_of(teacher)["lesson"] == {"lesson": 1, "step": 2} and room_of(teacher)["sig"] == sig + 1
    no_exception(teacher.run())  # an unchanged step is not written again
    assert room_of(teacher)["sig"] == sig + 1
    teacher.switch_page("app_pages/player.py")
    no_exception(teacher.run())
    assert room_of(teacher)["lesson"] is None


def test_a_student_follows_the_teachers_lesson_and_step(teacher):
    code = teacher.session_state[keys.ROOM_LEAD][0]
    to_classroom(teacher)
    click(teacher, "lesson_next")  # lesson 1, step 2
    student = open_app(query={"join": code})  # a late join lands on the teacher's step
    assert where(student) == (1, 2) and not on_player(student)
    status = next(b for b in html_bodies(student) if "lr-status" in b)
    assert 'data-following="1" data-lesson="1" data-step="2"' in status
    assert follow(student)["code"] == code  # its mailbox long-polls the room
    by_classroom_link = open_app(CLASSROOM, query={"join": code})  # the Classroom's own join link
    assert where(by_classroom_link) == (1, 2) and by_classroom_link.session_state[keys.ROOM_JOIN] == code
    click(teacher, "lesson_next")
    no_exception(student.run())  # (the browser's long poll reruns its fragment)
    assert where(student) == (1, 3)
    teacher.selectbox(key="lesson_pick").set_value(3)
    no_exception(teacher.run())
    no_exception(student.run())
    assert where(student) == (3, 1)
    teacher.switch_page("app_pages/player.py")  # the teacher goes back to the player: so do they
    no_exception(teacher.run())
    no_exception(student.run())
    assert on_player(student) and follow(student)["on"]


def test_a_student_who_steps_on_their_own_explores_until_rejoin(teacher):
    code = teacher.session_state[keys.ROOM_LEAD][0]
    to_classroom(teacher)
    student = open_app(query={"join": code})
    assert where(student) == (1, 1)
    click(student, "lesson_next")
    assert where(student) == (1, 2) and student.session_state[keys.ROOM_FOLLOW] is False
    assert room_of(teacher)["lesson"] == {"lesson": 1, "step": 1}  # a student never moves the room
    teacher.selectbox(key="lesson_pick").set_value(2)
    no_exception(teacher.run())
    no_exception(student.run())
    assert where(student) == (1, 2)  # exploring: stays where they went
    assert 'data-following="0"' in next(b for b in html_bodies(student) if "lr-status" in b)
    click(student, "room_rejoin")
    no_exception(student.run())
    assert where(student) == (2, 1) and student.session_state[keys.ROOM_FOLLOW] is True


def test_a_student_who_leaves_for_another_page_explores_and_rejoins_from_the_sidebar(teacher):
    code = teacher.session_state[keys.ROOM_LEAD][0]
    to_classroom(teacher)
    student = open_app(query={"join": code})
    student.switch_page("app_pages/tokenize_page.py")
    no_exception(student.run())
    assert student.session_state[keys.ROOM_FOLLOW] is False
    badge = next(b for b in html_bodies(student) if "lr-badge" in b)
    assert f'data-code="{code}" data-following="0"' in badge
    click(student, "room_rejoin_side")  # (AppTest asks for Tokenize again on each run: one run only)
    assert where(student) == (1, 1) and student.session_state[keys.ROOM_FOLLOW] is True


def test_a_room_started_in_the_classroom_and_the_teachers_badge_beats_on_every_page():
    at = open_app(CLASSROOM, query={"presenter": "1", "lesson": "2", "step": "2"})
    click(at, "room_start")
    code = at.session_state[keys.ROOM_LEAD][0]
    assert rooms.store().room(code)["lesson"] == {"lesson": 2, "step": 2}
    panel = next(b for b in html_bodies(at) if "lr-join" in b)
    assert f'data-code="{code}"' in panel and f"?join={code}" in panel
    at.switch_page("app_pages/token_tax.py")
    at.session_state[keys.ROOM_LEAD_BEAT] = 0.0  # a heartbeat is due
    no_exception(at.run())
    assert f'data-code="{code}" data-students="0"' in next(b for b in html_bodies(at) if "lr-badge" in b)
    assert at.session_state[keys.ROOM_LEAD_BEAT] > 0.0
    assert rooms.store().room(code)["lesson"] == {"lesson": 2, "step": 2}  # other pages leave it


# ----------------------------------------------------------------------------------------------------
# An upload or a long paste (no link carries it) goes to the room beside it


def test_an_uploaded_text_and_then_a_long_paste_reach_the_students():
    lecture = "the cat sat on the mat; the rat sat on the hat. " * 60 + "aaabdaaabac"  # 2,891 characters
    teacher = open_app(query={"presenter": "1", "pattern": "none", "merges": "40"})
    teacher.session_state[keys.PLAYER_SOURCE] = "upload"
    teacher.session_state[keys.PLAYER_UPLOAD_TEXT] = sources.read_upload(
        FakeUpload("lecture *notes*.txt", lecture.encode())
    )
    no_exception(teacher.run())
    click(teacher, "room_start")
    no_exception(teacher.run())
    code = teacher.session_state[keys.ROOM_LEAD][0]
    settings = rooms.store().room(code)["settings"]
    assert settings["text_name"] == "lecture *notes*.txt" and "text" not in settings and "sample" not in settings
    assert rooms.store().text(code)["text"] == lecture

    student = open_app(query={"join": code})
    got = student.session_state[keys.PLAYER_UPLOAD_TEXT]
    assert student.session_state[keys.PLAYER_SOURCE] == "upload" and got["text"] == lecture
    assert P.control(student)["tag"] == P.control(teacher)["tag"]  # the same run, trained once
    kept = next(b for b in html_bodies(student) if "player-upload-kept" in b)
    assert "The live room" in kept and "lecture *notes*.txt" in kept and "<em>" not in kept

    pasted = "Ein Text, der länger ist als ein Link tragen kann. " * 50  # 2,550 characters
    teacher.session_state[keys.PLAYER_SOURCE] = "paste"
    teacher.session_state[keys.PLAYER_PASTE] = pasted
    no_exception(teacher.run())
    assert rooms.store().text(code)["text"] == pasted
    no_exception(student.run())  # (the browser's long poll heard "sig" change: its page reruns)
    no_exception(student.run())
    assert student.session_state[keys.PLAYER_UPLOAD_TEXT]["text"] == pasted
    assert P.control(student)["tag"] == P.control(teacher)["tag"]


def test_a_student_who_picks_another_text_explores_on_their_own(teacher):
    code = teacher.session_state[keys.ROOM_LEAD][0]
    student = open_app(query={"join": code})
    assert student.session_state[keys.ROOM_FOLLOW] is True
    no_exception(student.run())
    assert student.session_state[keys.ROOM_FOLLOW] is True  # the room's own run: still following
    no_exception(student.selectbox(key="player_sample").set_value("english").run())
    assert student.session_state[keys.ROOM_FOLLOW] is False and follow(student)["on"] is False
    assert any("exploring on your own" in b for b in html_bodies(student) if "lr-note" in b)
    assert "room_rejoin_side" in [b.key for b in student.button]  # in the sidebar too: open on a phone, it
    #                                                                 covers the page's Rejoin
    no_exception(teacher.number_input(key="player_merges").set_value(2).run())  # the teacher's next run
    no_exception(student.run())
    assert student.session_state[keys.PLAYER_SAMPLE] == "english"  # the explorer keeps their own
    click(student, "room_rejoin")
    no_exception(student.run())
    assert student.session_state[keys.PLAYER_SAMPLE] == "aaabdaaabac" and student.session_state[keys.PLAYER_MERGES] == 2
    assert follow(student)["on"] is True and P.control(student)["tag"] == P.control(teacher)["tag"]


def test_an_open_poll_hides_the_pair_counts_on_every_player_until_the_reveal(teacher):
    """The pair-count chart's top bar is the answer to "which pair is merged next"."""
    code = teacher.session_state[keys.ROOM_LEAD][0]
    student = open_app(query={"join": code})
    assert not P.control(teacher)["quiz"] and not P.control(student)["quiz"]
    click(teacher, "room_ask")
    no_exception(teacher.run())
    no_exception(student.run())  # (the browser's long poll heard "sig" change: its bar reruns)
    assert P.control(teacher)["quiz"] is True and P.control(student)["quiz"] is True
    click(teacher, "room_reveal")
    no_exception(teacher.run())
    no_exception(student.run())
    assert not P.control(teacher)["quiz"] and not P.control(student)["quiz"]


def test_a_classroom_join_link_says_when_it_joins_nothing_and_a_students_link_keeps_its_code(teacher):
    bad = open_app(CLASSROOM, query={"join": "<b>NOPE"})
    box = next(b for b in html_bodies(bad) if "lr-join-error" in b)
    assert "There is no live room" in box and "&lt;b&gt;NOPE" in box and "<b>NOPE" not in box
    assert "join" not in bad.query_params  # a join= that joined nothing leaves the link
    code = teacher.session_state[keys.ROOM_LEAD][0]
    to_classroom(teacher)
    student = open_app(query={"join": code})
    assert where(student) == (1, 1) and student.query_params["join"] == code  # a reload rejoins


def test_a_late_joiner_is_not_told_about_a_question_revealed_before_they_came(teacher):
    code = teacher.session_state[keys.ROOM_LEAD][0]
    present = open_app(query={"join": code})
    click(teacher, "room_ask")
    no_exception(present.run())
    click(teacher, "room_reveal")
    no_exception(teacher.run())
    no_exception(present.run())
    assert any("You did not answer" in b for b in html_bodies(present))  # they saw it open: the answer
    late = open_app(query={"join": code})
    assert not any("You did not answer" in b or "lr-question" in b for b in html_bodies(late))
