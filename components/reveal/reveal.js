// @ts-check
// ``reveal``: brings a part of the page into view once, when Python asks (components/reveal/__init__.py).
// Python sends {selector, seq, mode}: a new positive ``seq`` (an event: a live room started, presenter view
// turned on) scrolls once; seq 0 (every other run) does nothing, so a rerun or a reload never scrolls.
// mode "top": the scrolling container that holds ``selector`` goes back to its top (presenter view: the page
// from its start, the player first); "nearest": the least scroll that shows the whole element (the element is
// shorter than the screen), as scrollIntoView({block: "nearest"}) does. Draws nothing; sends nothing back.

/** @type {WeakMap<Node, number>} */
const DONE = new WeakMap(); // parentElement -> the last seq acted on

/**
 * Whether a request is new: a positive seq other than the last one acted on.
 * @param {unknown} seq
 * @param {number | undefined} last
 * @returns {boolean}
 */
export function isNew(seq, last) {
  return typeof seq === "number" && Number.isInteger(seq) && seq > 0 && seq !== last;
}

/**
 * The nearest ancestor of ``el`` that scrolls vertically (the document's scroller when none does).
 * @param {Element} el
 * @returns {Element}
 */
function scroller(el) {
  for (let p = el.parentElement; p; p = p.parentElement) {
    const y = getComputedStyle(p).overflowY;
    if ((y === "auto" || y === "scroll") && p.scrollHeight > p.clientHeight) return p;
  }
  return document.scrollingElement || document.documentElement;
}

/**
 * @param {{ data: { selector?: unknown, seq?: unknown, mode?: unknown } | null,
 *   parentElement: HTMLElement | ShadowRoot }} args
 */
export default function mount({ data, parentElement }) {
  if (!data || typeof data.selector !== "string" || !isNew(data.seq, DONE.get(parentElement))) return;
  DONE.set(parentElement, /** @type {number} */ (data.seq));
  const selector = data.selector;
  const mode = data.mode === "top" ? "top" : "nearest";
  // two frames: the elements of this run are laid out (the room's panel is drawn in the same run)
  requestAnimationFrame(() => requestAnimationFrame(() => {
    const target = document.querySelector(selector);
    if (!target) return;
    if (mode === "top") scroller(target).scrollTo({ top: 0, behavior: "instant" });
    else target.scrollIntoView({ block: "nearest", behavior: "instant" });
  }));
}
