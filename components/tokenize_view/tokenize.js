// @ts-check
// The Tokenize view: the text box and every tokenizer's column, drawn in the browser. Python sends each column
// its ids and UTF-8 lengths (views/tokenize_payload.py), an edit only the tokens that changed; this module lays
// them on the text (core.js), draws what is on screen, lights the same characters up in every column on hover,
// and asks Python for a token's build trace on click. The page: app_pages/tokenize_page.py.
import {
  applySplice, blocks, boxOf, charShape, colorFor, geometry, idsText, tokenLabel, tokensOver, upperBound, utf8Bytes, utf8Length, utf8Total,
} from "./core.js";
import { boxesOver, boxSpan } from "./picked.js";

/**
 * @typedef {Object} AppData  The view's settings (re-sent only when they change).
 * @property {string} text  the text Python holds
 * @property {number} seq  raised whenever Python replaces the text (a preset, a cut to the limit)
 * @property {number} max  the text box's limit, in characters
 * @property {string[]} colors  the palette (views.theme.color_for's order)
 * @property {boolean} whole  draw a character split across tokens once (else each token's bytes)
 * @property {boolean} showIds  open the id lists
 * @property {boolean} big  large type, for projecting
 * @property {boolean} [presenter]  presenter view (the page's own presenter styles do not reach this shadow root)
 * @property {string} label  the text box's label
 * @property {number} debounce  ms after the last keystroke before the text is sent
 */

/**
 * @typedef {Object} ColumnMail  One column in a mail (absent: unchanged).
 * @property {string} key
 * @property {string} slug
 * @property {number} v  its version after this mail
 * @property {number | null} base  the version the splice applies to (null: ids/lens are the whole column)
 * @property {number} [at]
 * @property {number} [del]
 * @property {number[]} [ids]  absent: the column did not change
 * @property {number[]} [lens]
 * @property {number[]} [special]  indices of special tokens
 * @property {Array<[number, string]>} [unk]  unknown tokens: index, the characters they stand for
 * @property {string | null} [text]  the text this tokenizer encoded, when it normalized the page's
 * @property {[number, number, string]} [textSplice]  how that text changed since the base version
 * @property {string} [head]  the column's head (escaped HTML from Python)
 */

/**
 * @typedef {Object} Mail  What Python sends after an edit (views/tokenize_payload.py, app_pages/tokenize_page.py).
 * @property {string} tid  which text was encoded: "<seq>:<n>" (n = 0: Python's own text)
 * @property {string[]} order  the columns' keys, in page order
 * @property {ColumnMail[]} cols
 * @property {string} [compare]  the comparison table (escaped HTML), when it changed
 * @property {{ n: number, html: string }} [trace]  the answer to a click
 */

/**
 * @typedef {Object} Column
 * @property {string} key
 * @property {string} slug
 * @property {number} v
 * @property {number[]} ids
 * @property {number[]} lens
 * @property {Set<number>} special
 * @property {Map<number, string>} unk
 * @property {string | null} own  the column's own (normalized) text
 * @property {string} tid  the text its tokens were computed for
 * @property {import("./core.js").Geometry | null} geo
 * @property {string} drawnFor  what was last drawn: tid, version and mode
 * @property {HTMLElement} el
 * @property {HTMLElement} head
 * @property {HTMLElement} hover
 * @property {HTMLElement} spans
 * @property {HTMLDetailsElement} idsBox
 * @property {Array<{ from: number, to: number, el: HTMLElement, filled: boolean, height: number }>} blocks
 * @property {IntersectionObserver | null} observer
 * @property {number} width  the spans' width, from a ResizeObserver (0: not known yet)
 * @property {{ from: number, at: number, del: number, ins: number } | null} splice  how the last mail changed it
 * @property {{ v: number, whole: boolean, big: boolean } | null} drawn  what its spans show
 */

/** @type {import("./mail.js").Registry} */
const REG = /** @type {any} */ (globalThis)[Symbol.for("bpe-lab.tokenize-view")] ??= { box: {}, listeners: new Set() };
const VIEWS = new Map();
const BLOCK = 1500; // boxes drawn together (a text of up to ~1,500 tokens is one block)
const IDS_SHOWN = 2000; // ids shown in the list (Copy copies all)

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

/** @param {string} s */
function esc(s) {
  return s.replace(/[&<>"']/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === '"' ? "&quot;" : "&#39;"));
}

class TokenizeView {
  /** @param {HTMLElement} host */
  constructor(host) {
    this.host = host;

    /** @type {AppData | null} */
    this.app = null;
    /** @type {Map<string, string>} texts by tid: what each pending edit sent */
    this.texts = new Map();
    this.seq = -1;
    this.n = 0;
    /** the tid of the text in the box once sent: "<seq>:0" (Python's) or "<seq>:<n>" (an edit) */
    this.current = "";
    this.askN = 0;
    /** @type {Map<string, Column>} */
    this.cols = new Map();
    this.order = /** @type {string[]} */ ([]);
    this.timer = 0;
    this.lastTid = "";
    this.stats = { mails: 0, splices: 0, fulls: 0, drawn: 0 };
    /** @type {Array<{ tid: string, input: number, sent: number, received: number, drawn: number, painted: number }>} */
    this.timings = []; // for bench/tokenize_bench.py (read through the root element's __tkz)
    this.inputAt = 0;
    this.sentAt = 0;
    this.inflight = false;
    this.dirty = false;
    this.watchdog = 0;
    /** @type {HTMLElement | null} */
    this.popAnchor = null;
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
    find(".tkz-pop-close").addEventListener("click", () => this.closePop());
    this.grid.addEventListener("mouseover", (e) => this.hovered(/** @type {HTMLElement} */ (e.target)));
    this.grid.addEventListener("mouseleave", () => this.unhover());
    this.grid.addEventListener("click", (e) => this.clicked(/** @type {HTMLElement} */ (e.target)));
    this.resizer = new ResizeObserver((entries) => {
      for (const e of entries) {
        const col = [...this.cols.values()].find((c) => c.spans === e.target);
        if (col) col.width = e.contentRect.width;
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
  }

  /**
   * Report to Python through the mailbox element: it lives in the fragment that answers, so a report reruns
   * only that fragment (this view, outside it, is not sent again).
   * @param {string} name
   * @param {unknown} value
   */
  report(name, value) {
    REG.setState?.(name, value);
  }

  destroy() {
    clearTimeout(this.timer);
    clearTimeout(this.watchdog);
    REG.listeners.delete(this.onMail);
    document.removeEventListener("keydown", this.onKey);
    this.resizer?.disconnect();
    for (const c of this.cols.values()) c.observer?.disconnect();
  }

  // ------------------------------------------------------------------ settings and text from Python

  /** @param {AppData} app */
  configure(app) {
    const modeChanged = !this.app || this.app.whole !== app.whole || this.app.big !== app.big;
    this.app = app;
    this.label.textContent = app.label;
    this.box.maxLength = app.max;
    this.root.classList.toggle("tkz-big", !!app.big);
    this.root.classList.toggle("tkz-presenter", !!app.presenter);
    if (app.seq !== this.seq) {
      // Python replaced the text (first mount, a preset, a cut): the box shows it; edits restart from it
      this.seq = app.seq;
      const tid = `${app.seq}:0`;
      this.current = tid;
      this.texts.set(tid, app.text);
      if (this.box.value !== app.text) this.box.value = app.text;
      this.countText();
    }
    if (modeChanged) for (const c of this.cols.values()) c.drawnFor = "";
    for (const c of this.cols.values()) {
      c.idsBox.open = !!app.showIds;
      this.draw(c);
    }
    if (REG.box.mail !== undefined) this.receive(/** @type {Mail} */ (REG.box.mail));
  }

  countText() {
    const t = this.box.value;
    let chars = t.length;
    for (let i = 0; i < t.length; i++) {
      const c = t.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < t.length) {
        const d = t.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          chars -= 1; // a pair is one character, as Python counts them
          i++;
        }
      }
    }
    this.count.textContent = `${chars.toLocaleString("en-US")} characters · ${utf8Total(t).toLocaleString("en-US")} bytes`;
  }

  edited() {
    this.inputAt = performance.now();
    this.countText();
    this.root.dataset.state = "typing";
    clearTimeout(this.timer);
    this.timer = 0;
    // While an edit is on its way, keystrokes only mark the text dirty: it is sent when the answer comes (or
    // after a second without one). Otherwise it goes after a short pause (a paste's several input events, a
    // typist's burst), so a single keystroke is answered at once.
    if (this.inflight && performance.now() - this.sentAt < 2000) {
      this.dirty = true;
      return;
    }
    this.timer = window.setTimeout(() => this.send(), this.app?.debounce ?? 0);
  }

  /** Nothing typed is waiting to be sent or answered, and the columns show the text in the box. */
  get settled() {
    return !this.timer && !this.inflight && !this.dirty && this.root.dataset.painted === this.current &&
      this.texts.get(this.current) === this.box.value;
  }

  /** @param {Record<string, number>} [stale]  columns to be sent whole (a mail was missed) */
  send(stale = {}) {
    this.timer = 0;
    this.inflight = true;
    this.dirty = false;
    clearTimeout(this.watchdog);
    // an answer that never comes (a rerun cut short): ask again
    this.watchdog = window.setTimeout(() => {
      if (this.inflight) this.send();
    }, 4000);
    const text = this.box.value;
    this.n += 1;
    const tid = `${this.seq}:${this.n}`;
    this.current = tid;
    this.texts.set(tid, text);
    /** @type {Record<string, number>} */
    const have = {};
    for (const c of this.cols.values()) have[c.key] = c.v;
    this.root.dataset.state = "waiting";
    this.sentAt = performance.now();
    this.report("edit", { text, n: this.n, seq: this.seq, have: { ...have, ...stale } });
  }

  // ------------------------------------------------------------------ encodings from Python

  /** @param {Mail} mail */
  receive(mail) {
    if (!mail || !this.app || mail === this.lastMail) return;
    // the text it was computed for: Python's (its settings may arrive just after this mail: it is taken again
    // then) or one this view sent
    if (!this.texts.has(mail.tid)) return;
    const receivedAt = performance.now();
    this.lastMail = mail;
    this.stats.mails += 1;
    /** @type {Record<string, number>} */
    const stale = {};
    let needFull = false;
    for (const m of mail.cols) {
      let c = this.cols.get(m.key);
      if (!c) c = this.addColumn(m.key, m.slug);
      if (m.ids === undefined) {
        // unchanged: the browser must hold this version already
        if (m.v === c.v) c.tid = mail.tid;
        else {
          stale[c.key] = -1;
          needFull = true;
        }
        continue;
      }
      if (m.base !== null && m.base !== c.v && m.v === c.v) {
        c.tid = mail.tid; // sent again from an older report: this version is here already
        continue;
      }
      if (m.head !== undefined) c.head.innerHTML = m.head;
      const lens = m.lens ?? [];
      if (m.base === null || m.base === undefined) {
        c.ids = m.ids.slice();
        c.lens = lens.slice();
        c.splice = null;
        this.stats.fulls += 1;
      } else if (m.base === c.v) {
        c.ids = applySplice(c.ids, m.at ?? 0, m.del ?? 0, m.ids);
        c.lens = applySplice(c.lens, m.at ?? 0, m.del ?? 0, lens);
        c.splice = { from: c.v, at: m.at ?? 0, del: m.del ?? 0, ins: m.ids.length };
        this.stats.splices += 1;
      } else {
        // a mail was missed (Streamlit sends only the newest of two queued together): ask for the whole column
        stale[c.key] = -1;
        needFull = true;
        continue;
      }
      c.v = m.v;
      if (m.special !== undefined) c.special = new Set(m.special);
      if (m.unk !== undefined) c.unk = new Map(m.unk);
      if (m.text !== undefined) c.own = m.text;
      if (m.textSplice !== undefined && c.own !== null) {
        const [at, del, ins] = m.textSplice;
        c.own = c.own.slice(0, at) + ins + c.own.slice(at + del);
      }
      c.tid = mail.tid;
    }
    // columns no longer chosen go; the order is Python's
    for (const key of [...this.cols.keys()]) {
      if (!mail.order.includes(key)) {
        const c = /** @type {Column} */ (this.cols.get(key));
        c.observer?.disconnect();
        c.el.remove();
        this.cols.delete(key);
      }
    }
    this.order = mail.order.slice();
    for (const key of this.order) {
      const c = this.cols.get(key);
      if (c) this.grid.appendChild(c.el);
    }
    this.grid.style.setProperty("--cols", String(Math.min(3, Math.max(1, this.order.length))));
    this.grid.dataset.n = String(this.order.length);
    if (mail.compare !== undefined) this.compare.innerHTML = mail.compare;
    for (const c of this.cols.values()) this.draw(c);
    // forget the texts of edits answered or overtaken
    const [seq, n] = mail.tid.split(":").map(Number);
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
    // painted: the frame after this drawing (its animation frame callback, then the task after it: the
    // browser lays out and paints between the two)
    const drawnAt = performance.now();
    requestAnimationFrame(() => setTimeout(() => {
      this.root.dataset.painted = mail.tid;
      this.timings.push({ tid: mail.tid, input: this.inputAt, sent: this.sentAt, received: receivedAt, drawn: drawnAt,
                          painted: performance.now() });
      if (this.timings.length > 200) this.timings.shift();
    }, 0));
    this.root.dataset.state = mail.tid === current ? "ready" : "waiting";
    if (needFull) this.send(stale);
  }

  /**
   * @param {string} key
   * @param {string} slug
   * @returns {Column}
   */
  addColumn(key, slug) {
    const el = document.createElement("section");
    el.className = `tkz-col tok-col-${slug}`;
    el.dataset.col = slug;
    el.innerHTML =
      '<div class="tkz-head"></div><div class="tkz-hover" aria-live="polite"></div>' +
      '<div class="tkz-spans bpe-tokens tokv-spans"></div>' +
      '<details class="tkz-ids"><summary>Token ids</summary><div class="tkz-idlist"></div>' +
      '<button type="button" class="tkz-copy">Copy all ids</button><span class="tkz-copied" aria-live="polite"></span></details>';
    const c = /** @type {Column} */ ({
      key, slug, v: -1, ids: [], lens: [], special: new Set(), unk: new Map(), own: null, tid: "", geo: null,
      drawnFor: "", el,
      head: /** @type {HTMLElement} */ (el.querySelector(".tkz-head")),
      hover: /** @type {HTMLElement} */ (el.querySelector(".tkz-hover")),
      spans: /** @type {HTMLElement} */ (el.querySelector(".tkz-spans")),
      idsBox: /** @type {HTMLDetailsElement} */ (el.querySelector(".tkz-ids")),
      blocks: [], observer: null, width: 0, splice: null, drawn: null,
    });
    c.idsBox.open = !!this.app?.showIds;
    c.idsBox.addEventListener("toggle", () => this.drawIds(c));
    this.resizer.observe(c.spans);
    /** @type {HTMLElement} */ (el.querySelector(".tkz-copy")).addEventListener("click", () => this.copyIds(c));
    this.cols.set(key, c);
    this.grid.appendChild(el);
    return c;
  }

  /** @param {Column} c */
  textOf(c) {
    return c.own ?? this.texts.get(c.tid) ?? "";
  }

  // ------------------------------------------------------------------ drawing

  /** @param {Column} c */
  draw(c) {
    if (!this.app || !c.tid) return;
    const whole = this.app.whole;
    const stamp = `${c.tid}|${c.v}|${whole}`;
    if (c.drawnFor === stamp) return;
    c.drawnFor = stamp;
    const text = this.textOf(c);
    if (c.drawn && c.drawn.v === c.v && c.drawn.whole === whole && c.drawn.big === !!this.app.big && c.geo) {
      return; // the same tokens (so the same text) drawn the same way: nothing to do
    }
    const prev = c.geo;
    c.geo = geometry(text, c.lens, whole);
    const drawn = c.drawn;
    c.drawn = { v: c.v, whole, big: !!this.app.big };
    if (drawn && prev && c.splice && c.splice.from === drawn.v && drawn.whole === whole && drawn.big === !!this.app.big &&
        this.redrawSplice(c, prev, c.geo, text)) {
      this.drawIds(c);
      return;
    }
    c.observer?.disconnect();
    c.spans.textContent = "";
    c.blocks = [];
    c.spans.dataset.tokens = String(c.ids.length);
    if (!c.ids.length) {
      c.spans.innerHTML = '<span class="bpe-more">(no tokens: the text is empty)</span>';
      this.drawIds(c);
      return;
    }
    const g = c.geo;
    const nBoxes = g.boxes.length - 1;
    const ranges = blocks(nBoxes, BLOCK);
    // (the width only sizes the placeholders of a long text; reading it forces a layout, so short texts don't)
    const width = ranges.length > 1 ? Math.max(120, c.width || c.spans.clientWidth || 300) : 300;
    const px = this.app.big ? 22 : 15;
    for (const [from, to] of ranges) {
      const el = document.createElement("div");
      el.className = "tkz-block";
      const chars = g.ce[g.boxes[to] - 1] - g.cs[g.boxes[from]];
      const height = Math.max(2 * px, Math.ceil((chars * px * 0.62) / width) * 2 * px);
      el.style.minHeight = `${height}px`;
      c.spans.appendChild(el);
      c.blocks.push({ from, to, el, filled: false, height });
    }
    if (c.blocks.length === 1) {
      this.fill(c, 0);
    } else {
      // long texts: draw the blocks near the visible part only
      c.observer = new IntersectionObserver((entries) => {
        for (const e of entries) {
          const k = c.blocks.findIndex((b) => b.el === e.target);
          if (k < 0) continue;
          if (e.isIntersecting) this.fill(c, k);
          else this.empty(c, k);
        }
      }, { root: c.spans, rootMargin: "600px 0px" });
      for (const b of c.blocks) c.observer.observe(b.el);
      this.fill(c, 0);
    }
    this.drawIds(c);
  }

  /**
   * Redraw only the boxes an edit changed (a short text, drawn in one block): the boxes before the splice and
   * after it stay, those after it renumbered. False when it cannot (the caller draws the column anew).
   * @param {Column} c
   * @param {import("./core.js").Geometry} prev  the geometry drawn
   * @param {import("./core.js").Geometry} g  the new one
   * @param {string} text
   */
  redrawSplice(c, prev, g, text) {
    if (!this.app || !c.splice || c.blocks.length !== 1 || !c.blocks[0].filled || !c.ids.length) return false;
    const oldN = prev.boxes.length - 1, newN = g.boxes.length - 1;
    if (!oldN || newN > BLOCK) return false;
    const { at, del, ins } = c.splice;
    const head = Math.min(boxOf(prev, at), boxOf(g, at));
    // tail: boxes that start after the last changed token (their previous token is unchanged, so they start
    // a box in both drawings)
    const oldTail = Math.min(oldN, upperBound(prev.boxes, at + del));
    const newTail = Math.min(newN, upperBound(g.boxes, at + ins));
    if (head > oldTail || head > newTail || oldN - oldTail !== newN - newTail) return false;
    const block = c.blocks[0];
    const box = (/** @type {number} */ k) => /** @type {HTMLElement | null} */ (block.el.querySelector(`:scope > [data-b="${k}"]`));
    const start = head < oldN ? box(head) : null;
    const end = oldTail < oldN ? box(oldTail) : null;
    if ((head < oldN && !start) || (oldTail < oldN && !end)) return false;
    if (start) {
      const range = document.createRange();
      range.setStartBefore(start);
      if (end) range.setEndBefore(end);
      else range.setEndAfter(/** @type {Node} */ (block.el.lastChild));
      range.deleteContents();
    }
    const parts = [];
    for (let k = head; k < newTail; k++) {
      parts.push(this.boxHtml(c, g, text, this.app.colors, k, g.boxes[k], g.boxes[k + 1], this.app.whole));
    }
    let html = parts.join("<wbr>");
    if (parts.length && end) html += "<wbr>";
    if (parts.length && !start && head > 0) html = "<wbr>" + html;
    if (end) end.insertAdjacentHTML("beforebegin", html);
    else block.el.insertAdjacentHTML("beforeend", html);
    if (newTail !== oldTail || ins !== del) {
      // the boxes after the edit moved: renumber them
      let k = newTail;
      for (let el = end; el; el = /** @type {HTMLElement | null} */ (el.nextElementSibling)) {
        if (!el.classList.contains("bpe-tok")) continue;
        el.dataset.b = String(k);
        el.dataset.i = String(g.boxes[k]);
        k += 1;
      }
    }
    block.to = newN;
    c.spans.dataset.tokens = String(c.ids.length);
    this.stats.drawn += newTail - head;
    return true;
  }

  /**
   * @param {Column} c
   * @param {number} k
   */
  fill(c, k) {
    const b = c.blocks[k];
    if (!b || b.filled || !c.geo || !this.app) return;
    const g = c.geo;
    const text = this.textOf(c);
    const colors = this.app.colors;
    const whole = this.app.whole;
    const out = [];
    for (let box = b.from; box < b.to; box++) {
      const a = g.boxes[box], z = g.boxes[box + 1];
      out.push(this.boxHtml(c, g, text, colors, box, a, z, whole));
    }
    b.el.innerHTML = out.join("<wbr>");
    b.el.style.minHeight = "";
    b.filled = true;
    this.stats.drawn += b.to - b.from;
  }

  /**
   * @param {Column} c
   * @param {number} k
   */
  empty(c, k) {
    const b = c.blocks[k];
    if (!b || !b.filled || c.blocks.length === 1) return;
    b.height = b.el.offsetHeight || b.height;
    b.el.style.minHeight = `${b.height}px`;
    b.el.textContent = "";
    b.filled = false;
  }

  /**
   * One box (a token, or the tokens sharing a character) as HTML; every character of the text escaped.
   * @param {Column} c
   * @param {import("./core.js").Geometry} g
   * @param {string} text
   * @param {string[]} colors
   * @param {number} box
   * @param {number} a  first token
   * @param {number} z  past the last token
   * @param {boolean} whole
   */
  boxHtml(c, g, text, colors, box, a, z, whole) {
    if (z - a > 1) {
      // a character split across tokens, drawn once, striped with its tokens' colours
      let total = 0;
      for (let i = a; i < z; i++) total += c.lens[i];
      const stops = [];
      const tips = [];
      let pos = 0;
      for (let i = a; i < z; i++) {
        const col = colorFor(c.ids[i], colors);
        stops.push(`${col} ${((100 * pos) / total).toFixed(1)}% ${((100 * (pos + c.lens[i])) / total).toFixed(1)}%`);
        pos += c.lens[i];
        tips.push(`id ${c.ids[i]} (${tokenLabel(text, g, i, c.lens[i])})`);
      }
      const tip = `${z - a} tokens share a character (drawn whole): ${tips.join(" + ")}`;
      return `<span class="bpe-tok tokv-multi" data-b="${box}" data-i="${a}" data-ids="${c.ids.slice(a, z).join(" ")}" ` +
        `style="background:linear-gradient(90deg,${stops.join(",")})" title="${esc(tip)}">` +
        this.charsHtml(text, g.cs[a], g.ce[z - 1]) + "</span>";
    }
    const i = a;
    const id = c.ids[i];
    if (c.unk.has(i)) {
      const chars = /** @type {string} */ (c.unk.get(i));
      const tip = `unknown: ${[...chars].slice(0, 8).map((ch) => `'${ch}' (U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")})`).join(", ")} ` +
        `${[...chars].length === 1 ? "is" : "are"} not in this tokenizer's alphabet, so ${[...chars].length === 1 ? "it becomes" : "they become"} id ${id}`;
      return `<span class="bpe-tok tokv-unk" data-b="${box}" data-i="${i}" data-id="${id}" data-unk="${esc(chars)}" title="${esc(tip)}">` +
        this.charsHtml(chars, 0, chars.length) + "</span>";
    }
    const special = c.special.has(i);
    const n = c.lens[i];
    const tip = `id ${id} · ${special ? "special token · " : ""}${tokenLabel(text, g, i, n)} · ${n} byte${n !== 1 ? "s" : ""}`;
    const inner = whole || (!g.head[i] && !g.tail[i]) ? this.charsHtml(text, g.cs[i], g.ce[i]) : this.bytesHtml(text, g, i, n);
    return `<span class="bpe-tok${special ? " bpe-special" : ""}" data-b="${box}" data-i="${i}" data-id="${id}" ` +
      `style="background:${colorFor(id, colors)}" title="${esc(tip)}">${inner}</span>`;
  }

  /**
   * One token's own bytes (``len`` of them from its start): whole characters as text, the bytes of a
   * character it shares with a neighbour as hex chips (``E2 80``), never as U+FFFD.
   * @param {string} text
   * @param {import("./core.js").Geometry} g
   * @param {number} i
   * @param {number} len
   */
  bytesHtml(text, g, i, len) {
    const chip = (/** @type {number[]} */ bytes) =>
      `<span class="bpe-byte" title="bytes that are part of a UTF-8 character">${bytes.map((b) => b.toString(16).toUpperCase().padStart(2, "0")).join(" ")}</span>`;
    let out = "";
    let u = g.cs[i];
    let left = len;
    if (g.head[i]) {
      const cp = text.codePointAt(u) ?? 0xfffd;
      const bytes = utf8Bytes(cp);
      const take = bytes.slice(g.head[i], Math.min(bytes.length, g.head[i] + left));
      out += chip(take);
      left -= take.length;
      u += cp > 0xffff ? 2 : 1;
    }
    while (left > 0 && u < text.length) {
      const cp = text.codePointAt(u) ?? 0xfffd;
      const w = cp > 0xffff ? 2 : 1;
      const bl = utf8Length(cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp);
      if (bl > left) {
        out += chip(utf8Bytes(cp).slice(0, left));
        break;
      }
      out += this.charsHtml(text, u, u + w);
      left -= bl;
      u += w;
    }
    return out;
  }

  /**
   * Characters ``text[from:to]`` with whitespace marks and invisible-character chips, escaped.
   * @param {string} text
   * @param {number} from
   * @param {number} to
   */
  charsHtml(text, from, to) {
    let out = "";
    for (let u = from; u < to;) {
      const cp = text.codePointAt(u) ?? 0xfffd;
      const w = cp > 0xffff ? 2 : 1;
      const ch = text.slice(u, u + w);
      u += w;
      const [kind, shown] = charShape(ch);
      if (kind === "t") out += esc(shown);
      else if (kind === "w") out += `<span class="bpe-ws">${shown}</span>` + (ch === "\n" ? "\n" : "");
      else out += `<span class="bpe-inv" title="U+${cp.toString(16).toUpperCase().padStart(4, "0")}">${shown}</span>`;
    }
    return out;
  }

  /** @param {Column} c */
  drawIds(c) {
    const list = /** @type {HTMLElement} */ (c.idsBox.querySelector(".tkz-idlist"));
    const summary = /** @type {HTMLElement} */ (c.idsBox.querySelector("summary"));
    summary.textContent = `Token ids (${c.ids.length.toLocaleString("en-US")})`;
    if (!c.idsBox.open || !this.app) {
      list.textContent = "";
      return;
    }
    // plain text (selectable, one node): hovering a token names its ids in every column already
    list.textContent = c.ids.length > IDS_SHOWN
      ? `${idsText(c.ids.slice(0, IDS_SHOWN)).slice(0, -1)}, … and ${(c.ids.length - IDS_SHOWN).toLocaleString("en-US")} more (Copy copies all)]`
      : idsText(c.ids);
  }

  /** @param {Column} c */
  async copyIds(c) {
    const text = idsText(c.ids);
    const said = /** @type {HTMLElement} */ (c.idsBox.querySelector(".tkz-copied"));
    let ok;
    try {
      await navigator.clipboard.writeText(text);
      ok = true;
    } catch {
      const area = document.createElement("textarea");
      area.value = text;
      this.root.appendChild(area);
      area.select();
      try {
        ok = document.execCommand("copy");
      } catch {
        ok = false;
      }
      area.remove();
    }
    said.textContent = ok ? `Copied ${c.ids.length.toLocaleString("en-US")} ids` : "Copy failed: select the ids instead";
    c.idsBox.dataset.copied = text;
  }

  // ------------------------------------------------------------------ hover: the same characters everywhere

  /** @param {HTMLElement} target */
  hovered(target) {
    const boxEl = /** @type {HTMLElement | null} */ (target.closest?.(".tkz-spans .bpe-tok"));
    if (!boxEl) return;
    const colEl = /** @type {HTMLElement} */ (boxEl.closest(".tkz-col"));
    const src = [...this.cols.values()].find((c) => c.el === colEl);
    if (!src || !src.geo) return;
    const g = src.geo;
    const box = Number(boxEl.dataset.b);
    const a = g.boxes[box], z = g.boxes[box + 1];
    const from = g.cs[a], to = g.ce[z - 1];
    this.unhover();
    this.root.dataset.hover = `${from}-${to}`;
    for (const c of this.cols.values()) {
      if (!c.geo || c.tid !== src.tid) continue;
      const [f, l] = tokensOver(c.geo, from, to);
      const text = this.textOf(c);
      const parts = [];
      for (let i = f; i < l && parts.length < 8; i++) {
        parts.push(`${c.special.has(i) ? "special " : ""}id ${c.ids[i]} “${tokenLabel(text, c.geo, i, c.lens[i])}”`);
      }
      if (l - f > 8) parts.push(`… ${l - f - 8} more`);
      c.hover.textContent = parts.join(" · ");
      c.hover.dataset.ids = c.ids.slice(f, l).join(" ");
      const seen = new Set();
      for (let i = f; i < l; i++) {
        const b = boxOf(c.geo, i);
        if (seen.has(b)) continue;
        seen.add(b);
        c.spans.querySelector(`[data-b="${b}"]`)?.classList.add("tkz-hl");
      }
    }
  }

  unhover() {
    delete this.root.dataset.hover;
    for (const c of this.cols.values()) {
      for (const el of c.spans.querySelectorAll(".tkz-hl")) el.classList.remove("tkz-hl");
      c.hover.textContent = "";
      delete c.hover.dataset.ids;
    }
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
    // every column's own tokens over those characters: outlined too (the trace follows them)
    if (src.geo) {
      const [from, to] = boxSpan(src.geo, Number(boxEl.dataset.b));
      for (const c of this.cols.values()) {
        if (c === src || !c.geo || c.tid !== src.tid) continue;
        for (const b of boxesOver(c.geo, from, to)) c.spans.querySelector(`[data-b="${b}"]`)?.classList.add("tkz-picked");
      }
    }
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
