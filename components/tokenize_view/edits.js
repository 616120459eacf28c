// @ts-check
// The Tokenize view's conversation, pure parts (no DOM): an edit found between two texts (sent to Python
// instead of the text: appstate/tokenize_live.py), positions in code points (Python's), the packed arrays
// Python sends (little-endian integers), and a splice of such arrays. Unit-tested in edits.test.js.

/**
 * @typedef {Object} TextEdit  ``next = prev.slice(0, at) + ins + prev.slice(at + del.length)`` (UTF-16 indices)
 * @property {number} at
 * @property {string} del  the characters removed
 * @property {string} ins  the characters inserted
 */

/**
 * @typedef {Object} ColumnMail  One column in a mail (absent: unchanged).
 * @property {string} key
 * @property {string} slug
 * @property {number} v  its version after this mail
 * @property {number | null} base  the version the splice applies to (null: ids/lens are the whole column)
 * @property {number} [at]
 * @property {number} [del]
 * @property {Packed} [ids]  absent: the column did not change
 * @property {Packed} [lens]  each token's length in UTF-8 bytes
 * @property {"B" | "H" | "I"} [lw]  (base64 packing only: the lengths' width)
 * @property {number[]} [special]  indices of special tokens
 * @property {Array<[number, string]>} [unk]  unknown tokens: index, the characters they stand for
 * @property {string | null} [text]  the text this tokenizer encoded, when it normalized the page's
 * @property {[number, number, string]} [textSplice]  how that text changed since the base version
 * @property {string} [head]  the column's head (escaped HTML from Python)
 */

/**
 * @typedef {Object} Mail  What Python sends after an edit (appstate/tokenize_live.py).
 * @property {string} tid  which text was encoded: "<seq>:<n>" (n = 0: Python's own text)
 * @property {string[]} order  the columns' keys, in page order
 * @property {ColumnMail[]} cols
 * @property {string} [compare]  the comparison table (escaped HTML), when it changed
 * @property {boolean} [resync]  Python lost track of the text: send it whole
 * @property {{ n: number, html: string }} [trace]  the answer to a click
 * @property {boolean} [preview]  a big paste's first screen: every column's first tokens, whole (preview.js)
 * @property {boolean} [rest]  a fresh page's first run: once drawn, report ``drawn`` (Python then draws the rest)
 * @property {boolean} [follow]  the page below shows another text: once the typing pauses, report ``settled``
 */

/** @param {number} c */
function isHigh(c) {
  return c >= 0xd800 && c <= 0xdbff;
}

/** @param {number} c */
function isLow(c) {
  return c >= 0xdc00 && c <= 0xdfff;
}

/**
 * The edit that turns ``prev`` into ``next``: their common prefix and suffix left out, never cutting a
 * surrogate pair (an emoji is removed or inserted whole). ``hint``: where the caret is in ``next`` (the end
 * of the insertion), to place an ambiguous edit where it was typed ("aa" -> "aaa" inserts at the caret).
 * @param {string} prev
 * @param {string} next
 * @param {number} [hint]
 * @returns {TextEdit}
 */
export function diffText(prev, next, hint) {
  const n = Math.min(prev.length, next.length);
  let a = 0;
  // the prefix: a block at a time first (native comparisons), then character by character
  let step = 4096;
  while (a < n && step >= 1) {
    const b = Math.min(n, a + step);
    if (prev.slice(a, b) === next.slice(a, b)) a = b;
    else step >>= 4;
  }
  while (a < n && prev.charCodeAt(a) === next.charCodeAt(a)) a++;
  if (hint !== undefined) {
    // the inserted part ends at the caret when that is consistent with the texts
    const grow = next.length - prev.length;
    if (grow > 0 && hint - grow >= 0 && hint - grow < a) a = hint - grow;
  }
  let z = 0;
  const limit = n - a;
  while (z < limit && prev.charCodeAt(prev.length - 1 - z) === next.charCodeAt(next.length - 1 - z)) z++;
  // keep surrogate pairs whole on both sides
  if (a > 0 && (isLow(prev.charCodeAt(a)) || isLow(next.charCodeAt(a))) && isHigh(prev.charCodeAt(a - 1))) a--;
  if (z > 0 && (isHigh(prev.charCodeAt(prev.length - z - 1)) || isHigh(next.charCodeAt(next.length - z - 1))) &&
      isLow(prev.charCodeAt(prev.length - z))) z--;
  return { at: a, del: prev.slice(a, prev.length - z), ins: next.slice(a, next.length - z) };
}

/**
 * Code points in ``text.slice(0, u)``: Python's index of UTF-16 index ``u`` (a surrogate pair is one).
 * @param {string} text
 * @param {number} u
 */
export function codePoints(text, u) {
  let n = u;
  for (let i = 0; i < u - 1; i++) {
    if (isHigh(text.charCodeAt(i)) && isLow(text.charCodeAt(i + 1))) {
      n--;
      i++;
    }
  }
  return n;
}

/**
 * Characters as Python counts them (a surrogate pair is one).
 * @param {string} text
 */
export function charCount(text) {
  return codePoints(text, text.length);
}

/**
 * @typedef {Object} Packed  Integers in the bytes Python sent (``appstate.tokenize_live.wire``, read by mail.js):
 *   ``n`` little-endian unsigned integers of ``w`` bytes (1, 2 or 4) from byte ``at`` of ``buf``.
 * @property {Uint8Array} buf
 * @property {number} at
 * @property {number} n
 * @property {number} w
 */

/**
 * Integers packed by Python: a :typedef:`Packed` run of the mail's bytes, or (``width`` bytes each) base64 of
 * little-endian unsigned integers.
 * @param {Packed | string} packed
 * @param {number} [width]
 * @returns {number[]}
 */
export function unpack(packed, width = 4) {
  let bytes, n;
  if (typeof packed === "string") {
    const bin = atob(packed);
    bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    n = Math.floor(bytes.length / width);
  } else {
    width = packed.w;
    n = packed.n;
    bytes = packed.buf.subarray(packed.at, packed.at + n * width);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Array(n);
  if (width === 1) for (let i = 0; i < n; i++) out[i] = bytes[i];
  else if (width === 2) for (let i = 0; i < n; i++) out[i] = view.getUint16(2 * i, true);
  else for (let i = 0; i < n; i++) out[i] = view.getUint32(4 * i, true);
  return out;
}

/** @param {"B" | "H" | "I" | undefined} code  Python's array type code */
export function widthOf(code) {
  return code === "B" ? 1 : code === "H" ? 2 : 4;
}

/**
 * The blocks of boxes to draw: those within ``margin`` pixels of the visible part of a scrolled list whose
 * blocks have heights ``heights`` (laid one under the other).
 * @param {number[]} heights
 * @param {number} top  the list's scroll position
 * @param {number} height  its visible height
 * @param {number} margin
 * @returns {[number, number]}  first block, past the last
 */
export function visibleBlocks(heights, top, height, margin) {
  let y = 0, first = -1, last = 0;
  for (let k = 0; k < heights.length; k++) {
    const h = heights[k];
    if (y + h >= top - margin && y <= top + height + margin) {
      if (first < 0) first = k;
      last = k + 1;
    }
    y += h;
  }
  return first < 0 ? [0, Math.min(1, heights.length)] : [first, last];
}
