// @ts-check
// Unit tests of the click's pure part: `node --test components/tokenize_view/`. Lengths are UTF-8 bytes worked
// by hand; GPT-4's cut of " a Family" (" a" | " Family") is tiktoken's cl100k_base.
import { test } from "node:test";
import assert from "node:assert/strict";
import { geometry } from "./core.js";
import { boxesOver, boxSpan } from "./picked.js";

const TEXT = " a Family";

test("a character clicked in one column finds the whole token over it in another", () => {
  const chars = geometry(TEXT, [1, 1, 1, 1, 1, 1, 1, 1, 1], true);     // one token a character
  const gpt4 = geometry(TEXT, [2, 7], true);                          // " a" | " Family"
  const m = boxSpan(chars, 5);                                        // " a Fa|m|ily"
  assert.deepEqual(m, [5, 6]);
  assert.deepEqual(boxesOver(gpt4, ...m), [1]);
  assert.deepEqual(boxesOver(chars, ...boxSpan(gpt4, 1)), [2, 3, 4, 5, 6, 7, 8]);
});

test("a character split across tokens is one box, taken once", () => {
  // "né!" as n | C3 | A9 | ! : drawn whole, é's two tokens are one box
  const g = geometry("né!", [1, 1, 1, 1], true);
  assert.deepEqual(Array.from(g.boxes), [0, 1, 3, 4]);
  assert.deepEqual(boxSpan(g, 1), [1, 2]);
  assert.deepEqual(boxesOver(g, 1, 2), [1]);
  assert.deepEqual(boxesOver(g, 0, 3), [0, 1, 2]);
});
