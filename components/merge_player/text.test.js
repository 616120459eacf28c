// @ts-check
// Unit tests of the player's text as tokens (text.js), drawn in the fake DOM (components/testing/), on the run
// "aaabdaaabac" (components/testing/player_fixture.js): its tokens after each merge are written out by hand.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mountPlayer, sleep, until } from "../testing/player_fixture.js";

const AFTER = [
  ["a", "a", "a", "b", "d", "a", "a", "a", "b", "a", "c"],
  ["aa", "a", "b", "d", "aa", "a", "b", "a", "c"],
  ["aa", "ab", "d", "aa", "ab", "a", "c"],
  ["aaab", "d", "aaab", "a", "c"],
];

test("each merge's text, whether stepped to in place or drawn whole", async () => {
  const p = await mountPlayer();
  assert.deepEqual(p.tokens(), AFTER[0]);
  for (let k = 1; k <= 3; k++) {
    p.key("ArrowRight");                                   // one merge applied to the drawn tokens
    assert.deepEqual(p.tokens(), AFTER[k], `forward to ${k}`);
  }
  for (let k = 2; k >= 0; k--) {
    p.key("ArrowLeft");                                    // and undone, in place
    assert.deepEqual(p.tokens(), AFTER[k], `back to ${k}`);
  }
  p.key("End");                                            // a jump: drawn whole
  assert.deepEqual(p.tokens(), AFTER[3]);
  p.unmount();
});

test("the tokens made by the merge are outlined, and counted", async () => {
  const p = await mountPlayer({ control: { k: 2 } });
  const fresh = p.$$(".tok.new").map((t) => t.title.split(" · ")[1]);
  assert.deepEqual(fresh, ["ab", "ab"]);
  assert.equal(p.$(".mp-shown").textContent, "Shown: 11 characters → 7 tokens, 2 made by this merge.");
  // a token's title: its id, label and bytes; its data: where it starts
  const first = p.$$(".tok")[1];
  assert.equal(first.title, "id 257 · ab · 2 bytes");
  assert.equal(first.dataset.start, "2");
  p.unmount();
});

test("with motion, the two tokens of a merge join, then are one", async () => {
  const p = await mountPlayer({ motion: true });
  p.key("ArrowRight");
  assert.deepEqual(p.tokens(), ["a+a", "a", "b", "d", "a+a", "a", "b", "a", "c"]);
  assert.equal(p.root.dataset.joining, "2");
  await until(() => p.root.dataset.joining === "0");
  assert.deepEqual(p.tokens(), AFTER[1]);
  p.unmount();
});

test("a window of the text says that it is one", async () => {
  // the window "aaab" (4 of the 11 characters): its nodes as window_payload makes them
  const p = await mountPlayer({ win: { chars: 4, bytes: 4, start: [0, 0, 0, 1, 2, 2, 3], id: [258, 256, 97, 97, 257, 97, 98],
    from: [3, 1, 0, 0, 2, 0, 0], to: [3, 2, 0, 0, 2, 1, 1] } });
  assert.deepEqual(p.tokens(), ["a", "a", "a", "b"]);
  assert.equal(p.$(".mp-more").textContent,
    "… a window of 4 of the 11 characters trained on (move it below the player)");
  p.key("End");
  assert.deepEqual(p.tokens(), ["aaab"]);
  await sleep(0);
  p.unmount();
});
