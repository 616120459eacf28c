// A small stand-in for the browser's DOM, for the unit tests of the components' DOM parts under `node --test`
// (node has no DOM): elements with classes, data-*, styles, attributes, children that move when appended
// elsewhere, text, clones, listeners, and selectors of one class or one tag. Layout is not modelled (every box
// is 0 x 0). Enough for what the merge player does; the browser tests (tests/browser/) run the real thing.
// Not part of any bundle.

/** A text node. */
export class FakeText {
  /** @param {string} data */
  constructor(data) {
    this.nodeType = 3;
    this.data = data;
    /** @type {FakeElement | null} */
    this.parentNode = null;
  }

  get textContent() {
    return this.data;
  }

  cloneNode() {
    return new FakeText(this.data);
  }

  remove() {
    if (this.parentNode) this.parentNode._drop(this);
  }
}

class ClassList {
  /** @param {FakeElement} owner */
  constructor(owner) {
    this.owner = owner;
  }

  get _set() {
    return new Set(this.owner.className.split(/\s+/).filter(Boolean));
  }

  /** @param {Set<string>} set */
  _write(set) {
    this.owner.className = [...set].join(" ");
  }

  /** @param {...string} names */
  add(...names) {
    const s = this._set;
    for (const n of names) s.add(n);
    this._write(s);
  }

  /** @param {...string} names */
  remove(...names) {
    const s = this._set;
    for (const n of names) s.delete(n);
    this._write(s);
  }

  /** @param {string} name @param {boolean} [force] */
  toggle(name, force) {
    const on = force === undefined ? !this.contains(name) : force;
    if (on) this.add(name);
    else this.remove(name);
    return on;
  }

  /** @param {string} name */
  contains(name) {
    return this._set.has(name);
  }
}

/** An element (HTML or SVG). */
export class FakeElement {
  /** @param {string} tag */
  constructor(tag) {
    this.nodeType = 1;
    this.tagName = tag.toUpperCase();
    this.className = "";
    this.classList = new ClassList(this);
    /** @type {Record<string, string>} */
    this.dataset = {};
    /** @type {Record<string, string>} */
    this.attrs = {};
    const props = {};
    /** @type {Record<string, any>} */
    this.style = Object.assign(props, {
      /** @param {string} n @param {string} v */
      setProperty: (n, v) => { props[n] = v; },
      /** @param {string} n */
      getPropertyValue: (n) => props[n] ?? "",
    });
    /** @type {Array<FakeElement | FakeText>} */
    this.childNodes = [];
    /** @type {FakeElement | null} */
    this.parentNode = null;
    /** @type {Record<string, Function[]>} */
    this.listeners = {};
    this.hidden = false;
    this.connected = false; // a root marked connected: it and what it holds are "in the document"
  }

  get children() {
    return /** @type {FakeElement[]} */ (this.childNodes.filter((n) => n.nodeType === 1));
  }

  get options() {
    return this.children.filter((c) => c.tagName === "OPTION");
  }

  get parentElement() {
    return this.parentNode;
  }

  get firstChild() {
    return this.childNodes[0] ?? null;
  }

  get lastChild() {
    return this.childNodes[this.childNodes.length - 1] ?? null;
  }

  get isConnected() {
    /** @type {FakeElement | null} */
    let e = this;
    while (e) {
      if (e.connected) return true;
      e = e.parentNode;
    }
    return false;
  }

  get textContent() {
    return this.childNodes.map((n) => n.textContent).join("");
  }

  set textContent(text) {
    this.replaceChildren(String(text));
  }

  /** (the HTML is kept as text: enough to see what was set) */
  set innerHTML(html) {
    this.replaceChildren(String(html));
  }

  get innerHTML() {
    return this.textContent;
  }

  /** @param {string} name @param {unknown} value */
  setAttribute(name, value) {
    this.attrs[name] = String(value);
    if (name === "class") this.className = String(value);
  }

  /** @param {string} name */
  getAttribute(name) {
    return name in this.attrs ? this.attrs[name] : null;
  }

  /** @param {string} name */
  removeAttribute(name) {
    delete this.attrs[name];
  }

  /** @param {FakeElement | FakeText} node */
  _drop(node) {
    const i = this.childNodes.indexOf(node);
    if (i >= 0) this.childNodes.splice(i, 1);
    node.parentNode = null;
  }

  /** @param {FakeElement | FakeText | string} node */
  _adopt(node) {
    const n = typeof node === "string" ? new FakeText(node) : node;
    if (n.parentNode) n.parentNode._drop(n);
    n.parentNode = this;
    return n;
  }

  /** @param {...(FakeElement | FakeText | string)} nodes */
  append(...nodes) {
    for (const node of nodes) this.childNodes.push(this._adopt(node));
  }

  /** @param {...(FakeElement | FakeText | string)} nodes */
  replaceChildren(...nodes) {
    for (const n of this.childNodes) n.parentNode = null;
    this.childNodes = [];
    this.append(...nodes);
  }

  /** @param {FakeElement | FakeText} node @param {FakeElement | FakeText | null} ref */
  insertBefore(node, ref) {
    const n = this._adopt(node);
    const i = ref ? this.childNodes.indexOf(ref) : -1;
    if (i < 0) this.childNodes.push(n);
    else this.childNodes.splice(i, 0, n);
    return n;
  }

  /** @param {...(FakeElement | FakeText | string)} nodes */
  before(...nodes) {
    const parent = this.parentNode;
    if (!parent) return;
    for (const node of nodes) parent.insertBefore(typeof node === "string" ? new FakeText(node) : node, this);
  }

  /** @param {FakeElement | FakeText} node */
  replaceWith(node) {
    const parent = this.parentNode;
    if (!parent) return;
    parent.insertBefore(node, this);
    parent._drop(this);
  }

  remove() {
    if (this.parentNode) this.parentNode._drop(this);
  }

  /** @param {boolean} [deep] */
  cloneNode(deep) {
    const c = new FakeElement(this.tagName.toLowerCase());
    c.className = this.className;
    Object.assign(c.dataset, this.dataset);
    Object.assign(c.attrs, this.attrs);
    for (const [k, v] of Object.entries(this.style)) if (typeof v !== "function") c.style[k] = v;
    for (const k of ["title", "type", "value", "hidden"]) if (k in this) /** @type {any} */ (c)[k] = /** @type {any} */ (this)[k];
    if (deep) c.append(...this.childNodes.map((n) => n.cloneNode(true)));
    return c;
  }

  /** @param {string} sel  "tag", ".class", "tag.class.other" (several, comma-separated; no descendants) */
  matches(sel) {
    return sel.split(",").map((s) => s.trim()).some((s) => {
      const [tag, ...classes] = s.split(".");
      return (!tag || this.tagName === tag.toUpperCase()) && classes.every((c) => this.classList.contains(c));
    });
  }

  /** @param {string} sel */
  closest(sel) {
    /** @type {FakeElement | null} */
    let e = this;
    while (e) {
      if (e.matches(sel)) return e;
      e = e.parentNode;
    }
    return null;
  }

  /**
   * Whether this element matches ``sel``, which may name ancestors first (".mp-jump .mp-cap").
   * @param {string} sel
   */
  _matchesPath(sel) {
    if (sel.includes(",")) return sel.split(",").some((s) => this._matchesPath(s));
    const parts = sel.trim().split(/\s+/);
    if (parts.length === 1) return this.matches(sel);
    if (!this.matches(parts[parts.length - 1])) return false;
    let i = parts.length - 2;
    let e = this.parentNode;
    while (e && i >= 0) {
      if (e.matches(parts[i])) i--;
      e = e.parentNode;
    }
    return i < 0;
  }

  /** @param {string} sel  @returns {FakeElement[]} */
  querySelectorAll(sel) {
    /** @type {FakeElement[]} */
    const out = [];
    /** @param {FakeElement} e */
    const walk = (e) => {
      for (const c of e.children) {
        if (c._matchesPath(sel)) out.push(c);
        walk(c);
      }
    };
    walk(this);
    return out;
  }

  /** @param {string} sel */
  querySelector(sel) {
    return this.querySelectorAll(sel)[0] ?? null;
  }

  /** @param {string} type @param {Function} fn */
  addEventListener(type, fn) {
    (this.listeners[type] ??= []).push(fn);
  }

  /** @param {string} type @param {Function} fn */
  removeEventListener(type, fn) {
    this.listeners[type] = (this.listeners[type] ?? []).filter((f) => f !== fn);
  }

  /**
   * Call the listeners of ``type`` with an event whose target is this element.
   * @param {string} type
   * @param {Record<string, unknown>} [props]
   */
  fire(type, props = {}) {
    const event = { type, target: this, defaultPrevented: false, preventDefault() { this.defaultPrevented = true; },
      composedPath: () => [this], ...props };
    /** @type {FakeElement | null} */
    let e = this;
    while (e) {
      for (const fn of e.listeners[type] ?? []) fn(event);
      e = e.parentNode;
    }
    return event;
  }

  getBoundingClientRect() {
    return { left: 0, top: 0, right: 0, bottom: 0, width: 0, height: 0 };
  }

  get offsetWidth() {
    return 0;
  }

  get offsetHeight() {
    return 0;
  }

  scrollIntoView() {}

  blur() {}
}

/**
 * The browser's globals the components use, faked on globalThis: document (with its listeners, e.g. keydown),
 * Element, window (resize listeners, no matchMedia: motion is not reduced), requestAnimationFrame (frames run
 * when the test calls ``frames.run(now)``).
 */
export function installDom() {
  const g = /** @type {any} */ (globalThis);
  const documentElement = new FakeElement("html");
  documentElement.connected = true;
  /** @type {Record<string, Function[]>} */
  const docListeners = {};
  g.Element = FakeElement;
  g.document = {
    documentElement,
    /** @param {string} tag */
    createElement: (tag) => new FakeElement(tag),
    /** @param {string} _ns @param {string} tag */
    createElementNS: (_ns, tag) => new FakeElement(tag),
    querySelector: () => null,
    /** @param {string} type @param {Function} fn */
    addEventListener: (type, fn) => (docListeners[type] ??= []).push(fn),
    /** @param {string} type @param {Function} fn */
    removeEventListener: (type, fn) => {
      docListeners[type] = (docListeners[type] ?? []).filter((f) => f !== fn);
    },
    /**
     * A key pressed with the focus on ``target`` (the page's body by default).
     * @param {string} key
     * @param {Record<string, unknown>} [props]
     */
    key(key, props = {}) {
      const target = props.target ?? documentElement;
      const event = { type: "keydown", key, target, defaultPrevented: false, ctrlKey: false, metaKey: false,
        altKey: false, preventDefault() { this.defaultPrevented = true; }, composedPath: () => [target], ...props };
      for (const fn of [...(docListeners.keydown ?? [])]) fn(event);
      return event;
    },
    listeners: docListeners,
  };
  /** @type {Record<string, Function[]>} */
  const winListeners = {};
  g.window = {
    innerHeight: 720,
    /** @param {string} type @param {Function} fn */
    addEventListener: (type, fn) => (winListeners[type] ??= []).push(fn),
    /** @param {string} type @param {Function} fn */
    removeEventListener: (type, fn) => {
      winListeners[type] = (winListeners[type] ?? []).filter((f) => f !== fn);
    },
    listeners: winListeners,
  };
  /** @type {Map<number, FrameRequestCallback>} */
  const pending = new Map();
  let next = 1;
  g.requestAnimationFrame = (/** @type {FrameRequestCallback} */ fn) => {
    pending.set(next, fn);
    return next++;
  };
  g.cancelAnimationFrame = (/** @type {number} */ id) => pending.delete(id);
  return {
    document: g.document,
    window: g.window,
    frames: {
      /** Run the frames asked for so far, at time ``now`` (ms, as performance.now). @param {number} now */
      run(now) {
        const todo = [...pending.values()];
        pending.clear();
        for (const fn of todo) fn(now);
      },
      get pending() {
        return pending.size;
      },
    },
  };
}
