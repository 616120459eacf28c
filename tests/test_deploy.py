"""The lecture-hall deployment (``python -m deploy.serve``) without a browser.

The rendered config passes ``nginx -t``; cookie stickiness over plain HTTP (a new client is pinned to a
process, a pinned one stays there, an unknown cookie is re-pinned, nginx refuses an upload larger than
Streamlit's limit); every process has the same cookie secret; Ctrl-C / SIGTERM / killing the script leave
no process behind; a missing nginx or a busy port is a message. Browsers through the deployment:
``tests/browser/test_deploy_browser.py``. Which process served a request is read from nginx's access log.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest
import redis
from deploy_harness import (
    NGINX,
    ROOT,
    Deployment,
    _no_leftovers,  # noqa: F401  (autouse: stops what a failed test left)
    alive,
    environ,
    free_port,
    need_nginx,
    stopped_cleanly,
)
from deploy_http import http, route_set

from deploy.machine import cookie_secret, max_upload_mb
from deploy.nginx import COOKIE, render_nginx_conf
from liveroom import RedisBackend, RoomStore


@pytest.fixture(scope="module")
def deployment(tmp_path_factory):
    dep = Deployment(tmp_path_factory.mktemp("deploy") / "run", per_test=False)
    yield dep
    stopped_cleanly(dep)


# --------------------------------------------------------------------------- tests


def test_rendered_config_passes_nginx_t(tmp_path):
    need_nginx()
    (tmp_path / "logs").mkdir()
    (tmp_path / "temp").mkdir()
    conf = render_nginx_conf(
        listen=f"127.0.0.1:{free_port()}",
        backends=[("p1", 9001), ("p2", 9002), ("p3", 9003)],
        run_dir=tmp_path,
        temp_dir=tmp_path / "temp",
        max_body_mb=max_upload_mb() + 1,
    )
    (tmp_path / "nginx.conf").write_text(conf)
    r = subprocess.run(
        [
            NGINX,
            "-t",
            "-p",
            str(tmp_path),
            "-c",
            str(tmp_path / "nginx.conf"),
            "-e",
            str(tmp_path / "logs" / "error.log"),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    # Streamlit's own limit from .streamlit/config.toml, read independently of deploy.serve
    limit = int(re.search(r"^maxUploadSize\s*=\s*(\d+)", (ROOT / ".streamlit" / "config.toml").read_text(), re.M)[1])
    assert f"client_max_body_size {limit + 1}m;" in conf
    for backup in ("server 127.0.0.1:9002 backup;", "server 127.0.0.1:9003 backup;"):
        assert conf.count(backup) == 2  # each process has the two others as backups
    assert "ip_hash" not in conf.replace("Not ip_hash", "")


def test_http_stickiness(deployment):
    ua = f"sticky-{uuid.uuid4().hex[:8]}"
    # new clients: nginx pins each to a process; with no session open they alternate between the two
    routes = [route_set(http(deployment.url + "/", ua=ua)[1]) for _ in range(4)]
    assert set(routes) == {"p1", "p2"}
    # a pinned client stays where it is pinned, and is not told again
    for route in ("p1", "p2"):
        for path in ("/", "/_stcore/health", "/_stcore/host-config"):
            status, headers = http(deployment.url + path, cookie=f"{COOKIE}={route}", ua=ua + route)
            assert status == 200 and route_set(headers) is None
    # an unknown or tampered cookie is re-pinned to a real process
    status, headers = http(deployment.url + "/", cookie=f"{COOKIE}=p9%7Cp9", ua=ua)
    assert status == 200 and route_set(headers) in ("p1", "p2")
    for route in ("p1", "p2"):
        mine = deployment.logged(ua + route, count=3)
        assert len(mine) == 3 and {r["port"] for r in mine} == {deployment.port_of(route)}
    # an upload bigger than Streamlit's limit is refused by nginx before it reaches a process
    big = b"x" * ((max_upload_mb() + 2) * 1024 * 1024)
    status, _ = http(deployment.url + "/_stcore/upload_file/s/f", method="PUT", data=big, ua=ua)
    assert status == 413


def test_nginx_serves_streamlits_static_files_itself(deployment):
    """The page's scripts come from the installed Streamlit package through nginx (no process answers:
    upstream "-" in the access log), byte for byte, gzipped when asked, cacheable for a year; nothing
    outside the package's static folder is reachable that way."""
    import gzip

    import streamlit

    static = Path(streamlit.__file__).resolve().parent / "static"
    ua = f"static-{uuid.uuid4().hex[:8]}"
    page = urllib.request.urlopen(urllib.request.Request(deployment.url + "/", headers={"User-Agent": ua})).read()
    scripts = re.findall(rb'src="\.?/?(static/js/[^"]+\.js)"', page)
    assert scripts, page[:300]
    path = scripts[0].decode()
    req = urllib.request.Request(f"{deployment.url}/{path}", headers={"User-Agent": ua, "Accept-Encoding": "gzip"})
    with urllib.request.urlopen(req, timeout=10) as r:
        body, headers = r.read(), r.headers
    assert headers["Content-Encoding"] == "gzip" and "immutable" in headers["Cache-Control"]
    assert gzip.decompress(body) == (static / path).read_bytes()
    port = deployment.state()["processes"][0]["port"]
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/{path}", timeout=10) as r:  # Streamlit itself
        assert headers["Content-Type"].split(";")[0] == r.headers["Content-Type"].split(";")[0]
    assert "Set-Cookie" not in headers
    assert http(f"{deployment.url}/static/js/no-such-file.js", ua=ua)[0] == 404
    for escape in ("/static/../index.html", "/static/%2e%2e/manifest.json", "/static/..%2fmanifest.json"):
        status, _ = http(deployment.url + escape, ua=ua)
        served = [
            r
            for r in deployment.logged(ua, where=lambda r, escape=escape: escape in r["request"])
            if escape in r["request"]
        ]
        # normalised back to a page Streamlit answers itself, or refused: never the file from beside static/
        assert status in (200, 400, 404) and (status != 200 or served[-1]["port"] is not None), escape
    rows = deployment.logged(ua, where=lambda r: r["request"] == f"GET /{path} HTTP/1.1")
    assert [r["port"] for r in rows if r["request"] == f"GET /{path} HTTP/1.1"] == [None]
    assert [r["port"] is not None for r in rows if r["request"] == "GET / HTTP/1.1"] == [True]


def test_processes_share_one_cookie_secret(deployment):
    secret = (deployment.run_dir / "cookie_secret").read_text().strip()
    assert len(secret) >= 32 and oct((deployment.run_dir / "cookie_secret").stat().st_mode & 0o777) == "0o600"
    for p in deployment.state()["processes"]:
        assert environ(p["pid"])["STREAMLIT_SERVER_COOKIE_SECRET"] == secret


def test_cookie_secret_from_the_environment_or_made_once(tmp_path, monkeypatch):
    monkeypatch.setenv("STREAMLIT_SERVER_COOKIE_SECRET", "from-the-environment")
    assert cookie_secret(tmp_path) == "from-the-environment" and not (tmp_path / "cookie_secret").exists()
    monkeypatch.delenv("STREAMLIT_SERVER_COOKIE_SECRET")
    first = cookie_secret(tmp_path)
    assert first == (tmp_path / "cookie_secret").read_text().strip() and cookie_secret(tmp_path) == first
    (tmp_path / "other").mkdir()
    assert cookie_secret(tmp_path / "other") != first  # another run dir, another secret


def test_missing_nginx_says_how_to_install_it(tmp_path):
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "deploy.serve",
            "--nginx",
            str(tmp_path / "no-nginx"),
            "--run-dir",
            str(tmp_path / "run"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2 and "not an executable" in r.stderr and "Traceback" not in r.stderr
    env = dict(os.environ, PATH=str(tmp_path))  # no nginx on PATH; /usr/sbin/nginx is looked at too
    code = (
        "import os; os.access = lambda p, m: False\n"
        "from deploy.machine import DeployError\nfrom deploy.nginx import find_nginx\n"
        "try:\n    find_nginx(None)\nexcept DeployError as e:\n    print(e)"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert "sudo apt-get install nginx" in r.stdout


def test_port_in_use_is_a_message(tmp_path):
    need_nginx()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "deploy.serve",
                "--port",
                str(port),
                "--host",
                "127.0.0.1",
                "--run-dir",
                str(tmp_path / "run"),
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert r.returncode == 2 and f"127.0.0.1:{port}" in r.stderr and "--port" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("how", ["SIGINT", "SIGTERM", "SIGKILL"])
def test_stopping_leaves_no_process_behind(tmp_path, how):
    """Ctrl-C (SIGINT) and SIGTERM stop everything cleanly; if the script itself is killed, its children
    still die (PR_SET_PDEATHSIG)."""
    dep = Deployment(tmp_path / "run")
    pids = dep.pids()
    # script, nginx master + worker, 2 Streamlit, the live rooms' redis-server
    assert len(pids) == 6 and all(alive(p) for p in pids)
    t0 = time.monotonic()
    code = dep.stop(getattr(signal, how))
    deadline = time.monotonic() + 15
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in pids if alive(p)], f"left behind after {how}"
    temp = Path(dep.state()["nginx_temp"])
    if how != "SIGKILL":
        # stopped by the signal, not by the 10 s grace's SIGKILL (0.6-0.8 s measured at load 7)
        assert code == 0 and time.monotonic() - t0 < 12
        assert "stopped" in dep.output() and "Traceback" not in dep.output()
        assert not (tmp_path / "run" / "serve.pid").exists() and not temp.exists()
        assert not (tmp_path / "run" / "redis.sock").exists()
    else:
        # killed, it could not clean up; the next start in the same run dir removes what it left
        assert temp.exists()
        again = Deployment(tmp_path / "run")
        assert not temp.exists()
        stopped_cleanly(again)
        assert not Path(again.state()["nginx_temp"]).exists()
    with socket.socket() as s:  # the front port is free again
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", dep.port))


def test_streamlit_reads_the_projects_runner_settings():
    """Every server (``streamlit run`` and each process behind nginx, all started in the project folder)
    skips Streamlit's full ``gc.collect(2)`` after each script run: it was ~85% of a player step's server CPU
    here (bench/load_test.py). Read through Streamlit's own config loader, so a misspelt key fails."""
    code = (
        "from streamlit import config; config.get_config_options(force_reparse=True); "
        "print(config.get_option('runner.postScriptGC'), config.get_option('server.maxUploadSize'))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    gc_after_run, upload_mb = out.stdout.split()
    assert gc_after_run == "False"
    assert int(upload_mb) == max_upload_mb()  # the same file, read the same way


# --------------------------------------------------------------------------- issue 21, item 6


def test_every_response_says_nosniff_and_who_may_frame_it(deployment):
    ua = f"headers-{uuid.uuid4().hex[:8]}"
    page = urllib.request.urlopen(urllib.request.Request(deployment.url + "/", headers={"User-Agent": ua})).read()
    script = re.findall(rb'src="\.?/?(static/js/[^"]+\.js)"', page)[0].decode()
    for path in ("/", f"/{script}", "/_stcore/health", "/static/js/no-such-file.js", "/_stcore/metrics"):
        status, headers = http(deployment.url + path, ua=ua)
        assert headers.get("X-Content-Type-Options") == "nosniff", (path, status)
        assert headers.get("Content-Security-Policy") == "frame-ancestors 'self'", (path, status)
        assert headers.get("X-Frame-Options") == "SAMEORIGIN", (path, status)
        # one of each, whatever Streamlit sends itself (urllib joins repeated headers with ", ")
        assert ", " not in headers["X-Content-Type-Options"] + headers["X-Frame-Options"]


@pytest.mark.parametrize(
    "path",
    [
        "/_stcore/metrics",
        "/_stcore/metrics/",
        "/_stcore/%6Detrics",
        "//_stcore/metrics",
        "/_stcore/metrics?families=session_state",
    ],
)
def test_streamlits_metrics_are_not_served_to_the_outside(deployment, path):
    ua = f"metrics-{uuid.uuid4().hex[:8]}"
    status, _ = http(deployment.url + path, ua=ua)
    assert status == 404
    assert [r["port"] for r in deployment.logged(ua)] == [None]  # no process was asked
    # the operator still reads them on a process's own loopback port (so the 404 is nginx's doing)
    port = deployment.state()["processes"][0]["port"]
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/metrics", timeout=10) as r:
        assert r.status == 200 and b"session" in r.read()


def test_each_process_runs_its_share_of_the_cores_trainings(deployment):
    cores = len(os.sched_getaffinity(0))
    for p in deployment.state()["processes"]:
        assert environ(p["pid"])["BPE_LAB_MAX_TRAININGS"] == str(max(1, cores // 2))


@pytest.mark.parametrize(
    "value, header, legacy",
    [
        (
            "'self' https://slides.example.org https://*.uni.edu:8443",
            "'self' https://slides.example.org https://*.uni.edu:8443",
            None,
        ),
        ("'none'", "'none'", "DENY"),
        ("*", "*", None),
    ],
)
def test_the_frame_policy_is_a_setting_that_nginx_accepts(tmp_path, value, header, legacy):
    need_nginx()
    (tmp_path / "logs").mkdir()
    (tmp_path / "temp").mkdir()
    conf = render_nginx_conf(
        listen=f"127.0.0.1:{free_port()}",
        backends=[("p1", 9001)],
        run_dir=tmp_path,
        temp_dir=tmp_path / "temp",
        max_body_mb=61,
        static_dir=tmp_path,
        frame_ancestors=value,
    )
    (tmp_path / "nginx.conf").write_text(conf)
    r = subprocess.run(
        [
            NGINX,
            "-t",
            "-p",
            str(tmp_path),
            "-c",
            str(tmp_path / "nginx.conf"),
            "-e",
            str(tmp_path / "logs" / "error.log"),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    # the server and the static location (which has add_header lines of its own) both carry it
    assert conf.count(f'add_header Content-Security-Policy "frame-ancestors {header}" always;') == 2
    assert conf.count("X-Frame-Options") == (2 if legacy else 0)


@pytest.mark.parametrize(
    "value",
    [
        "'self'; script-src *",
        "https://a.example\nadd_header X 1",
        '"',
        "",
        "'none' 'self'",
        "'unsafe-inline'",
        "https://a.example/{x}",
    ],
)
def test_a_frame_policy_that_is_not_one_is_refused(tmp_path, value):
    result = subprocess.run(
        [sys.executable, "-m", "deploy.serve", "--run-dir", str(tmp_path / "run"), "--frame-ancestors", value],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert result.returncode == 2 and "--frame-ancestors" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "run" / "nginx.conf").exists()


def test_live_rooms_are_shared_by_both_processes_through_redis(deployment):
    """Both processes get the Redis deploy started (``BPE_LAB_ROOMS_URL``, a unix socket only the deploying
    user may open); a room written there is served by either process's play-state route through nginx."""
    state = deployment.state()
    urls = {environ(p["pid"]).get("BPE_LAB_ROOMS_URL") for p in state["processes"]}
    assert urls == {state["rooms_url"]} and state["rooms_url"].startswith("unix://")
    sock = Path(state["rooms_url"][len("unix://") :])
    assert sock.is_socket() and (sock.stat().st_mode & 0o077) == 0
    store = RoomStore(RedisBackend(redis.Redis(unix_socket_path=str(sock))))
    code, token = store.create({"sample": "english"})
    store.set_play(code, token, merge=7, speed=5, playing=False)
    for route in ("p1", "p2"):
        req = urllib.request.Request(
            f"{deployment.url}/_bpe/room/{code}",
            headers={"Cookie": f"{COOKIE}={route}", "User-Agent": f"rooms-{route}"},
        )
        with urllib.request.urlopen(req, timeout=10) as r:
            play = json.loads(r.read())
        assert (play["merge"], play["speed"], play["playing"]) == (7, 5, False)
    ports = {row["port"] for row in deployment.logged("rooms-p1") + deployment.logged("rooms-p2")}
    assert ports == {deployment.port_of("p1"), deployment.port_of("p2")}
    status, _ = http(f"{deployment.url}/_bpe/room/ZZZZZZ")
    assert status == 404
    store.close(code, token)


def test_one_address_is_held_to_its_share_of_the_rooms_route(deployment):
    """nginx's limit_req (issue 32, item 8): one address asking a room's route far faster than students do
    gets nginx's own 429s past its burst (its page is HTML: the app's 429s are JSON); the room answers the
    rest, and answers again once the address slows down."""
    sock = Path(deployment.state()["rooms_url"][len("unix://") :])
    store = RoomStore(RedisBackend(redis.Redis(unix_socket_path=str(sock))))
    code, token = store.create({"sample": "english"})

    def ask(_):
        req = urllib.request.Request(f"{deployment.url}/_bpe/room/{code}", headers={"User-Agent": "flood"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, r.headers.get("Content-Type", "")
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("Content-Type", "")

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(ask, range(1500)))
    refused = [a for a in answers if a[0] == 429]
    assert refused and all(t.startswith("text/html") for _, t in refused)  # nginx's, not the app's
    assert {s for s, _ in answers} <= {200, 429} and (200, "application/json") in answers
    deadline = time.monotonic() + 30
    while ask(0)[0] != 200:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    store.close(code, token)
