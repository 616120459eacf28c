// node --test: the pure part of reveal.js
import { test } from "node:test";
import assert from "node:assert/strict";
import { isNew } from "./reveal.js";

test("a new positive seq reveals once", () => {
  assert.equal(isNew(1, undefined), true);
  assert.equal(isNew(2, 1), true);
  assert.equal(isNew(2, 2), false);           // the same request again (a rerun): nothing
});

test("seq 0 and malformed seqs do nothing", () => {
  for (const seq of [0, -1, 1.5, "1", null, undefined, NaN]) assert.equal(isNew(seq, undefined), false, String(seq));
});
