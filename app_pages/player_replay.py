"""The merge player's second mode, "Replay a real vocabulary": glue for ``app_pages/player.py`` (not a page).

The sidebar (``app_pages/player_sidebar.py``, ``replay=True``) picks the text and the vocabulary;
``appstate.replay_state`` replays the vocabulary's merges on it (cached); the same merge player component
steps through them in rank order, ending on that tokenizer's ids. The panels below it (where the rank order
differs from learned pairs, the steps, how a token is built) come from ``views/vocab_player.py``; the link is
written by ``appstate.links.write_replay_link``.
"""

from __future__ import annotations

import logging

import streamlit as st

import bpe
from app_pages.player_sidebar import training_sidebar
from appstate import caches, keys, links, pageguard, player_state, replay_state, sources
from appstate.player_link import SPEEDS
from appstate.widgets import explain_token_box, share_box
from components.merge_player import merge_player
from views import vocab_player
from views.messages import markdown_literal, message_html
from views.notes import notes_html
from views.player import PLAYER_CSS
from views.vocabularies import load_failed_text

__all__ = ["replay_main"]

ss = st.session_state
NOTES = keys.PLAYER_NOTES


# ----------------------------------------------------------------------------------------------------
# Callbacks (run before the script; they only touch session state)


def _on_replay_view() -> None:
    player_state.take_view(keys.REPLAY_SHOWN, keys.REPLAY_STEP, keys.REPLAY_QUERY)


def _replay_seek(k: int) -> None:
    player_state.seek(keys.REPLAY_STEP, k)


def _replay_to_occurrence(rep, k: int) -> None:
    at = vocab_player.first_offset(rep, k)
    if at is not None:
        size = caches.WINDOW_CHARS
        ss[keys.REPLAY_WINDOW] = min(max(0, len(rep.text) - size), max(0, at - size // 3))


def _pick_difference(rep) -> None:
    rows = ss["player_replay_diffs"].selection.rows if ss.get("player_replay_diffs") is not None else []
    found = vocab_player.differences(rep)
    if rows and rows[0] < len(found):
        k = found[rows[0]][0]
        _replay_seek(k)
        _replay_to_occurrence(rep, k)


def _pick_step_row(ids: list[int]) -> None:
    rows = ss["player_replay_steps"].selection.rows if ss.get("player_replay_steps") is not None else []
    if rows and rows[0] < len(ids):
        ss[keys.REPLAY_QUERY] = str(ids[rows[0]])


# ----------------------------------------------------------------------------------------------------


def replay_main(summary, presenting: bool) -> None:
    """The replay mode: the text from the sidebar, the vocabulary's replay on it, the player and its panels."""
    name = ss.get(keys.PLAYER_VOCAB, "")
    try:
        title, full_text, _cap = training_sidebar(replay=True)
        if name not in bpe.PRETRAINED and name != replay_state.UPLOADED:
            raise sources.SourceError(
                "No vocabulary is installed: install one of the packages named in the "
                "sidebar, or upload a tokenizer.json."
            )
        text, cut = replay_state.replay_text(full_text, bool(ss.get(keys.REPLAY_CUT)))
        rep, rid, vocab = replay_state.replay_of(name, text)
    except bpe.PretrainedError as exc:
        ss.pop(keys.PLAYER_LINK_STEP, None)
        logging.getLogger("bpe_lab.vocabularies").warning("vocabulary %s failed to load: %s", name, exc)
        st.error(load_failed_text(bpe.PRETRAINED[name]), icon="⚠️")
        return
    except (sources.SourceError, ValueError) as exc:  # may quote a file name: an escaped box, never Markdown
        ss.pop(keys.PLAYER_LINK_STEP, None)
        st.html(message_html(str(exc), "error", css_class="player-error"))
        st.caption(
            "Pick a sample or fix the text in the sidebar; the player comes back at once."
            if name != replay_state.UPLOADED
            else "Upload another tokenizer.json, pick a vocabulary, or fix the text in the sidebar."
        )
        write_replay_link(int(ss.get(keys.REPLAY_STEP, 0)))
        return
    n = len(rep.steps)
    if ss.get(keys.REPLAY_SHOWN, ("",))[0] != rid:  # a new text or vocabulary: from step 0
        ss[NOTES] = ss[NOTES] if ss.get(keys.REPLAY_SHOWN) is None else []
        ss[keys.REPLAY_SHOWN] = (rid, caches.player_tag(rid))
        ss[keys.REPLAY_WINDOW], ss[keys.REPLAY_QUERY] = 0, ""
        _replay_seek(0)
    if keys.PLAYER_LINK_STEP in ss:
        k = int(ss.pop(keys.PLAYER_LINK_STEP))
        if k > n:
            ss[NOTES] = ss[NOTES] + [f"The link's merge={k} is beyond this replay's {n:,} steps: showing step {n:,}."]
        _replay_seek(min(k, n))
    about = PLAYER_CSS + vocab_player.replay_summary(rep, title=title, vocab=vocab, cut=cut)
    if not presenting:
        summary.html(about)
    replay_player(rep, rid, name, vocab)
    if presenting:
        st.html(about)


@st.fragment
@pageguard.guarded("Merge player")
def replay_player(rep, rid: str, name: str, vocab: str) -> None:
    """The player replaying ``rep`` and the panels that follow it (a report reruns only this part)."""
    n = len(rep.steps)
    step = ss[keys.REPLAY_STEP] = max(0, min(int(ss[keys.REPLAY_STEP]), n))
    with st.container(key="player_note"):
        if ss.get(NOTES):
            st.html(notes_html(ss[NOTES], "bpe-pl-notes"))
        if not n:
            st.warning("No merge fires on this text (it is empty or a single byte per chunk).")
    start = int(min(ss.get(keys.REPLAY_WINDOW, 0), max(0, len(rep.text) - caches.WINDOW_CHARS)))
    control = {
        "tag": caches.player_tag(rid),
        "k": step,
        "seq": ss[keys.PLAYER_SEEK],
        "speed": ss[keys.PLAYER_SPEED],
        "speeds": SPEEDS,
        "metric": ss[keys.PLAYER_METRIC],
        "presenter": keys.presenting(),
        "quiz": False,
    }
    merge_player(
        replay_state.replay_run_data(rid, keys.palette(), rep, vocab),
        replay_state.replay_window_data(rid, start, rep),
        control,
        on_view=_on_replay_view,
    )
    if len(rep.text) > caches.WINDOW_CHARS:
        st.slider(
            "Text window: first character shown",
            0,
            max(0, len(rep.text) - caches.WINDOW_CHARS),
            step=max(1, caches.WINDOW_CHARS // 2),
            key=keys.REPLAY_WINDOW,
            persist_state="session",
        )
        if step and vocab_player.first_offset(rep, step) is not None and not _in_window(rep, start, step):
            st.button(
                f"Move the window to a token step {step:,} made",
                key="player_replay_to_occurrence",
                on_click=_replay_to_occurrence,
                args=(rep, step),
                icon=":material/search:",
            )
    with st.container(key="player_followers"):
        replay_followers(rep, name, vocab, step)
    write_replay_link(step)


def _in_window(rep, start: int, step: int) -> bool:
    nodes = vocab_player.replay_window(rep, start, caches.WINDOW_CHARS)
    return any(m == step - 1 for m in nodes.made)


def replay_followers(rep, name: str, vocab: str, step: int) -> None:
    """Below the player: where the rank order differs from learned pairs, the steps, how a token is built."""
    found = vocab_player.differences(rep)
    kinds = {}
    for _, kind, _ in found:
        kinds[kind] = kinds.get(kind, 0) + 1
    st.markdown("##### 4 · Where ranks differ from replaying learned merges")
    with st.container(key="player_replay_explain"):
        st.html(vocab_player.explainer_html(vocab, list(kinds.items()), merge_list=rep.tokenizer.mode == "merges"))
        if found:
            st.caption("The steps where it happens on this text — pick one to go there:")
            st.dataframe(
                vocab_player.differences_frame(rep),
                key="player_replay_diffs",
                hide_index=True,
                selection_mode="single-row",
                on_select=lambda: _pick_difference(rep),
                height=min(300, 38 + 35 * len(found)),
            )
    st.markdown(
        f"##### 5 · {markdown_literal(vocab)}’s merges on this text and how a token is built — at step {step:,}"
    )
    lists, tree = st.columns([1.35, 1], gap="medium")
    with lists:
        frame = vocab_player.steps_frame(rep, step)
        ids = frame["id"].tolist()
        st.dataframe(
            frame,
            key="player_replay_steps",
            height=min(330, 38 + 35 * max(1, len(ids))),  # no empty rows under the first few steps
            hide_index=True,
            selection_mode="single-row",
            on_select=lambda: _pick_step_row(ids),
            column_order=vocab_player.STEP_COLUMNS,
        )
        st.caption(
            f"Steps 1–{step:,}, newest first"
            + (" (the newest 300)" if step > 300 else "")
            + ". Rank: the token's rank in the vocabulary file; a lower rank fires first."
        )
    with tree:
        explain_token_box(
            keys.REPLAY_QUERY,
            "player_replay_tree",
            placeholder="id or text, e.g. 15339 or ·the",
            help="Type an id or a token's text (· for a space), or click a row or a token. Empty: "
            "the token this step made.",
            find=lambda query: vocab_player.find_token(rep, query),
            newest=rep.steps[step - 1].new_id if step else None,
            tree_html=lambda tid: vocab_player.build_tree_html(rep, tid, step, vocab=vocab, palette=keys.palette()),
            made_by="step",
        )


def write_replay_link(step: int) -> None:
    """Put the replay's state in the URL and show the link (with its copy button)."""
    share_box(*links.write_replay_link(step), holds="this text, this vocabulary and this step")
