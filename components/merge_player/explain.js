// @ts-check
// The merge player's explanation of a clicked token (components/merge_player): how it was built, in a sentence
// and as a tree of the merges that made it, in a box next to the token that follows it when the text scrolls.
// A layer of the player, on the one before it (player.js lists them).
import { fmt, madeAt, plural } from "./core.js";
import { TokenText } from "./text.js";
import { el } from "./dom.js";

/** @import { Run } from "./core.js" */

export class Explain extends TokenText {
  /** @type {number | undefined} */ explainK;
  /** @type {HTMLElement | null} */ explainTok;
  /** @type {HTMLDivElement} */ explainBox;

  /** @param {HTMLElement | ShadowRoot} host */
  constructor(host) {
    super(host);
    this.explainTok = null;
    // a clicked token's explanation, drawn next to the token (the page's panel 4 follows too)
    this.explainBox = el("div", "mp-explain");
    this.explainBox.hidden = true;
    this.explainBox.setAttribute("role", "dialog");
    this.explainBox.setAttribute("aria-label", "How this token was built");
    this.tokens.addEventListener("scroll", () => this.placeExplain(), { passive: true });
    this.textSection.append(this.explainBox);
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
}
