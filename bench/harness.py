"""What only the benchmarks need beside :mod:`testkit.app_server` (the app launcher and ``/proc`` readings the
tests share): where results go, the app started with its log there, a lowered or favoured priority for the
load tests' browsers, and a whole ``python -m deploy.serve`` deployment.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

from deploy.machine import free_loopback_port
from testkit import app_server
from testkit.app_server import ROOT, stop_server

RESULTS = ROOT / "bench" / "results"


def start_server(
    log_name: str = "server.log",
    extra_args: tuple[str, ...] = (),
    *,
    log_dir: Path = RESULTS,
    env: dict[str, str] | None = None,
    root: Path = ROOT,
) -> tuple[subprocess.Popen, str]:
    """:func:`testkit.app_server.start_server`, its log in ``bench/results/`` unless told otherwise."""
    return app_server.start_server(log_name, extra_args, log_dir=log_dir, env=env, root=root)


def lowered(command: list[str], niceness: int, idle: bool = False) -> list[str]:
    """``command`` run at ``niceness``, and with ``idle`` under Linux's SCHED_IDLE policy as well (``chrt
    --idle``: it runs only when no other process wants the CPU); its children (a Playwright driver, the
    Chromium it starts) inherit both. A lecture's browsers run on the students' machines, not on the server:
    a load test that runs them on the server's cores lowers their priority so the servers get the CPU they
    would have.

    >>> lowered(["python", "-V"], 19, idle=True)
    ['chrt', '--idle', '0', 'nice', '-n', '19', 'python', '-V']
    >>> lowered(["python", "-V"], 0)
    ['python', '-V']
    """
    prefix = (["chrt", "--idle", "0"] if idle else []) + (["nice", "-n", str(niceness)] if niceness > 0 else [])
    return prefix + list(command)


#: cgroup v1's cpu controller (Debian 12 under firecracker here; a cgroup v2 machine has no such folder)
CPU_CGROUP = Path("/sys/fs/cgroup/cpu")


@contextlib.contextmanager
def favoured(name: str = "bpe-lab-probe", shares: int = 262144):
    """Run the block in a cpu cgroup of its own weighted ``shares`` (the most v1 allows; a process at nice
    0 weighs 1024): the processes started in the block (a Playwright driver, the Chromium it starts, every
    process and thread of that Chromium) get the CPU they ask for before the servers and the crowd do, as
    on a machine of their own. A cgroup, not a niceness: Chromium sets its own processes' niceness (its
    renderers to 0) but stays in its cgroup. Yields the cgroup's path, or None where it cannot be made (no
    cgroup v1 cpu controller, not root): the block then runs as it would have, and the caller says so.
    The group stays until :func:`drop_favoured` (its processes must have ended)."""
    group, moved = CPU_CGROUP / name, False
    tid = str(threading.get_native_id())
    try:
        group.mkdir(exist_ok=True)
        (group / "cpu.shares").write_text(str(shares))
        (group / "tasks").write_text(tid)  # this thread; what it starts from now on is born there
        moved = True
    except OSError:
        pass
    try:
        yield group if moved else None
    finally:
        if moved:
            (CPU_CGROUP / "tasks").write_text(tid)


def drop_favoured(name: str = "bpe-lab-probe") -> None:
    """Remove :func:`favoured`'s cgroup once nothing runs in it (nothing to do if it was never made)."""
    try:
        (CPU_CGROUP / name).rmdir()
    except OSError:
        pass


@contextlib.contextmanager
def favoured_if(on: bool, name: str):
    """:func:`favoured` (saying whether its cgroup was made) and then :func:`drop_favoured` when ``on``; nothing
    otherwise. Yields the cgroup's path or None."""
    if not on:
        yield None
        return
    try:
        with favoured(name) as group:
            print(f"favoured cpu cgroup: {group or 'not made (no cgroup v1 cpu controller, or not root)'}")
            yield group
    finally:
        drop_favoured(name)


class Deployment:
    """``python -m deploy.serve``: ``processes`` Streamlit processes behind nginx on a free loopback port.

    ``url`` is nginx's; ``pids`` the Streamlit processes' (read from the deployment's ``state.json``)."""

    def __init__(self, processes: int, run_dir: Path):
        self.run_dir = run_dir
        port = free_loopback_port()
        self.log = open(RESULTS / "load-deploy.log", "w")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "deploy.serve",
                "--processes",
                str(processes),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--run-dir",
                str(run_dir),
            ],
            cwd=ROOT,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        state = run_dir / "state.json"
        deadline = time.time() + 90
        while time.time() < deadline and self.proc.poll() is None:
            try:
                info = json.loads(state.read_text())
                if info.get("ready"):
                    self.url = info["url"].rstrip("/") + "/"
                    self.pids = [p["pid"] for p in info["processes"]]
                    return
            except (OSError, ValueError):
                pass
            time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"the deployment did not start; see {self.log.name}")

    def stop(self) -> None:
        stop_server(self.proc, timeout=30)
