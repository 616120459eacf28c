// @ts-check
// Mailbox of the merge player (components/merge_player): the text window and the controls travel as
// elements of their own, so each is re-sent only when it changes. This module hands their data to the
// player module (player.js) through one registry on globalThis; the player may mount before or after.

/**
 * @typedef {Object} Registry
 * @property {{ window?: unknown, control?: unknown, [kind: string]: unknown }} box  the last data of each
 *   element ("window": a packed window payload; "control": a Control, see core.js)
 * @property {Set<(kind: string, data: unknown) => void>} listeners  players waiting for data
 */

/** @type {Registry} */
const REG = (/** @type {any} */ (globalThis)[Symbol.for("bpe-lab.merge-player")] ??= { box: {}, listeners: new Set() });

/**
 * The window's and the control's element (both run this module; the element's name tells which it is).
 * @param {{ name: string, data: unknown }} args
 * @returns {() => void}  the cleanup: forgets the data unless newer data came since
 */
export default function mailbox({ name, data }) {
  const kind = name.endsWith("_window") ? "window" : "control";
  REG.box[kind] = data;
  for (const listener of REG.listeners) listener(kind, data);
  return () => {
    if (REG.box[kind] === data) delete REG.box[kind];
  };
}
