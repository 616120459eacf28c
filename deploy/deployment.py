"""One deployment's processes (:class:`Deployment`): N Streamlit processes, nginx in front and, with 2 or
more, Redis for the live rooms; started, watched, restarted and stopped. :mod:`deploy.serve` is its
command line (and says what a deployment does)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .machine import ROOT, DeployError, check_port_free, cookie_secret, free_loopback_port, lan_address, max_upload_mb
from .nginx import (
    COOKIE,
    DEFAULT_FRAME_ANCESTORS,
    check_frame_ancestors,
    nginx_temp_dir,
    readable_by_all,
    remove_stale_temp,
    render_nginx_conf,
    static_copy,
    streamlit_static_dir,
    worker_user_line,
)
from .processes import die_with_parent, find_redis, health, redis_ping, signal_group, trainings_per_process

HEALTH_TIMEOUT = 90.0
STOP_GRACE = 10.0
#: a process that died more often than this within RESTART_WINDOW seconds is not restarted again
MAX_RESTARTS = 5
RESTART_WINDOW = 60.0


@dataclass
class Backend:
    name: str  # p1, p2, ...: the route cookie's value
    port: int
    log: Path
    proc: subprocess.Popen | None = None
    restarts: list[float] = field(default_factory=list)
    given_up: bool = False


ROOMS_URL_ENV = "BPE_LAB_ROOMS_URL"  # (liveroom.ROOMS_URL_ENV: deploy/ imports nothing of the app)
REDIS_TIMEOUT = 20.0


class Deployment:
    """The processes of one deployment. ``start()``, then ``supervise()`` until a signal, then ``stop()``."""

    def __init__(
        self,
        *,
        processes: int,
        host: str,
        port: int,
        run_dir: Path,
        nginx: str,
        restart: bool = True,
        secure_cookie: bool = False,
        tls: tuple[Path, Path] | None = None,
        frame_ancestors: str = DEFAULT_FRAME_ANCESTORS,
        out=sys.stdout,
    ):
        self.host, self.port, self.run_dir, self.nginx = host, port, run_dir, nginx
        self.frame_ancestors = check_frame_ancestors(frame_ancestors)
        self.restart, self.secure_cookie, self.tls, self.out = restart, secure_cookie, tls, out
        self.logs = run_dir / "logs"
        self.count = processes
        self.backends: list[Backend] = []
        self.nginx_proc: subprocess.Popen | None = None
        self.temp_dir: Path | None = None
        self.stopping = False
        self.secret = ""
        self.redis_proc: subprocess.Popen | None = None
        self.rooms_url = os.environ.get(ROOMS_URL_ENV, "")

    # messages go to the terminal and to logs/serve.log
    def say(self, msg: str) -> None:
        line = f"[{time.strftime('%H:%M:%S')}] {msg}"
        print(line, file=self.out, flush=True)
        with (self.logs / "serve.log").open("a", encoding="utf-8") as f:
            f.write(line + "\n")

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else ("[::1]" if self.host == "::" else self.host)
        host = f"[{host}]" if ":" in host and not host.startswith("[") else host
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}"

    def _spawn(self, cmd: list[str], log: Path, env: dict | None = None) -> subprocess.Popen:
        f = log.open("a", encoding="utf-8")
        f.write(f"\n===== {time.strftime('%Y-%m-%d %H:%M:%S')} {' '.join(cmd)}\n")
        f.flush()
        try:
            return subprocess.Popen(
                cmd,
                cwd=ROOT,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=f,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=die_with_parent,
            )
        finally:
            f.close()

    @property
    def redis_socket(self) -> Path:
        return self.run_dir / "redis.sock"

    def _start_redis(self) -> None:
        """The live rooms' Redis (2 or more processes, and no BPE_LAB_ROOMS_URL given): a private
        ``redis-server`` on a unix socket in the run dir, no TCP port, nothing saved."""
        exe = find_redis()
        if exe is None:
            raise DeployError(
                "Live rooms need Debian's redis-server with 2 or more processes: "
                "apt-get install redis-server (or set BPE_LAB_ROOMS_URL to a Redis of your own)"
            )
        sock = self.redis_socket
        sock.unlink(missing_ok=True)
        self.redis_proc = self._spawn(
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
                str(self.run_dir),
                "--maxmemory",
                "256mb",
                "--maxmemory-policy",
                "volatile-ttl",
            ],
            self.logs / "redis.log",
        )
        self._await(
            lambda: redis_ping(sock), self.redis_proc, "redis-server", self.logs / "redis.log", REDIS_TIMEOUT, 0.05
        )
        self.rooms_url = f"unix://{sock}"
        self.say(f"live rooms in Redis at {self.rooms_url}")

    def _start_backend(self, b: Backend) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1", STREAMLIT_SERVER_COOKIE_SECRET=self.secret)
        if self.rooms_url:
            env[ROOMS_URL_ENV] = self.rooms_url
        # the machine's cores shared out: each process runs at most its share of trainings at once (guard.trainjobs)
        env.setdefault("BPE_LAB_MAX_TRAININGS", str(trainings_per_process(self.count)))
        b.proc = self._spawn(
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
                str(b.port),
                "--browser.gatherUsageStats",
                "false",
                "--server.fileWatcherType",
                "none",
                "--server.runOnSave",
                "false",
            ],
            b.log,
            env,
        )

    def _await(
        self, ready: Callable[[], bool], proc: subprocess.Popen, what: str, log: Path, timeout: float, every: float
    ) -> None:
        """Wait until ``ready()`` (asked every ``every`` seconds); DeployError if ``proc`` (``what``, logging
        to ``log``) exits or ``timeout`` seconds pass first. A stop asked meanwhile ends the wait."""
        deadline = time.monotonic() + timeout
        while not ready():
            if proc.poll() is not None:
                raise DeployError(f"{what} exited with code {proc.returncode}; see {log}")
            if self.stopping:
                return
            if time.monotonic() > deadline:
                raise DeployError(f"{what} did not answer within {timeout:.0f} s; see {log}")
            time.sleep(every)

    def _wait_healthy(self, b: Backend) -> None:
        self._await(
            lambda: health(f"http://127.0.0.1:{b.port}"),
            b.proc,
            f"Streamlit process {b.name}",
            b.log,
            HEALTH_TIMEOUT,
            0.2,
        )

    def start(self) -> None:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.logs.mkdir(exist_ok=True)
        check_port_free(self.host, self.port)
        remove_stale_temp(self.run_dir)
        (self.run_dir / "state.json").unlink(missing_ok=True)  # written again once this run is ready
        (self.run_dir / "serve.pid").write_text(f"{os.getpid()}\n", encoding="ascii")
        self.secret = cookie_secret(self.run_dir)
        upload_mb = max_upload_mb()
        self.backends = [
            Backend(f"p{i}", free_loopback_port(), self.logs / f"streamlit-p{i}.log") for i in range(1, self.count + 1)
        ]
        if self.count > 1 and not self.rooms_url:
            self._start_redis()
        self.say(
            f"starting {self.count} Streamlit process(es) on 127.0.0.1 ports "
            f"{', '.join(str(b.port) for b in self.backends)}"
        )
        for b in self.backends:
            self._start_backend(b)
        for b in self.backends:
            self._wait_healthy(b)
        if self.stopping:
            return
        self.temp_dir = nginx_temp_dir(self.run_dir)
        listen = f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"
        static = streamlit_static_dir()
        if not readable_by_all(static):  # nginx's workers (nobody) cannot reach the installed package
            static = static_copy(static, self.temp_dir)
        conf = render_nginx_conf(
            listen=listen,
            backends=[(b.name, b.port) for b in self.backends],
            run_dir=self.run_dir,
            temp_dir=self.temp_dir,
            max_body_mb=upload_mb + 1,
            user_line=worker_user_line(),
            secure_cookie=self.secure_cookie,
            tls=self.tls,
            static_dir=static,
            frame_ancestors=self.frame_ancestors,
        )
        conf_path = self.run_dir / "nginx.conf"
        conf_path.write_text(conf, encoding="utf-8")
        nginx_cmd = [
            self.nginx,
            "-p",
            str(self.run_dir),
            "-c",
            str(conf_path),
            "-e",
            str(self.logs / "nginx-error.log"),
        ]
        test = subprocess.run(nginx_cmd + ["-t", "-q"], capture_output=True, text=True)
        if test.returncode != 0:
            raise DeployError(f"nginx refused the config {conf_path}:\n{(test.stderr or test.stdout).strip()}")
        self.nginx_proc = self._spawn(nginx_cmd, self.logs / "nginx-error.log")
        self._await(
            lambda: health(self.url), self.nginx_proc, f"nginx (on {self.url})", self.logs / "nginx-error.log", 20, 0.1
        )
        if self.stopping:
            return
        self.write_state(ready=True)
        self.say(
            f"BPE Lab is served at {self.url} by {self.count} process(es) behind nginx "
            f"(listening on {listen}); logs in {self.logs}. Ctrl-C stops it."
        )
        if self.host in ("0.0.0.0", "::"):
            lan = lan_address()
            if lan:
                self.say(f"Students on this network open {self.url.split(':')[0]}://{lan}:{self.port}")

    def write_state(self, ready: bool) -> None:
        state = {
            "url": self.url,
            "host": self.host,
            "port": self.port,
            "ready": ready,
            "serve_pid": os.getpid(),
            "nginx_pid": self.nginx_proc.pid if self.nginx_proc else None,
            "cookie": COOKIE,
            "logs": str(self.logs),
            "nginx_temp": str(self.temp_dir) if self.temp_dir else None,
            "rooms_url": self.rooms_url or "memory",
            "redis_pid": self.redis_proc.pid if self.redis_proc else None,
            "processes": [
                {
                    "name": b.name,
                    "port": b.port,
                    "pid": b.proc.pid if b.proc else None,
                    "log": str(b.log),
                    "restarts": len(b.restarts),
                }
                for b in self.backends
            ],
        }
        tmp = self.run_dir / "state.json.tmp"
        tmp.write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")
        tmp.replace(self.run_dir / "state.json")

    def supervise(self) -> int:
        """Watch the processes until asked to stop; restart a Streamlit process that dies. The exit code."""
        while not self.stopping:
            if self.nginx_proc.poll() is not None:
                self.say(
                    f"nginx exited with code {self.nginx_proc.returncode}; stopping "
                    f"(see {self.logs / 'nginx-error.log'})"
                )
                return 1
            if self.redis_proc is not None and self.redis_proc.poll() is not None:
                self.say(
                    f"redis-server exited with code {self.redis_proc.returncode}: restarting it (live rooms "
                    f"are lost; see {self.logs / 'redis.log'})"
                )
                self._start_redis()
                self.write_state(ready=True)
            for b in self.backends:
                if b.given_up or b.proc.poll() is None:
                    continue
                self.say(
                    f"Streamlit process {b.name} (port {b.port}) exited with code {b.proc.returncode}; "
                    f"its sessions move to the other processes"
                )
                now = time.monotonic()
                b.restarts = [t for t in b.restarts if now - t < RESTART_WINDOW] + [now]
                if not self.restart or len(b.restarts) > MAX_RESTARTS:
                    b.given_up = True
                    if self.restart:
                        self.say(
                            f"{b.name} died {len(b.restarts)} times within {RESTART_WINDOW:.0f} s: not "
                            f"restarting it (see {b.log})"
                        )
                    continue
                self._start_backend(b)
                self.say(f"restarted {b.name} on port {b.port} (pid {b.proc.pid})")
                self.write_state(ready=True)
            if all(b.given_up for b in self.backends):
                self.say("no Streamlit process is left; stopping")
                return 1
            time.sleep(0.25)
        return 0

    def stop(self) -> None:
        """Stop nginx first (no new requests), then every Streamlit process; SIGKILL what does not stop."""
        self.stopping = True
        procs = [p for p in [self.nginx_proc] + [b.proc for b in self.backends] + [self.redis_proc] if p is not None]
        for p in procs:
            signal_group(p, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE
        for p in procs:
            try:
                p.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        for p in procs:
            signal_group(p, signal.SIGKILL)  # the group: also anything a process started
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                pass
        if self.temp_dir is not None:
            shutil.rmtree(self.temp_dir, ignore_errors=True)
        for name in ("serve.pid", "nginx.pid", "redis.sock"):
            (self.run_dir / name).unlink(missing_ok=True)
        if self.backends or self.nginx_proc:
            self.write_state(ready=False)
