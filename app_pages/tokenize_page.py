"""Tokenize: type or paste a text and see it cut into tokens by several tokenizers, side by side, as you type.

Glue only: the layout here, the settings folded into one bar by :mod:`app_pages.tokenize_settings` (so the
text box and the first tokens fit on the first screen); the tokenizers on offer (registry vocabularies loaded
once per server, the trained one, uploads in a bounded cache) in :mod:`appstate.vocabs`; the columns chosen,
this session's uploads and the encodings (cached) in :mod:`appstate.tokenize_state`; the text, the edits and
what the browser is mailed in :mod:`appstate.tokenize_live`; the text box and the columns are the browser view
:mod:`components.tokenize_view` (mounted here with its settings; the fragment :func:`live_view` answers every
edit); what it is sent in :mod:`views.tokenize_payload` (ids and lengths, each column's head, the comparison),
encoding and measuring in :mod:`views.encoded`, the merge-by-merge traces in :mod:`views.trace` (a click: each
column's own tokens over the clicked characters), the registry in words in :mod:`views.vocabularies`. Messages
holding anything the user wrote (file names, tokens) are escaped HTML (:func:`views.messages.message_html`),
never Markdown. Every widget keeps its value for the whole session (``persist_state="session"``), and the page
runs under :mod:`appstate.pageguard`.
"""

from __future__ import annotations

import zlib
from contextlib import nullcontext

import streamlit as st

import bpe
from app_pages.tokenize_settings import (
    BIG,
    CHARS,
    SHOW_IDS,
    SPECIALS,
    column_for,
    first_screen,
    preset_stale,
    settings_bar,
)
from appstate import keys, pageguard, sources, tokenize_live, tokenize_preview, tokenize_state, vocabs
from appstate.tokenize_state import NOT_INSTALLED, Column, slug
from appstate.widgets import in_fragment_run
from components.tokenize_view import tokenize_mail, tokenize_view
from components.tokenize_view import tokenize_preview as preview_element
from views.encoded import Encoded
from views.messages import message_html
from views.token_boxes import column_title_html
from views.tokenize_payload import compare_html, head_html, palette_colors, token_text
from views.trace import (
    MAX_TRACE_BYTES,
    candidate_chunks,
    covering_pieces,
    covering_trace_html,
    default_chunk,
    trace_html,
    trace_rows,
    trace_summary,
)
from views.vocabularies import UNICODE_NOTE, not_installed_html, tokenizer_facts, vocab_facts

ss = st.session_state
# Session keys (the settings' widget keys are in app_pages/tokenize_settings.py)
TEXT = keys.TOK_TEXT  # the text (the view's box shows it)
CHOICE = keys.TOK_CHOICE  # the tokenizers shown: "trained", registry names, "upload:<digest>"
TRACE_PICK = "tok_trace_pick_"  # + the text's hash: the chunk traced
TRACE_WORD = "tok_trace_word"  # a word typed to trace

KEEP = "session"  # persist_state: what the user chose survives page switches


def registry_tokenizer(name: str) -> "bpe.Tokenizer":
    """A registry vocabulary, loaded once per server (a spinner the first time: 0.2-1 s each)."""
    label = bpe.PRETRAINED[name].label
    with st.spinner(f"Loading the {label} vocabulary (once per server)…", show_time=True):
        return vocabs.vocabulary(name)


def main() -> None:
    st.title("Tokenize")
    # (one line at 1280 px: the first screen holds the text box and the first tokens)
    st.container(key="tok_intro").caption(
        "Type or paste text: hover a token to light it up in every column, click it "
        "to see how each tokenizer builds it."
    )
    status = {spec.name: ok for spec, ok in bpe.pretrained_status()}
    # the settings folded into one bar (app_pages/tokenize_settings.py): the text box and the first tokens
    # fit on the first screen. A fresh page's first run draws only a likeness of it, the view and its tokens:
    # the view reports them drawn, and the next run draws the bar and the trace section (issue 31: ready sooner)
    first = ss[keys.TOK_FIRST_SCREEN] = bool(ss.get(keys.APP_FIRST_RUN))
    if first:
        settings, trained_box = first_screen(TEXT, CHOICE, status), None
    else:
        settings, trained_box = settings_bar(TEXT, CHOICE, status)
    if not settings.chosen:
        st.info("Choose at least one tokenizer above.")
    columns: list[Column] = []
    for key in settings.chosen:
        if (column := column_for(key, status, trained_box, registry_tokenizer)) is not None:
            columns.append(column)

    # the view (text box and columns): its settings change only in a full run; edits rerun live_view alone
    pal = keys.palette()
    # (protocol: appstate/tokenize_live.py -- the text for a view mounted anew, what a reload may restore)
    text, fresh, seq, tid = tokenize_live.settings_text()
    keep = {
        CHOICE: list(settings.chosen),
        SPECIALS: settings.specials,
        CHARS: ss.get(CHARS, "whole"),
        SHOW_IDS: settings.show_ids,
        BIG: settings.big,
    }
    tokenize_live.allow_restore(keep)
    keep["uploads"] = [
        {"digest": k[len(tokenize_state.UPLOAD_PREFIX) :], "label": v} for k, v in tokenize_state.uploads().items()
    ]
    tokenize_view(
        {
            "text": text,
            "seq": seq,
            "tid": tid,
            "fresh": fresh,
            "keep": keep,
            "max": sources.MAX_TEXT_BYTES,
            "colors": palette_colors(pal),
            "whole": settings.whole,
            "showIds": settings.show_ids,
            "big": settings.big,
            "presenter": keys.presenting(),
            "debounce": 0,
            "label": f"Text (up to {sources.MAX_TEXT_BYTES:,} characters): type, paste or pick a preset",
        },
        key=keys.TOK_VIEW_FRAME,
    )
    # (the trace section below is drawn for this text: the fragment follows the text typed since, issue 14)
    digest = "" if first else tokenize_live.trace_drawn(tokenize_live.text())
    live_view(columns, settings.specials, pal)

    live = [(c.key, c.tok, c.title) for c in columns if c.tok is not None]
    if live and not first:
        trace_section(tokenize_live.text(), digest, live, keys.palette())


@st.fragment
@pageguard.guarded("Tokenize")
def live_view(columns: list[Column], specials: bool, pal: str) -> None:
    """What the view shows, for the text it holds: an edit reruns only this fragment, which encodes the text with
    every column's tokenizer (cached) and mails each column what changed (components/tokenize_view)."""
    before = ss.get(keys.TOK_TEXT_SEQ)
    text, _, seq, tid = tokenize_live.settings_text()
    if seq != before or tokenize_live.take_restored():
        st.rerun(scope="app")  # the text was replaced here (cut to the limit), or restored: show it everywhere
    if ss.get(keys.TOK_FIRST_SCREEN) and in_fragment_run():
        # a fresh page's first screen is drawn (the view's "drawn" report, or an edit sent before it): the rest
        st.rerun(scope="app")
    # the trace section (drawn by a full run) shows another text: the view reports when the typing pauses, and
    # the whole page runs then (a full run per keystroke would slow typing down)
    follow = not ss.get(keys.TOK_FIRST_SCREEN) and tokenize_live.trace_stale(text)
    if follow and in_fragment_run() and tokenize_live.settled_on(tid):
        st.rerun(scope="app")
    if note := ss.pop(keys.TOK_NOTE, None):
        st.html(message_html(note, "warning", css_class="tok-text-note"))
    live = [c for c in columns if c.tok is not None]
    # a big paste: every column's first screen is mailed first, then the whole text is encoded
    # (appstate/tokenize_preview.py). Its slot is there for every text a preview may be wanted for, so the
    # mailbox after it keeps its place while such a text is edited; a smaller text has none: an element less
    # for every keystroke's run to send and for Streamlit's front end to draw before the mailbox
    slot = st.empty() if len(text) > tokenize_preview.PREVIEW_MIN else None
    if slot is not None and tokenize_preview.wanted(live, text, specials):
        rows = []
        for c in columns:
            first = tokenize_preview.tokens(c, text, specials) if c.tok is not None else None
            head = _head(c, None, []) + (tokenize_preview.counting_html(text, first) if c.tok is not None else "")
            rows.append((c.key, slug(c.key), head, first))
        with slot:
            preview_element(tokenize_live.wire(tokenize_preview.mail(rows, tid)), key=keys.TOK_PREVIEW)
    with (
        st.spinner(f"Encoding {len(text):,} characters with {len(live)} tokenizers…", show_time=True)
        if len(text) > 100_000
        else nullcontext()
    ):
        encs = {c.key: tokenize_live.encoded(c.key, text, specials, c.title, c.tok) for c in live}
    # strings special to some tokenizer on the page: each column says how it treats the others' ones
    all_found = list(dict.fromkeys(s for e, _ in encs.values() for s in e.specials_found))
    rows = []
    for column in columns:
        got = encs.get(column.key)
        rows.append(
            (
                column.key,
                slug(column.key),
                _head(column, got[0] if got else None, all_found),
                got[1] if got and not got[0].error else None,
            )
        )
    compare = compare_html([(c.title, encs[c.key][0], c.tok.vocab_size) for c in live])
    trace = None
    if (ask := tokenize_live.pending_ask()) is not None:
        trace = {"n": ask.get("n"), "html": _trace_for(ask, columns, text, encs, pal)}
    mail = tokenize_live.mail(rows, tid, compare=compare, trace=trace)
    if ss.get(keys.TOK_FIRST_SCREEN):
        mail["rest"] = True  # (the view reports "drawn" once it has drawn these tokens)
    elif follow:
        mail["follow"] = True  # (the view reports "settled" once the typing pauses on this text)
    tokenize_mail(
        tokenize_live.wire(mail), key=keys.TOK_VIEW, on_edit=tokenize_live.on_edit, on_ask=tokenize_live.on_ask
    )
    if preset_stale(text):
        st.rerun(scope="app")  # the preset box (drawn by a full run) names a preset the text no longer is


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
    """The answer to a click: for every column, its own token(s) over the clicked token's characters and how that
    tokenizer builds them (issue 31: GPT-4 uses one token "Family" where the trained column has "m")."""
    key, index = ask.get("key"), ask.get("index")
    got = encs.get(key)
    entry = tokenize_live.latest(key) if isinstance(key, str) else None
    if (
        got is None
        or entry is None
        or not isinstance(index, int)
        or ask.get("v") != entry.v
        or not 0 <= index < len(got[1].ids)
    ):
        return message_html("The text changed since that click: click the token again.", "info")
    enc, tokens = got
    piece = token_text(enc.text, tokens, index)
    clicked = next((c.title for c in columns if c.key == key), "")
    live = [c for c in columns if c.tok is not None and c.key in encs]
    lay = [(None if encs[c.key][0].text == text else encs[c.key][0].text, encs[c.key][1].lens) for c in live]
    own = None if enc.text == text else enc.text
    found = covering_pieces(text, (own, tokens.lens), index, lay)
    return covering_trace_html(
        piece,
        [(c.title, c.tok, f[0] if f else piece, f[1] if f else 0) for c, f in zip(live, found)],
        clicked=clicked,
        palette=pal,
    )


def trace_section(text: str, digest: str, tokenizers: list[tuple[str, bpe.Tokenizer, str]], pal: str) -> None:
    """The chunk trace: a chunk of ``text`` (its start, named by ``digest``: the picker's key) or a typed word,
    traced by every tokenizer."""
    st.subheader("Watch a chunk being encoded, merge by merge", anchor=False)
    st.caption(
        "Each step merges the pair with the lowest rank (the earliest learned) anywhere in the chunk — "
        "not the leftmost pair. The order of the merges decides the tokens."
    )
    chunks = candidate_chunks(text)
    c1, c2 = st.columns([1, 1])
    with c1:
        if chunks:
            default = default_chunk(chunks)
            pick_key = TRACE_PICK + digest
            picked = st.selectbox(
                "A chunk of the text (GPT-4's pre-tokenizer)",
                chunks,
                index=chunks.index(default) if default in chunks else 0,
                format_func=lambda c: repr(c)[1:-1].replace(" ", "·"),
                key=pick_key,
                persist_state=KEEP,
            )
        else:
            picked = None
    with c2:
        typed = st.text_input(
            "…or type a word",
            key=TRACE_WORD,
            placeholder="e.g.  tokenization",
            max_chars=MAX_TRACE_BYTES,
            persist_state=KEEP,
        )
    word = typed if typed else picked
    if not word:
        st.info("Type a word to trace.")
        return
    per_row = len(tokenizers) if len(tokenizers) <= 4 else 3
    for start in range(0, len(tokenizers), per_row):
        row = tokenizers[start : start + per_row]
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
        st.caption(
            f"This tokenizer's pre-tokenizer cuts the text into {len(pieces)} chunks; "
            "merges never cross a chunk boundary, so each is traced on its own."
        )
    for i, piece in enumerate(pieces[:4]):  # (a chunk can repeat: the key holds its place)
        try:
            rows = trace_rows(tok, piece)
        except ValueError as exc:
            st.html(message_html(str(exc), "error"))
            continue
        with st.container(key=f"tok_trace_{slug(key)}_{i}_{len(piece)}_{zlib.crc32(piece.encode('utf-8'))}"):
            st.html(trace_html(tok, piece, palette=pal))
            st.caption(trace_summary(rows))
    if len(pieces) > 4:
        st.caption(f"… {len(pieces) - 4} more chunks not traced.")


pageguard.run_page(main, page="Tokenize")
