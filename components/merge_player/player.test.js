// @ts-check
// Unit tests of the player's data in (player.js): the run, the window and the control as Streamlit and
// mailbox.js hand them, in the fake DOM (components/testing/), on the run "aaabdaaabac".
import { test } from "node:test";
import assert from "node:assert/strict";
import { mail, mountPlayer, pack, until, windowPayload } from "../testing/player_fixture.js";

test("the control moves the player only when its seek number changes", async () => {
  const p = await mountPlayer({ control: { k: 1 } });
  assert.equal(p.root.dataset.merge, "1");
  p.key("ArrowRight");
  mail("control", { tag: "t", k: 1, seq: 1, speed: 2 });    // Python echoing an older merge: no move
  assert.equal(p.root.dataset.merge, "2");
  mail("control", { tag: "t", k: 0, seq: 2, speed: 2 });    // a link, a quiz answer: a seek
  assert.equal(p.root.dataset.merge, "0");
  mail("control", { tag: "t", k: 9, seq: 3, speed: 2 });    // past the end: the end
  assert.equal(p.root.dataset.merge, "3");
  p.unmount();
});

test("presenter view and quiz mode are classes of the root", async () => {
  const p = await mountPlayer();
  assert.equal(p.root.classList.contains("presenter"), false);
  mail("control", { tag: "t", k: 0, seq: 1, speed: 2, presenter: true, quiz: true });
  assert.equal(p.root.classList.contains("presenter"), true);
  assert.equal(p.root.classList.contains("mp-quiz"), true);
  p.unmount();
});

test("a window of another run is not drawn: the text waits for its own", async () => {
  const p = await mountPlayer();
  mail("window", pack(windowPayload({ tag: "other" })));
  await until(() => p.root.dataset.ready === "0");
  assert.equal(p.$(".mp-tokens").textContent, "Loading the text…");
  mail("window", pack(windowPayload()));
  await until(() => p.root.dataset.ready === "1");
  assert.equal(p.tokens().length, 11);
  p.unmount();
});

/**
 * A player mounted on a payload of layout version 2, after a good one was drawn and unmounted: the mailbox
 * still holds that player's control and window, as after a page switch (a mount reads them). Resolves once
 * the player says it cannot start.
 */
async function mountBadVersion() {
  const p = await mountPlayer();
  p.unmount();
  const bad = await import("./player.js");
  const { FakeElement } = await import("../testing/fakedom.js");
  const host = new FakeElement("div");
  const unmount = bad.default({ data: pack({ v: 2 }), parentElement: /** @type {any} */ (host), setStateValue: () => {} });
  const root = /** @type {FakeElement} */ (host.querySelector(".mp"));
  await until(() => root.dataset.ready === "error");
  return { root, unmount };
}

const BAD_VERSION = "The player could not start: payload version 2, expected 1";

test("a payload of another layout version: one clear sentence", async () => {
  const { root, unmount } = await mountBadVersion();
  assert.equal(root.querySelector(".mp-msg")?.textContent, BAD_VERSION);
  unmount();
});

test("a control or a window arriving after a bad payload leaves its sentence said", async () => {
  const { root, unmount } = await mountBadVersion();
  mail("control", { tag: "t", k: 1, seq: 7, speed: 2 });
  mail("window", pack(windowPayload()));
  await new Promise((resolve) => setTimeout(resolve, 0));
  await import("./dom.js").then(({ inflate }) => inflate(pack(windowPayload())));  // (the window's own unpacking)
  assert.equal(root.dataset.ready, "error");
  assert.equal(root.querySelector(".mp-msg")?.hidden, false);
  assert.equal(root.querySelector(".mp-msg")?.textContent, BAD_VERSION);
  unmount();
});
