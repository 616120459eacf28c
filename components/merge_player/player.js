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
// (when it last stopped playing, ms since the epoch), data-ready.

const REG = (globalThis[Symbol.for("bpe-lab.merge-player")] ??= { box: {}, listeners: new Set() });
const PLAYERS = new WeakMap();
const SCHEMA = 1;
const SPEEDS = [0.5, 1, 2, 3, 5, 10, 20, 30, 60, 120, 240];
const REPORT_DELAY = 250; // ms after the last step or jump
const LEAD_DELAY = 60; // the same for a live room's teacher: the students wait for it
const PRESENTER_BARS = 8; // a projector shows fewer, larger bars
const STEPWISE = 32; // up to this many merges are applied to the drawn text one by one; more: redrawn whole
const EVERY_MERGE = 30; // up to this speed (merges a second) no merge is skipped, even when a frame is late
const SVGNS = "http://www.w3.org/2000/svg";

// The words that differ when the player replays a real vocabulary (payload mode "replay": each step applies
// one of the vocabulary's merges, in rank order, instead of a merge a training run chose by count)
const PAIRS_CAP = {
  train: "Before every merge the trainer counts each pair of neighbouring tokens and merges the most frequent: " +
    "the bar marked ▶. Bars marked = had the same count and lost on the tie rule.",
  replay: "Not a count this time: the vocabulary's merges fire in rank order (lowest first), whatever their " +
    "counts. ▶ is this step's merge, below it the merges that fire next; a bar is how many times that " +
    "merge fires in the text.",
};
const TEXT_CAP = {
  train: "Each token keeps its color from step to step; the outlined ones were made by this merge. · space, " +
    "→ tab, ↵ line break; a dark bar starts a pre-tokenizer chunk (no merge crosses it); dashed boxes are " +
    "bytes of a character not yet whole, with the character above them. Click a token to see how it was built.",
  replay: "Each token keeps its color from step to step; the outlined ones were made by this step. · space, " +
    "→ tab, ↵ line break; a dark bar starts a pre-tokenizer chunk (no merge crosses it); dashed boxes are " +
    "bytes of a character not yet whole, with the character above them. Click a token to see how the " +
    "vocabulary builds it.",
};

const fmt = (x) => Math.round(x).toLocaleString("en-US");

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// set a CSS custom property only when it changes (a change restyles every descendant)
function setVar(node, name, value) {
  const memo = (node.__vars ??= {});
  if (memo[name] === value) return;
  memo[name] = value;
  node.style.setProperty(name, value);
}

const isCombobox = (e) => !!e && e.tagName === "INPUT" && e.getAttribute("role") === "combobox";

function svg(tag, attrs) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}

async function inflate(bytes) {
  if (typeof DecompressionStream === "undefined") {
    throw new Error("this browser cannot unpack the player's data (it needs DecompressionStream: " +
      "Chrome 80+, Firefox 113+, Safari 16.4+)");
  }
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}

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

class Player {
  constructor(host) {
    this.host = host;
    this.run = null;
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
    this.fol = null; // a live room's student: the teacher's play state to follow (or null)
    this.followKey = null; // the play state last applied ("v|seq")
    this.loads = { run: 0, window: 0 };
    this.stats = { drawn: 0, advanced: 0, ms: 0 };
    this.reportTimer = 0;
    this.raf = 0;
    this.joinTimers = new Set();
    this.reduced = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : { matches: false };
    this.build();
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

  // ------------------------------------------------------------------ data in

  async loadRun(bytes) {
    const ticket = ++this.loads.run;
    try {
      const run = bytes ? await inflate(bytes) : null;
      if (ticket !== this.loads.run) return;
      if (run && run.v !== SCHEMA) throw new Error(`payload version ${run.v}, expected ${SCHEMA}`);
      this.setRun(run);
    } catch (err) {
      this.fail(err);
    }
  }

  receive(kind, value) {
    if (kind === "control") {
      this.ctrl = value || null;
      this.sync(false);
    } else if (kind === "follow") {
      // a live room's student: the room as mailbox.js last heard it (code, following or not, a rejoin's seq,
      // the teacher's play state); mailbox.js asks the server, this module never fetches
      this.fol = value && value.code ? { ...value, received: value.received ?? performance.now() } : null;
      if (!this.fol || !this.fol.on) this.followKey = null;
      this.root.dataset.following = this.fol && this.fol.on ? "1" : "0";
      this.applyFollow();
    } else if (kind === "window") {
      const ticket = ++this.loads.window;
      (value ? inflate(value) : Promise.resolve(null)).then((win) => {
        if (ticket !== this.loads.window) return;
        this.setWindow(win);
      }, (err) => this.fail(err));
    }
  }

  fail(err) {
    this.root.dataset.ready = "error";
    this.msg.hidden = false;
    this.msg.textContent = `The player could not start: ${err && err.message ? err.message : err}`;
  }

  setRun(run) {
    this.stop();
    if (!run || !this.run || run.tag !== this.run.tag) this.closeExplain();
    this.run = run;
    this.chipCache = new Map();
    this.rows = new Map();
    this.bars.replaceChildren();
    this.line3.replaceChildren();
    this.line3.hidden = true;
    if (run) {
      run.pieceOf = run.piece;
      run.isSpecial = new Set(run.special);
      const pairs = run.top_pairs;
      run.topStart = new Int32Array(run.n + 1);
      for (let r = 0; r < run.n; r++) run.topStart[r + 1] = run.topStart[r] + run.top_n[r];
      run.topPair = (j) => [pairs[2 * run.top_i[j]], pairs[2 * run.top_i[j] + 1]];
      run.capped = new Set(run.capped);
      this.curve = null;
      setVar(this.root, "--mp-winner", run.accent.winner);
      setVar(this.root, "--mp-marker", run.accent.marker);
      run.endsLine = (id) => (run.piece[id] || "").endsWith("\n");
      run.rows = run.top_n.reduce((a, b) => Math.max(a, b), 1); // the chart keeps its height
      run.replay = run.mode === "replay";
      run.newId = run.replay ? (r) => run.new[r] : (r) => run.base + r;
      run.word = run.replay ? "Step" : "Merge";
      const mode = run.replay ? "replay" : "train";
      this.pairsHead.textContent = run.replay ? `1 · Which of ${run.vocab}'s merges fire` : "1 · Which pair gets merged";
      this.pairsCap.textContent = PAIRS_CAP[mode];
      this.textCap.textContent = TEXT_CAP[mode];
      this.bReset.title = `Back to ${run.word.toLowerCase()} 0 (0)`;
      this.bBack.title = `One ${run.word.toLowerCase()} back (← or PageUp)`;
      this.bStep.title = `One ${run.word.toLowerCase()} forward (→ or PageDown)`;
      this.bPlay.title = `Play the ${run.replay ? "steps" : "merges"} one after another (K)`;
      this.root.dataset.mode = mode;
    }
    if (this.win && (!run || this.win.tag !== run.tag)) this.nodeEls = null;
    this.prepareWindow();
    this.sync();
  }

  setWindow(win) {
    this.win = win;
    this.prepareWindow();
    this.sync();
  }

  prepareWindow() {
    const w = this.win;
    this.nodeEls = null;
    if (!w || !this.run || w.tag !== this.run.tag) return;
    w.isSpecial = new Set(w.sp);
    w.chunkStart = new Set(w.cs);
    this.nodeEls = new Array(w.id.length);
    // bytes where a character starts (byte level with multi-byte characters only): a token boundary
    // anywhere else splits a character, and the tokens around it are drawn under that character
    w.charAt = null;
    if (w.ch_len && w.ch_len.length) {
      w.charAt = new Int32Array(w.bytes + 1).fill(-1);
      let b = 0;
      w.ch_len.forEach((len, i) => { w.charAt[b] = i; b += len; });
      w.charAt[w.bytes] = w.ch_len.length;
    }
    // nodes by the step they appear at (from) and the last step they are on screen (to)
    const n = this.run.n;
    w.byFrom = Array.from({ length: n + 2 }, () => []);
    w.byTo = Array.from({ length: n + 2 }, () => []);
    for (let i = 0; i < w.id.length; i++) {
      w.byFrom[w.from[i]].push(i);
      if (w.to[i] < n) w.byTo[w.to[i]].push(i);
    }
    this.drawnK = null; // what the token box shows (null: redraw it whole)
  }

  // the control (from Python): the run it belongs to, Python's merge, a seek number, view options
  // ``redraw``: the run or the window changed; a control redraws only what it changes (a control that
  // only echoes the merge the player reported changes nothing: an animation in progress goes on)
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
        this.k = Math.max(0, Math.min(run.n, c.k | 0));
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
    if (this.speeds.includes(f.speed)) this.speed = f.speed;
    let k = Math.max(0, Math.min(run.n, f.merge | 0));
    if (f.playing && k < run.n) {
      const age = Math.max(0, Number(f.age) || 0) + (performance.now() - f.received);
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

  // ------------------------------------------------------------------ the DOM

  build() {
    const root = (this.root = el("div", "mp"));
    root.dataset.ready = "0";
    root.dataset.merge = "0";
    root.dataset.playing = "0";

    const controls = el("div", "mp-controls");
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
    this.bStep.append(this.bStep.querySelector(".mp-ico")); // the icon after the label
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

    this.status = el("div", "mp-status");
    this.status.setAttribute("aria-live", "polite");
    this.line1 = el("div", "mp-line1");
    this.line2 = el("div", "mp-line2");
    this.line3 = el("div", "mp-line3");
    this.line3.hidden = true;
    this.status.append(this.line1, this.line2, this.line3);

    const grid = el("div", "mp-grid");
    const pairs = el("section", "mp-panel mp-pairs");
    this.pairsHead = el("h3", "", "1 · Which pair gets merged");
    this.pairsCap = el("p", "mp-capline", PAIRS_CAP.train);
    pairs.append(this.pairsHead, this.pairsCap);
    this.bars = el("div", "mp-bars");
    this.bars.setAttribute("role", "list");
    this.quizNote = el("div", "mp-quiznote",
      "Hidden while you predict the next merge: this chart shows the answer. “Check and reveal” brings it back.");
    this.axis = el("div", "mp-axis");
    pairs.append(this.bars, this.quizNote, this.axis);

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

    const curve = el("section", "mp-panel mp-curve");
    const head = el("div", "mp-curvehead");
    head.append(el("h3", "", "3 · Compression"));
    this.metricBtns = {};
    const seg = el("div", "mp-seg");
    for (const [m, label] of [["bytes_per_token", "Bytes per token"], ["tokens", "Tokens"]]) {
      const b = el("button", "mp-segbtn", label);
      b.type = "button";
      b.addEventListener("click", () => this.setMetric(m));
      this.metricBtns[m] = b;
      seg.append(b);
    }
    head.append(seg);
    this.curveCap = el("p", "mp-capline");
    this.chart = svg("svg", { class: "mp-svg", viewBox: "0 0 640 220" });
    this.legend = el("div", "mp-legend");
    curve.append(head, this.curveCap, this.chart, this.legend);

    grid.append(pairs, text, curve);
    this.msg = el("div", "mp-msg", "Loading the run…");
    root.append(controls, this.status, this.msg, grid);
    this.host.append(root);
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

  // ------------------------------------------------------------------ controls

  // The shortcuts: K play/pause, → / ← (and PageDown / PageUp, what presentation clickers send) step,
  // 0 / Home and End jump. Not while typing; on the player's own speed select (focused after a choice)
  // K and → ← PageDown PageUp still drive the player (↑ ↓ change the speed); on a closed combobox (a
  // Streamlit select just picked, e.g. the sidebar's sample: it keeps the focus, its list shut) the steps
  // work too (K would start a search; while one types, the list is open).
  key(e) {
    if (!this.run || this.positioned !== this.run.tag || e.defaultPrevented) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const target = (e.composedPath && e.composedPath()[0]) || e.target;
    const tag = (target && target.tagName) || "";
    const steps = e.key === "ArrowRight" || e.key === "ArrowLeft" || e.key === "PageDown" || e.key === "PageUp";
    if (target && (target.isContentEditable || tag === "TEXTAREA")) return;
    if (target === this.speedSel) {
      if (!steps && e.key !== "k" && e.key !== "K") return;
    } else if (isCombobox(target)) {
      if (!steps || target.getAttribute("aria-expanded") !== "false") return;
    } else if (/^(INPUT|SELECT)$/.test(tag)) return;
    const n = this.run.n;
    let done = true;
    if (e.key === "k" || e.key === "K") this.toggle();
    else if (e.key === "ArrowRight" || e.key === "PageDown") this.step(1);
    else if (e.key === "ArrowLeft" || e.key === "PageUp") this.step(-1);
    else if (e.key === "0" || e.key === "Home") this.jump(0);
    else if (e.key === "End") this.jump(n);
    else if (e.key === "Escape" && !this.explainBox.hidden) this.closeExplain();
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
    const tick = (now) => {
      if (!this.playing) return;
      // (a frame's timestamp can be a little older than the click that started playing)
      let target = Math.min(run.n, this.k0 + Math.floor((Math.max(0, now - this.t0) * this.speed) / 1000));
      if (target > this.k + 1 && this.speed <= EVERY_MERGE) {
        // up to EVERY_MERGE merges a second each merge gets a frame of its own: after a late frame the
        // clock waits for the player rather than the player skipping a merge
        target = this.k + 1;
        this.k0 = target;
        this.t0 = now;
      }
      this.measure(now, target);
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

  // the rate the player really keeps (merges a second), measured over the last second or more (the last
  // five merges' worth at slow speeds); null until there is that much to measure
  measure(now, k) {
    const s = this.samples;
    s.push([now, k]);
    const span = Math.max(1000, 5000 / this.speed);
    while (s.length > 2 && now - s[1][0] >= span) s.shift();
    this.measured = now - s[0][0] >= span ? ((k - s[0][1]) * 1000) / (now - s[0][0]) : null;
  }

  // words for the status line when the screen does not keep the chosen speed (null when it does)
  lagNote() {
    if (!this.playing) return null;
    const unit = this.run.replay ? "steps" : "merges";
    const batch = this.stats.drawn > 4 ? this.stats.advanced / this.stats.drawn : 1;
    if (batch > 1.1) return ` · ${fmt(this.speed)}/s is more than this screen draws: ${batch.toFixed(1)} ${unit} a frame`;
    if (this.speed <= EVERY_MERGE && this.measured !== null && this.measured < 0.8 * this.speed) {
      const rate = this.measured < 10 ? this.measured.toFixed(1) : fmt(this.measured);
      return ` · ${fmt(this.speed)}/s is more than this screen draws: playing at ${rate}/s`;
    }
    return null;
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

  step(delta) {
    if (!this.run) return;
    this.stop();
    const k = Math.max(0, Math.min(this.run.n, this.k + delta));
    if (k !== this.k) this.show(k, { animate: delta === 1 });
    else this.updateControls();
    this.report(this.lead ? LEAD_DELAY : REPORT_DELAY);
  }

  jump(k) {
    if (!this.run) return;
    this.stop();
    k = Math.max(0, Math.min(this.run.n, k | 0));
    this.show(k, { animate: false });
    this.report(this.lead ? LEAD_DELAY : REPORT_DELAY);
  }

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

  setMetric(m) {
    this.metric = m;
    this.curve = null;
    this.drawCurve(this.k);
    if (!this.playing) this.report(REPORT_DELAY);
  }

  clickToken(e) {
    const tok = e.target.closest && e.target.closest(".tok");
    if (!tok || !this.run) return;
    this.stop();
    this.show(this.k, { animate: false });
    this.openExplain(tok);
    this.report(0, { explain: Number(tok.dataset.id) });
  }

  // the step (0-based) that made token ``id``, or -1 (a base token, a special token)
  madeAt(id) {
    const run = this.run;
    if (!run.madeBy) {
      run.madeBy = new Map();
      if (run.replay) run.new.forEach((t, r) => { if (!run.madeBy.has(t)) run.madeBy.set(t, r); });
      else for (let r = 0; r < run.n; r++) run.madeBy.set(run.base + r, r);
    }
    const r = run.madeBy.get(id);
    return r === undefined ? -1 : r;
  }

  // how token ``id`` was built: one line, then (if it was made of merged parts) the parts, nested
  buildTree(id, depth, budget) {
    const run = this.run;
    const li = el("li");
    li.append(this.chip(id));
    const r = this.madeAt(id);
    if (run.isSpecial.has(id)) li.append(" special token");
    else if (r < 0) li.append(` base ${run.unit}`);
    else if (run.pair[2 * r] < 0) li.append(` whole-chunk lookup, ${run.word.toLowerCase()} ${fmt(r + 1)}`);
    else {
      li.append(` ${run.word.toLowerCase()} ${fmt(r + 1)}`);
      if (depth > 0 && budget.left > 0) {
        const ul = el("ul");
        for (const part of [run.pair[2 * r], run.pair[2 * r + 1]]) {
          budget.left -= 1;
          ul.append(this.buildTree(part, depth - 1, budget));
        }
        li.append(ul);
      } else li.append(" …");
    }
    return li;
  }

  openExplain(tok) {
    const run = this.run;
    const id = Number(tok.dataset.id);
    const box = this.explainBox;
    const nb = run.nbytes[id] ?? 0;
    const close = el("button", "mp-explain-close", "×");
    close.type = "button";
    close.title = "Close (Esc)";
    close.setAttribute("aria-label", "Close");
    close.addEventListener("click", () => this.closeExplain());
    const head = el("div", "mp-explain-head");
    head.append(this.chip(id), ` id ${id} · ${nb} byte${nb !== 1 ? "s" : ""}`, close);
    const said = el("div", "mp-explain-said");
    const r = this.madeAt(id);
    const label = `${run.label[id] ?? ""} (id ${id})`;
    if (run.isSpecial.has(id)) said.append(`${label} is a special token: never merged, never split.`);
    else if (r < 0) said.append(`${label} is a base ${run.unit}: every text starts from these.`);
    else if (run.pair[2 * r] < 0) {
      said.append(`${label} was made by ${run.word.toLowerCase()} ${fmt(r + 1)}: a whole chunk looked up in ` +
        `${run.vocab}'s vocabulary.`);
    } else {
      said.append(`${label} was made by ${run.word.toLowerCase()} ${fmt(r + 1)}: `, this.chip(run.pair[2 * r]), " + ",
        this.chip(run.pair[2 * r + 1]), ".");
    }
    const parts = [head, said];
    if (r >= 0 && run.pair[2 * r] >= 0) {
      const tree = el("ul", "mp-explain-tree");
      tree.append(this.buildTree(id, 6, { left: 40 }));
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

  // tell Python where the player is (never called per frame while playing)
  report(delay, extra) {
    clearTimeout(this.reportTimer);
    const send = () => {
      if (!this.setState || !this.run) return;
      this.reports = (this.reports || 0) + 1;
      const at = this.lead && this.clockOffset !== undefined ? { at: Date.now() - this.clockOffset } : {};
      this.setState("view", { tag: this.run.tag, k: this.k, speed: this.speed, metric: this.metric,
        playing: this.playing, n: this.reports, ...at, ...(extra || {}) });
    };
    if (delay) this.reportTimer = setTimeout(send, delay);
    else send();
  }

  // ------------------------------------------------------------------ drawing

  show(k, { animate }) {
    const prev = this.k;
    if (k !== this.explainK) this.closeExplain();
    this.k = k;
    this.root.dataset.merge = String(k);
    const motion = animate && !this.reduced.matches;
    const interval = this.playing ? 1000 / this.speed : 400;
    const move = `${Math.round(Math.min(320, 0.8 * interval))}ms`;
    const still = this.playing ? this.speed > 20 : !motion; // no transition shorter than ~40 ms
    for (const part of [this.bars, this.chart]) {
      setVar(part, "--mp-move", move);
      if (part.classList.contains("mp-still") !== still) part.classList.toggle("mp-still", still);
    }
    this.updateControls();
    this.drawStatus(k);
    this.drawBars(k);
    this.drawTokens(k, motion && k === prev + 1 ? Math.min(320, 0.7 * interval) : 0);
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
    this.bPlay.querySelector(".mp-ico").textContent = this.playing ? "⏸" : "▶";
    this.bPlay.querySelector(".mp-lab").textContent = this.playing ? "Pause" : "Play";
    this.bPlay.setAttribute("aria-pressed", this.playing ? "true" : "false");
    this.range.max = String(n);
    this.range.value = String(k);
    this.range.disabled = !n;
    this.jumpCap.textContent = `${run ? run.word : "Merge"} ${fmt(k)}`;
    this.speedSel.value = String(this.speed);
    const live = this.playing ? "off" : "polite";
    if (this.status.getAttribute("aria-live") !== live) this.status.setAttribute("aria-live", live);
  }

  color(id) {
    const run = this.run;
    return run.palette[run.color[id]] || "#eee";
  }

  // a token's inner HTML: escaped by Python (views.spans.piece_html), or its label as plain text.
  // In one-line places (chips) the real line break after ↵ is left out.
  fill(node, id, oneLine) {
    const piece = this.run.pieceOf[id];
    if (piece !== undefined) node.innerHTML = oneLine ? piece.replace(/\n/g, "") : piece;
    else node.textContent = this.run.label[id] ?? "";
  }

  chip(id, fresh) {
    let proto = this.chipCache.get(id);
    if (!proto) {
      proto = el("span", "chip");
      if (this.run.isSpecial.has(id)) proto.classList.add("special");
      else proto.style.background = this.color(id);
      proto.title = `id ${id}`;
      this.fill(proto, id, true);
      this.chipCache.set(id, proto);
    }
    const c = proto.cloneNode(true);
    if (fresh) c.classList.add("new");
    return c;
  }

  drawStatus(k) {
    const run = this.run;
    if (run.replay) return this.drawReplayStatus(k);
    const n = run.n;
    const l1 = [];
    const head = el("b", "mp-k", `Merge ${fmt(k)} / ${fmt(n)}`);
    if (k === 0) {
      l1.push(head, ` — nothing merged yet: one token per ${run.unit}.`);
      if (n && !this.quiz) {
        l1.push(" First to merge: ", this.chip(run.pair[0]), " + ", this.chip(run.pair[1]),
          ` (count ${fmt(run.count[0])}).`);
      }
    } else {
      const r = k - 1;
      const id = run.base + r;
      const ties = run.ties[r];
      let extra = `(new id ${id}, count ${fmt(run.count[r])}`;
      if (ties) {
        extra += `; tied with ${ties}${run.capped.has(r) ? "+" : ""} other pair${ties !== 1 ? "s" : ""}, ${run.tie}`;
      }
      l1.push(head, ": ", this.chip(run.pair[2 * r]), " + ", this.chip(run.pair[2 * r + 1]), " → ",
        this.chip(id, true), " ", el("span", "mp-sub", extra + ")"));
    }
    this.line1.replaceChildren(...l1);
    const now = run.tokens[k];
    const before = run.tokens[0];
    let l2 = `Training text: `;
    const parts = [l2, el("b", "mp-count", fmt(now)), ` token${now === 1 ? "" : "s"}`];
    if (k) parts.push(` (from ${fmt(before)}: −${fmt(before - now)})`);
    let tail = `, ${((run.bytes || 1) / Math.max(1, now)).toFixed(2)} bytes per token · vocabulary ` +
      fmt(run.base + k + run.specials);
    if (k === n && !run.complete) tail += ` · stopped early: ${run.stop}`;
    parts.push(tail);
    const lag = this.lagNote();
    if (lag) parts.push(el("span", "mp-batch", lag));
    this.line2.replaceChildren(...parts);
  }

  // the status line of a replay: the step's merge, its rank, how often it fires, and (a third line) where
  // the vocabulary's rank order does something a list of learned pairs would not
  drawReplayStatus(k) {
    const run = this.run;
    const n = run.n;
    const r = k - 1;
    const head = el("b", "mp-k", `Step ${fmt(k)} / ${fmt(n)}`);
    const l1 = [head];
    if (k === 0) {
      l1.push(" — nothing merged yet: one token per byte.");
      if (n) {
        l1.push(` First of ${run.vocab}'s merges to fire: `,
          ...(run.pair[0] < 0 ? [this.chip(run.new[0])] : [this.chip(run.pair[0]), " + ", this.chip(run.pair[1])]),
          ` (rank ${fmt(run.rank[0])}, ${fmt(run.count[0])}×).`);
      }
    } else {
      const times = run.count[r];
      if (run.pair[2 * r] < 0) l1.push(": whole chunks looked up → ", this.chip(run.new[r], true), " ");
      else l1.push(": ", this.chip(run.pair[2 * r]), " + ", this.chip(run.pair[2 * r + 1]), " → ", this.chip(run.new[r], true), " ");
      l1.push(el("span", "mp-sub", `(${run.vocab}'s rank ${fmt(run.rank[r])}, id ${fmt(run.new[r])}; ` +
          `${fmt(times)} time${times === 1 ? "" : "s"} in the text)`));
    }
    this.line1.replaceChildren(...l1);
    const now = run.tokens[k];
    const before = run.tokens[0];
    const parts = ["Your text: ", el("b", "mp-count", fmt(now)), ` token${now === 1 ? "" : "s"}`];
    if (k) parts.push(` (from ${fmt(before)}: −${fmt(before - now)})`);
    parts.push(`, ${((run.bytes || 1) / Math.max(1, now)).toFixed(2)} bytes per token`);
    if (k === n && n) parts.push(` · the end: exactly the ids ${run.vocab}'s tokenizer gives this text`);
    const lag = this.lagNote();
    if (lag) parts.push(el("span", "mp-batch", lag));
    this.line2.replaceChildren(...parts);
    const notes = [];
    const key = String(r);
    if (k && run.alt[key]) {
      const alt = run.alt[key];
      const bits = ["Another split: tiktoken also builds this token here from "];
      for (let j = 0; j < alt.length; j += 3) {
        if (j) bits.push("; ");
        bits.push(this.chip(alt[j]), " + ", this.chip(alt[j + 1]), ` (${fmt(alt[j + 2])}×)`);
      }
      bits.push(" — it joins any neighbours that make the lowest-ranked token, not only the learned pair.");
      notes.push(el("span", "mp-diff", ""));
      notes[notes.length - 1].dataset.kind = "alt";
      notes[notes.length - 1].append(...bits);
    }
    if (k && run.lookups[key]) {
      const e = el("span", "mp-diff", `Whole-chunk lookup: ${fmt(run.lookups[key])} of these are whole chunks that ` +
        "are themselves a token, taken as they are (no pair merging would reach them).");
      e.dataset.kind = "lookups";
      notes.push(e);
    }
    if (k && run.cascade[key]) {
      const c = run.cascade[key];
      const e = el("span", "mp-diff", `A merge that had to wait: ${fmt(c)} lower-ranked merge${c === 1 ? "" : "s"} ` +
        "could only happen after this one, so they happen in this step too.");
      e.dataset.kind = "cascade";
      notes.push(e);
    }
    this.line3.replaceChildren(...notes);
    this.line3.hidden = !notes.length;
  }

  drawBars(k) {
    const run = this.run;
    if (this.root.classList.contains("mp-quiz") !== !!this.quiz) this.root.classList.toggle("mp-quiz", !!this.quiz);
    if (!run.n) {
      this.axis.textContent = "No pair of tokens: nothing to merge.";
      return;
    }
    const r = k === 0 ? 0 : k - 1;
    this.axis.textContent = run.replay
      ? (k === 0 ? "The merges that fire first, lowest rank first." : `Step ${fmt(k)} and the steps after it, in rank order.`)
      : (k === 0 ? "Count now: the top pair is merged first." : `Count just before merge ${fmt(k)}.`);
    const presenter = this.root.classList.contains("presenter");
    const from = run.topStart[r];
    const count = presenter ? Math.min(PRESENTER_BARS, run.top_n[r]) : run.top_n[r];
    const winner = run.count[r];
    let max = 1; // (the winner's count for a run; a replay's counts are in rank order, not sorted)
    for (let j = 0; j < count; j++) max = Math.max(max, run.top_c[from + j]);
    const acc = run.accent;
    const seen = new Set();
    const entering = [];
    for (let j = 0; j < count; j++) {
      const [a, b] = run.topPair(from + j);
      const key = a < 0 ? `lookup:${run.new[run.top_i[from + j]]}` : `${a},${b}`; // (a replay's lookup has no pair)
      const c = run.top_c[from + j];
      seen.add(key);
      let row = this.rows.get(key);
      if (!row) {
        row = el("div", "bar enter");
        row.setAttribute("role", "listitem");
        row.dataset.pair = key;
        const fillDiv = el("div", "bar-fill");
        const label = el("span", "bar-label");
        if (a < 0) label.append(el("span", "bar-mark"), el("span", "bar-plus", "lookup"), this.chip(run.new[run.top_i[from + j]]));
        else label.append(el("span", "bar-mark"), this.chip(a), el("span", "bar-plus", "+"), this.chip(b));
        row.append(fillDiv, label, el("span", "bar-count"));
        this.rows.set(key, row);
        this.bars.append(row);
        entering.push(row);
      }
      row.classList.remove("leave");
      const role = j === 0 ? "winner" : c === winner && !run.replay ? "tie" : "";
      row.dataset.role = role;
      row.dataset.count = String(c);
      setVar(row, "--i", String(j));
      setVar(row, "--w", (c / max).toFixed(4));
      setVar(row, "--bar", role === "winner" ? acc.winner : role === "tie" ? acc.tie : acc.other);
      row.querySelector(".bar-mark").textContent = role === "winner" ? "▶" : role === "tie" ? "=" : "";
      row.querySelector(".bar-count").textContent = fmt(c);
      row.title = run.replay
        ? `${a < 0 ? `lookup of ${run.label[run.new[run.top_i[from + j]]]}` : `${run.label[a]} + ${run.label[b]}`}: ` +
          `rank ${fmt(run.rank[run.top_i[from + j]])}, fires ${fmt(c)} times` +
          (j === 0 ? (k ? " (this step)" : " (fires first)") : "")
        : `${run.label[a]} + ${run.label[b]}: ${fmt(c)} times` +
          (role === "winner" ? " (merged)" : role === "tie" ? " (tie)" : "");
    }
    setVar(this.bars, "--rows", String(presenter ? Math.min(PRESENTER_BARS, run.rows) : run.rows));
    // new rows fade in at their place: shown from the next frame on (no forced layout here)
    if (entering.length) requestAnimationFrame(() => requestAnimationFrame(() => {
      for (const row of entering) row.classList.remove("enter");
    }));
    for (const [key, row] of this.rows) {
      if (seen.has(key)) continue;
      this.rows.delete(key);
      if (this.reduced.matches || this.bars.classList.contains("mp-still")) row.remove();
      else {
        row.classList.add("leave");
        setTimeout(() => row.remove(), 400);
      }
    }
  }

  nodeEl(i) {
    let e = this.nodeEls[i];
    if (e) return e;
    const w = this.win;
    const run = this.run;
    const id = w.id[i];
    e = el("span", "tok");
    e.dataset.id = String(id);
    e.dataset.start = String(w.start[i]);
    e.dataset.node = String(i);
    if (w.chunkStart.has(w.start[i])) e.classList.add("cs");
    if (w.isSpecial.has(i)) e.classList.add("special");
    else e.style.background = this.color(id);
    const nb = run.nbytes[id] ?? 0;
    e.title = `id ${id} · ${run.label[id] ?? ""} · ${nb} byte${nb !== 1 ? "s" : ""}`;
    this.fill(e, id);
    this.nodeEls[i] = e;
    return e;
  }

  drawTokens(k, joinMs) {
    const w = this.win;
    const run = this.run;
    for (const t of this.joinTimers) clearTimeout(t);
    this.joinTimers.clear();
    if (!this.nodeEls) {
      this.tokens.replaceChildren(el("span", "mp-more", "Loading the text…"));
      this.shown.textContent = "";
      this.drawnK = null;
      return;
    }
    for (const pair of this.tokens.querySelectorAll(".joining")) pair.replaceWith(this.nodeEls[pair.dataset.node]);
    const prev = this.drawnK;
    // a few merges at a time (a frame that came late while playing) are applied one by one, in place
    let cur = prev;
    if (prev !== null && Math.abs(k - prev) <= STEPWISE) {
      const dir = Math.sign(k - prev);
      while (cur !== k && this.stepTokens(cur, cur + dir)) cur += dir;
    }
    if (cur !== k) this.drawAllTokens(k);
    this.drawnK = k;
    const fresh = k ? w.byFrom[k].length : 0;

    // the two tokens of this merge join: drawn apart, then together (one step forward, with motion on)
    if (joinMs >= 60 && fresh && fresh <= 400 && k === prev + 1) this.join(k, joinMs);
    const words = [`Shown: ${fmt(w.chars)} characters → `, el("b", "mp-count", `${fmt(this.visibleCount)} tokens`)];
    if (k) {
      const made = run.tokens[k - 1] - run.tokens[k];
      if (fresh) words.push(`, ${fmt(fresh)} made by this ${run.word.toLowerCase()}.`);
      else {
        words.push(". ", el("span", "mp-elsewhere", `${run.word} ${fmt(k)} made ${fmt(made)} token${made !== 1 ? "s" : ""} ` +
          "in the whole text, none in this window" + (w.total > w.chars ? ": move the window to see one." : ".")));
      }
    } else words.push(".");
    this.shown.replaceChildren(...words);
  }

  // One step: only the tokens of one merge change, in place. Returns false (draw it whole then) when a
  // merge joins or splits two lines (a token that ends with a line break) or touches a split character.
  stepTokens(prev, k) {
    const w = this.win;
    const run = this.run;
    const start = w.start;
    const els = this.nodeEls;
    const forward = k === prev + 1;
    const gone = forward ? w.byTo[prev] : w.byFrom[prev]; // consumed by merge rank prev / made by rank k
    const back = forward ? w.byFrom[k] : w.byTo[k];
    const at = new Map(gone.map((i) => [start[i], i]));
    const made = new Set((forward ? back : gone).map((i) => start[i]));
    for (const i of forward ? gone : back) {
      if (made.has(start[i]) && run.endsLine(w.id[i])) return false; // a left part that ends a line
    }
    for (const i of prev ? w.byFrom[prev] : []) if (els[i]) els[i].classList.remove("new");
    let split = false;
    if (w.charAt) {
      // tokens that split a character are drawn in a group under it: a merge whose tokens do not all
      // begin and end on whole characters redraws the lines it touches
      const nb = run.nbytes, ids = w.id, chars = w.charAt;
      split = gone.concat(back).some((i) => chars[start[i]] < 0 || chars[start[i] + (nb[ids[i]] ?? 0)] < 0);
    }
    if (split) {
      // no merge crosses a pre-tokenizer chunk, nor does a character: redraw the chunks it touches
      const parts = new Set(gone.map((i) => els[i] && els[i].closest(".sg")));
      if (parts.has(null) || parts.has(undefined)) return false;
      for (const part of parts) this.fillPart(part, this.visibleIn(+part.dataset.a, +part.dataset.b, k), k);
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
      els[p].before(this.nodeEl(i));
    }
    for (const i of gone) els[i].remove();
    for (const i of k ? w.byFrom[k] : []) this.nodeEl(i).classList.add("new");
    this.visibleCount += back.length - gone.length;
    return true;
  }

  // the nodes on screen at step k whose byte offset is in [a, b) (nodes are sorted by offset)
  visibleIn(a, b, k) {
    const w = this.win;
    const start = w.start, from = w.from, to = w.to;
    let lo = 0, hi = start.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (start[mid] < a) lo = mid + 1;
      else hi = mid;
    }
    const out = [];
    for (let i = lo; i < start.length && start[i] < b; i++) if (from[i] <= k && k <= to[i]) out.push(i);
    return out;
  }

  drawAllTokens(k) {
    const w = this.win;
    const run = this.run;
    const from = w.from, to = w.to;
    const visible = [];
    for (let i = 0; i < from.length; i++) if (from[i] <= k && k <= to[i]) visible.push(i);
    this.visibleCount = visible.length;
    // one block per line of text (after a token that ends with a line break): a step lays out one line,
    // not the whole window
    const blocks = [];
    let first = 0;
    for (let v = 0; v < visible.length; v++) {
      if (v === visible.length - 1 || run.endsLine(w.id[visible[v]])) {
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

  // draw a chunk's tokens; the tokens a merge split a character between go under that character
  // (as views.spans.render_spans does with group_chars)
  fillPart(part, nodes, k) {
    const w = this.win;
    const run = this.run;
    const from = w.from, start = w.start;
    const items = [];
    let groupEnd = -1;
    let group = null;
    for (let v = 0; v < nodes.length; v++) {
      const i = nodes[v];
      const e = this.nodeEl(i);
      e.classList.toggle("new", k > 0 && from[i] === k);
      if (w.charAt && !w.isSpecial.has(i)) {
        if (group && v <= groupEnd) {
          group.insertBefore(e, group.lastChild);
          continue;
        }
        let last = v;
        const splits = (u) => u < nodes.length && !w.isSpecial.has(nodes[u]) && w.charAt[start[nodes[u]]] < 0;
        while (splits(last + 1)) last++;
        if (last > v) {
          const endNode = nodes[last];
          const c0 = w.charAt[start[i]];
          const c1 = w.charAt[start[endNode] + (run.nbytes[w.id[endNode]] ?? 0)];
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

  join(k, ms) {
    const w = this.win;
    const kids = new Map(w.byTo[k - 1].map((i) => [w.start[i], i]));
    setVar(this.tokens, "--mp-join", `${Math.round(ms)}ms`);
    for (const i of w.byFrom[k]) {
      const whole = this.nodeEls[i];
      const left = kids.get(w.start[i]);
      if (left === undefined || !whole || !whole.parentNode) continue;
      const right = kids.get(w.start[i] + (this.run.nbytes[w.id[left]] ?? 0));
      if (right === undefined) continue;
      const pair = el("span", "joining");
      pair.dataset.node = String(i);
      pair.style.setProperty("--to", whole.style.background);
      pair.append(this.nodeEl(left).cloneNode(true), this.nodeEl(right).cloneNode(true));
      for (const half of pair.children) half.classList.remove("new", "cs");
      whole.replaceWith(pair);
      const t = setTimeout(() => {
        this.joinTimers.delete(t);
        if (pair.parentNode) pair.replaceWith(whole);
      }, ms);
      this.joinTimers.add(t);
    }
  }

  drawCurve(k) {
    const run = this.run;
    const W = 640, H = 220, L = 52, R = 14, T = 12, B = 30;
    const perToken = this.metric !== "tokens";
    const series = [[run.replay ? "your text" : "training text", run.tokens, run.bytes, "train"]];
    if (run.held) series.push(["held-out text", run.held, run.held_bytes, "held"]);
    const value = (counts, nbytes, j) => (perToken ? nbytes / Math.max(1, counts[j]) : counts[j]);
    const n = Math.max(1, run.n);
    if (!this.curve) {
      for (const [m, b] of Object.entries(this.metricBtns)) b.classList.toggle("on", m === this.metric);
      let ymax = 0;
      for (const [, counts, nbytes] of series) {
        for (let j = 0; j <= run.n; j++) ymax = Math.max(ymax, value(counts, nbytes, j));
      }
      ymax = ymax * 1.05 || 1;
      const x = (j) => L + ((W - L - R) * j) / n;
      const y = (v) => T + (H - T - B) * (1 - v / ymax);
      const nodes = [];
      for (const frac of [0, 0.5, 1]) {
        const v = ymax * frac / 1.05;
        nodes.push(svg("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid" }));
        const t = svg("text", { x: L - 6, y: y(v) + 4, class: "tick", "text-anchor": "end" });
        t.textContent = perToken ? v.toFixed(2) : fmt(v);
        nodes.push(t);
      }
      for (const frac of [0, 0.5, 1]) {
        const j = Math.round(run.n * frac);
        const anchor = frac === 0 ? "start" : frac === 1 ? "end" : "middle";
        const t = svg("text", { x: x(j), y: H - B + 16, class: "tick", "text-anchor": anchor });
        t.textContent = fmt(j);
        nodes.push(t);
      }
      const xl = svg("text", { x: (L + W - R) / 2, y: H - 2, class: "axis", "text-anchor": "middle" });
      xl.textContent = run.replay ? "steps" : "merges";
      nodes.push(xl);
      const step = Math.max(1, Math.ceil((run.n + 1) / 600));
      const marks = [];
      for (const [name, counts, nbytes, cls] of series) {
        let d = "";
        const at = (j) => `${x(j).toFixed(1)},${y(value(counts, nbytes, j)).toFixed(1)}`;
        for (let j = 0; j <= run.n; j += step) d += `${d ? "L" : "M"}${at(j)}`;
        d += `L${at(run.n)}`;
        nodes.push(svg("path", { d, class: `line ${cls}` }));
        const dot = svg("circle", { r: 6, class: `dot ${cls}` });
        dot.dataset.series = name;
        marks.push([dot, counts, nbytes]);
      }
      const marker = svg("line", { y1: T, y2: H - B, class: "marker" });
      nodes.push(marker, ...marks.map((m) => m[0]));
      this.chart.replaceChildren(...nodes);
      this.curve = { x, y, marker, marks };
      this.legend.replaceChildren();
      for (const [name, , , cls] of series) {
        const item = el("span", `mp-key ${cls}`);
        item.append(el("i"), name);
        this.legend.append(item);
      }
      const yname = perToken ? "bytes per token" : "tokens";
      this.curveCap.textContent = run.replay
        ? `${yname[0].toUpperCase()}${yname.slice(1)} of your text after each step: a step applies one of ` +
          `${run.vocab}'s merges everywhere in the text, lowest rank first. The dotted line is the current step.`
        : run.held
        ? `${yname[0].toUpperCase()}${yname.slice(1)} after each merge: solid for the training text, dashed for ` +
          "the last 10% of the text, held out of training (how the tokenizer does on text it has not seen). " +
          "The dotted line is the current merge."
        : `${yname[0].toUpperCase()}${yname.slice(1)} after each merge. The dotted line is the current merge. ` +
          "(Short texts are not split, so there is no held-out curve.)";
      this.chart.setAttribute("aria-label", `${yname} against ${run.replay ? "steps" : "merges"}`);
    }
    const { x, y, marker, marks } = this.curve;
    const px = x(k);
    marker.style.transform = `translate(${px.toFixed(1)}px,0px)`;
    for (const [dot, counts, nbytes] of marks) {
      dot.style.transform = `translate(${px.toFixed(1)}px,${y(value(counts, nbytes, k)).toFixed(1)}px)`;
    }
  }
}
