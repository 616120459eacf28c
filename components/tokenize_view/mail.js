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
 * @property {unknown} [raw]  the last payload as it came (bytes), and
 * @property {unknown} [read]  what it was read into (a payload comes again unchanged when another element reruns)
 */

/** @type {Registry} */
const REG = /** @type {any} */ (globalThis)[Symbol.for("bpe-lab.tokenize-view")] ??= { box: {}, listeners: new Set() };

/**
 * @param {{ data: unknown, setStateValue: (name: string, value: unknown) => void }} args
 */
export default function mailbox({ data, setStateValue }) {
  if (data instanceof Uint8Array) {
    // appstate/tokenize_live.wire: [n: uint32 LE][n bytes of JSON][blobs]; each column's ids and lens are named in
    // the JSON as [offset, count, bytes each] and read from the blobs when the view takes the column (edits.js)
    if (REG.raw !== data) {
      const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
      const n = view.getUint32(0, true);
      const mail = JSON.parse(new TextDecoder().decode(data.subarray(4, 4 + n)));
      const blobs = data.subarray(4 + n);
      for (const col of mail.cols ?? []) {
        for (const name of ["ids", "lens"]) {
          const ref = col[name];
          if (Array.isArray(ref)) col[name] = { buf: blobs, at: ref[0], n: ref[1], w: ref[2] };
        }
      }
      REG.raw = data;
      REG.read = mail;
    }
    data = REG.read;
  }
  if (/** @type {{ preview?: boolean } | null} */ (data)?.preview) {
    // a big paste's first screen (the element tokenize_preview: no state, the reports stay with the mailbox)
    for (const listener of REG.listeners) listener(data);
    return;
  }
  REG.setState = setStateValue;
  REG.box.mail = data;
  for (const listener of REG.listeners) listener(data);
}
