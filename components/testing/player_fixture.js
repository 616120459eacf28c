// The merge player mounted in the fake DOM (fakedom.js), for the unit tests of its layers (node --test). The run
// is bpe.train("aaabdaaabac", 259, pattern=None): its payloads as views.player_payload makes them (run_payload,
// window_payload with level "byte"; the 256 base tokens' pieces left out). Merge 1 makes 256 = "aa" (count 4),
// merge 2 257 = "ab" (count 2, tied with "aa"+"a"), merge 3 258 = "aaab" (count 2): 11, 9, 7, 5 tokens.
import { gzipSync } from "node:zlib";
import { FakeElement, installDom } from "./fakedom.js";
import mount from "../merge_player/player.js";

export const DOM = installDom();

/** @param {Record<string, unknown>} [over] */
export function runPayload(over = {}) {
  return {
    v: 1, tag: "t", n: 3, unit: "byte", base: 256, specials: 0, bytes: 11, complete: true,
    stop: "reached the vocabulary size", tie: "broken by the lexical rule: smaller token ids win, as in rustbpe",
    palette: ["#fde2e4", "#e2ece9", "#fff1c1", "#dbe7ff", "#f0dfff", "#d8f3dc", "#ffe5d0", "#d7f0f7", "#f6d6e8",
      "#e8e8c8"],
    accent: { winner: "#d62728", tie: "#ff9f1c", other: "#9db4d3", marker: "#6a3d9a" },
    label: { 97: "a", 98: "b", 99: "c", 100: "d", 256: "aa", 257: "ab", 258: "aaab" },
    nbytes: { 97: 1, 98: 1, 99: 1, 100: 1, 256: 2, 257: 2, 258: 4 },
    color: { 97: 6, 98: 3, 99: 9, 100: 1, 256: 7, 257: 9, 258: 8 },
    special: [], piece: {}, fallback: [],
    pair: [97, 97, 97, 98, 256, 257], count: [4, 2, 2], ties: [0, 1, 0], capped: [], tokens: [11, 9, 7, 5],
    held: null, held_bytes: 0,
    top_pairs: [97, 97, 97, 98, 97, 99, 98, 97, 98, 100, 100, 97, 256, 97, 100, 256, 256, 257, 257, 97, 257, 100],
    top_n: [6, 6, 5], top_i: [0, 1, 2, 3, 4, 5, 1, 6, 2, 3, 4, 7, 8, 2, 7, 9, 10],
    top_c: [4, 2, 1, 1, 1, 1, 2, 2, 1, 1, 1, 1, 2, 1, 1, 1, 1],
    ...over,
  };
}

/** @param {Record<string, unknown>} [over] */
export function windowPayload(over = {}) {
  return {
    v: 1, tag: "t", first: 0, chars: 11, total: 11, bytes: 11,
    start: [0, 0, 0, 1, 2, 2, 3, 4, 5, 5, 5, 6, 7, 7, 8, 9, 10],
    id: [258, 256, 97, 97, 257, 97, 98, 100, 258, 256, 97, 97, 257, 97, 98, 97, 99],
    from: [3, 1, 0, 0, 2, 0, 0, 0, 3, 1, 0, 0, 2, 0, 0, 0, 0],
    to: [3, 2, 0, 0, 2, 1, 1, 3, 3, 2, 0, 0, 2, 1, 1, 3, 3],
    sp: [], cs: [], ch_len: [], ch_label: [],
    ...over,
  };
}

/** A payload packed as Python packs it (gzip-compressed JSON). @param {unknown} obj */
export const pack = (obj) => new Uint8Array(gzipSync(JSON.stringify(obj)));

/** @param {number} ms */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Wait (a few ms at a time) until ``ok()`` holds. The 10 s are a hang detector: each wait is over in
 * milliseconds on a quiet machine.
 * @param {() => boolean} ok
 */
export async function until(ok) {
  const deadline = Date.now() + 10_000;
  while (!ok() && Date.now() < deadline) await sleep(5);
  if (!ok()) throw new Error("the player never got there");
}

let unmountLast = () => {};

/** The mailbox the player and mailbox.js share. */
export const REG = /** @type {any} */ (globalThis)[Symbol.for("bpe-lab.merge-player")] ??= { box: {}, listeners: new Set() };

/**
 * Hand the player data as mailbox.js does.
 * @param {string} kind  "control", "window" or "follow"
 * @param {unknown} value
 */
export function mail(kind, value) {
  REG.box[kind] = value;
  for (const listener of REG.listeners) listener(kind, value);
}

/**
 * Mount a player on the run, with its window and a control at merge ``k``; resolves once it is drawn. ``motion``:
 * steps forward animate (two tokens joining, bars fading); by default the browser asks for reduced motion.
 * @param {{ run?: Record<string, unknown>, win?: Record<string, unknown>, control?: Record<string, unknown>,
 *   motion?: boolean }} [opts]
 */
export async function mountPlayer({ run = {}, win = {}, control = {}, motion = false } = {}) {
  unmountLast();                                 // (the player of a test that failed before its unmount)
  for (const kind of Object.keys(REG.box)) delete REG.box[kind];
  /** @type {any} */ (DOM.window).matchMedia = () => ({ matches: !motion });
  const host = new FakeElement("div");
  host.connected = true;
  /** @type {Array<Record<string, any>>} */
  const reports = [];
  const unmount = mount({ data: pack(runPayload(run)), parentElement: /** @type {any} */ (host),
    setStateValue: (/** @type {string} */ name, /** @type {any} */ value) => {
      if (name === "view") reports.push(value);
    } });
  mail("control", { tag: "t", k: 0, seq: 1, speed: 2, metric: "bytes_per_token", presenter: false, quiz: false,
    ...control });
  mail("window", pack(windowPayload(win)));
  unmountLast = () => {
    unmountLast = () => {};
    unmount();
  };
  const root = /** @type {FakeElement} */ (host.querySelector(".mp"));
  await until(() => root.dataset.ready === "1");
  /** @param {string} sel */
  const $ = (sel) => /** @type {FakeElement} */ (root.querySelector(sel));
  /** @param {string} sel */
  const $$ = (sel) => root.querySelectorAll(sel);
  /** the labels of the tokens of the text, in order ("aa+ab" for two tokens still joining) */
  const tokens = () => $$(".tok, .joining").filter((t) => !t.parentNode?.matches(".joining")).map((t) =>
    t.matches(".joining") ? t.children.map((half) => half.title.split(" · ")[1]).join("+") : t.title.split(" · ")[1]);
  return { host, root, reports, unmount: unmountLast, $, $$, tokens, key: DOM.document.key, frames: DOM.frames };
}
