// @ts-check
// A live room's play state on a student's page: the pure parts of mailbox.js (joined before it into one
// module by components/merge_player/__init__.py; tested by follow.test.js with `node --test`).

/**
 * @typedef {{code?: string, on?: boolean, seq?: number, tag?: string, merge?: number, speed?: number,
 *   playing?: boolean, age?: number, v?: number, sig?: number, received?: number}} Follow
 */

/**
 * The room as the page now says it is (``data``, from Python), kept against what was fetched before
 * (``prev``): a page's copy older than the fetched play state (a lower ``v``) keeps the fetched one; the
 * higher ``sig`` is kept. ``now``: performance.now() (when the state was received). No code: no room (null).
 * @param {Follow | null} prev
 * @param {Follow | null | undefined} data
 * @param {number} now
 * @returns {Follow | null}
 */
export function mergeFollow(prev, data, now) {
  if (!data || !data.code) return null;
  const next = { ...data, received: now };
  if (prev && prev.code === next.code) {
    if (Number(prev.v) > Number(next.v)) {
      Object.assign(next, { merge: prev.merge, speed: prev.speed, playing: prev.playing, age: prev.age,
        v: prev.v, received: prev.received });
    }
    next.sig = Math.max(Number(prev.sig) || 0, Number(next.sig) || 0);
  }
  return next;
}

/**
 * The room after the server's answer ``p`` to the long poll: a newer play state (higher ``v``) replaces
 * the one held; a different ``sig`` (a question, a reveal, a new run) is news for the page.
 * @param {Follow} now
 * @param {{merge: number, speed: number, playing: boolean, age: number, v: number, sig: number}} p
 * @param {number} received performance.now() at the answer
 * @returns {{next: Follow, changed: boolean, news: boolean}}
 */
export function takeAnswer(now, p, received) {
  const next = { ...now };
  const news = Number(p.sig) !== Number(now.sig);
  if (news) next.sig = p.sig;
  const newer = Number(p.v) > Number(now.v);
  if (newer) Object.assign(next, { merge: p.merge, speed: p.speed, playing: p.playing, age: p.age, v: p.v, received });
  return { next, changed: news || newer, news };
}
