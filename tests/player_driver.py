"""Driving the merge player component from AppTest (the Python side of the player).

AppTest runs no JavaScript: the component's three elements (``bpe_merge_player`` with the run payload,
``bpe_merge_player_window``, ``bpe_merge_player_control``) arrive as unknown elements holding their data.
These helpers read that data, and stand in for the browser's report (the component's ``view`` state,
sent on pause, after a step or a jump, or on a click on a token): :func:`report` reruns the script with
that state, as Streamlit does when the browser sends it. The browser itself is tested in
``tests/browser/test_player_browser.py``.

``drawn(at)`` is what the component draws at the control's merge: the window's nodes with
``from <= k <= to`` (its filter), as ``(byte offset, id)``.
"""

from __future__ import annotations

import itertools
import json

from streamlit.proto.WidgetStates_pb2 import WidgetStates

from views.player_payload import unpack

_reports = itertools.count(1)


def element(at, name: str):
    found = [e for e in at.get("bidi_component") if e.proto.component_name == name]
    assert len(found) == 1, f"expected one {name} element, found {len(found)}"
    return found[0]


def mounted(at) -> bool:
    return any(e.proto.component_name == "bpe_merge_player" for e in at.get("bidi_component"))


def run_payload(at) -> dict:
    return unpack(element(at, "bpe_merge_player").proto.bytes)


def window(at) -> dict:
    return unpack(element(at, "bpe_merge_player_window").proto.bytes)


def control(at) -> dict:
    return json.loads(element(at, "bpe_merge_player_control").proto.json)


def k(at) -> int:
    """The merge the player is told to show (Python's merge)."""
    return control(at)["k"]


def drawn(at, step: int | None = None) -> list[tuple[int, int]]:
    w = window(at)
    step = k(at) if step is None else step
    return [(s, i) for s, i, f, t in zip(w["start"], w["id"], w["from"], w["to"]) if f <= step <= t]


def texts(at, step: int | None = None) -> list[str]:
    """The labels of the tokens drawn at ``step`` (the control's merge by default)."""
    labels = run_payload(at)["label"]  # a list by id (a run), or {str(id): label} (a replay)
    return [labels[i] if isinstance(labels, list) else labels[str(i)] for _, i in drawn(at, step)]


def report(at, k: int, timeout: float = 60, **extra):
    """Rerun as if the browser's player reported merge ``k`` (plus ``speed``, ``metric``, ``explain``)."""
    c = control(at)
    view = {"tag": c["tag"], "k": k, "speed": c["speed"], "metric": c["metric"], "n": next(_reports), **extra}
    states = at._tree.get_widget_states()  # what the browser sends with a rerun, plus the component's state
    w = states.widgets.add()
    w.id = element(at, "bpe_merge_player").proto.id
    w.json_value = json.dumps({"view": view})
    return at._run(WidgetStates(widgets=states.widgets), timeout=timeout)


def step(at, delta: int = 1, **extra):
    """The browser stepped ``delta`` merges from where Python last heard it was (then paused)."""
    n = run_payload(at)["n"]
    return report(at, max(0, min(n, k(at) + delta)), **extra)


def quiz_radio(at):
    """The player quiz's radio for the question on screen (each question is a widget of its own, keyed
    ``player_quiz_pick:<quiz id>``), or None when there is none."""
    found = [r for r in (at.get("radio") or []) if str(r.key or "").startswith("player_quiz_pick:")]
    assert len(found) <= 1, [r.key for r in found]
    return found[0] if found else None
