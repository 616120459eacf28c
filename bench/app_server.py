"""What the app benchmarks share: a ``streamlit run app.py`` server on a loopback port, the Chromium they
drive, and readings of a process from ``/proc`` (CPU seconds, RSS, bytes written) and of the machine.

Linux only (``/proc``); Debian's Chromium at ``/usr/bin/chromium``. Nothing leaves 127.0.0.1.
"""
from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from deploy.machine import free_loopback_port
from deploy.serve import health

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
#: the merge player component's root, inside its shadow root (Playwright's CSS pierces it)
PLAYER = ".st-key-merge_player [data-testid=stBidiComponentIsolated] .mp"
TICKS = os.sysconf("SC_CLK_TCK")


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
        (group / "tasks").write_text(tid)          # this thread; what it starts from now on is born there
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


def start_server(log_name: str = "server.log", extra_args: tuple[str, ...] = (), *, log_dir: Path = RESULTS,
                 env: dict[str, str] | None = None, root: Path = ROOT) -> tuple[subprocess.Popen, str]:
    """Start ``streamlit run app.py`` on a free loopback port and wait until it answers its health check
    (``deploy.serve.health``); returns (process, url ending in ``/``). The caller stops it (:func:`stop_server`).

    The benches, ``scripts/player_screenshot.py`` and the browser tests (``tests/browser/conftest.py``) all
    start the app here. Its output goes to ``log_dir / log_name`` (``{port}`` in the name is the port);
    ``env``: variables added to this process's environment; ``root``: the tree to start the app from (another
    checkout of the project, to compare; this one by default)."""
    log_dir.mkdir(parents=True, exist_ok=True)
    port = free_loopback_port()
    log = open(log_dir / log_name.format(port=port), "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.address",
         "127.0.0.1", "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none", "--server.runOnSave", "false", *extra_args],
        cwd=root, env=dict(os.environ, PYTHONUNBUFFERED="1", **(env or {})), stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 60
    while not health(url.rstrip("/")):
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with {proc.returncode}; see {log.name}")
        if time.monotonic() > deadline:
            stop_server(proc)
            raise RuntimeError(f"streamlit did not become healthy within 60 s; see {log.name}")
        time.sleep(0.3)
    return proc, url


def stop_server(proc: subprocess.Popen, timeout: float = 10) -> None:
    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()


class Deployment:
    """``python -m deploy.serve``: ``processes`` Streamlit processes behind nginx on a free loopback port.

    ``url`` is nginx's; ``pids`` the Streamlit processes' (read from the deployment's ``state.json``)."""

    def __init__(self, processes: int, run_dir: Path):
        self.run_dir = run_dir
        port = free_loopback_port()
        self.log = open(RESULTS / "load-deploy.log", "w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "deploy.serve", "--processes", str(processes), "--host", "127.0.0.1",
             "--port", str(port), "--run-dir", str(run_dir)], cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT)
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


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (zombies too, until reaped), from the kernel's list
    (``/proc/<pid>/task/*/children``); none once ``pid`` is gone."""
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(x) for x in (task / "children").read_text().split()]
        except OSError:
            pass
    return out


def tree(pid: int) -> list[int]:
    """``pid`` and every process below it (training workers, their fork server)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children(p)
    return out


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds of ``pid`` and its descendants, living and reaped (user + system)."""
    total = 0.0
    for p in tree(pid):
        try:
            f = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(x) for x in f[11:15]) / TICKS
    return total


def tree_rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` and its descendants, MB."""
    total = 0.0
    for p in tree(pid):
        try:
            total += rss_mb(p)
        except OSError:
            pass
    return total


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def bytes_written(pid: int) -> int:
    """Bytes the process wrote through write/send calls (its websocket traffic, and its log)."""
    for line in Path(f"/proc/{pid}/io").read_text().splitlines():
        if line.startswith("wchar:"):
            return int(line.split()[1])
    return 0


def machine_cpu() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot."""
    values = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    return (sum(values) - idle) / TICKS, sum(values) / TICKS


def conditions() -> str:
    """One line about the machine and the software, for the report."""
    import streamlit

    load = os.getloadavg()
    chromium = subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True).stdout.strip()
    return (f"{os.cpu_count()} cores, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} at the start; "
            f"Python {sys.version.split()[0]}, Streamlit {streamlit.__version__}, {chromium or 'Chromium ?'} headless")
