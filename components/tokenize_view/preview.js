// @ts-check
// The Tokenize view's big paste (appstate/tokenize_preview.py): Python mails every column's first tokens (the first
// screen, exact) before it encodes the whole text, then the whole encoding. The first are drawn at once but never
// taken as the column's version: the column's own tokens are set aside (holdPreview) and put back when the next
// real mail comes (restoreColumn), whose splice applies to them. Also the work queue every mail's columns go
// through (drawn in time slices) and the columns' order. TokenizeView (tokenize.js) extends PreviewView.
import { unpack } from "./edits.js";
import { HoverView } from "./hover.js";

/** @typedef {import("./edits.js").Mail} Mail */
/** @typedef {import("./edits.js").ColumnMail} ColumnMail */
/** @typedef {import("./columns.js").Column} Column */

const SLICE = 40; // ms of queued work (a big mail's columns) done before the browser gets a turn

/**
 * Show a preview's first tokens in column ``c`` (its own tokens and head set aside, once, until restoreColumn).
 * @param {Column} c
 * @param {ColumnMail} m
 * @param {string} tid  the text they lie on
 */
export function holdPreview(c, m, tid) {
  if (!c.held) {
    c.held = { ids: c.ids, lens: c.lens, special: c.special, unk: c.unk, own: c.own, tid: c.tid, headHtml: c.headHtml ?? "" };
  }
  if (m.head !== undefined && m.head !== c.headHtml) c.head.innerHTML = c.headHtml = m.head;
  c.ids = m.ids ? unpack(m.ids) : [];
  c.lens = m.lens ? unpack(m.lens) : [];
  c.special = new Set(m.special ?? []);
  c.unk = new Map();
  c.own = m.text ?? null; // (a normalizing tokenizer: the start of the text it encoded)
  c.tid = tid;
  c.splice = null;
  c.drawn = null; // (drawn anew: what is drawn is not a version of the column)
  c.geo = null;
  c.el.dataset.partial = "1";
}

/**
 * The column's own tokens and head back, after a preview (a mail's splice applies to them); nothing otherwise.
 * @param {Column} c
 */
export function restoreColumn(c) {
  const h = c.held;
  if (!h) return;
  c.held = null;
  c.ids = h.ids;
  c.lens = h.lens;
  c.special = h.special;
  c.unk = h.unk;
  c.own = h.own;
  c.tid = h.tid;
  if (c.headHtml !== h.headHtml) c.head.innerHTML = c.headHtml = h.headHtml;
  c.splice = null;
  c.drawn = null;
  c.geo = null;
  c.drawnFor = "";
  delete c.el.dataset.partial;
}

export class PreviewView extends HoverView {
  constructor() {
    super();
    /** the tid of the text in the box once sent (see TokenizeView) */
    this.current = "";
    this.drawTimer = 0;
    /** @type {Array<() => void>} work queued: the columns of the mails, taken and drawn in order */
    this.queue = [];
    this.pumping = false;
    this.order = /** @type {string[]} */ ([]);
    this.compareHtml = ""; // the comparison table drawn (a mail's, drawn only when it changed)
    /** @type {HTMLElement} */
    this.compare = document.createElement("div");
    /** @type {Mail | null} the last preview taken */
    this.lastPreview = null;
    /** @type {Array<{ tid: string, input: number, sent: number, received: number, drawn: number, painted: number }>} */
    this.previews = []; // the first screens painted, for bench/tokenize_bench.py (as TokenizeView's timings)
    this.inputAt = 0;
    this.sentAt = 0;
  }

  /**
   * Run ``fn`` after the work queued before it, in time slices from a task of their own (a big mail's columns
   * are unpacked and drawn a few at a time, between which the browser paints and answers input: no task blocks
   * the page for long).
   * @param {() => void} fn
   */
  enqueue(fn) {
    this.queue.push(fn);
    if (this.pumping) return;
    // (started in a task of its own: a mail's columns are queued one call at a time from inside Streamlit's
    // render, so pumping at once ran the whole mail in that render's task, 184 ms at load 20 for a 1 MB paste)
    this.pumping = true;
    this.drawTimer = window.setTimeout(() => this.pump(), 0);
  }

  pump() {
    this.pumping = true;
    const start = performance.now();
    while (this.queue.length) {
      const fn = /** @type {() => void} */ (this.queue.shift());
      fn();
      if (this.queue.length && performance.now() - start > SLICE) {
        this.drawTimer = window.setTimeout(() => this.pump(), 0);
        return;
      }
    }
    this.pumping = false;
  }

  /**
   * A big paste's first screen: drawn in every column at once, for the text in the box only; the columns'
   * heads say they are counting until the whole encoding comes.
   * @param {Mail} mail
   */
  receivePreview(mail) {
    if (mail === this.lastPreview || mail.tid !== this.current || !this.texts.has(mail.tid)) return;
    if (this.root.dataset.painted === mail.tid) return; // (the whole encoding is drawn already)
    this.lastPreview = mail;
    const receivedAt = performance.now(), input = this.inputAt, sent = this.sentAt;
    for (const m of mail.cols) {
      this.enqueue(() => {
        if (this.current !== mail.tid) return; // (typed since: the next mail is about another text)
        holdPreview(this.cols.get(m.key) ?? this.addColumn(m.key, m.slug), m, mail.tid);
      });
    }
    this.enqueue(() => this.arrange({ ...mail, compare: undefined }));
    for (const key of mail.order) {
      this.enqueue(() => {
        const c = this.cols.get(key);
        if (c?.held) this.draw(c);
      });
    }
    this.enqueue(() => {
      this.compare.classList.add("tkz-stale"); // (the counts of the text before the paste, until the new ones)
      const drawnAt = performance.now();
      requestAnimationFrame(() => setTimeout(() => {
        this.root.dataset.partial = mail.tid;
        this.previews.push({ tid: mail.tid, input, sent, received: receivedAt, drawn: drawnAt, painted: performance.now() });
        if (this.previews.length > 20) this.previews.shift();
      }, 0));
    });
  }

  /**
   * The columns in Python's order; those no longer chosen go; the comparison table.
   * @param {Mail} mail
   */
  arrange(mail) {
    for (const key of [...this.cols.keys()]) {
      if (!mail.order.includes(key)) {
        const c = /** @type {Column} */ (this.cols.get(key));
        c.observer?.disconnect();
        c.el.remove();
        this.cols.delete(key);
      }
    }
    this.order = mail.order.slice();
    // (moved only when out of place: moving a column lays the whole page out again)
    const els = this.order.map((key) => this.cols.get(key)?.el).filter((el) => el !== undefined);
    if (els.some((el, i) => this.grid.children[i] !== el)) for (const el of els) this.grid.appendChild(el);
    const n = String(this.order.length);
    if (this.grid.dataset.n !== n) this.grid.style.setProperty("--cols", String(Math.min(3, Math.max(1, this.order.length))));
    if (this.grid.dataset.n !== n) this.grid.dataset.n = n;
    if (mail.compare !== undefined && mail.compare !== this.compareHtml) this.compare.innerHTML = this.compareHtml = mail.compare;
  }
}
