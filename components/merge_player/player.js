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
// acts, and plays the frames itself (applyFollow); the merge it stops on is reported as a step is (once the
// page's panels below it are on the screen), so those panels follow the room too. data-following on the root is "1" while it follows.
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
// The pure parts (what is on screen at a step, the play clock, the chart's scales, ...) are core.js. This file
// and the modules it imports are bundled by esbuild into dist/player.js (npm run build), which
// components/merge_player/__init__.py sends (a v2 component, and the downloaded run page, are one module).
//
// The player is built in layers, one module each, each class extending the one before it:
//   base.js PlayerBase (the state, the root, the chips, the reports) <- charts.js Charts (the pair chart, the
//   curve) <- status.js StatusLines <- text.js TokenText (the text as tokens) <- explain.js Explain (a token's
//   explanation and tree) <- clock.js Clock (the play clock and the controls) <- following.js Following (a live
//   room's student) <- player.js Player (the data in, the layout, the component's mount).
import { clampStep, prepareRun, prepareWindow } from "./core.js";
import { FALLBACK_CAP, TEXT_CAP } from "./text.js";
import { PAIRS_CAP } from "./charts.js";
import { Following } from "./following.js";
import { el, inflate, isCombobox, setVar } from "./dom.js";

/** @import { Control, RunPayload, WindowPayload } from "./core.js" */
/** @import { Follow } from "./follow.js" */
/** @import { Registry } from "./mailbox.js" */
/** @import { SetState } from "./base.js" */

/** @type {Registry} */
const REG = (/** @type {any} */ (globalThis)[Symbol.for("bpe-lab.merge-player")] ??= { box: {}, listeners: new Set() });
/** @type {WeakMap<Node, Player>} */
const PLAYERS = new WeakMap();
const SCHEMA = 1;

/**
 * The component (Streamlit calls it again, on the same parentElement, whenever the run payload changes).
 * @param {{ data: BufferSource | null, parentElement: HTMLElement | ShadowRoot, setStateValue: SetState }} args
 */
export default function mount({ data, parentElement, setStateValue }) {
  let player = PLAYERS.get(parentElement);
  if (!player) {
    player = new Player(parentElement);
    PLAYERS.set(parentElement, player);
  } else {
    // another run (a new text, or the page switched to Replay, whose player takes this one's place): a report
    // still waiting for its delay (a room's merge) is about the old run, and the fragment that drew that run
    // may be gone from the page -- Streamlit logs a rerun asked of it ("The fragment ... does not exist anymore")
    player.dropReport();
  }
  player.setState = setStateValue;
  player.loadRun(data);
  return () => {
    player.destroy();
    PLAYERS.delete(parentElement);
  };
}

class Player extends Following {
  /** @type {{ run: number, window: number }} */ loads;
  /** @type {(kind: string, value: unknown) => void} */ onBox;
  /** @type {(e: KeyboardEvent) => void} */ onKey;
  /** @type {(e: KeyboardEvent) => void} */ onComboKey;
  /** @type {() => void} */ onResize;
  /** @type {HTMLDivElement} */ msg;

  /** @param {HTMLElement | ShadowRoot} host */
  constructor(host) {
    super(host);
    const root = this.root;
    this.loads = { run: 0, window: 0 };
    /** the payloads that could not be read: their sentence stays until one of the same kind loads */
    this.failed = { run: false, window: false };
    const grid = el("div", "mp-grid");
    grid.append(this.pairsPanel, this.textSection, this.curvePanel);
    this.msg = el("div", "mp-msg", "Loading the run…");
    root.append(this.controlsBar, this.status, this.msg, grid);
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
    this.dropReport();
    this.fol = null;
    for (const t of this.joinTimers) clearTimeout(t);
    REG.listeners.delete(this.onBox);
    document.removeEventListener("keydown", this.onKey);
    document.removeEventListener("keydown", this.onComboKey, true);
    window.removeEventListener("resize", this.onResize);
    this.unwatchPanels();
    delete document.documentElement.dataset.bpePlayer;
  }

  // ------------------------------------------------------------------ data in

  /** @param {BufferSource | null} bytes  the packed run payload */
  async loadRun(bytes) {
    const ticket = ++this.loads.run;
    try {
      const run = bytes ? /** @type {RunPayload} */ (await inflate(bytes)) : null;
      if (ticket !== this.loads.run) return;
      if (run && run.v !== SCHEMA) throw new Error(`payload version ${run.v}, expected ${SCHEMA}`);
      this.failed.run = false;
      this.setRun(run);
    } catch (err) {
      this.fail(err, "run");
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
        this.failed.window = false;
        this.setWindow(/** @type {WindowPayload | null} */ (win));
      }, (err) => this.fail(err, "window"));
    }
  }

  /**
   * Say why the player cannot show the run; a control or the other payload arriving later leaves it said.
   * @param {unknown} err
   * @param {"run" | "window"} kind  the payload that could not be read
   */
  fail(err, kind) {
    this.failed[kind] = true;
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
    if (this.failed.run || this.failed.window) return; // (the sentence of fail() stays)
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
}
