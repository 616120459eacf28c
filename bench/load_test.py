"""Load test: a whole class opens the merge player at once — on one server process, and through the nginx
front (``deploy/``) with two.

For each front (``--fronts process nginx``, default both): one session alone (the baseline), then
``--sessions`` (default 30) at the same moment, each a headless Chromium context (Debian's
``/usr/bin/chromium``) = its own Streamlit session, in phases all sessions start together:

1. **load**: open the player, paste a text of its own (the English sample after a marker of its own), wait
   for training and for the player;
2. **step**: ``--steps`` times, click Step and time, in the page, (a) click -> the player's readout drawn
   (the browser alone), (b) click -> the Python panels (merges tab, link) showing that merge (the report
   waits 250 ms for more steps, then one rerun);
3. **play**: all play at 30 merges/s for ``--play`` seconds: merges drawn per second, websocket frames
   sent while playing (none expected), the server's CPU meanwhile; meanwhile ``--fresh-pages`` (3) **fresh
   pages** (new browser contexts, one after another) are opened and timed to a ready player;
4. **pause**: click Pause and time pause -> the Python panels showing the paused merge, ``--pauses`` times
   (the first all together, then each after playing on for 0.5-2 s of its own); after every pause the
   session checks its text, readout, panels and link are its own (isolation);
5. **settings**: change "Merges to learn" (a number of its own) and time it to a player with that many merges;
6. **upload**: upload a text file of its own and time it to its tokens in the player; then isolation again
   (its upload's marker and merge count, nobody else's).

The servers' CPU (``/proc``: the Streamlit processes and their training workers) is read per phase, the
whole machine's too, and their RSS every half second.

**Whose times are the targets judged on.** In a lecture every student's browser runs on the student's own
laptop; here all of them share the server's 2 cores. So the crowd (all sessions but one) runs in a process
of its own (``bench/load_crowd.py``: its Playwright driver, asyncio loop and one Chromium) at
``--browser-nice`` (default 19) under Linux's SCHED_IDLE policy (``--crowd-idle``, default: it takes only
the CPU the servers and the probe leave, as if it ran on other machines), kept in step over pipes; and
one session, **the probe**, runs in a Chromium of its own, in a cpu cgroup weighted above everything else
(``--favour-probe``, default; root and cgroup v1: on a student's laptop neither the servers nor 29 other
browsers delay its frames; a niceness would not do, Chromium resets its renderers' to 0; where the cgroup
cannot be made the report says so): it does what every session does, with ``--probe-steps``
(default 40) step clicks and ``--probe-pauses`` (default 12) pauses for a p95 worth the name,
and opens the fresh pages. The one-session baseline is the probe alone. The targets (p95 within 2x of one
session, a fresh page ready in <= 5 s) are judged on the probe; the crowd's own times are reported beside
them (they measure 29 browsers starving each other as much as the server), with the server's work during
the step phase (reruns served per second) so it is plain how hard the crowd pressed.
Writes ``bench/results/load.json``. Run on demand: ``python -m bench.load_test [--sessions 30]
[--fronts process nginx]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import threading
import time
from math import nan
from pathlib import Path

from bench.harness import RESULTS, Deployment, drop_favoured, favoured, lowered, start_server
from bench.load_session import Phases, fresh_page, one_session
from testkit.app_server import (
    CHROMIUM,
    CHROMIUM_ARGS,
    ROOT,
    conditions,
    machine_cpu,
    stop_server,
    tree_cpu_seconds,
    tree_rss_mb,
)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(round(q * (len(v) - 1))))]


class Front:
    """What the sessions talk to: ``url``, the Streamlit processes' ``pids``, ``stop()``."""

    def __init__(self, kind: str, processes: int):
        self.kind = kind
        if kind == "process":
            self._proc, self.url = start_server("load-server.log")
            self.pids = [self._proc.pid]
            self.name = "one process"
        else:
            self._deploy = Deployment(processes, RESULTS / "load-deploy")
            self.url, self.pids = self._deploy.url, self._deploy.pids
            self.name = f"nginx + {processes} processes"

    def cpu(self) -> float:
        return sum(tree_cpu_seconds(p) for p in self.pids)

    def rss(self) -> float:
        return sum(tree_rss_mb(p) for p in self.pids)

    def stop(self) -> None:
        stop_server(self._proc) if self.kind == "process" else self._deploy.stop()


class RssSampler(threading.Thread):
    def __init__(self, front: Front):
        super().__init__(daemon=True)
        self.front, self.samples, self.stop = front, [], threading.Event()
        self.t0 = time.perf_counter()

    def run(self) -> None:
        while not self.stop.is_set():
            self.samples.append((round(time.perf_counter() - self.t0, 1), round(self.front.rss(), 1)))
            self.stop.wait(0.5)


class Crowd:
    """The crowd's sessions in a process of their own (``bench/load_crowd.py``), started at ``--browser-nice``
    and, with ``--crowd-idle``, under SCHED_IDLE: its Playwright driver, asyncio loop and Chromium all take
    only the CPU the servers and the probe leave. In step with the coordinator over its pipes."""

    def __init__(self, proc, out: Path, log):
        self.proc, self.out, self.log = proc, out, log

    @classmethod
    async def start(cls, url: str, n: int, args) -> "Crowd":
        out = RESULTS / "load-crowd.json"
        out.unlink(missing_ok=True)
        command = lowered(
            [
                sys.executable,
                "-m",
                "bench.load_crowd",
                "--url",
                url,
                "--sessions",
                str(n),
                "--steps",
                str(args.steps),
                "--play",
                str(args.play),
                "--pauses",
                str(args.pauses),
                "--out",
                str(out),
            ],
            args.browser_nice,
            idle=args.crowd_idle,
        )
        log = open(RESULTS / "load-crowd.log", "w")
        proc = await asyncio.create_subprocess_exec(
            *command, cwd=ROOT, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=log
        )
        return cls(proc, out, log)

    async def arrived(self, name: str) -> None:
        line = (await self.proc.stdout.readline()).decode().strip()
        if line != f"arrived {name}":
            raise RuntimeError(
                f"the crowd's process said {line!r}, not 'arrived {name}' (its log: {RESULTS / 'load-crowd.log'})"
            )

    def go(self, name: str) -> None:
        self.proc.stdin.write(f"go {name}\n".encode())

    async def results(self) -> list[dict]:
        await self.proc.stdin.drain()
        code = await self.proc.wait()
        self.log.close()
        if code != 0:
            raise RuntimeError(f"the crowd's process failed (its log: {RESULTS / 'load-crowd.log'})")
        return json.loads(self.out.read_text(encoding="utf-8"))


async def run_round(front: Front, n: int, args) -> tuple[list[dict], list, list[dict]]:
    """``n`` sessions at once: ``n - 1`` in the crowd's process (niced, SCHED_IDLE), the last one (the probe)
    and the fresh pages here, in a Chromium in :func:`favoured`'s cgroup (``--favour-probe``). Returns what
    the sessions measured, the marks at the phase boundaries and the fresh pages' timings (:func:`fresh_page`)."""
    from playwright.async_api import async_playwright

    marks: list[tuple[str, float, float, float, float]] = []
    async with contextlib.AsyncExitStack() as stack:
        with favoured() if args.favour_probe else contextlib.nullcontext() as args.probe_group:
            p = await stack.enter_async_context(async_playwright())
            probe_browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        crowd = await Crowd.start(front.url, n - 1, args) if n > 1 else None
        phases = Phases(1)
        probe = asyncio.create_task(one_session(probe_browser, front.url, n - 1, args, phases, probe=True))
        fresh: list[dict] = []
        for name in Phases.NAMES:
            await phases.gathered()  # everyone finished the phase before: the next one starts
            if crowd:
                await crowd.arrived(name)
            busy, total = machine_cpu()
            marks.append((name, time.perf_counter(), front.cpu(), busy, total))
            phases.release()
            if crowd:
                crowd.go(name)
            if name == "play":
                for i in range(args.fresh_pages):  # one after another, while the others play
                    fresh.append(await fresh_page(probe_browser, front.url, min(2.0, args.play / 4) if i == 0 else 0.5))
        results = [await probe]
        if crowd:
            results = await crowd.results() + results
        await probe_browser.close()
    return results, marks, fresh


def phase_cpu(marks) -> dict:
    out = {}
    for (name, t0, c0, b0, m0), (_, t1, c1, b1, m1) in zip(marks, marks[1:]):
        out[name] = {"seconds": t1 - t0, "server_cpu_s": c1 - c0, "machine_busy": (b1 - b0) / max(1e-9, m1 - m0)}
    return out


def summary(name: str, rows: list[dict], cpu: dict, n: int, fresh: list[dict]) -> dict:
    shown = [x for r in rows for x in r["shown_ms"]]
    panels = [x for r in rows for x in r["panels_ms"]]
    pauses = [x for r in rows for x in r.get("pause_ms", [])]
    play, step = cpu["play"], cpu["step"]
    return {
        "name": name,
        "sessions": n,
        "errors": sum(len(r["errors"]) for r in rows),
        "isolated": all(r["isolation_ok"] for r in rows),
        "steps": len(panels),
        "shown_p50": pct(shown, 0.5),
        "shown_p95": pct(shown, 0.95),
        "panels_p50": pct(panels, 0.5),
        "panels_p95": pct(panels, 0.95),
        "pause_p50": pct(pauses, 0.5),
        "pause_p95": pct(pauses, 0.95),
        "drawn_per_s": statistics.mean([r.get("drawn_per_s", 0) for r in rows]),
        "advanced_per_s": statistics.mean([r.get("advanced_per_s", 0) for r in rows]),
        "sent_while_playing": sum(r.get("sent_while_playing", 0) for r in rows),
        "load_s_p95": pct([r["load_s"] for r in rows if "load_s" in r], 0.95),
        "settings_s_p95": pct([r["settings_s"] for r in rows if "settings_s" in r], 0.95),
        "upload_s_p95": pct([r["upload_s"] for r in rows if "upload_s" in r], 0.95),
        "fresh_page_s": pct([f["ready_s"] for f in fresh], 0.5),
        "fresh_page_worst_s": max((f["ready_s"] for f in fresh), default=nan),
        "fresh_pages": fresh,
        "play_server_cpu_per_session_s": play["server_cpu_s"] / n / play["seconds"],
        "play_machine_busy": play["machine_busy"],
        "step_phase_s": step["seconds"],
        "step_server_cpu_s": step["server_cpu_s"],
        "step_machine_busy": step["machine_busy"],
        "step_server_cpu_per_session": step["server_cpu_s"] / n,
        "load_server_cpu_per_session": cpu["load"]["server_cpu_s"] / n,
    }


def print_rows(rows: list[dict]) -> None:
    print(
        f"{'':<22} {'errors':>6} {'isolated':>8} {'steps':>5} {'step→readout ms':>16} {'step→panels ms':>15} "
        f"{'pause→panels ms':>16} {'drawn/s':>7} {'ws sent playing':>15} {'p95 s: load':>11} "
        f"{'settings':>8} {'upload':>6} {'fresh page s':>12}"
    )
    for s in rows:
        print(
            f"{s['name']:<22} {s['errors']:>6} {'yes' if s['isolated'] else 'NO':>8} {s['steps']:>5} "
            f"{s['shown_p50']:>7.0f} / {s['shown_p95']:<6.0f} {s['panels_p50']:>6.0f} / {s['panels_p95']:<6.0f} "
            f"{s['pause_p50']:>7.0f} / {s['pause_p95']:<6.0f} {s['drawn_per_s']:>7.1f} "
            f"{s['sent_while_playing']:>15} {s['load_s_p95']:>11.1f} {s['settings_s_p95']:>8.1f} "
            f"{s['upload_s_p95']:>6.1f} {s['fresh_page_s']:>5.1f} / {s['fresh_page_worst_s']:<4.1f}"
        )
    print(
        "(p50 / p95; step→panels includes the player's 250 ms wait for more steps before it reports; "
        "fresh page: median / worst)"
    )


def run_front(kind: str, args) -> dict:
    front = Front(kind, args.processes)
    print(f"\n== {front.name} ({front.url})")
    sampler = RssSampler(front)
    sampler.start()
    try:
        single, marks1, fresh1 = asyncio.run(run_round(front, 1, args))
        rss_single = front.rss()
        many, marks_n, fresh_n = asyncio.run(run_round(front, args.sessions, args))
        time.sleep(2)
        rss_after = front.rss()
    finally:
        sampler.stop.set()
        front.stop()
    n = args.sessions
    one = summary("1 session (probe)", single, phase_cpu(marks1), 1, fresh1)
    probe = summary(f"{n} sessions: the probe", [r for r in many if r["probe"]], phase_cpu(marks_n), n, fresh_n)
    crowd = summary(f"{n} sessions: the crowd", [r for r in many if not r["probe"]], phase_cpu(marks_n), n, [])
    every = summary(f"{n} sessions: all", many, phase_cpu(marks_n), n, fresh_n)
    print_rows([one, probe, crowd])
    for s in (one, every):
        print(
            f"  servers, {s['name']:<22} while playing (a fresh page loads meanwhile): "
            f"{s['play_server_cpu_per_session_s'] * 1000:.1f} ms of CPU per session per second (machine busy "
            f"{s['play_machine_busy'] * 100:.0f}%); per session: {s['load_server_cpu_per_session']:.2f} s to "
            f"load and train, {s['step_server_cpu_per_session']:.2f} s for its steps"
        )
    print(
        f"  step phase with {n} sessions: {every['steps']} steps in {every['step_phase_s']:.1f} s "
        f"({every['steps'] / every['step_phase_s']:.1f} reruns served per second), servers' CPU "
        f"{every['step_server_cpu_s']:.1f} s ({every['step_server_cpu_s'] / max(1, every['steps']) * 1000:.0f} ms a "
        f"step), machine busy {every['step_machine_busy'] * 100:.0f}%"
    )
    peak = max(v for _, v in sampler.samples) if sampler.samples else float("nan")
    print(
        f"  servers' RSS: start {sampler.samples[0][1]:.0f} MB, after one session {rss_single:.0f} MB, "
        f"peak {peak:.0f} MB, after the load {rss_after:.0f} MB"
    )
    ratios = {k: probe[f"{k}_p95"] / one[f"{k}_p95"] for k in ("shown", "panels", "pause")}
    print(
        f"  the probe's p95, {n} sessions / one session: step→readout {ratios['shown']:.1f}x, step→panels "
        f"{ratios['panels']:.1f}x, pause→panels {ratios['pause']:.1f}x (target <= 2x); fresh page "
        f"{probe['fresh_page_s']:.1f} s median, {probe['fresh_page_worst_s']:.1f} s worst of {len(fresh_n)} (target "
        f"<= 5 s)"
    )
    for label, pages in (("alone", fresh1), (f"with {n}", fresh_n)):
        for f in pages:
            print(
                f"  a fresh page {label}: its HTML and scripts in at {f.get('load', nan):.1f} s, the server's "
                f"frames from {f.get('first_frame', nan):.1f} to {f.get('last_frame', nan):.1f} s, the player "
                f"ready at {f['ready_s']:.1f} s{'; ' + f['error'] if 'error' in f else ''}"
            )
    return {
        "front": front.name,
        "single": single,
        "many": many,
        "summary": [one, probe, crowd, every],
        "ratios": ratios,
        "phases": {"single": phase_cpu(marks1), "many": phase_cpu(marks_n)},
        "rss": sampler.samples,
        "rss_after": rss_after,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=30)
    ap.add_argument("--steps", type=int, default=8, help="step clicks per crowd session")
    ap.add_argument("--probe-steps", type=int, default=40, help="step clicks of the probe")
    ap.add_argument("--play", type=float, default=8.0, help="seconds of play per session")
    ap.add_argument(
        "--pauses",
        type=int,
        default=4,
        help="pauses per crowd session: the first all together, then each after a play of its own",
    )
    ap.add_argument("--probe-pauses", type=int, default=12, help="pauses of the probe (the first with the crowd's)")
    ap.add_argument(
        "--fresh-pages",
        type=int,
        default=3,
        help="fresh pages opened one after another while the others play (median and worst reported)",
    )
    ap.add_argument("--fronts", nargs="+", choices=("process", "nginx"), default=["process", "nginx"])
    ap.add_argument("--processes", type=int, default=2, help="Streamlit processes behind nginx")
    ap.add_argument(
        "--browser-nice",
        type=int,
        default=19,
        help="run the browsers at this niceness (default 19; 0: as the servers). In a lecture the "
        "browsers run on the students' machines: on this one they must not starve the servers",
    )
    ap.add_argument(
        "--favour-probe",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="run the probe's browser (and the fresh pages) in a cpu cgroup weighted above everything "
        "else (default; needs root and cgroup v1): on a student's laptop neither the servers nor "
        "29 other browsers delay its frames. --no-favour-probe: at nice 0, as the servers",
    )
    ap.add_argument(
        "--crowd-idle",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="run the crowd's browsers under SCHED_IDLE too (chrt --idle; default): they get the CPU "
        "nobody else wants, as if they ran on other machines. --no-crowd-idle: nice only",
    )
    args = ap.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(f"{CHROMIUM} is missing: apt-get install chromium", file=sys.stderr)
        return 2
    print(
        "Load test of the merge player.",
        conditions(),
        f"The servers at nice 0; the crowd's browsers at nice {args.browser_nice}"
        f"{' under SCHED_IDLE' if args.crowd_idle else ''}; the probe's at nice 0"
        f"{' in a cpu cgroup weighted above everything else (if it can be made)' if args.favour_probe else ''}.",
    )
    try:
        fronts = [run_front(kind, args) for kind in args.fronts]
    finally:
        drop_favoured()
    load = os.getloadavg()
    where = (
        f"in {args.probe_group}, weighted above everything else"
        if args.probe_group
        else "at nice 0 in no cgroup of its own (not root, or no cgroup v1 cpu controller)"
        if args.favour_probe
        else "at nice 0"
    )
    print(
        f"\nload average at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}. The crowd's {args.sessions - 1} "
        f"headless browsers share the machine's cores with the servers (at nice {args.browser_nice}"
        f"{', SCHED_IDLE' if args.crowd_idle else ''}); the probe's browser ran {where}, the servers at nice 0."
    )
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "load.json").write_text(json.dumps({"conditions": conditions(), "fronts": fronts}, indent=1))
    ok = all(
        f["summary"][-1]["errors"] == 0 and f["summary"][-1]["isolated"] and f["summary"][-1]["sent_while_playing"] == 0
        for f in fronts
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
