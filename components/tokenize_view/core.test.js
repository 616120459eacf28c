// @ts-check
// Unit tests of the Tokenize view's pure parts: `node --test components/tokenize_view/`.
// Expected values are worked by hand from UTF-8 (é = C3 A9, 😀 = F0 9F 98 80) or come from Python's zlib.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  applySplice, blocks, boxOf, charShape, colorFor, crc32, geometry, idsText, noTokensHtml, partialHex, tokenLabel,
  tokensOver, utf8Total,
} from "./core.js";

test("crc32 equals Python's zlib.crc32 (the colours match the server's)", () => {
  // python -c "import zlib; print([zlib.crc32(s.encode()) for s in ['0', '256', '100257', '']])"
  assert.deepEqual(["0", "256", "100257", ""].map(crc32), [4108050209, 3039150019, 311256011, 0]);
  assert.equal(colorFor(256, ["a", "b", "c"]), ["a", "b", "c"][3039150019 % 3]);
});

test("geometry of a character split across two tokens", () => {
  // "héllo" as h | C3 | A9 | l | lo
  const g = geometry("héllo", [1, 1, 1, 1, 2], true);
  assert.deepEqual(Array.from(g.cs), [0, 1, 1, 2, 3]);
  assert.deepEqual(Array.from(g.ce), [1, 2, 2, 3, 5]);
  assert.deepEqual(Array.from(g.head), [0, 0, 1, 0, 0]);
  assert.deepEqual(Array.from(g.tail), [0, 1, 0, 0, 0]);
  assert.deepEqual(Array.from(g.boxes), [0, 1, 3, 4, 5]); // C3 + A9 drawn once
  assert.ok(g.ok);
  const bytes = geometry("héllo", [1, 1, 1, 1, 2], false);
  assert.deepEqual(Array.from(bytes.boxes), [0, 1, 2, 3, 4, 5]);
});

test("geometry of an emoji (two UTF-16 units) in three tokens", () => {
  const g = geometry("a😀", [1, 2, 2], true);
  assert.deepEqual(Array.from(g.cs), [0, 1, 1]);
  assert.deepEqual(Array.from(g.ce), [1, 3, 3]);
  assert.deepEqual(Array.from(g.head), [0, 0, 2]);
  assert.deepEqual(Array.from(g.tail), [0, 2, 0]);
  assert.deepEqual(Array.from(g.boxes), [0, 1, 3]);
  assert.deepEqual(partialHex("a😀", 1, 0, 2), ["F0", "9F"]);
  assert.equal(tokenLabel("a😀", g, 1, 2), "<F0><9F>");
  assert.equal(tokenLabel("a😀", g, 2, 2), "<98><80>");
});

test("lengths that do not add up to the text are flagged", () => {
  assert.equal(geometry("abc", [1, 1], true).ok, false);
  assert.equal(geometry("abc", [1, 1, 1], true).ok, true);
  assert.equal(utf8Total("é😀a"), 2 + 4 + 1);
});

test("labels make whitespace and invisible characters visible", () => {
  const g = geometry(" the\n\u200d", [4, 1, 3], false);
  assert.equal(tokenLabel(" the\n\u200d", g, 0, 4), "·the");
  assert.equal(tokenLabel(" the\n\u200d", g, 1, 1), "↵");
  assert.equal(tokenLabel(" the\n\u200d", g, 2, 3), "<ZWJ>");
  assert.deepEqual(charShape("\u0007"), ["i", "U+0007"]);
  assert.deepEqual(charShape("<"), ["t", "<"]);
});

test("splices rebuild the new ids", () => {
  assert.deepEqual(applySplice([1, 2, 3, 4], 1, 2, [9]), [1, 9, 4]);
  assert.deepEqual(applySplice([], 0, 0, [5, 6]), [5, 6]);
  assert.deepEqual(applySplice([1, 2], 2, 0, []), [1, 2]);
});

test("tokens over a range of characters, and the box of a token", () => {
  // "hello world" as hello | ·world
  const g = geometry("hello world", [5, 6], true);
  assert.deepEqual(tokensOver(g, 0, 2), [0, 1]);
  assert.deepEqual(tokensOver(g, 4, 7), [0, 2]);
  assert.deepEqual(tokensOver(g, 5, 11), [1, 2]);
  const h = geometry("héllo", [1, 1, 1, 1, 2], true);
  assert.equal(boxOf(h, 2), 1);
  assert.equal(boxOf(h, 4), 3);
});

test("ids copy as a list; blocks cover every box once", () => {
  assert.equal(idsText([1, 22, 333]), "[1, 22, 333]");
  assert.deepEqual(blocks(5, 2), [[0, 2], [2, 4], [4, 5]]);
  assert.deepEqual(blocks(0, 2), []);
});

test("geometry after an edit equals the geometry laid anew (random edits, whole and byte modes)", () => {
  // a small tokenizer of its own: tokens are runs of 1-3 UTF-8 bytes cut at random (often inside a character),
  // so the spliced geometry meets characters split across tokens at both ends of the change
  const chars = ["a", "b", " ", "é", "日", "😀", "\n", "\u200d"];
  let seed = 7;
  const rand = (/** @type {number} */ k) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % k;
  };
  const cut = (/** @type {string} */ text) => {
    const total = utf8Total(text);
    const lens = [];
    for (let p = 0; p < total;) {
      const l = Math.min(total - p, 1 + rand(3));
      lens.push(l);
      p += l;
    }
    return lens;
  };
  for (const whole of [true, false]) {
    let text = "héllo 日本 😀 wörld\n";
    let lens = cut(text);
    let g = geometry(text, lens, whole);
    for (let step = 0; step < 300; step++) {
      // an edit of the text, and new tokens for a stretch around it (the rest keep their lengths)
      const pts = [...text];
      const a = rand(pts.length + 1), d = Math.min(pts.length - a, rand(3));
      const ins = Array.from({ length: rand(3) }, () => chars[rand(chars.length)]);
      const next = [...pts.slice(0, a), ...ins, ...pts.slice(a + d)].join("");
      const before = utf8Total(pts.slice(0, a).join(""));
      const after = utf8Total(pts.slice(a + d).join(""));
      // keep the tokens wholly before the edit's bytes and wholly after them; re-cut what is between
      let at = 0, p = 0;
      while (at < lens.length && p + lens[at] <= before) p += lens[at++];
      let z = lens.length, q = 0;
      while (z > at && q + lens[z - 1] <= after) q += lens[--z];
      const midBytes = utf8Total(next) - p - q;
      const mid = [];
      for (let r = midBytes; r > 0;) {
        const l = Math.min(r, 1 + rand(3));
        mid.push(l);
        r -= l;
      }
      const nextLens = [...lens.slice(0, at), ...mid, ...lens.slice(z)];
      const got = geometry(next, nextLens, whole, g, { at, del: z - at, ins: mid.length });
      const want = geometry(next, nextLens, whole);
      for (const k of /** @type {const} */ (["cs", "ce", "head", "tail", "boxes"])) {
        assert.deepEqual(Array.from(got[k]), Array.from(want[k]), `${k} at step ${step}`);
      }
      assert.equal(got.ok, true);
      text = next;
      lens = nextLens;
      g = got;
    }
  }
});

test("a column with no tokens says the text is empty only when it is", () => {
  // (a 600,000-character run of "x" is one chunk: its preview holds no tokens while it is encoded)
  assert.match(noTokensHtml(""), /the text is empty/);
  assert.doesNotMatch(noTokensHtml("x".repeat(600000)), /empty/);
  assert.match(noTokensHtml("x"), /when the whole text is encoded/);
});
