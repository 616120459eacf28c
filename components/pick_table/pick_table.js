// @ts-check
// Pick table (components/pick_table): a plain scrolling table whose rows can be picked — a click, or Enter /
// Space on a focused row (↑ ↓ Home End move the focus) — and report the row's id to Python with
// setStateValue("pick", {id, seq}). It replaces st.dataframe for the player's merges and vocabulary: that data
// grid made every fresh player page download ~1 MB of Streamlit's JavaScript (~0.3 MB compressed).
// Cells hold the user's text (tokens of their text), so they are only ever set with textContent.

/**
 * @typedef {Object} TableData  What Python sends (components/pick_table/__init__.py).
 * @property {Array<string | number>} [columns]  the headers
 * @property {Array<Array<string | number | null>>} [rows]  the cells, row by row
 * @property {number[]} [ids]  each row's id (what a pick reports)
 * @property {number} [height]  px
 * @property {string} [label]  the table's accessible name
 * @property {string} [empty]  the caption of an empty table
 */

/** @typedef {(name: string, value: unknown) => void} SetState */

/** @type {WeakMap<Node, PickTable>} */
const TABLES = new WeakMap(); // parentElement -> PickTable (mount runs again with each new table)

/**
 * @param {{ data: TableData | null, parentElement: HTMLElement | ShadowRoot, setStateValue: SetState }} args
 */
export default function mount({ data, parentElement, setStateValue }) {
  let table = TABLES.get(parentElement);
  if (!table) {
    table = new PickTable(parentElement);
    TABLES.set(parentElement, table);
  }
  table.report = setStateValue;
  table.show(data || {});
  const mounted = table;
  return () => {
    mounted.root.remove();
    TABLES.delete(parentElement);
  };
}

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string} [cls]
 * @param {string} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

class PickTable {
  /** @type {SetState | undefined} */ report;

  /** @param {HTMLElement | ShadowRoot} parent */
  constructor(parent) {
    this.seq = 0;
    this.root = el("div", "pt");
    this.table = el("table", "pt-table");
    this.root.append(this.table);
    parent.append(this.root);
    this.table.addEventListener("click", (ev) => {
      const row = /** @type {Element} */ (ev.target).closest("tr[data-id]");
      if (row) this.pick(/** @type {HTMLTableRowElement} */ (row));
    });
    this.table.addEventListener("keydown", (ev) => this.key(ev));
  }

  /** @param {TableData} data */
  show({ columns = [], rows = [], ids = [], height = 330, label = "", empty = "" }) {
    this.root.style.maxHeight = `${height}px`;
    this.table.setAttribute("aria-label", label);
    const head = el("thead");
    const tr = el("tr");
    for (const c of columns) tr.append(el("th", "", String(c)));
    head.append(tr);
    const body = el("tbody");
    rows.forEach((cells, i) => {
      const row = el("tr");
      row.dataset.id = String(ids[i]);
      row.tabIndex = i === 0 ? 0 : -1;
      for (const v of cells) {
        const td = el("td", typeof v === "number" ? "pt-num" : "", v === null ? "" : typeof v === "number"
          ? v.toLocaleString("en-US") : String(v));
        row.append(td);
      }
      body.append(row);
    });
    this.table.replaceChildren(head, body);
    this.root.dataset.rows = String(rows.length);
    if (!rows.length && empty) this.table.append(el("caption", "pt-empty", empty));
  }

  /** @param {HTMLTableRowElement} row */
  pick(row) {
    for (const r of this.table.querySelectorAll("tr[aria-selected]")) r.removeAttribute("aria-selected");
    row.setAttribute("aria-selected", "true");
    this.seq += 1;
    if (this.report) this.report("pick", { id: Number(row.dataset.id), seq: this.seq });
  }

  /** @param {KeyboardEvent} ev */
  key(ev) {
    const row = /** @type {HTMLTableRowElement | null} */ (/** @type {Element} */ (ev.target).closest("tr[data-id]"));
    if (!row) return;
    const rows = /** @type {HTMLTableRowElement[]} */ ([...this.table.querySelectorAll("tbody tr")]);
    let i = rows.indexOf(row);
    if (ev.key === "Enter" || ev.key === " ") {
      ev.preventDefault();
      this.pick(row);
      return;
    }
    if (ev.key === "ArrowDown") i += 1;
    else if (ev.key === "ArrowUp") i -= 1;
    else if (ev.key === "Home") i = 0;
    else if (ev.key === "End") i = rows.length - 1;
    else return;
    ev.preventDefault();
    const next = rows[Math.max(0, Math.min(rows.length - 1, i))];
    row.tabIndex = -1;
    next.tabIndex = 0;
    next.focus();
  }
}
