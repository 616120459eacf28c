// @ts-check
// Mailbox of the Tokenize view (components/tokenize_view): the encodings of every edit travel in an element of
// their own, whose JavaScript is these few lines, and the view's reports (an edit, a click) go back through it.
// It is the only element in the fragment that answers them, so an edit reruns that fragment and re-sends only
// this element: the view (tokenize.js, outside the fragment) is not sent again. The view takes each payload
// from this registry on globalThis; it may mount before or after.

/**
 * @typedef {Object} Registry
 * @property {{ mail?: unknown }} box  the last payload
 * @property {Set<(data: unknown) => void>} listeners  views waiting for payloads
 * @property {(name: string, value: unknown) => void} [setState]  the mailbox's state: reports to Python
 */

/** @type {Registry} */
const REG = /** @type {any} */ (globalThis)[Symbol.for("bpe-lab.tokenize-view")] ??= { box: {}, listeners: new Set() };

/**
 * @param {{ data: unknown, setStateValue: (name: string, value: unknown) => void }} args
 */
export default function mailbox({ data, setStateValue }) {
  REG.setState = setStateValue;
  REG.box.mail = data;
  for (const listener of REG.listeners) listener(data);
}
