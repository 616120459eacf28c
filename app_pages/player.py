"""Merge player (the home page): train BPE on a text and play its merges like a video.

Glue only. The sidebar (``app_pages/player_sidebar.py``) picks the text and the settings,
``appstate.runs.get_run`` trains (cached, with a progress bar), and the merge player component
(``components/merge_player``) animates the run in the browser: it gets the run and the text window once
(``views/player_payload.py``, cached in ``appstate.caches``) and plays, steps and jumps with no server
round trip. It tells Python its merge on pause, after a step or a jump and on a click on a token; then the
panels below it (quiz, merge tree, merges and vocabulary, the share link) follow. Python moves the player
only on purpose (a link's ``merge=``, a quiz answer) by raising ``PLAYER_SEEK``.

The link's parameters are read once per session and written on every run (``appstate/links.py``).

The "predict the next merge" quiz is in ``app_pages/player_quiz.py``. Second mode, "Replay a real vocabulary"
(``app_pages/player_replay.py``, ``appstate/replay_state.py``, ``views/vocab_player.py``): the same player steps through the merges of GPT-4's (or any installed registry vocabulary's) that fire on the text,
in rank order, ending on that tokenizer's ids.
"""

from __future__ import annotations

import re
import time

import streamlit as st

import bpe
from app_pages.live_room import join_note
from app_pages.player_quiz import predict_next_merge, quiz_on
from app_pages.player_replay import replay_main
from app_pages.player_room import replay_bar, student_bar, teacher_panel
from app_pages.player_sidebar import training_sidebar
from appstate import caches, keys, links, pageguard, player_state, replay_state, runs, sources
from appstate.player_link import SPEEDS
from appstate.widgets import explain_token_box, share_box
from bpe.excerpt import heldout_start
from components.merge_player import PLAYER_CSS as MP_CSS
from components.merge_player import PLAYER_JS as MP_JS
from components.merge_player import merge_player
from components.pick_table import pick_table, picked
from guard import trainjobs
from liveroom import session, student, teacher
from views.messages import message_html
from views.notes import notes_html
from views.player import (
    EXPORTS,
    MERGE_COLUMNS,
    PLAYER_CSS,
    find_token,
    merge_tree_html,
    merges_frame,
    source_summary,
    vocab_frame,
)
from views.player_payload import locate
from views.run_page import run_page_html

ss = st.session_state
NOTES, SHOWN = keys.PLAYER_NOTES, "_player_shown_run"


def read_link() -> None:
    """Defaults for every player key, then (once per session) the link's state: bad values -> defaults
    and notes (shown with the shared sidebar's)."""
    player_state.init_player_state()
    replay_state.init_replay_state()
    links.read_link_once(keys.PLAYER_URL_READ, NOTES, links.read_player_link)
    student.sync_join()  # a live room's student (app.py joined it): the teacher's run, before the widgets
    teacher.lead_screen(None)  # a teacher back on the player: the room's students come back too


# ----------------------------------------------------------------------------------------------------
# Callbacks (run before the script; they only touch session state)


def _on_view() -> None:
    player_state.take_view(SHOWN, keys.PLAYER_STEP, keys.PLAYER_TREE_QUERY)
    teacher.lead_report((ss.get(keys.MERGE_PLAYER) or {}).get("view"))  # a live room's teacher


def _on_mode() -> None:
    ss[NOTES] = []
    student.mode_changed()  # a live room's student who picks Replay stops following (and the bar says so)


def _seek(k: int) -> None:
    player_state.seek(keys.PLAYER_STEP, k)


def _pick_row(table: str) -> None:
    tid = picked(table)
    if tid is not None:
        ss[keys.PLAYER_TREE_QUERY] = str(tid)


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

    def queued(position: int, running: int, slots: int) -> None:
        # numbers only (no user string reaches the bar's Markdown); back to the plain label once it starts
        bar.progress(
            0.0, text=trainjobs.queue_message(position, running, slots) if position else f"Training on {size}…"
        )

    try:  # in a worker process (appstate.runs.get_run): in line for one, then its progress comes here;
        # stopped after TRAIN_SECONDS
        return runs.get_run(
            text,
            settings,
            progress=lambda done, total: bar.progress(
                min(1.0, done / max(1, total)), text=f"Training on {size}: merge {done:,} of {total:,}"
            ),
            queued=queued,
        )
    finally:
        bar.empty()


def stage(run: "bpe.Run", rid: str, text: str, end: int, step: int) -> None:
    """The player (plays in the browser), then the window slider for long texts. The run trained on
    ``text[:end]``; ``text[end:]`` is held out for the compression chart."""
    n = len(run.merges)
    heldout = text[end:]
    start = int(min(ss.get(keys.PLAYER_WINDOW, 0), max(0, end - caches.WINDOW_CHARS)))
    control = {
        "tag": caches.player_tag(rid),
        "k": step,
        "seq": ss[keys.PLAYER_SEEK],
        "speed": ss[keys.PLAYER_SPEED],
        "speeds": SPEEDS,
        "metric": ss[keys.PLAYER_METRIC],
        "presenter": keys.presenting(),
        "quiz": (quiz_on() or bool(ss.get(keys.ROOM_POLL_OPEN))) and step < n,
        "lead": bool(session.lead()),
    }
    if control["lead"]:  # the server's clock: the teacher's reports say when (on it) the teacher acted
        control["clock"] = round(time.time() * 1000)
    merge_player(
        caches.player_run_data(rid, keys.palette(), runs.text_key(heldout), run, heldout),
        caches.player_window_data(rid, start, run, text, end),
        control,
        on_view=_on_view,
    )
    if end > caches.WINDOW_CHARS:
        st.slider(
            "Text window: first character shown",
            0,
            max(0, end - caches.WINDOW_CHARS),
            step=max(1, caches.WINDOW_CHARS // 2),
            key=keys.PLAYER_WINDOW,
            persist_state="session",
        )
        rep = caches.window_replay(rid, start, caches.WINDOW_CHARS, run, text, end)
        if step and step - 1 not in rep.made:
            st.button(
                f"Move the window to a token merge {step:,} made",
                key="player_to_occurrence",
                on_click=_to_occurrence,
                args=(run, rid, text, end, step),
                icon=":material/search:",
            )


def followers(run: "bpe.Run", rid: str, step: int) -> None:
    """What follows the player's merge when it pauses: the quiz, the merge tree, the merges and the vocabulary."""
    predict_next_merge(run, rid, step)
    st.markdown(f"##### 4 · Merges, vocabulary and how a token was built — at merge {step:,}")
    st.caption(
        "Each merge adds one token to the vocabulary. Click a row, a token in the text above, or type "
        "a token, to see its merge tree. These panels follow the player when it pauses."
    )
    lists, tree = st.columns([1.35, 1], gap="medium")
    with lists:
        vocab = len(run.base) + step + len(run.special_tokens)
        fallback = " + 256 byte tokens" if run.byte_fallback else ""  # SentencePiece-style: <0x00>..<0xFF>
        tab_m, tab_v = st.tabs([f"Merges ({step:,})", f"Vocabulary ({vocab:,}{fallback})"])
        for tab, table, frame, label in (
            (tab_m, "player_merge_table", merges_frame(run, step), "Merges, newest first"),
            (tab_v, "player_vocab_table", vocab_frame(run, step), "Vocabulary"),
        ):
            with tab:  # our own light table: st.dataframe's grid made a fresh page download ~0.3 MB more
                pick_table(
                    frame,
                    key=table,
                    ids=frame["id"].tolist(),
                    height=330,
                    label=label,
                    columns=MERGE_COLUMNS if table == "player_merge_table" else None,
                    empty="No merges yet: step or play, and each merge is listed here.",
                    on_pick=lambda t=table: _pick_row(t),
                )
        if step > 300:
            st.caption(f"The newest 300 of {step:,} merges; type any token on the right to explain it.")
    with tree:
        explain_token_box(
            keys.PLAYER_TREE_QUERY,
            "player_tree",
            placeholder="id or text, e.g. 300 or ·the",
            help="Type an id or a token (· for a space), or click a row or a token. Empty: the "
            "token the current merge made.",
            find=lambda query: find_token(run, query, step),
            newest=run.merges[step - 1].id if step else None,
            tree_html=lambda tid: merge_tree_html(run, tid, step, palette=keys.palette()),
            made_by="merge",
        )


def write_link(step: int) -> None:
    """Put the player's state in the URL and show the link (with its copy button); folded while this presenter
    leads a live room: a pasted text's link took many lines of the projector's screen, above the room's code."""
    if keys.presenting() and session.lead() is not None:
        with st.expander("Link to this text, these settings and this merge", icon=":material/link:"):
            share_box(*links.write_player_link(step), holds="this text, these settings and this merge")
    else:
        share_box(*links.write_player_link(step), holds="this text, these settings and this merge")


def page_button(run: "bpe.Run", rid: str, text: str, end: int, title: str) -> None:
    """ "Download this run as a web page": the player, its styles and this run's payloads in one offline
    .html (``views.run_page``), built when clicked from the payloads the player already has (cached)."""
    heldout = text[end:]
    start = int(min(ss.get(keys.PLAYER_WINDOW, 0), max(0, end - caches.WINDOW_CHARS)))
    run_data = caches.player_run_data(rid, keys.palette(), runs.text_key(heldout), run, heldout)
    window_data = caches.player_window_data(rid, start, run, text, end)
    n = len(run.merges)
    about = f"{n:,} merges learned from {end:,} characters" + (
        f" (the last {len(heldout):,} held out for the compression chart)." if heldout else "."
    )
    speed, metric = ss[keys.PLAYER_SPEED], ss[keys.PLAYER_METRIC]
    slug = "-".join(re.findall(r"[A-Za-z0-9]+", title))[:40].lower() or "text"
    st.download_button(
        "Download this run as a web page",
        key="player_run_page",
        icon=":material/download:",
        data=lambda: run_page_html(
            run_data,
            window_data,
            tag=caches.player_tag(rid),
            player_js=MP_JS,
            player_css=MP_CSS,
            title=f"Merge player: {title}",
            about=about,
            speed=speed,
            speeds=SPEEDS,
            metric=metric,
        ),
        file_name=f"bpe-run-{slug}-{n}-merges.html",
        mime="text/html",
        on_click="ignore",
        help="One .html file that plays this run offline in any browser, with the same controls "
        "and shortcuts: for slides, a course site or a laptop. It holds the text window shown "
        "above.",
    )


def export(run: "bpe.Run", rid: str) -> None:
    """Download buttons for the trained tokenizer (all its merges), in the formats the library writes."""
    with st.expander("Export this tokenizer"):
        st.caption(
            f"The tokenizer with all {len(run.merges):,} merges and {len(run.special_tokens)} special "
            "tokens, as Hugging Face tokenizers and tiktoken load it. The zips also hold bpe_lab.json "
            "(the pre-tokenizer regex and the special tokens)."
        )
        for col, (fmt, (name, label, mime)) in zip(st.columns(len(EXPORTS)), EXPORTS.items()):
            data = caches.export_file(rid, fmt, run)
            if isinstance(data, str):
                col.button(label, key=f"player_export_{fmt}", disabled=True, width="stretch", help=data)
                st.html(message_html(f"{label}: {data}", "info", css_class="player-export-why"))
            else:
                col.download_button(
                    label,
                    data=data,
                    file_name=name,
                    mime=mime,
                    key=f"player_export_{fmt}",
                    on_click="ignore",
                    width="stretch",
                )


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
        head.segmented_control(
            "What to play",
            list(replay_state.MODES),
            key=keys.PLAYER_MODE,
            format_func=replay_state.MODES.get,
            required=True,
            label_visibility="collapsed",
            persist_state="session",
            on_change=_on_mode,
        )
        head.caption(
            "Byte pair encoding learns a vocabulary by merging the most frequent pair of neighbouring "
            "tokens, again and again. Press play (K), or step through it one merge at a time (← →)."
            if ss[keys.PLAYER_MODE] != "replay"
            else "Watch a real model's tokenizer build your text: its merges fire in rank order, one step at "
            "a time (K plays, ← → step), and the last step is exactly its token ids."
        )
    join_note(head)  # the link's join= named no live room (or was refused, or must wait)
    if ss[keys.PLAYER_MODE] == "replay":
        if ss.get(keys.ROOM_JOIN):
            with head:
                replay_bar()  # a live room's student: they stopped following; Rejoin
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
    teacher.lead_sync()
    if not run.complete:
        cap.caption(f"This text allowed {n:,} merges, not {int(ss[keys.PLAYER_MERGES]):,}: {run.stop_reason}.")
    about = PLAYER_CSS + source_summary(
        run, title=title, heldout_chars=len(text) - end, coverage=settings.character_coverage
    )
    if not presenting:
        summary.html(about)
    if ss.get(keys.ROOM_JOIN):
        with head:
            student_bar(run, rid)
    player(run, rid, text, end)
    if presenting and not ss.get(keys.ROOM_JOIN):
        teacher_panel(run, rid)
    if presenting:
        st.html(about)
    page_button(run, rid, text, end, title)
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
    teacher.lead_seeked(step)
    with st.container(key="player_followers"):
        followers(run, rid, step)
    write_link(step)


pageguard.run_page(main, page="Merge player")
