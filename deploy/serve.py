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

This module is the command line; :mod:`deploy.deployment` starts, watches and stops the processes
(:mod:`deploy.processes`: finding, signalling and health-checking one); nginx's config, binary and temp
folders are :mod:`deploy.nginx`'s, what is read from the machine (ports, the upload limit, the cookie
secret) :mod:`deploy.machine`'s.

Each process keeps its own caches (trained runs, vocabularies): memory grows with N, and a text trained in
one process is trained again the first time another process needs it.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path

from .deployment import (  # noqa: F401 (re-exported: the names this module had before the split)
    HEALTH_TIMEOUT,
    MAX_RESTARTS,
    REDIS_TIMEOUT,
    RESTART_WINDOW,
    ROOMS_URL_ENV,
    STOP_GRACE,
    Backend,
    Deployment,
)
from .machine import ROOT, DeployError
from .nginx import COOKIE, DEFAULT_FRAME_ANCESTORS, check_frame_ancestors, find_nginx  # noqa: F401 (COOKIE)
from .processes import find_redis, health, trainings_per_process  # noqa: F401 (re-exported)

DEFAULT_RUN_DIR = ROOT / "deploy" / "run"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m deploy.serve", description="Serve BPE Lab with N Streamlit processes behind nginx (foreground)."
    )
    ap.add_argument(
        "--processes", "-n", type=int, default=2, help="Streamlit processes (default 2; about one per CPU core)"
    )
    ap.add_argument("--port", "-p", type=int, default=8501, help="the port nginx listens on (default 8501)")
    ap.add_argument(
        "--host",
        default="0.0.0.0",
        help="the address nginx listens on (default 0.0.0.0: every interface, for a lecture hall; "
        "127.0.0.1 for this machine only)",
    )
    ap.add_argument(
        "--run-dir",
        type=Path,
        default=DEFAULT_RUN_DIR,
        help="config, logs, pid files, state.json and the cookie secret (default deploy/run)",
    )
    ap.add_argument("--nginx", help="the nginx binary (default: nginx on PATH, else /usr/sbin/nginx)")
    ap.add_argument("--no-restart", action="store_true", help="do not restart a Streamlit process that dies")
    ap.add_argument("--tls-cert", type=Path, help="serve HTTPS with this certificate (PEM, with its chain)")
    ap.add_argument("--tls-key", type=Path, help="the certificate's private key (PEM)")
    ap.add_argument(
        "--secure-cookie",
        action="store_true",
        help="mark the route cookie Secure (when another proxy in front terminates TLS)",
    )
    ap.add_argument(
        "--frame-ancestors",
        default=DEFAULT_FRAME_ANCESTORS,
        metavar="SOURCES",
        help="who may show the app in a frame (CSP frame-ancestors), e.g. \"'self' "
        "https://slides.example.org\" to embed it in slides or a course site; 'none' for no "
        "one (default: 'self', the app's own pages)",
    )
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
        dep = Deployment(
            processes=args.processes,
            host=args.host,
            port=args.port,
            run_dir=args.run_dir.resolve(),
            nginx=find_nginx(args.nginx),
            restart=not args.no_restart,
            secure_cookie=args.secure_cookie,
            tls=tls,
            frame_ancestors=args.frame_ancestors,
        )
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
