// @ts-check
// The Tokenize view's hover: the characters under the pointer lit up in every column, with the ids of the
// tokens that cover them in each (tokensOver: core.js). TokenizeView (tokenize.js) extends HoverView.
import { boxOf, tokenLabel, tokensOver } from "./core.js";
import { ColumnsView } from "./columns.js";

export class HoverView extends ColumnsView {
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
}
