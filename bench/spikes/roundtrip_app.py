"""The app of ``bench/spikes/roundtrip.py``: one small ``st.components.v2`` component in an ``@st.fragment``,
and the same answer from an HTTP route of ``st.App``. Run by that spike (``streamlit run`` this file)."""
import streamlit as st

#: the answer's size: ~2 KB of JSON (a list of small numbers, as token ids would be)
IDS = 400


def answer(seq: int, state: str) -> dict:
    """What both ways send back for a request: the request's ``seq`` and ~2 KB of ids derived from it."""
    base = sum(map(ord, state)) + seq
    return {"seq": seq, "ids": [(base * 31 + i * 7) % 100_000 for i in range(IDS)]}


if __name__ != "__main__":     # imported by `streamlit run`: the server, with the route
    import os
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def roundtrip(request: Request) -> JSONResponse:
        if request.method == "GET":      # the state in the query: one packet each way, no request body
            req = {"seq": request.query_params.get("seq", "0"), "state": request.query_params.get("state", "")}
        else:
            body = await request.body()
            if len(body) > 4096:
                return JSONResponse({"error": "too large"}, status_code=413)
            req = __import__("json").loads(body)
        return JSONResponse(answer(int(req["seq"]), str(req["state"])[:200]))

    from serving.tcp import nodelay_lifespan  # as app.py serves (BPE_SPIKE_NAGLE=1: as Streamlit alone does)

    app = st.App(__file__, routes=[Route("/api/roundtrip", roundtrip, methods=["GET", "POST"])],
                 lifespan=None if os.environ.get("BPE_SPIKE_NAGLE") == "1" else nodelay_lifespan)

JS = r"""
const S = window.__rt || (window.__rt = {a: [], b: [], c: [], waiting: null, seq: 0});
export default function mount({ data, parentElement, setStateValue }) {
  S.set = setStateValue;
  if (!S.el) { S.el = document.createElement("div"); S.el.className = "rt"; S.el.textContent = "ready"; parentElement.append(S.el); }
  if (data && S.waiting && data.seq === S.waiting.seq) {         // (a): the rerun's new data has arrived
    const w = S.waiting; S.waiting = null;
    S.a.push(performance.now() - w.t0);
    S.runs = data.runs;
    S.el.textContent = `a ${data.seq}: ${data.ids.length} ids`;
    w.done();
  }
  S.el.dataset.ready = "1";
}
// (a) a state value -> the fragment reruns -> new data
window.__rtA = () => new Promise((done) => {
  S.seq += 1;
  S.waiting = {seq: S.seq, t0: performance.now(), done};
  S.set("req", {seq: S.seq, state: "hello world " + S.seq});
});
// (b) fetch to the app's own route: POST with a JSON body, or (c) GET with the state in the query
window.__rtB = async (get) => {
  S.seq += 1;
  const t0 = performance.now();
  const state = "hello world " + S.seq;
  const r = get ? await fetch(`/api/roundtrip?seq=${S.seq}&state=${encodeURIComponent(state)}`, {cache: "no-store"})
    : await fetch("/api/roundtrip", {method: "POST", headers: {"Content-Type": "application/json"},
                                     body: JSON.stringify({seq: S.seq, state})});
  const data = await r.json();
  if (data.seq !== S.seq) throw new Error("wrong answer");
  (get ? S.c : S.b).push(performance.now() - t0);
  S.el.textContent = `b ${data.seq}: ${data.ids.length} ids`;
};
"""

if __name__ == "__main__":
    _rt = st.components.v2.component("bpe_roundtrip_spike", js=JS, isolate_styles=True)

    @st.fragment
    def holder() -> None:
        state = st.session_state.get("rt") or {}
        req = state.get("req") if hasattr(state, "get") else None
        data = answer(int(req["seq"]), str(req["state"])) if req else {"seq": 0, "ids": []}
        st.session_state["fragment_runs"] = st.session_state.get("fragment_runs", 0) + 1
        data["runs"] = [st.session_state["full_runs"], st.session_state["fragment_runs"]]
        _rt(key="rt", data=data, on_req_change=lambda: None, height="content")

    st.session_state["full_runs"] = st.session_state.get("full_runs", 0) + 1
    st.title("Round trip spike")
    holder()
