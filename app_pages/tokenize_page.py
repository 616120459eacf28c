"""Tokenize: type or paste a text and see it cut into tokens by several tokenizers, side by side, as you type.

Glue only: widgets and layout here; the tokenizers on offer (registry vocabularies loaded once per server,
the trained one, uploads in a bounded cache) in :mod:`appstate.vocabs`; the columns chosen, this session's
uploads and the encodings (cached) in :mod:`appstate.tokenize_state`; the text, the edits and what the
browser is mailed in :mod:`appstate.tokenize_live`; the text box and the columns are the browser view
:mod:`components.tokenize_view` (mounted here with its settings; the fragment :func:`live_view` answers every
edit); what it is sent in :mod:`views.tokenize_payload` (ids and lengths, each column's head, the comparison),
encoding and measuring in :mod:`views.encoded`, the merge-by-merge traces in :mod:`views.trace`, the registry
in words in :mod:`views.vocabularies`. Messages holding anything the user wrote (file names, tokens) are
escaped HTML (:func:`views.messages.message_html`), never Markdown. Every widget keeps its value for the whole
session (``persist_state="session"``), and the page runs under :mod:`appstate.pageguard`.
"""
from __future__ import annotations

import hashlib
import html
import zlib
from contextlib import nullcontext

import streamlit as st

import bpe
from appstate import keys, pageguard, sources, tokenize_live, tokenize_state, vocabs
from appstate.tokenize_state import MAX_COLUMNS, NOT_INSTALLED, Column, slug
from appstate.widgets import preset_picker
from components.tokenize_view import tokenize_mail, tokenize_view
from views.encoded import Encoded
from views.messages import message_html
from views.token_boxes import column_title_html
from views.tokenize_payload import compare_html, head_html, palette_colors, token_text
from views.trace import (
    MAX_TRACE_BYTES,
    candidate_chunks,
    default_chunk,
    token_trace_html,
    trace_html,
    trace_order_note,
    trace_rows,
)
from views.vocabularies import UNICODE_NOTE, not_installed_html, tokenizer_facts, vocab_facts, vocab_label

ss = st.session_state
# Session keys (widgets' keys too; the choice and the uploads are kept by appstate.tokenize_state)
TEXT = keys.TOK_TEXT                 # the text (the view's box shows it)
PRESET = "tok_preset"                # the preset picker (replaces the text)
CHOICE = keys.TOK_CHOICE             # the tokenizers shown: "trained", registry names, "upload:<digest>"
UPLOAD = "tok_upload"                # the tokenizer file uploader
FOLLOW_PLAYER = "tok_follow_player"  # the trained column follows the player's merge
MERGES_SLIDER = "tok_merges_"        # + a run's hash: merges used by the trained tokenizer
SPECIALS = "tok_special"             # special-token strings as special tokens
CHARS = "tok_chars"                  # "whole" | "bytes": characters split across tokens
SHOW_IDS = "tok_ids"                 # show the id list
BIG = "tok_big"                      # large text, for projecting
TRACE_PICK = "tok_trace_pick_"       # + the text's hash: the chunk traced
TRACE_WORD = "tok_trace_word"        # a word typed to trace
FORGET = "tok_forget_uploads"        # button: forget the uploaded tokenizers

KEEP = "session"                     # persist_state: what the user chose survives page switches

def registry_tokenizer(name: str) -> "bpe.Tokenizer":
    """A registry vocabulary, loaded once per server (a spinner the first time: 0.2-1 s each)."""
    label = bpe.PRETRAINED[name].label
    with st.spinner(f"Loading the {label} vocabulary (once per server)…", show_time=True):
        return vocabs.vocabulary(name)


# ----------------------------------------------------------------------------------------------------
# The trained tokenizer: the player's run, or the default sample trained here

def trained_column(container) -> Column | None:
    """The trained tokenizer's column; draws its merge-count controls into ``container``."""
    with container:
        try:
            found = vocabs.trained_run()
        except ValueError as exc:
            st.html(message_html(f"Could not train the default tokenizer: {exc}", "error"))
            return None
        run, step = found.run, found.step
        if found.from_player:
            # Follow the player by default, unless it sits at merge 0 (nothing learned yet to look at).
            follow = st.toggle(f"Follow the player's current merge ({step:,} of {len(run.merges):,})",
                               value=step > 0, key=FOLLOW_PLAYER, persist_state=KEEP,
                               help="On: the tokenizer as the player shows it now. Off: choose any merge count.")
        else:
            follow = False
        n = len(run.merges)
        left, right = st.columns([3, 2])
        if follow:
            k = step
        else:
            slider_key = MERGES_SLIDER + hashlib.sha1(found.key.encode()).hexdigest()[:10]
            with left:
                k = st.slider("Merges used by the trained tokenizer", 0, max(n, 1), value=min(step, n) if step else n,
                              key=slider_key, disabled=n == 0, persist_state=KEEP,
                              help="Encode with only the first k merges learned: the tokenizer as it was at "
                                   "step k of training.")
            k = min(k, n)
        # the pattern's label is the user's regex for a custom pattern: escaped HTML, not Markdown
        (right if not follow else left).html(
            '<div class="tokv-special">' + html.escape(
                f"Trained on {found.where}: {n:,} merges learned, using the first {k:,}; "
                + ("SentencePiece-style (spaces as ▁, byte fallback)." if run.byte_fallback else
                   f"pre-tokenizer {run.pattern.label if run.pattern else 'none'}, {run.level} level."),
                quote=True) + "</div>")
    return Column(f"trained:{found.key}:{k}", vocabs.run_tokenizer(found.key, k, run), f"Trained ({k:,} merges)")


# ----------------------------------------------------------------------------------------------------
# Uploads

def upload_section() -> None:
    """The uploader: each tokenizer in the files is loaded (or refused with a message naming the file)."""
    with st.expander("Your own tokenizer: upload tokenizer.json, a .tiktoken file, vocab.json + merges.txt, "
                     "or a minbpe .model"):
        st.caption("Several at once: each tokenizer.json or .tiktoken file is a tokenizer of its own. "
                   + vocabs.limits_sentence())
        files = st.file_uploader("Tokenizer files", type=["json", "tiktoken", "txt", "model"],
                                 accept_multiple_files=True, key=UPLOAD, label_visibility="collapsed",
                                 max_upload_size=vocabs.MAX_UPLOAD_FILE_BYTES // (1024 * 1024))
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
                with st.spinner(f"Reading {len(group.names)} file{'s' if len(group.names) > 1 else ''}…",
                                show_time=True):
                    tok = vocabs.load_upload(group)
            except vocabs.UploadError as exc:
                st.html(message_html(str(exc), "error", css_class="tok-upload-error"))
                continue
            pat = tok.pattern.label if tok.pattern else "none"
            kind = (tok.pipeline.description if tok.pipeline is not None
                    else f"pre-tokenizer {pat}, {tok.level} level")
            st.html(message_html(f"{group.label}: {tok.vocab_size:,} tokens, {tok.n_merges:,} merges, {kind}.",
                                 "success", css_class="tok-upload-ok"))
            if not tokenize_state.is_known_upload(group.digest):
                tokenize_state.remember_upload(group.digest, group.label)
        if n := len(tokenize_state.uploads()):
            st.button(f"Forget the {n} uploaded tokenizer{'s' if n > 1 else ''}",
                      key=FORGET, on_click=tokenize_state.forget_uploads,
                      help="Uploaded tokenizers stay offered while you switch pages; this removes them.")


# ----------------------------------------------------------------------------------------------------

def main() -> None:
    st.title("Tokenize")
    st.caption("Type or paste any text and see how each tokenizer cuts it, as you type: colored tokens (hover to "
               "light the same characters up in every column, click for how a token is built), counts and ids. "
               "GPT-4, GPT-4o, Llama, Qwen, DeepSeek and Mistral's vocabularies are the real ones, read offline.")
    status = {spec.name: ok for spec, ok in bpe.pretrained_status()}
    top = st.columns([1, 2])
    preset = preset_picker(top[0], "tokenize", TEXT, PRESET, help="Replaces the text box with an example.")
    upload_section()      # before the picker: a new upload joins the chosen columns
    uploads = tokenize_state.uploads()
    options = ["trained", *status, *uploads]
    labels = {"trained": "Trained here / on the player",
              **{n: vocab_label(n, installed=ok) for n, ok in status.items()},
              **{k: f"Uploaded: {v}" for k, v in uploads.items()}}
    tokenize_state.keep_choice(options)
    with top[1]:
        chosen = st.multiselect("Tokenizers (side by side)", options, format_func=labels.get, key=CHOICE,
                                max_selections=MAX_COLUMNS, persist_state=KEEP,
                                help="Every vocabulary of the registry; one marked “not installed” shows the "
                                     "command that installs it.")
    if preset is not None and preset.get("description"):
        st.caption(preset["description"])

    # a row that wraps (not four equal columns): no label is cut ("Special tokens as sp…" at 1280 px)
    opts = st.container(horizontal=True, gap="medium", vertical_alignment="center", key="tok_options")
    specials = opts.toggle(
        "Special tokens as special", value=True, key=SPECIALS, persist_state=KEEP,
        help="On: each vocabulary's own special-token strings become its one reserved id (tiktoken's "
             "`allowed_special=\"all\"`): `<|endoftext|>` for GPT-4, `<|begin_of_text|>` for Llama 3, `<s>` and "
             "`[INST]` for Mistral tekken, `<think>` for DeepSeek and Qwen3. Off: they are encoded as ordinary "
             "text, piece by piece. A string special to one vocabulary is ordinary text to the others.")
    whole = opts.radio("Characters split across tokens", ["whole", "bytes"], horizontal=True,
                          key=CHARS, persist_state=KEEP,
                          format_func={"whole": "draw whole", "bytes": "show bytes"}.get,
                          help="A character whose bytes fall into several tokens: drawn once in a striped box, "
                               "or as each token's bytes (E2 80 …). Never as �.") == "whole"
    show_ids = opts.toggle("Show the id list", value=True, key=SHOW_IDS, persist_state=KEEP)
    big = opts.toggle("Large text", value=False, key=BIG, persist_state=KEEP,
                      help="Bigger tokens and counts, for projecting on a screen.")

    if not chosen:
        st.info("Choose at least one tokenizer above.")
    columns: list[Column] = []
    for key in chosen:
        if key == "trained":
            box = st.container(border=True, key="tok_trained_box")
            box.markdown("**Trained tokenizer**")
            if (column := trained_column(box)) is not None:
                columns.append(column)
        elif key in bpe.PRETRAINED:
            columns.append(tokenize_state.registry_column(key, bool(status.get(key)), registry_tokenizer))
        elif key.startswith(tokenize_state.UPLOAD_PREFIX):
            columns.append(tokenize_state.upload_column(key))

    # the view (text box and columns): its settings change only in a full run; edits rerun live_view alone
    pal = keys.palette()
    # (protocol: appstate/tokenize_live.py -- the text for a view mounted anew, what a reload may restore)
    text, fresh, seq, tid = tokenize_live.settings_text()
    keep = {CHOICE: list(chosen), SPECIALS: specials, CHARS: ss.get(CHARS, "whole"), SHOW_IDS: show_ids, BIG: big}
    tokenize_live.allow_restore(keep)
    keep["uploads"] = [{"digest": k[len(tokenize_state.UPLOAD_PREFIX):], "label": v}
                       for k, v in tokenize_state.uploads().items()]
    tokenize_view({"text": text, "seq": seq, "tid": tid, "fresh": fresh, "keep": keep,
                   "max": sources.MAX_TEXT_BYTES, "colors": palette_colors(pal),
                   "whole": whole, "showIds": show_ids, "big": big, "presenter": keys.presenting(), "debounce": 0,
                   "label": f"Text (up to {sources.MAX_TEXT_BYTES:,} characters): type, paste or pick a preset"},
                  key=keys.TOK_VIEW_FRAME)
    live_view(columns, specials, pal)

    live = [(c.key, c.tok, c.title) for c in columns if c.tok is not None]
    if live:
        trace_section(tokenize_live.text(), live, keys.palette())


@st.fragment
@pageguard.guarded("Tokenize")
def live_view(columns: list[Column], specials: bool, pal: str) -> None:
    """What the view shows, for the text it holds: an edit reruns only this fragment, which encodes the text with
    every column's tokenizer (cached) and mails each column what changed (components/tokenize_view)."""
    before = ss.get(keys.TOK_TEXT_SEQ)
    text, _, seq, tid = tokenize_live.settings_text()
    if seq != before or tokenize_live.take_restored():
        st.rerun(scope="app")     # the text was replaced here (cut to the limit), or restored: show it everywhere
    if note := ss.pop(keys.TOK_NOTE, None):
        st.html(message_html(note, "warning", css_class="tok-text-note"))
    live = [c for c in columns if c.tok is not None]
    with st.spinner(f"Encoding {len(text):,} characters with {len(live)} tokenizers…", show_time=True) \
            if len(text) > 100_000 else nullcontext():
        encs = {c.key: tokenize_live.encoded(c.key, text, specials, c.title, c.tok) for c in live}
    # strings special to some tokenizer on the page: each column says how it treats the others' ones
    all_found = list(dict.fromkeys(s for e, _ in encs.values() for s in e.specials_found))
    rows = []
    for column in columns:
        got = encs.get(column.key)
        rows.append((column.key, slug(column.key), _head(column, got[0] if got else None, all_found),
                     got[1] if got and not got[0].error else None))
    compare = compare_html([(c.title, encs[c.key][0], c.tok.vocab_size) for c in live])
    trace = None
    if (ask := tokenize_live.pending_ask()) is not None:
        trace = {"n": ask.get("n"), "html": _trace_for(ask, columns, text, encs, pal)}
    mail = tokenize_live.mail(rows, tid, compare=compare, trace=trace)
    tokenize_mail(mail, key=keys.TOK_VIEW, on_edit=tokenize_live.on_edit, on_ask=tokenize_live.on_ask)


def _head(column: Column, enc: Encoded | None, all_found: list[str]) -> str:
    """A column's head: its title (a registry label is ours; an upload's name or a run is escaped), facts, and
    the counts -- or why it has no tokens."""
    name, tok = column.name, column.tok
    help_text = UNICODE_NOTE if name is not None else ""
    if column.problem == NOT_INSTALLED:
        return head_html(column.title, problem_html=not_installed_html(bpe.PRETRAINED[name]), help_text=help_text)
    if column.problem:
        return head_html(column.title, problem_html=message_html(column.problem, "error"), help_text=help_text)
    facts = vocab_facts(bpe.PRETRAINED[name], tok) if name is not None else tokenizer_facts(tok)
    return head_html(column.title, facts=facts, enc=enc, foreign_specials=all_found, help_text=help_text)


def _trace_for(ask: dict, columns: list[Column], text: str, encs: dict, pal: str) -> str:
    """The answer to a click: how every tokenizer builds the clicked token's characters."""
    key, index = ask.get("key"), ask.get("index")
    got = encs.get(key)
    entry = tokenize_live.latest(key) if isinstance(key, str) else None
    if got is None or entry is None or not isinstance(index, int) or ask.get("v") != entry.v \
            or not 0 <= index < len(got[1].ids):
        return message_html("The text changed since that click: click the token again.", "info")
    enc, tokens = got
    piece = token_text(enc.text, tokens, index)
    clicked = next((c.title for c in columns if c.key == key), "")
    return token_trace_html(piece, [(c.title, c.tok) for c in columns if c.tok is not None], clicked=clicked,
                            palette=pal)


def trace_section(text: str, tokenizers: list[tuple[str, bpe.Tokenizer, str]], pal: str) -> None:
    st.subheader("Watch a chunk being encoded, merge by merge", anchor=False)
    st.caption("Each step merges the pair with the lowest rank (the earliest learned) anywhere in the chunk — "
               "not the leftmost pair. The order of the merges decides the tokens.")
    chunks = candidate_chunks(text)
    c1, c2 = st.columns([1, 1])
    with c1:
        if chunks:
            default = default_chunk(chunks)
            pick_key = TRACE_PICK + hashlib.sha1(text[:20_000].encode("utf-8", "replace")).hexdigest()[:10]
            picked = st.selectbox("A chunk of the text (GPT-4's pre-tokenizer)", chunks,
                                  index=chunks.index(default) if default in chunks else 0,
                                  format_func=lambda c: repr(c)[1:-1].replace(" ", "·"), key=pick_key,
                                  persist_state=KEEP)
        else:
            picked = None
    with c2:
        typed = st.text_input("…or type a word", key=TRACE_WORD, placeholder="e.g.  tokenization",
                              max_chars=MAX_TRACE_BYTES, persist_state=KEEP)
    word = typed if typed else picked
    if not word:
        st.info("Type a word to trace.")
        return
    per_row = len(tokenizers) if len(tokenizers) <= 4 else 3
    for start in range(0, len(tokenizers), per_row):
        row = tokenizers[start:start + per_row]
        for (key, tok, title), col in zip(row, st.columns(per_row, gap="medium")):
            with col:
                _trace_column(key, tok, title, word, pal)


def _trace_column(key: str, tok: bpe.Tokenizer, title: str, word: str, pal: str) -> None:
    st.html(column_title_html(title, heading=False))
    try:
        pieces = tok.chunks(word)
    except ValueError as exc:
        st.html(message_html(str(exc), "error"))
        return
    if len(pieces) > 1:
        st.caption(f"This tokenizer's pre-tokenizer cuts the text into {len(pieces)} chunks; "
                   "merges never cross a chunk boundary, so each is traced on its own.")
    for i, piece in enumerate(pieces[:4]):  # (a chunk can repeat: the key holds its place)
        try:
            rows = trace_rows(tok, piece)
        except ValueError as exc:
            st.html(message_html(str(exc), "error"))
            continue
        with st.container(key=f"tok_trace_{slug(key)}_{i}_{len(piece)}_{zlib.crc32(piece.encode('utf-8'))}"):
            st.html(trace_html(tok, piece, palette=pal))
            st.caption(f"{len(rows) - 1} step{'s' if len(rows) != 2 else ''}: {trace_order_note(rows)}")
    if len(pieces) > 4:
        st.caption(f"… {len(pieces) - 4} more chunks not traced.")


pageguard.run_page(main, page="Tokenize")
