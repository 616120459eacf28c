// @ts-check
// Copy link (components/copy_link): a share link as selectable text in a code-block box, and a button on its
// right that copies it. The link holds the user's own text, so it is only ever set with textContent.
//
// Copying: navigator.clipboard.writeText when the page has it; when it is missing (plain HTTP on a LAN address
// is not a secure context) or refuses, the link's text is selected and document.execCommand("copy") copies it;
// when that fails too, the text stays selected and the message says to press Ctrl+C (⌘C on a Mac). Messages
// are shown next to the button and said by a polite live region.

/** @type {WeakMap<Node, CopyLink>} */
const BOXES = new WeakMap(); // parentElement -> CopyLink (mount runs again with each new link)
const SVG = "http://www.w3.org/2000/svg";
// Material Symbols "content_copy" and "check" (24 px grid), as Streamlit's own copy button draws them.
const ICON_COPY = "M16 1H4c-1.1 0-2 .9-2 2v14h2V3h12V1zm3 4H8c-1.1 0-2 .9-2 2v14c0 1.1.9 2 2 2h11c1.1 0 2-.9 " +
  "2-2V7c0-1.1-.9-2-2-2zm0 16H8V7h11v14z";
const ICON_DONE = "M9 16.17 4.83 12l-1.42 1.41L9 19 21 7l-1.41-1.41z";
const SHOWN_MS = 2000; // how long "Copied" stays
const AGAIN_MS = 150; // a silent moment before the same message again, so screen readers say it again

/**
 * @param {{ data: { url?: unknown } | null, parentElement: HTMLElement | ShadowRoot }} args  data: the link
 *   (components/copy_link/__init__.py)
 */
export default function mount({ data, parentElement }) {
  let box = BOXES.get(parentElement);
  if (!box) {
    box = new CopyLink(parentElement);
    BOXES.set(parentElement, box);
  }
  box.show(data && typeof data.url === "string" ? data.url : "");
  const mounted = box;
  return () => {
    mounted.destroy();
    BOXES.delete(parentElement);
  };
}

/**
 * An icon: one SVG path on a 24 px grid.
 * @param {string} d
 * @returns {SVGSVGElement}
 */
function icon(d) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", d);
  svg.append(path);
  return svg;
}

/**
 * The link cut before its parameters: "a?b=1&c=2" -> ["a?", "b=1", "&c=2"].
 * @param {string} url
 * @returns {string[]}
 */
function pieces(url) {
  const out = [];
  let start = 0;
  for (let i = 0; i < url.length; i++) {
    if (url[i] === "?" || (url[i] === "&" && i > start)) {
      const end = url[i] === "?" ? i + 1 : i;
      if (end > start) out.push(url.slice(start, end));
      start = end;
    }
  }
  if (start < url.length || !out.length) out.push(url.slice(start));
  return out;
}

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string} cls
 * @returns {HTMLElementTagNameMap[K]}
 */
function el(tag, cls) {
  const e = document.createElement(tag);
  e.className = cls;
  return e;
}

class CopyLink {
  /** @param {HTMLElement | ShadowRoot} host */
  constructor(host) {
    this.host = host;
    /** @type {ReturnType<typeof setTimeout> | 0} */
    this.timer = 0;
    this.root = el("div", "cl");
    this.row = el("div", "cl-row");
    this.link = el("code", "cl-link");
    this.button = el("button", "cl-copy");
    this.button.type = "button";
    this.button.setAttribute("aria-label", "Copy link");
    this.button.title = "Copy link";
    this.button.append(icon(ICON_COPY));
    this.msg = el("span", "cl-msg");
    this.msg.setAttribute("role", "status");      // a polite live region: screen readers say "Copied"
    this.msg.setAttribute("aria-live", "polite");
    this.row.append(this.link, this.button);
    this.root.append(this.row, this.msg);
    this.onClick = () => this.copy();
    this.button.addEventListener("click", this.onClick);
    host.append(this.root);
  }

  /** @param {string} url */
  show(url) {
    if (this.link.textContent !== url) {
      // Text nodes only (never innerHTML: the link holds the user's text), with a <wbr> line-break chance
      // after "?" and before each "&", so a long link wraps between its parameters where it can.
      /** @type {Node[]} */
      const nodes = [];
      for (const piece of pieces(url)) {
        if (nodes.length) nodes.push(document.createElement("wbr"));
        nodes.push(document.createTextNode(piece));
      }
      this.link.replaceChildren(...nodes);
      this.say("", "");
    }
    this.root.dataset.url = url;
  }

  async copy() {
    const text = this.link.textContent || "";
    let how = "";
    try {
      if (navigator.clipboard && typeof navigator.clipboard.writeText === "function") {
        await navigator.clipboard.writeText(text);
        how = "clipboard";
      }
    } catch {
      how = ""; // refused: copy the selection instead
    }
    if (!how) {
      this.select();
      let ok;
      try {
        ok = document.execCommand("copy");
      } catch {
        ok = false;
      }
      if (ok) {
        how = "select";
      } else {
        this.select(); // (a failed copy may have moved the selection): leave the link selected for Ctrl+C
        const mac = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent || "");
        this.say(`Copying was blocked: the link is selected, press ${mac ? "⌘C" : "Ctrl+C"} to copy it.`,
                 "manual");
        return;
      }
    }
    this.say("Copied", how);
  }

  select() {
    const sel = window.getSelection();
    if (!sel) return;
    const range = document.createRange();
    range.selectNodeContents(this.link);
    sel.removeAllRanges();
    sel.addRange(range);
  }

  /**
   * Show (and have screen readers say) ``text``; ``how`` it was copied ("clipboard", "select", "manual": it was
   * not; "": nothing to say) becomes the box's data-copied.
   * @param {string} text
   * @param {string} how
   */
  say(text, how) {
    clearTimeout(this.timer);
    if (text && this.msg.textContent === text) {
      // A live region speaks when its text changes: the same words again (a second copy within SHOWN_MS)
      // would be silent. Empty it for a moment, then say them again; the box reads as not copied meanwhile.
      this.msg.textContent = "";
      this.root.dataset.copied = "";
      this.timer = setTimeout(() => this.say(text, how), AGAIN_MS);
      return;
    }
    this.msg.textContent = text;
    this.root.dataset.copied = how;
    this.button.replaceChildren(icon(how === "clipboard" || how === "select" ? ICON_DONE : ICON_COPY));
    if (how === "clipboard" || how === "select") {
      this.timer = setTimeout(() => this.say("", ""), SHOWN_MS);
    }
  }

  destroy() {
    clearTimeout(this.timer);
    this.button.removeEventListener("click", this.onClick);
    this.root.remove();
  }
}
