// @ts-check
// The merge player (BPE Lab): a recorded BPE run, animated in the browser.
//
// Python (views/player_payload.py) sends what is drawn, computed by the app's views: once per run the
// merges, the top pairs before each merge, every token's label, inner HTML, byte length and color, and
// the compression curves; once per text window the window's replay (each token node: byte offset, id,
// the steps at which it is on screen). This module only filters and lays out: step, back, play, pause,
// speed, jump, reset and the keyboard shortcuts run here, with no server round trip. Python hears the
// position (setStateValue "view") on pause, after a step or a jump (debounced), and on a click on a token;
// never per frame while playing.
//
// Live rooms: a teacher's player (control "lead") also reports when it starts playing and its speed, and
// steps are reported sooner; a student's player follows the teacher's play state ("follow", from
// mailbox.js, which long-polls the room: {merge, speed, playing, age, v, seq}), new only when the teacher
// acts, and plays the frames itself (applyFollow). data-following on the root is "1" while it follows.
//
// Streamlit (1.67, st.components.v2) calls the default export again, on the same parentElement, whenever
// the run payload changes; the window and the controls arrive through mailbox.js. Nothing user-derived is
// ever inserted as HTML here except the inner HTML Python's escaping view produced (payload "piece");
// everything else goes through textContent.
//
// Test hooks on the root element (.mp): data-merge (the merge on screen), data-playing, data-drawn
// (frames drawn while playing: each a distinct merge), data-advanced (merges advanced while playing:
// more than drawn when frames batch merges), data-ms (mean JavaScript time of a frame), data-stopped
// (when it last stopped playing, ms since the epoch), data-ready, data-joining (joins of two tokens still
// animating: 0 when none).
//
// The pure parts (what is on screen at a step, the play clock, the chart's scales, ...) are core.js,
// unit-tested; components/merge_player/__init__.py joins core.js and this file into one module.
//
// The player is built in layers, one module each, each class extending the one before it:
// base.js, charts.js, status.js, text.js, explain.js, then this one (the rest is being moved out).
import { clampStep, fmt, frameTarget, keyCommand, measureRate, prepareRun, prepareWindow, transition } from "./core.js";
import { REPORT_DELAY } from "./base.js";
import { FALLBACK_CAP, TEXT_CAP } from "./text.js";
import { PAIRS_CAP } from "./charts.js";
import { Explain } from "./explain.js";
import { el, inflate, isCombobox, setVar } from "./dom.js";

/** @import { Control, Run, RunPayload, ViewReport, WindowPayload } from "./core.js" */
/** @import { Follow } from "./follow.js" */
/** @import { Registry } from "./mailbox.js" */
/** @import { SetState } from "./base.js" */

/** @type {Registry} */
const REG = (/** @type {any} */ (globalThis)[Symbol.for("bpe-lab.merge-player")] ??= { box: {}, listeners: new Set() });
/** @type {WeakMap<Node, Player>} */
const PLAYERS = new WeakMap();
const SCHEMA = 1;
const LEAD_DELAY = 60; // the same for a live room's teacher: the students wait for it

/**
 * The component (Streamlit calls it again, on the same parentElement, whenever the run payload changes).
 * @param {{ data: BufferSource | null, parentElement: HTMLElement | ShadowRoot, setStateValue: SetState }} args
 */
export default function mount({ data, parentElement, setStateValue }) {
  let player = PLAYERS.get(parentElement);
  if (!player) {
    player = new Player(parentElement);
    PLAYERS.set(parentElement, player);
  }
  player.setState = setStateValue;
  player.loadRun(data);
  return () => {
    player.destroy();
    PLAYERS.delete(parentElement);
  };
}

class Player extends Explain {
  // ---- timers, listeners
  /** @type {number} */ raf;
  /** @type {{ run: number, window: number }} */ loads;
  /** @type {(kind: string, value: unknown) => void} */ onBox;
  /** @type {(e: KeyboardEvent) => void} */ onKey;
  /** @type {(e: KeyboardEvent) => void} */ onComboKey;
  /** @type {() => void} */ onResize;
  // ---- the DOM (made in the constructor)
  /** @type {HTMLButtonElement} */ bReset;
  /** @type {HTMLButtonElement} */ bBack;
  /** @type {HTMLButtonElement} */ bPlay;
  /** @type {HTMLButtonElement} */ bStep;
  /** @type {HTMLSelectElement} */ speedSel;
  /** @type {HTMLSpanElement} */ jumpCap;
  /** @type {HTMLInputElement} */ range;
  /** @type {HTMLDivElement} */ msg;


  /** @param {HTMLElement | ShadowRoot} host */
  constructor(host) {
    super(host);
    const root = this.root;
    /** @type {Follow | null} */
    this.fol = null; // a live room's student: the teacher's play state to follow (or null)
    /** @type {string | null} */
    this.followKey = null; // the play state last applied ("v|seq")
    this.loads = { run: 0, window: 0 };
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

    const grid = el("div", "mp-grid");

    this.tokens.addEventListener("click", (e) => this.clickToken(e));

    grid.append(this.pairsPanel, this.textSection, this.curvePanel);
    this.msg = el("div", "mp-msg", "Loading the run…");
    root.append(controls, this.status, this.msg, grid);
    this.host.append(root);
    this.onBox = (kind, value) => this.receive(kind, value);
    REG.listeners.add(this.onBox);
    for (const kind of ["control", "window", "follow"]) if (REG.box[kind] !== undefined) this.receive(kind, REG.box[kind]);
    this.onKey = (e) => this.key(e);
    document.addEventListener("keydown", this.onKey);
    // a Streamlit select (a react-aria combobox) stops its keys' propagation: they never bubble up to the
    // document, so its keys are heard on the way down
    this.onComboKey = (e) => {
      if (isCombobox(e.composedPath ? e.composedPath()[0] : e.target)) this.key(e);
    };
    document.addEventListener("keydown", this.onComboKey, true);
    this.onResize = () => {
      this.stickUnderHeader();
      this.placeExplain();
    };
    window.addEventListener("resize", this.onResize);
    this.stickUnderHeader();
  }

  // the controls stick to the top of the screen, under the page's own fixed header when it has one
  // (Streamlit's: 60 px, absolute, drawn over the scrolling main block): otherwise the header would hide them
  stickUnderHeader() {
    const head = document.querySelector("header[data-testid=stHeader]");
    const fixed = head && /^(fixed|sticky|absolute)$/.test(getComputedStyle(head).position);
    setVar(this.root, "--mp-stick", `${fixed ? Math.max(0, Math.round(head.getBoundingClientRect().bottom)) : 0}px`);
  }

  destroy() {
    this.stop();
    clearTimeout(this.reportTimer);
    this.fol = null;
    for (const t of this.joinTimers) clearTimeout(t);
    REG.listeners.delete(this.onBox);
    document.removeEventListener("keydown", this.onKey);
    document.removeEventListener("keydown", this.onComboKey, true);
    window.removeEventListener("resize", this.onResize);
    delete document.documentElement.dataset.bpePlayer;
  }

  /** @param {BufferSource | null} bytes  the packed run payload */
  async loadRun(bytes) {
    const ticket = ++this.loads.run;
    try {
      const run = bytes ? /** @type {RunPayload} */ (await inflate(bytes)) : null;
      if (ticket !== this.loads.run) return;
      if (run && run.v !== SCHEMA) throw new Error(`payload version ${run.v}, expected ${SCHEMA}`);
      this.setRun(run);
    } catch (err) {
      this.fail(err);
    }
  }

  /**
   * Data from the mailbox: the control, the packed window payload, or a live room's play state to follow.
   * @param {string} kind  "control", "window" or "follow"
   * @param {unknown} value
   */
  receive(kind, value) {
    if (kind === "control") {
      this.ctrl = /** @type {Control | null} */ (value || null);
      this.sync(false);
    } else if (kind === "follow") {
      // a live room's student: the room as mailbox.js last heard it (code, following or not, a rejoin's seq,
      // the teacher's play state); mailbox.js asks the server, this module never fetches
      const f = /** @type {Follow | null} */ (value);
      this.fol = f && f.code ? { ...f, received: f.received ?? performance.now() } : null;
      if (!this.fol || !this.fol.on) this.followKey = null;
      this.root.dataset.following = this.fol && this.fol.on ? "1" : "0";
      this.applyFollow();
    } else if (kind === "window") {
      const ticket = ++this.loads.window;
      (value ? inflate(/** @type {BufferSource} */ (value)) : Promise.resolve(null)).then((win) => {
        if (ticket !== this.loads.window) return;
        this.setWindow(/** @type {WindowPayload | null} */ (win));
      }, (err) => this.fail(err));
    }
  }

  /** @param {unknown} err */
  fail(err) {
    this.root.dataset.ready = "error";
    this.msg.hidden = false;
    const message = err && typeof err === "object" && "message" in err && err.message ? err.message : err;
    this.msg.textContent = `The player could not start: ${message}`;
  }

  /** @param {RunPayload | null} payload */
  setRun(payload) {
    this.stop();
    if (!payload || !this.run || payload.tag !== this.run.tag) this.closeExplain();
    const run = (this.run = payload && prepareRun(payload));
    this.chipCache = new Map();
    this.rows = new Map();
    this.bars.replaceChildren();
    this.line3.replaceChildren();
    this.line3.hidden = true;
    if (run) {
      this.curve = null;
      setVar(this.root, "--mp-winner", run.accent.winner);
      setVar(this.root, "--mp-marker", run.accent.marker);
      const mode = run.replay ? "replay" : "train";
      this.pairsHead.textContent = run.replay ? `1 · Which of ${run.vocab}'s merges fire` : "1 · Which pair gets merged";
      this.pairsCap.textContent = PAIRS_CAP[mode];
      this.textCap.textContent = run.isFallback.size ? FALLBACK_CAP.replace("%s", run.replay ? "step" : "merge")
        : TEXT_CAP[mode];
      this.bReset.title = `Back to ${run.word.toLowerCase()} 0 (0)`;
      this.bBack.title = `One ${run.word.toLowerCase()} back (← or PageUp)`;
      this.bStep.title = `One ${run.word.toLowerCase()} forward (→ or PageDown)`;
      this.bPlay.title = `Play the ${run.replay ? "steps" : "merges"} one after another (K)`;
      this.root.dataset.mode = mode;
    }
    this.prepareWindow();
    this.sync();
  }

  /** @param {WindowPayload | null} payload */
  setWindow(payload) {
    this.winData = payload;
    this.prepareWindow();
    this.sync();
  }

  // the window as drawn for this run (none until the window of this run's tag has come)
  prepareWindow() {
    const w = this.winData;
    this.win = null;
    this.nodeEls = null;
    if (!w || !this.run || w.tag !== this.run.tag) return;
    // the nodes by the step they appear at and the last step they are on screen; the bytes where a character
    // starts (byte level with multi-byte characters only): a token boundary anywhere else splits a
    // character, and the tokens around it are drawn under that character
    this.win = prepareWindow(w, this.run.n);
    this.nodeEls = new Array(w.id.length);
    this.drawnK = null; // what the token box shows (null: redraw it whole)
  }

  // the control (from Python): the run it belongs to, Python's merge, a seek number, view options
  // ``redraw``: the run or the window changed; a control redraws only what it changes (a control that
  // only echoes the merge the player reported changes nothing: an animation in progress goes on)
  /** @param {boolean} [redraw] */
  sync(redraw = true) {
    const run = this.run;
    const c = this.ctrl;
    if (!run) {
      this.root.dataset.ready = "0";
      return;
    }
    if (c && c.tag === run.tag) {
      if (Array.isArray(c.speeds) && c.speeds.length) this.speeds = c.speeds;
      const seek = this.positioned !== run.tag || c.seq !== this.seq;
      if (seek) {
        // a new run, or Python moved the player on purpose (a link, a quiz answer)
        this.positioned = run.tag;
        this.seq = c.seq;
        this.stop();
        this.k = clampStep(c.k, run.n);
        if (this.speeds.includes(c.speed)) this.speed = c.speed;
        if (c.metric && c.metric !== this.metric) {
          this.metric = c.metric;
          this.curve = null;
        }
      }
      const view = `${!!c.presenter}|${!!c.quiz}`;
      if (view !== this.view) this.closeExplain(); // (its size and place were for the other view)
      redraw = redraw || seek || view !== this.view;
      this.view = view;
      const presenter = !!c.presenter;
      if (this.root.classList.contains("presenter") !== presenter) this.root.classList.toggle("presenter", presenter);
      this.quiz = !!c.quiz;
      this.lead = !!c.lead;
      if (typeof c.clock === "number") {
        // the server's clock as seen here (the least offset seen: the one with the least delivery delay)
        const offset = Date.now() - c.clock;
        this.clockOffset = this.clockOffset === undefined ? offset : Math.min(this.clockOffset, offset);
      }
    }
    if (this.positioned !== run.tag) return; // wait for this run's control
    this.root.dataset.ready = this.nodeEls ? "1" : "0";
    this.msg.hidden = true;
    this.stickUnderHeader();
    this.buildSpeed();
    if (redraw) this.show(this.k, { animate: false });
    this.applyFollow();
  }

  // A live room's student follows the teacher's play state {tag, merge, speed, playing, age, v, seq}: it
  // arrives only when the teacher acts (v) or the student rejoins (seq), never per frame; this browser then
  // computes the frames itself. ``age``: ms between the teacher's action and the server sending it.
  applyFollow() {
    const f = this.fol;
    const run = this.run;
    if (!f || !f.on || !run || this.positioned !== run.tag || f.tag !== run.tag) return;
    const key = `${f.v}|${f.seq}`;
    if (key === this.followKey) return;
    this.followKey = key;
    this.stop();
    if (typeof f.speed === "number" && this.speeds.includes(f.speed)) this.speed = f.speed;
    let k = clampStep((f.merge ?? 0) | 0, run.n);
    if (f.playing && k < run.n) {
      const age = Math.max(0, Number(f.age) || 0) + (performance.now() - (f.received ?? performance.now()));
      const ahead = Math.floor((age * this.speed) / 1000);
      k = Math.min(run.n, k + ahead);
      this.show(k, { animate: false });
      if (k < run.n) {
        this.play();
        this.k0 = k; // the teacher's clock: the next merge comes when it comes on the teacher's screen
        this.t0 = performance.now() - (age - (ahead * 1000) / this.speed);
      }
    } else this.show(k, { animate: false });
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
    clearTimeout(this.reportTimer);
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
