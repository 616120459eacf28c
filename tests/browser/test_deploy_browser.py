"""The lecture-hall deployment (``python -m deploy.serve``) in Chromium: two Streamlit processes behind nginx.

Several browsers through nginx get the app, are dealt out over both processes, type, switch pages and
upload a tokenizer through nginx, keep their session over a websocket reconnect, and nginx's own access
log shows that every request of a browser (page, websocket, upload, reconnect) reached one process;
killing one Streamlit process leaves the other's sessions alone; HTTPS with a certificate works.

Which process served a browser is read from nginx's access log (``upstream=`` per request; each browser
context has its own user agent) and from the route cookie nginx set: the app is not changed.
"""

from __future__ import annotations

import os
import re
import signal
import ssl
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest
from deploy_harness import (
    ROOT,
    Deployment,
    _no_leftovers,  # noqa: F401  (autouse: stops what a failed test left)
    children,
    environ,
    stopped_cleanly,
)
from playwright.sync_api import expect

from deploy.serve import COOKIE

from .conftest import ARTIFACTS, TOK_BOX, tokenize_settled, wait_idle

#: pages on a busy 2-core machine with two servers and several browsers can take a while
SLOW = 60_000


@pytest.fixture(scope="module")
def deployment(tmp_path_factory):
    dep = Deployment(tmp_path_factory.mktemp("deploy") / "run", per_test=False)
    yield dep
    stopped_cleanly(dep)


@pytest.fixture(scope="module")
def hf_tokenizer(tmp_path_factory):
    """A tokenizer.json written by Hugging Face ``tokenizers`` itself (its own encode is the reference)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tk = Tokenizer(models.BPE())
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    tk.train_from_iterator(
        [(ROOT / "sample_texts" / "english.txt").read_text(encoding="utf-8")],
        trainers.BpeTrainer(vocab_size=350, show_progress=False, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()),
    )
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
        self.page.wait_for_selector(".st-key-player_source" if path == "/" else TOK_BOX)
        return self

    @property
    def route(self) -> str:
        return next(c["value"] for c in self.ctx.cookies() if c["name"] == COOKIE)

    def to_tokenize(self) -> None:
        self.page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Tokenize", exact=True).click()
        self.page.wait_for_selector(TOK_BOX)
        wait_idle(self.page, SLOW)

    def type_text(self, text: str) -> None:
        self.page.locator(TOK_BOX).fill(text)  # the columns follow as it is typed: no Enter
        tokenize_settled(self.page, SLOW)

    def shows(self, text: str) -> bool:
        """Whether a token column shows ``text`` (spaces are drawn as ·)."""
        return any(text in t.replace("·", " ") for t in self.page.locator(".tokv-spans").all_inner_texts())

    def upload(self, path: Path) -> int:
        """Upload a tokenizer file on Tokenize; the token count of its column."""
        self.page.get_by_role("button", name="Your own tokenizer").click()  # a panel of the bar (issue 31)
        self.page.locator('.st-key-tok_upload input[type="file"]').set_input_files(str(path))
        self.page.wait_for_selector('[class*="tok-col-upload_"] .tokv-spans')
        wait_idle(self.page, SLOW)
        return self.upload_count()

    def upload_count(self) -> int:
        """The token count in the uploaded tokenizer's column."""
        return int(
            self.page.locator('[class*="tok-col-upload_"] [data-stat="tokens"] .tokv-v').inner_text().replace(",", "")
        )

    def watch_connection(self) -> None:
        """From now on, note every connection state the page shows (Streamlit's data-test-connection-state)."""
        self.page.evaluate(WATCH_CONNECTION_JS)

    def reconnected(self) -> None:
        """Wait until the page, watched since :meth:`watch_connection`, lost its connection and has it again."""
        self.page.wait_for_function(RECONNECTED_JS)

    def close(self) -> None:
        self.ctx.close()


WATCH_CONNECTION_JS = """() => { const state = () => document.querySelector('[data-testid=stApp]')?.dataset.testConnectionState;
  const seen = (window.__bpeConnection = [state()]);
  new MutationObserver(() => seen.push(state())).observe(document, { subtree: true, attributes: true,
    attributeFilter: ['data-test-connection-state'] }); }"""
RECONNECTED_JS = """() => (window.__bpeConnection || []).some((s) => s !== 'CONNECTED')
  && document.querySelector('[data-testid=stApp]')?.dataset.testConnectionState === 'CONNECTED'"""


def nginx_worker(dep: Deployment) -> int:
    workers = children(dep.state()["nginx_pid"])
    assert len(workers) == 1
    return workers[0]


def proxied(rows: list[dict]) -> list[dict]:
    """The requests a Streamlit process answered; the rest must be Streamlit's static files, which nginx
    serves itself (no upstream)."""
    own = [r for r in rows if r["port"] is None]
    assert own and all(r["request"].startswith("GET /static/") and r["status"] in (200, 304) for r in own), own
    return [r for r in rows if r["port"] is not None]


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
        for b in browsers:
            b.watch_connection()
        os.kill(old, signal.SIGKILL)
        deadline = time.monotonic() + 20  # a hang detector: the master starts a new worker at once (ms)
        # until the master has one worker and it is a new one (for a moment the dead one may still be
        # listed beside its successor)
        while (
            children(deployment.state()["nginx_pid"]) in ([], [old])
            or len(children(deployment.state()["nginx_pid"])) > 1
        ):
            assert time.monotonic() < deadline, children(deployment.state()["nginx_pid"])
            time.sleep(0.1)  # (a poll of the deployment's processes, not of a page)
        for b in browsers:
            b.reconnected()  # its websocket dropped, and it is back
            wait_idle(b.page, SLOW)
            # the session survived: its text is still in the box, it still answers, and the browsers that
            # uploaded still have their tokenizer -- the file lives in that process's memory only
            assert b.page.locator(TOK_BOX).input_value() == texts[b.name]
            more = texts[b.name] + " again"
            b.type_text(more)
            assert b.shows(more)
            if b in browsers[:2]:
                assert b.upload_count() == len(tk.encode(more).ids)
        assert all(not b.errors for b in browsers), [b.errors for b in browsers]
    finally:
        for b in browsers:
            b.close()

    # nginx's record (websocket lines are written when they close, i.e. now): every request of a browser,
    # before and after the reconnect, reached the process its cookie names
    log = deployment.closed_log([b.ua for b in browsers])
    for b, route in zip(browsers, routes):
        mine = proxied([r for r in log if r["ua"] == b.ua])
        assert {r["port"] for r in mine} == {deployment.port_of(route)}, (b.name, route, mine)
        requests = [r["request"] for r in mine]
        assert any(r.startswith(("GET / ", "GET /tokenize ")) for r in requests)  # the first page load
        streams = [r for r in mine if r["request"].startswith("GET /_stcore/stream ")]
        assert streams and all(r["status"] == 101 for r in streams)  # the reconnected websocket at least
        if b in browsers[:2]:
            uploads = [r for r in mine if r["request"].startswith("PUT /_stcore/upload_file/")]
            assert uploads and all(r["status"] in (200, 204) for r in uploads), uploads


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
        victim.watch_connection()
        os.kill(old["pid"], signal.SIGKILL)

        # the other process's session goes on as if nothing happened: same session, same text, answers
        for k in range(3):
            more = f"{texts[survivor.name]} {k}"
            survivor.type_text(more)
            assert survivor.shows(more)
        assert survivor.page.get_by_text("Connecting").count() == 0

        # the supervisor restarts the dead process on its port (a hang detector: a Streamlit process starts in
        # a few seconds, as the deployment's own start shows)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            st = next(p for p in deployment.state()["processes"] if p["name"] == "p1")
            if st["pid"] != old["pid"] and st["restarts"] == 1:
                break
            time.sleep(0.2)  # (a poll of the supervisor's state, not of a page)
        assert st["pid"] != old["pid"] and st["port"] == old["port"]
        assert "Streamlit process p1" in deployment.output() and "restarted p1" in deployment.output()

        # the victim's page reconnected by itself to a live process (its session, held by the dead process,
        # is gone); reloaded, as a student would, it works as before
        victim.reconnected()
        wait_idle(victim.page, SLOW)
        victim.page.reload()
        wait_idle(victim.page, SLOW)
        victim.page.wait_for_selector(TOK_BOX)
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
    mine = proxied([r for r in log if r["ua"] == survivor.ua])
    assert {r["port"] for r in mine} == {deployment.port_of("p2")}
    assert len([r for r in mine if r["request"].startswith("GET /_stcore/stream ")]) == 1
    # the victim: its first websocket ended with p1; it reconnected at once to a live process
    streams = [r for r in log if r["ua"] == victim.ua and r["request"].startswith("GET /_stcore/stream ")]
    assert len(streams) >= 2 and all(r["status"] == 101 for r in streams)


def test_https_with_a_certificate(browser, tmp_path):
    """--tls-cert/--tls-key: nginx serves HTTPS, the route cookie is Secure, the websocket runs over wss."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    r = subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        capture_output=True,
        text=True,
    )
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
        streams = [
            r for r in dep.closed_log([b.ua]) if r["ua"] == b.ua and r["request"].startswith("GET /_stcore/stream ")
        ]
        assert streams and streams[0]["status"] == 101
    finally:
        dep.stop()


def test_a_live_room_across_both_processes(browser, deployment):
    """Issue 20 through the front: the teacher's session on p1, students on p1 and p2 (the route cookie pins
    each); the room lives in the Redis deploy started. Students join by the link and follow a step, a jump,
    play and pause; poll counts from both processes add up; the teacher opens the Classroom and every
    student's page goes there and follows a step. (How fast -- the 1 s promise -- is measured by
    ``python -m bench.live_room --deploy``; the waits here are hang detectors.)"""
    from .test_live_classroom_browser import click_at as lesson_click
    from .test_live_classroom_browser import followed as lesson_followed
    from .test_live_room_browser import HANG, MP, act, followed, merge_text

    def person(name: str, route: str, path: str) -> Browser:
        b = Browser(browser, deployment, name)
        b.ctx.add_cookies([{"name": COOKIE, "value": route, "url": deployment.url}])
        b.page.goto(deployment.url + path)
        b.page.wait_for_selector(f'{MP}[data-ready="1"]', timeout=SLOW)
        wait_idle(b.page, SLOW)
        return b

    people = []
    for route in ("p1", "p2"):  # (an earlier test killed p1: nginx takes it back a little after its restart)
        deployment.serves(route)
    try:
        teacher = person("teacher", "p1", "/?presenter=1&sample=english&merges=64")
        people.append(teacher)
        t = teacher.page
        t.click(".st-key-room_start button")
        t.wait_for_selector(".lr-join[data-code]")
        code = t.get_attribute(".lr-join", "data-code")
        assert t.inner_text(".lr-link").strip() == f"{deployment.url}/?join={code}"  # the front's address
        for i, route in enumerate(("p1", "p2", "p2")):
            s = person(f"student{i}", route, f"/?join={code}")
            people.append(s)
            s.page.wait_for_selector(".lr-status[data-following='1']")
        assert [b.route for b in people] == ["p1", "p1", "p2", "p2"]
        students = [b.page for b in people[1:]]
        followed(t, students, act(t, ".mp-step"), "step through the front")
        clicked = t.locator(f"{MP} .mp-jump input").evaluate(
            "(e) => { e.value = '30'; e.dispatchEvent(new Event('input', {bubbles: true})); return Date.now(); }"
        )
        followed(t, students, clicked, "jump through the front")
        act(t, ".mp-play")
        for s in students:
            expect(s.locator(MP)).to_have_attribute("data-playing", "1", timeout=HANG * 1000)
        t.wait_for_function(
            "() => Number(document.querySelector('.st-key-merge_player "
            "[data-testid=stBidiComponentIsolated]').shadowRoot.querySelector('.mp').dataset.merge) >= 32"
        )
        followed(t, students, act(t, ".mp-play"), "pause through the front")
        assert merge_text(t) == merge_text(students[-1])
        wait_idle(t, SLOW)
        t.click(".st-key-room_ask button")
        for s in students:
            s.wait_for_selector(".st-key-room_poll .lr-question", timeout=SLOW)
        picks = [0, 1, 1]
        for s, pick in zip(students, picks):
            s.locator(f".st-key-room_opt_{pick} button:visible").click()
            s.wait_for_selector(".st-key-room_poll [data-testid=stCaptionContainer]:has-text('Your answer is in')")
        for i, n in enumerate([1, 2, 0, 0]):
            t.wait_for_selector(f".lr-count[data-option='{i}']:text-is('{n}')", timeout=SLOW)
        # the Classroom follows the same way, across both processes
        t.locator('[data-testid="stExpandSidebarButton"]').click()
        t.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Classroom", exact=True).click()
        t.wait_for_selector(".cls-head[data-lesson='1'][data-step='1']", timeout=SLOW)
        for s in students:
            s.wait_for_selector(".cls-head[data-lesson='1'][data-step='1']", timeout=SLOW)
        lesson_followed(t, students, lesson_click(t, ".st-key-lesson_next button"), "a lesson step through the front")
        for b in people:
            assert not b.errors, b.errors
    finally:
        for b in people:
            b.close()
