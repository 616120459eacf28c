"""A live room's record of its questions and the teacher's CSV of it (issue 34, item 5), without a server.

The store keeps every question asked (merge, options, counts, the right options, when) beside the room, on both
backends (this process and Redis: ``test_rooms.make_store``); the teacher reads it while the room is open and
gets it back when closing it. The CSV is read back with the ``csv`` module, as a spreadsheet would parse it.
"""

from __future__ import annotations

import csv
import io

import pytest
import test_rooms

from liveroom import NoSuchRoom, NotTeacher, roomstore
from views.room_record import csv_name, record_csv, safe_cell

SETTINGS = test_rooms.SETTINGS
make_store, redis_url = test_rooms.make_store, test_rooms.redis_url  # the fixtures: memory and Redis

OPTIONS = ["(a, b)", "(c, d)", "(e, f)", "(g, h)"]


def rows(data: bytes) -> list[list[str]]:
    assert data.startswith("\ufeff".encode())  # a BOM: spreadsheets read UTF-8 then
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))


def test_the_record_holds_every_question_with_its_counts(make_store):
    s, clock = make_store()
    code, token = s.create(SETTINGS)
    for i in range(3):
        s.join(code, f"s{i}")
    t0 = clock.t
    p1 = s.open_poll(code, token, k=4, n=4, options=OPTIONS, right=[2, 0])
    s.answer(code, "s0", p1, 2)
    s.answer(code, "s1", p1, 1)
    s.answer(code, "s2", p1, 2)
    clock.t += 30
    s.reveal(code, token)
    clock.t += 10
    p2 = s.open_poll(code, token, k=5, n=2, options=["(x, y)", "(=1, z)"], right=[0])
    s.answer(code, "s0", p2, 1)
    record = s.record(code, token)
    assert [e["id"] for e in record] == [p1, p2] and p2 == p1 + 1
    first, second = record
    assert first["merge"] == 5 and first["options"] == OPTIONS and first["counts"] == [0, 1, 2, 0]
    assert (
        first["right"] == [2, 0] and first["asked"] == pytest.approx(t0) and first["revealed"] == pytest.approx(t0 + 30)
    )
    assert second["counts"] == [0, 1] and second["revealed"] is None  # still open: its counts now
    s.answer(code, "s1", p2, 0)
    assert s.record(code, token)[1]["counts"] == [1, 1]
    with pytest.raises(NotTeacher):
        s.record(code, "not the token")
    assert "answers" not in str(s.record(code, token)) and "s0" not in str(s.record(code, token))  # no names


def test_a_new_run_files_the_question_and_ids_keep_counting(make_store):
    """A new text drops the room's poll: it goes to the record, and the next question is not id 1 again (a
    student's answers are kept by poll id)."""
    s, _ = make_store()
    code, token = s.create(SETTINGS)
    p1 = s.open_poll(code, token, k=0, n=4, options=OPTIONS, right=[0])
    assert s.set_settings(code, token, {**SETTINGS, "merges": 99}) is True
    assert s.set_settings(code, token, {**SETTINGS, "merges": 99}) is False
    p2 = s.open_poll(code, token, k=1, n=4, options=OPTIONS, right=[1])
    assert p2 == p1 + 1
    assert [e["id"] for e in s.record(code, token)] == [p1, p2]  # p1 filed, p2 still up


def test_closing_returns_the_record_and_takes_it_away(make_store):
    s, _ = make_store()
    code, token = s.create(SETTINGS)
    s.join(code, "s0")
    pid = s.open_poll(code, token, k=2, n=4, options=OPTIONS, right=[3])
    s.answer(code, "s0", pid, 3)
    kept = s.close(code, token)
    assert [(e["id"], e["counts"]) for e in kept] == [(pid, [0, 0, 0, 1])]
    assert s.backend.get("record:" + code, s.clock()) is None
    with pytest.raises(NoSuchRoom):
        s.record(code, token)
    assert s.close(code, token) == []


def test_records_and_texts_do_not_take_rooms_places(make_store):
    s, _ = make_store(max_rooms=2)
    made = [s.create(SETTINGS) for _ in range(2)]
    for code, token in made:
        s.put_text(code, token, "some text", "t.txt")
        s.open_poll(code, token, k=0, n=4, options=OPTIONS, right=[0])
        s.open_poll(code, token, k=1, n=4, options=OPTIONS, right=[0])  # the first goes to the record
    s.close(*made[0])
    s.create(SETTINGS)  # one room closed: one place, whatever lived beside the rooms


def test_the_record_is_bounded(make_store, monkeypatch):
    monkeypatch.setattr(roomstore, "MAX_RECORD", 3)
    s, _ = make_store()
    code, token = s.create(SETTINGS)
    ids = [s.open_poll(code, token, k=i, n=4, options=OPTIONS, right=[0]) for i in range(6)]
    assert [e["id"] for e in s.record(code, token)] == ids[-4:]  # the last 3 filed, and the open one


def test_csv_one_row_a_question_with_counts_answer_and_times():
    entries = [
        {
            "id": 1,
            "merge": 25,
            "options": ["(·, it)", "(·, n)", "(·, q)", "(·, r)"],
            "right": [1, 0, 2, 3],
            "counts": [0, 1, 1, 0],
            "asked": 1_800_000_000.0,
            "revealed": 1_800_000_061.5,
        },
        {
            "id": 2,
            "merge": 26,
            "options": ["(a, b)", "(c, d)", "(e, f)", "(g, h)"],
            "right": [3],
            "counts": [2, 0, 0, 1],
            "asked": 1_800_000_100.0,
            "revealed": None,
        },
    ]
    table = rows(record_csv(entries))
    assert table[0] == [
        "Question",
        "Merge",
        "Asked (UTC)",
        "Revealed (UTC)",
        "Option 1",
        "Count 1",
        "Option 2",
        "Count 2",
        "Option 3",
        "Count 3",
        "Option 4",
        "Count 4",
        "Merged pair",
        "Also right (tied)",
        "Answers",
        "Right answers",
    ]
    # 1_800_000_000 s after the epoch is 2027-01-15 08:00:00 UTC
    assert table[1] == [
        "1",
        "25",
        "2027-01-15 08:00:00",
        "2027-01-15 08:01:01",
        "(·, it)",
        "0",
        "(·, n)",
        "1",
        "(·, q)",
        "1",
        "(·, r)",
        "0",
        "(·, n)",
        "(·, it); (·, q); (·, r)",
        "2",
        "2",
    ]
    assert table[2][3] == "" and table[2][12:] == ["(g, h)", "", "3", "1"]
    assert len(table) == 3


def test_csv_cells_never_start_a_formula_and_quote_what_needs_it():
    evil = ['=HYPERLINK("http://evil","x")', "+1", "-2", "@SUM(A1)", "\tx", 'a "quoted", pair\nline']
    entries = [{"merge": 1, "options": evil, "right": [0], "counts": [1] * len(evil), "asked": None, "revealed": None}]
    table = rows(record_csv(entries))
    assert len(table) == 2 and len(table[0]) == len(table[1]) == 4 + 2 * len(evil) + 4
    shown = table[1][4 : 4 + 2 * len(evil) : 2]
    assert shown == ['\'=HYPERLINK("http://evil","x")', "'+1", "'-2", "'@SUM(A1)", "'\tx", 'a "quoted", pair\nline']
    assert table[1][-4] == '\'=HYPERLINK("http://evil","x")'  # the merged pair's cell too
    assert not any(c.startswith(("=", "+", "-", "@", "\t", "\r")) for c in table[1])
    assert safe_cell(-2) == -2  # numbers are numbers


def test_csv_of_no_questions_is_its_header_and_the_name_is_safe():
    assert len(rows(record_csv([]))) == 1
    assert csv_name("7KQ2MX", 1_800_000_000) == "live-room-7KQ2MX-2027-01-15.csv"
