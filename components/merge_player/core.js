// @ts-check
// The merge player's pure parts (no DOM, no clock): the payloads' types, what a run and a text window are
// prepared into, which nodes are on screen at a step, the step / jump / play arithmetic, the transition
// times, the compression chart's scales and the words' numbers. Unit-tested with `node --test
// components/merge_player/` (core.test.js); the player's layers (player.js lists them) import it.

/**
 * @typedef {Object} Accent  The chart colors of a palette (views.theme.accent_colors).
 * @property {string} winner
 * @property {string} tie
 * @property {string} other
 * @property {string} marker
 */

/**
 * @typedef {Object} RunPayload  What Python sends once per run and palette: views.player_payload.run_payload
 *   (a training run) or views.vocab_player's payload (mode "replay": a vocabulary's merges, in rank order).
 *   Per-token fields are lists indexed by id (a run) or objects keyed by the id (a replay): both index by id.
 * @property {number} v  the payload layout's version (SCHEMA)
 * @property {string} tag  names the run: the window payload and the control carry it
 * @property {"replay"} [mode]  absent: a training run
 * @property {string} [vocab]  the replayed vocabulary's name (a replay)
 * @property {number} [vocab_size]
 * @property {number} n  merges (steps)
 * @property {string} unit  "byte" or "character"
 * @property {number} base  base tokens
 * @property {number} specials  special tokens
 * @property {number} bytes  of the training text
 * @property {boolean} complete
 * @property {string} stop  why training stopped
 * @property {string} tie  how ties are broken, in words
 * @property {string[]} palette
 * @property {Accent} accent
 * @property {{ [id: number]: string }} label  each token's visible label
 * @property {{ [id: number]: number }} nbytes  each token's byte length
 * @property {{ [id: number]: number }} color  each token's color (index into palette)
 * @property {number[]} special  ids of special tokens
 * @property {number[]} [fallback]  ids of byte-fallback tokens <0xNN> (a SentencePiece-style run)
 * @property {{ [id: string]: string }} piece  inner HTML (escaped by Python) where it differs from the label
 * @property {number[]} pair  per merge: left, right (flat; left < 0: a replay's whole-chunk lookup)
 * @property {number[]} count  per merge: its count (a replay: how many times it fires)
 * @property {number[]} ties  per merge: how many other pairs had the winner's count
 * @property {number[]} capped  ranks where there may be more ties
 * @property {number[]} tokens  N + 1 token counts: after 0..N merges
 * @property {number[] | null} held  the same for the held-out text
 * @property {number} held_bytes
 * @property {number[]} top_pairs  the table of pairs in the pair chart (flat)
 * @property {number[]} top_n  per merge: how many bars
 * @property {number[]} top_i  the bars' pairs (index into top_pairs), merge after merge
 * @property {number[]} top_c  the bars' counts
 * @property {number[]} [new]  per step: the new token's id (a replay)
 * @property {number[]} [rank]  per step: the vocabulary's rank of its merge (a replay)
 * @property {{ [step: string]: number[] }} [alt]  per step: other splits (left, right, times, ...)
 * @property {{ [step: string]: number }} [lookups]  per step: whole chunks looked up
 * @property {{ [step: string]: number }} [cascade]  per step: lower-ranked merges that had to wait
 */

/**
 * @typedef {Object} RunExtras  What the player derives from a run payload once (prepareRun).
 * @property {boolean} replay
 * @property {string} word  "Step" (a replay) or "Merge"
 * @property {string} vocab
 * @property {number[]} new
 * @property {number[]} rank
 * @property {{ [step: string]: number[] }} alt
 * @property {{ [step: string]: number }} lookups
 * @property {{ [step: string]: number }} cascade
 * @property {Set<number>} isSpecial
 * @property {Set<number>} isFallback  byte-fallback tokens <0xNN>: one byte of a character outside the alphabet
 * @property {Set<number>} cappedAt  the ranks in ``capped``
 * @property {Int32Array} topStart  where each merge's bars start in top_i / top_c (N + 1 values)
 * @property {number} rows  the most bars of any merge (at least 1): the chart keeps its height
 * @property {Map<number, number> | null} madeBy  token id -> the step (0-based) that made it (built lazily)
 */

/** @typedef {RunPayload & RunExtras} Run */

/**
 * @typedef {Object} WindowPayload  What Python sends once per text window (views.player_payload.window_payload).
 *   Nodes are sorted by byte offset, longest first; a node is on screen at step k when from <= k <= to.
 * @property {number} v
 * @property {string} tag  the run it belongs to
 * @property {number} first  where the window starts in the text (characters)
 * @property {number} chars  the window's length (characters)
 * @property {number} total  the whole text's length (characters)
 * @property {number} bytes  the window's length (bytes)
 * @property {number[]} start  per node: its byte offset
 * @property {number[]} id  per node: its token id
 * @property {number[]} from  per node: the step it appears at
 * @property {number[]} to  per node: the last step it is on screen
 * @property {number[]} sp  indices of special-token nodes
 * @property {number[]} cs  byte offsets where a pre-tokenizer chunk starts
 * @property {number[]} ch_len  each character's UTF-8 length (only at byte level with multi-byte characters)
 * @property {string[]} ch_label  each character's visible label (likewise)
 */

/**
 * @typedef {Object} WindowExtras  What the player derives from a window payload (prepareWindow).
 * @property {Set<number>} isSpecial  node indices
 * @property {Set<number>} chunkStart  byte offsets
 * @property {Int32Array | null} charAt  per byte: the index of the character starting there, else -1
 * @property {number[][]} byFrom  per step: the nodes that appear at it
 * @property {number[][]} byTo  per step below N: the nodes last on screen at it
 */

/** @typedef {WindowPayload & WindowExtras} Win */

/**
 * @typedef {Object} Control  The small values Python sends (components/merge_player/__init__.py; the run page's
 *   host, views/run_page.py, sends the same).
 * @property {string} tag  the run they belong to
 * @property {number} k  Python's merge
 * @property {number} seq  a seek number: raised to move the player
 * @property {number} speed
 * @property {number[]} [speeds]
 * @property {string} metric  "bytes_per_token" or "tokens"
 * @property {boolean} [presenter]
 * @property {boolean} [quiz]
 * @property {boolean} [standalone]  the downloaded run page: it holds its window
 * @property {boolean} [lead]  a live room's teacher: play and speed are reported too
 * @property {number} [clock]  the server's clock when it sent this (ms since the epoch; a teacher's control)
 */

/**
 * @typedef {Object} ViewReport  What the player tells Python (its "view" state).
 * @property {string} tag
 * @property {number} k
 * @property {number} speed
 * @property {string} metric
 * @property {number} n  reports so far (each report differs from the last)
 * @property {boolean} [playing]  (a live room's teacher: the students play too)
 * @property {number} [at]  when, on the server's clock (a live room's teacher)
 * @property {number} [explain]  a clicked token's id
 * @property {number} [seq]  the seek number of the last control applied: Python drops a report made before
 *   its last seek (a click right after a quiz's check would take the player back)
 */

/** Up to this speed (merges a second) no merge is skipped, even when a frame is late. */
export const EVERY_MERGE = 30;

/**
 * A number as the player writes it: rounded, with thousands separators ("1,234").
 * @param {number} x
 * @returns {string}
 */
export const fmt = (x) => Math.round(x).toLocaleString("en-US");

/**
 * ``word``, with an "s" unless ``count`` is 1.
 * @param {number} count
 * @param {string} word
 * @returns {string}
 */
export const plural = (count, word) => `${word}${count === 1 ? "" : "s"}`;

/**
 * Bytes per token, two decimals (the status line's figure).
 * @param {number} bytes
 * @param {number} tokens
 * @returns {string}
 */
export const bytesPerToken = (bytes, tokens) => ((bytes || 1) / Math.max(1, tokens)).toFixed(2);

/**
 * A step within 0..n (a jump's target; a fraction is cut off).
 * @param {number} k
 * @param {number} n
 * @returns {number}
 */
export const clampStep = (k, n) => Math.max(0, Math.min(n, k | 0));

/**
 * The derived parts of a run payload, added to it (the payload is the run from then on).
 * @param {RunPayload} payload
 * @returns {Run}
 */
export function prepareRun(payload) {
  const replay = payload.mode === "replay";
  const topStart = new Int32Array(payload.n + 1);
  for (let r = 0; r < payload.n; r++) topStart[r + 1] = topStart[r] + payload.top_n[r];
  /** @type {RunExtras} */
  const extras = {
    replay,
    word: replay ? "Step" : "Merge",
    vocab: payload.vocab ?? "",
    new: payload.new ?? [],
    rank: payload.rank ?? [],
    alt: payload.alt ?? {},
    lookups: payload.lookups ?? {},
    cascade: payload.cascade ?? {},
    isSpecial: new Set(payload.special),
    isFallback: new Set(payload.fallback ?? []),
    cappedAt: new Set(payload.capped),
    topStart,
    rows: payload.top_n.reduce((a, b) => Math.max(a, b), 1),
    madeBy: null,
  };
  return Object.assign(payload, extras);
}

/**
 * Bar ``j``'s pair (top_i index ``j``): left, right.
 * @param {Run} run
 * @param {number} j
 * @returns {[number, number]}
 */
export const topPair = (run, j) => [run.top_pairs[2 * run.top_i[j]], run.top_pairs[2 * run.top_i[j] + 1]];

/**
 * Whether token ``id`` ends with a line break.
 * @param {Run} run
 * @param {number} id
 * @returns {boolean}
 */
export const endsLine = (run, id) => (run.piece[id] || "").endsWith("\n");

/**
 * The step (0-based) that made token ``id``, or -1 (a base token, a special token).
 * @param {Run} run
 * @param {number} id
 * @returns {number}
 */
export function madeAt(run, id) {
  if (!run.madeBy) {
    const madeBy = (run.madeBy = new Map());
    if (run.replay) run.new.forEach((t, r) => { if (!madeBy.has(t)) madeBy.set(t, r); });
    else for (let r = 0; r < run.n; r++) madeBy.set(run.base + r, r);
  }
  const r = run.madeBy.get(id);
  return r === undefined ? -1 : r;
}

/**
 * Per byte of a ``bytes``-long text, the index of the character that starts there (-1 inside a character;
 * the end: the character count), from each character's byte length; null when there are none (the text
 * has no multi-byte character at byte level: no token boundary can split one).
 * @param {number[]} chLen
 * @param {number} bytes
 * @returns {Int32Array | null}
 */
export function charStarts(chLen, bytes) {
  if (!chLen || !chLen.length) return null;
  const charAt = new Int32Array(bytes + 1).fill(-1);
  let b = 0;
  chLen.forEach((len, i) => { charAt[b] = i; b += len; });
  charAt[bytes] = chLen.length;
  return charAt;
}

/**
 * The nodes by the step they appear at (``byFrom``) and by the last step they are on screen (``byTo``; a
 * node still on screen at step n is in none), for steps 0..n + 1.
 * @param {number[]} from
 * @param {number[]} to
 * @param {number} n
 * @returns {{ byFrom: number[][], byTo: number[][] }}
 */
export function nodesBySteps(from, to, n) {
  /** @type {number[][]} */
  const byFrom = Array.from({ length: n + 2 }, () => []);
  /** @type {number[][]} */
  const byTo = Array.from({ length: n + 2 }, () => []);
  for (let i = 0; i < from.length; i++) {
    byFrom[from[i]].push(i);
    if (to[i] < n) byTo[to[i]].push(i);
  }
  return { byFrom, byTo };
}

/**
 * The derived parts of a window payload, added to it, for a run of ``n`` merges.
 * @param {WindowPayload} payload
 * @param {number} n
 * @returns {Win}
 */
export function prepareWindow(payload, n) {
  /** @type {WindowExtras} */
  const extras = {
    isSpecial: new Set(payload.sp),
    chunkStart: new Set(payload.cs),
    charAt: charStarts(payload.ch_len, payload.bytes),
    ...nodesBySteps(payload.from, payload.to, n),
  };
  return Object.assign(payload, extras);
}

/**
 * The nodes on screen at step ``k``, in text order.
 * @param {number[]} from
 * @param {number[]} to
 * @param {number} k
 * @returns {number[]}
 */
export function visibleAt(from, to, k) {
  const out = [];
  for (let i = 0; i < from.length; i++) if (from[i] <= k && k <= to[i]) out.push(i);
  return out;
}

/**
 * The nodes on screen at step ``k`` whose byte offset is in [a, b) (nodes are sorted by offset).
 * @param {number[]} start
 * @param {number[]} from
 * @param {number[]} to
 * @param {number} a
 * @param {number} b
 * @param {number} k
 * @returns {number[]}
 */
export function visibleIn(start, from, to, a, b, k) {
  let lo = 0, hi = start.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (start[mid] < a) lo = mid + 1;
    else hi = mid;
  }
  const out = [];
  for (let i = lo; i < start.length && start[i] < b; i++) if (from[i] <= k && k <= to[i]) out.push(i);
  return out;
}

/**
 * Whether node ``i`` begins or ends inside a character (``charAt``: charStarts).
 * @param {Int32Array} charAt
 * @param {number[]} start
 * @param {number} len  the node's byte length
 * @param {number} i
 * @returns {boolean}
 */
export const splitsChar = (charAt, start, len, i) => charAt[start[i]] < 0 || charAt[start[i] + len] < 0;

/**
 * The step a frame shows while playing: ``k0`` + the merges due since ``t0`` at ``speed`` a second, at most
 * ``n``. Up to EVERY_MERGE merges a second each merge gets a frame of its own: after a late frame the clock
 * waits for the player (``k0`` and ``t0`` move to this frame) rather than the player skipping a merge.
 * @param {{ k: number, k0: number, t0: number, speed: number, n: number }} clock  the step on screen, and
 *   the step and time (ms) the clock counts from
 * @param {number} now  the frame's time (ms; can be a little older than t0)
 * @returns {{ target: number, k0: number, t0: number }}
 */
export function frameTarget({ k, k0, t0, speed, n }, now) {
  const target = Math.min(n, k0 + Math.floor((Math.max(0, now - t0) * speed) / 1000));
  if (target > k + 1 && speed <= EVERY_MERGE) return { target: k + 1, k0: k + 1, t0: now };
  return { target, k0, t0 };
}

/**
 * The rate the player really keeps (merges a second), measured over the last second or more (the last five
 * merges' worth at slow speeds); null until there is that much to measure. Adds [now, k] to ``samples``
 * (time in ms, step; oldest first) and drops the samples older than it needs.
 * @param {Array<[number, number]>} samples
 * @param {number} now
 * @param {number} k
 * @param {number} speed
 * @returns {number | null}
 */
export function measureRate(samples, now, k, speed) {
  samples.push([now, k]);
  const span = Math.max(1000, 5000 / speed);
  while (samples.length > 2 && now - samples[1][0] >= span) samples.shift();
  return now - samples[0][0] >= span ? ((k - samples[0][1]) * 1000) / (now - samples[0][0]) : null;
}

/**
 * Words for the status line when the screen does not keep the chosen speed (null when it does).
 * @param {{ speed: number, drawn: number, advanced: number, measured: number | null, unit: string }} play
 *   the speed chosen, frames drawn and merges advanced while playing, the rate measured, "steps" or "merges"
 * @returns {string | null}
 */
export function lagNote({ speed, drawn, advanced, measured, unit }) {
  const batch = drawn > 4 ? advanced / drawn : 1;
  if (batch > 1.1) return ` · ${fmt(speed)}/s is more than this screen draws: ${batch.toFixed(1)} ${unit} a frame`;
  if (speed <= EVERY_MERGE && measured !== null && measured < 0.8 * speed) {
    const rate = measured < 10 ? measured.toFixed(1) : fmt(measured);
    return ` · ${fmt(speed)}/s is more than this screen draws: playing at ${rate}/s`;
  }
  return null;
}

/**
 * How a step is drawn: ``move`` (CSS time of the bars' and the chart's transitions), ``still`` (no
 * transition: none shorter than ~40 ms), ``join`` (ms the two tokens of a merge take to join; 0: none).
 * @param {boolean} playing
 * @param {number} speed
 * @param {boolean} motion  animate this step (one forward, reduced motion off)
 * @returns {{ move: string, still: boolean, join: number }}
 */
export function transition(playing, speed, motion) {
  const interval = playing ? 1000 / speed : 400;
  return {
    move: `${Math.round(Math.min(320, 0.8 * interval))}ms`,
    still: playing ? speed > 20 : !motion,
    join: motion ? Math.min(320, 0.7 * interval) : 0,
  };
}

/**
 * What a key does to the player (its modifiers, and where it was typed, are the caller's to check).
 * @param {string} key  KeyboardEvent.key
 * @returns {"toggle" | "forward" | "back" | "start" | "end" | "close" | null}
 */
export function keyCommand(key) {
  if (key === "k" || key === "K") return "toggle";
  if (key === "ArrowRight" || key === "PageDown") return "forward";
  if (key === "ArrowLeft" || key === "PageUp") return "back";
  if (key === "0" || key === "Home") return "start";
  if (key === "End") return "end";
  if (key === "Escape") return "close";
  return null;
}

/**
 * A bar's role in the pair chart: the first bar is the winner; in a training run, a bar with the winner's
 * count is a tie (a replay's bars are in rank order: no ties).
 * @param {number} j
 * @param {number} count
 * @param {number} winner  the winner's count
 * @param {boolean} replay
 * @returns {"winner" | "tie" | ""}
 */
export const barRole = (j, count, winner, replay) => (j === 0 ? "winner" : count === winner && !replay ? "tie" : "");

/**
 * The compression chart's value at step ``j``: bytes per token, or the token count.
 * @param {boolean} perToken
 * @param {number[]} counts
 * @param {number} nbytes
 * @param {number} j
 * @returns {number}
 */
export const metricValue = (perToken, counts, nbytes, j) => (perToken ? nbytes / Math.max(1, counts[j]) : counts[j]);

/** The chart's size and margins (its SVG viewBox is 0 0 W H). */
export const CHART = { W: 640, H: 220, L: 52, R: 14, T: 12, B: 30 };

/**
 * The chart's scales for ``n`` steps (the x axis: 0..n, at least 1 wide) and a y axis up to ``ymax`` (the
 * highest value + 5 %; 1 if that is 0).
 * @param {number} n
 * @param {number} ymax
 * @returns {{ x: (j: number) => number, y: (v: number) => number }}
 */
export function chartScales(n, ymax) {
  const { W, H, L, R, T, B } = CHART;
  const span = Math.max(1, n);
  return { x: (j) => L + ((W - L - R) * j) / span, y: (v) => T + (H - T - B) * (1 - v / ymax) };
}

/**
 * The top of the chart's y axis: the highest value of any series over steps 0..n, + 5 % (1 if all are 0).
 * @param {Array<[number[], number]>} series  each: token counts after 0..n steps, the text's bytes
 * @param {number} n
 * @param {boolean} perToken
 * @returns {number}
 */
export function chartMax(series, n, perToken) {
  let ymax = 0;
  for (const [counts, nbytes] of series) {
    for (let j = 0; j <= n; j++) ymax = Math.max(ymax, metricValue(perToken, counts, nbytes, j));
  }
  return ymax * 1.05 || 1;
}

/**
 * An SVG path through ``at(j)`` ("x,y") for j = 0..n: at most ~600 points (every step-th), and always the last.
 * @param {number} n
 * @param {(j: number) => string} at
 * @returns {string}
 */
export function chartPath(n, at) {
  const step = Math.max(1, Math.ceil((n + 1) / 600));
  let d = "";
  for (let j = 0; j <= n; j += step) d += `${d ? "L" : "M"}${at(j)}`;
  return d + `L${at(n)}`;
}
