"""A private ``redis-server`` for the live rooms' tests: Debian's binary on a unix socket in a folder of the
caller's (no TCP port, nothing saved), and its freezing (``SIGSTOP``) and thawing, as an operator's Redis
that hangs.

``tests/test_rooms.py``, ``tests/test_room_hardening.py`` and the browser tests start it here."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

__all__ = ["find", "start", "stop", "freeze", "thaw"]


def find() -> str | None:
    """Debian's ``redis-server``, or None (the caller skips, saying why)."""
    return shutil.which("redis-server")


def start(folder: Path, exe: str | None = None) -> tuple[subprocess.Popen, str]:
    """Start ``redis-server`` with its socket in ``folder``; wait until it answers a PING (20 s at most);
    returns (process, ``unix://`` URL for ``BPE_LAB_ROOMS_URL``)."""
    import redis

    exe = exe or find()
    if exe is None:
        raise FileNotFoundError("redis-server is not installed (Debian's redis-server)")
    sock = Path(folder) / "redis.sock"
    proc = subprocess.Popen(
        [
            exe,
            "--port",
            "0",
            "--unixsocket",
            str(sock),
            "--unixsocketperm",
            "700",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(folder),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    client = redis.Redis(unix_socket_path=str(sock), socket_timeout=2)
    deadline = time.monotonic() + 20
    while True:
        try:
            if client.ping():
                break
        except (redis.ConnectionError, redis.TimeoutError, FileNotFoundError) as exc:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise RuntimeError("the private redis-server did not start") from exc
            time.sleep(0.05)
    client.close()
    return proc, f"unix://{sock}"


def freeze(proc: subprocess.Popen) -> None:
    """``kill -STOP``: Redis keeps its socket and answers nothing (connections wait)."""
    os.kill(proc.pid, signal.SIGSTOP)


def thaw(proc: subprocess.Popen) -> None:
    """``kill -CONT``: Redis answers again."""
    os.kill(proc.pid, signal.SIGCONT)


def stop(proc: subprocess.Popen) -> None:
    thaw(proc) if proc.poll() is None else None
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
