// @ts-check
// Mailbox of the Tokenize view (components/tokenize_view): the encodings of every edit travel in an element of
// their own, whose JavaScript is these few lines, so an edit never resends the view's own module. The view
// (tokenize.js) takes each payload from this registry on globalThis; it may mount before or after.

/** @typedef {{ box: { mail?: unknown }, listeners: Set<(data: unknown) => void> }} Registry */

/** @type {Registry} */
const REG = /** @type {any} */ (globalThis)[Symbol.for("bpe-lab.tokenize-view")] ??= { box: {}, listeners: new Set() };

/**
 * @param {{ data: unknown }} args
 */
export default function mailbox({ data }) {
  REG.box.mail = data;
  for (const listener of REG.listeners) listener(data);
}
