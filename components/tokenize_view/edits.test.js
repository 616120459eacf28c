// @ts-check
// Unit tests of the Tokenize view's conversation parts: `node --test components/tokenize_view/`.
// Expected values are worked by hand (😀 is the surrogate pair D83D DE00; 1 and 256 as little-endian bytes).
import { test } from "node:test";
import assert from "node:assert/strict";
import { charCount, codePoints, diffText, unpack, visibleBlocks, widthOf } from "./edits.js";

/** @param {string} prev @param {{at: number, del: string, ins: string}} e */
function apply(prev, e) {
  return prev.slice(0, e.at) + e.ins + prev.slice(e.at + e.del.length);
}

test("an edit is where the texts differ, with what was removed and inserted", () => {
  assert.deepEqual(diffText("hello world", "hello, world"), { at: 5, del: "", ins: "," });
  assert.deepEqual(diffText("hello world", "hello"), { at: 5, del: " world", ins: "" });
  assert.deepEqual(diffText("abc", "xbc"), { at: 0, del: "a", ins: "x" });
  assert.deepEqual(diffText("", "paste"), { at: 0, del: "", ins: "paste" });
  assert.deepEqual(diffText("same", "same"), { at: 4, del: "", ins: "" });
});

test("the caret places an ambiguous insertion where it was typed", () => {
  assert.deepEqual(diffText("aa", "aaa"), { at: 2, del: "", ins: "a" });
  assert.deepEqual(diffText("aa", "aaa", 1), { at: 0, del: "", ins: "a" });
});

test("an emoji is never cut in half", () => {
  // "😀" -> "😃" (D83D DE03): the pair's high half is common, but the edit holds the whole character
  const e = diffText("a😀b", "a😃b");
  assert.deepEqual(e, { at: 1, del: "😀", ins: "😃" });
  const f = diffText("😀😀", "😀");
  assert.equal(f.del, "😀");
  assert.equal(apply("😀😀", f), "😀");
});

test("random edits of long texts apply back (prefix found a block at a time)", () => {
  let seed = 7;
  const rand = (/** @type {number} */ n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const alphabet = ["a", " ", "\n", "é", "😀", "日", "<|", "x"];
  let text = Array.from({ length: 20000 }, () => alphabet[rand(alphabet.length)]).join("");
  for (let k = 0; k < 200; k++) {
    const at = rand(text.length + 1);
    const next = text.slice(0, at) + alphabet[rand(alphabet.length)].repeat(rand(3)) + text.slice(at + rand(4));
    const e = diffText(text, next);
    assert.equal(apply(text, e), next);
    text = next;
  }
});

test("positions in code points, as Python counts them", () => {
  assert.equal(codePoints("a😀b", 3), 2);
  assert.equal(codePoints("a😀b", 4), 3);
  assert.equal(codePoints("héllo", 2), 2);
  assert.equal(codePoints("", 0), 0);
  assert.equal(charCount("a😀b👨‍👩"), 6);   // a, 😀, b, 👨, ZWJ, 👩
});

test("packed integers as Python's array.tobytes() in base64", () => {
  // python: base64.b64encode(array('I', [1, 256]).tobytes()) == b'AQAAAAABAAA='
  assert.deepEqual(unpack("AQAAAAABAAA="), [1, 256]);
  assert.deepEqual(unpack("AQI=", 1), [1, 2]);
  assert.deepEqual(unpack("AQAAAQ==", 2), [1, 256]);   // array('H', [1, 256])
  assert.deepEqual(unpack(""), []);
  assert.deepEqual([widthOf("B"), widthOf("H"), widthOf("I"), widthOf(undefined)], [1, 2, 4, 4]);
});

test("packed integers read from the mail's bytes, at any offset", () => {
  // python: array('H', [1, 256]).tobytes() == b'\x01\x00\x00\x01'; array('I', [70000]) == b'\x70\x11\x01\x00'
  const buf = new Uint8Array([9, 1, 0, 0, 1, 0x70, 0x11, 0x01, 0x00, 3, 250]).subarray(1);
  assert.deepEqual(unpack({ buf, at: 0, n: 2, w: 2 }), [1, 256]);
  assert.deepEqual(unpack({ buf, at: 4, n: 1, w: 4 }), [70000]);     // (not on a multiple of 4 of the buffer)
  assert.deepEqual(unpack({ buf, at: 8, n: 2, w: 1 }), [3, 250]);
  assert.deepEqual(unpack({ buf, at: 10, n: 0, w: 4 }), []);
});

test("the blocks drawn are those near the visible part", () => {
  const heights = [100, 100, 100, 100, 100];
  assert.deepEqual(visibleBlocks(heights, 0, 150, 0), [0, 2]);
  assert.deepEqual(visibleBlocks(heights, 250, 100, 0), [2, 4]);
  assert.deepEqual(visibleBlocks(heights, 250, 100, 100), [1, 5]);
  assert.deepEqual(visibleBlocks([], 0, 100, 0), [0, 0]);
});
