"""What one session of the load test does (``bench/load_test.py`` runs them): the texts and markers that
make every session's state its own, the phases' meeting point, and the session itself — load, step, play,
pause, settings, upload in one browser context — plus the fresh page opened while the others play.

The JavaScript timings run in the page (``performance.now()``), so they measure what the user sees, not
Playwright's round trips.
"""

from __future__ import annotations

import asyncio
import random
import re
import time

from testkit.app_server import IDLE, PLAYER, ROOT

HOST = PLAYER.split(" .mp")[0]
#: waits (up to 60 s from t0) until Python's panels and the link show merge k
PANELS_AT = """const panelsAt = async (k, t0) => {
  while (performance.now() - t0 < 60000) {
    const tab = document.querySelector('[data-testid="stTab"]');
    const linked = new RegExp(`[?&]merge=${k}(&|$)`).test(location.search);
    if (tab && tab.innerText.startsWith(`Merges (${k.toLocaleString('en-US')})`) && linked) return;
    await new Promise(r => setTimeout(r, 10));
  }
};
"""
STEP_JS = """async (k) => {
  %s
  const root = document.querySelector('%s').shadowRoot;
  const t0 = performance.now();
  root.querySelector('.mp-step').click();
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));    // the readout is drawn
  const shown = performance.now() - t0;
  if (+root.querySelector('.mp').dataset.merge !== k) return [shown, -1];
  await panelsAt(k, t0);
  return [shown, performance.now() - t0];
}""" % (PANELS_AT, HOST)
PAUSE_JS = """async () => {
  %s
  const root = document.querySelector('%s').shadowRoot;
  if (root.querySelector('.mp').dataset.playing !== '1') return [-1, -1];   // it stopped by itself (the end)
  const t0 = performance.now();
  root.querySelector('.mp-play').click();
  const k = +root.querySelector('.mp').dataset.merge;
  await panelsAt(k, t0);
  return [k, performance.now() - t0];
}""" % (PANELS_AT, HOST)


#: merges each session's run learns (the English sample allows ~790): room for the step phase and for the
#: crowd's slow players (~1 merge/s)
MERGES = 700
#: the probe's text: every sample, ~16 KB, ~3,300 merges after the held-out tenth. The probe plays at the full
#: 30 merges/s and then waits at the pause phase for the slowest of the crowd (30-60 s): its run must not end
#: before (a player at its end stops by itself, and there is no pause to time)
PROBE_SAMPLES = ("english", "python_code", "multilingual", "chat", "numbers", "emoji")
PROBE_MERGES = 3000


def session_text(i: int, probe: bool = False) -> str:
    names = PROBE_SAMPLES if probe else PROBE_SAMPLES[:1]
    base = "".join((ROOT / "sample_texts" / f"{name}.txt").read_text(encoding="utf-8") for name in names)
    return f"Session {i}: " + "x" * (i + 1) + "\n" + base


def marker(i: int, what: str = "Session", fill: str = "x") -> str:
    """How the session's marker reads in the player's tokens (spaces drawn as ·)."""
    return f"{what}·{i}:·" + fill * (i + 1)


def upload_text(i: int, probe: bool = False) -> str:
    return session_text(i, probe).replace(f"Session {i}: " + "x" * (i + 1), f"Upload {i}: " + "y" * (i + 1), 1)


def merges_for(i: int) -> int:
    return 100 + i


class Phases:
    """Where the sessions of one process wait for each other at every phase boundary (``NAMES``). Each of
    the ``n`` sessions awaits :meth:`meet`; the coordinator awaits :meth:`gathered` (all ``n`` have arrived),
    does what it does between phases (reads the CPU, tells the other process's coordinator, opens the
    fresh page) and calls :meth:`release` to start the next phase."""

    NAMES = ("load", "step", "play", "pause", "settings", "upload", "end")

    def __init__(self, n: int) -> None:
        self.n, self.arrived = n, 0
        self._all, self._go = asyncio.Event(), asyncio.Event()

    async def meet(self) -> None:
        go = self._go
        self.arrived += 1
        if self.arrived == self.n:
            self._all.set()
        await go.wait()

    async def gathered(self) -> None:
        await self._all.wait()

    def release(self) -> None:
        go, self._all, self._go, self.arrived = self._go, asyncio.Event(), asyncio.Event(), 0
        go.set()


def failed(out: dict, phase: str, exc: Exception) -> bool:
    """Note what went wrong in a phase (the report counts it); the session sits the next phases out."""
    out["errors"].append(f"{phase}: {type(exc).__name__}: {str(exc).splitlines()[0][:160]}")
    return False


TOKENS_JS = "h => document.querySelector(h)?.shadowRoot?.querySelector('.mp-tokens')?.textContent || ''"
STATUS_JS = "h => document.querySelector(h)?.shadowRoot?.querySelector('.mp-status')?.textContent || ''"


async def shows(page, text: str) -> None:
    await page.wait_for_function(f"([h, m]) => ({TOKENS_JS})(h).includes(m)", arg=[HOST, text])


async def isolation(page, i: int, mark: str, others: list[str], k: int | None, n: int | None) -> list[str]:
    """What is wrong with what this session sees (nothing: [])."""
    text = await page.evaluate(TOKENS_JS, HOST)
    status = await page.evaluate(STATUS_JS, HOST)
    readout = int(await page.get_attribute(PLAYER, "data-merge"))
    tab = await page.locator('[data-testid="stTab"]').first.inner_text()
    seen = [m for m in others if m in text]
    checks = [("its text is not shown", mark not in text), (f"other texts shown: {seen}", seen)]
    if k is not None:
        checks += [
            (f"readout {readout} != paused {k}", readout != k),
            (f"panels show {tab!r}", not tab.startswith(f"Merges ({k:,})")),
            (f"link {page.url}", re.search(rf"[?&]merge={k}(&|$)", page.url) is None),
        ]
    if n is not None:
        checks.append((f"status {status!r} is not a run of {n} merges", f"/ {n:,}" not in status))
    if await page.locator('[data-testid="stException"]').count():
        checks.append(("an exception box on the page", True))
    return [what for what, bad in checks if bad]


class Session:
    """One session's page and what it measured (``out``); a method a phase, each raising on what went wrong
    (:func:`one_session` notes it and sits the next phases out)."""

    def __init__(self, page, url: str, i: int, args, probe: bool):
        self.page, self.url, self.i, self.args, self.probe = page, url, i, args, probe
        self.out: dict = {
            "session": i,
            "probe": probe,
            "errors": [],
            "shown_ms": [],
            "panels_ms": [],
            "isolation_ok": True,
        }
        self.sent: list[float] = []
        page.on("pageerror", lambda e: self.out["errors"].append(f"page error: {e}"))
        page.on("websocket", lambda ws: ws.on("framesent", lambda f: self.sent.append(time.perf_counter())))
        self.others = [marker(j) for j in range(64) if j != i] + [marker(j, "Upload", "y") for j in range(64) if j != i]

    async def timed(self, what: str, *steps) -> None:
        """Await ``steps`` (awaitables made on the spot by the callers) in turn, then the page idle; the
        seconds it all took go to ``out[what]``."""
        t0 = time.perf_counter()
        for step in steps:
            await step()
        await self.page.wait_for_selector(IDLE)
        self.out[what] = time.perf_counter() - t0

    def check(self, problems: list[str]) -> None:
        if problems:
            self.out["isolation_ok"] = False
            self.out["isolation"] = self.out.get("isolation", []) + problems

    async def load(self) -> None:
        page, area = self.page, self.page.locator(".st-key-player_paste textarea")
        await self.timed(
            "load_s",
            lambda: page.goto(f"{self.url}?merges={PROBE_MERGES if self.probe else MERGES}"),
            lambda: page.wait_for_selector(f'{PLAYER}[data-ready="1"]'),
            lambda: page.locator(".st-key-player_source label", has_text="Paste").click(),
            lambda: page.wait_for_selector(IDLE),
            lambda: area.fill(session_text(self.i, self.probe)),
            lambda: area.press("Control+Enter"),
            lambda: shows(page, marker(self.i)),
        )

    async def step(self) -> None:
        for k in range(1, (self.args.probe_steps if self.probe else self.args.steps) + 1):
            shown, panels = await self.page.evaluate(STEP_JS, k)
            if panels < 0:
                self.out["errors"].append(f"step {k}: the readout did not move")
                break
            self.out["shown_ms"].append(shown)
            self.out["panels_ms"].append(panels)
        await self.page.select_option(f"{PLAYER} .mp-speed select", "30")
        await self.page.wait_for_timeout(600)
        await self.page.wait_for_selector(IDLE)

    async def play(self) -> None:
        await self.page.locator(f"{PLAYER} .mp-play").click()
        self.t_play = time.perf_counter()

    async def pause(self) -> None:
        """Pause ``--pauses`` times (the probe ``--probe-pauses``): the first together with every other
        session (the teacher says "pause"), then each after playing on for a while of its own (0.5-2 s, seeded
        by the session), as students follow along; every pause timed to the panels showing the paused merge."""
        d = await self.page.locator(PLAYER).evaluate("e => ({...e.dataset})")
        played = time.perf_counter() - self.t_play
        self.out["sent_while_playing"] = sum(1 for t in self.sent if self.t_play < t < self.t_play + played)
        self.out["drawn_per_s"] = int(d.get("drawn") or 0) / played
        self.out["advanced_per_s"] = int(d.get("advanced") or 0) / played
        self.out["pause_ms"], wait = [], random.Random(self.i)
        for n in range(self.args.probe_pauses if self.probe else self.args.pauses):
            if n:
                await self.page.locator(f"{PLAYER} .mp-play").click()
                await asyncio.sleep(wait.uniform(0.5, 2.0))
            k, pause_ms = await self.page.evaluate(PAUSE_JS)
            if k < 0:
                raise RuntimeError("the player was no longer playing at the pause: it reached the run's end")
            self.out["paused_at"] = k
            self.out["pause_ms"].append(pause_ms)
            self.check(await isolation(self.page, self.i, marker(self.i), self.others, k, None))

    async def settings(self) -> None:
        box, n = self.page.locator(".st-key-player_merges input"), merges_for(self.i)
        await self.timed(
            "settings_s",
            lambda: box.fill(str(n)),
            lambda: box.press("Enter"),
            lambda: self.page.wait_for_function(f"([h, s]) => ({STATUS_JS})(h).includes(s)", arg=[HOST, f"/ {n:,}"]),
        )

    async def upload(self) -> None:
        page, files = (
            self.page,
            [
                {
                    "name": f"session{self.i}.txt",
                    "mimeType": "text/plain",
                    "buffer": upload_text(self.i, self.probe).encode(),
                }
            ],
        )
        await self.timed(
            "upload_s",
            lambda: page.locator(".st-key-player_source label", has_text="Upload").click(),
            lambda: page.wait_for_selector(IDLE),
            lambda: page.set_input_files(".st-key-player_upload input[type=file]", files=files),
            lambda: shows(page, marker(self.i, "Upload", "y")),
        )
        self.check(await isolation(page, self.i, marker(self.i, "Upload", "y"), self.others, None, merges_for(self.i)))


async def one_session(browser, url: str, i: int, args, phases: Phases, probe: bool = False) -> dict:
    """One session through every phase (``Phases.NAMES``), in step with the others; ``probe``: the session the
    targets are judged on (its own browser, a text of every sample, ``--probe-steps`` and ``--probe-pauses``).
    Returns what it measured."""
    ctx = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await ctx.new_page()
    page.set_default_timeout(180_000)
    session, ok = Session(page, url, i, args, probe), True
    for name in Phases.NAMES[:-1]:
        await phases.meet()
        if ok:
            try:
                await getattr(session, name)()
            except Exception as exc:
                ok = failed(session.out, name, exc)
                if name in ("pause", "upload"):  # its isolation could not be checked
                    session.out["isolation_ok"] = False
        if name == "play":
            await asyncio.sleep(args.play)
    await phases.meet()  # done
    await ctx.close()
    return session.out


async def fresh_page(browser, url: str, delay: float) -> dict:
    """A new browser context opens the app while the others play: seconds from the request to a ready
    player (``ready_s``; inf if it never came), and on the way the page's ``load`` event (its HTML, scripts
    and styles in), the ``first_frame`` and ``last_frame`` the server sent on the websocket before the
    player was ready (the script's run), so the report can tell the server's part from the browser's."""
    await asyncio.sleep(delay)
    ctx = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await ctx.new_page()
    frames: list[float] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(time.perf_counter())))
    t0 = time.perf_counter()
    out = {"ready_s": float("inf")}
    try:
        await page.goto(url)
        out["load"] = time.perf_counter() - t0
        await page.wait_for_selector(f'{PLAYER}[data-ready="1"]', timeout=120_000)
        out["ready_s"] = time.perf_counter() - t0
        sent = [t - t0 for t in frames if t - t0 <= out["ready_s"]]
        out["first_frame"], out["last_frame"] = (sent[0], sent[-1]) if sent else (float("nan"), float("nan"))
    except Exception as exc:
        out["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
    finally:
        await ctx.close()
    return out
