// @ts-check
// The merge player's status lines (components/merge_player): the merge on screen (its pair, its count, the tie
// rule) or a replay's step (its rank, how often it fires, what tiktoken does differently), and the token counts.
// A layer of the player, on the one before it (player.js lists them).
import { bytesPerToken, fmt, plural } from "./core.js";
import { Charts } from "./charts.js";
import { el } from "./dom.js";

export class StatusLines extends Charts {
  /** @type {HTMLDivElement} */ status;
  /** @type {HTMLDivElement} */ line1;
  /** @type {HTMLDivElement} */ line2;
  /** @type {HTMLDivElement} */ line3;

  /** @param {HTMLElement | ShadowRoot} host */
  constructor(host) {
    super(host);
    this.status = el("div", "mp-status");
    this.status.setAttribute("aria-live", "polite");
    this.line1 = el("div", "mp-line1");
    this.line2 = el("div", "mp-line2");
    this.line3 = el("div", "mp-line3");
    this.line3.hidden = true;
    this.status.append(this.line1, this.line2, this.line3);
  }

  /** @param {number} k */
  drawStatus(k) {
    const run = this.theRun;
    if (run.replay) return this.drawReplayStatus(k);
    const n = run.n;
    /** @type {Array<string | Node>} */
    const l1 = [];
    const head = el("b", "mp-k", `Merge ${fmt(k)} / ${fmt(n)}`);
    if (k === 0) {
      l1.push(head, ` — nothing merged yet: one token per ${run.unit}` +
        (run.isFallback.size ? " (one <0xNN> per byte of a character outside the alphabet)." : "."));
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
        extra += `; tied with ${ties}${run.cappedAt.has(r) ? "+" : ""} other ${plural(ties, "pair")}, ${run.tie}`;
      }
      l1.push(head, ": ", this.chip(run.pair[2 * r]), " + ", this.chip(run.pair[2 * r + 1]), " → ",
        this.chip(id, true), " ", el("span", "mp-sub", extra + ")"));
    }
    this.line1.replaceChildren(...l1);
    const now = run.tokens[k];
    const before = run.tokens[0];
    /** @type {Array<string | Node>} */
    const parts = ["Training text: ", el("b", "mp-count", fmt(now)), ` ${plural(now, "token")}`];
    if (k) parts.push(` (from ${fmt(before)}: −${fmt(before - now)})`);
    let tail = `, ${bytesPerToken(run.bytes, now)} bytes per token · vocabulary ` +
      fmt(run.base + k + run.specials);
    if (k === n && !run.complete) tail += ` · stopped early: ${run.stop}`;
    parts.push(tail);
    const lag = this.lagNote();
    if (lag) parts.push(el("span", "mp-batch", lag));
    this.line2.replaceChildren(...parts);
  }

  // the status line of a replay: the step's merge, its rank, how often it fires, and (a third line) where
  // the vocabulary's rank order does something a list of learned pairs would not
  /** @param {number} k */
  drawReplayStatus(k) {
    const run = this.theRun;
    const n = run.n;
    const r = k - 1;
    const head = el("b", "mp-k", `Step ${fmt(k)} / ${fmt(n)}`);
    /** @type {Array<string | Node>} */
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
          `${fmt(times)} ${plural(times, "time")} in the text)`));
    }
    this.line1.replaceChildren(...l1);
    const now = run.tokens[k];
    const before = run.tokens[0];
    /** @type {Array<string | Node>} */
    const parts = ["Your text: ", el("b", "mp-count", fmt(now)), ` ${plural(now, "token")}`];
    if (k) parts.push(` (from ${fmt(before)}: −${fmt(before - now)})`);
    parts.push(`, ${bytesPerToken(run.bytes, now)} bytes per token`);
    if (k === n && n) parts.push(` · the end: exactly the ids ${run.vocab}'s tokenizer gives this text`);
    const lag = this.lagNote();
    if (lag) parts.push(el("span", "mp-batch", lag));
    this.line2.replaceChildren(...parts);
    /** @type {HTMLSpanElement[]} */
    const notes = [];
    const key = String(r);
    if (k && run.alt[key]) {
      const alt = run.alt[key];
      /** @type {Array<string | Node>} */
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
      const e = el("span", "mp-diff", `A merge that had to wait: ${fmt(c)} lower-ranked ${plural(c, "merge")} ` +
        "could only happen after this one, so they happen in this step too.");
      e.dataset.kind = "cascade";
      notes.push(e);
    }
    this.line3.replaceChildren(...notes);
    this.line3.hidden = !notes.length;
  }
}
