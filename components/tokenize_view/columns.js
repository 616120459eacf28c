// @ts-check
// The Tokenize view's columns (components/tokenize_view): each column's DOM, its token boxes laid on the text
// (core.js) and drawn windowed -- blocks of boxes, only those near the visible part filled -- and its id list.
// TokenizeView (tokenize.js) extends ColumnsView with the text box, the conversation with Python and the
// hover / click handlers.
import {
  blocks, boxOf, charShape, colorFor, geometry, idsText, noTokensHtml, tokenLabel, upperBound, utf8Bytes, utf8Length,
} from "./core.js";
import { visibleBlocks } from "./edits.js";
import { endsLine, redrawLines } from "./lines.js";

/**
 * @typedef {Object} AppData  The view's settings (re-sent only when they change).
 * @property {string} text  the text Python holds
 * @property {number} seq  raised whenever Python replaces the text (a preset, a cut to the limit)
 * @property {string} [tid]  which version of it that is ("<seq>:<n>": a view mounted after a page switch goes on
 *   from edit n)
 * @property {boolean} [fresh]  a new session whose text nobody touched yet: a browser that saved a text restores it
 * @property {Record<string, unknown>} [keep]  the settings saved with the text (widget key -> value, and
 *   "uploads"), restored with it
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
 * @property {string} [headHtml]  what the head shows (a mail's head, drawn only when it changed)
 * @property {HTMLElement} hover
 * @property {HTMLElement} spans
 * @property {HTMLDetailsElement} idsBox
 * @property {Array<{ from: number, to: number, el: HTMLElement, filled: boolean, height: number }>} blocks
 * @property {IntersectionObserver | null} observer
 * @property {number} width  the spans' width, from a ResizeObserver (0: not known yet)
 * @property {number} viewHeight  the spans' visible height, from the ResizeObserver (0: not known yet)
 * @property {number} scrolled  the spans' scroll position, from its scroll events
 * @property {{ from: number, at: number, del: number, ins: number } | null} splice  how the last mail changed it
 * @property {{ v: number, whole: boolean, big: boolean } | null} drawn  what its spans show
 * @property {{ ids: number[], lens: number[], special: Set<number>, unk: Map<number, string>, own: string | null,
 *   tid: string, headHtml: string } | null} [held]  its own tokens, set aside while a big paste's first screen
 *   is shown (preview.js)
 */

const BLOCK = 500; // boxes drawn together (a text of up to ~500 tokens is one block; a block is ~1.5 screens of the list)
const IDS_SHOWN = 2000; // ids shown in the list (Copy copies all)

/** @param {string} s */
function esc(s) {
  return s.replace(/[&<>"']/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === '"' ? "&quot;" : "&#39;"));
}

export class ColumnsView {
  constructor() {
    /** @type {AppData | null} */
    this.app = null;
    /** @type {Map<string, Column>} */
    this.cols = new Map();
    /** @type {Map<string, string>} texts by tid: the texts columns were computed for */
    this.texts = new Map();
    /** counts for the tests and bench/tokenize_bench.py: mails taken, columns spliced or sent whole, boxes drawn,
     * edits and whole texts sent up, and the characters of all reports sent up */
    this.stats = { mails: 0, splices: 0, fulls: 0, drawn: 0, edits: 0, wholes: 0, upBytes: 0 };
    /** @type {HTMLElement} */
    this.root = document.createElement("div");
    /** @type {HTMLElement} */
    this.grid = document.createElement("div");
    /** @type {ResizeObserver | null} */
    this.resizer = null;
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
      blocks: [], observer: null, width: 0, viewHeight: 0, scrolled: 0, splice: null, drawn: null,
    });
    c.idsBox.open = !!this.app?.showIds;
    c.idsBox.addEventListener("toggle", () => this.drawIds(c));
    this.resizer?.observe(c.spans);
    c.spans.addEventListener("scroll", () => { c.scrolled = c.spans.scrollTop; }, { passive: true });
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
    const drawn = c.drawn;
    // after an edit of the tokens drawn (the same way), only the changed stretch is laid on the text again
    const same = !!(drawn && prev && c.splice && c.splice.from === drawn.v && drawn.whole === whole);
    c.geo = geometry(text, c.lens, whole, same ? prev : null, same ? c.splice : null);
    c.drawn = { v: c.v, whole, big: !!this.app.big };
    if (drawn && prev && c.splice && c.splice.from === drawn.v && drawn.whole === whole && drawn.big === !!this.app.big &&
        (this.redrawSplice(c, prev, c.geo, text) || this.reblock(c, prev, c.geo))) {
      this.drawIds(c);
      return;
    }
    c.observer?.disconnect();
    c.spans.textContent = "";
    c.blocks = [];
    c.spans.dataset.tokens = String(c.ids.length);
    if (!c.ids.length) {
      c.spans.innerHTML = noTokensHtml(text);
      this.drawIds(c);
      return;
    }
    const g = c.geo;
    const nBoxes = g.boxes.length - 1;
    const ranges = blocks(nBoxes, BLOCK);
    for (const [from, to] of ranges) this.addBlock(c, g, from, to, ranges.length);
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
      // the blocks in view at the place the list was scrolled to (known from its scroll events: reading it here
      // would lay the page out once per column); the observer fills others as they come near
      const [first, last] = visibleBlocks(c.blocks.map((b) => b.height), c.scrolled, c.viewHeight || 500, 600);
      for (let k = first; k < last; k++) this.fill(c, k);
      const top = c.scrolled;
      if (top) requestAnimationFrame(() => { c.spans.scrollTop = top; });
    }
    this.drawIds(c);
  }

  /**
   * A placeholder block for boxes ``from``..``to`` (its height a guess from its characters and the list's width,
   * known from the ResizeObserver: never read here, which would lay the page out).
   * @param {Column} c
   * @param {import("./core.js").Geometry} g
   * @param {number} from
   * @param {number} to
   * @param {number} count  blocks in all
   */
  addBlock(c, g, from, to, count) {
    const width = count > 1 ? Math.max(120, c.width || 300) : 300;
    const px = this.app?.big ? 22 : 15;
    const el = document.createElement("div");
    el.className = "tkz-block";
    const chars = g.ce[g.boxes[to] - 1] - g.cs[g.boxes[from]];
    const height = Math.max(2 * px, Math.ceil((chars * px * 0.62) / width) * 2 * px);
    el.style.minHeight = `${height}px`;
    c.spans.appendChild(el);
    c.blocks.push({ from, to, el, filled: false, height });
    c.observer?.observe(el);
  }

  /**
   * An edit of a long column (several blocks): the blocks before the one the edit starts in stay as they are
   * (blocks are fixed runs of boxes from the start); from there on each block takes its new boxes, refilled if
   * it was drawn. False when it cannot (the caller draws the column anew).
   * @param {Column} c
   * @param {import("./core.js").Geometry} prev
   * @param {import("./core.js").Geometry} g
   */
  reblock(c, prev, g) {
    if (!c.splice || c.blocks.length < 2 || !c.observer || !c.ids.length) return false;
    const ranges = blocks(g.boxes.length - 1, BLOCK);
    if (ranges.length < 2) return false;
    const from = Math.floor(Math.min(boxOf(prev, c.splice.at), boxOf(g, c.splice.at)) / BLOCK);
    while (c.blocks.length > ranges.length) {
      const b = /** @type {{ el: HTMLElement }} */ (c.blocks.pop());
      c.observer.unobserve(b.el);
      b.el.remove();
    }
    while (c.blocks.length < ranges.length) {
      const [a, z] = ranges[c.blocks.length];
      this.addBlock(c, g, a, z, ranges.length);
    }
    for (let k = Math.max(0, from); k < ranges.length; k++) {
      const b = c.blocks[k];
      [b.from, b.to] = ranges[k];
      if (b.filled) {
        b.filled = false;
        this.fill(c, k);
      }
    }
    c.spans.dataset.tokens = String(c.ids.length);
    return true;
  }

  /**
   * Redraw only the lines an edit changed (a short text, drawn in one block): the lines before the splice and
   * after it stay, the boxes after it renumbered. False when it cannot (the caller draws the column anew).
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
    const box = (/** @type {number} */ k) => block.el.querySelector(`:scope > .tkz-line > [data-b="${k}"]`);
    const start = head < oldN ? box(head) : null, end = oldTail < oldN ? box(oldTail) : null;
    const line = (start ?? box(oldN - 1))?.parentElement;
    if (!line || (head < oldN && !start) || (oldTail < oldN && !end)) return false;
    // within a line (no line feed among the boxes changed, before or after): only the changed boxes drawn again
    let from = head, to = newTail, next = end;
    let inLine = (end ? end.parentElement === line : !line.nextElementSibling) && (to > from || !!end || start !== line.firstElementChild);
    for (let k = head; inLine && k < newTail; k++) inLine = !endsLine(g, text, k);
    if (inLine) {
      if (start) {
        const range = document.createRange();
        range.setStartBefore(start);
        if (end) range.setEndBefore(end);
        else range.setEndAfter(/** @type {Node} */ (line.lastChild));
        range.deleteContents();
      }
      const parts = [];
      for (let k = head; k < newTail; k++) {
        parts.push(this.boxHtml(c, g, text, this.app.colors, k, g.boxes[k], g.boxes[k + 1], this.app.whole));
      }
      const html = (parts.length && !start && head > 0 ? "<wbr>" : "") + parts.join("<wbr>") + (parts.length && end ? "<wbr>" : "");
      if (end) end.insertAdjacentHTML("beforebegin", html);
      else line.insertAdjacentHTML("beforeend", html);
    } else {
      const drawn = redrawLines(block.el, g, text, [head, oldTail, newTail, oldN], (a, z) => this.linesHtml(c, g, text, a, z));
      if (!drawn) return false;
      [from, to, next] = drawn;
    }
    if (newTail !== oldTail || ins !== del) {
      // the boxes after the edit moved: renumber them (to the end of their line, then the lines after it)
      for (let el = /** @type {HTMLElement | null} */ (next), k = to; el;) {
        if (el.classList.contains("bpe-tok")) {
          el.dataset.b = String(k);
          el.dataset.i = String(g.boxes[k]);
          k += 1;
        }
        el = /** @type {HTMLElement | null} */ (el.nextElementSibling ?? el.parentElement?.nextElementSibling?.firstElementChild ?? null);
      }
    }
    block.to = newN;
    c.spans.dataset.tokens = String(c.ids.length);
    this.stats.drawn += to - from;
    return true;
  }

  /**
   * Boxes ``from``..``to`` as HTML, a block (``tkz-line``) for each line of the text: an edit lays out and
   * paints its own line again, not the column's every box (one inline run of ~300 boxes in each of six columns
   * took most of a keystroke's frame). A line ends where the text's does, so the lines look as one run would.
   * @param {Column} c
   * @param {import("./core.js").Geometry} g
   * @param {string} text
   * @param {number} from
   * @param {number} to
   */
  linesHtml(c, g, text, from, to) {
    const { colors, whole } = /** @type {AppData} */ (this.app);
    let out = '<div class="tkz-line">';
    for (let box = from; box < to; box++) {
      const html = this.boxHtml(c, g, text, colors, box, g.boxes[box], g.boxes[box + 1], whole);
      // (a line's end but the text's: its line feed is the block's end, not a character too -- copied, two)
      const ends = box + 2 < g.boxes.length && endsLine(g, text, box);
      out += (ends ? html.replace(/\n<\/span>$/, "</span>") : html) + (box + 1 === to ? "" : ends ? '</div><div class="tkz-line">' : "<wbr>");
    }
    return out + "</div>";
  }

  /**
   * @param {Column} c
   * @param {number} k
   */
  fill(c, k) {
    const b = c.blocks[k];
    if (!b || b.filled || !c.geo || !this.app) return;
    b.el.innerHTML = this.linesHtml(c, c.geo, this.textOf(c), b.from, b.to);
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
}
