"""Running ``python -m deploy.serve`` in tests: on free ports, in a temporary run dir, cleaned up after.

Used by ``tests/test_deploy.py`` (no browser) and ``tests/browser/test_deploy_browser.py`` (Chromium).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

from deploy.machine import free_loopback_port as free_port
from deploy.processes import die_with_parent as _die_with_parent
from testkit.app_server import children

ROOT = Path(__file__).resolve().parents[1]
NGINX = "/usr/sbin/nginx"


def need_nginx() -> None:
    if not os.access(NGINX, os.X_OK):
        pytest.fail(f"{NGINX} is missing: run `bash scripts/test.sh`, which installs Debian's nginx")


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0] != "Z"
    except (OSError, IndexError):
        return False


#: every deployment a test started and has not stopped (``stop_leftovers`` ends them)
_RUNNING: list["Deployment"] = []


class Deployment:
    """``python -m deploy.serve`` in a subprocess, on free ports, with its run dir under ``tmp``."""

    def __init__(self, run_dir: Path, processes: int = 2, extra: tuple[str, ...] = (), per_test: bool = True):
        """``per_test=False`` for a module fixture's deployment, which its fixture stops."""
        need_nginx()
        self.run_dir = run_dir
        self.port = free_port()
        self.out = open(run_dir.parent / f"{run_dir.name}-serve.out", "w")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "deploy.serve",
                "--processes",
                str(processes),
                "--port",
                str(self.port),
                "--host",
                "127.0.0.1",
                "--run-dir",
                str(run_dir),
                *extra,
            ],
            cwd=ROOT,
            stdout=self.out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )  # if pytest itself is killed, the deployment stops too
        if per_test:
            _RUNNING.append(self)
        deadline = time.monotonic() + 120
        while not self.ready():
            if self.proc.poll() is not None:
                raise RuntimeError(f"deploy.serve exited with {self.proc.returncode}: {self.output()}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the deployment was not ready within 120 s: {self.output()}")
            time.sleep(0.2)
        self.url = self.state()["url"]
        assert self.url.endswith(f"://127.0.0.1:{self.port}")

    def ready(self) -> bool:
        try:
            state = json.loads((self.run_dir / "state.json").read_text())
            return state["ready"] and state["serve_pid"] == self.proc.pid
        except (OSError, ValueError, KeyError):
            return False

    def state(self) -> dict:
        return json.loads((self.run_dir / "state.json").read_text())

    def output(self) -> str:
        if not self.out.closed:
            self.out.flush()
        return Path(self.out.name).read_text()

    def pids(self) -> list[int]:
        """This script, nginx's master and workers, every Streamlit process, the live rooms' redis-server."""
        st = self.state()
        pids = [self.proc.pid, st["nginx_pid"], *children(st["nginx_pid"])]
        return pids + [p["pid"] for p in st["processes"]] + ([st["redis_pid"]] if st.get("redis_pid") else [])

    def port_of(self, route: str) -> int:
        return next(p["port"] for p in self.state()["processes"] if p["name"] == route)

    def access_log(self) -> list[dict]:
        """nginx's access log: one dict per request (ua, request, status, upstream port that answered)."""
        rows = []
        for line in (self.run_dir / "logs" / "nginx-access.log").read_text().splitlines():
            m = re.search(
                r'"(?P<request>[^"]*)" (?P<status>\d+) \d+ "(?P<ua>[^"]*)" '
                r"upstream=(?P<upstream>.*?) route=(?P<route>\S*) ",
                line,
            )
            if m:
                last = m["upstream"].split(",")[-1].strip()
                port = int(last.rsplit(":", 1)[1]) if ":" in last else None
                rows.append({**m.groupdict(), "status": int(m["status"]), "port": port})
        return rows

    def logged(self, ua: str, count: int = 1, where=lambda row: True, timeout: float = 10.0) -> list[dict]:
        """The access log's lines of the client ``ua``, once ``count`` of them satisfy ``where``: nginx writes a
        request's line as it finishes the request, which can be a moment after the client read the response."""
        deadline = time.monotonic() + timeout
        while True:
            rows = [r for r in self.access_log() if r["ua"] == ua]
            if sum(1 for r in rows if where(r)) >= count or time.monotonic() > deadline:
                return rows
            time.sleep(0.05)

    def serves(self, route: str, timeout: float = 60.0) -> None:
        """Wait until nginx sends a request pinned to ``route`` (its cookie) to that process: after a process
        was killed and restarted, nginx keeps sending its sessions to another for a while (its upstream was
        marked failed), and a browser opened meanwhile is pinned there instead."""
        from deploy.nginx import COOKIE

        ua, port = f"bpelab-serves-{route}-{uuid.uuid4().hex[:6]}", self.port_of(route)
        deadline = time.monotonic() + timeout
        for n in range(1, 10_000):
            request = urllib.request.Request(
                self.url + "/_stcore/health", headers={"Cookie": f"{COOKIE}={route}", "User-Agent": ua}
            )
            with urllib.request.urlopen(request, timeout=10) as answer:
                answer.read()
            rows = self.logged(ua, count=n)
            if rows and rows[-1]["port"] == port:
                return
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"nginx still sends {route}'s sessions elsewhere after {timeout:.0f} s: {rows[-3:]}"
                )
            time.sleep(0.2)  # (a poll of nginx's routing, not of a page)

    def closed_log(self, uas: list[str], timeout: float = 15.0) -> list[dict]:
        """The access log once the browsers ``uas`` (closed by the caller) have their websockets logged:
        nginx writes a websocket's line when it closes, a moment after the browser went away."""
        deadline = time.monotonic() + timeout
        while True:
            log = self.access_log()
            streams = {r["ua"] for r in log if r["request"].startswith("GET /_stcore/stream ")}
            if set(uas) <= streams or time.monotonic() > deadline:
                time.sleep(0.5)  # a reconnected browser may have a second line coming
                return self.access_log()
            time.sleep(0.1)

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self in _RUNNING:
            _RUNNING.remove(self)
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self.out.close()
        return self.proc.returncode


def environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(x.decode().split("=", 1) for x in raw if b"=" in x)


def stopped_cleanly(dep: Deployment) -> None:
    """Stop ``dep`` (SIGTERM) and fail if any of its processes is still there 10 s later."""
    pids = dep.pids()
    dep.stop()
    deadline = time.monotonic() + 10
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in pids if alive(p)], "processes left behind"


def stop_leftovers() -> None:
    """Stop every deployment a failed test left running (SIGTERM, then SIGKILL of its process group)."""
    for dep in list(_RUNNING):
        dep.stop()


@pytest.fixture(autouse=True)
def _no_leftovers():
    """In a module that imports it: whatever a test started is stopped after it, even when it failed."""
    yield
    stop_leftovers()
