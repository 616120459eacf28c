// @ts-check
// The Tokenize view's big-text mode (issue 31): a text over FOLD_AT characters is never put in the text area,
// whose layout of a megabyte held Chromium's main thread 0.3-2.6 s (ShapeText, font fallback; no CSS moved it).
// A paste, a drop or inserted text that would make the text that long is taken from its event (the default is
// prevented) and kept here; the box is replaced by a compact fold: the text's size, its first lines, a field
// whose typing goes in at the caret, and "Edit the text" (the text back in the box, its layout paid once, on a
// click that says so), "Copy all", "Clear the text". The view (tokenize.js) reads the text from here (``value``) and sends
// what changed as an edit, as for typing. Pure parts exported for node --test (bigtext.test.js).

import { charCount } from "./edits.js";

/** Texts longer than this (UTF-16 units) are folded: the text area's layout passes ~100 ms near 50-100 K here. */
export const FOLD_AT = 100_000;
/** The fold's first lines: at most this many characters and lines. */
const HEAD_CHARS = 1500;
const HEAD_LINES = 4;

/** @param {number} c */
function isHigh(c) {
  return c >= 0xd800 && c <= 0xdbff;
}

/** @param {number} c */
function isLow(c) {
  return c >= 0xdc00 && c <= 0xdfff;
}

/**
 * Whether a text of ``length`` UTF-16 units is shown folded instead of in the text area.
 * @param {number} length
 */
export function folds(length) {
  return length > FOLD_AT;
}

/** A text put in a box that holds a big text already ("Edit the text") is folded only when it is this long. */
const BIG_INSERT = 10_000;

/**
 * Whether an insertion in the box folds the text: it makes it big, and either the box held no big text (a
 * paste or a drop into an ordinary text) or the insertion is big itself. Typing and small pastes in a big text
 * the user chose to edit in the box ("Edit the text") stay in the box.
 * @param {number} boxLength  the box's text before (UTF-16 units)
 * @param {number} removed  units replaced (the selection)
 * @param {number} inserted  units inserted
 */
export function foldsInsert(boxLength, removed, inserted) {
  if (!folds(boxLength - removed + inserted)) return false;
  return !folds(boxLength) || inserted >= BIG_INSERT;
}

/**
 * The text an insertion makes, as the text area would: ``ins`` (line ends made "\n", as a text area's value
 * has them) in place of ``value.slice(start, end)``, cut to fit ``max`` UTF-16 units as the box's ``maxLength``
 * cuts a paste (never between the halves of a surrogate pair).
 * @param {string} value
 * @param {number} start
 * @param {number} end
 * @param {string} ins
 * @param {number} [max]
 * @returns {{ text: string, caret: number, cut: number }}  ``caret``: after the insertion; ``cut``: units left out
 */
export function insertAt(value, start, end, ins, max = Infinity) {
  const put0 = ins.replace(/\r\n?/g, "\n");
  const room = Math.max(0, max - (value.length - (end - start)));
  let put = put0;
  if (put.length > room) {
    let k = room;
    if (k > 0 && isHigh(put.charCodeAt(k - 1))) k--;
    put = put.slice(0, k);
  }
  return { text: value.slice(0, start) + put + value.slice(end), caret: start + put.length, cut: put0.length - put.length };
}

/**
 * A Backspace (``back``) or Delete at ``caret``: one character (a surrogate pair whole) removed.
 * @param {string} value
 * @param {number} caret
 * @param {boolean} back
 * @returns {{ text: string, caret: number }}
 */
export function deleteAt(value, caret, back) {
  if (back) {
    if (caret <= 0) return { text: value, caret: 0 };
    const k = caret >= 2 && isLow(value.charCodeAt(caret - 1)) && isHigh(value.charCodeAt(caret - 2)) ? 2 : 1;
    return { text: value.slice(0, caret - k) + value.slice(caret), caret: caret - k };
  }
  if (caret >= value.length) return { text: value, caret };
  const k = isHigh(value.charCodeAt(caret)) && isLow(value.charCodeAt(caret + 1)) ? 2 : 1;
  return { text: value.slice(0, caret) + value.slice(caret + k), caret };
}

/**
 * The start of ``text`` the fold shows: at most ``lines`` lines and ``chars`` units, never half a pair.
 * @param {string} text
 * @param {number} [chars]
 * @param {number} [lines]
 */
export function headOf(text, chars = HEAD_CHARS, lines = HEAD_LINES) {
  let end = Math.min(text.length, chars);
  let at = -1;
  for (let i = 0; i < lines; i++) {
    at = text.indexOf("\n", at + 1);
    if (at < 0 || at >= end) break;
    if (i === lines - 1) end = at;
  }
  if (end > 0 && end < text.length && isHigh(text.charCodeAt(end - 1))) end--;
  return text.slice(0, end);
}

/**
 * What comes just before ``caret`` (the end of its line, at most ``chars`` units), for "typing goes in after …".
 * @param {string} text
 * @param {number} caret
 * @param {number} [chars]
 */
export function beforeCaret(text, caret, chars = 40) {
  let from = Math.max(0, caret - chars);
  const nl = text.lastIndexOf("\n", caret - 1);
  if (nl >= from) from = nl + 1;
  if (from > 0 && isLow(text.charCodeAt(from))) from++;
  return text.slice(from, caret);
}

/** @param {number} n */
const fmt = (n) => n.toLocaleString("en-US");

/**
 * @typedef {Object} BigTextHooks
 * @property {() => void} edited  the text changed (the view sends the edit and saves the text)
 * @property {() => number} max  the box's limit (UTF-16 units)
 */

/** The fold in place of the text area for a big text, and the events that fill it. */
export class BigText {
  /**
   * @param {HTMLTextAreaElement} box  the view's text area (the fold goes right after it)
   * @param {HTMLLabelElement} label  its label (points at the fold's field while folded)
   * @param {BigTextHooks} hooks
   */
  constructor(box, label, hooks) {
    this.box = box;
    this.label = label;
    this.hooks = hooks;
    /** @type {string | null} the whole text while folded (null: the text is the box's) */
    this.folded = null;
    /** where typing goes in the folded text (UTF-16 index) */
    this.caretAt = 0;
    /** units of the last insertion left out (the box's limit) */
    this.cut = 0;
    const el = document.createElement("div");
    el.className = "tkz-fold";
    el.hidden = true;
    el.setAttribute("role", "group");
    el.setAttribute("aria-label", "A big text, folded");
    el.innerHTML =
      '<div class="tkz-fold-size"></div><pre class="tkz-fold-text" tabindex="0" aria-label="The text\'s first lines"></pre>' +
      '<div class="tkz-fold-bar"><button type="button" class="tkz-fold-edit">Edit the text</button>' +
      '<button type="button" class="tkz-fold-copy">Copy all</button><button type="button" class="tkz-fold-clear">Clear the text</button>' +
      '<textarea class="tkz-fold-input" rows="1" spellcheck="false" autocomplete="off"></textarea>' +
      '<span class="tkz-fold-said" aria-live="polite"></span></div><div class="tkz-fold-why"></div>';
    box.after(el);
    const find = (/** @type {string} */ sel) => /** @type {HTMLElement} */ (el.querySelector(sel));
    this.el = el;
    this.size = find(".tkz-fold-size");
    this.head = find(".tkz-fold-text");
    this.why = find(".tkz-fold-why");
    this.said = find(".tkz-fold-said");
    this.input = /** @type {HTMLTextAreaElement} */ (find(".tkz-fold-input"));
    this.input.id = box.id + "-fold";
    this.boxId = box.id;
    // a paste, a drop or inserted text (an IME's, a tool's) that makes a big text: taken before the box holds it
    box.addEventListener("paste", (e) => this.onPaste(e, false));
    box.addEventListener("beforeinput", (e) => this.onBeforeInput(e));
    // while folded, the field's typing, pastes and deletions go in at the caret
    this.input.addEventListener("paste", (e) => this.onPaste(e, true));
    this.input.addEventListener("input", (e) => {
      if (!(/** @type {InputEvent} */ (e).isComposing)) this.takeTyped();
    });
    this.input.addEventListener("compositionend", () => this.takeTyped());
    this.input.addEventListener("keydown", (e) => this.onKey(e));
    find(".tkz-fold-edit").addEventListener("click", () => this.unfold(true));
    find(".tkz-fold-clear").addEventListener("click", () => this.clear());
    find(".tkz-fold-copy").addEventListener("click", () => this.copy());
  }

  /** The view's text: the folded one, or the box's. */
  get value() {
    return this.folded ?? this.box.value;
  }

  /** Where the last change ended (the hint of the edit sent). */
  get caret() {
    return this.folded !== null ? this.caretAt : this.box.selectionEnd;
  }

  /**
   * Show ``text`` (Python's, or one this browser saved): folded when big, else in the box.
   * @param {string} text
   */
  set(text) {
    if (text === this.value) return;
    this.cut = 0;
    if (folds(text.length)) this.fold(text, text.length, false);
    else {
      this.show();
      this.box.value = text;
    }
  }

  /**
   * @param {string} text
   * @param {number} caret
   * @param {boolean} focus  move the focus to the fold's field (the box had it)
   */
  fold(text, caret, focus) {
    this.folded = text;
    this.caretAt = caret;
    if (this.box.value) this.box.value = ""; // (nothing big left in a text area)
    this.box.hidden = true;
    this.el.hidden = false;
    this.label.htmlFor = this.input.id;
    this.said.textContent = "";
    this.render();
    if (focus) this.input.focus();
  }

  /** The box back (empty or as it is); the fold hidden. */
  show() {
    this.folded = null;
    this.el.hidden = true;
    this.box.hidden = false;
    this.label.htmlFor = this.boxId;
  }

  /**
   * "Edit the text": the whole text in the box (its layout paid here, once), the caret where typing went.
   * @param {boolean} focus
   */
  unfold(focus) {
    const text = this.folded;
    if (text === null) return;
    this.show();
    this.box.value = text;
    if (focus) {
      this.box.focus();
      this.box.setSelectionRange(this.caretAt, this.caretAt);
    }
  }

  clear() {
    this.show();
    this.box.value = "";
    this.box.focus();
    this.hooks.edited();
  }

  async copy() {
    const text = this.value;
    try {
      await navigator.clipboard.writeText(text);
      this.said.textContent = `Copied ${fmt(charCount(text))} characters.`;
    } catch {
      this.said.textContent = "The browser refused the clipboard: use Edit the text, then copy from the box.";
    }
  }

  render() {
    const text = /** @type {string} */ (this.folded);
    let lines = 1;
    for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) lines += 1;
    const head = headOf(text);
    const chars = fmt(charCount(text)); // (as Python counts them, and the count under the box)
    this.size.textContent =
      `A big text: ${chars} characters, ${fmt(lines)} lines. Every column tokenizes all of it; ` +
      `only its start is shown here (laying ${chars} characters out in a text box holds the page ` +
      "for seconds)." + (this.cut ? ` The paste was ${fmt(this.cut)} characters over the box's limit of ` +
      `${fmt(this.hooks.max())}: its end was left out.` : "");
    this.head.textContent = head + (head.length < text.length ? "\n…" : "");
    const before = beforeCaret(text, this.caretAt, 24); // (short: one line on a phone)
    this.input.placeholder = before ? `Type to add after “${before}”` :
      this.caretAt >= text.length ? "Type to add at the end" : "Type to add at the caret";
    this.input.setAttribute("aria-label", `Type to add to the text at character ${fmt(this.caretAt)}`);
    this.why.textContent = `Edit the text puts all ${chars} characters in the box: the page may pause ` +
      "a second or two while the browser lays them out.";
  }

  /**
   * Put ``ins`` in place of ``[start, end)`` of the text; folded (and the edit sent) when the result is big or
   * the text is folded already. Returns whether it was taken (the event's default is then prevented).
   * @param {string} ins
   * @param {number} start
   * @param {number} end
   * @param {boolean} focus
   */
  insert(ins, start, end, focus) {
    const r = insertAt(this.value, start, end, ins, this.hooks.max());
    if (this.folded === null && !folds(r.text.length)) return false; // (cut to the limit: not big after all)
    this.cut = r.cut;
    this.fold(r.text, r.caret, focus);
    this.hooks.edited();
    return true;
  }

  /**
   * @param {ClipboardEvent} e
   * @param {boolean} inFold  a paste in the fold's field (at the caret), else in the box (at its selection)
   */
  onPaste(e, inFold) {
    const data = e.clipboardData?.getData("text/plain") ?? "";
    if (!data) return;
    const [start, end] = inFold ? [this.caretAt, this.caretAt] : [this.box.selectionStart, this.box.selectionEnd];
    if (inFold || foldsInsert(this.box.value.length, end - start, data.length)) {
      if (this.insert(data, start, end, true)) e.preventDefault();
    }
  }

  /** @param {InputEvent} e  inserted text (a drop, an IME's or a tool's insertion) that would make a big text */
  onBeforeInput(e) {
    if (!/^insert(Text|FromPaste|FromDrop|ReplacementText)$/.test(e.inputType) || e.isComposing) return;
    const data = e.data ?? e.dataTransfer?.getData("text/plain") ?? "";
    const b = this.box;
    if (!data || !foldsInsert(b.value.length, b.selectionEnd - b.selectionStart, data.length)) return;
    if (this.insert(data, this.box.selectionStart, this.box.selectionEnd, true)) e.preventDefault();
  }

  /** What was typed in the fold's field goes in at the caret; the field is left empty. */
  takeTyped() {
    const typed = this.input.value;
    if (!typed || this.folded === null) return;
    this.input.value = "";
    this.insert(typed, this.caretAt, this.caretAt, false);
  }

  /** @param {KeyboardEvent} e  Backspace / Delete in the empty field: the character before / after the caret */
  onKey(e) {
    if (this.folded === null || this.input.value || e.isComposing) return;
    if (e.key !== "Backspace" && e.key !== "Delete") return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    e.preventDefault();
    const r = deleteAt(this.folded, this.caretAt, e.key === "Backspace");
    if (r.text === this.folded) return;
    this.folded = r.text;
    this.caretAt = r.caret;
    this.render();
    this.hooks.edited();
  }
}
