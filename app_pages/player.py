"""Merge player (the home page): train BPE on a text and play its merges like a video.

Glue only: the sidebar picks the text and the settings, ``appstate.get_run`` trains (cached), and a
fragment draws the four panels for the current step. The fragment reruns on its own while playing
(``run_every``); play/pause/speed changes re-register that timer with a full rerun.

Share links. The URL carries the player's state, written on every run (``st.query_params``) and read once
per session (the first time the player runs), so a link reopens the same text, settings and merge:

* ``sample``  — a sample's key (file stem), e.g. ``aaabdaaabac``;
* ``text``    — a pasted text of at most ``MAX_LINK_TEXT`` characters, instead of ``sample`` (longer pastes
  and uploads are not linked: the link then carries the settings only, and the page says so);
* ``merges``  — merges to learn, 1 … ``MAX_APP_VOCAB - 256`` (an old ``vocab`` = 256 + merges is read too);
* ``pattern`` — a pre-tokenizer registry name (``gpt4`` …), ``none``, or a custom regex;
* ``level``   — ``byte`` or ``char``;
* ``tie``     — ``lexical``, ``first`` or ``hf``;
* ``nfc``     — ``1`` or ``0``;
* ``special`` — special tokens, separated by spaces;
* ``merge``   — the merge index shown, 0 … the run's merges.

A bad value (``merge=-5``, ``merges=abc``, ``pattern=(``, an unknown sample …) falls back to the default with
a note on the page (escaped), never an error. ``presenter`` and ``palette`` belong to the shared sidebar
(app.py).

Predict the next merge: with the ``player_quiz`` toggle on, before each step the student picks the next
pair among a few candidates (``views.classroom.next_merge_quiz``); "Check and reveal" grades it (a tie counts
as right, the rule explained), scores it in ``quiz_results`` (shared with the Classroom) and steps.
"""
from __future__ import annotations

import html
import os
import re
import sys
import time

import streamlit as st

import appstate as A
import bpe
from components.live_plotly import live_plotly
from views.charts import COMPRESSION_CHART_HEIGHT, PAIR_CHART_HEIGHT, compression_json, pair_counts_json
from views.player import (EXPORTS, MERGE_COLUMNS, PLAYER_CSS, TIE_RULES, find_token, merge_tree_html,
                          merges_frame, source_summary, status_html, vocab_frame)
from views import classroom as C
from views.share import (first_value, parse_bool, parse_choice, parse_int, parse_text, share_url, shown)
from views.replay import replay_spans
from views.spans import render_spans
from views.tokenize_views import has_lone_surrogates

ss = st.session_state
A.init_player_state()
SAMPLES = {s.key: s for s in A.samples()}
URL_READ = "_player_url_read"  # the link was read (once per session)
NOTES = "_player_notes"        # what was wrong with the link (shown until the user moves on)
URL_STEP = "_player_url_step"  # the link's merge index, applied once its run is trained
QUIZ = "player_quiz"           # toggle: predict the next merge
QUIZ_PICK = "player_quiz_pick"
QUIZ_MSG = "_player_quiz_msg"
QUIZ_VERDICT = "_player_quiz_verdict"  # (step revealed, Verdict) of the last answer
RESULTS = "quiz_results"       # {quiz id: right?}, shared with the Classroom
#: Longest pasted text a share link carries (characters).
MAX_LINK_TEXT = 2_000
MAX_LINK_SPECIALS = 400
MAX_LINK_PATTERN = 500
#: Player parameters in the URL, in the order a link lists them.
LINK_KEYS = ("sample", "text", "merges", "pattern", "level", "tie", "nfc", "special", "merge")
HOLD = "_player_hold"          # set by a control: the next frame must not advance by itself
TIMER = "_player_timer"        # the run_every the fragment was registered with
SHOWN = "_player_shown_run"    # run_id of the run the step belongs to
MERGE_ROWS = "_player_merge_rows"
VOCAB_ROWS = "_player_vocab_rows"

SOURCES = {"sample": "Sample", "paste": "Paste", "upload": "Upload"}
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
LEVELS = {"byte": "Bytes (UTF-8)", "char": "Characters"}
METRICS = {"bytes_per_token": "Bytes per token", "tokens": "Tokens"}
#: Bars in the pair chart: enough to see the runners-up and the ties, few enough to read on a projector
TOP_PAIRS = 15


def frame_seconds(speed: float) -> float:
    return max(A.MIN_FRAME_SECONDS, 1.0 / float(speed))


def merges_per_frame(speed: float) -> int:
    return max(1, round(float(speed) * frame_seconds(speed)))


# ----------------------------------------------------------------------------------------------------
# Share links (see the module docstring)

def read_link() -> None:
    """Once per session: the player's state from the URL; bad values -> defaults + notes."""
    qp = st.query_params
    notes = list(ss.pop("_app_notes", []))  # the shared sidebar's (presenter, palette)

    def take(result):
        value, note = result
        if note:
            notes.append(note)
        return value

    text = take(parse_text(qp.get("text"), MAX_LINK_TEXT, "", name="text"))
    if text:
        ss[A.PLAYER_SOURCE], ss[A.PLAYER_PASTE] = "paste", text
    elif first_value(qp.get("sample")) is not None:
        key = take(parse_choice(qp.get("sample"), list(SAMPLES), A.samples()[0].key, name="sample"))
        ss[A.PLAYER_SOURCE], ss[A.PLAYER_SAMPLE] = "sample", key
        ss.update(A.sample_defaults(SAMPLES[key]))
    top = A.MAX_APP_VOCAB - 256
    if first_value(qp.get("merges")) is not None:
        ss[A.PLAYER_MERGES] = take(parse_int(qp.get("merges"), 1, top, int(ss[A.PLAYER_MERGES]), name="merges"))
    elif first_value(qp.get("vocab")) is not None:
        vocab = take(parse_int(qp.get("vocab"), 257, A.MAX_APP_VOCAB, 256 + int(ss[A.PLAYER_MERGES]),
                               name="vocab", what="vocabulary"))
        ss[A.PLAYER_MERGES] = vocab - 256
    raw = first_value(qp.get("pattern"))
    if raw is not None:
        if raw in bpe.PATTERNS or raw == "none":
            ss[A.PLAYER_PATTERN] = raw
        elif len(raw) > MAX_LINK_PATTERN:
            notes.append(f"The link's pattern is {len(raw):,} characters long; links carry at most "
                         f"{MAX_LINK_PATTERN}: using gpt4.")
        else:
            try:
                entry = bpe.get_pattern(raw)
            except bpe.PatternError as exc:
                notes.append(f"The link's pattern={shown(raw)} is not a valid regex ({exc}): using gpt4.")
            else:
                if entry.custom:
                    ss[A.PLAYER_PATTERN], ss[A.PLAYER_CUSTOM_PATTERN] = "custom", raw
                else:
                    ss[A.PLAYER_PATTERN] = entry.name
    ss[A.PLAYER_LEVEL] = take(parse_choice(qp.get("level"), list(LEVELS), ss[A.PLAYER_LEVEL], name="level"))
    ss[A.PLAYER_TIE_BREAK] = take(parse_choice(qp.get("tie"), list(TIE_RULES), ss[A.PLAYER_TIE_BREAK],
                                               name="tie"))
    ss[A.PLAYER_NFC] = take(parse_bool(qp.get("nfc"), bool(ss[A.PLAYER_NFC]), name="nfc"))
    if first_value(qp.get("special")) is not None:
        specials = take(parse_text(qp.get("special"), MAX_LINK_SPECIALS, None, name="special"))
        if specials is not None:
            ss[A.PLAYER_SPECIALS] = " ".join(A.parse_specials(specials))
    if first_value(qp.get("merge")) is not None:
        ss[URL_STEP] = take(parse_int(qp.get("merge"), 0, A.MAX_APP_VOCAB, 0, name="merge"))
    ss[NOTES] = notes


def link_params(step: int) -> tuple[dict, str]:
    """The player's URL parameters for ``step``, and why the text is not in them ("" when it is)."""
    p: dict = {}
    why = ""
    source = ss[A.PLAYER_SOURCE]
    if source == "sample":
        p["sample"] = ss[A.PLAYER_SAMPLE]
    elif source == "paste" and len(ss.get(A.PLAYER_PASTE, "")) <= MAX_LINK_TEXT:
        p["text"] = ss[A.PLAYER_PASTE]
    elif source == "paste":
        why = (f"Pasted texts longer than {MAX_LINK_TEXT:,} characters cannot be linked: this link carries "
               "the settings and the merge, not the text.")
    else:
        why = "Uploaded files cannot be linked: this link carries the settings and the merge, not the text."
    p["merges"] = int(ss[A.PLAYER_MERGES])
    pat = ss[A.PLAYER_PATTERN]
    p["pattern"] = (ss.get(A.PLAYER_CUSTOM_PATTERN) or "") if pat == "custom" else pat
    p["level"] = ss[A.PLAYER_LEVEL]
    p["tie"] = ss[A.PLAYER_TIE_BREAK]
    p["nfc"] = bool(ss[A.PLAYER_NFC])
    specials = A.parse_specials(ss.get(A.PLAYER_SPECIALS, ""))
    p["special"] = " ".join(specials) if specials else None
    p["merge"] = int(step)
    return p, why


def write_link(step: int) -> None:
    """Put the player's state in the URL and show the link (with Streamlit's copy icon)."""
    params, why = link_params(step)
    for key in LINK_KEYS + ("vocab",):
        value = params.get(key)
        if value is None:
            if key in st.query_params:
                del st.query_params[key]
        else:
            text = "1" if value is True else "0" if value is False else str(value)
            if st.query_params.get(key) != text:
                st.query_params[key] = text
    extra = {}
    if ss.get("presenter"):
        extra["presenter"] = 1
    if A.palette() != "default":
        extra["palette"] = A.palette()
    with st.container(key="player_share"):
        st.caption("Link to this text, these settings and this merge — the icon on the right copies it:")
        st.code(share_url(st.context.url, {**params, **extra}), language=None, wrap_lines=True)
        if why:
            st.caption(why)


def show_notes() -> None:
    if ss.get(NOTES):
        with st.container(key="player_note"):
            st.html('<div class="bpe-pl-notes" style="background:#fff8e1;border-left:6px solid #e69f00;'
                    'padding:.4em .8em;border-radius:4px;color:#111;">'
                    + "".join(f'<p style="margin:.15em 0">⚠ {html.escape(n)}</p>' for n in ss[NOTES]) + "</div>")


if not ss.get(URL_READ):
    read_link()
    ss[URL_READ] = True


# ----------------------------------------------------------------------------------------------------
# Callbacks (run before the script; they only touch session state)

def _on_sample_change() -> None:
    ss[NOTES] = []
    s = SAMPLES.get(ss.get(A.PLAYER_SAMPLE))
    if s is not None:
        ss.update(A.sample_defaults(s))


def _on_upload_change() -> None:
    f = ss.get(A.PLAYER_UPLOAD)
    ss.pop(A.PLAYER_UPLOAD_TEXT, None)
    ss[A.PLAYER_UPLOAD_TRUNCATE] = False
    if f is None:
        return
    info = {"name": f.name, "size": f.size, "text": "", "truncated": False, "error": ""}
    try:
        if f.size > A.MAX_UPLOAD_BYTES:
            raise A.SourceError(f"{f.name} is {A.mb(f.size)}: too large to read (the limit is "
                                f"{A.mb(A.MAX_UPLOAD_BYTES)}).")
        text = A.decode_text_file(f.getvalue(), f.name)
        if not text:
            raise A.SourceError(f"{f.name} is empty: there is nothing to train on.")
        if len(text.encode("utf-8", "surrogatepass")) > A.MAX_TRAIN_BYTES:
            info["truncated"] = True
            text = A.first_bytes(text, A.MAX_TRAIN_BYTES)
        info["text"] = text
    except A.SourceError as exc:
        info["error"] = str(exc)
    ss[A.PLAYER_UPLOAD_TEXT] = info


def _hold(**changes) -> None:
    ss.update(changes)
    ss[HOLD] = True
    ss[NOTES] = []  # the user moved on: a link's notes have been seen


def _quiz_check(quiz: "C.Quiz", n: int) -> None:
    """Grade the pick, score it (shared with the Classroom), then reveal the merge (one step)."""
    choice = ss.get(QUIZ_PICK)
    if choice is None:
        ss[QUIZ_MSG] = "Pick a pair first, then check."
        return
    verdict = C.grade(quiz, choice)
    ss[RESULTS] = {**ss.get(RESULTS, {}), quiz.id: verdict.right}
    ss[QUIZ_MSG] = ""
    ss.pop(QUIZ_PICK, None)
    _step(n, 1)
    ss[QUIZ_VERDICT] = (ss[A.PLAYER_STEP], verdict)


def _quiz_toggled() -> None:
    ss.pop(QUIZ_PICK, None)
    ss[QUIZ_MSG] = ""
    _hold(**{A.PLAYER_PLAYING: False})


def _toggle_play(n: int) -> None:
    if ss[A.PLAYER_PLAYING]:
        _hold(**{A.PLAYER_PLAYING: False})
    else:
        start = 0 if ss[A.PLAYER_STEP] >= n else ss[A.PLAYER_STEP]
        _hold(**{A.PLAYER_PLAYING: True, A.PLAYER_STEP: start})


def _step(n: int, delta: int) -> None:
    _hold(**{A.PLAYER_STEP: max(0, min(n, ss[A.PLAYER_STEP] + delta)), A.PLAYER_PLAYING: False})


def _reset() -> None:
    _hold(**{A.PLAYER_STEP: 0, A.PLAYER_PLAYING: False})


def _jump() -> None:
    if not ss[A.PLAYER_PLAYING]:
        _hold(**{A.PLAYER_STEP: int(ss["jump"])})


def _pick_row(table_key: str, rows_key: str) -> None:
    state = ss.get(table_key)
    rows = state.selection.rows if state is not None else []
    ids = ss.get(rows_key, [])
    if rows and rows[0] < len(ids):
        ss[A.PLAYER_TREE_QUERY] = str(ids[rows[0]])
    ss[HOLD] = True


def _follow_newest() -> None:
    ss[A.PLAYER_TREE_QUERY] = ""
    ss[HOLD] = True


# ----------------------------------------------------------------------------------------------------
# Sidebar: the text and the settings

def sidebar() -> tuple[str, str]:
    """Draw the source and settings widgets; return (title, text) or raise SourceError."""
    with st.sidebar:
        st.subheader("Training text")
        source = st.radio("Source", list(SOURCES), key=A.PLAYER_SOURCE, format_func=SOURCES.get,
                          horizontal=True, persist_state="session", label_visibility="collapsed")
        title, text, error = "", "", ""
        if source == "sample":
            key = st.selectbox("Sample", list(SAMPLES), key=A.PLAYER_SAMPLE, on_change=_on_sample_change,
                               format_func=lambda k: SAMPLES[k].title, persist_state="session")
            s = SAMPLES.get(key) or A.samples()[0]
            st.caption(s.description)
            title, text = s.title, s.text
        elif source == "paste":
            paste = ss.get(A.PLAYER_PASTE)
            if has_lone_surrogates(paste):
                # Only reachable through state (a browser sends UTF-8): the text area could not even be drawn.
                ss[A.PLAYER_PASTE] = _LONE_SURROGATE.sub("\ufffd", paste)
                st.warning("The text held lone surrogates (halves of a UTF-16 pair, not valid Unicode): "
                           "they were replaced by U+FFFD (�).")
            with st.form("player_paste_form", border=False):
                # max_chars: the box refuses a paste over the training limit (50 MB would overflow
                # Streamlit's widget-state limit); bigger texts go through Upload, which can cut them.
                st.text_area(f"Paste or type a text (up to {A.MAX_TRAIN_BYTES:,} characters)", key=A.PLAYER_PASTE,
                             height=180, persist_state="session", max_chars=A.MAX_TRAIN_BYTES,
                             placeholder="Paste any text here, then press “Train on this text”.")
                st.form_submit_button("Train on this text", type="primary", width="stretch")
            title, text = "your text", ss.get(A.PLAYER_PASTE, "")
            try:
                A.check_train_text(text, "the pasted text")
            except A.SourceError as exc:
                error = str(exc)
        else:
            st.file_uploader("A .txt file (UTF-8)", type=["txt"], key=A.PLAYER_UPLOAD,
                             on_change=_on_upload_change,
                             help=f"Any size up to {A.mb(A.MAX_UPLOAD_BYTES)} is read; the player trains on "
                                  f"at most {A.mb(A.MAX_TRAIN_BYTES)}.")
            info = ss.get(A.PLAYER_UPLOAD_TEXT)
            if info is None:
                error = "Upload a .txt file to train on it (or pick a sample)."
            elif info["error"]:
                error = info["error"]
            else:
                title, text = info["name"], info["text"]
                if info["truncated"]:
                    st.checkbox(f"Train on the first {A.mb(A.MAX_TRAIN_BYTES)}", key=A.PLAYER_UPLOAD_TRUNCATE)
                    if not ss[A.PLAYER_UPLOAD_TRUNCATE]:
                        error = (f"{info['name']} is {A.mb(info['size'])}; the player trains on at most "
                                 f"{A.mb(A.MAX_TRAIN_BYTES)}. Tick “Train on the first "
                                 f"{A.mb(A.MAX_TRAIN_BYTES)}” in the sidebar to use its beginning.")
                    else:
                        title += f" (first {A.mb(A.MAX_TRAIN_BYTES)})"

        st.subheader("Settings")
        st.number_input("Merges to learn", min_value=1, max_value=A.MAX_APP_VOCAB - 256, step=16,
                        key=A.PLAYER_MERGES, persist_state="session",
                        help="Vocabulary size = base tokens (256 bytes, or the text's distinct characters) "
                             "+ merges + special tokens. Training stops early if no pair occurs twice.")
        patterns = list(bpe.PATTERNS) + ["none", "custom"]
        labels = {**{k: p.label for k, p in bpe.PATTERNS.items()}, "none": "None (the whole text is one chunk)",
                  "custom": "Custom regex…"}
        pat = st.selectbox("Pre-tokenizer", patterns, key=A.PLAYER_PATTERN, format_func=labels.get,
                           persist_state="session",
                           help="The regex that cuts the text into chunks first. No merge crosses a chunk "
                                "boundary, so it decides what a token can be.")
        if pat in bpe.PATTERNS:
            st.caption(bpe.PATTERNS[pat].summary)
        elif pat == "custom":
            st.text_input("Your regex", key=A.PLAYER_CUSTOM_PATTERN, persist_state="session",
                          help="Python `regex` syntax (\\p{L} for letters …). Text no branch matches is kept "
                               "as chunks of its own.")
        st.radio("Level", list(LEVELS), key=A.PLAYER_LEVEL, format_func=LEVELS.get, horizontal=True,
                 persist_state="session",
                 help="Byte level (GPT-2 onward) starts from the 256 byte values; character level from the "
                      "characters that occur in the text.")
        st.selectbox("Tie rule", list(TIE_RULES), key=A.PLAYER_TIE_BREAK, persist_state="session",
                     format_func=lambda t: f"{TIE_RULES[t][0][0].upper()}{TIE_RULES[t][0][1:]}",
                     help="When pairs have the same count: " + "; ".join(
                         f"{v[0]}: {v[1]}" for v in TIE_RULES.values()) + ".")
        st.checkbox("Normalize to NFC first", key=A.PLAYER_NFC, persist_state="session",
                    help="Unicode NFC: é typed as e + ◌́ becomes one character é before training.")
        st.text_input("Special tokens", key=A.PLAYER_SPECIALS, persist_state="session",
                      placeholder="e.g. <|endoftext|>",
                      help="Separated by spaces or commas. They are cut out of the text before training, "
                           "get ids of their own and are never merged.")
    if error:
        raise A.SourceError(error)
    return title, text


def current_settings(text: str) -> A.TrainSettings:
    """The TrainSettings the sidebar describes, or SourceError (bad regex, bad specials)."""
    pat = ss[A.PLAYER_PATTERN]
    if pat == "none":
        pattern = None
    elif pat == "custom":
        pattern = (ss.get(A.PLAYER_CUSTOM_PATTERN) or "")
        if not pattern.strip():
            raise A.SourceError("The custom pre-tokenizer is empty: type a regex, or pick one from the list.")
        try:
            entry = bpe.get_pattern(pattern)
        except bpe.PatternError as exc:
            raise A.SourceError(f"The custom pre-tokenizer is not a valid regex: {exc}") from None
        if not entry.custom:  # a registry name typed in the box
            pattern = entry.name
    else:
        pattern = pat
    specials = A.parse_specials(ss.get(A.PLAYER_SPECIALS, ""))
    level = ss[A.PLAYER_LEVEL]
    normalize = "NFC" if ss[A.PLAYER_NFC] else None
    merges = int(ss[A.PLAYER_MERGES])
    vocab = A.base_size(text, level, normalize, specials) + merges + len(specials)
    return A.TrainSettings(vocab_size=vocab, pattern=pattern, level=level, tie_break=ss[A.PLAYER_TIE_BREAK],
                           normalize=normalize, special_tokens=specials)


def train(text: str, settings: A.TrainSettings) -> "bpe.Run":
    run = A.peek_run(text, settings)
    if run is not None:
        return run
    size = A.mb(len(text.encode("utf-8", "surrogatepass")))
    bar = st.progress(0.0, text=f"Training on {size}…")

    def progress(done: int, total: int) -> None:
        bar.progress(min(1.0, done / max(1, total)), text=f"Training on {size}: merge {done:,} of {total:,}")

    try:
        return A.get_run(text, settings, progress=progress)
    finally:
        bar.empty()


# ----------------------------------------------------------------------------------------------------
# The player: controls and the four panels, redrawn at every step

def player(text: str, settings: A.TrainSettings, heldout: str) -> None:
    t0 = time.perf_counter()
    _player(text, settings, heldout)
    if TIMING:
        print(f"player frame: step {ss.get(A.PLAYER_STEP)} in {(time.perf_counter() - t0) * 1000:.1f} ms",
              file=sys.stderr, flush=True)


#: BPE_LAB_TIMING=1 prints the server time of every player frame to stderr (for measuring).
TIMING = os.environ.get("BPE_LAB_TIMING") == "1"


def _player(text: str, settings: A.TrainSettings, heldout: str) -> None:
    run = A.get_run(text, settings)
    rid = A.run_id(text, settings)
    n = len(run.merges)
    speed = ss[A.PLAYER_SPEED]
    playing = bool(ss[A.PLAYER_PLAYING])
    if (frame_seconds(speed) if playing else None) != ss.get(TIMER):
        st.rerun()  # play, pause or speed changed: a full run registers the new timer
    step = max(0, min(int(ss[A.PLAYER_STEP]), n))
    if playing and not ss.pop(HOLD, False):
        step = min(n, step + merges_per_frame(speed))
    ss.pop(HOLD, None)
    ss[A.PLAYER_STEP] = step
    if playing and step >= n:
        ss[A.PLAYER_PLAYING] = False
        st.rerun()  # the end: stop the timer
    pal = A.palette()

    # --- controls ---
    cols = st.columns([1.1, 1.1, 1.25, 1.1, 3.6], vertical_alignment="bottom")
    cols[0].button("Reset", key="reset", on_click=_reset, width="stretch", disabled=n == 0,
                   icon=":material/first_page:", help="Back to merge 0 (0)", shortcut="0")
    cols[1].button("Back", key="back", on_click=_step, args=(n, -1), width="stretch", disabled=step == 0,
                   icon=":material/chevron_left:", help="One merge back (←)", shortcut="Left")
    cols[2].button("Pause" if playing else "Play", key="play", on_click=_toggle_play, args=(n,),
                   icon=":material/pause:" if playing else ":material/play_arrow:",
                   type="primary", width="stretch", disabled=n == 0,
                   shortcut="K", help="Play the merges one after another, from the start again at the end (K)")
    cols[3].button("Step", key="step", on_click=_step, args=(n, 1), width="stretch", disabled=step >= n,
                   icon=":material/chevron_right:", icon_position="right", help="One merge forward (→)",
                   shortcut="Right")
    cols[4].select_slider("Speed (merges per second)", options=A.PLAYER_SPEEDS, key=A.PLAYER_SPEED,
                          format_func=lambda v: f"{v:g}/s", persist_state="session")
    with st.container(height=76, border=False):
        if n and not playing:
            if ss.get("jump") != step:
                # only when the step moved some other way: re-setting the value the slider already has
                # would push it back to the browser and swallow keys pressed in the meantime
                ss["jump"] = step
            st.slider("Jump to any merge", 0, n, key="jump", on_change=_jump,
                      help="Drag to any merge (or click the handle and use the arrow keys).")
        elif n:
            # While playing, a progress bar stands in for the slider: a frame timer's request can carry the
            # slider's previous position (sent before the last frame arrived), which must not rewind the run.
            st.progress(step / n, text=f"Playing: merge {step:,} of {n:,} — pause to jump")
    quiz_open = bool(ss.get(QUIZ)) and not playing and step < n
    status = status_html(run, step, palette=pal)
    if quiz_open and step == 0:  # the status names the first merge: not while predicting it
        status = re.sub(r" First to merge: .*?\(count [0-9,]+\)\.", "", status, flags=re.S)
    with st.container(key="step_status"):
        st.html(status)
    quiz_panel(run, rid, step, n, playing)

    new_id = run.merges[step - 1].id if step else None

    # --- panels 1 and 2 ---
    left, right = st.columns([5, 7], gap="large")
    with left:
        st.markdown("##### 1 · Which pair gets merged")
        st.caption("Before every merge the trainer counts each pair of neighbouring tokens in the training text "
                   "(the number after each pair) and merges the most frequent: the bar marked ▶. Bars marked = had "
                   "the same count and lost on the tie rule.")
        if quiz_open:
            with st.container(height=PAIR_CHART_HEIGHT, key="pair_chart_hidden"):
                st.info("Hidden while you predict the next merge: this chart shows the answer. "
                        "“Check and reveal” brings it back.", icon=":material/visibility_off:")
        else:
            live_plotly(pair_counts_json(run, step, palette=pal, top=TOP_PAIRS), key="pair_chart",
                        height=PAIR_CHART_HEIGHT)
    with right:
        st.markdown("##### 2 · The text as tokens")
        st.caption("The text cut into the tokens known now; a token keeps its color from step to step and the "
                   "outlined ones were made by this merge. · space, → tab, ↵ line break; a dark bar starts a "
                   "pre-tokenizer chunk (no merge crosses it); dashed boxes are bytes of a character not yet "
                   "whole, with the character they make above them. Hover for ids.")
        long_text = len(text) > A.WINDOW_CHARS
        start = 0
        if long_text:
            start = int(min(ss.get(A.PLAYER_WINDOW, 0), max(0, len(text) - A.WINDOW_CHARS)))
        rep = A.window_replay(rid, start, A.WINDOW_CHARS, run, text)
        spans = replay_spans(rep, step)
        note = ""
        if long_text:
            note = (f" … a window of {len(rep.text):,} of the {len(text):,} characters trained on "
                    "(move it below)")
        with st.container(height=440, key="player_spans"):
            st.html(render_spans(spans, highlight=[new_id] if new_id is not None else (),
                                 chunk_starts=rep.chunk_starts, palette=pal, truncated_note=note,
                                 font_px=17, group_chars=True))
        fresh = sum(1 for sp in spans if sp.id == new_id) if new_id is not None else 0
        st.caption(f"Shown: {len(rep.text):,} characters → **{len(spans):,} tokens**"
                   + (f", {fresh:,} made by this merge" if step else "") + ".")
        if long_text:
            st.slider("Window start (character)", 0, max(0, len(text) - A.WINDOW_CHARS),
                      step=max(1, A.WINDOW_CHARS // 2), key=A.PLAYER_WINDOW, on_change=_hold)

    # --- panels 3 and 4 ---
    c3, c4 = st.columns([4, 8], gap="large")
    with c3:
        st.markdown("##### 3 · Compression")
        held = None
        if heldout:
            held = A.heldout_counts(rid, A.text_key(heldout), run, heldout)
            st.caption(f"Each merge shortens the text by its pair's count, so each token holds more bytes. Solid: "
                       f"the training text; dashed: the last 10% of the text ({len(heldout):,} characters), held "
                       "out of training — how the tokenizer does on text it has not seen. The dotted line is the "
                       "current merge.")
        else:
            st.caption("Each merge shortens the text by its pair's count. The dotted line is the current merge. "
                       f"(Texts under {A.HELDOUT_MIN_CHARS:,} characters are not split, so there is no "
                       "held-out curve.)")
        held_bytes = len(bpe.normalize_text(heldout, run.normalize).encode("utf-8")) if heldout else 0
        metric = st.segmented_control("Measure", list(METRICS), key=A.PLAYER_METRIC, format_func=METRICS.get,
                                      label_visibility="collapsed", persist_state="session",
                                      on_change=_hold) or "bytes_per_token"
        live_plotly(compression_json(run.token_counts(), run.n_bytes, step, heldout_counts=held,
                                       heldout_bytes=held_bytes, metric=metric, palette=pal),
                    key="compression_chart", height=COMPRESSION_CHART_HEIGHT)
    with c4:
        st.markdown("##### 4 · Merges, vocabulary and how a token was built")
        st.caption("Each merge adds one token to the vocabulary. Click a row, or type a token, to see its "
                   "merge tree.")
        lists, tree = st.columns([1.15, 1], gap="medium")
        with lists:
            tab_m, tab_v = st.tabs([f"Merges ({step:,})",
                                    f"Vocabulary ({len(run.base) + step + len(run.special_tokens):,})"])
            with tab_m:
                mf = merges_frame(run, step)
                ss[MERGE_ROWS] = mf["id"].tolist()
                st.dataframe(mf, key="player_merge_table", height=330, hide_index=True,
                             column_order=MERGE_COLUMNS, selection_mode="single-row",
                             on_select=lambda: _pick_row("player_merge_table", MERGE_ROWS),
                             column_config={"count": st.column_config.NumberColumn(format="%d")})
                if step > len(mf):
                    st.caption(f"The newest {len(mf):,} of {step:,} merges.")
            with tab_v:
                vf = vocab_frame(run, step)
                ss[VOCAB_ROWS] = vf["id"].tolist()
                st.dataframe(vf, key="player_vocab_table", height=330, hide_index=True, on_select=lambda:
                             _pick_row("player_vocab_table", VOCAB_ROWS), selection_mode="single-row")
                if len(vf) < len(run.base) + step + len(run.special_tokens):
                    st.caption("The newest learned tokens, then the special and base tokens. Type any token "
                               "on the right to explain it.")
        with tree:
            st.text_input("Explain a token", key=A.PLAYER_TREE_QUERY, placeholder="id or text, e.g. 300 or ·the",
                          on_change=_hold, help="Type an id or a token (· for a space), or click a row on the "
                                                "left. Empty: the token the current merge made.")
            tid, why = find_token(run, ss.get(A.PLAYER_TREE_QUERY, ""), step)
            with st.container(height=300, key="player_tree"):
                if why:
                    st.warning(why)
                if tid is None:
                    tid = new_id
                if tid is None:
                    st.html(PLAYER_CSS + '<div class="bpe-pl-tree">Nothing merged yet: step forward and the '
                            "token each merge makes is explained here.</div>")
                else:
                    st.html(merge_tree_html(run, tid, step, palette=pal))
            if ss.get(A.PLAYER_TREE_QUERY):
                st.button("Back to the newest token", key="player_tree_newest", on_click=_follow_newest,
                          type="tertiary", icon=":material/undo:")
    write_link(step)


def quiz_panel(run: "bpe.Run", rid: str, step: int, n: int, playing: bool) -> None:
    """The "predict the next merge" toggle and, when on, the question for merge step + 1."""
    st.toggle("Predict the next merge", key=QUIZ, on_change=_quiz_toggled, persist_state="session",
              help="Before each merge, pick the pair you think is merged next; then it is revealed.")
    if not ss.get(QUIZ):
        return
    results = ss.get(RESULTS, {})
    with st.container(key="player_quiz_box"):
        last = ss.get(QUIZ_VERDICT)
        st.html(C.CLASSROOM_CSS + (C.verdict_html(last[1]) if last and last[0] == step else ""))
        if playing:
            st.caption("Pause to predict the next merge.")
        elif step >= n:
            st.caption("That was the last merge: reset to predict again.")
        else:
            quiz = C.next_merge_quiz(run, step, quiz_id=f"player:{A.text_key(rid)}:{step + 1}", n_options=4,
                                     question=f"Which pair is merged next (merge {step + 1})?")
            st.radio(quiz.question, list(range(len(quiz.options))), key=QUIZ_PICK, index=None, horizontal=True,
                     format_func=lambda i: quiz.options[i].label)
            st.button("Check and reveal", key="player_quiz_check", on_click=_quiz_check, args=(quiz, n),
                      type="primary", icon=":material/visibility:")
            if ss.get(QUIZ_MSG):
                st.caption(ss[QUIZ_MSG])
        st.html(f'<div class="cls-score bpe-pl-score" data-right="{sum(results.values())}" '
                f'data-answered="{len(results)}">{html.escape(C.score_text(results))} '
                "(this session, with the Classroom's quiz; a tie counts as right)</div>")


def export(run: "bpe.Run", rid: str) -> None:
    """Download buttons for the trained tokenizer (all its merges), in the formats the library writes."""
    with st.expander("Export this tokenizer"):
        st.caption(f"The tokenizer with all {len(run.merges):,} merges and {len(run.special_tokens)} special "
                   "tokens, as Hugging Face tokenizers and tiktoken load it. The zips also hold bpe_lab.json "
                   "(the pre-tokenizer regex and the special tokens).")
        cols = st.columns(len(EXPORTS))
        problems = []
        for col, (fmt, (name, label, mime)) in zip(cols, EXPORTS.items()):
            data = A.export_file(rid, fmt, run)
            if isinstance(data, str):
                problems.append(f"{label}: {data}")
                col.button(label, key=f"player_export_{fmt}", disabled=True, width="stretch", help=data)
            else:
                col.download_button(label, data=data, file_name=name, mime=mime, key=f"player_export_{fmt}",
                                    on_click="ignore", width="stretch")
        for p in problems:
            st.caption(p)


# ----------------------------------------------------------------------------------------------------

def main() -> None:
    st.markdown("## Merge player")
    st.caption("Byte pair encoding learns a vocabulary by merging the most frequent pair of neighbouring "
               "tokens, again and again. Press play, or step through it one merge at a time.")
    try:
        title, full_text = sidebar()
        text, heldout = A.split_heldout(full_text)
        settings = current_settings(text)
        run = train(text, settings)
    except (A.SourceError, bpe.PatternError, bpe.TrainingDataError, ValueError) as exc:
        ss[A.PLAYER_PLAYING] = False
        ss.pop(URL_STEP, None)
        show_notes()
        st.error(str(exc), icon="⚠️")
        st.caption("Pick a sample or fix the text or settings in the sidebar; the player comes back at once.")
        write_link(int(ss.get(A.PLAYER_STEP, 0)))
        return
    rid = A.run_id(text, settings)
    if ss.get(SHOWN) != rid:  # a new text or new settings: start from merge 0
        if ss.get(SHOWN) is not None:
            ss[NOTES] = []
        ss[SHOWN] = rid
        ss[A.PLAYER_STEP] = 0
        ss[A.PLAYER_PLAYING] = False
        ss[A.PLAYER_WINDOW] = 0
        ss[A.PLAYER_TREE_QUERY] = ""
    if URL_STEP in ss:  # a link's merge index, once its run is known
        k = int(ss.pop(URL_STEP))
        if k > len(run.merges):
            ss[NOTES] = ss.get(NOTES, []) + [f"The link's merge={k} is beyond this run's {len(run.merges):,} "
                                             f"merges: showing merge {len(run.merges):,}."]
            k = len(run.merges)
        ss[A.PLAYER_STEP] = k
    A.remember_player_run(text, settings)
    show_notes()
    st.html(PLAYER_CSS + source_summary(run, title=title, heldout_chars=len(heldout)))
    if not run.merges:
        st.warning(f"Nothing to merge: {html.escape(run.stop_reason)}. Try a longer text.")
    playing = bool(ss[A.PLAYER_PLAYING]) and bool(run.merges)
    ss[A.PLAYER_PLAYING] = playing
    every = frame_seconds(ss[A.PLAYER_SPEED]) if playing else None
    ss[TIMER] = every
    st.fragment(player, run_every=every)(text, settings, heldout)
    export(run, rid)


main()
