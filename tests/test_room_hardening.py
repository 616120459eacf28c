"""A live room nobody can jam (issue 32, items 3, 4, 5, 6 and 8), each with the issue's repro, on the store
(both backends: a fake clock, no waiting), the long poll (asyncio, a counting store), the HTTP route
(Starlette's test client), a private ``redis-server`` frozen with ``kill -STOP``, and the app (AppTest).
The same in a real browser against a real server: tests/browser/test_room_hardening_browser.py.
"""

from __future__ import annotations

import asyncio
import time

import pytest
import test_rooms
from helpers import html_bodies, no_exception, open_app
from starlette.applications import Starlette
from starlette.routing import Route
from starlette.testclient import TestClient
from test_rooms import SETTINGS, Clock

import liveroom as rooms
from appstate import keys
from liveroom import (
    MemoryBackend,
    NoSuchRoom,
    RateLimited,
    RoomFull,
    RoomStore,
    TooManyHere,
    Unavailable,
    endpoint,
    roomstore,
)
from liveroom import presence as room_presence
from testkit import aio, redis_server

make_store = test_rooms.make_store  # the store's fixture: both backends (memory, Redis), a fake clock


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):  # (test_rooms' make_store asks for it by this name)
    if redis_server.find() is None:
        pytest.skip("redis-server is not installed (Debian's redis-server; scripts/test.sh installs it)")
    proc, url = redis_server.start(tmp_path_factory.mktemp("redis"))
    yield url
    redis_server.stop(proc)


# ----------------------------------------------------------------------------------------------------
# Item 3: rooms count people who are there


def test_205_sessions_fill_the_room_then_leave_and_a_real_student_joins(make_store):
    s, clock = make_store()
    code, _ = s.create(SETTINGS)
    taken = refused = 0
    for i in range(205):  # the repro: every session a new id, each its own address
        try:
            s.join(code, f"attacker-{i}", f"198.51.100.{i % 250 + 1}" if i < 250 else None)
            taken += 1
        except RoomFull:
            refused += 1
    assert (taken, refused) == (200, 5)
    with pytest.raises(RoomFull):
        s.join(code, "real-student", "192.0.2.7")  # while they are there, the room is full
    clock.t += rooms.STUDENT_TTL + 1  # they left: no session of theirs says otherwise
    assert rooms.present(s.room(code), clock.t) == 0
    room = s.join(code, "real-student", "192.0.2.7")
    assert list(room["students"]) == ["real-student"]  # the join pruned the 200
    assert list(room["addrs"]) == ["real-student"]


def test_a_student_whose_session_is_alive_keeps_their_place(make_store):
    s, clock = make_store()
    code, _ = s.create(SETTINGS)
    for sid in ("s1", "s2", "s3"):
        s.join(code, sid)
    counts = []
    for _ in range(4):  # 80 s: s1 and s2's sessions say they are there
        clock.t += 20
        counts.append(s.seen(code, [("s1", None), ("s2", None)]))
    assert counts == [3, 2, 2, 2]  # s3's session went quiet at the start
    assert rooms.present(s.room(code), clock.t) == 2
    room = s.join(code, "s4")
    assert sorted(room["students"]) == ["s1", "s2", "s4"]


def test_a_session_pruned_while_the_store_was_away_is_seated_again(make_store):
    s, clock = make_store()
    code, _ = s.create(SETTINGS)
    s.join(code, "s1", "192.0.2.1")
    clock.t += rooms.STUDENT_TTL + 5
    s.join(code, "s2", "192.0.2.2")  # prunes s1 (not seen for a while)
    assert "s1" not in s.room(code)["students"]
    assert s.seen(code, [("s1", "192.0.2.1")]) == 2  # s1's session is alive: back in
    assert s.room(code)["addrs"]["s1"] == "192.0.2.1"


def test_seen_on_a_closed_room_says_so(make_store):
    s, _ = make_store()
    code, token = s.create(SETTINGS)
    s.close(code, token)
    with pytest.raises(NoSuchRoom):
        s.seen(code, [("s1", None)])


def test_the_presence_thread_beats_live_sessions_only_and_forgets_closed_rooms(monkeypatch):
    clock = Clock()
    s = RoomStore(MemoryBackend(), clock=clock)
    code, token = s.create(SETTINGS)
    other, other_token = s.create(SETTINGS)
    for sid in ("a", "b"):
        s.join(code, sid)
    s.join(other, "c")
    monkeypatch.setattr(
        room_presence,
        "_SESSIONS",
        {"sess-a": [code, "a", None, 0.0], "sess-b": [code, "b", None, 0.0], "sess-c": [other, "c", None, 0.0]},
    )
    alive = {"sess-a", "sess-c"}
    clock.t += 20
    assert room_presence.beat_once(s, alive.__contains__, now=10.0) == {code: 2, other: 1}  # b still counts
    clock.t += 20
    room_presence.beat_once(s, alive.__contains__, now=20.0)
    assert rooms.present(s.room(code), clock.t) == 1  # b's browser went away 40 s ago
    s.close(other, other_token)
    room_presence.beat_once(s, alive.__contains__, now=30.0)
    assert set(room_presence.registered()) == {"sess-a", "sess-b"}  # c's room closed: forgotten
    room_presence.beat_once(s, alive.__contains__, now=30.0 + room_presence.FORGET + 1)
    assert set(room_presence.registered()) == {"sess-a"}  # b never came back: forgotten


# ----------------------------------------------------------------------------------------------------
# Items 3 and 8: one client address


def test_one_address_takes_a_few_places(make_store):
    s, clock = make_store(seats_per_address=4)
    code, _ = s.create(SETTINGS)
    for i in range(4):
        s.join(code, f"a{i}", "203.0.113.9")
    with pytest.raises(TooManyHere, match="4 students from your address"):
        s.join(code, "a4", "203.0.113.9")
    s.join(code, "a0", "203.0.113.9")  # one already seated rejoins (a reload)
    s.join(code, "b0", "203.0.113.10")  # another address
    for i in range(4):  # one IPv6 subscriber's /64 is one address
        s.join(code, f"v{i}", f"2001:db8:0:1::{i + 1}")
    with pytest.raises(TooManyHere):
        s.join(code, "v4", "2001:db8:0:1:ffff::9")
    clock.t += rooms.STUDENT_TTL + 1  # they left
    s.join(code, "a4", "203.0.113.9")


def test_the_teachers_own_address_is_not_limited(make_store):
    """A lecture hall reaches the server through one NAT address, the teacher's too: its students all sit."""
    s, _ = make_store(seats_per_address=4)
    code, _ = s.create(SETTINGS, address="198.51.100.7")
    for i in range(30):
        s.join(code, f"h{i}", "198.51.100.7")
    for i in range(4):
        s.join(code, f"o{i}", "203.0.113.9")
    with pytest.raises(TooManyHere):
        s.join(code, "o4", "203.0.113.9")


def test_the_seats_per_address_come_from_the_environment(monkeypatch):
    monkeypatch.setenv(rooms.SEATS_ENV, "0")  # a hall behind one NAT address: no limit
    assert RoomStore(MemoryBackend()).seats_per_address == 0
    monkeypatch.setenv(rooms.SEATS_ENV, "12")
    assert RoomStore(MemoryBackend()).seats_per_address == 12
    monkeypatch.setenv(rooms.SEATS_ENV, "lots")
    assert RoomStore(MemoryBackend()).seats_per_address == rooms.SEATS_PER_ADDRESS


def test_one_address_spends_its_own_unknown_code_budget_not_everyones(make_store):
    s, _ = make_store()
    code, _ = s.create(SETTINGS)
    for i in range(rooms.BAD_CODE_PER_ADDRESS):  # the repro: 600 bad codes from one client
        with pytest.raises(NoSuchRoom):
            s.join("ZZZZZZ", f"x{i}", "203.0.113.66")
    with pytest.raises(RateLimited, match="from your address"):
        s.join("ZZZZZZ", "x-last", "203.0.113.66")
    with pytest.raises(RateLimited, match="from your address"):
        s.play("ZZZZZZ", "203.0.113.66")
    with pytest.raises(NoSuchRoom):  # a student who mistypes a code is told so
        s.join("ZZZZZY", "student", "192.0.2.8")
    assert s.play("ZZZZZY", "192.0.2.8") is None
    assert s.join(code, "student", "192.0.2.8")["code"] == code


@pytest.mark.parametrize(
    ("ip", "key"),
    [("::1", "local"), ("::ffff:192.0.2.1", "192.0.2.1"), ("2001:db8::1", "2001:db8::/64"), ("testclient", None)],
)
def test_address_keys(ip, key):
    got = rooms.address_key(ip)
    assert got == key if key is not None else got.startswith("?")


# ----------------------------------------------------------------------------------------------------
# Item 4: the long poll's waiters are keyed by the canonical code


class CountingStore:
    """A store whose :meth:`play` counts its calls (the long poll's cost)."""

    def __init__(self) -> None:
        self.inner = RoomStore(MemoryBackend())
        self.backend = self.inner.backend
        self.calls = 0

    def play(self, code, address=None):
        self.calls += 1
        return self.inner.play(code, address)


def test_every_spelling_of_a_room_shares_one_watch():
    store = CountingStore()
    code, token = store.inner.create(SETTINGS)
    # the repro: 7KQ2MX, 7kq-2mx, 7K%20Q2MX... -- 250 spellings (each gap "", "-" or " "; either case)
    spellings = []
    for i in range(250):
        word = code if i % 2 else code.lower()
        gaps = [("", "-", " ")[(i // 2 // 3**g) % 3] for g in range(5)]
        spellings.append(word[0] + "".join(g + ch for g, ch in zip(gaps, word[1:])))
    assert len(set(spellings)) == 250 and {rooms.normalize_code(x) for x in spellings} == {code}
    watch = rooms.PlayWatch(lambda: store, interval=0.01)

    async def scenario():
        since = (1, 0)
        waits = [asyncio.ensure_future(watch.wait(x, since, 30)) for x in spellings]
        while len(watch.waiters.get(code, {})) < 250:
            await asyncio.sleep(0.005)
        assert list(watch.waiters) == [code]  # one watch, whatever the spelling
        before = store.calls
        ticks = 0
        while ticks < 20:
            await asyncio.sleep(0.01)
            ticks += 1
        per_look = (store.calls - before) / ticks
        store.inner.set_play(code, token, merge=7, speed=2, playing=False)
        answers = await asyncio.gather(*waits)
        return per_look, answers

    per_look, answers = aio.run(scenario())  # beside Playwright's loop too
    print(f"250 spellings: {per_look:.2f} store.play() a look")
    assert per_look < 10  # one store.play() a look, ~1 (was: one a spelling, 250)
    assert all(a["merge"] == 7 for a in answers)
    assert watch.waiters == {}


def test_a_spelling_that_is_no_code_is_answered_at_once_without_a_watch():
    store = CountingStore()
    watch = rooms.PlayWatch(lambda: store)
    assert aio.run(watch.wait("7KQ2M0", (1, 0), 30)) is None
    assert watch.waiters == {} and watch.task is None


# ----------------------------------------------------------------------------------------------------
# Item 5: every bad query value -> 400 JSON


@pytest.fixture
def client(monkeypatch):
    s = RoomStore(MemoryBackend())
    monkeypatch.setattr(roomstore, "_STORE", s)
    monkeypatch.setattr(endpoint, "_WATCH", None)
    app = Starlette(routes=[Route(rooms.PLAY_PATH, rooms.play_endpoint, methods=["GET"])])
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c, s


@pytest.mark.parametrize(
    "query",
    [
        "v=%C2%B2&s=0",
        "v=0&s=%E2%91%A0",
        "v=%D9%A3&s=0",
        "v=%EF%BC%93&s=0",
        "v=-1&s=0",
        "v=+1&s=0",
        "v=&s=0",
        "v=1.0&s=0",
        "v=0x1&s=0",
        "v=123456789012&s=0",
        "v=1&s=%00",
        "s=%C2%B2",
    ],
)
def test_a_bad_query_value_is_a_400_with_json(client, query):
    c, s = client
    code, _ = s.create(SETTINGS)
    r = c.get(f"/_bpe/room/{code}?{query}")
    assert r.status_code == 400
    assert r.headers["content-type"].startswith("application/json")
    assert r.json() == {"error": "v and s must be whole numbers (ASCII digits, at most 11)"}


def test_good_query_values_and_none_answer_the_play_state(client):
    c, s = client
    code, _ = s.create(SETTINGS)
    assert c.get(f"/_bpe/room/{code}").json()["v"] == 1
    assert c.get(f"/_bpe/room/{code}?v=0&s=0").json()["v"] == 1  # differs from the room's: at once
    assert c.get(f"/_bpe/room/{code}?v=5").json()["v"] == 1  # one of the two: no wait
    assert c.get("/_bpe/room/ZZZZZZ?v=0&s=0").status_code == 404


# ----------------------------------------------------------------------------------------------------
# Item 6: Redis frozen -> "unavailable" at once, and back when Redis is


@pytest.fixture
def frozen_redis(tmp_path):
    if redis_server.find() is None:
        pytest.skip("redis-server is not installed (Debian's redis-server; scripts/test.sh installs it)")
    proc, url = redis_server.start(tmp_path)
    yield proc, url
    redis_server.stop(proc)


def test_a_frozen_redis_is_unavailable_within_a_second_and_comes_back(frozen_redis):
    proc, url = frozen_redis
    s = rooms.store_from_url(url)
    code, token = s.create(SETTINGS)
    s.join(code, "s1")
    redis_server.freeze(proc)
    try:
        t0 = time.monotonic()
        with pytest.raises(Unavailable, match="unavailable right now"):
            s.join(code, "s2")
        first = time.monotonic() - t0
        t0 = time.monotonic()
        for call in (lambda: s.room(code), lambda: s.play(code), lambda: s.beat(code, token)):
            with pytest.raises(Unavailable):
                call()
        after = time.monotonic() - t0
        assert not s.available()
    finally:
        redis_server.thaw(proc)
    print(f"first call {first:.2f} s (timeout {rooms.REDIS_TIMEOUT} s), the next three {after * 1000:.1f} ms")
    assert first < 5 * 5 * rooms.REDIS_TIMEOUT  # a hang detector (measured: the timeout; it was 5 s a call)
    assert after < rooms.REDIS_TIMEOUT  # no wait at all (one is the timeout): known to be away
    deadline = time.monotonic() + 30
    while not s.available():  # back after rooms.REDIS_PAUSE
        assert time.monotonic() < deadline, "the store did not come back"
        time.sleep(0.1)
    assert s.join(code, "s2")["code"] == code  # the room survived the freeze


def test_a_redis_that_died_is_unavailable_and_one_restarted_is_used_again(tmp_path):
    if redis_server.find() is None:
        pytest.skip("redis-server is not installed (Debian's redis-server; scripts/test.sh installs it)")
    proc, url = redis_server.start(tmp_path)
    try:
        s = rooms.store_from_url(url)
        code, _ = s.create(SETTINGS)
        redis_server.stop(proc)  # deploy.serve restarts it (its rooms are lost)
        with pytest.raises(Unavailable):
            s.join(code, "s1")
        proc, again = redis_server.start(tmp_path)
        assert again == url
        deadline = time.monotonic() + 30
        while not s.available():
            assert time.monotonic() < deadline, "the store did not come back"
            time.sleep(0.1)
        with pytest.raises(NoSuchRoom):  # the room went with the old Redis, and says so
            s.join(code, "s1")
        assert s.join(s.create(SETTINGS)[0], "s1")
    finally:
        redis_server.stop(proc)


def test_the_route_answers_503_json_while_redis_is_frozen(frozen_redis, monkeypatch):
    proc, url = frozen_redis
    s = rooms.store_from_url(url)
    code, _ = s.create(SETTINGS)
    monkeypatch.setattr(roomstore, "_STORE", s)
    monkeypatch.setattr(endpoint, "_WATCH", None)
    app = Starlette(routes=[Route(rooms.PLAY_PATH, rooms.play_endpoint, methods=["GET"])])
    with TestClient(app, raise_server_exceptions=False) as c:
        redis_server.freeze(proc)
        try:
            r = c.get(f"/_bpe/room/{code}?v=1&s=0")
        finally:
            redis_server.thaw(proc)
        assert (r.status_code, r.json()) == (503, {"error": "unavailable"})


class DownBackend(MemoryBackend):
    """A backend that does not answer (as RedisBackend says when Redis is frozen) while ``down`` is set."""

    down = False

    def _check(self):
        if self.down:
            raise Unavailable(rooms.UNAVAILABLE)

    def available(self):
        return not self.down

    def get(self, *a):
        self._check()
        return super().get(*a)

    def update(self, *a):
        self._check()
        return super().update(*a)

    def count(self, *a):
        self._check()
        return super().count(*a)

    def touch(self, *a):
        self._check()
        return super().touch(*a)


def test_the_app_says_one_line_and_joins_when_the_store_is_back(monkeypatch):
    backend = DownBackend()
    s = RoomStore(backend)
    monkeypatch.setattr(roomstore, "_STORE", s)
    code, _ = s.create({"sample": "aaabdaaabac", "pattern": "none", "merges": 10})
    backend.down = True
    at = open_app(query={"join": code})  # the repro: "Something went wrong" before
    no_exception(at)
    assert at.session_state[keys.ROOM_JOIN_NOTE] == rooms.UNAVAILABLE
    assert keys.ROOM_JOIN not in at.session_state
    assert any("lr-unavailable" in b and rooms.UNAVAILABLE in b for b in html_bodies(at))
    assert not any("Something went wrong" in b for b in html_bodies(at))
    backend.down = False  # back: the next run (the notice's look) joins
    no_exception(at.run())
    assert at.session_state[keys.ROOM_JOIN] == code
    assert keys.ROOM_JOIN_NOTE not in at.session_state


def test_a_teacher_keeps_the_room_while_the_store_is_away(monkeypatch):
    backend = DownBackend()
    monkeypatch.setattr(roomstore, "_STORE", RoomStore(backend))
    at = open_app(query={"presenter": "1", "sample": "aaabdaaabac", "pattern": "none"})
    at.button(key="room_start").click()
    no_exception(at.run())
    held = at.session_state[keys.ROOM_LEAD]
    backend.down = True
    at.session_state[keys.ROOM_LEAD_BEAT] = 0.0  # a heartbeat is due
    no_exception(at.run())
    assert at.session_state[keys.ROOM_LEAD] == held
    assert any(rooms.UNAVAILABLE in b for b in html_bodies(at))
    backend.down = False
    no_exception(at.run())
    assert at.session_state[keys.ROOM_LEAD] == held and keys.ROOM_DOWN not in at.session_state
