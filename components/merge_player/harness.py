"""Development harness for the merge player component: the component alone, on a sample text.

``streamlit run components/merge_player/harness.py`` (from the repository root). Query parameters:
``sample`` (a sample's file stem, default ``english``), ``merges``, ``presenter=1``, ``palette=okabe_ito``,
``k`` (where to start), ``start`` (first character of the window). Shows the player's last report below it.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

import bpe  # noqa: E402
from bpe.replay import MergeIndex, Replay  # noqa: E402
from components.merge_player import merge_player  # noqa: E402
from views.player_payload import pack, run_payload, window_payload  # noqa: E402

st.set_page_config(page_title="merge player harness", layout="wide")
qp = st.query_params
name = qp.get("sample", "english")
text = (ROOT / "sample_texts" / f"{Path(name).name}.txt").read_text(encoding="utf-8")
merges = int(qp.get("merges", "256"))
palette = qp.get("palette", "default")
start = int(qp.get("start", "0"))


@st.cache_resource(max_entries=4)
def trained(text: str, merges: int):
    return bpe.train(text, 256 + merges)


run = trained(text, merges)
tag = f"{name}-{merges}"
window = Replay.build(run, MergeIndex(run), text[start : start + 1500])
ss = st.session_state
ss.setdefault("seq", 0)
if st.button("Seek to merge 5 from Python", key="seek"):
    ss.seq += 1
view = merge_player(
    pack(run_payload(run, tag=tag, palette=palette)),
    pack(
        window_payload(
            window, tag=tag, n_merges=len(run.merges), level=run.level, first_char=start, total_chars=len(text)
        )
    ),
    {
        "tag": tag,
        "k": 5 if ss.seq else int(qp.get("k", "0")),
        "seq": ss.seq,
        "speed": 2,
        "metric": "bytes_per_token",
        "presenter": qp.get("presenter") == "1",
        "quiz": False,
    },
)
st.code(repr(view), language=None)
