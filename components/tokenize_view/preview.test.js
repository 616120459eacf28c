// @ts-check
// Unit tests of a big paste's first screen in the view (preview.js): `node --test components/tokenize_view/`.
// A column shows the preview's tokens without losing its own: the next mail's splice applies to its own version.
import { test } from "node:test";
import assert from "node:assert/strict";
import { holdPreview, restoreColumn } from "./preview.js";

/** A column as columns.js makes it, without the DOM (an element is a bag of properties here). */
function column() {
  return /** @type {any} */ ({
    key: "cl100k_base", slug: "cl100k_base", v: 3, ids: [15339, 1917], lens: [5, 6], special: new Set([1]),
    unk: new Map(), own: null, tid: "1:4", geo: { ok: true }, drawnFor: "1:4|3|true", drawn: { v: 3, whole: true, big: false },
    splice: { from: 2, at: 0, del: 0, ins: 1 }, headHtml: "<h4>GPT-4</h4>", head: { innerHTML: "<h4>GPT-4</h4>" },
    el: { dataset: {} }, held: null,
  });
}

/** 1 and 2 as little-endian uint16, then 3 and 4 as uint8: what mail.js makes of the packed arrays. */
const BUF = new Uint8Array([1, 0, 2, 0, 3, 4]);

test("a preview is drawn in place of the column's tokens, which are kept", () => {
  const c = column();
  holdPreview(c, /** @type {any} */ ({ key: c.key, slug: c.slug, v: 3, base: null, head: "<h4>GPT-4</h4><div>Counting…</div>",
    ids: { buf: BUF, at: 0, n: 2, w: 2 }, lens: { buf: BUF, at: 4, n: 2, w: 1 }, special: [] }), "1:5");
  assert.deepEqual([c.ids, c.lens, c.tid, [...c.special]], [[1, 2], [3, 4], "1:5", []]);
  assert.equal(c.v, 3); // (not a version: the browser still holds version 3)
  assert.equal(c.head.innerHTML, "<h4>GPT-4</h4><div>Counting…</div>");
  assert.equal(c.drawn, null); // (drawn anew, never as a splice of what was drawn)
  assert.equal(c.el.dataset.partial, "1");
  assert.deepEqual(c.held.ids, [15339, 1917]);
});

test("the next mail finds the column's own tokens and head back", () => {
  const c = column();
  const preview = /** @type {any} */ ({ key: c.key, slug: c.slug, v: 3, base: null, head: "<b>Counting…</b>",
    ids: { buf: BUF, at: 0, n: 2, w: 2 }, lens: { buf: BUF, at: 4, n: 2, w: 1 }, text: "NFC start" });
  holdPreview(c, preview, "1:5");
  holdPreview(c, preview, "1:5"); // (a preview sent again: its own tokens are still the ones kept)
  assert.equal(c.own, "NFC start");
  restoreColumn(c);
  assert.deepEqual([c.ids, c.lens, c.tid, c.own, [...c.special]], [[15339, 1917], [5, 6], "1:4", null, [1]]);
  assert.equal(c.head.innerHTML, "<h4>GPT-4</h4>");
  assert.equal(c.held, null);
  assert.equal(c.drawnFor, ""); // (drawn again even if the mail leaves the column as it was)
  assert.equal(c.el.dataset.partial, undefined);
  restoreColumn(c); // (nothing held: nothing changes)
  assert.deepEqual(c.ids, [15339, 1917]);
});
