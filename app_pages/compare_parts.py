"""Parts of the Compare page: B's panel (other settings, or an upload), the tokens at merge k, the share link."""

from __future__ import annotations

import streamlit as st

import bpe
from appstate import compare_state, keys
from appstate.links import app_params, write_query
from appstate.query import share_url
from appstate.sources import MAX_UPLOAD_BYTES
from components.copy_link import copy_link
from views.compare import FORMATS_NOTE
from views.messages import message_html
from views.player_settings import TIE_RULES
from views.token_boxes import render_tokens

ss = st.session_state
SIDES = {"settings": "The same text, other settings", "upload": "Upload my merges"}
LEVELS = {"byte": "Bytes", "char": "Characters", "sentencepiece": "SentencePiece-style"}
#: Characters of the text drawn as tokens under A and B.
SHOWN_CHARS = 1500
K_FOR = "_cmp_k_for"  # the comparison (A's key, B's key) the slider was last set for


def _pattern_label(name: str) -> str:
    """A pre-tokenizer as the other pages name it ("GPT-4 (cl100k)"), "None" for none."""
    return bpe.PATTERNS[name].label if name in bpe.PATTERNS else "None (the whole text is one chunk)"


def _tie_label(rule: str) -> str:
    """A tie rule as the player names it ("Lexical", "First seen")."""
    word = TIE_RULES[rule][0]
    return word[0].upper() + word[1:]


def b_panel(a: compare_state.SideA) -> compare_state.SideB | None:
    """B's choice and its panel; the side B, or None (with a message) when there is none to compare yet."""
    st.radio("B", list(SIDES), format_func=SIDES.get, key=keys.CMP_SIDE, horizontal=True)
    uploads = None
    if ss[keys.CMP_SIDE] == "settings":
        compare_state.b_defaults(a)
        cols = st.columns(3)
        cols[0].selectbox("Pre-tokenizer", compare_state.B_PATTERNS, key=keys.CMP_PATTERN, format_func=_pattern_label)
        cols[1].selectbox("Tie rule", list(TIE_RULES), key=keys.CMP_TIE, format_func=_tie_label)
        cols[2].selectbox("Level", compare_state.B_LEVELS, key=keys.CMP_LEVEL, format_func=LEVELS.get)
        cols = st.columns(3)
        cols[0].number_input("Merges", 1, compare_state.MAX_MERGES, key=keys.CMP_MERGES)
        cols[1].number_input("min_frequency", 1, 1000, key=keys.CMP_MIN_FREQ)
        cols[2].toggle("NFC", key=keys.CMP_NFC)
    else:
        files = st.file_uploader(
            "Your merges",
            accept_multiple_files=True,
            key=keys.CMP_UPLOAD,
            help="merges.txt, vocab.json + merges.txt, tokenizer.json, .tiktoken, minbpe .model "
            "or a JSON list of pairs",
        )
        st.caption(FORMATS_NOTE)
        big = [f.name for f in files or () if f.size > MAX_UPLOAD_BYTES]
        if big:
            st.html(
                message_html(
                    f"{big[0]} is larger than {MAX_UPLOAD_BYTES // 2**20} MB: not read.", "error", css_class="cmp-error"
                )
            )
            return None
        uploads = {f.name: f.getvalue() for f in files or ()}
    try:
        b = compare_state.side_b(a, uploads)
    except ValueError as exc:
        st.html(message_html(f"Could not train B: {exc}", "error", css_class="cmp-error"))
        return None
    if b.error:
        st.html(message_html(b.error, "error", css_class="cmp-error"))
        return None
    if b.merges is None:
        st.html(message_html(f"Upload the merges your trainer learned on {a.where} to compare them with A.", "info"))
        return None
    return b


def tokens_at(a: compare_state.SideA, b: compare_state.SideB, c: "bpe.Comparison") -> None:
    """A slider over the merges and the text's tokens under A and B after that many."""
    n = max(len(a.merges.pairs), len(b.merges.pairs))
    if n == 0:
        return
    shown = (a.key, b.key)
    if ss.get(K_FOR) != shown:  # a new comparison starts at the merge where they part (a link's k is kept)
        if ss.get(K_FOR) is not None or not ss.get(keys.CMP_K):
            ss[keys.CMP_K] = c.first.number if c.first else n
        ss[K_FOR] = shown
    ss[keys.CMP_K] = max(0, min(int(ss.get(keys.CMP_K) or 0), n))
    st.slider("Tokens after merge k", 0, n, key=keys.CMP_K)
    k = int(ss[keys.CMP_K])
    text = a.text[:SHOWN_CHARS]
    part = f" (the text's first {SHOWN_CHARS:,} characters)" if len(a.text) > SHOWN_CHARS else ""
    cols = st.columns(2)
    for col, label, side in ((cols[0], "A", a.merges), (cols[1], "B", b.merges)):
        tok = compare_state.tokenizer_at(side, a, k)
        ids = tok.encode(text, allowed_special="all")
        with col:
            st.html(
                f'<div class="cmp-side">{label} after {min(k, len(side.pairs)):,} merges: {len(ids):,} tokens{part}'
                "</div>" + render_tokens(tok, ids, palette=keys.palette())
            )


def share(a: compare_state.SideA) -> None:
    """The comparison's link (also written to the URL)."""
    params, why = compare_state.link_params(a)
    write_query(params)
    with st.container(key="cmp_share"):
        st.caption("Link to this comparison — the icon on the right copies it:")
        copy_link(share_url(st.context.url, {**params, **app_params()}), key="compare_share_link")
        if why:
            st.caption(why)
