// @ts-check
// The merge player's charts (components/merge_player): the pair chart -- the pairs counted before each merge, the
// winner marked -- and the compression curve with its metric switch.
// A layer of the player, on the one before it (player.js lists them).
import { barRole, chartMax, chartPath, chartScales, CHART, fmt, metricValue, topPair } from "./core.js";
import { PlayerBase, REPORT_DELAY } from "./base.js";
import { el, setVar, svg } from "./dom.js";

// The words that differ when the player replays a real vocabulary (payload mode "replay": each step applies
// one of the vocabulary's merges, in rank order, instead of a merge a training run chose by count)
/** @type {{ train: string, replay: string }} */
export const PAIRS_CAP = {
  train: "Before every merge the trainer counts each pair of neighbouring tokens and merges the most frequent: " +
    "the bar marked ▶. Bars marked = had the same count and lost on the tie rule.",
  replay: "Not a count this time: the vocabulary's merges fire in rank order (lowest first), whatever their " +
    "counts. ▶ is this step's merge, below it the merges that fire next; a bar is how many times that " +
    "merge fires in the text.",
};

const PRESENTER_BARS = 8; // a projector shows fewer, larger bars

/**
 * @typedef {Object} Curve  The compression chart as drawn for a metric: its scales, the current-step marker
 *   and each series' dot (with the series' token counts and bytes).
 * @property {(j: number) => number} x
 * @property {(v: number) => number} y
 * @property {SVGLineElement} marker
 * @property {Array<[SVGCircleElement, number[], number]>} marks
 */

export class Charts extends PlayerBase {
  /** @type {Map<string, HTMLDivElement>} the pair chart's bars, by pair */ rows;
  /** @type {Curve | null} */ curve;
  /** @type {HTMLHeadingElement} */ pairsHead;
  /** @type {HTMLParagraphElement} */ pairsCap;
  /** @type {HTMLDivElement} */ bars;
  /** @type {HTMLDivElement} */ quizNote;
  /** @type {HTMLDivElement} */ axis;
  /** @type {{ [metric: string]: HTMLButtonElement }} */ metricBtns;
  /** @type {HTMLParagraphElement} */ curveCap;
  /** @type {SVGSVGElement} */ chart;
  /** @type {HTMLDivElement} */ legend;
  /** @type {HTMLElement} */ pairsPanel;
  /** @type {HTMLElement} */ curvePanel;

  /** @param {HTMLElement | ShadowRoot} host */
  constructor(host) {
    super(host);
    this.rows = new Map();
    this.curve = null;
    const pairs = el("section", "mp-panel mp-pairs");
    this.pairsHead = el("h3", "", "1 · Which pair gets merged");
    this.pairsCap = el("p", "mp-capline", PAIRS_CAP.train);
    pairs.append(this.pairsHead, this.pairsCap);
    this.bars = el("div", "mp-bars");
    this.bars.setAttribute("role", "list");
    this.quizNote = el("div", "mp-quiznote",
      "Hidden while you predict the next merge: this chart shows the answer. It comes back with the answer.");
    this.axis = el("div", "mp-axis");
    pairs.append(this.bars, this.quizNote, this.axis);

    const curve = el("section", "mp-panel mp-curve");
    const head = el("div", "mp-curvehead");
    head.append(el("h3", "", "3 · Compression"));
    this.metricBtns = {};
    const seg = el("div", "mp-seg");
    for (const [m, label] of [["bytes_per_token", "Bytes per token"], ["tokens", "Tokens"]]) {
      const b = el("button", "mp-segbtn", label);
      b.type = "button";
      b.addEventListener("click", () => this.setMetric(m));
      this.metricBtns[m] = b;
      seg.append(b);
    }
    head.append(seg);
    this.curveCap = el("p", "mp-capline");
    this.chart = svg("svg", { class: "mp-svg", viewBox: "0 0 640 220" });
    this.legend = el("div", "mp-legend");
    curve.append(head, this.curveCap, this.chart, this.legend);
    this.pairsPanel = pairs;
    this.curvePanel = curve;
  }

  /** @param {string} m  "bytes_per_token" or "tokens" */
  setMetric(m) {
    this.metric = m;
    this.curve = null;
    this.drawCurve(this.k);
    if (!this.playing) this.report(REPORT_DELAY);
  }

  /** @param {number} k */
  drawBars(k) {
    const run = this.theRun;
    if (this.root.classList.contains("mp-quiz") !== !!this.quiz) this.root.classList.toggle("mp-quiz", !!this.quiz);
    if (!run.n) {
      this.axis.textContent = "No pair of tokens: nothing to merge.";
      return;
    }
    const r = k === 0 ? 0 : k - 1;
    this.axis.textContent = run.replay
      ? (k === 0 ? "The merges that fire first, lowest rank first." : `Step ${fmt(k)} and the steps after it, in rank order.`)
      : (k === 0 ? "Count now: the top pair is merged first." : `Count just before merge ${fmt(k)}.`);
    const presenter = this.root.classList.contains("presenter");
    const from = run.topStart[r];
    const count = presenter ? Math.min(PRESENTER_BARS, run.top_n[r]) : run.top_n[r];
    const winner = run.count[r];
    let max = 1; // (the winner's count for a run; a replay's counts are in rank order, not sorted)
    for (let j = 0; j < count; j++) max = Math.max(max, run.top_c[from + j]);
    const acc = run.accent;
    /** @type {Set<string>} */
    const seen = new Set();
    /** @type {HTMLDivElement[]} */
    const entering = [];
    for (let j = 0; j < count; j++) {
      const [a, b] = topPair(run, from + j);
      const key = a < 0 ? `lookup:${run.new[run.top_i[from + j]]}` : `${a},${b}`; // (a replay's lookup has no pair)
      const c = run.top_c[from + j];
      seen.add(key);
      let row = this.rows.get(key);
      if (!row) {
        row = el("div", "bar enter");
        row.setAttribute("role", "listitem");
        row.dataset.pair = key;
        const fillDiv = el("div", "bar-fill");
        const label = el("span", "bar-label");
        if (a < 0) label.append(el("span", "bar-mark"), el("span", "bar-plus", "lookup"), this.chip(run.new[run.top_i[from + j]]));
        else label.append(el("span", "bar-mark"), this.chip(a), el("span", "bar-plus", "+"), this.chip(b));
        row.append(fillDiv, label, el("span", "bar-count"));
        this.rows.set(key, row);
        this.bars.append(row);
        entering.push(row);
      }
      row.classList.remove("leave");
      const role = barRole(j, c, winner, run.replay);
      row.dataset.role = role;
      row.dataset.count = String(c);
      setVar(row, "--i", String(j));
      setVar(row, "--w", (c / max).toFixed(4));
      setVar(row, "--bar", role === "winner" ? acc.winner : role === "tie" ? acc.tie : acc.other);
      /** @type {HTMLSpanElement} */ (row.querySelector(".bar-mark")).textContent =
        role === "winner" ? "▶" : role === "tie" ? "=" : "";
      /** @type {HTMLSpanElement} */ (row.querySelector(".bar-count")).textContent = fmt(c);
      row.title = run.replay
        ? `${a < 0 ? `lookup of ${run.label[run.new[run.top_i[from + j]]]}` : `${run.label[a]} + ${run.label[b]}`}: ` +
          `rank ${fmt(run.rank[run.top_i[from + j]])}, fires ${fmt(c)} times` +
          (j === 0 ? (k ? " (this step)" : " (fires first)") : "")
        : `${run.label[a]} + ${run.label[b]}: ${fmt(c)} times` +
          (role === "winner" ? " (merged)" : role === "tie" ? " (tie)" : "");
    }
    setVar(this.bars, "--rows", String(presenter ? Math.min(PRESENTER_BARS, run.rows) : run.rows));
    // new rows fade in at their place: shown from the next frame on (no forced layout here)
    if (entering.length) requestAnimationFrame(() => requestAnimationFrame(() => {
      for (const row of entering) row.classList.remove("enter");
    }));
    for (const [key, row] of this.rows) {
      if (seen.has(key)) continue;
      this.rows.delete(key);
      if (this.reduced.matches || this.bars.classList.contains("mp-still")) row.remove();
      else {
        row.classList.add("leave");
        setTimeout(() => row.remove(), 400);
      }
    }
  }

  /** @param {number} k */
  drawCurve(k) {
    const run = this.theRun;
    const { W, H, L, R, T, B } = CHART;
    const perToken = this.metric !== "tokens";
    /** @type {Array<[string, number[], number, string]>} */
    const series = [[run.replay ? "your text" : "training text", run.tokens, run.bytes, "train"]];
    if (run.held) series.push(["held-out text", run.held, run.held_bytes, "held"]);
    let curve = this.curve;
    if (!curve) {
      for (const [m, b] of Object.entries(this.metricBtns)) b.classList.toggle("on", m === this.metric);
      const ymax = chartMax(series.map(([, counts, nbytes]) => [counts, nbytes]), run.n, perToken);
      const { x, y } = chartScales(run.n, ymax);
      /** @type {SVGElement[]} */
      const nodes = [];
      for (const frac of [0, 0.5, 1]) {
        const v = ymax * frac / 1.05;
        nodes.push(svg("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid" }));
        const t = svg("text", { x: L - 6, y: y(v) + 4, class: "tick", "text-anchor": "end" });
        t.textContent = perToken ? v.toFixed(2) : fmt(v);
        nodes.push(t);
      }
      for (const frac of [0, 0.5, 1]) {
        const j = Math.round(run.n * frac);
        const anchor = frac === 0 ? "start" : frac === 1 ? "end" : "middle";
        const t = svg("text", { x: x(j), y: H - B + 16, class: "tick", "text-anchor": anchor });
        t.textContent = fmt(j);
        nodes.push(t);
      }
      const xl = svg("text", { x: (L + W - R) / 2, y: H - 2, class: "axis", "text-anchor": "middle" });
      xl.textContent = run.replay ? "steps" : "merges";
      nodes.push(xl);
      /** @type {Curve["marks"]} */
      const marks = [];
      for (const [name, counts, nbytes, cls] of series) {
        /** @param {number} j */
        const at = (j) => `${x(j).toFixed(1)},${y(metricValue(perToken, counts, nbytes, j)).toFixed(1)}`;
        nodes.push(svg("path", { d: chartPath(run.n, at), class: `line ${cls}` }));
        const dot = svg("circle", { r: 6, class: `dot ${cls}` });
        dot.dataset.series = name;
        marks.push([dot, counts, nbytes]);
      }
      const marker = svg("line", { y1: T, y2: H - B, class: "marker" });
      nodes.push(marker, ...marks.map((m) => m[0]));
      this.chart.replaceChildren(...nodes);
      curve = this.curve = { x, y, marker, marks };
      this.legend.replaceChildren();
      for (const [name, , , cls] of series) {
        const item = el("span", `mp-key ${cls}`);
        item.append(el("i"), name);
        this.legend.append(item);
      }
      const yname = perToken ? "bytes per token" : "tokens";
      this.curveCap.textContent = run.replay
        ? `${yname[0].toUpperCase()}${yname.slice(1)} of your text after each step: a step applies one of ` +
          `${run.vocab}'s merges everywhere in the text, lowest rank first. The dotted line is the current step.`
        : run.held
        ? `${yname[0].toUpperCase()}${yname.slice(1)} after each merge: solid for the training text, dashed for ` +
          "the last 10% of the text, held out of training (how the tokenizer does on text it has not seen). " +
          "The dotted line is the current merge."
        : `${yname[0].toUpperCase()}${yname.slice(1)} after each merge. The dotted line is the current merge. ` +
          "(Short texts are not split, so there is no held-out curve.)";
      this.chart.setAttribute("aria-label", `${yname} against ${run.replay ? "steps" : "merges"}`);
    }
    const { x, y, marker, marks } = curve;
    const px = x(k);
    marker.style.transform = `translate(${px.toFixed(1)}px,0px)`;
    for (const [dot, counts, nbytes] of marks) {
      dot.style.transform = `translate(${px.toFixed(1)}px,${y(metricValue(perToken, counts, nbytes, k)).toFixed(1)}px)`;
    }
  }
}
