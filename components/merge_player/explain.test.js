// @ts-check
// Unit tests of the player's explanation of a clicked token (explain.js), in the fake DOM (components/testing/),
// on the run "aaabdaaabac" (components/testing/player_fixture.js): 258 = "aaab" is 256 "aa" + 257 "ab".
import { test } from "node:test";
import assert from "node:assert/strict";
import { mountPlayer } from "../testing/player_fixture.js";

/** @param {import("../testing/fakedom.js").FakeElement} li  a tree's item: its token and its words */
const item = (li) => li.childNodes.filter((n) => !("matches" in n) || !n.matches("ul")).map((n) => n.textContent).join("");

test("a clicked token: how it was built, in a sentence and as a tree", async () => {
  const p = await mountPlayer({ control: { k: 3 } });
  const box = p.$(".mp-explain");
  assert.equal(box.hidden, true);
  p.$$(".tok")[0].fire("click");
  assert.equal(box.hidden, false);
  assert.equal(box.dataset.id, "258");
  assert.equal(p.$(".mp-explain-said").textContent, "aaab (id 258) was made by merge 3: aa + ab.");
  assert.equal(p.$(".mp-explain-head").textContent, "aaab id 258 · 4 bytes×");
  const tree = p.$(".mp-explain-tree");
  assert.deepEqual(tree.querySelectorAll("li").map(item), ["aaab merge 3", "aa merge 1", "a base byte",
    "a base byte", "ab merge 2", "a base byte", "b base byte"]);
  // told to Python at once, with the merge on screen
  assert.deepEqual(p.reports.map((r) => [r.k, r.explain]), [[3, 258]]);
  p.unmount();
});

test("a base token has no tree; Esc, the close button or another merge close the box", async () => {
  const p = await mountPlayer({ control: { k: 3 } });
  const box = p.$(".mp-explain");
  const d = p.$$(".tok")[1];
  d.fire("click");
  assert.equal(p.$(".mp-explain-said").textContent, "d (id 100) is a base byte: every text starts from these.");
  assert.equal(p.$(".mp-explain-tree"), null);
  p.key("Escape");
  assert.equal(box.hidden, true);
  d.fire("click");
  p.$(".mp-explain-close").fire("click");
  assert.equal(box.hidden, true);
  p.$$(".tok")[0].fire("click");
  p.key("ArrowLeft");
  assert.equal(box.hidden, true);
  p.unmount();
});
