// @ts-check
// Unit tests of a student's player following a live room (following.js), in the fake DOM
// (components/testing/), on the run "aaabdaaabac" (3 merges). The play state arrives as mailbox.js hands it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { DOM, mail, mountPlayer, sleep, until } from "../testing/player_fixture.js";

const ROOM = { code: "7KQ2MX", on: true, seq: 1, tag: "t", merge: 2, speed: 2, playing: false, age: 0, v: 1, sig: 0 };

test("a paused teacher: the student's player shows the teacher's merge", async () => {
  const p = await mountPlayer();
  mail("follow", ROOM);
  assert.equal(p.root.dataset.following, "1");
  assert.equal(p.root.dataset.merge, "2");
  assert.equal(p.root.dataset.playing, "0");
  p.unmount();
});

test("a playing teacher: the student starts where the teacher is now, and plays", async () => {
  const p = await mountPlayer();
  // the teacher pressed play at merge 0, 1.2 s ago at 2 merges a second: merge 2 is on the teacher's screen
  mail("follow", { ...ROOM, merge: 0, playing: true, age: 1200 });
  assert.equal(p.root.dataset.merge, "2");
  assert.equal(p.root.dataset.playing, "1");
  // the next merge comes when it comes on the teacher's screen: 1.5 s after the press, not 0.5 s from now
  p.frames.run(performance.now() + 250);
  assert.equal(p.root.dataset.merge, "2");
  p.frames.run(performance.now() + 350);
  assert.equal(p.root.dataset.merge, "3");
  p.unmount();
});

test("the same play state is applied once; a newer one, a rejoin, or another run's is told apart", async () => {
  const p = await mountPlayer();
  mail("follow", ROOM);
  p.key("ArrowLeft");                                        // the student looks back
  mail("follow", { ...ROOM });                               // (the same state again: the student stays)
  assert.equal(p.root.dataset.merge, "1");
  mail("follow", { ...ROOM, seq: 2 });                       // a rejoin: back with the teacher
  assert.equal(p.root.dataset.merge, "2");
  mail("follow", { ...ROOM, v: 2, merge: 3 });               // the teacher moved
  assert.equal(p.root.dataset.merge, "3");
  mail("follow", { ...ROOM, v: 3, merge: 0, tag: "other" }); // another run's: not this one
  assert.equal(p.root.dataset.merge, "3");
  mail("follow", { ...ROOM, v: 4, on: false });              // exploring on one's own
  assert.equal(p.root.dataset.following, "0");
  assert.equal(p.root.dataset.merge, "3");
  p.unmount();
});

test("the merge the room stops on is reported, as a step is: the panels below follow", async () => {
  const p = await mountPlayer();
  mail("follow", ROOM);                                      // the teacher stopped on merge 2
  await until(() => p.reports.length > 0);
  assert.deepEqual(p.reports.map((r) => [r.k, r.playing, r.seq]), [[2, false, 1]]);
  mail("follow", { ...ROOM, v: 2, merge: 0, playing: true }); // playing: nothing is reported per merge ...
  for (const ms of [500, 1000, 1500]) p.frames.run(performance.now() + ms); // (2 merges a second: one a frame)
  assert.equal(p.root.dataset.merge, "3");                   // ... up to the end, where it stops and says so
  assert.deepEqual(p.reports.map((r) => [r.k, r.playing]), [[2, false], [3, false]]);
  p.unmount();
});

test("panels off the screen (a phone shows the player): reported once they are scrolled to", async () => {
  const p = await mountPlayer();
  const doc = /** @type {any} */ (DOM.document);
  let top = 2000;                                            // section 4, below a 720 px screen
  const panels = { getBoundingClientRect: () => ({ top, bottom: top + 500 }) };
  doc.querySelector = (/** @type {string} */ sel) => (sel === ".st-key-player_followers" ? panels : null);
  try {
    mail("follow", ROOM);
    assert.equal(p.root.dataset.merge, "2");
    for (const fn of doc.listeners.scroll) fn();             // a scroll that does not reach them: nothing yet
    await sleep(300);
    assert.deepEqual(p.reports, []);
    top = 300;                                               // scrolled to them
    for (const fn of doc.listeners.scroll) fn();
    await until(() => p.reports.length > 0);
    for (const fn of doc.listeners.scroll) fn();             // once
    await sleep(300);
    assert.deepEqual(p.reports.map((r) => [r.k, r.playing]), [[2, false]]);
  } finally {
    doc.querySelector = () => null;
  }
  p.unmount();
});
