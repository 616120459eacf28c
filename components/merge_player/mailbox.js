// @ts-check
// Mailbox of the merge player (components/merge_player): the text window, the controls and a live room's
// play state ("follow") travel as elements of their own, so each is re-sent only when it changes. This
// module hands their data to the player module (player.js) through one registry on globalThis; the player
// may mount before or after.
//
// A live room's student (the "follow" element: {code, on, seq, tag, merge, speed, playing, age, v, sig}):
// while the page is in a room, this module asks the app's own route for the room's play state
// (liveroom.endpoint.play_endpoint, GET _bpe/room/CODE?v=&s=: a long poll, answered when the teacher acts or
// after ~20 s; no script run on the server) and hands each newer state to the player, which plays it. When
// the room's question, reveal or run changes (its "sig") or the room closes, it tells the page (its "room"
// state), which reruns to show it. The player module itself fetches nothing (it also runs offline, in the
// downloaded run page). Its pure parts are follow.js (bundled with it: dist/mailbox.js).
import { mergeFollow, takeAnswer } from "./follow.js";

/** @import { Follow } from "./follow.js" */
/** @typedef {(name: string, value: unknown) => void} SetState */

/**
 * @typedef {Object} Room  A student's live room on this page (one per page).
 * @property {Follow | null} data  the room as last known (null: not in a room)
 * @property {boolean} looping  a long poll is running
 * @property {SetState | null} tell  the follow element's setStateValue: tells the page of news
 * @property {object | null} owner  the follow element's mount that set ``tell`` (its cleanup forgets it)
 * @property {number} news  how many times the page was told
 */

/**
 * @typedef {Object} Registry
 * @property {{ window?: unknown, control?: unknown, follow?: unknown, [kind: string]: unknown }} box  the last
 *   data of each element ("window": a packed window payload; "control": a Control, see core.js; "follow": a
 *   Follow, see follow.js)
 * @property {Set<(kind: string, data: unknown) => void>} listeners  players waiting for data
 * @property {Room} [room]
 */

/** @type {Registry} */
const REG = (/** @type {any} */ (globalThis)[Symbol.for("bpe-lab.merge-player")] ??= { box: {}, listeners: new Set() });
/** @type {Room} */
const ROOM = (REG.room ??= { data: null, looping: false, tell: null, owner: null, news: 0 });
const PAUSE = 100; // ms before asking again after an unchanged answer (a long poll that timed out)
const RETRY = 2000; // ms before asking again after an error

/**
 * The window's, the control's and the follow element's (all run this module; the element's name tells which).
 * @param {{ name: string, data: unknown, setStateValue: SetState }} args
 * @returns {() => void}  the cleanup: forgets the data unless newer data came since
 */
export default function mailbox({ name, data, setStateValue }) {
  const kind = name.endsWith("_window") ? "window" : name.endsWith("_follow") ? "follow" : "control";
  if (kind === "follow") return follow(/** @type {Follow | null} */ (data), setStateValue);
  REG.box[kind] = data;
  for (const listener of REG.listeners) listener(kind, data);
  return () => {
    if (REG.box[kind] === data) delete REG.box[kind];
  };
}

/** @param {Follow | null} data */
function publish(data) {
  REG.box.follow = data;
  for (const listener of REG.listeners) listener("follow", data);
}

/** @param {{ closed?: boolean, sig?: number }} what */
function tell(what) {
  ROOM.news += 1;
  if (ROOM.tell) ROOM.tell("room", { ...what, n: ROOM.news });
}

/**
 * @param {Follow | null} data
 * @param {SetState} setStateValue
 * @returns {() => void}
 */
function follow(data, setStateValue) {
  const mount = {};
  ROOM.tell = setStateValue;
  ROOM.owner = mount;
  const next = mergeFollow(ROOM.data, data, performance.now());
  ROOM.data = next;
  publish(next);
  if (next) poll();
  return () => {
    if (ROOM.data === next) ROOM.data = null; // the page left the room: the loop ends
    // and an answer still on its way tells no one: the element's fragment may be gone from the page (a rerun
    // asked of a fragment the server no longer has is refused, and logged)
    if (ROOM.owner === mount) ROOM.tell = ROOM.owner = null;
  };
}

async function poll() {
  if (ROOM.looping) return;
  ROOM.looping = true;
  let wait = 0;
  while (ROOM.data && ROOM.data.code) {
    if (wait) await new Promise((resolve) => setTimeout(resolve, wait));
    const f = ROOM.data;
    if (!f || !f.code) break;
    wait = 0;
    try {
      const url = new URL(`_bpe/room/${encodeURIComponent(f.code)}`, window.location.href);
      url.searchParams.set("v", String((f.v ?? 0) | 0));
      url.searchParams.set("s", String((f.sig ?? 0) | 0));
      const r = await fetch(url, { cache: "no-store" });
      if (r.status === 404) {
        // the room has closed: the loop ends here, once (and is not started again for it: a page left by
        // navigation may never run the element's cleanup); the page, if it still shows this room, says so
        if (ROOM.data && ROOM.data.code === f.code) {
          ROOM.data = null;
          tell({ closed: true });
        }
        break;
      }
      if (!r.ok) throw new Error(String(r.status));
      const p = await r.json();
      const now = ROOM.data;
      if (!now || now.code !== f.code) continue;
      const { next, changed, news } = takeAnswer(now, p, performance.now());
      if (news) tell({ sig: p.sig }); // a question, a reveal, a new run: the page reruns to show it
      if (changed) {
        ROOM.data = next;
        publish(next);
      } else wait = PAUSE;
    } catch {
      wait = RETRY; // the server is away for a moment: the player keeps its own clock
    }
  }
  ROOM.looping = false;
}
