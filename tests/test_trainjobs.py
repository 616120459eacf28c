"""The app's trainings in worker processes (guard.trainjobs.SharedTraining, appstate.runs._RunCache.get_or_start):
shared by identical requests, progress to every waiter, the deadline, killed once nobody waits.

The worker runs ``slow_count`` below (importable by name, as guard.isolation requires): it reports its
progress and records its pid in a file, so a test can see whether the process still exists.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from helpers import wait_for

import bpe
from appstate.runs import _RunCache
from guard import trainjobs

pytestmark = pytest.mark.skipif(not trainjobs.available(), reason="no worker processes on this platform")


def slow_count(n: int, delay: float, pid_file: str = "", progress=None) -> int:
    """Count to ``n``, ``delay`` seconds a step, reporting progress; write our pid to ``pid_file`` first."""
    if pid_file:
        Path(pid_file).write_text(str(os.getpid()))
    for i in range(n):
        time.sleep(delay)
        if progress is not None:
            progress(i + 1, n)
    return n


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def pid_of(pid_file: Path) -> int:
    assert wait_for(lambda: pid_file.exists() and pid_file.read_text())
    return int(pid_file.read_text())


def slow_run(n: int, delay: float, progress=None) -> bpe.Run:
    """``slow_count``, then a tiny run (the run cache counts merges)."""
    slow_count(n, delay, progress=progress)
    return bpe.train("aaabdaaabac", 259, pattern=None)


def test_a_training_runs_in_a_worker():
    t = trainjobs.SharedTraining(bpe.train, ("hello world " * 200, 300), {"pattern": "gpt4"}, seconds=60)
    assert t.join()
    run = t.wait()
    # the same run as in this process (the worker's copy comes back pickled)
    here = bpe.train("hello world " * 200, 300, pattern="gpt4")
    assert [m.pair for m in run.merges] == [m.pair for m in here.merges]
    assert [m.top_pairs for m in run.merges] == [m.top_pairs for m in here.merges]


def test_progress_reaches_the_waiter():
    t = trainjobs.SharedTraining(slow_count, (20, 0.05), {}, seconds=60)
    t.join()
    seen = []
    assert t.wait(progress=lambda done, total: seen.append((done, total))) == 20
    assert len(seen) >= 3 and seen == sorted(seen) and all(total == 20 for _, total in seen)


def test_a_training_shorter_than_one_look_still_reports_its_last_progress():
    """The waiter looks every ``poll`` seconds; a training that ends between two looks still moves the bar
    once, to its last report (the player's progress bar on a quick retraining)."""
    t = trainjobs.SharedTraining(slow_count, (5, 0.01), {}, seconds=60)
    t.join()
    seen = []
    assert t.wait(progress=lambda done, total: seen.append((done, total)), poll=5) == 5
    assert seen == [(5, 5)]


def test_a_progress_callback_failing_on_the_last_report_still_leaves():
    """Streamlit may interrupt the script in the bar's last update (after the result came): the waiter
    still leaves, so the training does not count a watcher that is gone."""
    t = trainjobs.SharedTraining(slow_count, (5, 0.01), {}, seconds=60)
    t.join()

    def bar(done, total):
        raise RuntimeError("rerun requested")

    with pytest.raises(RuntimeError):
        t.wait(progress=bar, poll=5)
    assert t.watchers == 0


def test_identical_requests_share_one_worker(tmp_path):
    cache = _RunCache(entries=4)
    starts = []

    def start(**hooks):
        starts.append(1)
        return trainjobs.SharedTraining(slow_run, (10, 0.05), {}, **hooks)

    results, progress = [], []
    threads = [
        threading.Thread(
            target=lambda: results.append(cache.get_or_start("k", start, progress=lambda d, n: progress.append(d)))
        )
        for _ in range(6)
    ]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    assert len(starts) == 1 and len(results) == 6 and all(r is results[0] for r in results)
    assert cache.get("k") is results[0] and not cache._pending  # cached; nothing left running
    # each waiter gets the latest progress at each look (not every report), and the last one
    assert progress.count(10) == 6 and max(progress) == 10 and results[0].merges[0].token == b"aa"


def test_a_waiter_that_must_stop_leaves_and_the_last_one_kills_the_worker(tmp_path):
    pid_file = tmp_path / "pid"
    t = trainjobs.SharedTraining(slow_count, (1000, 0.05, str(pid_file)), {}, seconds=120)
    assert t.join() and t.join()  # two sessions wait
    pid = pid_of(pid_file)
    stop_first = threading.Event()
    outcome = {}

    def first():
        try:
            t.wait(should_stop=stop_first.is_set)
        except trainjobs.TrainingAbandoned:
            outcome["first"] = "left"

    th = threading.Thread(target=first)
    th.start()
    stop_first.set()  # the first session's tab closed
    th.join(10)
    assert outcome == {"first": "left"}
    time.sleep(0.3)
    assert alive(pid) and not t.done  # the second still waits: the worker goes on
    with pytest.raises(trainjobs.TrainingAbandoned):
        t.wait(should_stop=lambda: True)  # the second leaves too
    assert wait_for(lambda: t.done and not alive(pid), 10), "the worker is killed once nobody waits"
    assert t.cancelled and not t.join()  # a cancelled training takes no new waiters


def test_a_cancelled_training_is_not_joined_by_a_new_request():
    cache = _RunCache(entries=4)

    def start(**hooks):
        return trainjobs.SharedTraining(slow_run, (5, 0.05), {}, **hooks)

    first = trainjobs.SharedTraining(slow_run, (1000, 0.05), {}, on_end=lambda t: cache._ended("k", t))
    cache._pending["k"] = first
    first.join()
    with pytest.raises(trainjobs.TrainingAbandoned):
        first.wait(should_stop=lambda: True)
    # whether or not the cancelled one is still listed, a new request trains anew and gets its result
    assert len(cache.get_or_start("k", start).merges) == 3


def test_the_deadline_kills_the_worker_and_names_the_limit(tmp_path):
    pid_file = tmp_path / "pid"
    t0 = time.monotonic()
    t = trainjobs.SharedTraining(slow_count, (1000, 0.05, str(pid_file)), {}, seconds=1.5)
    t.join()
    with pytest.raises(trainjobs.TrainingTooLong, match=r"stopped after 1\.5 s, the app’s limit"):
        t.wait()
    assert time.monotonic() - t0 < 10  # a hang detector: 1.5 s measured (the limit), over 5x
    # (on a loaded machine the worker may be killed before it has written its pid: nothing more to check)
    if pid_file.exists() and pid_file.read_text():
        assert wait_for(lambda: not alive(int(pid_file.read_text())), 10)


def test_an_error_of_the_training_reaches_every_waiter_as_its_own_exception():
    t = trainjobs.SharedTraining(bpe.train, ("abc", 10), {"pattern": None}, seconds=30)
    t.join()
    t.join()
    with pytest.raises(bpe.TrainingDataError, match="below the base vocabulary") as one:
        t.wait()
    with pytest.raises(bpe.TrainingDataError) as two:
        t.wait()
    assert one.value is not two.value


def test_a_failing_progress_callback_leaves_the_training():
    """Streamlit interrupts a script inside a progress bar update (a rerun): the waiter leaves."""
    t = trainjobs.SharedTraining(slow_count, (1000, 0.02), {}, seconds=60)
    t.join()

    class Rerun(BaseException):
        pass

    def bar(done, total):
        raise Rerun

    with pytest.raises(Rerun):
        t.wait(progress=bar)
    assert wait_for(lambda: t.done, 10) and t.cancelled


def test_outside_a_streamlit_script_nothing_asks_to_stop():
    assert trainjobs.script_should_stop() is False


def test_the_module_examples_hold():
    import doctest

    assert doctest.testmod(trainjobs).failed == 0


# ----------------------------------------------------------------------------------------------------
# Issue 21, item 5: trainings wait in line under a cap, one at a time per session, their place told.


class Waiter(threading.Thread):
    """One session waiting for ``training`` in a thread: its result (or exception) and every place in line
    it was told."""

    def __init__(self, training, owner=None, stop=None):
        super().__init__(daemon=True)
        self.training, self.owner, self.stop = training, owner, stop
        self.places, self.result, self.error = [], None, None
        assert training.join(owner)

    def run(self):
        try:
            self.result = self.training.wait(
                should_stop=self.stop, owner=self.owner, queued=lambda *place: self.places.append(place)
            )
        except BaseException as exc:  # noqa: BLE001
            self.error = exc


def test_trainings_wait_in_line_under_the_cap_and_are_told_their_place(tmp_path):
    queue = trainjobs.TrainingQueue(2)
    release = tmp_path / "go"
    pids = [tmp_path / f"pid{i}" for i in range(5)]
    trainings = [
        trainjobs.SharedTraining(gated_count, (str(p), str(release)), {}, seconds=120, queue=queue) for p in pids
    ]
    waiters = [Waiter(t, owner=f"session-{i}") for i, t in enumerate(trainings)]
    for w in waiters:
        w.start()
    assert wait_for(lambda: pids[0].exists() and pids[1].exists())
    assert [t.position for t in trainings] == [0, 0, 1, 2, 3]  # two run, three in line, in order
    assert queue.running_count() == 2 and not any(p.exists() for p in pids[2:])  # no worker for those
    assert wait_for(lambda: [w.places[:1] for w in waiters[2:]] == [[(1, 2, 2)], [(2, 2, 2)], [(3, 2, 2)]])
    assert waiters[0].places == waiters[1].places == []  # never in line: never told
    release.write_text("go")  # every training may finish now
    for w in waiters:
        w.join(60)
    assert [w.result for w in waiters] == [7] * 5 and not any(w.error for w in waiters)
    # each waiting one heard its place go down to the front, then 0 when its worker started
    for w in waiters[2:]:
        positions = [p for p, _, _ in w.places]
        assert positions == sorted(positions, reverse=True) and positions[-1] == 0, w.places
    assert queue.running_count() == 0 and queue.waiting_count() == 0


def test_one_session_runs_one_training_at_a_time(tmp_path):
    queue = trainjobs.TrainingQueue(2)  # a free slot, but the session already has a training
    release = tmp_path / "go"
    first = trainjobs.SharedTraining(gated_count, (str(tmp_path / "a"), str(release)), {}, queue=queue)
    second = trainjobs.SharedTraining(gated_count, (str(tmp_path / "b"), str(release)), {}, queue=queue)
    other = trainjobs.SharedTraining(gated_count, (str(tmp_path / "c"), str(release)), {}, queue=queue)
    w1, w2 = Waiter(first, "s1"), Waiter(second, "s1")
    w3 = Waiter(other, "s2")  # behind s1's second in line, but of another session
    for w in (w1, w2, w3):
        w.start()
    assert wait_for(lambda: (tmp_path / "a").exists() and (tmp_path / "c").exists())
    assert second.position == 1 and not (tmp_path / "b").exists()
    release.write_text("go")
    for w in (w1, w2, w3):
        w.join(60)
    assert (w1.result, w2.result, w3.result) == (7, 7, 7)


def test_a_training_whose_session_leaves_while_in_line_never_starts_a_worker(tmp_path):
    queue = trainjobs.TrainingQueue(1)
    release = tmp_path / "go"
    running = trainjobs.SharedTraining(gated_count, (str(tmp_path / "a"), str(release)), {}, queue=queue)
    waiting = trainjobs.SharedTraining(gated_count, (str(tmp_path / "b"), str(release)), {}, queue=queue)
    behind = trainjobs.SharedTraining(gated_count, (str(tmp_path / "c"), str(release)), {}, queue=queue)
    leave = threading.Event()
    w1, w2, w3 = Waiter(running, "s1"), Waiter(waiting, "s2", stop=leave.is_set), Waiter(behind, "s3")
    for w in (w1, w2, w3):
        w.start()
    assert wait_for(lambda: (tmp_path / "a").exists() and behind.position == 2)
    leave.set()  # s2's tab closes while it waits in line
    w2.join(10)
    assert isinstance(w2.error, trainjobs.TrainingAbandoned)
    assert wait_for(lambda: waiting.done) and waiting.cancelled and behind.position == 1
    release.write_text("go")
    for w in (w1, w3):
        w.join(60)
    assert (w1.result, w3.result) == (7, 7) and not (tmp_path / "b").exists()  # s2's worker never started
    assert queue.running_count() == 0 and queue.waiting_count() == 0


def gated_count(pid_file: str, release_file: str, progress=None) -> int:
    """Write our pid, then wait until ``release_file`` exists (the test says when trainings may end)."""
    Path(pid_file).write_text(str(os.getpid()))
    while not os.path.exists(release_file):
        time.sleep(0.01)
    return 7


def test_the_cap_is_the_cores_unless_the_environment_says(monkeypatch):
    monkeypatch.setenv("BPE_LAB_MAX_TRAININGS", "3")
    assert trainjobs._max_trainings() == 3
    for bad in ("0", "-1", "x", "9" * 5000, ""):
        monkeypatch.setenv("BPE_LAB_MAX_TRAININGS", bad)
        assert trainjobs._max_trainings() == len(os.sched_getaffinity(0))
