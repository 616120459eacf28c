// @ts-check
// The merge player following a live room (components/merge_player): a student's player plays the teacher's play
// state -- {merge, speed, playing, age, v, seq}, handed over by mailbox.js, new only when the teacher acts --
// computing the frames itself, on the teacher's clock.
// A layer of the player, on the one before it (player.js lists them).
import { clampStep } from "./core.js";
import { Clock } from "./clock.js";

/** @import { Follow } from "./follow.js" */

// ms before a student's player reports the merge the room stopped on, plus up to FOLLOW_SPREAD more at random:
// each report is a rerun of the student's panels on the server (~30 ms of CPU), so a teacher's burst of steps
// costs one, and a room's 30 students' reruns come spread over a second, not all at once
const FOLLOW_REPORT = 600;
const FOLLOW_SPREAD = 900;
const PANELS_DELAY = 250; // ms, once the panels come into view with a report due
/** the page's panels that follow the player (app_pages/player.py: section 4, the quiz, the link) */
const PANELS = ".st-key-player_followers";

/** Whether the page's panels below the player are on the screen (true when the page has none). */
function panelsInView() {
  const e = document.querySelector(PANELS);
  if (!e) return true;
  const r = e.getBoundingClientRect();
  return r.bottom > 0 && r.top < window.innerHeight;
}

export class Following extends Clock {
  /** @param {HTMLElement | ShadowRoot} host */
  constructor(host) {
    super(host);
    /** @type {Follow | null} */
    this.fol = null; // a live room's student: the teacher's play state to follow (or null)
    /** @type {string | null} */
    this.followKey = null; // the play state last applied ("v|seq")
    this.panelsDue = false; // the room stopped on a merge while the panels below were off the screen
    // (Streamlit scrolls in an element of its own: a scroll anywhere reaches the document's capture phase)
    this.onPanelsScroll = () => {
      if (this.panelsDue && !this.playing && panelsInView()) this.report(PANELS_DELAY);
    };
    document.addEventListener("scroll", this.onPanelsScroll, { capture: true, passive: true });
  }

  /** @type {Clock["report"]} */
  report(delay, extra) {
    this.panelsDue = false;
    super.report(delay, extra);
  }

  /** (The player's destroy.) */
  unwatchPanels() {
    document.removeEventListener("scroll", this.onPanelsScroll, true);
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
    // A student whose panels are off the screen (a phone shows the player) is reported once they scroll to them.
    if (this.playing) return;
    if (panelsInView()) this.report(FOLLOW_REPORT + Math.floor(Math.random() * FOLLOW_SPREAD));
    else this.panelsDue = true;
  }
}
