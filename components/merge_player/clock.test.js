// @ts-check
// Unit tests of the player's play clock and controls (clock.js), in the fake DOM (components/testing/), on the
// run "aaabdaaabac" (3 merges; components/testing/player_fixture.js). Frames run when the test says, at the
// time it gives.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FakeElement } from "../testing/fakedom.js";
import { mountPlayer, sleep, until } from "../testing/player_fixture.js";

/** @param {Awaited<ReturnType<typeof mountPlayer>>} p */
const disabled = (p) => ["mp-reset", "mp-back", "mp-play", "mp-step"].map((c) => p.$(`.${c}`).disabled);

test("the buttons: what can be pressed at the start and at the end", async () => {
  const p = await mountPlayer();
  assert.deepEqual(disabled(p), [true, true, false, false]);
  p.$(".mp-step").fire("click");
  assert.equal(p.root.dataset.merge, "1");
  assert.deepEqual(disabled(p), [false, false, false, false]);
  p.$(".mp-step").fire("click");
  p.$(".mp-step").fire("click");
  assert.deepEqual(disabled(p), [false, false, false, true]);
  assert.equal(p.$(".mp-jump .mp-cap").textContent, "Merge 3");
  p.$(".mp-reset").fire("click");
  assert.equal(p.root.dataset.merge, "0");
  // the slider: a jump to its value
  const range = p.$(".mp-jump input");
  range.value = "2";
  range.fire("input");
  assert.equal(p.root.dataset.merge, "2");
  assert.equal(range.max, "3");
  p.unmount();
});

test("the shortcuts; none while typing, none with Ctrl", async () => {
  const p = await mountPlayer();
  p.key("ArrowRight");
  p.key("PageDown");
  assert.equal(p.root.dataset.merge, "2");
  p.key("PageUp");
  assert.equal(p.root.dataset.merge, "1");
  p.key("End");
  assert.equal(p.root.dataset.merge, "3");
  p.key("ArrowRight");                                       // (nothing past the end)
  assert.equal(p.root.dataset.merge, "3");
  p.key("Home");
  assert.equal(p.root.dataset.merge, "0");
  const box = new FakeElement("textarea");
  assert.equal(p.key("ArrowRight", { target: box }).defaultPrevented, false);
  assert.equal(p.key("ArrowRight", { ctrlKey: true }).defaultPrevented, false);
  assert.equal(p.root.dataset.merge, "0");
  // on a closed combobox (a Streamlit select just picked) the steps work, not K
  const combo = new FakeElement("input");
  combo.setAttribute("role", "combobox");
  combo.setAttribute("aria-expanded", "false");
  p.key("ArrowRight", { target: combo });
  assert.equal(p.root.dataset.merge, "1");
  p.key("k", { target: combo });
  assert.equal(p.root.dataset.playing, "0");
  p.unmount();
});

test("steps are told to Python once they stop: one report for two quick steps", async () => {
  const p = await mountPlayer();
  p.key("ArrowRight");
  p.key("ArrowRight");
  await sleep(100);
  assert.deepEqual(p.reports, []);                           // (250 ms after the last step)
  await until(() => p.reports.length > 0);
  await sleep(300);
  assert.deepEqual(p.reports.map((r) => [r.k, r.playing, r.seq]), [[2, false, 1]]);
  p.unmount();
});

test("data-report says when a report is due, sent, or dropped (the browser tests wait on it)", async () => {
  const p = await mountPlayer();
  assert.equal(p.root.dataset.report, undefined);            // nothing told yet
  p.key("ArrowRight");
  assert.equal(p.root.dataset.report, "due");
  await until(() => p.root.dataset.report === "sent");      // (after a zero timeout: Streamlit's rerun is asked)
  assert.equal(p.reports.length, 1);
  p.key("ArrowRight");
  assert.equal(p.root.dataset.report, "due");
  p.key("k");                                                // playing drops the step's report
  assert.equal(p.root.dataset.report, "none");
  p.key("K");                                                // the pause is told at once
  await until(() => p.root.dataset.report === "sent");
  assert.equal(p.reports.length, 2);
  p.unmount();
});

test("a live room's teacher tells a step sooner", async () => {
  const p = await mountPlayer({ control: { lead: true } });
  const t = performance.now();
  p.key("ArrowRight");
  await until(() => p.reports.length > 0);
  assert.ok(performance.now() - t < 250);                    // (60 ms after the step; 250 for anyone else)
  assert.equal(p.reports[0].k, 1);
  p.unmount();
});

test("play: a merge a frame at most, at the chosen speed; K pauses; the end stops it", async () => {
  const p = await mountPlayer();
  p.key("k");
  assert.equal(p.root.dataset.playing, "1");
  assert.equal(p.$(".mp-play .mp-lab").textContent, "Pause");
  const t0 = performance.now();
  p.frames.run(t0 + 100);                                    // 2 merges a second: not yet
  assert.equal(p.root.dataset.merge, "0");
  p.frames.run(t0 + 500);
  assert.equal(p.root.dataset.merge, "1");
  p.frames.run(t0 + 5000);                                   // a late frame: the next merge, none skipped
  assert.equal(p.root.dataset.merge, "2");
  p.key("K");
  assert.equal(p.root.dataset.playing, "0");
  assert.deepEqual(p.reports.map((r) => [r.k, r.playing]), [[2, false]]);   // told at once on pause
  p.frames.run(t0 + 9000);
  assert.equal(p.root.dataset.merge, "2");                   // paused: frames move nothing
  p.key("k");
  const t1 = performance.now();
  p.frames.run(t1 + 600);
  assert.equal(p.root.dataset.merge, "3");
  assert.equal(p.root.dataset.playing, "0");                 // the end: it stops there
  assert.equal(p.$(".mp-play .mp-lab").textContent, "Play");
  p.unmount();
});

test("the speed: the select's choices, a new speed told to Python", async () => {
  const p = await mountPlayer({ control: { speeds: [1, 2, 5] } });
  const sel = p.$(".mp-speed select");
  assert.deepEqual(sel.options.map((o) => [o.value, o.textContent]), [["1", "1/s"], ["2", "2/s"], ["5", "5/s"]]);
  assert.equal(sel.value, "2");
  sel.value = "5";
  sel.fire("change");
  await until(() => p.reports.length > 0);
  assert.equal(p.reports[0].speed, 5);
  p.unmount();
});
