"""Live rooms' store (liveroom): the same behaviour on both backends, in process and in Redis.

The Redis tests start a private ``redis-server`` on a unix socket in a temporary folder (no port, nothing
saved) and are skipped, saying why, only when Debian's ``redis-server`` is not installed. Time is a fake
clock: no test waits.
"""

from __future__ import annotations

import threading
import time

import pytest

import liveroom as rooms
from liveroom import (
    ALPHABET,
    MemoryBackend,
    NoSuchRoom,
    NotTeacher,
    PollClosed,
    RateLimited,
    RoomFull,
    RoomStore,
    TooManyHere,
    TooManyRooms,
)
from testkit import aio, redis_server

SETTINGS = {"sample": "english", "merges": 256, "pattern": "gpt4", "level": "byte", "tie": "lexical", "nfc": False}


class Clock:
    def __init__(self, t: float = 1_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    if redis_server.find() is None:
        pytest.skip("redis-server is not installed (Debian's redis-server; scripts/test.sh installs it)")
    proc, url = redis_server.start(tmp_path_factory.mktemp("redis"))
    yield url
    redis_server.stop(proc)


@pytest.fixture(params=["memory", "redis"])
def make_store(request):
    """A factory of fresh stores (each its own key space) on the backend of the test's parameter."""
    made = []

    def make(**kwargs) -> tuple[RoomStore, Clock]:
        clock = Clock()
        if request.param == "memory":
            s = RoomStore(MemoryBackend(), clock=clock, **kwargs)
        else:
            url = request.getfixturevalue("redis_url")
            s = rooms.store_from_url(url, clock=clock, **kwargs)
            s.backend.prefix = f"t{len(made)}-{time.monotonic_ns()}:"
            # Redis's own expiry follows the real clock: give the fake one the real time
            clock.t = time.time()
        made.append(s)
        return s, clock

    return make


def test_a_code_is_six_symbols_of_a_32_symbol_alphabet_without_look_alikes(make_store):
    assert len(set(ALPHABET)) == 32 and not set("01IO") & set(ALPHABET)
    s, _ = make_store()
    codes = {s.create(SETTINGS)[0] for _ in range(30)}
    assert len(codes) == 30
    assert all(len(c) == 6 and set(c) <= set(ALPHABET) for c in codes)


def test_a_student_joins_and_gets_the_run_and_where_the_teacher_is(make_store):
    s, _ = make_store()
    code, token = s.create(SETTINGS)
    s.set_play(code, token, merge=17, speed=5, playing=False)
    room = s.join(code.lower(), "s1")  # typed in lower case: the same room
    assert room["settings"] == SETTINGS
    assert rooms.follow_state(room, room["play"]["t"])["merge"] == 17
    assert "token" in room and token not in str(room)  # the secret itself is never stored


def test_a_student_cannot_drive_the_room(make_store):
    s, _ = make_store()
    code, token = s.create(SETTINGS)
    s.join(code, "s1")
    for attempt in (
        lambda t: s.set_play(code, t, merge=99, speed=2, playing=True),
        lambda t: s.set_settings(code, t, {"sample": "other"}),
        lambda t: s.open_poll(code, t, k=3, n=4),
        lambda t: s.reveal(code, t),
        lambda t: s.close(code, t),
        lambda t: s.beat(code, t),
        lambda t: s.set_lesson(code, t, 3, 2),
    ):
        for wrong in ("", "s1", token[:-1] + ("A" if token[-1] != "A" else "B"), None):
            with pytest.raises(NotTeacher):
                attempt(wrong)
    room = s.room(code)
    assert room["play"]["merge"] == 0 and room["settings"] == SETTINGS and room["poll"] is None
    assert room["lesson"] is None


def test_a_classroom_lesson_is_shown_like_a_merge_and_students_hear_of_it(make_store):
    s, _ = make_store()
    code, token = s.create(SETTINGS)
    sig = int(s.room(code).get("sig", 0))
    assert s.set_lesson(code, token, 3, 2) is True
    assert s.set_lesson(code, token, 3, 2) is False  # unchanged: not news
    room = s.join(code, "s1")
    assert room["lesson"] == {"lesson": 3, "step": 2} and room["sig"] == sig + 1
    assert s.play(code)["sig"] == sig + 1  # the students' long poll answers
    assert s.set_lesson(code, token, None) is True  # back to the player
    assert s.room(code)["lesson"] is None and s.room(code)["sig"] == sig + 2


def test_play_state_has_a_version_raised_on_each_change(make_store):
    s, clock = make_store()
    code, token = s.create(SETTINGS)
    v0 = s.room(code)["play"]["v"]
    clock.t += 2
    p = s.set_play(code, token, merge=3, speed=10, playing=True)
    assert (p["merge"], p["speed"], p["playing"], p["v"]) == (3, 10, True, v0 + 1)
    clock.t += 0.75
    f = rooms.follow_state(s.room(code), clock())
    assert f["age"] == 750 and f["playing"] and f["merge"] == 3


def test_new_settings_restart_students_at_merge_zero(make_store):
    s, _ = make_store()
    code, token = s.create(SETTINGS)
    s.set_play(code, token, merge=40, speed=2, playing=False)
    assert s.set_settings(code, token, {**SETTINGS, "merges": 64}) is True
    assert s.set_settings(code, token, {**SETTINGS, "merges": 64}) is False
    room = s.room(code)
    assert room["settings"]["merges"] == 64 and room["play"]["merge"] == 0


def test_a_code_that_does_not_exist_or_is_malformed(make_store):
    s, _ = make_store()
    for bad in ("ZZZZZZ", "<b>x</b>", "", "7KQ2M0", "A" * 100, None, 12):
        with pytest.raises(NoSuchRoom):
            s.join(bad, "s1")
    assert s.room("ZZZZZZ") is None


def test_joins_are_rate_limited_per_student(make_store):
    s, _ = make_store(join_limit=5)
    code, _ = s.create(SETTINGS)
    for i in range(4):
        with pytest.raises(NoSuchRoom):
            s.join(f"BAD{i:03d}".replace("0", "2").replace("1", "3"), "guesser")
    s.join(code, "guesser")  # the 5th attempt: still allowed
    with pytest.raises(RateLimited):
        s.join(code, "guesser")  # the 6th within the minute: refused, even a right code
    s.join(code, "another")  # other students are not held up


def test_bad_codes_are_rate_limited_per_store(make_store):
    s, _ = make_store(bad_code_limit=3)
    for i in range(3):
        with pytest.raises(NoSuchRoom):
            s.join("ZZZZZZ", f"s{i}")
    with pytest.raises(RateLimited):
        s.join("ZZZZZZ", "s9")


def test_rate_limits_reset_after_a_minute(make_store):
    s, clock = make_store(join_limit=2)
    code, _ = s.create(SETTINGS)
    s.join(code, "s1")
    s.join(code, "s1")
    with pytest.raises(RateLimited):
        s.join(code, "s1")
    if isinstance(s.backend, MemoryBackend):
        clock.t += 61
        s.join(code, "s1")


def test_students_per_room_are_bounded(make_store):
    s, _ = make_store(max_students=3)
    code, _ = s.create(SETTINGS)
    for i in range(3):
        s.join(code, f"s{i}")
    s.join(code, "s0")  # a rejoin takes no new seat
    with pytest.raises(RoomFull):
        s.join(code, "s3")


def test_rooms_are_bounded(make_store):
    s, _ = make_store(max_rooms=3)
    made = [s.create(SETTINGS) for _ in range(3)]
    with pytest.raises(TooManyRooms):
        s.create(SETTINGS)
    s.close(*made[0])
    s.create(SETTINGS)  # a closed room frees its place


@pytest.mark.parametrize("make_store", ["memory"], indirect=True)  # Redis expires on its own (real) clock: below
def test_a_room_lives_while_the_teacher_beats_plus_the_grace_period(make_store):
    s, clock = make_store(grace=100)
    assert isinstance(s.backend, MemoryBackend)
    code, token = s.create(SETTINGS)
    clock.t += 90
    s.beat(code, token)
    clock.t += 90
    assert s.room(code) is not None  # 180 s after creation, 90 after the last beat
    clock.t += 11
    assert s.room(code) is None
    with pytest.raises(NoSuchRoom):
        s.join(code, "late")


@pytest.mark.parametrize("make_store", ["redis"], indirect=True)  # the in-process expiry: above, on a fake clock
def test_redis_expires_a_room_the_teacher_left(make_store):
    s, _ = make_store(grace=0.3)
    assert not isinstance(s.backend, MemoryBackend)
    code, _ = s.create(SETTINGS)
    assert s.room(code) is not None
    r = s.backend.r
    ttl = r.pttl(s.backend.prefix + "room:" + code)
    assert 0 < ttl <= 300  # Redis itself drops it after the grace period


def test_a_rooms_text_is_kept_beside_it_for_its_students(make_store):
    """An upload or a long paste (a link cannot carry it) travels beside the room, named by its SHA-256."""
    import hashlib

    s, clock = make_store(grace=100)
    code, token = s.create(SETTINGS)
    text = "Émile's café, naïve " * 20_000  # 400,000 characters, more bytes
    digest = s.put_text(code, token, text, "austen.txt")
    assert digest == hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]
    assert s.text(code.lower()) == {"digest": digest, "name": "austen.txt", "text": text}
    for wrong in ("", "s1", None):
        with pytest.raises(NotTeacher):
            s.put_text(code, wrong, "another text", "x.txt")
    assert s.text(code)["text"] == text
    with pytest.raises(rooms.TextTooLarge):
        s.put_text(code, token, "a" * (rooms.MAX_TEXT_BYTES + 1), "big.txt")
    s.close(code, token)
    assert s.text(code) is None  # closing the room drops its text


@pytest.mark.parametrize("make_store", ["memory"], indirect=True)  # on a fake clock
def test_a_rooms_text_lives_as_long_as_the_room(make_store):
    s, clock = make_store(grace=100)
    code, token = s.create(SETTINGS)
    s.put_text(code, token, "some text", "t.txt")
    clock.t += 90
    s.beat(code, token)
    clock.t += 90
    assert s.text(code) is not None and s.room(code) is not None
    clock.t += 11
    assert s.text(code) is None and s.room(code) is None


def test_the_room_text_limit_is_the_players_training_limit():
    from appstate import sources

    assert rooms.MAX_TEXT_BYTES == sources.MAX_TRAIN_BYTES


def test_the_teacher_closes_the_room(make_store):
    s, _ = make_store()
    code, token = s.create(SETTINGS)
    s.join(code, "s1")
    s.close(code, token)
    assert s.room(code) is None
    with pytest.raises(NoSuchRoom):
        s.set_play(code, token, merge=1, speed=2, playing=False)


def test_poll_counts_equal_the_answers_and_hold_no_names(make_store):
    s, _ = make_store()
    code, token = s.create(SETTINGS)
    for i in range(5):
        s.join(code, f"s{i}")
    pid = s.open_poll(code, token, k=7, n=4)
    for student, choice in (("s0", 1), ("s1", 1), ("s2", 3), ("s3", 0), ("s3", 1)):  # s3 changes its mind
        s.answer(code, student, pid, choice)
    room = s.room(code)
    assert rooms.poll_counts(room) == [0, 3, 0, 1]
    with pytest.raises(PollClosed):
        s.answer(code, "s4", pid, 4)  # no such option
    with pytest.raises(PollClosed):
        s.answer(code, "s4", pid + 1, 0)  # another poll
    with pytest.raises(NotTeacher):
        s.answer(code, "stranger", pid, 0)  # not in the room
    s.reveal(code, token)
    with pytest.raises(PollClosed):
        s.answer(code, "s4", pid, 0)  # revealed: closed
    room = s.room(code)
    assert room["poll"]["revealed"] and rooms.poll_counts(room) == [0, 3, 0, 1]
    assert s.open_poll(code, token, k=8, n=3) == pid + 1
    assert rooms.poll_counts(s.room(code)) == [0, 0, 0]


def test_answers_per_student_are_bounded(make_store):
    s, _ = make_store(max_answers=3)
    code, token = s.create(SETTINGS)
    s.join(code, "s1")
    pid = s.open_poll(code, token, k=0, n=2)
    for _ in range(3):
        s.answer(code, "s1", pid, 0)
    with pytest.raises(RateLimited):
        s.answer(code, "s1", pid, 1)
    assert rooms.poll_counts(s.room(code)) == [1, 0]


def test_concurrent_answers_are_all_counted(make_store):
    s, _ = make_store()
    code, token = s.create(SETTINGS)
    for i in range(40):
        s.join(code, f"s{i}")
    pid = s.open_poll(code, token, k=0, n=4)
    threads = [threading.Thread(target=s.answer, args=(code, f"s{i}", pid, i % 4)) for i in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert rooms.poll_counts(s.room(code)) == [10, 10, 10, 10]


def test_concurrent_joins_and_beats_seat_exactly_the_limits(make_store):
    """Sessions joining at once (16 threads), while the presence beat says the seated ones are there: one
    address holds exactly SEATS_PER_ADDRESS places, the room exactly MAX_STUDENTS (each write of the room is
    atomic: a WATCH/MULTI transaction in Redis, retried when another wrote first)."""
    s, _ = make_store()
    code, _ = s.create(SETTINGS)
    seated: list[tuple[str, str]] = []
    refused: list[type] = []

    def join(sid: str, address: str) -> None:
        try:
            s.join(code, sid, address)
            seated.append((sid, address))
        except (RoomFull, TooManyHere) as exc:
            refused.append(type(exc))

    def run(joins: list[tuple[str, str]]) -> None:
        threads = [threading.Thread(target=lambda part=joins[i::16]: [join(*j) for j in part]) for i in range(16)]
        beats = []
        beat = threading.Thread(target=lambda: [beats.append(s.seen(code, list(seated))) for _ in range(20)])
        for t in [*threads, beat]:
            t.start()
        for t in [*threads, beat]:
            t.join()
        assert all(n <= rooms.MAX_STUDENTS for n in beats)

    run([(f"nat-{i}", "203.0.113.9") for i in range(12)])  # one address (a NAT)
    assert (len(seated), refused) == (rooms.SEATS_PER_ADDRESS, [TooManyHere] * (12 - rooms.SEATS_PER_ADDRESS))
    run([(f"s{i}", f"198.51.{100 + i // 200}.{1 + i % 200}") for i in range(205)])  # each its own address
    room = s.room(code)
    assert len(room["students"]) == rooms.MAX_STUDENTS == len(seated) == s.seen(code, seated)
    assert sorted(room["students"]) == sorted(sid for sid, _ in seated)
    assert refused.count(RoomFull) == 205 + rooms.SEATS_PER_ADDRESS - rooms.MAX_STUDENTS


def test_store_from_url_picks_the_backend():
    assert isinstance(rooms.store_from_url(None).backend, MemoryBackend)
    assert isinstance(rooms.store_from_url("memory").backend, MemoryBackend)
    assert isinstance(rooms.store_from_url("redis://127.0.0.1:1/0").backend, rooms.RedisBackend)
    with pytest.raises(ValueError):
        rooms.store_from_url("http://example.invalid/")


def test_a_redis_store_is_shared_by_two_clients(redis_url):
    """Two processes behind the front are two clients of one Redis: a room made by one is seen by the other."""
    a, b = rooms.store_from_url(redis_url), rooms.store_from_url(redis_url)
    code, token = a.create(SETTINGS)
    b.join(code, "s1")
    a.set_play(code, token, merge=12, speed=2, playing=False)
    assert b.room(code)["play"]["merge"] == 12
    a.close(code, token)


def test_the_long_poll_answers_when_the_teacher_acts_and_not_before():
    """PlayWatch (the students' route): a browser that has the latest versions waits; the teacher's action
    answers it with the new play state; a question (sig) answers it too; a closed room answers None."""
    import asyncio

    s = RoomStore(MemoryBackend())
    code, token = s.create(SETTINGS)
    watch = rooms.PlayWatch(lambda: s, interval=0.01)

    async def scenario():
        first = await watch.wait(code, None, 5)  # no versions yet: at once
        since = (first["v"], first["sig"])
        waiting = asyncio.ensure_future(watch.wait(code, since, 30))
        for _ in range(5):
            await asyncio.sleep(0)
        assert not waiting.done()  # nothing happened: it waits
        s.set_play(code, token, merge=9, speed=5, playing=True)
        got = await asyncio.wait_for(waiting, 30)
        assert (got["merge"], got["speed"], got["playing"], got["v"]) == (9, 5, True, first["v"] + 1)
        waiting = asyncio.ensure_future(watch.wait(code, (got["v"], got["sig"]), 30))
        s.open_poll(code, token, k=3, n=4)
        polled = await asyncio.wait_for(waiting, 30)
        assert polled["sig"] == got["sig"] + 1 and polled["v"] == got["v"]
        waiting = asyncio.ensure_future(watch.wait(code, (polled["v"], polled["sig"]), 30))
        s.close(code, token)
        assert await asyncio.wait_for(waiting, 30) is None
        assert await watch.wait("ZZZZZZ", (1, 0), 30) is None  # no such room: at once
        assert watch.waiters == {}

    aio.run(scenario())  # a loop of its own: Playwright may run one in this thread


def test_the_play_route_counts_unknown_codes_against_guessing():
    s = RoomStore(MemoryBackend(), bad_code_limit=2)
    assert s.play("ZZZZZZ") is None and s.play("<script>") is None
    with pytest.raises(RateLimited):
        s.play("YYYYYY")
