// @ts-check
// Unit tests of the player's pair chart and curve (charts.js), drawn in the fake DOM (components/testing/): the
// run "aaabdaaabac" (components/testing/player_fixture.js), whose counts are worked out by hand there.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mountPlayer, sleep } from "../testing/player_fixture.js";

/** @param {Awaited<ReturnType<typeof mountPlayer>>} p */
const bars = (p) => p.$$(".bar").map((b) => [b.dataset.pair, b.dataset.role, Number(b.dataset.count),
  b.querySelector(".bar-mark")?.textContent]);

test("before merge 1: the pairs counted, the most frequent marked as the winner", async () => {
  const p = await mountPlayer();
  // "aaabdaaabac": aa 4 (overlapping: aaa counts twice), then ab ba bd da ac once... in the payload's order
  assert.deepEqual(bars(p), [["97,97", "winner", 4, "▶"], ["97,98", "", 2, ""], ["97,99", "", 1, ""],
    ["98,97", "", 1, ""], ["98,100", "", 1, ""], ["100,97", "", 1, ""]]);
  assert.equal(p.$(".mp-axis").textContent, "Count now: the top pair is merged first.");
  p.unmount();
});

test("a pair with the winner's count lost on the tie rule: marked =", async () => {
  const p = await mountPlayer({ control: { k: 2 } });
  // before merge 2 (after "aa"): ab 2 wins, aa+a 2 ties
  const shown = bars(p);
  assert.deepEqual(shown.slice(0, 2), [["97,98", "winner", 2, "▶"], ["256,97", "tie", 2, "="]]);
  assert.equal(shown.length, 6);
  assert.equal(p.$(".mp-axis").textContent, "Count just before merge 2.");
  // a bar's width is its count over the largest count on screen
  assert.deepEqual(p.$$(".bar").map((b) => b.style["--w"]), ["1.0000", "1.0000", "0.5000", "0.5000", "0.5000",
    "0.5000"]);
  p.unmount();
});

test("with motion, the bars of the merge before leave (faded out), the new ones enter", async () => {
  const p = await mountPlayer({ motion: true, control: { k: 1 } });
  p.frames.run(performance.now());
  p.frames.run(performance.now());                                                 // the first bars are in
  p.key("ArrowRight");                                                             // the bars before merge 2
  // aa is merged, and d+a is now d+aa: they leave; aa+a and d+aa enter
  assert.deepEqual(p.$$(".bar.leave").map((b) => b.dataset.pair), ["97,97", "100,97"]);
  assert.deepEqual(p.$$(".bar.enter").map((b) => b.dataset.pair), ["256,97", "100,256"]);
  p.frames.run(performance.now());
  p.frames.run(performance.now());                                                 // two frames later: shown
  assert.deepEqual(p.$$(".bar.enter"), []);
  await sleep(450);
  assert.deepEqual(p.$$(".bar").map((b) => b.dataset.pair).includes("97,97"), false); // removed after its fade
  p.unmount();
});

test("the curve's dot falls with the token count, rises with bytes per token", async () => {
  const p = await mountPlayer();
  /** the dot's y (SVG units: down is larger) */
  const y = () => Number(/translate\([\d.]+px,([\d.]+)px\)/.exec(p.$(".dot").style.transform)?.[1]);
  const x = () => Number(/translate\(([\d.]+)px/.exec(p.$(".marker").style.transform)?.[1]);
  const at0 = [x(), y()];
  p.key("End");
  assert.ok(x() > at0[0]);                       // the marker moved right, to the last merge
  assert.ok(y() < at0[1]);                       // 11/5 bytes per token is more than 11/11: higher up
  const buttons = p.$$(".mp-segbtn");
  assert.deepEqual(buttons.map((b) => [b.textContent, b.classList.contains("on")]),
    [["Bytes per token", true], ["Tokens", false]]);
  buttons[1].fire("click");
  assert.deepEqual(buttons.map((b) => b.classList.contains("on")), [false, true]);
  const tokensEnd = y();
  p.key("0");
  assert.ok(y() < tokensEnd);                    // 11 tokens at merge 0 is higher up than 5 at the end
  assert.match(p.$$(".mp-capline")[2].textContent, /^Tokens after each merge\. The dotted line is the current merge\./);
  await sleep(300);
  // the metric is told to Python (debounced), with where the player is
  assert.deepEqual(p.reports.map((r) => [r.k, r.metric]).at(-1), [0, "tokens"]);
  p.unmount();
});
