// @ts-check
// The Tokenize view's click, its pure part: the characters of the box clicked, and every column's boxes over
// them (the view outlines them all, and the trace Python sends follows each column's own tokens over those
// characters: views/trace.py's covering_pieces). Joined after core.js (components/tokenize_view/__init__.py).
import { boxOf, tokensOver } from "./core.js";

/**
 * The characters (UTF-16 indices ``[from, to)``) of box ``box`` of a column laid out as ``g``.
 * @param {import("./core.js").Geometry} g
 * @param {number} box
 * @returns {[number, number]}
 */
export function boxSpan(g, box) {
  const a = g.boxes[box], z = g.boxes[box + 1];
  return [g.cs[a], g.ce[z - 1]];
}

/**
 * The boxes of a column laid out as ``g`` holding its tokens over the characters ``[from, to)``, in order,
 * each once.
 * @param {import("./core.js").Geometry} g
 * @param {number} from
 * @param {number} to
 * @returns {number[]}
 */
export function boxesOver(g, from, to) {
  const [f, l] = tokensOver(g, from, to);
  /** @type {number[]} */
  const out = [];
  for (let i = f; i < l; i++) {
    const b = boxOf(g, i);
    if (out[out.length - 1] !== b) out.push(b);
  }
  return out;
}

/**
 * Outline, in every column but ``src`` laid on the same text, its own boxes over the characters of ``src``'s
 * box ``box`` (the trace follows each column's own tokens over them).
 * @param {{ geo: import("./core.js").Geometry | null, tid: string }} src
 * @param {Iterable<{ geo: import("./core.js").Geometry | null, tid: string, spans: HTMLElement }>} cols
 * @param {number} box
 */
export function outlineCovering(src, cols, box) {
  if (!src.geo) return;
  const [from, to] = boxSpan(src.geo, box);
  for (const c of cols) {
    if (c === src || !c.geo || c.tid !== src.tid) continue;
    for (const b of boxesOver(c.geo, from, to)) c.spans.querySelector(`[data-b="${b}"]`)?.classList.add("tkz-picked");
  }
}
