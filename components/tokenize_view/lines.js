// @ts-check
// A column's boxes are drawn a block (``tkz-line``) for each line of the text (columns.js): an edit lays out and
// paints its own line again, not the column's every box. These are the lines' parts an edit that adds or removes
// a line feed needs.

/**
 * Whether box ``k`` ends a line of the text (its last character is a line feed).
 * @param {import("./core.js").Geometry} g
 * @param {string} text
 * @param {number} k
 */
export function endsLine(g, text, k) {
  const s = g.cs[g.boxes[k]], e = g.ce[g.boxes[k + 1] - 1];
  return e > s && text.charCodeAt(e - 1) === 10;
}

/**
 * An edit that adds or removes a line feed: the lines holding the changed boxes (an insertion between boxes: the
 * line of the box after it) drawn again whole, and the next line too while the part drawn no longer ends a line.
 * Returns the boxes drawn ``[from, to)`` (new numbering) and the first box after them, or null when it cannot.
 * @param {HTMLElement} el  the block of lines
 * @param {import("./core.js").Geometry} g  the new geometry
 * @param {string} text
 * @param {[number, number, number, number]} splice  head (first changed box), the old and new tails (first
 *   unchanged box after), the old box count
 * @param {(from: number, to: number) => string} linesHtml  boxes ``from``..``to`` as lines
 * @returns {[number, number, Element | null] | null}
 */
export function redrawLines(el, g, text, [head, oldTail, newTail, oldN], linesHtml) {
  const lineOf = (/** @type {number} */ k) => el.querySelector(`:scope > .tkz-line > [data-b="${k}"]`)?.parentElement ?? null;
  const firstBox = (/** @type {Element | null} */ line) =>
    line ? Number(/** @type {HTMLElement} */ (line.firstElementChild)?.dataset.b) : oldN;
  const first = lineOf(Math.min(head, oldN - 1));
  /** @type {Element | null} */
  let last = lineOf(Math.min(oldN - 1, Math.max(head, oldTail - 1)));
  if (!first || !last) return null;
  const from = firstBox(first), shift = newTail - oldTail;
  let to = firstBox(last.nextElementSibling) + shift;
  for (let next; to > from && (next = last.nextElementSibling) && !endsLine(g, text, to - 1);) {
    last = next;
    to = firstBox(next.nextElementSibling) + shift;
  }
  if (!(from <= head && to >= newTail && to <= g.boxes.length - 1)) return null;
  const after = last.nextElementSibling;
  while (first.nextElementSibling && first.nextElementSibling !== after) first.nextElementSibling.remove();
  first.remove();
  const html = to > from ? linesHtml(from, to) : "";
  if (after) after.insertAdjacentHTML("beforebegin", html);
  else el.insertAdjacentHTML("beforeend", html);
  return [from, to, after?.firstElementChild ?? null];
}
