// @ts-check
// Unit tests of the big-text mode's pure parts (bigtext.js): `node --test components/tokenize_view/`. What a
// paste makes is checked against what a text area does (setRangeText, maxLength), written out by hand here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FOLD_AT, beforeCaret, deleteAt, folds, foldsInsert, headOf, insertAt } from "./bigtext.js";
import { diffText } from "./edits.js";

test("a text folds only past the threshold", () => {
  assert.equal(folds(FOLD_AT), false);
  assert.equal(folds(FOLD_AT + 1), true);
  assert.equal(folds(0), false);
});

test("a paste that makes a big text folds it; typing in a big text edited in the box does not", () => {
  assert.equal(foldsInsert(10, 0, FOLD_AT), true); // a big paste into a short text
  assert.equal(foldsInsert(FOLD_AT, 0, 1), true); // the character that makes it big (from the box's limit below)
  assert.equal(foldsInsert(10, 5, FOLD_AT - 5), false); // the same length: not big
  assert.equal(foldsInsert(FOLD_AT + 50, 0, 1), false); // typed in a big text put back in the box
  assert.equal(foldsInsert(FOLD_AT + 50, 0, 9_999), false);
  assert.equal(foldsInsert(FOLD_AT + 50, 0, 10_000), true); // a big paste there folds it again
  assert.equal(foldsInsert(FOLD_AT + 50, FOLD_AT + 50, 20), false); // all of it replaced by a short text
});

test("a paste replaces the selection, the caret after it, CRLF made LF as in a text area's value", () => {
  assert.deepEqual(insertAt("hello world", 6, 11, "there"), { text: "hello there", caret: 11, cut: 0 });
  assert.deepEqual(insertAt("ab", 1, 1, "x\r\ny\rz"), { text: "ax\ny\nzb", caret: 6, cut: 0 });
  assert.deepEqual(insertAt("", 0, 0, "abc"), { text: "abc", caret: 3, cut: 0 });
});

test("a paste over the box's limit is cut as maxLength cuts it, never inside an emoji", () => {
  assert.deepEqual(insertAt("abcd", 2, 2, "XYZ", 6), { text: "abXYcd", caret: 4, cut: 1 });
  // room for 3 units: "😀" (2 units) fits, the next one would be split: left out whole
  assert.deepEqual(insertAt("a", 1, 1, "😀😀", 4), { text: "a😀", caret: 3, cut: 2 });
  assert.deepEqual(insertAt("abc", 0, 3, "xy", 2), { text: "xy", caret: 2, cut: 0 }); // the selection makes room
});

test("the edit a big paste sends is the insertion at the selection", () => {
  const before = "keep this ✓ and this";
  const big = "é中😀\n".repeat(30_000);
  const r = insertAt(before, 10, 11, big); // pasted over the ✓
  assert.ok(folds(r.text.length));
  const d = diffText(before, r.text, r.caret);
  assert.deepEqual({ at: d.at, del: d.del, ins: d.ins }, { at: 10, del: "✓", ins: big });
  // typed in the fold after the paste: one character at the caret
  const typed = insertAt(r.text, r.caret, r.caret, "!");
  const e = diffText(r.text, typed.text, typed.caret);
  assert.deepEqual({ at: e.at, del: e.del, ins: e.ins }, { at: 10 + big.length, del: "", ins: "!" });
});

test("Backspace and Delete at the caret take one character, a surrogate pair whole", () => {
  assert.deepEqual(deleteAt("a😀b", 3, true), { text: "ab", caret: 1 });
  assert.deepEqual(deleteAt("a😀b", 1, false), { text: "ab", caret: 1 });
  assert.deepEqual(deleteAt("ab", 0, true), { text: "ab", caret: 0 });
  assert.deepEqual(deleteAt("ab", 2, false), { text: "ab", caret: 2 });
  assert.deepEqual(deleteAt("ab", 1, true), { text: "b", caret: 0 });
});

test("the fold shows the first lines, a few KB at most, and the words before the caret", () => {
  assert.equal(headOf("1\n2\n3\n4\n5\n6"), "1\n2\n3\n4");
  assert.equal(headOf("x".repeat(5000)).length, 1500);
  assert.equal(headOf("ab😀", 3), "ab"); // (not half an emoji)
  assert.equal(headOf("short"), "short");
  assert.equal(beforeCaret("line one\nline two", 17), "line two");
  assert.equal(beforeCaret("abcdef", 6, 3), "def");
  assert.equal(beforeCaret("a😀bc", 5, 3), "bc"); // (not half an emoji)
  assert.equal(beforeCaret("😀bc", 4, 3), "bc"); // (a low surrogate first: skipped)
});
