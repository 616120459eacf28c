// @ts-check
// Unit tests of the merge player's pure parts: `node --test components/merge_player/`.
// Expected values are worked by hand. The window of "aaab" is the one views/player_payload.py's doctest pins
// (bpe.train("aaabdaaabac", 259): merge 0 makes 256 = "aa", 1 makes 257 = "ab", 2 makes 258 = "aaab").
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  barRole, bytesPerToken, charStarts, chartMax, chartPath, chartScales, clampStep, endsLine, fmt, frameTarget,
  keyCommand, lagNote, madeAt, measureRate, metricValue, nodesBySteps, plural, prepareRun, prepareWindow, splitsChar,
  topPair, transition, visibleAt, visibleIn,
} from "./core.js";

/** @import { RunPayload } from "./core.js" */

// the window "aaab": per node (start, id, from, to), sorted by offset, longest first
const AAAB = {
  start: [0, 0, 0, 1, 2, 2, 3],
  id: [258, 256, 97, 97, 257, 97, 98],
  from: [3, 1, 0, 0, 2, 0, 0],
  to: [3, 2, 0, 0, 2, 1, 1],
};

/**
 * A small run payload: base 256, three merges, overrides from ``over``.
 * @param {Partial<RunPayload>} over
 * @returns {RunPayload}
 */
function payload(over = {}) {
  return {
    v: 1, tag: "t", n: 3, unit: "byte", base: 256, specials: 0, bytes: 11, complete: true, stop: "", tie: "",
    palette: ["#fff"], accent: { winner: "w", tie: "t", other: "o", marker: "m" },
    label: [], nbytes: [], color: [], special: [], piece: { 10: "↵\n" },
    pair: [97, 97, 256, 97, 97, 98], count: [4, 2, 2], ties: [0, 1, 0], capped: [1], tokens: [11, 7, 5, 3],
    held: null, held_bytes: 0,
    top_pairs: [97, 97, 256, 97, 97, 98], top_n: [2, 1, 3], top_i: [0, 2, 1, 1, 2, 0], top_c: [4, 2, 2, 2, 1, 1],
    ...over,
  };
}

test("the nodes on screen at each step of the window 'aaab'", () => {
  // step 0: a a a b; 1: aa a b; 2: aa ab; 3: aaab (token counts 4, 3, 2, 1)
  assert.deepEqual(visibleAt(AAAB.from, AAAB.to, 0), [2, 3, 5, 6]);
  assert.deepEqual(visibleAt(AAAB.from, AAAB.to, 1), [1, 5, 6]);
  assert.deepEqual(visibleAt(AAAB.from, AAAB.to, 2), [1, 4]);
  assert.deepEqual(visibleAt(AAAB.from, AAAB.to, 3), [0]);
});

test("the nodes on screen in a byte range (a chunk)", () => {
  // bytes [2, 4) at step 1: a@2, b@3 (257 = "ab" at 2 is not made yet)
  assert.deepEqual(visibleIn(AAAB.start, AAAB.from, AAAB.to, 2, 4, 1), [5, 6]);
  // bytes [0, 2) at step 2: 256 = "aa" only
  assert.deepEqual(visibleIn(AAAB.start, AAAB.from, AAAB.to, 0, 2, 2), [1]);
  // a range past the text: none
  assert.deepEqual(visibleIn(AAAB.start, AAAB.from, AAAB.to, 4, 9, 0), []);
});

test("the nodes by the step they appear at and the last step they are on screen", () => {
  const { byFrom, byTo } = nodesBySteps(AAAB.from, AAAB.to, 3);
  assert.deepEqual(byFrom, [[2, 3, 5, 6], [1], [4], [0], []]);
  // the a's at 0 and 1 go at merge 0, the a at 2 and the b at merge 1, "aa" and "ab" at merge 2; "aaab" stays
  assert.deepEqual(byTo, [[2, 3], [5, 6], [1, 4], [], []]);
});

test("where characters start in the bytes: 'héllo' (é is two bytes)", () => {
  const charAt = charStarts([1, 2, 1, 1, 1], 6);
  assert.deepEqual(Array.from(charAt ?? []), [0, 1, -1, 2, 3, 4, 5]);
  assert.equal(charStarts([], 3), null);
  // é's first byte alone (byte 1, one byte long) ends inside é; "h" (byte 0) and "l" (byte 3) do not split
  const start = [0, 1, 2, 3];
  assert.equal(splitsChar(/** @type {Int32Array} */ (charAt), start, 1, 1), true);
  assert.equal(splitsChar(/** @type {Int32Array} */ (charAt), start, 1, 2), true);
  assert.equal(splitsChar(/** @type {Int32Array} */ (charAt), start, 1, 0), false);
  assert.equal(splitsChar(/** @type {Int32Array} */ (charAt), [0, 1, 3], 2, 1), false); // é whole
});

test("a window prepared for its run", () => {
  const w = prepareWindow({ v: 1, tag: "t", first: 0, chars: 4, total: 11, bytes: 4, ...AAAB, sp: [6], cs: [0, 3],
    ch_len: [], ch_label: [] }, 3);
  assert.deepEqual([...w.isSpecial], [6]);
  assert.ok(w.chunkStart.has(3) && !w.chunkStart.has(2));
  assert.equal(w.charAt, null);
  assert.deepEqual(w.byFrom[3], [0]);
});

test("a run prepared: where each merge's bars start, its tallest chart, its words", () => {
  const run = prepareRun(payload());
  assert.deepEqual(Array.from(run.topStart), [0, 2, 3, 6]);
  assert.equal(run.rows, 3);
  assert.equal(run.replay, false);
  assert.equal(run.word, "Merge");
  assert.ok(run.cappedAt.has(1) && !run.cappedAt.has(0));
  // bar 2 (merge 1's only bar) is pair 1 of the table: 256 + 97; bar 1 (merge 0's second) pair 2: 97 + 98
  assert.deepEqual(topPair(run, 2), [256, 97]);
  assert.deepEqual(topPair(run, 1), [97, 98]);
  assert.deepEqual(topPair(run, 0), [97, 97]);
  const replay = prepareRun(payload({ mode: "replay", vocab: "cl100k", new: [300, 301, 300], rank: [5, 9, 12] }));
  assert.equal(replay.word, "Step");
  assert.equal(replay.vocab, "cl100k");
  assert.deepEqual(replay.alt, {});
});

test("the step that made a token", () => {
  const run = prepareRun(payload());
  assert.equal(madeAt(run, 257), 1); // base 256 + rank 1
  assert.equal(madeAt(run, 256), 0);
  assert.equal(madeAt(run, 97), -1); // a base byte
  assert.equal(madeAt(run, 259), -1); // past the last merge
  // a replay: the first step that makes the id
  const replay = prepareRun(payload({ mode: "replay", new: [300, 301, 300] }));
  assert.equal(madeAt(replay, 300), 0);
  assert.equal(madeAt(replay, 301), 1);
  assert.equal(madeAt(replay, 256), -1);
});

test("a token that ends a line", () => {
  const run = prepareRun(payload());
  assert.equal(endsLine(run, 10), true);
  assert.equal(endsLine(run, 97), false);
});

test("steps and jumps stay within 0..n (a fraction is cut off)", () => {
  assert.equal(clampStep(5.7, 3), 3);
  assert.equal(clampStep(2.9, 3), 2);
  assert.equal(clampStep(-1, 3), 0);
  assert.equal(clampStep(0, 0), 0);
});

test("the play clock: one merge a frame up to 30/s, batches above", () => {
  // 2/s, 1.6 s after 0: 3 merges due, but each gets a frame: merge 1, and the clock restarts from it
  assert.deepEqual(frameTarget({ k: 0, k0: 0, t0: 1000, speed: 2, n: 100 }, 2600), { target: 1, k0: 1, t0: 2600 });
  // 2/s, 0.6 s: one due, the clock goes on
  assert.deepEqual(frameTarget({ k: 0, k0: 0, t0: 1000, speed: 2, n: 100 }, 1600), { target: 1, k0: 0, t0: 1000 });
  // 30/s (the fastest that skips none), 0.1 s: 3 due, still one a frame
  assert.deepEqual(frameTarget({ k: 0, k0: 0, t0: 1000, speed: 30, n: 100 }, 1100), { target: 1, k0: 1, t0: 1100 });
  // 60/s, 0.1 s: 6 due, drawn in one frame
  assert.deepEqual(frameTarget({ k: 0, k0: 0, t0: 1000, speed: 60, n: 100 }, 1100), { target: 6, k0: 0, t0: 1000 });
  // never past the last merge
  assert.equal(frameTarget({ k: 0, k0: 0, t0: 1000, speed: 240, n: 50 }, 2000).target, 50);
  // a frame stamped a little before the start: nothing due
  assert.equal(frameTarget({ k: 4, k0: 4, t0: 1000, speed: 5, n: 50 }, 990).target, 4);
});

test("the rate kept while playing, over the last 2.5 s at 2/s", () => {
  /** @type {Array<[number, number]>} */
  const samples = [[0, 0]];
  assert.equal(measureRate(samples, 1000, 2, 2), null); // 1 s: not enough to measure
  assert.equal(measureRate(samples, 3000, 6, 2), 2); // 6 merges in 3 s
  // 4 s: the sample at 0 is dropped (the one at 1 s is 3 s old, more than 2.5 s): 5 merges in 3 s
  assert.ok(Math.abs(/** @type {number} */ (measureRate(samples, 4000, 7, 2)) - 5 / 3) < 1e-12);
  assert.deepEqual(samples, [[1000, 2], [3000, 6], [4000, 7]]);
});

test("the note when the screen does not keep the speed", () => {
  assert.equal(lagNote({ speed: 60, drawn: 10, advanced: 30, measured: null, unit: "merges" }),
    " · 60/s is more than this screen draws: 3.0 merges a frame");
  assert.equal(lagNote({ speed: 20, drawn: 4, advanced: 30, measured: 12, unit: "steps" }),
    " · 20/s is more than this screen draws: playing at 12/s");
  assert.equal(lagNote({ speed: 10, drawn: 3, advanced: 3, measured: 4.5, unit: "steps" }),
    " · 10/s is more than this screen draws: playing at 4.5/s");
  assert.equal(lagNote({ speed: 20, drawn: 10, advanced: 10, measured: 17, unit: "merges" }), null); // 85 %: kept
  // the bound is the true rate's, the note shows one decimal: 1.58/s of 2/s (79 %) reads 1.6, 1.6/s (80 %) has none
  assert.equal(lagNote({ speed: 2, drawn: 10, advanced: 10, measured: 1.58, unit: "merges" }),
    " · 2/s is more than this screen draws: playing at 1.6/s");
  assert.equal(lagNote({ speed: 2, drawn: 10, advanced: 10, measured: 1.6, unit: "merges" }), null);
  assert.equal(lagNote({ speed: 60, drawn: 10, advanced: 10, measured: 10, unit: "merges" }), null); // above 30/s
});

test("transition times: a step at rest, playing slowly, playing fast", () => {
  assert.deepEqual(transition(false, 2, true), { move: "320ms", still: false, join: 280 });
  assert.deepEqual(transition(false, 2, false), { move: "320ms", still: true, join: 0 });
  assert.deepEqual(transition(true, 5, true), { move: "160ms", still: false, join: 140 });
  const fast = transition(true, 30, true); // 33 ms a merge
  assert.equal(fast.move, "27ms");
  assert.equal(fast.still, true);
});

test("the keys", () => {
  assert.deepEqual(["k", "K", "ArrowRight", "PageDown", "ArrowLeft", "PageUp", "0", "Home", "End", "Escape", "x", "ArrowUp"]
    .map(keyCommand), ["toggle", "toggle", "forward", "forward", "back", "back", "start", "start", "end", "close", null, null]);
});

test("bar roles: the winner, a tie (a training run only)", () => {
  assert.equal(barRole(0, 5, 5, false), "winner");
  assert.equal(barRole(1, 5, 5, false), "tie");
  assert.equal(barRole(1, 5, 5, true), "");
  assert.equal(barRole(2, 4, 5, false), "");
});

test("the compression chart: values, the y axis's top, the scales, the path", () => {
  const counts = [4, 3, 2, 1];
  assert.equal(metricValue(true, counts, 8, 2), 4); // 8 bytes / 2 tokens
  assert.equal(metricValue(false, counts, 8, 2), 2);
  assert.equal(chartMax([[counts, 8]], 3, true), 8 * 1.05);
  assert.equal(chartMax([[counts, 8], [[9, 9, 9, 9], 9]], 3, false), 9 * 1.05);
  assert.equal(chartMax([[[0, 0], 0]], 1, false), 1);
  // x: 52 .. 640 - 14 over n steps; y: 12 (the top) .. 220 - 30 (zero)
  const { x, y } = chartScales(2, 10);
  assert.deepEqual([x(0), x(1), x(2)], [52, 339, 626]);
  assert.deepEqual([y(10), y(5), y(0)], [12, 101, 190]);
  assert.equal(chartScales(0, 1).x(1), 626); // no merge: the x axis is one step wide
  assert.equal(chartPath(3, String), "M0L1L2L3L3");
  // 1,201 points: every third (401), then the last
  const d = chartPath(1200, String);
  assert.ok(d.startsWith("M0L3L6L9"));
  assert.ok(d.endsWith("L1197L1200L1200"));
  assert.equal(d.split("L").length, 402);
});

test("numbers in words", () => {
  assert.equal(fmt(1234.5), "1,235");
  assert.equal(fmt(1e6), "1,000,000");
  assert.equal(plural(1, "token"), "token");
  assert.equal(plural(0, "token"), "tokens");
  assert.equal(plural(2, "byte"), "bytes");
  assert.equal(bytesPerToken(11, 4), "2.75");
  assert.equal(bytesPerToken(0, 0), "1.00");
});
