"""The lecture-hall deployment (``python -m deploy.serve``): N Streamlit processes behind Debian's nginx.

* without a browser: the rendered config passes ``nginx -t``; cookie stickiness over plain HTTP (a new
  client is pinned to a process, a pinned one stays there, an unknown cookie is re-pinned, nginx refuses
  an upload larger than Streamlit's limit); Ctrl-C / SIGTERM / killing the script leave no process
  behind; a missing nginx gets a message saying how to install it;
* in Chromium (browser marker): several browsers through nginx get the app, are spread over both
  processes, type, switch pages and upload a tokenizer through nginx, keep their session over a
  websocket reconnect, and nginx's own access log shows that every request of a browser (page, websocket,
  upload, reconnect) reached one process; killing one Streamlit process leaves the other's sessions alone.

Which process served a browser is read from nginx's access log (``upstream=`` per request; each browser
context has its own user agent) and from the route cookie nginx set: the app is not changed.
"""
from __future__ import annotations

import json
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

from browser.conftest import ARTIFACTS, browser, wait_idle  # noqa: F401  (browser: Chromium, a fixture)
from deploy.serve import COOKIE, cookie_secret, max_upload_mb, render_nginx_conf

ROOT = Path(__file__).resolve().parents[1]

NGINX = "/usr/sbin/nginx"
#: pages on a busy 2-core machine with two servers and several browsers can take a while
SLOW = 60_000


def need_nginx() -> None:
    if not os.access(NGINX, os.X_OK):
        pytest.fail(f"{NGINX} is missing: run `bash scripts/test.sh`, which installs Debian's nginx")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0] != "Z"
    except (OSError, IndexError):
        return False


def children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(x) for x in (task / "children").read_text().split()]
        except OSError:
            pass
    return out


class Deployment:
    """``python -m deploy.serve`` in a subprocess, on free ports, with its run dir under ``tmp``."""

    def __init__(self, run_dir: Path, processes: int = 2, extra: tuple[str, ...] = ()):
        need_nginx()
        self.run_dir = run_dir
        self.port = free_port()
        self.out = open(run_dir.parent / f"{run_dir.name}-serve.out", "w")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "deploy.serve", "--processes", str(processes), "--port", str(self.port),
             "--host", "127.0.0.1", "--run-dir", str(run_dir), *extra],
            cwd=ROOT, stdout=self.out, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 120
        while not self.ready():
            if self.proc.poll() is not None:
                raise RuntimeError(f"deploy.serve exited with {self.proc.returncode}: {self.output()}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the deployment was not ready within 120 s: {self.output()}")
            time.sleep(0.2)
        self.url = self.state()["url"]
        assert self.url.endswith(f"://127.0.0.1:{self.port}")

    def ready(self) -> bool:
        try:
            return json.loads((self.run_dir / "state.json").read_text())["ready"]
        except (OSError, ValueError, KeyError):
            return False

    def state(self) -> dict:
        return json.loads((self.run_dir / "state.json").read_text())

    def output(self) -> str:
        if not self.out.closed:
            self.out.flush()
        return Path(self.out.name).read_text()

    def pids(self) -> list[int]:
        """This script, nginx's master and workers, every Streamlit process."""
        st = self.state()
        pids = [self.proc.pid, st["nginx_pid"], *children(st["nginx_pid"])]
        return pids + [p["pid"] for p in st["processes"]]

    def port_of(self, route: str) -> int:
        return next(p["port"] for p in self.state()["processes"] if p["name"] == route)

    def access_log(self) -> list[dict]:
        """nginx's access log: one dict per request (ua, request, status, upstream port that answered)."""
        rows = []
        for line in (self.run_dir / "logs" / "nginx-access.log").read_text().splitlines():
            m = re.search(r'"(?P<request>[^"]*)" (?P<status>\d+) \d+ "(?P<ua>[^"]*)" '
                          r"upstream=(?P<upstream>.*?) route=(?P<route>\S*) ", line)
            if m:
                last = m["upstream"].split(",")[-1].strip()
                port = int(last.rsplit(":", 1)[1]) if ":" in last else None
                rows.append({**m.groupdict(), "status": int(m["status"]), "port": port})
        return rows

    def closed_log(self, uas: list[str], timeout: float = 15.0) -> list[dict]:
        """The access log once the browsers ``uas`` (closed by the caller) have their websockets logged:
        nginx writes a websocket's line when it closes, a moment after the browser went away."""
        deadline = time.monotonic() + timeout
        while True:
            log = self.access_log()
            streams = {r["ua"] for r in log if r["request"].startswith("GET /_stcore/stream ")}
            if set(uas) <= streams or time.monotonic() > deadline:
                time.sleep(0.5)  # a reconnected browser may have a second line coming
                return self.access_log()
            time.sleep(0.1)

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self.out.close()
        return self.proc.returncode


def http(url: str, cookie: str | None = None, method: str = "GET", data: bytes | None = None,
         ua: str = "bpelab-deploy-test") -> tuple[int, dict]:
    req = urllib.request.Request(url, method=method, data=data, headers={"User-Agent": ua})
    if cookie:
        req.add_header("Cookie", cookie)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            r.read()
            return r.status, dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers)


def route_set(headers: dict) -> str | None:
    m = re.match(rf"{COOKIE}=(\w+);", headers.get("Set-Cookie", ""))
    return m.group(1) if m else None


# --------------------------------------------------------------------------- without a browser

def test_rendered_config_passes_nginx_t(tmp_path):
    need_nginx()
    (tmp_path / "logs").mkdir()
    (tmp_path / "temp").mkdir()
    conf = render_nginx_conf(listen=f"127.0.0.1:{free_port()}", backends=[("p1", 9001), ("p2", 9002), ("p3", 9003)],
                             run_dir=tmp_path, temp_dir=tmp_path / "temp", max_body_mb=max_upload_mb() + 1)
    (tmp_path / "nginx.conf").write_text(conf)
    r = subprocess.run([NGINX, "-t", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"),
                        "-e", str(tmp_path / "logs" / "error.log")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    # Streamlit's own limit from .streamlit/config.toml, read independently of deploy.serve
    limit = int(re.search(r"^maxUploadSize\s*=\s*(\d+)", (ROOT / ".streamlit" / "config.toml").read_text(), re.M)[1])
    assert f"client_max_body_size {limit + 1}m;" in conf
    for backup in ("server 127.0.0.1:9002 backup;", "server 127.0.0.1:9003 backup;"):
        assert conf.count(backup) == 2  # each process has the two others as backups
    assert "ip_hash" not in conf.replace("Not ip_hash", "")


@pytest.fixture(scope="module")
def deployment(tmp_path_factory):
    dep = Deployment(tmp_path_factory.mktemp("deploy") / "run")
    yield dep
    pids = dep.pids()
    dep.stop()
    deadline = time.monotonic() + 10
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in pids if alive(p)], "processes left behind"


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
    rows = [r for r in deployment.access_log() if r["ua"].startswith(ua)]
    for route in ("p1", "p2"):
        mine = [r for r in rows if r["ua"] == ua + route]
        assert len(mine) == 3 and {r["port"] for r in mine} == {deployment.port_of(route)}
    # an upload bigger than Streamlit's limit is refused by nginx before it reaches a process
    big = b"x" * ((max_upload_mb() + 2) * 1024 * 1024)
    status, _ = http(deployment.url + "/_stcore/upload_file/s/f", method="PUT", data=big, ua=ua)
    assert status == 413


def environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(x.decode().split("=", 1) for x in raw if b"=" in x)


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
    r = subprocess.run([sys.executable, "-m", "deploy.serve", "--nginx", str(tmp_path / "no-nginx"),
                        "--run-dir", str(tmp_path / "run")], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "not an executable" in r.stderr and "Traceback" not in r.stderr
    env = dict(os.environ, PATH=str(tmp_path))  # no nginx on PATH; /usr/sbin/nginx is looked at too
    code = ("import deploy.serve as s, os; s.os.access = lambda p, m: False\n"
            "try:\n    s.find_nginx(None)\nexcept s.DeployError as e:\n    print(e)")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert "sudo apt-get install nginx" in r.stdout


def test_port_in_use_is_a_message(tmp_path):
    need_nginx()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = subprocess.run([sys.executable, "-m", "deploy.serve", "--port", str(port), "--host", "127.0.0.1",
                            "--run-dir", str(tmp_path / "run")], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and f"127.0.0.1:{port}" in r.stderr and "--port" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("how", ["SIGINT", "SIGTERM", "SIGKILL"])
def test_stopping_leaves_no_process_behind(tmp_path, how):
    """Ctrl-C (SIGINT) and SIGTERM stop everything cleanly; if the script itself is killed, its children
    still die (PR_SET_PDEATHSIG)."""
    dep = Deployment(tmp_path / "run")
    pids = dep.pids()
    assert len(pids) == 5 and all(alive(p) for p in pids)  # script, nginx master + worker, 2 Streamlit
    t0 = time.monotonic()
    code = dep.stop(getattr(signal, how))
    deadline = time.monotonic() + 15
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in pids if alive(p)], f"left behind after {how}"
    if how != "SIGKILL":
        assert code == 0 and time.monotonic() - t0 < 12
        assert "stopped" in dep.output() and "Traceback" not in dep.output()
        assert not (tmp_path / "run" / "serve.pid").exists()
    with socket.socket() as s:  # the front port is free again
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", dep.port))


# --------------------------------------------------------------------------- in Chromium

@pytest.fixture(scope="module")
def hf_tokenizer(tmp_path_factory):
    """A tokenizer.json written by Hugging Face ``tokenizers`` itself (its own encode is the reference)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tk = Tokenizer(models.BPE())
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    tk.train_from_iterator([(ROOT / "sample_texts" / "english.txt").read_text(encoding="utf-8")],
                           trainers.BpeTrainer(vocab_size=350, show_progress=False,
                                               initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    path = tmp_path_factory.mktemp("hf") / "tokenizer.json"
    tk.save(str(path))
    return tk, path


class Browser:
    """One browser (a Playwright context with its own cookies and user agent) on the deployment."""

    def __init__(self, browser, dep: Deployment, name: str, **context_options):
        self.name = name
        self.ua = f"Mozilla/5.0 (X11; Linux x86_64) bpelab-deploy-test/{name}-{uuid.uuid4().hex[:6]}"
        self.ctx = browser.new_context(viewport={"width": 1280, "height": 1400}, user_agent=self.ua, **context_options)
        self.page = self.ctx.new_page()
        self.page.set_default_timeout(SLOW)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.dep = dep

    def open(self, path: str = "/") -> "Browser":
        """Open the app: the home page (the player) or a deep link such as ``/tokenize``."""
        self.page.goto(self.dep.url + path)
        wait_idle(self.page, SLOW)
        # the page rendered: the player's sidebar (its text source), or Tokenize's text box
        self.page.wait_for_selector(".st-key-player_source" if path == "/" else ".st-key-tok_text textarea")
        return self

    @property
    def route(self) -> str:
        return next(c["value"] for c in self.ctx.cookies() if c["name"] == COOKIE)

    def to_tokenize(self) -> None:
        self.page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Tokenize", exact=True).click()
        self.page.wait_for_selector(".st-key-tok_text textarea")
        wait_idle(self.page, SLOW)

    def type_text(self, text: str) -> None:
        box = self.page.locator(".st-key-tok_text textarea")
        box.fill(text)
        box.press("Control+Enter")
        self.wait_for_spans(text)

    def wait_for_spans(self, text: str) -> None:
        self.page.wait_for_function(
            "t => [...document.querySelectorAll('.tokv-spans')].some(e => e.innerText.replaceAll('·', ' ').includes(t))",
            arg=text)
        wait_idle(self.page, SLOW)

    def shows(self, text: str) -> bool:
        """Whether a token column shows ``text`` (spaces are drawn as ·)."""
        return any(text in t.replace("·", " ") for t in self.page.locator(".tokv-spans").all_inner_texts())

    def upload(self, path: Path) -> int:
        """Upload a tokenizer file on Tokenize; the token count of its column."""
        self.page.get_by_text("Your own tokenizer").click()
        self.page.locator('.st-key-tok_upload input[type="file"]').set_input_files(str(path))
        self.page.wait_for_selector(".st-key-tok_col_upload .tokv-spans")
        wait_idle(self.page, SLOW)
        return int(self.page.locator('.st-key-tok_col_upload [data-stat="tokens"] .tokv-v').inner_text().replace(",", ""))

    def close(self) -> None:
        self.ctx.close()


def nginx_worker(dep: Deployment) -> int:
    workers = children(dep.state()["nginx_pid"])
    assert len(workers) == 1
    return workers[0]


@pytest.mark.browser
def test_browsers_spread_stick_upload_and_reconnect(browser, deployment, hf_tokenizer):
    tk, tok_path = hf_tokenizer
    browsers = []
    try:
        # four students open the app one after another: two the home page (the player), two a link to Tokenize
        for i in range(4):
            browsers.append(Browser(browser, deployment, f"s{i}").open("/" if i < 2 else "/tokenize"))
        routes = [b.route for b in browsers]
        # new browsers are dealt out to the processes in turn
        assert routes[0] != routes[1] and routes[:2] == routes[2:], routes
        ARTIFACTS.mkdir(exist_ok=True)
        browsers[0].page.screenshot(path=str(ARTIFACTS / "deploy-player.png"))

        # each one switches to Tokenize and types its own text; each sees only its own
        texts = {b.name: f"Student {b.name} writes {uuid.uuid4().hex[:10]}" for b in browsers}
        for b in browsers:
            if b in browsers[:2]:
                b.to_tokenize()
            b.type_text(texts[b.name])
        for b in browsers:
            assert b.shows(texts[b.name])
            assert not any(b.shows(t) for n, t in texts.items() if n != b.name)

        # an upload through nginx, on each process: the uploaded tokenizer's count is HF's own
        for b in (browsers[0], browsers[1]):
            assert b.upload(tok_path) == len(tk.encode(texts[b.name]).ids)
        browsers[1].page.screenshot(path=str(ARTIFACTS / "deploy-tokenize-upload.png"))

        # every websocket drops (nginx's worker dies; its master starts a new one): each browser
        # reconnects through the new worker to ITS process, where its session is still alive
        old = nginx_worker(deployment)
        os.kill(old, signal.SIGKILL)
        deadline = time.monotonic() + 20
        while (not children(deployment.state()["nginx_pid"]) or nginx_worker(deployment) == old) \
                and time.monotonic() < deadline:
            time.sleep(0.1)
        for b in browsers:
            b.page.wait_for_timeout(200)
            wait_idle(b.page, SLOW)
            # the session survived: its text is still in the box, and it still answers
            assert b.page.locator(".st-key-tok_text textarea").input_value() == texts[b.name]
            more = texts[b.name] + " again"
            b.type_text(more)
            assert b.shows(more)
        assert all(not b.errors for b in browsers), [b.errors for b in browsers]
    finally:
        for b in browsers:
            b.close()

    # nginx's record (websocket lines are written when they close, i.e. now): every request of a browser,
    # before and after the reconnect, reached the process its cookie names
    log = deployment.closed_log([b.ua for b in browsers])
    for b, route in zip(browsers, routes):
        mine = [r for r in log if r["ua"] == b.ua]
        assert {r["port"] for r in mine} == {deployment.port_of(route)}, (b.name, route, mine)
        requests = [r["request"] for r in mine]
        assert any(r.startswith(("GET / ", "GET /tokenize ")) for r in requests)  # the first page load
        streams = [r for r in mine if r["request"].startswith("GET /_stcore/stream ")]
        assert streams and all(r["status"] == 101 for r in streams)  # the reconnected websocket at least
        if b in browsers[:2]:
            uploads = [r for r in mine if r["request"].startswith("PUT /_stcore/upload_file/")]
            assert uploads and all(r["status"] in (200, 204) for r in uploads), uploads


@pytest.mark.browser
def test_killing_one_process_leaves_the_other_sessions_alone(browser, deployment, hf_tokenizer):
    tk, tok_path = hf_tokenizer
    browsers = []
    try:
        for i in range(2):
            browsers.append(Browser(browser, deployment, f"k{i}").open("/tokenize"))
        by_route = {b.route: b for b in browsers}
        assert set(by_route) == {"p1", "p2"}
        texts = {}
        for b in browsers:
            texts[b.name] = f"Kept by {b.name} {uuid.uuid4().hex[:10]}"
            b.type_text(texts[b.name])

        victim, survivor = by_route["p1"], by_route["p2"]
        old = next(p for p in deployment.state()["processes"] if p["name"] == "p1")
        os.kill(old["pid"], signal.SIGKILL)

        # the other process's session goes on as if nothing happened: same session, same text, answers
        for k in range(3):
            more = f"{texts[survivor.name]} {k}"
            survivor.type_text(more)
            assert survivor.shows(more)
        assert survivor.page.get_by_text("Connecting").count() == 0

        # the supervisor restarts the dead process on its port
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            st = next(p for p in deployment.state()["processes"] if p["name"] == "p1")
            if st["pid"] != old["pid"] and st["restarts"] == 1:
                break
            time.sleep(0.2)
        assert st["pid"] != old["pid"] and st["port"] == old["port"]
        assert "Streamlit process p1" in deployment.output() and "restarted p1" in deployment.output()

        # the victim's page reconnected by itself to a live process (its session, held by the dead process,
        # is gone); reloaded, as a student would, it works as before
        victim.page.wait_for_timeout(500)
        wait_idle(victim.page, SLOW)
        victim.page.reload()
        wait_idle(victim.page, SLOW)
        victim.page.wait_for_selector(".st-key-tok_text textarea")
        victim.type_text("Back again after the crash")
        assert victim.shows("Back again after the crash")
        # and uploads work there (its XSRF cookie came from the dead process)
        assert victim.upload(tok_path) == len(tk.encode("Back again after the crash").ids)
        victim.page.screenshot(path=str(ARTIFACTS / "deploy-after-kill.png"))
        # the restarted process has the same cookie secret as the others
        secrets_ = {environ(p["pid"])["STREAMLIT_SERVER_COOKIE_SECRET"] for p in deployment.state()["processes"]}
        assert len(secrets_) == 1
        assert not survivor.errors
    finally:
        for b in browsers:
            b.close()
    log = deployment.closed_log([b.ua for b in browsers])
    # the survivor: one websocket from start to end, on its own process
    mine = [r for r in log if r["ua"] == survivor.ua]
    assert {r["port"] for r in mine} == {deployment.port_of("p2")}
    assert len([r for r in mine if r["request"].startswith("GET /_stcore/stream ")]) == 1
    # the victim: its first websocket ended with p1; it reconnected at once to a live process
    streams = [r for r in log if r["ua"] == victim.ua and r["request"].startswith("GET /_stcore/stream ")]
    assert len(streams) >= 2 and all(r["status"] == 101 for r in streams)


@pytest.mark.browser
def test_https_with_a_certificate(browser, tmp_path):
    """--tls-cert/--tls-key: nginx serves HTTPS, the route cookie is Secure, the websocket runs over wss."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    r = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                        "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key),
                        "-out", str(cert)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    dep = Deployment(tmp_path / "run", extra=("--tls-cert", str(cert), "--tls-key", str(key)))
    try:
        assert dep.url.startswith("https://")
        context = ssl.create_default_context(cafile=str(cert))  # our certificate, checked
        with urllib.request.urlopen(dep.url + "/", context=context, timeout=10) as resp:
            assert resp.status == 200
            assert re.fullmatch(rf"{COOKIE}=p[12]; Path=/; HttpOnly; SameSite=Lax; Secure", resp.headers["Set-Cookie"])
        with pytest.raises(urllib.error.URLError):  # plain HTTP on the HTTPS port is refused
            urllib.request.urlopen(dep.url.replace("https:", "http:") + "/_stcore/health", timeout=10).read()
        b = Browser(browser, dep, "tls", ignore_https_errors=True)
        try:
            b.open("/tokenize")
            b.type_text("Over TLS")
            assert b.shows("Over TLS") and not b.errors
        finally:
            b.close()
        streams = [r for r in dep.closed_log([b.ua]) if r["ua"] == b.ua and r["request"].startswith("GET /_stcore/stream ")]
        assert streams and streams[0]["status"] == 101
    finally:
        dep.stop()
