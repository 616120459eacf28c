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
* restarts a Streamlit process that dies (its sessions reconnect to another process, with fresh state);
* Ctrl-C, SIGTERM or SIGHUP stops everything; the children also die with this script if it is killed
  (``PR_SET_PDEATHSIG``), so nothing is left behind.

Logs go to ``<run dir>/logs/`` (``serve.log``, ``streamlit-p1.log`` ..., ``nginx-access.log``,
``nginx-error.log``); ``<run dir>/state.json`` names the front URL and every process's port and pid, and
``<run dir>/serve.pid`` this script's pid (``kill -TERM $(cat <run dir>/serve.pid)`` stops it).

Each process keeps its own caches (trained runs, vocabularies): memory grows with N, and a text trained in
one process is trained again the first time another process needs it.
"""
from __future__ import annotations

import argparse
import ctypes
import grp
import json
import os
import pwd
import re
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = Path(__file__).with_name("nginx.conf.template")
DEFAULT_RUN_DIR = ROOT / "deploy" / "run"
COOKIE = "bpelab_route"
#: Streamlit's own default for server.maxUploadSize (MB), used when .streamlit/config.toml does not set it
STREAMLIT_DEFAULT_UPLOAD_MB = 200
HEALTH_TIMEOUT = 90.0
STOP_GRACE = 10.0
#: a process that died more often than this within RESTART_WINDOW seconds is not restarted again
MAX_RESTARTS = 5
RESTART_WINDOW = 60.0

NGINX_MISSING = """nginx is not installed (looked for it on PATH and at /usr/sbin/nginx).
Install Debian's package:
    sudo apt-get install nginx
This script runs its own nginx in the foreground and does not need the system service; on a machine
with systemd, `sudo systemctl disable --now nginx` stops the one the package starts on port 80.
Or pass --nginx /path/to/nginx."""


class DeployError(Exception):
    """A problem the user can fix; printed as one message, without a traceback."""


@dataclass
class Backend:
    name: str  # p1, p2, ...: the route cookie's value
    port: int
    log: Path
    proc: subprocess.Popen | None = None
    restarts: list[float] = field(default_factory=list)
    given_up: bool = False


# --- configuration ----------------------------------------------------------------------------------

def max_upload_mb(root: Path = ROOT) -> int:
    """``server.maxUploadSize`` from the app's ``.streamlit/config.toml`` (Streamlit's default if unset)."""
    path = root / ".streamlit" / "config.toml"
    if not path.exists():
        return STREAMLIT_DEFAULT_UPLOAD_MB
    with path.open("rb") as f:
        value = tomllib.load(f).get("server", {}).get("maxUploadSize", STREAMLIT_DEFAULT_UPLOAD_MB)
    if not isinstance(value, int) or value <= 0:
        raise DeployError(f"{path}: server.maxUploadSize must be a positive whole number of MB, not {value!r}")
    return value


def cookie_secret(run_dir: Path) -> str:
    """The secret every process shares: env STREAMLIT_SERVER_COOKIE_SECRET, else ``<run dir>/cookie_secret``
    (generated on the first start, kept across restarts so browsers' signed cookies stay valid)."""
    env = os.environ.get("STREAMLIT_SERVER_COOKIE_SECRET")
    if env:
        return env
    path = run_dir / "cookie_secret"
    if path.exists():
        value = path.read_text(encoding="ascii").strip()
        if value:
            return value
    value = secrets.token_hex(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(value + "\n")
    return value


def render_nginx_conf(*, listen: str, backends: list[tuple[str, int]], run_dir: Path, temp_dir: Path,
                      max_body_mb: int, user_line: str = "", secure_cookie: bool = False,
                      tls: tuple[Path, Path] | None = None) -> str:
    """The nginx config for ``backends`` (``[(name, port), ...]``) from ``deploy/nginx.conf.template``;
    with ``tls=(certificate, key)`` nginx serves HTTPS (and the route cookie is ``Secure``).

    >>> conf = render_nginx_conf(listen="127.0.0.1:8501", backends=[("p1", 8601), ("p2", 8602)],
    ...                          run_dir=Path("/r"), temp_dir=Path("/t"), max_body_mb=61)
    >>> "server 127.0.0.1:8602 backup;" in conf and "{{" not in conf
    True
    """
    ind = " " * 8
    addr = {name: f"127.0.0.1:{port}" for name, port in backends}
    blocks = []
    for name, _ in backends:
        lines = [f"upstream bpelab_{name} {{", f"    zone bpelab_{name} 64k;",
                 f"    server {addr[name]} max_fails=1 fail_timeout=10s;"]
        lines += [f"    server {addr[other]} backup;" for other, _ in backends if other != name]
        blocks.append("\n".join(ind[:4] + line for line in lines + ["}"]))
    values = {
        "pid_file": str(run_dir / "nginx.pid"),
        "user_line": user_line,
        "error_log": str(run_dir / "logs" / "nginx-error.log"),
        "access_log": str(run_dir / "logs" / "nginx-access.log"),
        "temp_dir": str(temp_dir),
        "cookie": COOKIE,
        "cookie_flags": "; Secure" if secure_cookie or tls else "",
        "tls": "" if tls is None else (f"{ind}ssl_certificate {tls[0]};\n{ind}ssl_certificate_key {tls[1]};\n"
                                       f"{ind}ssl_protocols TLSv1.2 TLSv1.3;"),
        "served_map": "\n".join(f'{ind}"~127\\.0\\.0\\.1:{port}$" {name};' for name, port in backends),
        "upstream_map": "\n".join(f"{ind}{name} bpelab_{name};" for name, _ in backends),
        "all_servers": "\n".join(f"{ind}server {addr[name]} max_fails=1 fail_timeout=10s;" for name, _ in backends),
        "process_upstreams": "\n".join(blocks),
        "listen": listen + (" ssl" if tls else ""),
        "max_body": f"{max_body_mb}m",
    }
    conf = TEMPLATE.read_text(encoding="utf-8")
    for key, value in values.items():
        conf = conf.replace("{{" + key + "}}", value)
    if re.search(r"\{\{\w+\}\}", conf):
        raise AssertionError("nginx.conf.template has a placeholder render_nginx_conf does not fill")
    return conf


def find_nginx(given: str | None) -> str:
    if given:
        if not (os.path.isfile(given) and os.access(given, os.X_OK)):
            raise DeployError(f"--nginx {given}: not an executable file")
        return given
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None)
    if not found:
        raise DeployError(NGINX_MISSING)
    return found


def free_loopback_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check_port_free(host: str, port: int) -> None:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except PermissionError:
            raise DeployError(f"cannot listen on {host}:{port}: ports below 1024 need root. "
                              "Pick another with --port.") from None
        except OSError as exc:
            raise DeployError(f"cannot listen on {host}:{port} ({exc.strerror}): another server uses it? "
                              "Pick another with --port.") from None


def lan_address() -> str | None:
    """This machine's address on its default route (a UDP socket is 'connected'; nothing is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed anywhere
            addr = s.getsockname()[0]
        except OSError:
            return None
    return None if addr.startswith("127.") or addr == "0.0.0.0" else addr


def worker_user_line() -> str:
    """As root, nginx's workers drop to nobody (nginx's own default); as anyone else they run as that user."""
    if os.geteuid() != 0:
        return ""
    try:
        pwd.getpwnam("nobody")
    except KeyError:
        return "user root;"
    for group in ("nogroup", "nobody"):
        try:
            grp.getgrnam(group)
            return f"user nobody {group};"
        except KeyError:
            pass
    return "user nobody;"


def nginx_temp_dir(run_dir: Path) -> Path:
    """A fresh folder for nginx's temp files, which its workers must reach: ``<run dir>/nginx-temp``, or, as
    root (workers run as nobody) when nobody cannot get through the run dir's parents, one under /tmp."""
    path = run_dir / "nginx-temp"
    if os.geteuid() == 0 and not all(p.stat().st_mode & 0o001 for p in [run_dir, *run_dir.parents]):
        path = Path(tempfile.mkdtemp(prefix="bpelab-nginx-"))
    else:
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir()
    path.chmod(0o711)
    return path


def remove_stale_temp(run_dir: Path) -> None:
    """Remove the temp folder of an earlier run in ``run_dir`` that was killed before it could clean up."""
    try:
        state = json.loads((run_dir / "state.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    old, pid = state.get("nginx_temp"), state.get("serve_pid")
    if not old or not isinstance(pid, int) or pid == os.getpid():
        return
    try:
        os.kill(pid, 0)
        return  # that run is still going (another deployment in the same run dir would fail on its port)
    except ProcessLookupError:
        pass
    except PermissionError:
        return
    if Path(old).name.startswith(("bpelab-nginx-", "nginx-temp")):
        shutil.rmtree(old, ignore_errors=True)


# --- processes --------------------------------------------------------------------------------------

def _die_with_parent() -> None:
    """In the child, before exec: get SIGTERM when the parent dies (even by SIGKILL)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class Deployment:
    """The processes of one deployment. ``start()``, then ``supervise()`` until a signal, then ``stop()``."""

    def __init__(self, *, processes: int, host: str, port: int, run_dir: Path, nginx: str,
                 restart: bool = True, secure_cookie: bool = False, tls: tuple[Path, Path] | None = None,
                 out=sys.stdout):
        self.host, self.port, self.run_dir, self.nginx = host, port, run_dir, nginx
        self.restart, self.secure_cookie, self.tls, self.out = restart, secure_cookie, tls, out
        self.logs = run_dir / "logs"
        self.count = processes
        self.backends: list[Backend] = []
        self.nginx_proc: subprocess.Popen | None = None
        self.temp_dir: Path | None = None
        self.stopping = False
        self.secret = ""

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

    def _start_backend(self, b: Backend) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1", STREAMLIT_SERVER_COOKIE_SECRET=self.secret)
        b.proc = self._spawn(
            [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
             "--server.address", "127.0.0.1", "--server.port", str(b.port), "--browser.gatherUsageStats", "false",
             "--server.fileWatcherType", "none", "--server.runOnSave", "false"],
            b.log, env)

    def _wait_healthy(self, b: Backend) -> None:
        deadline = time.monotonic() + HEALTH_TIMEOUT
        while time.monotonic() < deadline and not self.stopping:
            if b.proc.poll() is not None:
                raise DeployError(f"Streamlit process {b.name} exited with code {b.proc.returncode}; see {b.log}")
            if health(f"http://127.0.0.1:{b.port}"):
                return
            time.sleep(0.2)
        if not self.stopping:
            raise DeployError(f"Streamlit process {b.name} was not healthy within {HEALTH_TIMEOUT:.0f} s; see {b.log}")

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
        conf = render_nginx_conf(listen=listen, backends=[(b.name, b.port) for b in self.backends],
                                 run_dir=self.run_dir, temp_dir=self.temp_dir, max_body_mb=upload_mb + 1,
                                 user_line=worker_user_line(), secure_cookie=self.secure_cookie, tls=self.tls)
        conf_path = self.run_dir / "nginx.conf"
        conf_path.write_text(conf, encoding="utf-8")
        nginx_cmd = [self.nginx, "-p", str(self.run_dir), "-c", str(conf_path),
                     "-e", str(self.logs / "nginx-error.log")]
        test = subprocess.run(nginx_cmd + ["-t", "-q"], capture_output=True, text=True)
        if test.returncode != 0:
            raise DeployError(f"nginx refused the config {conf_path}:\n{(test.stderr or test.stdout).strip()}")
        self.nginx_proc = self._spawn(nginx_cmd, self.logs / "nginx-error.log")
        deadline = time.monotonic() + 20
        while not health(self.url):
            if self.nginx_proc.poll() is not None:
                raise DeployError(f"nginx exited with code {self.nginx_proc.returncode}; "
                                  f"see {self.logs / 'nginx-error.log'}")
            if time.monotonic() > deadline:
                raise DeployError(f"nginx did not answer on {self.url} within 20 s")
            time.sleep(0.1)
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
        procs = [p for p in [self.nginx_proc] + [b.proc for b in self.backends] if p is not None]
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
        for name in ("serve.pid", "nginx.pid"):
            (self.run_dir / name).unlink(missing_ok=True)
        if self.backends or self.nginx_proc:
            self.write_state(ready=False)


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    """Signal the child's process group (each child leads its own); nothing if it is gone."""
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


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
    args = ap.parse_args(argv)
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
                         restart=not args.no_restart, secure_cookie=args.secure_cookie, tls=tls)
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
