// @ts-check
// The merge player's small DOM helpers (components/merge_player): new elements, CSS variables set only when they
// change, the combobox test of the keyboard shortcuts, and the packed payloads' unpacking.

const SVGNS = "http://www.w3.org/2000/svg";

/**
 * A new element, with a class and text.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string} [cls]
 * @param {string} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/**
 * Set a CSS custom property only when it changes (a change restyles every descendant).
 * @param {HTMLElement | SVGElement} node
 * @param {string} name
 * @param {string} value
 */
export function setVar(node, name, value) {
  /** @type {{ [name: string]: string }} */
  const memo = (/** @type {any} */ (node).__vars ??= {});
  if (memo[name] === value) return;
  memo[name] = value;
  node.style.setProperty(name, value);
}

/**
 * @param {EventTarget | null} e
 * @returns {e is HTMLInputElement}
 */
export const isCombobox = (e) => e instanceof Element && e.tagName === "INPUT" && e.getAttribute("role") === "combobox";

/**
 * A new SVG element with attributes.
 * @template {keyof SVGElementTagNameMap} K
 * @param {K} tag
 * @param {{ [name: string]: string | number }} [attrs]
 * @returns {SVGElementTagNameMap[K]}
 */
export function svg(tag, attrs) {
  const e = /** @type {SVGElementTagNameMap[K]} */ (document.createElementNS(SVGNS, tag));
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  return e;
}

/**
 * A packed payload (gzip-compressed JSON: views.player_payload.pack), unpacked.
 * @param {BufferSource} bytes
 * @returns {Promise<unknown>}
 */
export async function inflate(bytes) {
  if (typeof DecompressionStream === "undefined") {
    throw new Error("this browser cannot unpack the player's data (it needs DecompressionStream: " +
      "Chrome 80+, Firefox 113+, Safari 16.4+)");
  }
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}
