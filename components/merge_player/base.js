// @ts-check
// The merge player's base (components/merge_player): its state -- the run, the text window, the control from
// Python, the position and the play clock --, its root element, the token chips every part draws, and what it
// tells Python (report).
// The player's first layer (player.js lists them).
import { lagNote } from "./core.js";
import { el } from "./dom.js";

/** @import { Control, Run, ViewReport, Win, WindowPayload } from "./core.js" */
/** @typedef {(name: string, value: unknown) => void} SetState */

export const SPEEDS = [0.5, 1, 2, 3, 5, 10, 20, 30, 60, 120, 240];
export const REPORT_DELAY = 250; // ms after the last step or jump

export class PlayerBase {
  /** @type {HTMLElement | ShadowRoot} */ host;
  // ---- the data
  /** @type {Run | null} */ run;
  /** @type {WindowPayload | null} the window payload last received */ winData;
  /** @type {Win | null} the window prepared for this run (null: none of its tag) */ win;
  /** @type {Control | null} */ ctrl;
  /** @type {SetState | undefined} */ setState;
  // ---- the position and the play clock
  /** @type {number} */ k;
  /** @type {boolean} */ playing;
  /** @type {number} */ speed;
  /** @type {number[]} */ speeds;
  /** @type {string} */ metric;
  /** @type {string | null} run tag the position was taken for */ positioned;
  /** @type {number | null} the control's seek number last applied */ seq;
  /** @type {string | undefined} presenter|quiz, as last drawn */ view;
  /** @type {boolean | undefined} */ quiz;
  /** @type {number} step the clock counts from */ k0;
  /** @type {number} time (ms) the clock counts from */ t0;
  /** @type {Array<[number, number]>} */ samples;
  /** @type {number | null} */ measured;
  /** @type {{ drawn: number, advanced: number, ms: number }} */ stats;
  /** @type {number | undefined} */ reports;
  /** @type {Map<number, HTMLSpanElement>} */ chipCache;
  // ---- timers
  /** @type {ReturnType<typeof setTimeout> | 0} */ reportTimer;
  /** @type {{ matches: boolean }} */ reduced;
  // ---- the DOM
  /** @type {HTMLDivElement} */ root;

  /** @param {HTMLElement | ShadowRoot} host */
  constructor(host) {
    this.host = host;
    this.run = null;
    this.winData = null;
    this.win = null;
    this.ctrl = null;
    this.k = 0;
    this.playing = false;
    this.speed = 2;
    this.speeds = SPEEDS;
    this.metric = "bytes_per_token";
    this.positioned = null; // run tag the position was taken for
    this.seq = null; // the control's seek number last applied
    this.lead = false; // a live room's teacher: play and speed are reported too (students follow them)
    /** @type {number | undefined} */
    this.clockOffset = undefined; // Date.now() minus the server's clock (the least seen)
    this.stats = { drawn: 0, advanced: 0, ms: 0 };
    this.reportTimer = 0;
    this.reduced = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : { matches: false };
    this.chipCache = new Map();
    this.k0 = 0;
    this.t0 = 0;
    this.samples = [];
    this.measured = null;
    // ---- the DOM
    const root = (this.root = el("div", "mp"));
    root.dataset.ready = "0";
    root.dataset.merge = "0";
    root.dataset.playing = "0";
  }

  // words for the status line when the screen does not keep the chosen speed (null when it does)
  lagNote() {
    if (!this.playing || !this.run) return null;
    const { speed, measured } = this;
    return lagNote({ speed, measured, drawn: this.stats.drawn, advanced: this.stats.advanced,
      unit: this.run.replay ? "steps" : "merges" });
  }

  /**
   * Tell Python where the player is (never called per frame while playing).
   * @param {number} delay  ms (0: now)
   * @param {{ explain?: number }} [extra]
   */
  report(delay, extra) {
    clearTimeout(this.reportTimer);
    const send = () => {
      this.reportTimer = 0;
      if (!this.setState || !this.run) return this.reportState("none");
      this.reports = (this.reports || 0) + 1;
      const at = this.lead && this.clockOffset !== undefined ? { at: Date.now() - this.clockOffset } : {};
      /** @type {ViewReport} */
      const view = { tag: this.run.tag, k: this.k, speed: this.speed, metric: this.metric,
        playing: this.playing, n: this.reports, ...at, ...(extra || {}) };
      if (typeof this.seq === "number") view.seq = this.seq;
      this.setState("view", view);
      // Streamlit asks for the report's rerun in a zero timeout: "sent" is said after it (timers keep order)
      setTimeout(() => this.reportTimer || this.reportState("sent"), 0);
    };
    if (delay) {
      this.reportTimer = setTimeout(send, delay);
      this.reportState("due");
    } else send();
  }

  /** A report waiting for its delay is dropped (the player starts playing, or goes away). */
  dropReport() {
    clearTimeout(this.reportTimer);
    if (this.reportTimer) this.reportState("none");
    this.reportTimer = 0;
  }

  /**
   * ``data-report`` on the root, for tests: "due" while a report waits for its delay; "sent" once the last one has
   * gone out and its rerun was asked for; "none" when the one due was dropped.
   * @param {"due" | "sent" | "none"} state
   */
  reportState(state) {
    this.root.dataset.report = state;
  }

  // ------------------------------------------------------------------ drawing

  /** The run being drawn (nothing is drawn before there is one). */
  get theRun() {
    if (!this.run) throw new Error("the player has no run to draw");
    return this.run;
  }

  /** The window being drawn (its tokens are drawn only when there is one: nodeEls). */
  get theWin() {
    if (!this.win) throw new Error("the player has no text window to draw");
    return this.win;
  }

  /**
   * A token's background color.
   * @param {number} id
   * @returns {string}
   */
  color(id) {
    const run = this.theRun;
    return run.palette[run.color[id]] || "#eee";
  }

  /**
   * A token's inner HTML: escaped by Python (views.spans.piece_html), or its label as plain text.
   * In one-line places (chips) the real line break after ↵ is left out.
   * @param {HTMLElement} node
   * @param {number} id
   * @param {boolean} [oneLine]
   */
  fill(node, id, oneLine) {
    const run = this.theRun;
    const piece = run.piece[id];
    if (piece !== undefined) node.innerHTML = oneLine ? piece.replace(/\n/g, "") : piece;
    else node.textContent = run.label[id] ?? "";
  }

  /**
   * A token as a small colored box (a copy of a cached one).
   * @param {number} id
   * @param {boolean} [fresh]  made by this step (outlined)
   * @returns {HTMLSpanElement}
   */
  chip(id, fresh) {
    let proto = this.chipCache.get(id);
    if (!proto) {
      proto = el("span", "chip");
      if (this.theRun.isSpecial.has(id)) proto.classList.add("special");
      else proto.style.background = this.color(id);
      proto.title = `id ${id}`;
      this.fill(proto, id, true);
      this.chipCache.set(id, proto);
    }
    const c = /** @type {HTMLSpanElement} */ (proto.cloneNode(true));
    if (fresh) c.classList.add("new");
    return c;
  }
}
