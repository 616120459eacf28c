// @ts-check
// ``reveal``: brings a part of the page into view once, when Python asks (components/reveal/__init__.py).
// Python sends {selector, seq, mode} on every run: ``seq`` counts the events so far (a live room started,
// presenter view turned on; 0: none yet) and a value not acted on yet scrolls once. Not "a positive seq in
// the event's run only": a busy browser draws that run and the next one (the room's one-second refresh) in one
// React render, and the event's value never reached this function (issue 34's room question, under load).
// What was acted on is kept per selector in this module (one instance per page: Streamlit caches the
// module's URL), so a remounted element, a rerun or a page revisited in the session never scrolls again.
// mode "top": the scrolling container that holds ``selector`` goes back to its top (presenter view: the page
// from its start, the player first); "nearest": the least scroll that shows the whole element (the element is
// shorter than the screen), as scrollIntoView({block: "nearest"}) does; with ``blur``, a control focused in the
// sidebar lets go of the focus (presenter view's switch: the next key is the page's). Draws nothing; sends
// nothing back.

/** @type {Map<string, number>} */
const DONE = new Map(); // "mode selector" -> the last seq acted on

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
 * @param {{ data: { selector?: unknown, seq?: unknown, mode?: unknown, blur?: unknown } | null }} args
 */
export default function mount({ data }) {
  if (!data || typeof data.selector !== "string") return;
  const selector = data.selector;
  const mode = data.mode === "top" ? "top" : "nearest";
  const id = `${mode} ${selector}`;
  if (!isNew(data.seq, DONE.get(id))) return;
  DONE.set(id, /** @type {number} */ (data.seq));
  // two frames: the elements of this run are laid out (the room's panel is drawn in the same run)
  requestAnimationFrame(() => requestAnimationFrame(() => {
    const target = document.querySelector(selector);
    if (!target) { // not drawn (yet): a later run with the same seq tries again
      if (DONE.get(id) === data.seq) DONE.delete(id);
      return;
    }
    if (mode === "top") {
      scroller(target).scrollTo({ top: 0, behavior: "instant" });
      // the control just used (presenter view's switch) stays focused in the sidebar that closed: keys would
      // go to it, and Streamlit's shortcuts and the player ignore keys typed in a control, so a clicker's first
      // PageDown did nothing; the page takes the keys instead
      const active = document.activeElement;
      if (data.blur && active instanceof HTMLElement && active.closest("[data-testid=stSidebar]")) active.blur();
    } else target.scrollIntoView({ block: "nearest", behavior: "instant" });
  }));
}
