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
// base.js, charts.js, status.js, then this one (the rest is being moved out).
import {
  clampStep, endsLine, fmt, frameTarget, keyCommand, madeAt, measureRate, plural, prepareRun, prepareWindow,
  splitsChar, transition, visibleAt, visibleIn,
} from "./core.js";
import { REPORT_DELAY } from "./base.js";
import { PAIRS_CAP } from "./charts.js";
import { StatusLines } from "./status.js";
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
const STEPWISE = 32; // up to this many merges are applied to the drawn text one by one; more: redrawn whole

const TEXT_CAP = {
  train: "Each token keeps its color from step to step; the outlined ones were made by this merge. · space, " +
    "→ tab, ↵ line break; a dark bar starts a pre-tokenizer chunk (no merge crosses it); dashed boxes are " +
    "bytes of a character not yet whole, with the character above them. Click a token to see how it was built.",
  replay: "Each token keeps its color from step to step; the outlined ones were made by this step. · space, " +
    "→ tab, ↵ line break; a dark bar starts a pre-tokenizer chunk (no merge crosses it); dashed boxes are " +
    "bytes of a character not yet whole, with the character above them. Click a token to see how the " +
    "vocabulary builds it.",
};

// a SentencePiece-style run or vocabulary: its text is characters, and the rare ones are byte-fallback tokens
const FALLBACK_CAP = "Each token keeps its color from step to step; the outlined ones were made by this %s. ▁ is a " +
  "space (glued to the next word), ↵ a line break; a dark bar starts a chunk (no merge crosses it); orange " +
  "<0xNN> boxes are byte-fallback tokens: a character outside the alphabet, written as its UTF-8 bytes, with " +
  "the character above them. Click a token to see how it was built.";

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

class Player extends StatusLines {
  // ---- what is drawn
  /** @type {Array<HTMLSpanElement | undefined> | null} the window's nodes' elements, made when first drawn */ nodeEls;
  /** @type {number | null} */ drawnK;
  /** @type {number} */ visibleCount;
  /** @type {number | undefined} */ explainK;
  /** @type {HTMLElement | null} */ explainTok;
  // ---- timers, listeners
  /** @type {number} */ raf;
  /** @type {Set<ReturnType<typeof setTimeout>>} */ joinTimers;
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
  /** @type {HTMLParagraphElement} */ textCap;
  /** @type {HTMLDivElement} */ tokens;
  /** @type {HTMLDivElement} */ shown;
  /** @type {HTMLDivElement} */ explainBox;
  /** @type {HTMLElement} */ textSection;
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
    this.joinTimers = new Set();
    this.nodeEls = null;
    this.drawnK = null;
    this.visibleCount = 0;
    this.explainTok = null;

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

    const text = el("section", "mp-panel mp-text");
    this.textCap = el("p", "mp-capline", TEXT_CAP.train);
    text.append(el("h3", "", "2 · The text as tokens"), this.textCap);
    this.tokens = el("div", "mp-tokens");
    this.tokens.addEventListener("click", (e) => this.clickToken(e));
    this.tokens.addEventListener("scroll", () => this.placeExplain(), { passive: true });
    this.shown = el("div", "mp-shown");
    // a clicked token's explanation, drawn next to the token (the page's panel 4 follows too)
    this.explainBox = el("div", "mp-explain");
    this.explainBox.hidden = true;
    this.explainBox.setAttribute("role", "dialog");
    this.explainBox.setAttribute("aria-label", "How this token was built");
    this.textSection = text;
    text.append(this.tokens, this.shown, this.explainBox);

    grid.append(this.pairsPanel, text, this.curvePanel);
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
   * How token ``id`` was built: one line, then (if it was made of merged parts) the parts, nested.
   * @param {Run} run
   * @param {number} id
   * @param {number} depth  levels still to open
   * @param {{ left: number }} budget  parts still to draw
   * @returns {HTMLLIElement}
   */
  buildTree(run, id, depth, budget) {
    const li = el("li");
    li.append(this.chip(id));
    const r = madeAt(run, id);
    if (run.isSpecial.has(id)) li.append(" special token");
    else if (run.isFallback.has(id)) li.append(" byte fallback");
    else if (r < 0) li.append(` base ${run.unit}`);
    else if (run.pair[2 * r] < 0) li.append(` whole-chunk lookup, ${run.word.toLowerCase()} ${fmt(r + 1)}`);
    else {
      li.append(` ${run.word.toLowerCase()} ${fmt(r + 1)}`);
      if (depth > 0 && budget.left > 0) {
        const ul = el("ul");
        for (const part of [run.pair[2 * r], run.pair[2 * r + 1]]) {
          budget.left -= 1;
          ul.append(this.buildTree(run, part, depth - 1, budget));
        }
        li.append(ul);
      } else li.append(" …");
    }
    return li;
  }

  /** @param {HTMLElement} tok  a token of the text */
  openExplain(tok) {
    const run = this.run;
    if (!run) return;
    const id = Number(tok.dataset.id);
    const box = this.explainBox;
    const nb = run.nbytes[id] ?? 0;
    const close = el("button", "mp-explain-close", "×");
    close.type = "button";
    close.title = "Close (Esc)";
    close.setAttribute("aria-label", "Close");
    close.addEventListener("click", () => this.closeExplain());
    const head = el("div", "mp-explain-head");
    head.append(this.chip(id), ` id ${id} · ${nb} ${plural(nb, "byte")}`, close);
    const said = el("div", "mp-explain-said");
    const r = madeAt(run, id);
    const label = `${run.label[id] ?? ""} (id ${id})`;
    if (run.isSpecial.has(id)) said.append(`${label} is a special token: never merged, never split.`);
    else if (run.isFallback.has(id)) {
      said.append(`${label} is a byte-fallback token: one byte of a character outside the alphabet, which is ` +
        "written as its UTF-8 bytes, one token each. No merge makes it.");
    } else if (r < 0) said.append(`${label} is a base ${run.unit}: every text starts from these.`);
    else if (run.pair[2 * r] < 0) {
      said.append(`${label} was made by ${run.word.toLowerCase()} ${fmt(r + 1)}: a whole chunk looked up in ` +
        `${run.vocab}'s vocabulary.`);
    } else {
      said.append(`${label} was made by ${run.word.toLowerCase()} ${fmt(r + 1)}: `, this.chip(run.pair[2 * r]), " + ",
        this.chip(run.pair[2 * r + 1]), ".");
    }
    /** @type {HTMLElement[]} */
    const parts = [head, said];
    if (r >= 0 && run.pair[2 * r] >= 0) {
      const tree = el("ul", "mp-explain-tree");
      tree.append(this.buildTree(run, id, 6, { left: 40 }));
      parts.push(tree);
    }
    box.replaceChildren(...parts);
    box.dataset.id = String(id);
    box.hidden = false;
    this.explainK = this.k;
    this.explainTok = tok;
    this.placeExplain();
    box.scrollIntoView({ block: "nearest" });
  }

  // the explanation under its token (above it when there is no room below), inside the text panel; it
  // follows the token when the text box scrolls, and closes when the token scrolls out of the box
  placeExplain() {
    const box = this.explainBox;
    const tok = this.explainTok;
    if (box.hidden || !tok) return;
    const t = tok.getBoundingClientRect();
    const view = this.tokens.getBoundingClientRect();
    if (!tok.isConnected || t.bottom < view.top || t.top > view.bottom) {
      this.closeExplain();
      return;
    }
    const sec = this.textSection.getBoundingClientRect();
    const w = box.offsetWidth, h = box.offsetHeight;
    const left = Math.max(0, Math.min(t.left - sec.left, sec.width - w));
    let top = t.bottom - sec.top + 6;
    if (t.bottom + 6 + h > window.innerHeight && t.top - 6 - h >= 0) top = t.top - sec.top - 6 - h;
    box.style.left = `${Math.round(left)}px`;
    box.style.top = `${Math.round(top)}px`;
  }

  closeExplain() {
    this.explainTok = null;
    if (this.explainBox.hidden) return;
    this.explainBox.hidden = true;
    this.explainBox.replaceChildren();
  }

  /** The elements of the window's nodes (made when first drawn). */
  get theNodes() {
    if (!this.nodeEls) throw new Error("the player has no text window to draw");
    return this.nodeEls;
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

  /**
   * Node ``i``'s element (made when first drawn).
   * @param {number} i
   * @returns {HTMLSpanElement}
   */
  nodeEl(i) {
    const els = this.theNodes;
    let e = els[i];
    if (e) return e;
    const w = this.theWin;
    const run = this.theRun;
    const id = w.id[i];
    e = el("span", "tok");
    e.dataset.id = String(id);
    e.dataset.start = String(w.start[i]);
    e.dataset.node = String(i);
    if (w.chunkStart.has(w.start[i])) e.classList.add("cs");
    if (w.isSpecial.has(i)) e.classList.add("special");
    else e.style.background = this.color(id);
    const nb = run.nbytes[id] ?? 0;
    e.title = `id ${id} · ${run.label[id] ?? ""} · ${nb} ${plural(nb, "byte")}`;
    this.fill(e, id);
    els[i] = e;
    return e;
  }

  /**
   * The text at step ``k``, as tokens.
   * @param {number} k
   * @param {number} joinMs  how long the tokens of this step take to join (0: they do not)
   */
  drawTokens(k, joinMs) {
    const run = this.theRun;
    for (const t of this.joinTimers) clearTimeout(t);
    this.joinTimers.clear();
    this.markJoins();
    const w = this.win;
    const els = this.nodeEls;
    if (!els || !w) {
      this.tokens.replaceChildren(el("span", "mp-more", "Loading the text…"));
      this.shown.textContent = "";
      this.drawnK = null;
      return;
    }
    for (const pair of this.tokens.querySelectorAll(".joining")) {
      pair.replaceWith(/** @type {HTMLSpanElement} */ (els[Number(/** @type {HTMLElement} */ (pair).dataset.node)]));
    }
    const prev = this.drawnK;
    // a few merges at a time (a frame that came late while playing) are applied one by one, in place
    let cur = prev;
    if (prev !== null && Math.abs(k - prev) <= STEPWISE) {
      const dir = Math.sign(k - prev);
      let at = prev;
      while (at !== k && this.stepTokens(at, at + dir)) at += dir;
      cur = at;
    }
    if (cur !== k) this.drawAllTokens(k);
    this.drawnK = k;
    const fresh = k ? w.byFrom[k].length : 0;

    // the two tokens of this merge join: drawn apart, then together (one step forward, with motion on)
    if (joinMs >= 60 && fresh && fresh <= 400 && prev !== null && k === prev + 1) this.join(k, joinMs);
    /** @type {Array<string | Node>} */
    const words = [`Shown: ${fmt(w.chars)} characters → `, el("b", "mp-count", `${fmt(this.visibleCount)} tokens`)];
    if (k) {
      const made = run.tokens[k - 1] - run.tokens[k];
      if (fresh) words.push(`, ${fmt(fresh)} made by this ${run.word.toLowerCase()}.`);
      else {
        words.push(". ", el("span", "mp-elsewhere", `${run.word} ${fmt(k)} made ${fmt(made)} ${plural(made, "token")} ` +
          "in the whole text, none in this window" + (w.total > w.chars ? ": move the window to see one." : ".")));
      }
    } else words.push(".");
    this.shown.replaceChildren(...words);
  }

  /**
   * One step: only the tokens of one merge change, in place. Returns false (draw it whole then) when a
   * merge joins or splits two lines (a token that ends with a line break) or touches a split character.
   * @param {number} prev  the step drawn
   * @param {number} k  prev + 1 or prev - 1
   * @returns {boolean}
   */
  stepTokens(prev, k) {
    const w = this.theWin;
    const run = this.theRun;
    const start = w.start;
    const els = this.theNodes;
    const forward = k === prev + 1;
    const gone = forward ? w.byTo[prev] : w.byFrom[prev]; // consumed by merge rank prev / made by rank k
    const back = forward ? w.byFrom[k] : w.byTo[k];
    const at = new Map(gone.map((i) => [start[i], i]));
    const made = new Set((forward ? back : gone).map((i) => start[i]));
    for (const i of forward ? gone : back) {
      if (made.has(start[i]) && endsLine(run, w.id[i])) return false; // a left part that ends a line
    }
    for (const i of prev ? w.byFrom[prev] : []) els[i]?.classList.remove("new");
    let split = false;
    if (w.charAt) {
      // tokens that split a character are drawn in a group under it: a merge whose tokens do not all
      // begin and end on whole characters redraws the lines it touches
      const nb = run.nbytes, ids = w.id, chars = w.charAt;
      split = gone.concat(back).some((i) => splitsChar(chars, start, nb[ids[i]] ?? 0, i));
    }
    if (split) {
      // no merge crosses a pre-tokenizer chunk, nor does a character: redraw the chunks it touches
      const parts = new Set(gone.map((i) => /** @type {HTMLElement | null | undefined} */ (els[i] && els[i].closest(".sg"))));
      for (const part of parts) if (!part) return false;
      for (const part of /** @type {Set<HTMLElement>} */ (parts)) {
        this.fillPart(part, visibleIn(start, w.from, w.to, Number(part.dataset.a), Number(part.dataset.b), k), k);
      }
      for (const i of k ? w.byFrom[k] : []) this.nodeEl(i).classList.add("new");
      this.visibleCount += back.length - gone.length;
      return true;
    }
    // forward: each new token goes where its left part was; back: the two parts come back, in text
    // order (nodes are sorted by offset), before the token they made
    let parent = -1;
    for (const i of back) {
      let p = at.get(start[i]);
      if (p === undefined) p = parent;
      else parent = p;
      /** @type {HTMLSpanElement} */ (els[p]).before(this.nodeEl(i));
    }
    for (const i of gone) /** @type {HTMLSpanElement} */ (els[i]).remove();
    for (const i of k ? w.byFrom[k] : []) this.nodeEl(i).classList.add("new");
    this.visibleCount += back.length - gone.length;
    return true;
  }

  /** @param {number} k */
  drawAllTokens(k) {
    const w = this.theWin;
    const run = this.theRun;
    const visible = visibleAt(w.from, w.to, k);
    this.visibleCount = visible.length;
    // one block per line of text (after a token that ends with a line break): a step lays out one line,
    // not the whole window
    /** @type {HTMLDivElement[]} */
    const blocks = [];
    let first = 0;
    for (let v = 0; v < visible.length; v++) {
      if (v === visible.length - 1 || endsLine(run, w.id[visible[v]])) {
        // a line holds its text's pre-tokenizer chunks, each a span of its own: a merge (which never
        // crosses a chunk) changes one of them
        const line = el("div", "mp-line");
        let from0 = first;
        for (let u = first; u <= v; u++) {
          if (u === v || w.chunkStart.has(w.start[visible[u + 1]])) {
            const part = el("span", "sg");
            const nodes = visible.slice(from0, u + 1);
            const last = nodes[nodes.length - 1];
            part.dataset.a = String(w.start[nodes[0]]);
            part.dataset.b = String(w.start[last] + (run.nbytes[w.id[last]] ?? 0));
            // a chunk with a line break in it (whitespace: "\n\n") flows as text; any other is one box
            if (nodes.some((i) => (run.piece[w.id[i]] || "").includes("\n"))) part.classList.add("nl");
            this.fillPart(part, nodes, k);
            line.append(part);
            from0 = u + 1;
          }
        }
        blocks.push(line);
        first = v + 1;
      }
    }
    if (w.first + w.chars < w.total || w.first > 0) {
      blocks.push(el("div", "mp-more", `… a window of ${fmt(w.chars)} of the ${fmt(w.total)} characters ` +
        `${run.replay ? "replayed" : "trained on"} ` +
        (this.ctrl && this.ctrl.standalone ? "(this page holds this window)" : "(move it below the player)")));
    }
    this.tokens.replaceChildren(...blocks);
  }

  /**
   * Draw a chunk's tokens; the tokens a merge split a character between go under that character
   * (as views.spans.render_spans does with group_chars).
   * @param {HTMLElement} part  the chunk's element
   * @param {number[]} nodes  its nodes on screen
   * @param {number} k
   */
  fillPart(part, nodes, k) {
    const w = this.theWin;
    const run = this.theRun;
    const from = w.from, start = w.start;
    /** @type {HTMLElement[]} */
    const items = [];
    let groupEnd = -1;
    /** @type {HTMLElement | null} */
    let group = null;
    for (let v = 0; v < nodes.length; v++) {
      const i = nodes[v];
      const e = this.nodeEl(i);
      e.classList.toggle("new", k > 0 && from[i] === k);
      const charAt = w.charAt;
      if (charAt && !w.isSpecial.has(i)) {
        if (group && v <= groupEnd) {
          group.insertBefore(e, group.lastChild);
          continue;
        }
        let last = v;
        /** @param {number} u */
        const splits = (u) => u < nodes.length && !w.isSpecial.has(nodes[u]) && charAt[start[nodes[u]]] < 0;
        while (splits(last + 1)) last++;
        if (last > v) {
          const endNode = nodes[last];
          const c0 = charAt[start[i]];
          const c1 = charAt[start[endNode] + (run.nbytes[w.id[endNode]] ?? 0)];
          if (c0 >= 0 && c1 >= 0) {
            const chars = w.ch_label.slice(c0, c1).join("");
            group = el("ruby", "grp");
            group.title = `these tokens together make ${chars}`;
            group.append(e, el("rt", "", chars));
            groupEnd = last;
            items.push(group);
            continue;
          }
        }
      }
      items.push(e);
    }
    part.replaceChildren(...items);
  }

  /**
   * The two tokens of step ``k``'s merge join: drawn apart for ``ms``, then as the token they made.
   * (Test hook: the root's data-joining is the number of joins in progress.)
   * @param {number} k
   * @param {number} ms
   */
  join(k, ms) {
    const w = this.theWin;
    const run = this.theRun;
    const els = this.theNodes;
    const kids = new Map(w.byTo[k - 1].map((i) => [w.start[i], i]));
    setVar(this.tokens, "--mp-join", `${Math.round(ms)}ms`);
    for (const i of w.byFrom[k]) {
      const whole = els[i];
      const left = kids.get(w.start[i]);
      if (left === undefined || !whole || !whole.parentNode) continue;
      const right = kids.get(w.start[i] + (run.nbytes[w.id[left]] ?? 0));
      if (right === undefined) continue;
      const pair = el("span", "joining");
      pair.dataset.node = String(i);
      pair.style.setProperty("--to", whole.style.background);
      pair.append(this.nodeEl(left).cloneNode(true), this.nodeEl(right).cloneNode(true));
      for (const half of pair.children) half.classList.remove("new", "cs");
      whole.replaceWith(pair);
      const t = setTimeout(() => {
        this.joinTimers.delete(t);
        this.markJoins();
        if (pair.parentNode) pair.replaceWith(whole);
      }, ms);
      this.joinTimers.add(t);
    }
    this.markJoins();
  }

  markJoins() {
    const joining = String(this.joinTimers.size);
    if (this.root.dataset.joining !== joining) this.root.dataset.joining = joining;
  }
}
