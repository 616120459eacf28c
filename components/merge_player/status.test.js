// @ts-check
// Unit tests of the player's status lines (status.js), drawn in the fake DOM (components/testing/), on the run
// "aaabdaaabac" (components/testing/player_fixture.js). The sentences are written out by hand.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mountPlayer } from "../testing/player_fixture.js";

test("merge 0: nothing merged yet, and the first merge", async () => {
  const p = await mountPlayer();
  assert.equal(p.$(".mp-line1").textContent,
    "Merge 0 / 3 — nothing merged yet: one token per byte. First to merge: a + a (count 4).");
  assert.equal(p.$(".mp-line2").textContent, "Training text: 11 tokens, 1.00 bytes per token · vocabulary 256");
  p.unmount();
});

test("a merge: its pair, its new token, its count and its tie", async () => {
  const p = await mountPlayer({ control: { k: 2 } });
  assert.equal(p.$(".mp-line1").textContent, "Merge 2 / 3: a + b → ab (new id 257, count 2; tied with 1 other " +
    "pair, broken by the lexical rule: smaller token ids win, as in rustbpe)");
  assert.deepEqual(p.$(".mp-line1").querySelectorAll(".chip").map((c) => [c.textContent, c.classList.contains("new")]),
    [["a", false], ["b", false], ["ab", true]]);
  // 11 bytes in 7 tokens
  assert.equal(p.$(".mp-line2").textContent, "Training text: 7 tokens (from 11: −4), 1.57 bytes per token · vocabulary 258");
  p.unmount();
});

test("a quiz hides the first merge; a run stopped early says why at its end", async () => {
  const quiz = await mountPlayer({ control: { quiz: true } });
  assert.equal(quiz.$(".mp-line1").textContent, "Merge 0 / 3 — nothing merged yet: one token per byte.");
  quiz.unmount();
  const early = await mountPlayer({ run: { complete: false, stop: "no pair occurs twice" }, control: { k: 3 } });
  assert.match(early.$(".mp-line2").textContent, / · vocabulary 259 · stopped early: no pair occurs twice$/);
  early.unmount();
});

test("a replay: the vocabulary's rank, how often its merge fires, its whole-chunk lookups", async () => {
  const p = await mountPlayer({ run: { mode: "replay", vocab: "gpt2", new: [256, 257, 258], rank: [5, 40, 700],
    lookups: { 2: 1 } }, control: { k: 3 } });
  assert.equal(p.$(".mp-line1").textContent,
    "Step 3 / 3: aa + ab → aaab (gpt2's rank 700, id 258; 2 times in the text)");
  assert.equal(p.$(".mp-line2").textContent, "Your text: 5 tokens (from 11: −6), 2.20 bytes per token · the end: " +
    "exactly the ids gpt2's tokenizer gives this text");
  assert.equal(p.$(".mp-line3").hidden, false);
  assert.deepEqual(p.$(".mp-line3").children.map((e) => e.dataset.kind), ["lookups"]);
  assert.match(p.$(".mp-line3").textContent, /^Whole-chunk lookup: 1 of these are whole chunks/);
  p.key("ArrowLeft");
  assert.equal(p.$(".mp-line3").hidden, true);
  p.unmount();
});
