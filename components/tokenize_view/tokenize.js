// @ts-check
// The Tokenize view: the text box and every tokenizer's column. Edits go to Python as edits (edits.js), never the
// whole text; Python answers each column's changed tokens, packed (appstate/tokenize_live.py), which columns.js
// lays on the text and draws windowed. The text and settings are kept in localStorage (a reload restores them).
// Hover lights the same characters up in every column (hover.js); a click asks Python for each column's trace.
import { applySplice, utf8Total } from "./core.js";
import { charCount, codePoints, diffText, unpack, widthOf } from "./edits.js";
import { loadSaved, save } from "./saved.js";
import { outlineCovering } from "./picked.js";
import { PreviewView, restoreColumn } from "./preview.js";
import { BigText } from "./bigtext.js";

/** @typedef {import("./edits.js").Mail} Mail */
/** @typedef {import("./columns.js").Column} Column */
/** @typedef {import("./columns.js").AppData} AppData */

/** @type {import("./mail.js").Registry} */
const REG = /** @type {any} */ (globalThis)[Symbol.for("bpe-lab.tokenize-view")] ??= { box: {}, listeners: new Set() };
const VIEWS = new Map();
const SAVE_AFTER = 600; // ms after the last keystroke before the text is saved in localStorage
const FOLLOW_AFTER = 600; // ms of no typing before the page below the view is asked to follow the text

/**
 * @param {{ data: AppData, parentElement: HTMLElement }} args
 */
export default function mount({ data, parentElement }) {
  let view = VIEWS.get(parentElement);
  if (!view) {
    view = new TokenizeView(parentElement);
    VIEWS.set(parentElement, view);
  }
  view.configure(data);
  return () => {
    view.destroy();
    VIEWS.delete(parentElement);
  };
}

class TokenizeView extends PreviewView {
  /** @param {HTMLElement} host */
  constructor(host) {
    super();
    this.host = host;
    this.seq = -1;
    this.n = 0;
    /** the tid of the text in the box once sent: "<seq>:0" (Python's) or "<seq>:<n>" (an edit) */
    this.current = "";
    /** the text as of the last edit sent (what Python holds once it takes it), and its number */
    this.sentText = "";
    this.sentN = 0;
    /** Python asked for the whole text (it lost track of the edits) */
    this.whole = false;
    /** @type {Record<string, unknown> | null} a reload's saved settings, sent with the text */
    this.restoring = null;
    /** @type {Array<[string, unknown]>} reports made before the mailbox was there */
    this.pending = [];
    /** @type {unknown} the last edit reported (sent again when its answer is lost) */
    this.lastEdit = null;
    this.keep = /** @type {Record<string, unknown>} */ ({});
    this.askN = 0;
    this.timer = 0;
    this.saveTimer = 0;
    /** @type {Array<{ tid: string, input: number, sent: number, received: number, drawn: number, painted: number }>} */
    this.timings = []; // for bench/tokenize_bench.py (read through the root element's __tkz)
    this.inflight = false;
    this.dirty = false;
    this.watchdog = 0;
    /** @type {HTMLElement | null} */
    this.popAnchor = null;
    /** the rest of a fresh page was asked for (once: the mail's ``rest``) */
    this.restAsked = false;
    /** the pause in typing reported (a mail's ``follow``): its text's tid, and the timer waiting for it */
    this.followed = "";
    this.followTimer = 0;
    /** @type {Mail | null} the last mail taken */
    this.lastMail = null;
    const root = document.createElement("div");
    root.className = "tkz";
    root.innerHTML =
      '<div class="tkz-input"><label class="tkz-label"></label>' +
      '<textarea class="tkz-text" spellcheck="false" autocomplete="off" rows="6"></textarea>' +
      '<div class="tkz-count" aria-live="off"></div></div>' +
      '<div class="tkz-grid"></div><div class="tkz-compare"></div>' +
      '<div class="tkz-pop" role="dialog" aria-label="How this token is built" hidden>' +
      '<button class="tkz-pop-close" type="button" aria-label="Close">×</button><div class="tkz-pop-body"></div></div>';
    this.host.appendChild(root);
    const find = (/** @type {string} */ sel) => /** @type {HTMLElement} */ (root.querySelector(sel));
    this.root = root;
    this.label = /** @type {HTMLLabelElement} */ (find(".tkz-label"));
    this.box = /** @type {HTMLTextAreaElement} */ (find(".tkz-text"));
    this.count = find(".tkz-count");
    this.grid = find(".tkz-grid");
    this.compare = find(".tkz-compare");
    this.pop = find(".tkz-pop");
    this.popBody = find(".tkz-pop-body");
    const id = "tkz-text-" + Math.random().toString(36).slice(2);
    this.box.id = id;
    this.label.htmlFor = id;
    this.box.addEventListener("input", () => this.edited());
    this.big = new BigText(this.box, this.label, { edited: () => this.edited(), max: () => this.app?.max ?? Infinity });
    find(".tkz-pop-close").addEventListener("click", () => this.closePop());
    this.grid.addEventListener("mouseover", (e) => this.hovered(/** @type {HTMLElement} */ (e.target)));
    this.grid.addEventListener("mouseleave", () => this.unhover());
    this.grid.addEventListener("click", (e) => this.clicked(/** @type {HTMLElement} */ (e.target)));
    this.resizer = new ResizeObserver((entries) => {
      for (const e of entries) {
        const col = [...this.cols.values()].find((c) => c.spans === e.target);
        if (col) {
          col.width = e.contentRect.width;
          col.viewHeight = e.contentRect.height;
        }
      }
      this.place();
    });
    this.resizer.observe(root);
    root.dataset.state = "mounted";
    /** @type {any} */ (root).__tkz = this;
    this.onMail = (/** @type {unknown} */ m) => this.receive(/** @type {Mail} */ (m));
    REG.listeners.add(this.onMail);
    this.onKey = (/** @type {KeyboardEvent} */ e) => {
      if (e.key === "Escape") this.closePop();
    };
    document.addEventListener("keydown", this.onKey);
    this.onHide = () => this.saveTimer && this.saveNow(); // (a reload or a closed tab within the save's pause)
    window.addEventListener("pagehide", this.onHide);
  }

  /**
   * Report to Python through the mailbox element: it lives in the fragment that answers, so a report reruns
   * only that fragment (this view, outside it, is not sent again). Held until the mailbox is there.
   * @param {string} name
   * @param {unknown} value
   */
  report(name, value) {
    if (REG.setState) REG.setState(name, value);
    else this.pending.push([name, value]);
  }

  destroy() {
    clearTimeout(this.timer);
    clearTimeout(this.watchdog);
    clearTimeout(this.drawTimer);
    clearTimeout(this.followTimer);
    this.queue = [];
    if (this.saveTimer) {
      clearTimeout(this.saveTimer);
      this.saveNow();
    }
    REG.listeners.delete(this.onMail);
    document.removeEventListener("keydown", this.onKey);
    window.removeEventListener("pagehide", this.onHide);
    this.resizer?.disconnect();
    for (const c of this.cols.values()) c.observer?.disconnect();
  }

  // ------------------------------------------------------------------ settings and text from Python

  /** @param {AppData} app */
  configure(app) {
    const modeChanged = !this.app || this.app.whole !== app.whole || this.app.big !== app.big;
    const first = this.seq < 0;
    this.app = app;
    this.label.textContent = app.label;
    this.box.maxLength = app.max;
    this.root.classList.toggle("tkz-big", !!app.big);
    this.root.classList.toggle("tkz-presenter", !!app.presenter);
    if (app.seq !== this.seq) {
      // Python's text (first mount -- also after a page switch --, a preset, a cut): the box shows it; edits
      // restart from it
      this.seq = app.seq;
      const tid = app.tid ?? `${app.seq}:0`;
      this.n = Number(tid.split(":")[1]) || 0;
      this.current = tid;
      this.texts.set(tid, app.text);
      this.sentText = app.text;
      this.sentN = this.n;
      this.whole = false;
      this.big.set(app.text); // (a big text folded: bigtext.js)
      this.countText();
    }
    const saved = first && app.fresh ? loadSaved() : null;
    if (saved && (saved.text !== app.text || JSON.stringify(saved.keep) !== JSON.stringify(app.keep ?? {}))) {
      // a fresh session (a reload, a new tab): what this browser had typed and chosen comes back
      this.big.set(saved.text.slice(0, app.max));
      this.countText();
      this.restoring = saved.keep ?? {};
      this.whole = true;
      this.send();
    } else if (!app.fresh || !first) {
      this.keep = app.keep ?? {};
      this.scheduleSave();
    }
    if (modeChanged) for (const c of this.cols.values()) c.drawnFor = "";
    for (const c of this.cols.values()) {
      c.idsBox.open = !!app.showIds;
      this.draw(c);
    }
    if (REG.box.mail !== undefined) this.receive(/** @type {Mail} */ (REG.box.mail));
  }

  /** The text: the box's, or a big one folded (bigtext.js). */
  get text() {
    return this.big.value;
  }

  countText() {
    const t = this.text;
    this.count.textContent = `${charCount(t).toLocaleString("en-US")} characters · ${utf8Total(t).toLocaleString("en-US")} bytes`;
  }

  scheduleSave() {
    clearTimeout(this.saveTimer);
    this.saveTimer = window.setTimeout(() => this.saveNow(), SAVE_AFTER);
  }

  saveNow() {
    this.saveTimer = 0;
    if (!this.restoring) save({ text: this.text, keep: this.keep });
  }

  edited() {
    this.inputAt = performance.now();
    this.scheduleSave();
    this.root.dataset.state = "typing";
    clearTimeout(this.followTimer);
    clearTimeout(this.timer);
    this.timer = 0;
    // While an edit is on its way, keystrokes only mark the text dirty: it goes when the answer comes (a second
    // report then could be lost: Streamlit keeps only the newest of two queued). Otherwise it goes at once.
    if (this.inflight) this.dirty = true;
    else if (this.app?.debounce) this.timer = window.setTimeout(() => this.send(), this.app.debounce);
    else this.send();
    this.countText();
  }

  /** Nothing typed is waiting to be sent or answered, and the columns show the text in the box. */
  get settled() {
    return !this.timer && !this.inflight && !this.dirty && this.root.dataset.painted === this.current &&
      this.texts.get(this.current) === this.text;
  }

  /**
   * Send what changed since the last edit sent: the edit (or the whole text when Python asked for it).
   * @param {Record<string, number>} [stale]  columns to be sent whole (a mail was missed)
   */
  send(stale = {}) {
    this.timer = 0;
    this.dirty = false;
    const text = this.text;
    /** @type {Record<string, number>} */
    const have = {};
    for (const c of this.cols.values()) have[c.key] = c.v;
    Object.assign(have, stale);
    this.n += 1;
    /** @type {Record<string, unknown>} */
    let edit;
    if (this.whole) {
      edit = { seq: this.seq, n: this.n, text, have };
      if (this.restoring) Object.assign(edit, { restore: true, keep: this.restoring });
    } else {
      const d = diffText(this.sentText, text, this.big.caret);
      edit = { seq: this.seq, base: this.sentN, n: this.n, at: codePoints(this.sentText, d.at), del: d.del, ins: d.ins, have };
    }
    const tid = `${this.seq}:${this.n}`;
    this.current = tid;
    this.texts.set(tid, text);
    this.sentText = text;
    this.sentN = this.n;
    this.inflight = true;
    this.root.dataset.state = "waiting";
    this.sentAt = performance.now();
    this.lastEdit = edit;
    if (this.whole) this.stats.wholes += 1;
    else this.stats.edits += 1;
    this.stats.upBytes += JSON.stringify(edit).length;
    this.report("edit", edit);
    clearTimeout(this.watchdog);
    // an answer that never comes (a rerun cut short): send the same report again (Python takes it once), later
    // for a long text (a report restarts the run: a big paste's encoding on a busy server would start over)
    this.watchdog = window.setTimeout(() => this.resend(), 4000 + this.sentText.length / 100);
  }

  /**
   * The page under the view (the chunk trace, drawn by a whole run) shows another text: once the typing pauses on
   * ``tid``, report it (once), and Python runs the whole page (issue 14: after typing, the trace was stale).
   * @param {string} tid
   */
  follow(tid) {
    clearTimeout(this.followTimer);
    this.followTimer = window.setTimeout(() => {
      this.followTimer = 0;
      if (this.settled && this.current === tid && this.followed !== tid) {
        this.followed = tid;
        this.report("settled", { tid });
      }
    }, FOLLOW_AFTER);
  }

  resend() {
    if (!this.inflight || !this.lastEdit) return;
    // (never while the app is still running: a report restarts the run, and a big paste would never finish)
    const app = document.querySelector("[data-testid=stApp]");
    if (app?.getAttribute("data-test-script-state") !== "running") {
      this.report("edit", { ...(/** @type {object} */ (this.lastEdit)), again: performance.now() });
    }
    this.watchdog = window.setTimeout(() => this.resend(), 4000 + this.sentText.length / 100);
  }

  // ------------------------------------------------------------------ encodings from Python

  /** @param {Mail} mail */
  receive(mail) {
    for (const [name, value] of this.pending.splice(0)) this.report(name, value);
    if (!mail || !this.app) return;
    if (mail.preview) {
      this.receivePreview(mail); // a big paste's first screen (preview.js)
      return;
    }
    if (mail === this.lastMail) return;
    const [seq, n] = mail.tid.split(":").map(Number);
    if (mail.resync && seq === this.seq && !this.whole) {
      // Python's text is not the one these edits were made in: send it whole
      this.whole = true;
      this.send();
    }
    // the text it was computed for: Python's (its settings may arrive just after this mail: it is taken again
    // then) or one this view sent
    if (!this.texts.has(mail.tid)) return;
    const receivedAt = performance.now();
    this.lastMail = mail;
    this.stats.mails += 1;
    if (seq === this.seq && n === this.sentN) {
      this.whole = false;      // Python holds the text sent
      if (this.restoring) {
        this.restoring = null;
        this.scheduleSave();
      }
    }
    // forget the texts of edits answered or overtaken
    for (const tid of [...this.texts.keys()]) {
      const [s, k] = tid.split(":").map(Number);
      if (s < seq || (s === seq && k < n && k !== 0)) this.texts.delete(tid);
    }
    if (mail.trace && mail.trace.n === this.askN && this.popAnchor) this.showTrace(mail.trace.html);
    const current = this.current;
    if (mail.tid === current || seq > this.seq || (seq === this.seq && n >= this.n)) {
      this.inflight = false;
      clearTimeout(this.watchdog);
      if (this.dirty) {
        clearTimeout(this.timer);
        this.timer = window.setTimeout(() => this.send(), 0);
      }
    }
    this.root.dataset.tid = mail.tid;
    this.root.dataset.state = mail.tid === current ? "ready" : "waiting";
    /** @type {Record<string, number>} */
    const stale = {};
    for (const m of mail.cols) this.enqueue(() => this.take(m, mail.tid, stale));
    this.enqueue(() => this.arrange(mail));
    for (const key of mail.order) {
      this.enqueue(() => {
        const c = this.cols.get(key);
        if (c) this.draw(c);
      });
    }
    this.enqueue(() => {
      // painted: the frame after this drawing (its animation frame callback, then the task after it: the
      // browser lays out and paints between the two)
      const drawnAt = performance.now();
      this.compare.classList.remove("tkz-stale");
      requestAnimationFrame(() => setTimeout(() => {
        this.root.dataset.painted = mail.tid;
        if (mail.rest && !this.restAsked) {
          // a fresh page's first run drew only the text box and the columns: the rest of the page now
          this.restAsked = true;
          /** @type {Record<string, number>} */
          const have = {};
          for (const c of this.cols.values()) have[c.key] = c.v;
          this.report("drawn", { tid: mail.tid, have });
        } else if (mail.follow) this.follow(mail.tid);
        this.timings.push({ tid: mail.tid, input: this.inputAt, sent: this.sentAt, received: receivedAt, drawn: drawnAt,
                            painted: performance.now() });
        if (this.timings.length > 200) this.timings.shift();
      }, 0));
      if (Object.keys(stale).length) this.send(stale);
    });
  }

  /**
   * One column of a mail taken in: its new tokens (whole, or a splice of the version held); ``stale`` gets the
   * columns whose version is not the one the mail expects (a mail was missed: they are asked for whole).
   * @param {import("./edits.js").ColumnMail} m
   * @param {string} tid
   * @param {Record<string, number>} stale
   */
  take(m, tid, stale) {
    let c = this.cols.get(m.key);
    if (!c) c = this.addColumn(m.key, m.slug);
    restoreColumn(c); // (a preview's first tokens are not a version: the mail applies to the column's own)
    if (m.ids === undefined) {
      // unchanged: the browser must hold this version already
      if (m.v === c.v) c.tid = tid;
      else stale[c.key] = -1;
      return;
    }
    if (m.base !== null && m.base !== c.v && m.v === c.v) {
      c.tid = tid; // sent again from an older report: this version is here already
      return;
    }
    if (m.base !== null && m.base !== undefined && m.base !== c.v) {
      // a mail was missed (Streamlit sends only the newest of two queued together): ask for the whole column
      stale[c.key] = -1;
      return;
    }
    if (m.head !== undefined && m.head !== c.headHtml) c.head.innerHTML = c.headHtml = m.head; // (else: no layout)
    const ids = unpack(m.ids);
    const lens = m.lens ? unpack(m.lens, widthOf(m.lw)) : [];
    if (m.base === null || m.base === undefined) {
      c.ids = ids;
      c.lens = lens;
      c.splice = null;
      this.stats.fulls += 1;
    } else {
      c.ids = applySplice(c.ids, m.at ?? 0, m.del ?? 0, ids);
      c.lens = applySplice(c.lens, m.at ?? 0, m.del ?? 0, lens);
      c.splice = { from: c.v, at: m.at ?? 0, del: m.del ?? 0, ins: ids.length };
      this.stats.splices += 1;
    }
    c.v = m.v;
    if (m.special !== undefined) c.special = new Set(m.special);
    if (m.unk !== undefined) c.unk = new Map(m.unk);
    if (m.text !== undefined) c.own = m.text;
    if (m.textSplice !== undefined && c.own !== null) {
      const [at, del, ins] = m.textSplice;
      c.own = c.own.slice(0, at) + ins + c.own.slice(at + del);
    }
    c.tid = tid;
  }

  // ------------------------------------------------------------------ click: the build trace, in place

  /** @param {HTMLElement} target */
  clicked(target) {
    const boxEl = /** @type {HTMLElement | null} */ (target.closest?.(".tkz-spans .bpe-tok"));
    if (!boxEl) return;
    const colEl = /** @type {HTMLElement} */ (boxEl.closest(".tkz-col"));
    const src = [...this.cols.values()].find((c) => c.el === colEl);
    if (!src) return;
    this.askN += 1;
    this.popAnchor = boxEl;
    for (const el of this.grid.querySelectorAll(".tkz-picked")) el.classList.remove("tkz-picked");
    boxEl.classList.add("tkz-picked");
    outlineCovering(src, this.cols.values(), Number(boxEl.dataset.b));   // each column's own tokens there
    this.showTrace('<div class="bpe-more">Tracing…</div>');
    this.report("ask", { key: src.key, index: Number(boxEl.dataset.i), n: this.askN, v: src.v, tid: src.tid });
  }

  /** @param {string} html */
  showTrace(html) {
    if (!this.popAnchor || !this.popAnchor.isConnected) return;
    this.popBody.innerHTML = html;
    this.pop.hidden = false;
    this.place();
    this.pop.dataset.state = html.includes("Tracing…") ? "waiting" : "ready";
    this.pop.scrollIntoView({ block: "nearest" });
  }

  /** The popover under its token, as wide as fits (the whole width on a phone). */
  place() {
    if (this.pop.hidden || !this.popAnchor) return;
    if (!this.popAnchor.isConnected) {
      this.closePop();
      return;
    }
    const root = this.root.getBoundingClientRect();
    const r = this.popAnchor.getBoundingClientRect();
    const width = Math.min(root.width, 560);
    this.pop.style.width = `${width}px`;
    const left = Math.max(0, Math.min(r.left - root.left, root.width - width));
    this.pop.style.left = `${left}px`;
    this.pop.style.top = `${r.bottom - root.top + 6}px`;
  }

  closePop() {
    this.pop.hidden = true;
    this.popAnchor = null;
    for (const el of this.grid.querySelectorAll(".tkz-picked")) el.classList.remove("tkz-picked");
  }
}
