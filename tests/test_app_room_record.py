"""The teacher's record of a live room's questions in the app (AppTest; issue 34, items 2 and 5): what the
room is asked is kept with its labels and right options, and closing the room leaves its CSV with the teacher.
The user's path (two students answering, the download) is tests/browser/test_room_question_browser.py."""

from __future__ import annotations

import pytest
from helpers import click, html_bodies, no_exception, open_app

import bpe
import liveroom as rooms
from appstate import keys
from views.quiz import next_merge_quiz

CLASSIC = {"presenter": "1", "sample": "aaabdaaabac", "pattern": "none"}


@pytest.fixture
def teacher():
    at = open_app(query=CLASSIC)
    click(at, "room_start")
    no_exception(at.run())
    assert keys.ROOM_LEAD in at.session_state
    return at


def test_asking_keeps_the_labels_and_the_right_options_and_closing_keeps_the_record(teacher):
    code, token = teacher.session_state[keys.ROOM_LEAD]
    student = open_app(query={"join": code})
    click(teacher, "room_ask")  # at merge 0: about merge 1, (a, a) occurring 4 times
    no_exception(teacher.run())
    poll = rooms.store().room(code)["poll"]
    expected = next_merge_quiz(bpe.train("aaabdaaabac", 258, pattern=None), 0, quiz_id="x", n_options=4)
    assert poll["options"] == [o.label for o in expected.options] and len(poll["options"]) == 4
    assert [poll["options"][i] for i in poll["right"]] == ["(a, a)"]
    no_exception(student.run())
    click(student, "room_opt_" + str(poll["options"].index("(a, a)")))
    assert rooms.store().record(code, token)[0]["counts"][poll["options"].index("(a, a)")] == 1
    click(teacher, "room_close")
    no_exception(teacher.run())
    kept = teacher.session_state[keys.ROOM_CLOSED]
    right = poll["options"].index("(a, a)")
    assert kept[0] == code and len(kept[1]) == 1 and kept[1][0]["counts"][right] == sum(kept[1][0]["counts"]) == 1
    line = next(b for b in html_bodies(teacher) if "lr-closed-record" in b)
    assert 'data-questions="1"' in line and "has closed" in line
    buttons = [b for b in teacher.get("download_button") if b.key == "room_csv_closed"]
    assert len(buttons) == 1 and buttons[0].label == "Download the questions (CSV)"


def test_a_new_room_forgets_the_last_rooms_record(teacher):
    click(teacher, "room_ask")
    no_exception(teacher.run())
    click(teacher, "room_close")
    no_exception(teacher.run())
    assert any("lr-closed-record" in b for b in html_bodies(teacher))
    click(teacher, "room_start")
    no_exception(teacher.run())
    assert keys.ROOM_CLOSED not in teacher.session_state
    assert not any("lr-closed-record" in b for b in html_bodies(teacher))


def test_closing_on_the_classroom_keeps_the_download_there(teacher):
    click(teacher, "room_ask")
    no_exception(teacher.run())
    teacher.switch_page("app_pages/classroom.py")
    no_exception(teacher.run())
    click(teacher, "room_close")
    line = next(b for b in html_bodies(teacher) if "lr-closed-record" in b)
    assert 'data-questions="1"' in line
    assert [b.label for b in teacher.get("download_button") if b.key == "room_csv_closed"] == [
        "Download the questions (CSV)"
    ]
