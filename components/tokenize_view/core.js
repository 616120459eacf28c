// @ts-check
// The Tokenize view's pure parts (no DOM): token geometry from the text and each token's UTF-8 length, splices,
// colours, labels, lookups. Unit-tested with `node --test components/tokenize_view/` (core.test.js); the
// component (tokenize.js) is this file followed by tokenize.js, joined by components/tokenize_view/__init__.py.

/**
 * @typedef {Object} Geometry  Where each token of a column lies in its text.
 * @property {Int32Array} cs  UTF-16 index where the character holding the token's first byte starts
 * @property {Int32Array} ce  UTF-16 index just past the character holding the token's last byte
 * @property {Uint8Array} head  bytes of a character the token starts inside of (0: starts on a boundary)
 * @property {Uint8Array} tail  bytes of a character the token ends inside of (0: ends on a boundary)
 * @property {Int32Array} boxes  first token index of every box, then the token count (a box: one token, or
 *   in "whole" mode the tokens that share a character, drawn once)
 * @property {boolean} ok  the lengths add up to the text (else the text is not the one encoded)
 * @property {number} [units]  the text's length (UTF-16 units)
 */

/**
 * @typedef {Object} Splice  How a column's tokens changed: ``new = old[:at] + ids + old[at + del:]``.
 * @property {number} at
 * @property {number} del
 * @property {number[]} ids
 * @property {number[]} lens
 */

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/**
 * CRC-32 (zlib's) of an ASCII string, as Python's ``zlib.crc32(s.encode())``.
 * @param {string} s
 * @returns {number}
 */
export function crc32(s) {
  let c = 0xffffffff;
  for (let i = 0; i < s.length; i++) c = CRC_TABLE[(c ^ s.charCodeAt(i)) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * A token id's colour: the same as the server's ``views.theme.color_for``.
 * @param {number} id
 * @param {string[]} colors
 */
export function colorFor(id, colors) {
  return colors[crc32(String(id)) % colors.length];
}

/**
 * UTF-8 length of the code point ``cp``.
 * @param {number} cp
 */
export function utf8Length(cp) {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

/**
 * The UTF-8 bytes of one code point (a lone surrogate as U+FFFD's, as a browser encodes it).
 * @param {number} cp
 * @returns {number[]}
 */
export function utf8Bytes(cp) {
  if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
  if (cp < 0x80) return [cp];
  if (cp < 0x800) return [0xc0 | (cp >> 6), 0x80 | (cp & 63)];
  if (cp < 0x10000) return [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
  return [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
}

/**
 * Total UTF-8 length of a string.
 * @param {string} text
 */
export function utf8Total(text) {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/**
 * Where every token lies in ``text``, from the tokens' UTF-8 lengths (one pass over the text).
 * ``whole``: tokens that share a character form one box (drawn once, striped); else every token is a box.
 * ``prev`` and ``edit``: the geometry of the tokens before an edit (drawn the same way) and how the tokens
 * changed (``lens = old[:at] + new + old[at + del:]``, ``ins`` new ones): only the changed stretch is laid on
 * the text again, the tokens before it keep their places and those after it move by the text's change of
 * length (the same tokens after an edit are the same bytes at the text's end).
 * @param {string} text
 * @param {ArrayLike<number>} lens
 * @param {boolean} whole
 * @param {Geometry | null} [prev]
 * @param {{ at: number, del: number, ins: number } | null} [edit]
 * @returns {Geometry}
 */
export function geometry(text, lens, whole, prev = null, edit = null) {
  const n = lens.length;
  const cs = new Int32Array(n), ce = new Int32Array(n);
  const head = new Uint8Array(n), tail = new Uint8Array(n);
  const boxes = [];
  let u = 0; // UTF-16 index of the current character
  let cb = 0; // byte offset where it starts
  let clen = 0; // its UTF-8 length (0: past the end)
  let cw = 1; // its UTF-16 width
  const read = () => {
    if (u >= text.length) {
      clen = 0;
      cw = 0;
      return;
    }
    const cp = text.codePointAt(u) ?? 0;
    clen = utf8Length(cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp);
    cw = cp > 0xffff ? 2 : 1;
  };
  let pos = 0;
  let first = 0; // the first token laid on the text here
  /** @type {Int32Array | null} */
  let prefixBoxes = null;
  const usable = prev && edit && prev.ok && prev.units !== undefined && prev.cs.length === n - edit.ins + edit.del &&
    edit.at <= prev.cs.length;
  if (usable && prev && edit) {
    // start at the box holding the first changed token (a box starts on a character boundary)
    const b = Math.max(0, upperBound(prev.boxes, edit.at) - 1);
    first = Math.min(prev.boxes[b], edit.at);
    while (first > 0 && prev.head[first]) first--;
    cs.set(prev.cs.subarray(0, first));
    ce.set(prev.ce.subarray(0, first));
    head.set(prev.head.subarray(0, first));
    tail.set(prev.tail.subarray(0, first));
    prefixBoxes = prev.boxes.subarray(0, upperBound(prev.boxes, first - 1));
    for (let i = 0; i < first; i++) pos += lens[i];
    u = first < prev.cs.length ? prev.cs[first] : prev.units ?? 0;
    cb = pos;
  }
  read();
  let boxOpen = false;
  let i = first;
  for (; i < n; i++) {
    if (usable && prev && edit && i >= edit.at + edit.ins && !boxOpen && cb === pos) {
      // past the change, on a character boundary: the rest are the old tokens, moved
      const j = i - edit.ins + edit.del;
      const du = text.length - (prev.units ?? 0);
      if (j <= prev.cs.length && (j === prev.cs.length ? u === text.length : prev.cs[j] + du === u && !prev.head[j])) {
        for (let k = j; k < prev.cs.length; k++) {
          cs[k - j + i] = prev.cs[k] + du;
          ce[k - j + i] = prev.ce[k] + du;
        }
        head.set(prev.head.subarray(j), i);
        tail.set(prev.tail.subarray(j), i);
        const from = upperBound(prev.boxes, j - 1);
        const shift = i - j;
        const out = new Int32Array((prefixBoxes?.length ?? 0) + boxes.length + prev.boxes.length - from);
        if (prefixBoxes) out.set(prefixBoxes);
        out.set(boxes, prefixBoxes?.length ?? 0);
        for (let k = from, o = (prefixBoxes?.length ?? 0) + boxes.length; k < prev.boxes.length; k++, o++) {
          out[o] = prev.boxes[k] + shift;
        }
        return { cs, ce, head, tail, boxes: out, ok: true, units: text.length };
      }
    }
    const start = pos;
    const end = pos + lens[i];
    pos = end;
    head[i] = start > cb ? start - cb : 0;
    cs[i] = u;
    if (!boxOpen || !whole) boxes.push(i);
    // advance past every character that ends inside [.., end]
    while (clen && cb + clen <= end) {
      cb += clen;
      u += cw;
      read();
    }
    if (clen && cb < end) {
      // ends inside the current character
      tail[i] = end - cb;
      ce[i] = u + cw;
      boxOpen = true;
    } else {
      ce[i] = u;
      boxOpen = false;
    }
  }
  boxes.push(n);
  const all = prefixBoxes ? [...prefixBoxes, ...boxes] : boxes;
  const ok = prefixBoxes ? !clen && u >= text.length && pos === cb : pos === utf8Total(text);
  return { cs, ce, head, tail, boxes: Int32Array.from(all), ok, units: text.length };
}

/**
 * ``arr[:at] + ins + arr[at + del:]``: a plain array is changed in place (the engine moves its tail at once:
 * a keystroke in a 1 MB text's 300,000 tokens), anything else (or a huge ``ins``) copied into a new array.
 * @template T
 * @param {ArrayLike<T>} arr
 * @param {number} at
 * @param {number} del
 * @param {ArrayLike<T>} ins
 * @returns {T[]}
 */
export function applySplice(arr, at, del, ins) {
  if (Array.isArray(arr) && ins.length <= 4096) {
    arr.splice(at, del, ...Array.prototype.slice.call(ins));
    return arr;
  }
  const out = Array.prototype.slice.call(arr, 0, at);
  for (let i = 0; i < ins.length; i++) out.push(ins[i]);
  for (let i = at + del; i < arr.length; i++) out.push(arr[i]);
  return out;
}

const WS = /** @type {Record<string, string>} */ ({ " ": "·", "\t": "→", "\n": "↵", "\r": "␍" });
const NAMED = /** @type {Record<string, string>} */ ({
  "\u200d": "ZWJ", "\u200c": "ZWNJ", "\ufe0f": "VS16", "\ufe0e": "VS15", "\u200b": "ZWSP", "\ufeff": "BOM",
  "\u00a0": "NBSP", "\u2028": "LSEP", "\u2029": "PSEP",
});
const INVISIBLE = /^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]$/u;

/**
 * How one character is shown: ``["t", text]`` (as is), ``["w", mark]`` (whitespace made visible) or
 * ``["i", name]`` (an invisible character as a labelled chip), as ``views.spans.piece_html`` draws them.
 * @param {string} ch  one code point
 * @returns {[string, string]}
 */
export function charShape(ch) {
  if (ch in WS) return ["w", WS[ch]];
  if (ch in NAMED) return ["i", NAMED[ch]];
  if (INVISIBLE.test(ch)) return ["i", "U+" + (ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")];
  return ["t", ch];
}

/**
 * Hex chips of a partial character: bytes ``from``..``to`` of the character starting at ``text[u]``.
 * @param {string} text
 * @param {number} u
 * @param {number} from
 * @param {number} to
 */
export function partialHex(text, u, from, to) {
  return utf8Bytes(text.codePointAt(u) ?? 0xfffd)
    .slice(from, to)
    .map((b) => b.toString(16).toUpperCase().padStart(2, "0"));
}

/**
 * A token's one-line label, as ``views.spans.token_label``: whitespace visible, partial bytes as ``<E2>``.
 * @param {string} text
 * @param {Geometry} g
 * @param {number} i
 * @param {number} len  the token's UTF-8 length
 */
export function tokenLabel(text, g, i, len) {
  let out = "";
  let u = g.cs[i];
  let left = len;
  if (g.head[i]) {
    const bytes = utf8Bytes(text.codePointAt(u) ?? 0xfffd);
    const take = bytes.slice(g.head[i], Math.min(bytes.length, g.head[i] + left));
    out += take.map((b) => `<${b.toString(16).toUpperCase().padStart(2, "0")}>`).join("");
    left -= take.length;
    u += (text.codePointAt(u) ?? 0) > 0xffff ? 2 : 1;
  }
  while (left > 0 && u < text.length) {
    const cp = text.codePointAt(u) ?? 0xfffd;
    const w = cp > 0xffff ? 2 : 1;
    const bl = utf8Length(cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp);
    if (bl > left) {
      out += utf8Bytes(cp).slice(0, left).map((b) => `<${b.toString(16).toUpperCase().padStart(2, "0")}>`).join("");
      break;
    }
    const [kind, shown] = charShape(text.slice(u, u + w));
    out += kind === "i" ? `<${shown}>` : shown;
    left -= bl;
    u += w;
  }
  return out;
}

/**
 * The first index ``i`` in the ascending ``arr`` with ``arr[i] > x`` (``arr.length`` if none).
 * @param {ArrayLike<number>} arr
 * @param {number} x
 */
export function upperBound(arr, x) {
  let lo = 0, hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (arr[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Tokens ``[first, last)`` of a column that overlap the characters ``[from, to)`` (UTF-16 indices).
 * @param {Geometry} g
 * @param {number} from
 * @param {number} to
 * @returns {[number, number]}
 */
export function tokensOver(g, from, to) {
  // ce is ascending: the first token ending after `from`; cs is ascending: the first token starting at/after `to`
  const first = upperBound(g.ce, from);
  let last = first;
  while (last < g.cs.length && g.cs[last] < to) last++;
  if (last === first && first < g.cs.length && from === to && g.cs[first] <= from) last = first + 1;
  return [first, last];
}

/**
 * The box holding token ``i`` (index into ``g.boxes``).
 * @param {Geometry} g
 * @param {number} i
 */
export function boxOf(g, i) {
  return upperBound(g.boxes, i) - 1;
}

/**
 * A compact, copyable form of the ids: ``[1, 2, 3]``.
 * @param {ArrayLike<number>} ids
 */
export function idsText(ids) {
  return "[" + Array.prototype.join.call(ids, ", ") + "]";
}

/**
 * Blocks of boxes drawn together: ``[firstBox, endBox)`` pairs, ``size`` boxes each.
 * @param {number} nBoxes
 * @param {number} size
 * @returns {Array<[number, number]>}
 */
export function blocks(nBoxes, size) {
  const out = /** @type {Array<[number, number]>} */ ([]);
  for (let b = 0; b < nBoxes; b += size) out.push([b, Math.min(nBoxes, b + size)]);
  return out;
}

/**
 * What a column without tokens says instead: an empty text has none; a text being encoded whose first tokens
 * could not be shown yet (one huge chunk: a big paste's preview holds none) gets them when it is done.
 * @param {string} text the column's text
 * @returns {string} HTML (no user text in it)
 */
export function noTokensHtml(text) {
  return text
    ? '<span class="bpe-more">(its tokens come when the whole text is encoded)</span>'
    : '<span class="bpe-more">(no tokens: the text is empty)</span>';
}
