"""A lagging connection for browser tests: every message from the server reaches the page's scripts late.

The race a busy server makes (a message the browser sends before the run that changed a widget has reached it
carries that widget's old value) is made here on purpose and measured by nothing: :data:`LAG_JS`, installed
before Streamlit's scripts by :func:`lagged`, delivers every server message ``window.__bpeLag.ms``
late, in order; :func:`lag` turns it on and off. Used by test_tokenize_lag_browser.py and test_lab_lag_browser.py.
"""

from __future__ import annotations

#: how late the server's messages reach the page once the lag is on: longer than the view waits for an answer
#: before it sends its edit again (4 s and a bit: components/tokenize_view/tokenize.js, ``resend``), so the edit
#: goes again while the run that says "Your own text" is on its way -- as on a busy machine, where that run
#: comes late or where the server sent the answer to the edit before it
LAG_MS = 5000

#: every ``message`` listener of the page's websockets (Streamlit's, conftest's RUNS_JS counter) is called
#: ``window.__bpeLag.ms`` after the message arrived, messages kept in order (0: at once, until a test sets it);
#: ``window.__bpeLag.seen`` counts the messages that arrived holding the string ``watch`` (delivered or not)
LAG_JS = """(() => {
  const Base = window.WebSocket;
  if (!Base || window.__bpeLag) return;
  const lag = window.__bpeLag = { ms: 0, last: 0, held: 0, watch: "", seen: 0 };
  const text = new TextDecoder();
  const arrived = new WeakMap();  // a message's delivery time (one per message, whatever the listeners)
  const queue = [];  // [at, fn], in the order the messages came: one timer runs them, in that order
  let timer = 0;
  const pump = () => {
    timer = 0;
    while (queue.length && queue[0][0] <= performance.now()) {
      lag.held -= 1;
      try { queue.shift()[1](); } catch (err) { setTimeout(() => { throw err; }); }
    }
    if (queue.length) timer = setTimeout(pump, Math.max(0, queue[0][0] - performance.now()));
  };
  const later = (e, fn) => {
    let at = arrived.get(e);
    if (at === undefined) {
      if (lag.watch && e.data instanceof ArrayBuffer && text.decode(e.data).includes(lag.watch)) lag.seen += 1;
      at = Math.max(performance.now() + lag.ms, lag.last);
      lag.last = at;
      arrived.set(e, at);
    }
    if (!lag.ms && !lag.held) return fn();
    lag.held += 1;
    queue.push([at, fn]);
    if (!timer) timer = setTimeout(pump, Math.max(0, queue[0][0] - performance.now()));
  };
  const wrapped = new WeakMap();
  class Lagging extends Base {
    addEventListener(type, fn, opts) {
      if (type !== "message" || typeof fn !== "function") return super.addEventListener(type, fn, opts);
      const w = (e) => later(e, () => fn.call(this, e));
      wrapped.set(fn, w);
      return super.addEventListener(type, w, opts);
    }
    removeEventListener(type, fn, opts) {
      return super.removeEventListener(type, (type === "message" && wrapped.get(fn)) || fn, opts);
    }
    set onmessage(fn) { this.__on = fn; super.onmessage = fn ? (e) => later(e, () => fn.call(this, e)) : null; }
    get onmessage() { return this.__on ?? null; }
  }
  window.WebSocket = Lagging;
})();"""


def lagged(page):
    """``page`` with :data:`LAG_JS` installed before any script of the pages it opens (call before opening one)."""
    page.add_init_script(LAG_JS)
    return page


def lag(page, ms: int, watch: str = "Your own text") -> None:
    page.evaluate("([ms, watch]) => { Object.assign(window.__bpeLag, { ms, watch, seen: 0 }); }", [ms, watch])
