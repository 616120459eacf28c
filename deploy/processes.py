"""The processes :mod:`deploy.serve` runs, one at a time: found, tied to their parent, signalled and asked
whether they answer (Streamlit's health check, Redis's PING). Nothing here keeps state."""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import ssl
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

__all__ = ["find_redis", "die_with_parent", "trainings_per_process", "signal_group", "redis_ping", "health"]


def find_redis() -> str | None:
    """Debian's ``redis-server`` (``apt-get install redis-server``), or None."""
    return shutil.which("redis-server") or next(
        (p for p in ("/usr/bin/redis-server", "/usr/sbin/redis-server") if os.access(p, os.X_OK)), None
    )


def die_with_parent() -> None:
    """In the child, before exec: get SIGTERM when the parent dies (even by SIGKILL)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def trainings_per_process(processes: int, cores: int | None = None) -> int:
    """How many trainings each of ``processes`` Streamlit processes may run at once: the cores shared out,
    at least one each (``BPE_LAB_MAX_TRAININGS``, read by ``guard.trainjobs``).

    >>> trainings_per_process(2, cores=2), trainings_per_process(4, cores=2), trainings_per_process(2, cores=8)
    (1, 1, 4)
    """
    if cores is None:
        try:
            cores = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            cores = os.cpu_count() or 1
    return max(1, cores // max(1, processes))


def signal_group(proc: subprocess.Popen, sig: int) -> None:
    """Signal the child's process group (each child leads its own); nothing if it is gone."""
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def redis_ping(sock: Path) -> bool:
    """Whether the Redis on unix socket ``sock`` answers PING (its protocol spoken directly: deploy/ needs no
    client library)."""
    import socket

    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(1.0)
            s.connect(str(sock))
            s.sendall(b"PING\r\n")
            return s.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def health(url: str, timeout: float = 2.0) -> bool:
    """Whether ``url`` answers Streamlit's health check (``url`` is our own server: its certificate, maybe
    self-signed or for another name, is not checked)."""
    context = ssl._create_unverified_context() if url.startswith("https:") else None
    try:
        with urllib.request.urlopen(url + "/_stcore/health", timeout=timeout, context=context) as r:
            return r.status == 200 and r.read().strip() == b"ok"
    except (OSError, urllib.error.URLError, ValueError):
        return False
