"""Tokenize: paste a text and see it cut into tokens by several tokenizers, side by side.

Glue only: widgets and layout here; the tokenizers on offer (registry vocabularies loaded once per server,
the trained one, uploads in a bounded cache) in :mod:`appstate.vocabs`; the columns chosen, this session's
uploads and the encodings (cached) in :mod:`appstate.tokenize_state`; the preset picker and the text box in
:mod:`appstate.widgets`; encoding and measuring in :mod:`views.encoded`, drawing in :mod:`views.token_boxes`, the metrics and the comparison in
:mod:`views.encoding_stats`, pasted text made safe in :mod:`views.text_input`, the registry in words in :mod:`views.vocabularies`, the merge-by-merge trace
in :mod:`views.trace`. Messages holding anything the user wrote (file names, tokens) are escaped HTML
(:func:`views.messages.message_html`), never Markdown. Every widget keeps its value for the whole session
(``persist_state="session"``), and the page runs under :mod:`appstate.pageguard`.
"""
from __future__ import annotations

import hashlib
import html
import zlib
from contextlib import nullcontext

import streamlit as st

import bpe
from appstate import keys, pageguard, sources, tokenize_state, vocabs
from appstate.tokenize_state import MAX_COLUMNS, NOT_INSTALLED, Column, slug
from appstate.widgets import preset_picker, text_box
from views.encoded import Encoded
from views.encoding_stats import compare_html, specials_html, stats_html
from views.messages import message_html
from views.token_boxes import MAX_DRAW_TOKENS, column_title_html, facts_html, ids_list_html, render_tokens
from views.trace import MAX_TRACE_BYTES, candidate_chunks, default_chunk, trace_html, trace_order_note, trace_rows
from views.vocabularies import UNICODE_NOTE, not_installed_html, tokenizer_facts, vocab_facts, vocab_label

ss = st.session_state
# Session keys (widgets' keys too; the choice and the uploads are kept by appstate.tokenize_state)
TEXT = "tok_text"                    # the text box
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
                f"Trained on {found.where}: {n:,} merges learned, using the first {k:,}; pre-tokenizer "
                f"{run.pattern.label if run.pattern else 'none'}, {run.level} level.", quote=True) + "</div>")
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
            st.html(message_html(f"{group.label}: {tok.vocab_size:,} tokens, {tok.n_merges:,} merges, pre-tokenizer "
                                 f"{pat}, {tok.level} level.", "success", css_class="tok-upload-ok"))
            if not tokenize_state.is_known_upload(group.digest):
                tokenize_state.remember_upload(group.digest, group.label)
        if n := len(tokenize_state.uploads()):
            st.button(f"Forget the {n} uploaded tokenizer{'s' if n > 1 else ''}",
                      key=FORGET, on_click=tokenize_state.forget_uploads,
                      help="Uploaded tokenizers stay offered while you switch pages; this removes them.")


# ----------------------------------------------------------------------------------------------------

def main() -> None:
    st.title("Tokenize")
    st.caption("Paste any text and see how each tokenizer cuts it: colored tokens (hover for the id), counts, "
               "and any word encoded merge by merge. GPT-4, GPT-4o, Llama, Qwen, DeepSeek and Mistral's "
               "vocabularies are the real ones, read offline.")
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

    text = text_box(TEXT, height=170, described=preset,
                    help="Anything: prose, code, emoji, several languages. Up to "
                         f"{sources.MAX_TEXT_BYTES // 1_000_000} MB; long texts are drawn in part.")

    opts = st.columns(4)
    specials = opts[0].toggle(
        "Special tokens as special", value=True, key=SPECIALS, persist_state=KEEP,
        help="On: each vocabulary's own special-token strings become its one reserved id (tiktoken's "
             "`allowed_special=\"all\"`): `<|endoftext|>` for GPT-4, `<|begin_of_text|>` for Llama 3, `<s>` and "
             "`[INST]` for Mistral tekken, `<think>` for DeepSeek and Qwen3. Off: they are encoded as ordinary "
             "text, piece by piece. A string special to one vocabulary is ordinary text to the others.")
    whole = opts[1].radio("Characters split across tokens", ["whole", "bytes"], horizontal=True,
                          key=CHARS, persist_state=KEEP,
                          format_func={"whole": "draw whole", "bytes": "show bytes"}.get,
                          help="A character whose bytes fall into several tokens: drawn once in a striped box, "
                               "or as each token's bytes (E2 80 …). Never as �.") == "whole"
    show_ids = opts[2].toggle("Show the id list", value=True, key=SHOW_IDS, persist_state=KEEP)
    big = opts[3].toggle("Large text (for projecting)", value=False, key=BIG, persist_state=KEEP)
    font_px = 22 if big else None
    pal = keys.palette()

    if not chosen:
        st.info("Choose at least one tokenizer above.")
        return

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
    live = [(c.key, c.tok, c.title) for c in columns if c.tok is not None]

    with st.spinner(f"Encoding {len(text):,} characters with {len(live)} tokenizers…", show_time=True) \
            if len(text) > 100_000 else nullcontext():
        encs = {k: tokenize_state.encoded(k, text, specials, title, t) for k, t, title in live}
    # strings special to some tokenizer on the page: each column says how it treats the others' ones
    all_found = list(dict.fromkeys(s for e in encs.values() for s in e.specials_found))

    per_row = len(columns) if len(columns) <= 4 else 3
    for start in range(0, len(columns), per_row):
        row = columns[start:start + per_row]
        for column, col in zip(row, st.columns(per_row, gap="medium")):
            with col, st.container(key=f"tok_col_{slug(column.key)}"):
                _draw_column(column, encs.get(column.key), all_found, whole, show_ids, pal, font_px)

    ok = [encs[k] for k, _, _ in live if not encs[k].error]
    if ok:
        st.subheader("Compare", anchor=False)
        with st.container(key="tok_compare"):   # HTML: no plotly or data-grid download for a fresh page
            st.html(compare_html([encs[k] for k, _, _ in live], [t.vocab_size for _, t, _ in live], pal))

    if live:
        trace_section(text, live, pal)


def _draw_column(column: Column, enc: Encoded | None, all_found: list[str], whole: bool, show_ids: bool, pal: str,
                 font_px: int | None) -> None:
    name, tok = column.name, column.tok
    if name is not None:
        # a registry vocabulary: its label is ours (safe as Markdown); the help says where ids can differ
        st.markdown(f"#### {bpe.PRETRAINED[name].label}", help=UNICODE_NOTE)
    else:
        st.html(column_title_html(column.title))   # a user's file name or a trained run: escaped
    if column.problem == NOT_INSTALLED:
        st.html(not_installed_html(bpe.PRETRAINED[name]))
        return
    if column.problem:
        st.html(message_html(column.problem, "error"))
        return
    st.html(facts_html(vocab_facts(bpe.PRETRAINED[name], tok) if name is not None else tokenizer_facts(tok)))
    st.html(stats_html(enc))
    if enc.error:
        return
    note = specials_html(enc, all_found)
    if note:
        st.html(note)
    st.html(render_tokens(tok, enc.ids, whole_chars=whole, palette=pal, font_px=font_px, unknown=enc.unknown))
    if show_ids:
        with st.expander(f"Token ids ({min(enc.n_tokens, MAX_DRAW_TOKENS):,} shown)", expanded=True):
            st.html(ids_list_html(enc.ids, palette=pal))


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
        pieces = bpe.pretokenize(bpe.normalize_text(word, tok.normalize), tok.pattern)
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
