// @ts-check
// Unit tests of a live room's pure parts (follow.js): `node --test components/merge_player/`.
// Expected values are written out by hand.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mergeFollow, takeAnswer } from "./follow.js";

const ROOM = { code: "7KQ2MX", on: true, seq: 1, tag: "t", merge: 4, speed: 2, playing: false, age: 10, v: 3, sig: 0 };

test("no code is no room", () => {
  assert.equal(mergeFollow(null, { on: false }, 5), null);
  assert.equal(mergeFollow({ ...ROOM }, null, 5), null);
});

test("the page's state is taken, stamped when it arrived", () => {
  assert.deepEqual(mergeFollow(null, ROOM, 100), { ...ROOM, received: 100 });
});

test("an older page copy keeps the play state already fetched, but takes on and seq", () => {
  const fetched = { ...ROOM, merge: 9, playing: true, v: 5, sig: 2, received: 50 };
  const got = mergeFollow(fetched, { ...ROOM, on: false, seq: 2 }, 100);
  assert.deepEqual(got, { ...ROOM, on: false, seq: 2, merge: 9, playing: true, v: 5, sig: 2, received: 50 });
});

test("a newer page copy wins; another room starts afresh", () => {
  const got = mergeFollow({ ...ROOM, v: 2, merge: 1 }, { ...ROOM, v: 6, merge: 7 }, 100);
  assert.equal(got && got.merge, 7);
  const other = mergeFollow({ ...ROOM, v: 9, sig: 4 }, { ...ROOM, code: "AAAAAA", v: 1, sig: 0 }, 100);
  assert.deepEqual(other, { ...ROOM, code: "AAAAAA", v: 1, sig: 0, received: 100 });
});

test("an answer with a newer version replaces the play state; the same one changes nothing", () => {
  const p = { merge: 12, speed: 5, playing: true, age: 30, v: 4, sig: 0 };
  assert.deepEqual(takeAnswer(ROOM, p, 200), {
    next: { ...ROOM, merge: 12, speed: 5, playing: true, age: 30, v: 4, received: 200 }, changed: true, news: false });
  assert.deepEqual(takeAnswer(ROOM, { ...p, merge: 99, v: 3 }, 200), { next: { ...ROOM }, changed: false, news: false });
});

test("a new sig is news for the page, with or without a new play state", () => {
  const got = takeAnswer(ROOM, { merge: 4, speed: 2, playing: false, age: 10, v: 3, sig: 1 }, 200);
  assert.deepEqual(got, { next: { ...ROOM, sig: 1 }, changed: true, news: true });
});
