"""Serve BPE Lab to a lecture hall: N Streamlit processes behind nginx, in the foreground.

``python -m deploy.serve [--processes 2] [--port 8501] [--host 0.0.0.0] [--run-dir deploy/run]
[--tls-cert cert.pem --tls-key key.pem]``

* starts N ``streamlit run app.py`` processes on free loopback ports (127.0.0.1), all with the same
  ``server.cookieSecret`` (env ``STREAMLIT_SERVER_COOKIE_SECRET`` if set, else one generated once into
  ``<run dir>/cookie_secret``, mode 600, git-ignored);
* renders ``deploy/nginx.conf.template`` into ``<run dir>/nginx.conf`` and runs Debian's nginx on
  ``--host:--port`` with its own pid file, logs and temp folders (``daemon off``; not the system service;
  no root needed): websocket upgrade for ``/_stcore/stream``, uploads up to ``server.maxUploadSize``, and
  sticky sessions by a cookie (not by client address: a lecture hall shares one NAT address); HTTPS
  with ``--tls-cert``/``--tls-key``;
* with 2 or more processes, starts Debian's ``redis-server`` for the live rooms (on a unix socket in the run
  dir, mode 700, nothing saved to disk) and hands its URL to every process in ``BPE_LAB_ROOMS_URL``
  (``liveroom``), so a teacher on one process and students on another share a room; an
  already set ``BPE_LAB_ROOMS_URL`` (a Redis of your own) is passed on instead, and one process keeps rooms
  in itself;
* restarts a Streamlit process that dies (its sessions reconnect to another process, with fresh state);
* Ctrl-C, SIGTERM or SIGHUP stops everything; the children also die with this script if it is killed
  (``PR_SET_PDEATHSIG``), so nothing is left behind.

Logs go to ``<run dir>/logs/`` (``serve.log``, ``streamlit-p1.log`` ..., ``nginx-access.log``,
``nginx-error.log``); ``<run dir>/state.json`` names the front URL and every process's port and pid, and
``<run dir>/serve.pid`` this script's pid (``kill -TERM $(cat <run dir>/serve.pid)`` stops it).

This module starts, watches and stops the processes, and is the command line; nginx's config, binary and
temp folders are :mod:`deploy.nginx`'s, what is read from the machine (ports, the upload limit, the cookie
secret) :mod:`deploy.machine`'s.

Each process keeps its own caches (trained runs, vocabularies): memory grows with N, and a text trained in
one process is trained again the first time another process needs it.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .machine import ROOT, DeployError, check_port_free, cookie_secret, free_loopback_port, lan_address, max_upload_mb
from .nginx import (
    COOKIE,
    DEFAULT_FRAME_ANCESTORS,
    check_frame_ancestors,
    find_nginx,
    nginx_temp_dir,
    readable_by_all,
    remove_stale_temp,
    render_nginx_conf,
    static_copy,
    streamlit_static_dir,
    worker_user_line,
)

DEFAULT_RUN_DIR = ROOT / "deploy" / "run"
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


ROOMS_URL_ENV = "BPE_LAB_ROOMS_URL"   # (liveroom.ROOMS_URL_ENV: deploy/ imports nothing of the app)
REDIS_TIMEOUT = 20.0


def find_redis() -> str | None:
    """Debian's ``redis-server`` (``apt-get install redis-server``), or None."""
    return shutil.which("redis-server") or next(
        (p for p in ("/usr/bin/redis-server", "/usr/sbin/redis-server") if os.access(p, os.X_OK)), None)


def _die_with_parent() -> None:
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


class Deployment:
    """The processes of one deployment. ``start()``, then ``supervise()`` until a signal, then ``stop()``."""

    def __init__(self, *, processes: int, host: str, port: int, run_dir: Path, nginx: str,
                 restart: bool = True, secure_cookie: bool = False, tls: tuple[Path, Path] | None = None,
                 frame_ancestors: str = DEFAULT_FRAME_ANCESTORS, out=sys.stdout):
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
            return subprocess.Popen(cmd, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=f,
                                    stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=_die_with_parent)
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
            raise DeployError("Live rooms need Debian's redis-server with 2 or more processes: "
                              "apt-get install redis-server (or set BPE_LAB_ROOMS_URL to a Redis of your own)")
        sock = self.redis_socket
        sock.unlink(missing_ok=True)
        self.redis_proc = self._spawn(
            [exe, "--port", "0", "--unixsocket", str(sock), "--unixsocketperm", "700", "--save", "",
             "--appendonly", "no", "--dir", str(self.run_dir), "--maxmemory", "256mb",
             "--maxmemory-policy", "volatile-ttl"], self.logs / "redis.log")
        self._await(lambda: _redis_ping(sock), self.redis_proc, "redis-server", self.logs / "redis.log",
                    REDIS_TIMEOUT, 0.05)
        self.rooms_url = f"unix://{sock}"
        self.say(f"live rooms in Redis at {self.rooms_url}")

    def _start_backend(self, b: Backend) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1", STREAMLIT_SERVER_COOKIE_SECRET=self.secret)
        if self.rooms_url:
            env[ROOMS_URL_ENV] = self.rooms_url
        # the machine's cores shared out: each process runs at most its share of trainings at once (guard.trainjobs)
        env.setdefault("BPE_LAB_MAX_TRAININGS", str(trainings_per_process(self.count)))
        b.proc = self._spawn(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
             "--server.address", "127.0.0.1", "--server.port", str(b.port), "--browser.gatherUsageStats", "false",
             "--server.fileWatcherType", "none", "--server.runOnSave", "false"],
            b.log, env)

    def _await(self, ready: Callable[[], bool], proc: subprocess.Popen, what: str, log: Path, timeout: float,
               every: float) -> None:
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
        self._await(lambda: health(f"http://127.0.0.1:{b.port}"), b.proc, f"Streamlit process {b.name}", b.log,
                    HEALTH_TIMEOUT, 0.2)

    def start(self) -> None:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.logs.mkdir(exist_ok=True)
        check_port_free(self.host, self.port)
        remove_stale_temp(self.run_dir)
        (self.run_dir / "state.json").unlink(missing_ok=True)  # written again once this run is ready
        (self.run_dir / "serve.pid").write_text(f"{os.getpid()}\n", encoding="ascii")
        self.secret = cookie_secret(self.run_dir)
        upload_mb = max_upload_mb()
        self.backends = [Backend(f"p{i}", free_loopback_port(), self.logs / f"streamlit-p{i}.log")
                         for i in range(1, self.count + 1)]
        if self.count > 1 and not self.rooms_url:
            self._start_redis()
        self.say(f"starting {self.count} Streamlit process(es) on 127.0.0.1 ports "
                 f"{', '.join(str(b.port) for b in self.backends)}")
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
        conf = render_nginx_conf(listen=listen, backends=[(b.name, b.port) for b in self.backends],
                                 run_dir=self.run_dir, temp_dir=self.temp_dir, max_body_mb=upload_mb + 1,
                                 user_line=worker_user_line(), secure_cookie=self.secure_cookie, tls=self.tls,
                                 static_dir=static, frame_ancestors=self.frame_ancestors)
        conf_path = self.run_dir / "nginx.conf"
        conf_path.write_text(conf, encoding="utf-8")
        nginx_cmd = [self.nginx, "-p", str(self.run_dir), "-c", str(conf_path),
                     "-e", str(self.logs / "nginx-error.log")]
        test = subprocess.run(nginx_cmd + ["-t", "-q"], capture_output=True, text=True)
        if test.returncode != 0:
            raise DeployError(f"nginx refused the config {conf_path}:\n{(test.stderr or test.stdout).strip()}")
        self.nginx_proc = self._spawn(nginx_cmd, self.logs / "nginx-error.log")
        self._await(lambda: health(self.url), self.nginx_proc, f"nginx (on {self.url})",
                    self.logs / "nginx-error.log", 20, 0.1)
        if self.stopping:
            return
        self.write_state(ready=True)
        self.say(f"BPE Lab is served at {self.url} by {self.count} process(es) behind nginx "
                 f"(listening on {listen}); logs in {self.logs}. Ctrl-C stops it.")
        if self.host in ("0.0.0.0", "::"):
            lan = lan_address()
            if lan:
                self.say(f"Students on this network open {self.url.split(':')[0]}://{lan}:{self.port}")

    def write_state(self, ready: bool) -> None:
        state = {
            "url": self.url, "host": self.host, "port": self.port, "ready": ready, "serve_pid": os.getpid(),
            "nginx_pid": self.nginx_proc.pid if self.nginx_proc else None, "cookie": COOKIE,
            "logs": str(self.logs), "nginx_temp": str(self.temp_dir) if self.temp_dir else None,
            "rooms_url": self.rooms_url or "memory", "redis_pid": self.redis_proc.pid if self.redis_proc else None,
            "processes": [{"name": b.name, "port": b.port, "pid": b.proc.pid if b.proc else None,
                           "log": str(b.log), "restarts": len(b.restarts)} for b in self.backends],
        }
        tmp = self.run_dir / "state.json.tmp"
        tmp.write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")
        tmp.replace(self.run_dir / "state.json")

    def supervise(self) -> int:
        """Watch the processes until asked to stop; restart a Streamlit process that dies. The exit code."""
        while not self.stopping:
            if self.nginx_proc.poll() is not None:
                self.say(f"nginx exited with code {self.nginx_proc.returncode}; stopping "
                         f"(see {self.logs / 'nginx-error.log'})")
                return 1
            if self.redis_proc is not None and self.redis_proc.poll() is not None:
                self.say(f"redis-server exited with code {self.redis_proc.returncode}: restarting it (live rooms "
                         f"are lost; see {self.logs / 'redis.log'})")
                self._start_redis()
                self.write_state(ready=True)
            for b in self.backends:
                if b.given_up or b.proc.poll() is None:
                    continue
                self.say(f"Streamlit process {b.name} (port {b.port}) exited with code {b.proc.returncode}; "
                         f"its sessions move to the other processes")
                now = time.monotonic()
                b.restarts = [t for t in b.restarts if now - t < RESTART_WINDOW] + [now]
                if not self.restart or len(b.restarts) > MAX_RESTARTS:
                    b.given_up = True
                    if self.restart:
                        self.say(f"{b.name} died {len(b.restarts)} times within {RESTART_WINDOW:.0f} s: not "
                                 f"restarting it (see {b.log})")
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
        procs = [p for p in [self.nginx_proc] + [b.proc for b in self.backends] + [self.redis_proc]
                 if p is not None]
        for p in procs:
            _signal_group(p, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE
        for p in procs:
            try:
                p.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        for p in procs:
            _signal_group(p, signal.SIGKILL)  # the group: also anything a process started
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


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    """Signal the child's process group (each child leads its own); nothing if it is gone."""
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _redis_ping(sock: Path) -> bool:
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m deploy.serve",
                                 description="Serve BPE Lab with N Streamlit processes behind nginx (foreground).")
    ap.add_argument("--processes", "-n", type=int, default=2,
                    help="Streamlit processes (default 2; about one per CPU core)")
    ap.add_argument("--port", "-p", type=int, default=8501, help="the port nginx listens on (default 8501)")
    ap.add_argument("--host", default="0.0.0.0",
                    help="the address nginx listens on (default 0.0.0.0: every interface, for a lecture hall; "
                         "127.0.0.1 for this machine only)")
    ap.add_argument("--run-dir", type=Path, default=DEFAULT_RUN_DIR,
                    help="config, logs, pid files, state.json and the cookie secret (default deploy/run)")
    ap.add_argument("--nginx", help="the nginx binary (default: nginx on PATH, else /usr/sbin/nginx)")
    ap.add_argument("--no-restart", action="store_true", help="do not restart a Streamlit process that dies")
    ap.add_argument("--tls-cert", type=Path, help="serve HTTPS with this certificate (PEM, with its chain)")
    ap.add_argument("--tls-key", type=Path, help="the certificate's private key (PEM)")
    ap.add_argument("--secure-cookie", action="store_true",
                    help="mark the route cookie Secure (when another proxy in front terminates TLS)")
    ap.add_argument("--frame-ancestors", default=DEFAULT_FRAME_ANCESTORS, metavar="SOURCES",
                    help="who may show the app in a frame (CSP frame-ancestors), e.g. \"'self' "
                         "https://slides.example.org\" to embed it in slides or a course site; 'none' for no "
                         "one (default: 'self', the app's own pages)")
    args = ap.parse_args(argv)
    try:
        check_frame_ancestors(args.frame_ancestors)
    except DeployError as exc:
        ap.error(str(exc))
    if not 1 <= args.processes <= 64:
        ap.error("--processes must be between 1 and 64")
    if not 0 < args.port < 65536:
        ap.error("--port must be between 1 and 65535")
    if (args.tls_cert is None) != (args.tls_key is None):
        ap.error("--tls-cert and --tls-key go together")
    tls = None
    if args.tls_cert:
        for f in (args.tls_cert, args.tls_key):
            if not f.is_file() or not os.access(f, os.R_OK):
                ap.error(f"{f}: not a readable file")
        tls = (args.tls_cert.resolve(), args.tls_key.resolve())

    dep: Deployment | None = None

    def on_signal(signum, _frame):
        if dep is not None and not dep.stopping:
            dep.stopping = True
        raise KeyboardInterrupt

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    code = 0
    try:
        dep = Deployment(processes=args.processes, host=args.host, port=args.port,
                         run_dir=args.run_dir.resolve(), nginx=find_nginx(args.nginx),
                         restart=not args.no_restart, secure_cookie=args.secure_cookie, tls=tls,
                         frame_ancestors=args.frame_ancestors)
        dep.start()
        code = dep.supervise()
    except KeyboardInterrupt:
        pass
    except DeployError as exc:
        print(f"deploy.serve: {exc}", file=sys.stderr)
        code = 2
    finally:
        # no second signal may interrupt the cleanup
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        if dep is not None:
            if dep.backends:
                dep.say("stopping")
            dep.stop()
            if dep.backends:
                dep.say("stopped")
    return code


if __name__ == "__main__":
    sys.exit(main())
