"""What one session of the load test does (``bench/load_test.py`` runs them): the texts and markers that
make every session's state its own, the phases' meeting point, and the session itself — load, step, play,
pause, settings, upload in one browser context — plus the fresh page opened while the others play.

The JavaScript timings run in the page (``performance.now()``), so they measure what the user sees, not
Playwright's round trips.
"""
from __future__ import annotations

import asyncio
import re
import time

from bench.app_server import IDLE, PLAYER, ROOT, machine_cpu

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
  const t0 = performance.now();
  root.querySelector('.mp-play').click();
  const k = +root.querySelector('.mp').dataset.merge;
  await panelsAt(k, t0);
  return [k, performance.now() - t0];
}""" % (PANELS_AT, HOST)


def session_text(i: int) -> str:
    base = (ROOT / "sample_texts" / "english.txt").read_text(encoding="utf-8")
    return f"Session {i}: " + "x" * (i + 1) + "\n" + base


def marker(i: int, what: str = "Session", fill: str = "x") -> str:
    """How the session's marker reads in the player's tokens (spaces drawn as ·)."""
    return f"{what}·{i}:·" + fill * (i + 1)


def upload_text(i: int) -> str:
    return session_text(i).replace(f"Session {i}: " + "x" * (i + 1), f"Upload {i}: " + "y" * (i + 1), 1)


def merges_for(i: int) -> int:
    return 100 + i


class Phases:
    """The coordinator and the sessions meet at each phase boundary; the coordinator reads the servers'
    and the machine's CPU there (``front``: anything with ``cpu()``, the servers' CPU seconds)."""

    NAMES = ("load", "step", "play", "pause", "settings", "upload", "end")

    def __init__(self, n: int, front) -> None:
        self.barrier = asyncio.Barrier(n + 1)
        self.front = front
        self.marks: list[tuple[str, float, float, float, float]] = []

    async def meet(self) -> None:
        await self.barrier.wait()

    def mark(self, name: str) -> None:
        busy, total = machine_cpu()
        self.marks.append((name, time.perf_counter(), self.front.cpu(), busy, total))


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
        checks += [(f"readout {readout} != paused {k}", readout != k),
                   (f"panels show {tab!r}", not tab.startswith(f"Merges ({k:,})")),
                   (f"link {page.url}", re.search(rf"[?&]merge={k}(&|$)", page.url) is None)]
    if n is not None:
        checks.append((f"status {status!r} is not a run of {n} merges", f"/ {n:,}" not in status))
    if await page.locator('[data-testid="stException"]').count():
        checks.append(("an exception box on the page", True))
    return [what for what, bad in checks if bad]


async def one_session(browser, url: str, i: int, args, phases: Phases, probe: bool = False) -> dict:
    """One session through every phase; ``probe``: the session whose browser has normal priority."""
    out: dict = {"session": i, "probe": probe, "errors": [], "shown_ms": [], "panels_ms": [], "isolation_ok": True}
    ctx = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await ctx.new_page()
    page.set_default_timeout(180_000)
    page.on("pageerror", lambda e: out["errors"].append(f"page error: {e}"))
    sent: list[float] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda f: sent.append(time.perf_counter())))
    others = [marker(j) for j in range(64) if j != i] + [marker(j, "Upload", "y") for j in range(64) if j != i]
    ok = True
    try:
        await phases.meet()                                   # 1. load
        t0 = time.perf_counter()
        await page.goto(url)
        await page.wait_for_selector(f'{PLAYER}[data-ready="1"]')
        await page.locator(".st-key-player_source label", has_text="Paste").click()
        await page.wait_for_selector(IDLE)
        area = page.locator(".st-key-player_paste textarea")
        await area.fill(session_text(i))
        await area.press("Control+Enter")
        await shows(page, marker(i))
        await page.wait_for_selector(IDLE)
        out["load_s"] = time.perf_counter() - t0
    except Exception as exc:
        ok = failed(out, "load", exc)
    await phases.meet()                                       # 2. step
    try:
        if ok:
            for k in range(1, (args.probe_steps if probe else args.steps) + 1):
                shown, panels = await page.evaluate(STEP_JS, k)
                if panels < 0:
                    out["errors"].append(f"step {k}: the readout did not move")
                    break
                out["shown_ms"].append(shown)
                out["panels_ms"].append(panels)
            await page.select_option(f"{PLAYER} .mp-speed select", "30")
            await page.wait_for_timeout(600)
            await page.wait_for_selector(IDLE)
    except Exception as exc:
        ok = failed(out, "step", exc)
    await phases.meet()                                       # 3. play
    try:
        if ok:
            await page.locator(f"{PLAYER} .mp-play").click()
            t_play = time.perf_counter()
    except Exception as exc:
        ok = failed(out, "play", exc)
    await asyncio.sleep(args.play)
    await phases.meet()                                       # 4. pause
    try:
        if ok:
            d = await page.locator(PLAYER).evaluate("e => ({...e.dataset})")
            played = time.perf_counter() - t_play
            out["sent_while_playing"] = sum(1 for t in sent if t_play < t < t_play + played)
            out["drawn_per_s"] = int(d.get("drawn") or 0) / played
            out["advanced_per_s"] = int(d.get("advanced") or 0) / played
            k, out["pause_ms"] = await page.evaluate(PAUSE_JS)
            out["paused_at"] = k
            problems = await isolation(page, i, marker(i), others, k, None)
            if problems:
                out["isolation_ok"], out["isolation"] = False, problems
    except Exception as exc:
        ok = out["isolation_ok"] = failed(out, "pause", exc)
    await phases.meet()                                       # 5. settings
    try:
        if ok:
            t0 = time.perf_counter()
            box = page.locator(".st-key-player_merges input")
            await box.fill(str(merges_for(i)))
            await box.press("Enter")
            await page.wait_for_function(f"([h, s]) => ({STATUS_JS})(h).includes(s)",
                                         arg=[HOST, f"/ {merges_for(i):,}"])
            await page.wait_for_selector(IDLE)
            out["settings_s"] = time.perf_counter() - t0
    except Exception as exc:
        ok = failed(out, "settings", exc)
    await phases.meet()                                       # 6. upload
    try:
        if ok:
            t0 = time.perf_counter()
            await page.locator(".st-key-player_source label", has_text="Upload").click()
            await page.wait_for_selector(IDLE)
            await page.set_input_files(".st-key-player_upload input[type=file]", files=[{
                "name": f"session{i}.txt", "mimeType": "text/plain", "buffer": upload_text(i).encode()}])
            await shows(page, marker(i, "Upload", "y"))
            await page.wait_for_selector(IDLE)
            out["upload_s"] = time.perf_counter() - t0
            problems = await isolation(page, i, marker(i, "Upload", "y"), others, None, merges_for(i))
            if problems:
                out["isolation_ok"], out["isolation"] = False, out.get("isolation", []) + problems
    except Exception as exc:
        out["isolation_ok"] = failed(out, "upload", exc)
    await phases.meet()                                       # done
    await ctx.close()
    return out


async def fresh_page(browser, url: str, delay: float) -> float:
    """Seconds from opening the app in a new context to a ready player (while the others play)."""
    await asyncio.sleep(delay)
    ctx = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await ctx.new_page()
    t0 = time.perf_counter()
    try:
        await page.goto(url)
        await page.wait_for_selector(f'{PLAYER}[data-ready="1"]', timeout=120_000)
        return time.perf_counter() - t0
    except Exception:
        return float("inf")
    finally:
        await ctx.close()
