"""The Tokenize page's settings, folded so the text box and the first tokens fit on the first screen (issue 31).

One compact bar over the view (container ``tok_bar``, a row that wraps on a phone): the preset picker, the
tokenizers picker, and three panels that open on a click (``st.popover``): **Trained tokenizer** (follow the
player, or the merge count, and what it was trained on; shown when the trained column is chosen), **Your own
tokenizer** (the uploader) and **Options** (special tokens, split characters, the id lists, large text).
Every setting keeps its widget key and its value for the session (``persist_state="session"``).

The page (:mod:`app_pages.tokenize_page`) calls :func:`settings_bar` and gets back what it draws with.
"""

from __future__ import annotations

import hashlib
import html
from contextlib import nullcontext
from dataclasses import dataclass

import streamlit as st

import bpe
from appstate import sources, tokenize_state, vocabs
from appstate.tokenize_state import MAX_COLUMNS, Column
from appstate.widgets import OWN_TEXT, OWN_TITLE, preset_picker, preset_start
from views.messages import message_html
from views.vocabularies import vocab_label

__all__ = ["Settings", "settings_bar", "first_screen", "preset_stale", "trained_column", "upload_section", "PAGE_CSS"]

# Session keys (the widgets' keys; the choice and the uploads are kept by appstate.tokenize_state)
PRESET = "tok_preset"  # the preset picker's value and its container (appstate.widgets.preset_picker, renew)
UPLOAD = "tok_upload"  # the tokenizer file uploader
FOLLOW_PLAYER = "tok_follow_player"  # the trained column follows the player's merge
MERGES_SLIDER = "tok_merges_"  # + a run's hash: merges used by the trained tokenizer
SPECIALS = "tok_special"  # special-token strings as special tokens
CHARS = "tok_chars"  # "whole" | "bytes": characters split across tokens
SHOW_IDS = "tok_ids"  # show the id list
BIG = "tok_big"  # large text, for projecting
FORGET = "tok_forget_uploads"  # button: forget the uploaded tokenizers
BAR = "tok_bar"  # the settings bar (a container)
PICKERS = "tok_pickers"  # the row of the preset and tokenizers pickers (a container)

KEEP = "session"  # persist_state: what the user chose survives page switches

#: this page only: less room above the title (Streamlit's 6rem); on a phone, no introduction nor preset
#: description (the preset's help has it) and a smaller title: the first tokens right under the text box; the
#: view (text box and columns) never fades while a run is on its way -- it says itself what it is waiting for (a
#: big paste's columns say they are counting) and the box is being typed in
#: The pickers' row and the bar hold their room while they are drawn (a label 1.5rem + .25rem over a 2.5rem box;
#: the buttons 2.5rem; on a phone the two pickers one under the other): a fresh page's full run draws the row
#: before its pickers, which Streamlit's front end then draws as 2.5rem placeholders until their code is loaded
#: -- the view under them moved up by up to 68 px and back down meanwhile (a busy machine: for seconds).
#: The preset's description in the bar: up to two lines of smaller type, no taller than the panels' buttons
#: (a longer one is cut with an ellipsis: the preset's help has it whole). One line cut "A short English
#: paragraph: common words are one to…" at 1280 px (issue 14); two lines of the caption's own size made the bar
#: 21 px taller, and typing over a preset (the description gone) moved the box up under the caret
PAGE_CSS = """<style>
[data-testid=stMainBlockContainer]{padding-top:3rem;}
[data-testid=stMainBlockContainer] h1{padding-top:.5rem;}
.st-key-tok_bar [data-testid=stCaptionContainer]{margin:0;}
[data-testid=stElementContainer][data-stale=true]:has([data-testid=stBidiComponentIsolated]){opacity:1 !important;}
.st-key-tok_pickers,.st-key-tok_pickers [data-testid=stColumn]{min-height:4.25rem;}
.st-key-tok_bar{min-height:2.5rem;}
.st-key-tok_bar>[data-testid=stLayoutWrapper]:last-child,.st-key-tok_bar>[data-testid=stLayoutWrapper]:last-child>*{min-width:0;}
.st-key-tok_bar [data-testid=stCaptionContainer] p{font-size:.8125rem;line-height:1.2;margin:0;overflow:hidden;
  display:-webkit-box;-webkit-box-orient:vertical;-webkit-line-clamp:2;max-height:2.4em;}
@media (max-width:640px){
  .st-key-tok_bar [data-testid=stCaptionContainer],.st-key-tok_intro{display:none;}
  [data-testid=stMainBlockContainer] h1{font-size:2rem;}
  .st-key-tok_pickers{min-height:9.5rem;}
}
</style>"""

#: the settings bar's likeness on a fresh page's first run (:func:`first_screen`): the pickers' row (the real row's
#: height: a label 1.5rem + .25rem over a 2.5rem box; on a phone, one picker under the other, as the real ones)
SKELETON_CSS = """<style>
.tok-skel{pointer-events:none;user-select:none;color:rgba(49,51,63,.6);font-size:.875rem;}
.tok-skel-row{display:flex;gap:1rem;align-items:flex-end;}
.tok-skel-preset{flex:1 1 0;min-width:0;}.tok-skel-choice{flex:3 1 0;min-width:0;}
.tok-skel-label{height:1.5rem;line-height:1.5rem;margin-bottom:.25rem;}
.tok-skel-box{height:2.5rem;line-height:2.5rem;padding:0 .75rem;border-radius:.5rem;background:#f0f2f6;
  white-space:nowrap;overflow:hidden;text-overflow:ellipsis;}
@media (max-width:640px){.tok-skel-row{flex-direction:column;align-items:stretch;}
  .st-key-tok_bar [data-testid=stCaptionContainer]{display:none;}}
</style>"""
#: a likeness's whole height (Streamlit pulls the Markdown holding it up by 1rem), in each Markdown holding one
SKELETON_FLUSH = "<style>[data-testid=stMarkdownContainer]:has(>.tok-skel){margin-bottom:0 !important;}</style>"
#: a panel's button's likeness (its style inline: the row's likeness, and its style, may go first)
SKELETON_BUTTON = (
    "box-sizing:border-box;height:2.5rem;line-height:2.4rem;padding:0 1rem 0 2.4rem;white-space:nowrap;"
    "border:1px solid rgba(49,51,63,.2);border-radius:.5rem;pointer-events:none;user-select:none;"
    "color:rgba(49,51,63,.6);font-size:.875rem;width:{width}px"
)
#: the panels' buttons: their titles and widths (px) at 1280 px
PANELS = {"trained": ("Trained tokenizer", 165), "own": ("Your own tokenizer", 174), "options": ("Options", 109)}


@dataclass(frozen=True)
class Settings:
    """What the bar's widgets say."""

    preset: dict | None
    chosen: list[str]
    specials: bool
    whole: bool
    show_ids: bool
    big: bool


def settings_bar(
    text_key: str, choice_key: str, status: dict[str, bool]
) -> tuple[Settings, "st.delta_generator.DeltaGenerator | None"]:
    """Draw the bar; returns the settings and the panel the trained tokenizer's controls go into (None when the
    trained column is not chosen): :func:`trained_column` draws into it."""
    st.html(PAGE_CSS)
    # what shows is sent first, each part into its place (a fresh page draws the bar where its likeness was:
    # nothing under it may move): the pickers' row, the preset box, the panels' buttons and the preset's
    # description; then what the panels hold, and the tokenizers picker after the uploader (a new upload joins
    # the chosen columns)
    with st.container(key=PICKERS):
        preset_slot, choice_slot = st.columns([1, 3], vertical_alignment="bottom")
    shown = (
        sources.preset("tokenize", st.session_state[PRESET])
        if PRESET in st.session_state
        else sources.presets("tokenize")[0]
    )
    preset = preset_picker(
        preset_slot,
        "tokenize",
        text_key,
        PRESET,
        help=(shown["description"] + " " if shown and shown.get("description") else "")
        + "Picking a preset replaces the text box with it.",
        renew=True,  # (the text changes in the view's fragment: a stale copy of the box must be no pick)
    )
    # (what the tokenizers picker will say: its value is the session's, kept by keep_choice below)
    trains = "trained" in st.session_state.get(choice_key, tokenize_state.DEFAULT_CHOICE)
    with st.container(horizontal=True, gap="small", vertical_alignment="center", key=BAR):
        trained_slot = st.container(width="content")
        trained_box = _trained_panel(trained_slot) if trains else None
        own_panel = st.popover(
            "Your own tokenizer",
            icon=":material/upload_file:",
            help="Upload tokenizer.json, a .tiktoken file, vocab.json + merges.txt, or a minbpe .model",
        )
        options_panel = st.popover(
            "Options",
            icon=":material/tune:",
            help="Special tokens, characters split across tokens, the id lists, large text",
        )
        described = st.container(width="stretch")
    if preset is not None and preset.get("description"):
        described.caption(preset["description"])
    with own_panel:
        upload_section()  # before the picker: a new upload joins the chosen columns
    with options_panel:
        specials, whole, show_ids, big = _options()
    uploads = tokenize_state.uploads()
    options = ["trained", *status, *uploads]
    labels = {
        "trained": "Trained here / on the player",
        **{n: vocab_label(n, installed=ok) for n, ok in status.items()},
        **{k: f"Uploaded: {v}" for k, v in uploads.items()},
    }
    tokenize_state.keep_choice(options)
    chosen = choice_slot.multiselect(
        "Tokenizers (side by side)",
        options,
        format_func=labels.get,
        key=choice_key,
        max_selections=MAX_COLUMNS,
        persist_state=KEEP,
        help="GPT-4, GPT-4o, Llama, Qwen, DeepSeek and Mistral's vocabularies are the real ones, read offline. "
        "Every vocabulary of the registry is offered; one marked “not installed” shows the command that "
        "installs it.",
    )
    if ("trained" in chosen) != trains:
        st.rerun()  # (a new upload pushed the trained column out: its panel goes)
    return Settings(preset, list(chosen), specials, whole, show_ids, big), trained_box


def _trained_panel(slot) -> "st.delta_generator.DeltaGenerator":
    """The trained tokenizer's panel, in ``slot``."""
    return slot.popover(
        "Trained tokenizer",
        icon=":material/model_training:",
        help="How many merges the trained column uses, and what it was trained on",
    )


def first_screen(text_key: str, choice_key: str, status: dict[str, bool]) -> Settings:
    """A fresh page's first run (issue 31: its tokens first): what the bar would say, from the session (a fresh
    session: the defaults), with no widget drawn -- Streamlit's front end fetches and draws each kind of widget,
    a second or so on a fresh page. In the bar's place, a likeness of it holding its room: the next run, which
    the view asks for once its tokens are drawn, draws the bar there, each part in its likeness's place (the
    containers are the bar's own: :func:`settings_bar`)."""
    st.html(PAGE_CSS)
    by_key = preset_start("tokenize", text_key, PRESET)
    tokenize_state.keep_choice(["trained", *status, *tokenize_state.uploads()])
    chosen = list(st.session_state[choice_key])
    preset = by_key.get(st.session_state.get(PRESET))
    labels = [
        "Trained here / on the player" if c == "trained" else vocab_label(c, installed=status.get(c, False))
        for c in chosen
        if c == "trained" or c in status
    ]
    # each part of the bar in its likeness, in the very containers settings_bar draws it in: the next run
    # replaces each likeness with its part, in its place, the containers (and what they hold until then) kept
    # -- nothing under the bar moves while it is drawn. (Markdown's raw HTML, every text in it escaped and ours:
    # drawn with the title, whose Markdown module is loaded first; st.html's module may come after the view,
    # which then drew higher and moved down.)
    with st.container(key=PICKERS):
        st.markdown(skeleton_html(preset["title"] if preset else OWN_TITLE, labels), unsafe_allow_html=True)
    with st.container(horizontal=True, gap="small", vertical_alignment="center", key=BAR):
        trained_slot = st.container(width="content")
        if "trained" in chosen:
            trained_slot.markdown(skeleton_button_html("trained"), unsafe_allow_html=True, width="content")
        st.markdown(skeleton_button_html("own"), unsafe_allow_html=True, width="content")
        st.markdown(skeleton_button_html("options"), unsafe_allow_html=True, width="content")
        described = st.container(width="stretch")
    if preset is not None and preset.get("description"):
        described.caption(preset["description"])  # (the bar's own: Markdown)
    return Settings(preset, chosen, *_options(draw=False))


def skeleton_html(preset: str, chosen: list[str]) -> str:
    """The pickers' row's likeness (:func:`first_screen`): the preset and the tokenizers chosen, greyed, in the
    room the row takes (on a phone, one under the other, as the pickers)."""
    e = html.escape
    return (
        SKELETON_CSS
        + SKELETON_FLUSH
        + '<div class="tok-skel tok-skel-row" aria-busy="true" aria-label="Loading the settings">'
        f'<div class="tok-skel-preset"><div class="tok-skel-label">Preset text</div>'
        f'<div class="tok-skel-box">{e(preset)}</div></div>'
        f'<div class="tok-skel-choice"><div class="tok-skel-label">Tokenizers (side by side)</div>'
        f'<div class="tok-skel-box">{" · ".join(e(c) for c in chosen)}</div></div></div>'
    )


def skeleton_button_html(panel: str) -> str:
    """The likeness of the button of the panel ``panel`` (a key of :data:`PANELS`), greyed, its size."""
    title, width = PANELS[panel]
    return SKELETON_FLUSH + (
        f'<div class="tok-skel tok-skel-{panel}" aria-busy="true" aria-label="Loading the settings" '
        f'style="{SKELETON_BUTTON.format(width=width)}">{title}</div>'
    )


def preset_stale(text: str) -> bool:
    """Whether the preset box names what ``text`` is not: it is drawn by a full run, an edit reruns only the
    view's fragment, so after a paste it still said "Prose" (issue 31). The box says the preset whose text
    this is, else "Your own text" (:func:`appstate.widgets.preset_picker`)."""
    shown = st.session_state.get(PRESET)
    if shown is None:
        return False
    want = next((p["key"] for p in sources.presets("tokenize") if p["text"] == text), OWN_TEXT)
    return shown != want


def _setting(draw: bool, widget, label: str, key: str, default, **kw):
    """The widget's value, drawn (``widget(label, key=key, ...)``, with ``value=default`` unless the session
    already holds a value for ``key``), or when not drawn (a fresh page's first run) what it would say: its
    session value, else ``default``.

    A value already in the session (a reload's restored settings) is the widget's own: passing ``default`` too
    makes Streamlit log a warning with a stack that the value was set twice."""
    if not draw:
        return st.session_state.get(key, default)
    if key not in st.session_state:
        kw["value"] = default
    return widget(label, key=key, persist_state=KEEP, **kw)


def _options(draw: bool = True) -> tuple[bool, bool, bool, bool]:
    # one under another in the panel: no label is cut ("Special tokens as sp…" at 1280 px, issue 25)
    specials = _setting(
        draw,
        st.toggle,
        "Special tokens as special",
        SPECIALS,
        True,
        help="On: each vocabulary's own special-token strings become its one reserved id (tiktoken's "
        '`allowed_special="all"`): `<|endoftext|>` for GPT-4, `<|begin_of_text|>` for Llama 3, `<s>` and '
        "`[INST]` for Mistral tekken, `<think>` for DeepSeek and Qwen3. Off: they are encoded as ordinary "
        "text, piece by piece. A string special to one vocabulary is ordinary text to the others.",
    )
    chars = (
        st.radio(
            "Characters split across tokens",
            ["whole", "bytes"],
            horizontal=True,
            key=CHARS,
            persist_state=KEEP,
            format_func={"whole": "draw whole", "bytes": "show bytes"}.get,
            help="A character whose bytes fall into several tokens: drawn once in a striped box, "
            "or as each token's bytes (E2 80 …). Never as �.",
        )
        if draw
        else st.session_state.get(CHARS, "whole")
    )
    show_ids = _setting(draw, st.toggle, "Show the id list", SHOW_IDS, True)
    big = _setting(
        draw, st.toggle, "Large text", BIG, False, help="Bigger tokens and counts, for projecting on a screen."
    )
    return specials, chars == "whole", show_ids, big


# ----------------------------------------------------------------------------------------------------
# The trained tokenizer: the player's run, or the default sample trained here


def trained_column(container) -> Column | None:
    """The trained tokenizer's column; draws its merge-count controls into ``container`` (a container keyed
    ``tok_trained_box`` inside it); ``None`` (a fresh page's first run): the same column, nothing drawn."""
    draw = container is not None
    with container or nullcontext(), st.container(key="tok_trained_box") if draw else nullcontext():
        try:
            found = vocabs.trained_run()
        except ValueError as exc:
            if draw:
                st.html(message_html(f"Could not train the default tokenizer: {exc}", "error"))
            return None
        run, step = found.run, found.step
        # Follow the player by default, unless it sits at merge 0 (nothing learned yet to look at).
        follow = found.from_player and _setting(
            draw,
            st.toggle,
            f"Follow the player's current merge ({step:,} of {len(run.merges):,})",
            FOLLOW_PLAYER,
            step > 0,
            help="On: the tokenizer as the player shows it now. Off: choose any merge count.",
        )
        n = len(run.merges)
        if follow:
            k = step
        else:
            k = _setting(
                draw,
                lambda label, **kw: st.slider(label, 0, max(n, 1), **kw),
                "Merges used by the trained tokenizer",
                MERGES_SLIDER + hashlib.sha1(found.key.encode()).hexdigest()[:10],
                min(step, n) if step else n,
                disabled=n == 0,
                help="Encode with only the first k merges learned: the tokenizer as it was at step k of training.",
            )
            k = min(k, n)
        # the pattern's label is the user's regex for a custom pattern: escaped HTML, not Markdown
        if draw:
            st.html(
                '<div class="tokv-special">'
                + html.escape(
                    f"Trained on {found.where}: {n:,} merges learned, using the first {k:,}; "
                    + (
                        "SentencePiece-style (spaces as ▁, byte fallback)."
                        if run.byte_fallback
                        else f"pre-tokenizer {run.pattern.label if run.pattern else 'none'}, {run.level} level."
                    ),
                    quote=True,
                )
                + "</div>"
            )
    return Column(f"trained:{found.key}:{k}", vocabs.run_tokenizer(found.key, k, run), f"Trained ({k:,} merges)")


# ----------------------------------------------------------------------------------------------------
# Uploads


def upload_section() -> None:
    """The uploader: each tokenizer in the files is loaded (or refused with a message naming the file)."""
    st.caption(
        "Upload tokenizer.json, a .tiktoken file, vocab.json + merges.txt, or a minbpe .model. Several at "
        "once: each tokenizer.json or .tiktoken file is a tokenizer of its own. " + vocabs.limits_sentence()
    )
    files = st.file_uploader(
        "Tokenizer files",
        type=["json", "tiktoken", "txt", "model"],
        accept_multiple_files=True,
        key=UPLOAD,
        label_visibility="collapsed",
        max_upload_size=vocabs.MAX_UPLOAD_FILE_BYTES // (1024 * 1024),
    )
    pairs = []
    for f in files or []:
        refused = vocabs.refuse_size(f.name, f.size)
        if refused:
            st.html(message_html(refused, "error", css_class="tok-upload-error"))
        else:
            pairs.append((f.name, f.getvalue()))
    groups, notes = vocabs.group_files(pairs)
    for note in notes:
        st.html(message_html(note, "warning", css_class="tok-upload-note"))
    for group in groups:
        try:
            with st.spinner(f"Reading {len(group.names)} file{'s' if len(group.names) > 1 else ''}…", show_time=True):
                tok = vocabs.load_upload(group)
        except vocabs.UploadError as exc:
            for sentence in exc.sentences:  # (each file refused: its own sentence)
                st.html(message_html(sentence, "error", css_class="tok-upload-error"))
            continue
        pat = tok.pattern.label if tok.pattern else "none"
        kind = tok.pipeline.description if tok.pipeline is not None else f"pre-tokenizer {pat}, {tok.level} level"
        st.html(
            message_html(
                f"{group.label}: {tok.vocab_size:,} tokens, {tok.n_merges:,} merges, {kind}.",
                "success",
                css_class="tok-upload-ok",
            )
        )
        if not tokenize_state.is_known_upload(group.digest):
            tokenize_state.remember_upload(group.digest, group.label)
    if n := len(tokenize_state.uploads()):
        st.button(
            f"Forget the {n} uploaded tokenizer{'s' if n > 1 else ''}",
            key=FORGET,
            on_click=tokenize_state.forget_uploads,
            help="Uploaded tokenizers stay offered while you switch pages; this removes them.",
        )


def column_for(key: str, status: dict[str, bool], trained_box, registry_tokenizer) -> Column | None:
    """The column of the choice ``key`` (None: the trained tokenizer could not be made)."""
    if key == "trained":
        return trained_column(trained_box)
    if key in bpe.PRETRAINED:
        return tokenize_state.registry_column(key, bool(status.get(key)), registry_tokenizer)
    if key.startswith(tokenize_state.UPLOAD_PREFIX):
        return tokenize_state.upload_column(key)
    return None
