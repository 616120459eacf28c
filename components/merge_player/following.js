// @ts-check
// The merge player following a live room (components/merge_player): a student's player plays the teacher's play
// state -- {merge, speed, playing, age, v, seq}, handed over by mailbox.js, new only when the teacher acts --
// computing the frames itself, on the teacher's clock.
// A layer of the player, on the one before it (player.js lists them).
import { clampStep } from "./core.js";
import { Clock } from "./clock.js";
import { REPORT_DELAY } from "./base.js";

/** @import { Follow } from "./follow.js" */

export class Following extends Clock {
  /** @param {HTMLElement | ShadowRoot} host */
  constructor(host) {
    super(host);
    /** @type {Follow | null} */
    this.fol = null; // a live room's student: the teacher's play state to follow (or null)
    /** @type {string | null} */
    this.followKey = null; // the play state last applied ("v|seq")
  }

  // A live room's student follows the teacher's play state {tag, merge, speed, playing, age, v, seq}: it
  // arrives only when the teacher acts (v) or the student rejoins (seq), never per frame; this browser then
  // computes the frames itself, and reports the merge it stops on. ``age``: ms between the teacher's action and the server sending it.
  applyFollow() {
    const f = this.fol;
    const run = this.run;
    if (!f || !f.on || !run || this.positioned !== run.tag || f.tag !== run.tag) return;
    const key = `${f.v}|${f.seq}`;
    if (key === this.followKey) return;
    this.followKey = key;
    this.stop();
    if (typeof f.speed === "number" && this.speeds.includes(f.speed)) this.speed = f.speed;
    let k = clampStep((f.merge ?? 0) | 0, run.n);
    if (f.playing && k < run.n) {
      const age = Math.max(0, Number(f.age) || 0) + (performance.now() - (f.received ?? performance.now()));
      const ahead = Math.floor((age * this.speed) / 1000);
      k = Math.min(run.n, k + ahead);
      this.show(k, { animate: false });
      if (k < run.n) {
        this.play();
        this.k0 = k; // the teacher's clock: the next merge comes when it comes on the teacher's screen
        this.t0 = performance.now() - (age - (ahead * 1000) / this.speed);
      }
    } else this.show(k, { animate: false });
    // stopped on the teacher's merge: Python hears it as after a step of the student's own, and the panels below
    // the player (the tables, the tree, the link) follow; not while it plays (its stop at the end reports).
    // (Even when the control's merge is this one: a report of another merge may be on its way, unanswered.)
    if (!this.playing) this.report(REPORT_DELAY);
  }
}
