"""What the browser tests and the app benchmarks share: a ``streamlit run app.py`` server on a loopback port,
the Chromium they drive, and readings of a process from ``/proc`` (its children, CPU seconds, RSS, bytes
written) and of the machine.

Linux only (``/proc``); Debian's Chromium at ``/usr/bin/chromium``. Nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
#: the merge player component's root, inside its shadow root (Playwright's CSS pierces it)
PLAYER = ".st-key-merge_player [data-testid=stBidiComponentIsolated] .mp"
TICKS = os.sysconf("SC_CLK_TCK")


def free_loopback_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def health(url: str, timeout: float = 2.0) -> bool:
    """Whether the server at ``url`` (no trailing slash) answers Streamlit's health check."""
    try:
        with urllib.request.urlopen(url + "/_stcore/health", timeout=timeout) as r:
            return r.status == 200 and r.read().strip() == b"ok"
    except (OSError, urllib.error.URLError, ValueError):
        return False


def start_server(
    log_name: str = "server.log",
    extra_args: tuple[str, ...] = (),
    *,
    log_dir: Path,
    env: dict[str, str] | None = None,
    root: Path = ROOT,
) -> tuple[subprocess.Popen, str]:
    """Start ``streamlit run app.py`` on a free loopback port and wait until it answers its health check
    (:func:`health`); returns (process, url ending in ``/``). The caller stops it (:func:`stop_server`).

    The browser tests (``tests/browser/conftest.py``), the benches and ``scripts/player_screenshot.py``
    (``bench.harness.start_server``: their logs in ``bench/results/``) all start the app here. Its output
    goes to ``log_dir / log_name`` (``{port}`` in the name is the port);
    ``env``: variables added to this process's environment; ``root``: the tree to start the app from (another
    checkout of the project, to compare; this one by default)."""
    log_dir.mkdir(parents=True, exist_ok=True)
    port = free_loopback_port()
    log = open(log_dir / log_name.format(port=port), "w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.headless",
            "true",
            "--server.address",
            "127.0.0.1",
            "--server.port",
            str(port),
            "--browser.gatherUsageStats",
            "false",
            "--server.fileWatcherType",
            "none",
            "--server.runOnSave",
            "false",
            *extra_args,
        ],
        cwd=root,
        env=dict(os.environ, PYTHONUNBUFFERED="1", **(env or {})),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
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


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (zombies too, until reaped), from the kernel's list
    (``/proc/<pid>/task/*/children``); none once ``pid`` is gone."""
    out: list[int] = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:  # gone meanwhile
        return out
    for task in tasks:
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


class PeakRss(threading.Thread):
    """The highest RSS (MB) of a process tree while it runs (sampled every 50 ms until stopped)."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.peak, self.halt = pid, tree_rss_mb(pid), threading.Event()
        self.start()

    def run(self):
        while not self.halt.wait(0.05):
            try:
                self.peak = max(self.peak, tree_rss_mb(self.pid))
            except (OSError, ValueError):
                pass

    def stop(self) -> float:
        self.halt.set()
        self.join(5)
        return self.peak


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
    return (
        f"{os.cpu_count()} cores, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} at the start; "
        f"Python {sys.version.split()[0]}, Streamlit {streamlit.__version__}, {chromium or 'Chromium ?'} headless"
    )
