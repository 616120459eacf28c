"""Tokenize: paste a text and see it cut into tokens by several tokenizers, side by side.

Glue only: widgets and layout here, the measuring and drawing in :mod:`views.tokenize_views`, the
merge-by-merge trace in :mod:`views.trace`.
"""
from __future__ import annotations

import hashlib
import json
import re
import zlib
from contextlib import nullcontext

import streamlit as st

import appstate
import bpe
from views.tokenize_views import (MAX_DRAW_TOKENS, Encoded, clean_text, counts_figure, encode_view,
                                  has_lone_surrogates, ids_list_html, render_tokens, stats_html, summary_frame)
from views.trace import MAX_TRACE_BYTES, candidate_chunks, default_chunk, trace_html, trace_order_note, trace_rows

ss = st.session_state
# Session keys (widgets' keys too, except UPLOAD_ADDED)
TEXT = "tok_text"                    # the text box
PRESET = "tok_preset"                # the preset picker (replaces the text)
CHOICE = "tok_choice"                # the tokenizers shown side by side ("trained", vocabulary names, "upload")
UPLOAD = "tok_upload"                # the tokenizer file uploader
UPLOAD_ADDED = "tok_upload_added"    # digest of the upload already added to CHOICE (added once)
FOLLOW_PLAYER = "tok_follow_player"  # the trained column follows the player's merge
MERGES_SLIDER = "tok_merges_"        # + a run's hash: merges used by the trained tokenizer
SPECIALS = "tok_special"             # special-token strings as special tokens
CHARS = "tok_chars"                  # "whole" | "bytes": characters split across tokens
SHOW_IDS = "tok_ids"                 # show the id list
BIG = "tok_big"                      # large text, for projecting
TRACE_PICK = "tok_trace_pick_"       # + the text's hash: the chunk traced
TRACE_WORD = "tok_trace_word"        # a word typed to trace

PRESETS_FILE = appstate.SAMPLES_DIR / "presets.json"
#: Special tokens the fallback trained tokenizer reserves, so the chat preset shows them as special.
DEFAULT_SPECIALS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
#: The real vocabularies offered, labelled as the library's registry labels them.
PRETRAINED = {name: bpe.PRETRAINED[name].label for name in ("cl100k_base", "o200k_base")}
MAX_COLUMNS = 4


@st.cache_resource(show_spinner=False)
def presets(page: str) -> tuple[dict, ...]:
    items = json.loads(PRESETS_FILE.read_text(encoding="utf-8"))
    return tuple(p for p in items if page in p.get("pages", ()))


@st.cache_resource(show_spinner="Loading the vocabulary (once per server)…", max_entries=2)
def pretrained(name: str) -> "bpe.Tokenizer":
    return bpe.load_pretrained(name)


@st.cache_resource(show_spinner=False, max_entries=12)
def run_tokenizer(run_key: str, k: int, _run: "bpe.Run") -> "bpe.Tokenizer":
    """The tokenizer of a trained run after its first ``k`` merges (shared; tokenizers are read-only)."""
    return _run.tokenizer(k)


@st.cache_data(show_spinner=False, max_entries=24)
def encode_cached(tok_key: str, text: str, specials: bool, name: str, _tok: bpe.Tokenizer) -> Encoded:
    return encode_view(_tok, text, specials_as_special=specials, name=name)


@st.cache_resource(show_spinner="Reading the tokenizer file…", max_entries=4)
def load_upload(digest: str, names: tuple[str, ...], _blobs: tuple[bytes, ...]) -> "bpe.Tokenizer":
    """The tokenizer in the uploaded files, read in memory (errors name the files as uploaded)."""
    return bpe.loads(dict(zip(names, _blobs)))


# ----------------------------------------------------------------------------------------------------
# The trained tokenizer: the player's run, or the default sample trained here

def trained_tokenizer(container) -> tuple["bpe.Tokenizer", str, str] | None:
    """(tokenizer, cache key, column title); draws its merge-count controls into ``container``."""
    found = appstate.player_run()
    with container:
        if found is not None:
            run, step = found
            run_key = repr(ss.get(appstate.PLAYER_RUN))
            where = "the text trained on the Merge player"
            # Follow the player by default, unless it sits at merge 0 (nothing learned yet to look at).
            follow = st.toggle(f"Follow the player's current merge ({step:,} of {len(run.merges):,})",
                               value=step > 0, key=FOLLOW_PLAYER,
                               help="On: the tokenizer as the player shows it now. Off: choose any merge count.")
        else:
            sample = appstate.samples()[0]
            settings = appstate.TrainSettings(vocab_size=sample.default_vocab_size, pattern="gpt4",
                                              special_tokens=DEFAULT_SPECIALS)
            try:
                run = appstate.get_run(sample.text, settings)
            except ValueError as exc:
                st.error(f"Could not train the default tokenizer: {exc}")
                return None
            run_key = repr((appstate.text_key(sample.text), settings))
            step = len(run.merges)
            where = f"the “{sample.title}” sample (nothing trained on the Merge player yet)"
            follow = False
        n = len(run.merges)
        left, right = st.columns([3, 2])
        if follow:
            k = step
        else:
            slider_key = MERGES_SLIDER + hashlib.sha1(run_key.encode()).hexdigest()[:10]
            with left:
                k = st.slider("Merges used by the trained tokenizer", 0, max(n, 1), value=min(step, n) if step else n,
                              key=slider_key, disabled=n == 0,
                              help="Encode with only the first k merges learned: the tokenizer as it was at "
                                   "step k of training.")
            k = min(k, n)
        (right if not follow else left).caption(
            f"Trained on {where}: {n:,} merges learned, using the first {k:,}; pre-tokenizer "
            f"{run.pattern.label if run.pattern else 'none'}, {run.level} level.")
    tok = run_tokenizer(run_key, k, run)
    return tok, f"trained:{run_key}:{k}", f"Trained ({k:,} merges)"


# ----------------------------------------------------------------------------------------------------

def _on_preset() -> None:
    chosen = ss.get(PRESET)
    for p in presets("tokenize"):
        if p["key"] == chosen:
            ss[TEXT] = p["text"]


def main() -> None:
    st.title("Tokenize")
    st.caption("Paste any text and see how each tokenizer cuts it: colored tokens (hover for the id), counts, "
               "and any word encoded merge by merge.")
    items = presets("tokenize")
    by_key = {p["key"]: p for p in items}
    if TEXT not in ss:
        ss[TEXT] = items[0]["text"]
        ss.setdefault(PRESET, items[0]["key"])

    options = ["trained", *PRETRAINED]
    labels = {"trained": "Trained here / on the player", **PRETRAINED}
    upload_tok = None
    upload_label = None
    digest = ""

    top = st.columns([1, 2])
    with top[0]:
        st.selectbox("Preset text", list(by_key), format_func=lambda k: by_key[k]["title"], key=PRESET,
                     on_change=_on_preset, help="Replaces the text box with an example.")
    with st.expander("Your own tokenizer: upload tokenizer.json, a .tiktoken file, or vocab.json + merges.txt"):
        files = st.file_uploader("Tokenizer files", type=["json", "tiktoken", "txt"], accept_multiple_files=True,
                                 key=UPLOAD, label_visibility="collapsed")
        if files:
            blobs = tuple(f.getvalue() for f in files)
            names = tuple(f.name for f in files)
            digest = hashlib.sha256(b"".join(blobs) + "|".join(names).encode()).hexdigest()
            try:
                upload_tok = load_upload(digest, names, blobs)
                upload_label = f"Uploaded: {names[0]}" if len(names) == 1 else f"Uploaded: {', '.join(names)}"
                st.success(f"{md_escape(upload_label)} — {upload_tok.vocab_size:,} tokens, pre-tokenizer "
                           f"{upload_tok.pattern.label if upload_tok.pattern else 'none'}.")
                options.append("upload")
                labels["upload"] = upload_label
                chosen_now = ss.get(CHOICE)
                if isinstance(chosen_now, list) and "upload" not in chosen_now and ss.get(UPLOAD_ADDED) != digest:
                    ss[CHOICE] = [*chosen_now, "upload"][-MAX_COLUMNS:]
                ss[UPLOAD_ADDED] = digest
            except (ValueError, OSError, KeyError) as exc:
                st.error(f"Could not read this tokenizer: {md_escape(str(exc))}")
    if CHOICE not in ss:
        ss[CHOICE] = [o for o in options if o != "upload"][:3]
    else:
        ss[CHOICE] = [o for o in ss[CHOICE] if o in options]
    with top[1]:
        chosen = st.multiselect("Tokenizers (side by side)", options, format_func=labels.get, key=CHOICE,
                                max_selections=MAX_COLUMNS)

    preset = by_key.get(ss.get(PRESET))
    if preset is not None and preset.get("description"):
        st.caption(preset["description"])
    if has_lone_surrogates(ss.get(TEXT)):
        # a widget cannot hold them (its value goes out as UTF-8): replace them before it is drawn
        ss[TEXT] = clean_text(ss[TEXT], appstate.MAX_TEXT_BYTES)[0]
    # max_chars: the box refuses a paste over the limit (50 MB would overflow Streamlit's widget-state limit)
    raw = st.text_area(f"Text (up to {appstate.MAX_TEXT_BYTES:,} characters)", key=TEXT, height=170,
                       max_chars=appstate.MAX_TEXT_BYTES,
                       help="Anything: prose, code, emoji, several languages. Up to "
                            f"{appstate.MAX_TEXT_BYTES // 1_000_000} MB; long texts are drawn in part.")
    text, note = clean_text(raw, appstate.MAX_TEXT_BYTES)
    if note:
        st.warning(note)

    opts = st.columns(4)
    specials = opts[0].toggle("Special tokens as special", value=True, key=SPECIALS,
                              help="On: strings like <|endoftext|> become their one reserved id (tiktoken's "
                                   "allowed_special='all'). Off: they are encoded as ordinary text, piece by piece.")
    whole = opts[1].radio("Characters split across tokens", ["whole", "bytes"], horizontal=True,
                          key=CHARS,
                          format_func={"whole": "draw whole", "bytes": "show bytes"}.get,
                          help="A character whose bytes fall into several tokens: drawn once in a striped box, "
                               "or as each token's bytes (E2 80 …). Never as �.") == "whole"
    show_ids = opts[2].toggle("Show the id list", value=True, key=SHOW_IDS)
    big = opts[3].toggle("Large text (for projecting)", value=False, key=BIG)
    font_px = 22 if big else None
    pal = appstate.palette()

    if not chosen:
        st.info("Choose at least one tokenizer above.")
        return

    # Build the chosen tokenizers
    tokenizers: list[tuple[str, "bpe.Tokenizer", str]] = []   # (key, tokenizer, title)
    errors: dict[str, str] = {}
    for key in chosen:
        if key == "trained":
            box = st.container(border=True, key="tok_trained_box")
            box.markdown("**Trained tokenizer**")
            got = trained_tokenizer(box)
            if got is not None:
                tok, tok_key, title = got
                tokenizers.append((tok_key, tok, title))
        elif key in PRETRAINED:
            try:
                tokenizers.append((key, pretrained(key), PRETRAINED[key]))
            except (ValueError, OSError) as exc:
                errors[key] = str(exc)
        elif key == "upload" and upload_tok is not None:
            tokenizers.append((f"upload:{digest}", upload_tok, upload_label or "Uploaded"))
    for key, msg in errors.items():
        st.error(f"{labels.get(key, key)} could not be loaded: {msg}")
    if not tokenizers:
        return

    with st.spinner(f"Encoding {len(text):,} characters with {len(tokenizers)} tokenizers…", show_time=True) \
            if len(text) > 100_000 else nullcontext():
        encs = [encode_cached(k, text, specials, title, tok) for k, tok, title in tokenizers]

    cols = st.columns(len(tokenizers), gap="medium")
    for (key, tok, title), enc, col in zip(tokenizers, encs, cols):
        with col:
            slug = _slug(key)
            with st.container(key=f"tok_col_{slug}"):
                pat = tok.pattern.label if tok.pattern else "none"
                st.markdown(f"#### {md_escape(title)}")
                st.caption(f"{tok.vocab_size:,} tokens in the vocabulary · pre-tokenizer {pat}"
                           + (f" · {len(tok.special_tokens)} special tokens" if tok.special_tokens else
                              " · no special tokens"))
                st.html(stats_html(enc))
                if not enc.error:
                    st.html(render_tokens(tok, enc.ids, whole_chars=whole, palette=pal, font_px=font_px))
                    if show_ids:
                        with st.expander(f"Token ids ({min(enc.n_tokens, MAX_DRAW_TOKENS):,} shown)",
                                         expanded=True):
                            st.html(ids_list_html(enc.ids, palette=pal))

    ok = [e for e in encs if not e.error]
    if len(ok) >= 1:
        st.subheader("Compare", anchor=False)
        c1, c2 = st.columns([1, 2])
        with c1:
            st.plotly_chart(counts_figure(ok, pal), width="stretch", key="tok_counts_chart",
                            config={"displayModeBar": False})
        with c2, st.container(key="tok_summary"):
            st.dataframe(summary_frame(encs, [t.vocab_size for _, t, _ in tokenizers]), hide_index=True,
                         width="stretch")

    trace_section(text, tokenizers, pal)


def md_escape(text: str) -> str:
    """Text shown through Markdown as itself (uploaded file names are user input)."""
    return re.sub(r"([\\`*_{}\[\]()#+\-.!<>|~])", r"\\\1", text)


def _slug(key: str) -> str:
    if key.startswith("trained"):
        return "trained"
    if key.startswith("upload"):
        return "upload"
    return key


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
                                  format_func=lambda c: repr(c)[1:-1].replace(" ", "·"), key=pick_key)
        else:
            picked = None
    with c2:
        typed = st.text_input("…or type a word", key=TRACE_WORD, placeholder="e.g.  tokenization",
                              max_chars=MAX_TRACE_BYTES)
    word = typed if typed else picked
    if not word:
        st.info("Type a word to trace.")
        return
    cols = st.columns(len(tokenizers), gap="medium")
    for (key, tok, title), col in zip(tokenizers, cols):
        with col:
            st.markdown(f"**{md_escape(title)}**")
            try:
                pieces = bpe.pretokenize(bpe.normalize_text(word, tok.normalize), tok.pattern)
            except ValueError as exc:
                st.error(str(exc))
                continue
            if len(pieces) > 1:
                st.caption(f"This tokenizer's pre-tokenizer cuts the text into {len(pieces)} chunks; "
                           "merges never cross a chunk boundary, so each is traced on its own.")
            for piece in pieces[:4]:
                try:
                    rows = trace_rows(tok, piece)
                except ValueError as exc:
                    st.error(str(exc))
                    continue
                with st.container(key=f"tok_trace_{_slug(key)}_{len(piece)}_{zlib.crc32(piece.encode('utf-8'))}"):
                    st.html(trace_html(tok, piece, palette=pal))
                    st.caption(f"{len(rows) - 1} step{'s' if len(rows) != 2 else ''}: {trace_order_note(rows)}")
            if len(pieces) > 4:
                st.caption(f"… {len(pieces) - 4} more chunks not traced.")


main()
