"""Merge player (the home page): train BPE on a text and play its merges like a video.

Glue only. The sidebar (``app_pages/player_sidebar.py``) picks the text and the settings,
``appstate.runs.get_run`` trains (cached, with a progress bar), and the merge player component
(``components/merge_player``) animates the run in the browser: it gets the run and the text window once
(``views/player_payload.py``, cached in ``appstate.caches``) and plays, steps and jumps with no server
round trip. It tells Python its merge on pause, after a step or a jump and on a click on a token; then the
panels below it (quiz, merge tree, merges and vocabulary, the share link) follow. Python moves the player
only on purpose (a link's ``merge=``, a quiz answer) by raising ``PLAYER_SEEK``.

The link's parameters are read once per session and written on every run (``appstate/links.py``).

Second mode, "Replay a real vocabulary" (``appstate/replay_state.py``, ``views/vocab_player.py``): the same
player steps through the merges of GPT-4's (or any installed registry vocabulary's) that fire on the text,
in rank order, ending on that tokenizer's ids.
"""
from __future__ import annotations

import html
import logging

import streamlit as st

import bpe
import trainjobs
from app_pages.player_sidebar import training_sidebar
from appstate import caches, keys, links, pageguard, player_state, replay_state, runs, sources
from appstate.player_link import SPEEDS
from bpe.excerpt import heldout_start
from components.merge_player import merge_player
from views import vocab_player
from views.messages import markdown_literal, message_html
from views.notes import notes_html
from views.player import (EXPORTS, MERGE_COLUMNS, PLAYER_CSS, find_token, merge_tree_html, merges_frame, score_html,
                          source_summary, vocab_frame)
from views.player_payload import locate
from views.quiz import QUIZ_CSS, Quiz, grade, next_merge_quiz, score_text, verdict_html
from views.vocabularies import load_failed_text

ss = st.session_state
NOTES, SHOWN = keys.PLAYER_NOTES, "_player_shown_run"
QUIZ, QUIZ_PICK, QUIZ_MSG, QUIZ_VERDICT = "player_quiz", "player_quiz_pick", "_player_quiz_msg", "_player_quiz_verdict"
RESULTS = keys.QUIZ_RESULTS    # {quiz id: right?}, shared with the Classroom
ROWS = {"player_merge_table": "_player_merge_rows", "player_vocab_table": "_player_vocab_rows"}
METRICS = ("bytes_per_token", "tokens")



def read_link() -> None:
    """Defaults for every player key, then (once per session) the link's state: bad values -> defaults
    and notes (shown with the shared sidebar's)."""
    player_state.init_player_state()
    replay_state.init_replay_state()
    links.read_link_once(keys.PLAYER_URL_READ, NOTES, links.read_player_link)


# ----------------------------------------------------------------------------------------------------
# Callbacks (run before the script; they only touch session state)

def _take_view(shown: str, step: str, query: str) -> None:
    """The player reports where it is (pause, step, jump, a click on a token): into the ``step`` and ``query``
    keys of the mode whose (id, tag) is in ``shown``."""
    view = (ss.get(keys.MERGE_PLAYER) or {}).get("view")
    if not isinstance(view, dict) or view.get("tag") != ss.get(shown, ("", ""))[1] or type(view.get("k")) is not int:
        return  # a report about another run (the page moved on meanwhile), or not one at all
    ss[step] = max(0, view["k"])
    if view.get("speed") in SPEEDS:
        ss[keys.PLAYER_SPEED] = view["speed"]
    if view.get("metric") in METRICS:
        ss[keys.PLAYER_METRIC] = view["metric"]
    if type(view.get("explain")) is int:
        ss[query] = str(view["explain"])
    ss[NOTES] = []  # the user moved on: a link's notes have been seen


def _on_view() -> None:
    _take_view(SHOWN, keys.PLAYER_STEP, keys.PLAYER_TREE_QUERY)


def _seek(k: int) -> None:
    ss[keys.PLAYER_STEP] = k
    ss[keys.PLAYER_SEEK] += 1


def _quiz_check(quiz: Quiz) -> None:
    """Grade the pick, score it (shared with the Classroom), then reveal the merge (one step)."""
    if ss.get(QUIZ_PICK) is None:
        ss[QUIZ_MSG] = "Pick a pair first, then check."
        return
    verdict = grade(quiz, ss.pop(QUIZ_PICK))
    ss[RESULTS] = {**ss.get(RESULTS, {}), quiz.id: verdict.right}
    ss[QUIZ_MSG] = ""
    _seek(ss[keys.PLAYER_STEP] + 1)
    ss[QUIZ_VERDICT] = (ss[keys.PLAYER_STEP], verdict)


def _pick_row(table: str) -> None:
    rows = ss[table].selection.rows if ss.get(table) is not None else []
    ids = ss.get(ROWS[table], [])
    if rows and rows[0] < len(ids):
        ss[keys.PLAYER_TREE_QUERY] = str(ids[rows[0]])


def _to_occurrence(run: "bpe.Run", rid: str, text: str, end: int, k: int) -> None:
    at = locate(run, caches.merge_index(rid, run), bpe.normalize_text(text[:end], run.normalize), k - 1)
    if at is not None:
        size = caches.WINDOW_CHARS
        ss[keys.PLAYER_WINDOW] = min(max(0, end - size), max(0, at - size // 3))


# ----------------------------------------------------------------------------------------------------

def train(text: str, settings: runs.TrainSettings, where) -> "bpe.Run":
    """The run (cached), trained behind a progress bar drawn in ``where`` when it is not cached yet."""
    if (run := runs.peek_run(text, settings)) is not None:
        return run
    size = sources.mb(len(text.encode("utf-8", "surrogatepass")))
    bar = where.progress(0.0, text=f"Training on {size}…")
    try:  # in a worker process (appstate.runs.get_run): its progress comes here; stopped after TRAIN_SECONDS
        return runs.get_run(text, settings, progress=lambda done, total: bar.progress(
            min(1.0, done / max(1, total)), text=f"Training on {size}: merge {done:,} of {total:,}"))
    finally:
        bar.empty()


def stage(run: "bpe.Run", rid: str, text: str, end: int, step: int) -> None:
    """The player (plays in the browser), then the window slider for long texts. The run trained on
    ``text[:end]``; ``text[end:]`` is held out for the compression chart."""
    n = len(run.merges)
    heldout = text[end:]
    start = int(min(ss.get(keys.PLAYER_WINDOW, 0), max(0, end - caches.WINDOW_CHARS)))
    control = {"tag": caches.player_tag(rid), "k": step, "seq": ss[keys.PLAYER_SEEK],
               "speed": ss[keys.PLAYER_SPEED], "speeds": SPEEDS, "metric": ss[keys.PLAYER_METRIC],
               "presenter": keys.presenting(), "quiz": bool(ss.get(QUIZ)) and step < n}
    merge_player(caches.player_run_data(rid, keys.palette(), runs.text_key(heldout), run, heldout),
                 caches.player_window_data(rid, start, run, text, end), control, on_view=_on_view)
    if end > caches.WINDOW_CHARS:
        st.slider("Text window: first character shown", 0, max(0, end - caches.WINDOW_CHARS),
                  step=max(1, caches.WINDOW_CHARS // 2), key=keys.PLAYER_WINDOW, persist_state="session")
        rep = caches.window_replay(rid, start, caches.WINDOW_CHARS, run, text, end)
        if step and step - 1 not in rep.made:
            st.button(f"Move the window to a token merge {step:,} made", key="player_to_occurrence",
                      on_click=_to_occurrence, args=(run, rid, text, end, step), icon=":material/search:")


def followers(run: "bpe.Run", rid: str, step: int) -> None:
    """What follows the player's merge when it pauses: the quiz, the merge tree, the merges and the vocabulary."""
    n = len(run.merges)
    st.toggle("Predict the next merge", key=QUIZ, persist_state="session", on_change=ss.pop, args=(QUIZ_PICK, None),
              help="Before each merge, pick the pair you think is merged next; then it is revealed.")
    if ss.get(QUIZ):
        with st.container(key="player_quiz_box"):
            last = ss.get(QUIZ_VERDICT)
            st.html(QUIZ_CSS + (verdict_html(last[1]) if last and last[0] == step else ""))
            if step >= n:
                st.caption("That was the last merge: reset to predict again.")
            else:
                quiz = next_merge_quiz(run, step, quiz_id=f"player:{runs.text_key(rid)}:{step + 1}", n_options=4,
                                         question=f"Which pair is merged next (merge {step + 1})?")
                # option labels render Markdown and hold tokens of the user's text: made literal
                st.radio(quiz.question, range(len(quiz.options)), key=QUIZ_PICK, index=None, horizontal=True,
                         persist_state="session", format_func=lambda i: markdown_literal(quiz.options[i].label))
                st.button("Check and reveal", key="player_quiz_check", on_click=_quiz_check, args=(quiz,),
                          type="primary", icon=":material/visibility:")
                if ss.get(QUIZ_MSG):
                    st.caption(ss[QUIZ_MSG])
            st.html(score_html(ss.get(RESULTS, {}), score_text(ss.get(RESULTS, {}))))
    st.markdown(f"##### 4 · Merges, vocabulary and how a token was built — at merge {step:,}")
    st.caption("Each merge adds one token to the vocabulary. Click a row, a token in the text above, or type "
               "a token, to see its merge tree. These panels follow the player when it pauses.")
    lists, tree = st.columns([1.35, 1], gap="medium")
    with lists:
        vocab = len(run.base) + step + len(run.special_tokens)
        tab_m, tab_v = st.tabs([f"Merges ({step:,})", f"Vocabulary ({vocab:,})"])
        for tab, table, frame in ((tab_m, "player_merge_table", merges_frame(run, step)),
                                  (tab_v, "player_vocab_table", vocab_frame(run, step))):
            ss[ROWS[table]] = frame["id"].tolist()
            with tab:
                st.dataframe(frame, key=table, height=330, hide_index=True, selection_mode="single-row",
                             on_select=lambda t=table: _pick_row(t),
                             column_order=MERGE_COLUMNS if table == "player_merge_table" else None)
        if step > 300:
            st.caption(f"The newest 300 of {step:,} merges; type any token on the right to explain it.")
    with tree:
        st.text_input("Explain a token", key=keys.PLAYER_TREE_QUERY, persist_state="session",
                      placeholder="id or text, e.g. 300 or ·the",
                      help="Type an id or a token (· for a space), or click a row or a token. Empty: the token "
                           "the current merge made.")
        tid, why = find_token(run, ss.get(keys.PLAYER_TREE_QUERY, ""), step)
        with st.container(height=300, key="player_tree"):
            if why:  # it quotes what the user typed: an escaped box, not Markdown
                st.html(message_html(why, "warning", css_class="player-tree-why"))
            tid = tid if tid is not None else (run.merges[step - 1].id if step else None)
            st.html(merge_tree_html(run, tid, step, palette=keys.palette()) if tid is not None else PLAYER_CSS +
                    '<div class="bpe-pl-tree">Nothing merged yet: step forward and the token each merge makes '
                    "is explained here.</div>")
        if ss.get(keys.PLAYER_TREE_QUERY):
            st.button("Back to the newest token", key="player_tree_newest", on_click=ss.__setitem__,
                      args=(keys.PLAYER_TREE_QUERY, ""), type="tertiary", icon=":material/undo:")


def write_link(step: int) -> None:
    """Put the player's state in the URL and show the link (with Streamlit's copy icon)."""
    url, why = links.write_player_link(step)
    with st.container(key="player_share"):
        st.caption("Link to this text, these settings and this merge — the icon on the right copies it:")
        st.code(url, language=None, wrap_lines=True)
        if why:
            st.caption(why)


def export(run: "bpe.Run", rid: str) -> None:
    """Download buttons for the trained tokenizer (all its merges), in the formats the library writes."""
    with st.expander("Export this tokenizer"):
        st.caption(f"The tokenizer with all {len(run.merges):,} merges and {len(run.special_tokens)} special "
                   "tokens, as Hugging Face tokenizers and tiktoken load it. The zips also hold bpe_lab.json "
                   "(the pre-tokenizer regex and the special tokens).")
        for col, (fmt, (name, label, mime)) in zip(st.columns(len(EXPORTS)), EXPORTS.items()):
            data = caches.export_file(rid, fmt, run)
            if isinstance(data, str):
                col.button(label, key=f"player_export_{fmt}", disabled=True, width="stretch", help=data)
                st.html(message_html(f"{label}: {data}", "info", css_class="player-export-why"))
            else:
                col.download_button(label, data=data, file_name=name, mime=mime, key=f"player_export_{fmt}",
                                    on_click="ignore", width="stretch")


def main() -> None:
    read_link()
    presenting = keys.presenting()  # a projector: the player first, the rest below it
    # The same containers always come before the player, so it keeps its place on reruns: an element
    # that comes and goes above it (a progress bar, a note) would make the browser mount a new player.
    head, summary, progress = (st.container(key=k) for k in ("player_head", "player_summary", "player_progress"))
    if presenting:  # clear of the header (taller in presenter's large type), the stage fills the screen
        head.html('<style>[data-testid="stMainBlockContainer"]{padding-top:4.3rem !important;}</style>')
    else:
        head.markdown("## Merge player")
        head.segmented_control("What to play", list(replay_state.MODES), key=keys.PLAYER_MODE,
                               format_func=replay_state.MODES.get, required=True, label_visibility="collapsed",
                               persist_state="session",
                               on_change=ss.__setitem__, args=(NOTES, []))
        head.caption("Byte pair encoding learns a vocabulary by merging the most frequent pair of neighbouring "
                     "tokens, again and again. Press play (K), or step through it one merge at a time (← →)."
                     if ss[keys.PLAYER_MODE] != "replay" else
                     "Watch a real model's tokenizer build your text: its merges fire in rank order, one step at "
                     "a time (K plays, ← → step), and the last step is exactly its token ids.")
    if ss[keys.PLAYER_MODE] == "replay":
        replay_main(summary, presenting)
        return
    try:
        # One copy of the text: the source's own string; the training part is sliced where it is used
        # (training, hashing), never kept (a kept slice is a second copy for the whole session).
        title, text, cap = training_sidebar()
        end = heldout_start(text)  # the last ~10% is held out for the compression chart
        settings = player_state.player_settings(text[:end])
        run = train(text[:end], settings, progress)
    except trainjobs.TrainingAbandoned:
        return  # this run was asked to stop or rerun (tab closed, settings changed): Streamlit does that now
    except (sources.SourceError, bpe.PatternError, bpe.TrainingDataError, ValueError) as exc:
        # (trainjobs.TrainingTooLong is a ValueError.) The message may quote a file name, a regex, a special
        # token: an escaped box, never Markdown
        ss.pop(keys.PLAYER_LINK_STEP, None)
        st.html(message_html(str(exc), "error", css_class="player-error"))
        st.caption("Pick a sample or fix the text or settings in the sidebar; the player comes back at once.")
        write_link(int(ss.get(keys.PLAYER_STEP, 0)))
        return
    rid = runs.run_id(text[:end], settings)
    n = len(run.merges)
    if ss.get(SHOWN, ("",))[0] != rid:  # a new text or new settings: start from merge 0
        ss[NOTES] = ss[NOTES] if ss.get(SHOWN) is None else []
        ss[SHOWN] = (rid, caches.player_tag(rid))
        ss[keys.PLAYER_WINDOW], ss[keys.PLAYER_TREE_QUERY] = 0, ""
        _seek(0)
    if keys.PLAYER_LINK_STEP in ss:  # a link's merge, once its run is known
        k = int(ss.pop(keys.PLAYER_LINK_STEP))
        if k > n:
            ss[NOTES] = ss[NOTES] + [f"The link's merge={k} is beyond this run's {n:,} merges: showing merge {n:,}."]
        _seek(min(k, n))
    player_state.remember_player_run(text, end, settings)
    if not run.complete:
        cap.caption(f"This text allowed {n:,} merges, not {int(ss[keys.PLAYER_MERGES]):,}: {run.stop_reason}.")
    about = PLAYER_CSS + source_summary(run, title=title, heldout_chars=len(text) - end)
    if not presenting:
        summary.html(about)
    player(run, rid, text, end)
    if presenting:
        st.html(about)
    export(run, rid)


@st.fragment
@pageguard.guarded("Merge player")
def player(run: "bpe.Run", rid: str, text: str, end: int) -> None:
    """The player and the panels that follow it. A report from the player reruns only this part (with
    the arguments of the last full run): the sidebar and the training above are not run again."""
    n = len(run.merges)
    step = ss[keys.PLAYER_STEP] = max(0, min(int(ss[keys.PLAYER_STEP]), n))
    with st.container(key="player_note"):  # always there (empty without notes): the player keeps its place
        if ss.get(NOTES):
            st.html(notes_html(ss[NOTES], "bpe-pl-notes"))
        if not n:
            st.html(message_html(f"Nothing to merge: {run.stop_reason}. Try a longer text.", "warning"))
    stage(run, rid, text, end, step)
    with st.container(key="player_followers"):
        followers(run, rid, step)
    write_link(step)


# ----------------------------------------------------------------------------------------------------
# Replay a real vocabulary

def _on_replay_view() -> None:
    _take_view(keys.REPLAY_SHOWN, keys.REPLAY_STEP, keys.REPLAY_QUERY)


def _replay_seek(k: int) -> None:
    ss[keys.REPLAY_STEP] = k
    ss[keys.PLAYER_SEEK] += 1


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


def replay_main(summary, presenting: bool) -> None:
    """The replay mode: the text from the sidebar, the vocabulary's replay on it, the player and its panels."""
    name = ss.get(keys.PLAYER_VOCAB, "")
    try:
        title, full_text, _cap = training_sidebar(replay=True)
        if name not in bpe.PRETRAINED:
            raise sources.SourceError("No vocabulary is installed: install one of the packages named in the "
                                      "sidebar.")
        text, cut = replay_state.replay_text(full_text, bool(ss.get(keys.REPLAY_CUT)))
        rep = replay_state.vocab_replay(name, runs.text_key(text), text)
    except bpe.PretrainedError as exc:
        ss.pop(keys.PLAYER_LINK_STEP, None)
        logging.getLogger("bpe_lab.vocabularies").warning("vocabulary %s failed to load: %s", name, exc)
        st.error(load_failed_text(bpe.PRETRAINED[name]), icon="⚠️")
        return
    except (sources.SourceError, ValueError) as exc:  # may quote a file name: an escaped box, never Markdown
        ss.pop(keys.PLAYER_LINK_STEP, None)
        st.html(message_html(str(exc), "error", css_class="player-error"))
        st.caption("Pick a sample or fix the text in the sidebar; the player comes back at once.")
        write_replay_link(int(ss.get(keys.REPLAY_STEP, 0)))
        return
    vocab = replay_state.vocab_words(name)
    rid = replay_state.replay_id(name, text)
    n = len(rep.steps)
    if ss.get(keys.REPLAY_SHOWN, ("",))[0] != rid:   # a new text or vocabulary: from step 0
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
    control = {"tag": caches.player_tag(rid), "k": step, "seq": ss[keys.PLAYER_SEEK],
               "speed": ss[keys.PLAYER_SPEED], "speeds": SPEEDS, "metric": ss[keys.PLAYER_METRIC],
               "presenter": keys.presenting(), "quiz": False}
    merge_player(replay_state.replay_run_data(rid, keys.palette(), rep, vocab),
                 replay_state.replay_window_data(rid, start, rep), control, on_view=_on_replay_view)
    if len(rep.text) > caches.WINDOW_CHARS:
        st.slider("Text window: first character shown", 0, max(0, len(rep.text) - caches.WINDOW_CHARS),
                  step=max(1, caches.WINDOW_CHARS // 2), key=keys.REPLAY_WINDOW, persist_state="session")
        if step and vocab_player.first_offset(rep, step) is not None and not _in_window(rep, start, step):
            st.button(f"Move the window to a token step {step:,} made", key="player_replay_to_occurrence",
                      on_click=_replay_to_occurrence, args=(rep, step), icon=":material/search:")
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
        st.html(vocab_player.explainer_html(vocab, list(kinds.items())))
        if found:
            st.caption("The steps where it happens on this text — pick one to go there:")
            st.dataframe(vocab_player.differences_frame(rep), key="player_replay_diffs", hide_index=True,
                         selection_mode="single-row", on_select=lambda: _pick_difference(rep),
                         height=min(300, 38 + 35 * len(found)))
    st.markdown(f"##### 5 · {html.escape(vocab)}’s merges on this text and how a token is built — at step {step:,}")
    lists, tree = st.columns([1.35, 1], gap="medium")
    with lists:
        frame = vocab_player.steps_frame(rep, step)
        ids = frame["id"].tolist()
        st.dataframe(frame, key="player_replay_steps", height=330, hide_index=True, selection_mode="single-row",
                     on_select=lambda: _pick_step_row(ids), column_order=vocab_player.STEP_COLUMNS)
        st.caption(f"Steps 1–{step:,}, newest first" + (f" (the newest 300)" if step > 300 else "")
                   + ". Rank: the token's rank in the vocabulary file; a lower rank fires first.")
    with tree:
        st.text_input("Explain a token", key=keys.REPLAY_QUERY, persist_state="session",
                      placeholder="id or text, e.g. 15339 or ·the",
                      help="Type an id or a token's text (· for a space), or click a row or a token. Empty: the "
                           "token this step made.")
        tid, why = _find_vocab_token(rep, ss.get(keys.REPLAY_QUERY, ""))
        with st.container(height=300, key="player_replay_tree"):
            if why:
                st.warning(why)
            tid = tid if tid is not None else (rep.steps[step - 1].new_id if step else None)
            st.html(vocab_player.build_tree_html(rep, tid, step, vocab=vocab, palette=keys.palette()) if tid is not None else
                    PLAYER_CSS + '<div class="bpe-pl-tree">Nothing merged yet: step forward and the token each step '
                    "makes is explained here.</div>")
        if ss.get(keys.REPLAY_QUERY):
            st.button("Back to the newest token", key="player_replay_tree_newest", on_click=ss.__setitem__,
                      args=(keys.REPLAY_QUERY, ""), type="tertiary", icon=":material/undo:")


def _find_vocab_token(rep, query: str) -> tuple[int | None, str]:
    """The id a typed query names in the replayed vocabulary (an id, or one token's text), or why not."""
    tok = rep.tokenizer
    q = (query or "").strip("\n")
    if not q:
        return None, ""
    if q.isascii() and q.isdigit():
        i = int(q)
        try:
            tok.token_bytes(i)
            return i, ""
        except (KeyError, ValueError, IndexError, OverflowError):
            return None, f"There is no token with id {q[:12]} in this vocabulary."
    text = q.replace("·", " ").replace("↵", "\n").replace("→", "\t")
    ids = tok.encode_ordinary(text)
    if len(ids) == 1:
        return ids[0], ""
    return None, f"That text is {len(ids):,} tokens in this vocabulary, not one: type one token."


def write_replay_link(step: int) -> None:
    url, why = links.write_replay_link(step)
    with st.container(key="player_share"):
        st.caption("Link to this text, this vocabulary and this step — the icon on the right copies it:")
        st.code(url, language=None, wrap_lines=True)
        if why:
            st.caption(why)


pageguard.run_page(main, page="Merge player")
