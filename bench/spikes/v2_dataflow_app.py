"""Spike app: how does a Streamlit 1.67 ``st.components.v2`` component receive its data?

Run by ``bench/spikes/v2_dataflow.py`` (which starts it and drives it with Playwright). Query parameter
``size`` sets the size of the payload (bytes of filler in ``data``).
"""
import streamlit as st

JS = """
const shared = { calls: 0 };  // module level: shared by every component registered with this same JS text
export default function ({ name, data, parentElement, setStateValue }) {
  const w = window;
  shared.calls += 1;
  w.__moduleCalls = shared.calls;
  if (name === 'bpe_spike_twin') { w.__twin = String(data.tag); return; }
  w.__spike = w.__spike || { calls: 0, fresh: 0, cleanups: 0, tags: [] };
  w.__spike.calls += 1;
  let root = parentElement.querySelector('.spike-root');
  if (!root) {
    w.__spike.fresh += 1;
    root = document.createElement('div');
    root.className = 'spike-root';
    const b = document.createElement('button');
    b.textContent = 'report';
    b.className = 'spike-report';
    root.appendChild(b);
    const t = document.createElement('span');
    t.className = 'spike-tag';
    root.appendChild(t);
    parentElement.appendChild(root);
  }
  root.querySelector('.spike-report').onclick = () => setStateValue('merge', (w.__spike.calls * 7) % 1000);
  root.querySelector('.spike-tag').textContent = 'tag ' + data.tag;
  w.__spike.tags.push(data.tag);
  return () => { w.__spike.cleanups += 1; };
}
"""

spike = st.components.v2.component("bpe_spike", js=JS, html="<div></div>")
twin = st.components.v2.component("bpe_spike_twin", js=JS)
size = int(st.query_params.get("size", "200000"))
ss = st.session_state
ss.setdefault("tag", 0)
if st.button("rerun", key="rerun"):
    pass
if st.button("change", key="change"):
    ss.tag += 1
result = spike(key="spike", data={"tag": ss.tag, "blob": "x" * size}, on_merge_change=lambda: None)
if st.button("twin", key="twin"):
    ss.twin_n = ss.get("twin_n", 0) + 1
twin(key="twin_el", data={"tag": ss.get("twin_n", 0)})
st.write("merge from component:", result.get("merge"))
st.write("runs:", ss.setdefault("runs", 0))
ss.runs += 1
