// @ts-check
// The merge player's text as tokens (components/merge_player): the text window drawn at a step, one block per
// line and one span per pre-tokenizer chunk; a few merges applied in place, token by token; the tokens that split
// a character grouped under it; the two tokens of a merge joining.
// A layer of the player, on the one before it (player.js lists them).
import { endsLine, fmt, plural, splitsChar, visibleAt, visibleIn } from "./core.js";
import { StatusLines } from "./status.js";
import { el, setVar } from "./dom.js";

export const TEXT_CAP = {
  train: "Each token keeps its color from step to step; the outlined ones were made by this merge. · space, " +
    "→ tab, ↵ line break; a dark bar starts a pre-tokenizer chunk (no merge crosses it); dashed boxes are " +
    "bytes of a character not yet whole, with the character above them. Click a token to see how it was built.",
  replay: "Each token keeps its color from step to step; the outlined ones were made by this step. · space, " +
    "→ tab, ↵ line break; a dark bar starts a pre-tokenizer chunk (no merge crosses it); dashed boxes are " +
    "bytes of a character not yet whole, with the character above them. Click a token to see how the " +
    "vocabulary builds it.",
};

// a SentencePiece-style run or vocabulary: its text is characters, and the rare ones are byte-fallback tokens
export const FALLBACK_CAP = "Each token keeps its color from step to step; the outlined ones were made by this %s. ▁ is a " +
  "space (glued to the next word), ↵ a line break; a dark bar starts a chunk (no merge crosses it); orange " +
  "<0xNN> boxes are byte-fallback tokens: a character outside the alphabet, written as its UTF-8 bytes, with " +
  "the character above them. Click a token to see how it was built.";

const STEPWISE = 32; // up to this many merges are applied to the drawn text one by one; more: redrawn whole

export class TokenText extends StatusLines {
  /** @type {Array<HTMLSpanElement | undefined> | null} the window's nodes' elements, made when first drawn */ nodeEls;
  /** @type {number | null} */ drawnK;
  /** @type {number} */ visibleCount;
  /** @type {Set<ReturnType<typeof setTimeout>>} */ joinTimers;
  /** @type {HTMLParagraphElement} */ textCap;
  /** @type {HTMLDivElement} */ tokens;
  /** @type {HTMLDivElement} */ shown;
  /** @type {HTMLElement} */ textSection;

  /** @param {HTMLElement | ShadowRoot} host */
  constructor(host) {
    super(host);
    this.joinTimers = new Set();
    this.nodeEls = null;
    this.drawnK = null;
    this.visibleCount = 0;
    const text = el("section", "mp-panel mp-text");
    this.textCap = el("p", "mp-capline", TEXT_CAP.train);
    text.append(el("h3", "", "2 · The text as tokens"), this.textCap);
    this.tokens = el("div", "mp-tokens");
    this.shown = el("div", "mp-shown");
    this.textSection = text;
    text.append(this.tokens, this.shown);
  }

  /** The elements of the window's nodes (made when first drawn). */
  get theNodes() {
    if (!this.nodeEls) throw new Error("the player has no text window to draw");
    return this.nodeEls;
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
