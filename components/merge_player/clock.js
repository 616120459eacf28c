// @ts-check
// The merge player's play clock and controls (components/merge_player): the buttons, the speed and the merge
// slider, the keyboard shortcuts, a click on a token; play (frames drawn from the clock: core.js frameTarget),
// pause, step, jump; and show, which draws a step in every part.
// A layer of the player, on the one before it (player.js lists them).
import { clampStep, fmt, frameTarget, keyCommand, measureRate, transition } from "./core.js";
import { Explain } from "./explain.js";
import { el, isCombobox, setVar } from "./dom.js";
import { REPORT_DELAY } from "./base.js";

const LEAD_DELAY = 60; // the same for a live room's teacher: the students wait for it

export class Clock extends Explain {
  /** @type {number} */ raf;
  /** @type {HTMLButtonElement} */ bReset;
  /** @type {HTMLButtonElement} */ bBack;
  /** @type {HTMLButtonElement} */ bPlay;
  /** @type {HTMLButtonElement} */ bStep;
  /** @type {HTMLSelectElement} */ speedSel;
  /** @type {HTMLSpanElement} */ jumpCap;
  /** @type {HTMLInputElement} */ range;
  /** @type {HTMLDivElement} */ controlsBar;

  /** @param {HTMLElement | ShadowRoot} host */
  constructor(host) {
    super(host);
    this.raf = 0;
    const controls = el("div", "mp-controls");
    /** @type {(cls: string, icon: string, label: string, title: string, onClick: () => void) => HTMLButtonElement} */
    const button = (cls, icon, label, title, onClick) => {
      const b = el("button", `mp-btn ${cls}`);
      b.type = "button";
      b.title = title;
      b.append(el("span", "mp-ico", icon), el("span", "mp-lab", label));
      b.addEventListener("click", onClick);
      return b;
    };
    this.bReset = button("mp-reset", "⏮", "Reset", "Back to merge 0 (0)", () => this.jump(0));
    this.bBack = button("mp-back", "◀", "Back", "One merge back (← or PageUp)", () => this.step(-1));
    this.bPlay = button("mp-play", "▶", "Play", "Play the merges one after another (K)", () => this.toggle());
    this.bStep = button("mp-step", "▶", "Step", "One merge forward (→ or PageDown)", () => this.step(1));
    this.bStep.append(/** @type {HTMLSpanElement} */ (this.bStep.querySelector(".mp-ico"))); // the icon after the label
    const buttons = el("div", "mp-buttons");
    buttons.append(this.bReset, this.bBack, this.bPlay, this.bStep);

    const speedBox = el("label", "mp-speed");
    speedBox.append(el("span", "mp-cap", "Speed"));
    this.speedSel = el("select");
    this.speedSel.title = "Merges per second";
    this.speedSel.addEventListener("change", () => this.setSpeed(Number(this.speedSel.value)));
    speedBox.append(this.speedSel);

    const jumpBox = el("label", "mp-jump");
    this.jumpCap = el("span", "mp-cap", "Merge");
    this.range = el("input");
    this.range.type = "range";
    this.range.min = "0";
    this.range.step = "1";
    this.range.title = "Drag to any merge (or focus it and use the arrow keys)";
    this.range.addEventListener("input", () => this.jump(Number(this.range.value)));
    jumpBox.append(this.jumpCap, this.range);
    controls.append(buttons, speedBox, jumpBox);
    this.controlsBar = controls;
    this.tokens.addEventListener("click", (e) => this.clickToken(e));
  }

  buildSpeed() {
    const speeds = this.speeds.map(String);
    if ([...this.speedSel.options].map((o) => o.value).join() === speeds.join()) {
      this.speedSel.value = String(this.speed);
      return;
    }
    this.speedSel.replaceChildren();
    for (const s of this.speeds) {
      const o = el("option", "", `${s}/s`);
      o.value = String(s);
      this.speedSel.append(o);
    }
    this.speedSel.value = String(this.speed);
  }

  // The shortcuts: K play/pause, → / ← (and PageDown / PageUp, what presentation clickers send) step,
  // 0 / Home and End jump. Not while typing; on the player's own speed select (focused after a choice)
  // K and → ← PageDown PageUp still drive the player (↑ ↓ change the speed); on a closed combobox (a
  // Streamlit select just picked, e.g. the sidebar's sample: it keeps the focus, its list shut) the steps
  // work too (K would start a search; while one types, the list is open).
  /** @param {KeyboardEvent} e */
  key(e) {
    if (!this.run || this.positioned !== this.run.tag || e.defaultPrevented) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const target = /** @type {HTMLElement | null} */ ((e.composedPath && e.composedPath()[0]) || e.target);
    const tag = (target && target.tagName) || "";
    const command = keyCommand(e.key);
    const steps = command === "forward" || command === "back";
    if (target && (target.isContentEditable || tag === "TEXTAREA")) return;
    if (target === this.speedSel) {
      if (!steps && command !== "toggle") return;
    } else if (isCombobox(target)) {
      if (!steps || target.getAttribute("aria-expanded") !== "false") return;
    } else if (/^(INPUT|SELECT)$/.test(tag)) return;
    const n = this.run.n;
    let done = true;
    if (command === "toggle") this.toggle();
    else if (command === "forward") this.step(1);
    else if (command === "back") this.step(-1);
    else if (command === "start") this.jump(0);
    else if (command === "end") this.jump(n);
    else if (command === "close" && !this.explainBox.hidden) this.closeExplain();
    else done = false;
    if (done) e.preventDefault();
  }

  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  play() {
    const run = this.run;
    if (!run || !run.n || this.playing) return;
    this.dropReport();
    if (this.k >= run.n) this.show(0, { animate: false });
    this.playing = true;
    this.stats = { drawn: 0, advanced: 0, ms: 0 };
    this.t0 = performance.now();
    this.samples = [[this.t0, this.k]];
    this.measured = null;
    this.k0 = this.k;
    this.root.dataset.playing = "1";
    document.documentElement.dataset.bpePlayer = "playing";
    this.updateControls();
    if (this.lead) this.report(0); // the room's students start playing too
    /** @param {number} now */
    const tick = (now) => {
      if (!this.playing) return;
      // (a frame's timestamp can be a little older than the click that started playing)
      const clock = frameTarget({ k: this.k, k0: this.k0, t0: this.t0, speed: this.speed, n: run.n }, now);
      const target = clock.target;
      this.k0 = clock.k0;
      this.t0 = clock.t0;
      this.measured = measureRate(this.samples, now, target, this.speed);
      if (target !== this.k) {
        const jump = target - this.k;
        this.stats.drawn += 1; // one frame, one merge on screen (more than one merge when frames batch)
        this.stats.advanced += jump;
        const t = performance.now();
        this.show(target, { animate: jump === 1 });
        this.stats.ms += performance.now() - t;
        this.root.dataset.ms = (this.stats.ms / this.stats.drawn).toFixed(2);
        this.root.dataset.drawn = String(this.stats.drawn);
        this.root.dataset.advanced = String(this.stats.advanced);
      }
      if (this.k >= run.n) {
        this.pause(); // the end: stop there
        return;
      }
      this.raf = requestAnimationFrame(tick);
    };
    this.raf = requestAnimationFrame(tick);
  }

  stop() {
    if (this.raf) cancelAnimationFrame(this.raf);
    this.raf = 0;
    if (this.playing) {
      this.playing = false;
      this.root.dataset.playing = "0";
      this.root.dataset.stopped = String(Date.now()); // (benchmarks: what was sent before it stopped)
      document.documentElement.dataset.bpePlayer = "paused";
    }
  }

  pause() {
    if (!this.playing) return;
    this.stop(); // the merge on screen stays: nothing is recomputed from the clock
    this.show(this.k, { animate: false });
    this.report(0);
  }

  /** @param {number} delta  +1 or -1 */
  step(delta) {
    if (!this.run) return;
    this.stop();
    const k = clampStep(this.k + delta, this.run.n);
    if (k !== this.k) this.show(k, { animate: delta === 1 });
    else this.updateControls();
    this.report(this.lead ? LEAD_DELAY : REPORT_DELAY);
  }

  /** @param {number} k */
  jump(k) {
    if (!this.run) return;
    this.stop();
    this.show(clampStep(k, this.run.n), { animate: false });
    this.report(this.lead ? LEAD_DELAY : REPORT_DELAY);
  }

  /** @param {number} s  merges a second */
  setSpeed(s) {
    if (!this.speeds.includes(s)) return;
    this.speed = s;
    if (this.playing) {
      this.t0 = performance.now();
      this.k0 = this.k;
      this.samples = [[this.t0, this.k]];
      this.measured = null;
    } else {
      this.report(REPORT_DELAY);
    }
    if (this.playing && this.lead) this.report(0);
  }

  /** @param {MouseEvent} e */
  clickToken(e) {
    const target = /** @type {Element | null} */ (e.target);
    const tok = target && target.closest ? /** @type {HTMLElement | null} */ (target.closest(".tok")) : null;
    if (!tok || !this.run) return;
    this.stop();
    this.show(this.k, { animate: false });
    this.openExplain(tok);
    this.report(0, { explain: Number(tok.dataset.id) });
  }

  /**
   * Draw step ``k``.
   * @param {number} k
   * @param {{ animate: boolean }} how  animate: a step forward (moves, unless reduced motion is asked for)
   */
  show(k, { animate }) {
    const prev = this.k;
    if (k !== this.explainK) this.closeExplain();
    this.k = k;
    this.root.dataset.merge = String(k);
    const motion = animate && !this.reduced.matches;
    const { move, still, join } = transition(this.playing, this.speed, motion); // no transition shorter than ~40 ms
    for (const part of [this.bars, this.chart]) {
      setVar(part, "--mp-move", move);
      if (part.classList.contains("mp-still") !== still) part.classList.toggle("mp-still", still);
    }
    this.updateControls();
    this.drawStatus(k);
    this.drawBars(k);
    this.drawTokens(k, k === prev + 1 ? join : 0);
    this.drawCurve(k);
  }

  updateControls() {
    const run = this.run;
    const n = run ? run.n : 0;
    const k = this.k;
    this.bReset.disabled = !n || k === 0;
    this.bBack.disabled = k === 0;
    this.bStep.disabled = k >= n;
    this.bPlay.disabled = !n;
    /** @type {HTMLSpanElement} */ (this.bPlay.querySelector(".mp-ico")).textContent = this.playing ? "⏸" : "▶";
    /** @type {HTMLSpanElement} */ (this.bPlay.querySelector(".mp-lab")).textContent = this.playing ? "Pause" : "Play";
    this.bPlay.setAttribute("aria-pressed", this.playing ? "true" : "false");
    this.range.max = String(n);
    this.range.value = String(k);
    this.range.disabled = !n;
    this.jumpCap.textContent = `${run ? run.word : "Merge"} ${fmt(k)}`;
    this.speedSel.value = String(this.speed);
    const live = this.playing ? "off" : "polite";
    if (this.status.getAttribute("aria-live") !== live) this.status.setAttribute("aria-live", live);
  }
}
