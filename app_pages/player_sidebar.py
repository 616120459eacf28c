"""The merge player's sidebar: the training text (a sample, a paste or an upload) and the training settings
(or, when the player replays a real vocabulary, the vocabulary and the replay's text limit).

Not a page: the Merge player page (``app_pages/player.py``) calls :func:`training_sidebar` and trains on what
it returns. Streamlit widgets over the player's session keys (:mod:`appstate.keys`); bad input raises
:class:`appstate.sources.SourceError` with a message for the page.
"""

from __future__ import annotations

import streamlit as st

import bpe
from appstate import keys, player_state, replay_state, sources, vocabs
from appstate.player_link import COVERAGES, DEFAULT_COVERAGE, LEVELS
from appstate.widgets import big_paste_guard
from views.messages import message_html
from views.player import sentencepiece_differences_html
from views.player_settings import SETTINGS_HELP as HELP
from views.player_settings import TIE_RULES, coverage_label
from views.text_input import has_lone_surrogates
from views.vocabularies import missing_html, vocab_label

__all__ = ["training_sidebar"]

ss = st.session_state
SOURCES = {"sample": "Sample", "paste": "Paste", "upload": "Upload"}


def _on_sample_change() -> None:
    ss[keys.PLAYER_NOTES] = []  # the user moved on: a link's notes have been seen
    if sources.sample(ss.get(keys.PLAYER_SAMPLE)) is not None:
        ss.update(player_state.sample_defaults(sources.sample(ss[keys.PLAYER_SAMPLE])))


def _on_upload_change() -> None:
    f = ss.get(keys.PLAYER_UPLOAD)
    ss[keys.PLAYER_UPLOAD_TRUNCATE] = False
    ss[keys.PLAYER_UPLOAD_TEXT] = sources.read_upload(f) if f is not None else None


def training_sidebar(replay: bool = False) -> tuple[str, str, "st.delta_generator.DeltaGenerator"]:
    """Draw the source and settings widgets; return (title, text, a slot under "Merges to learn") or raise
    SourceError. ``replay``: the vocabulary to replay instead of the training settings (the slot is then
    under the vocabulary)."""
    with st.sidebar:
        st.subheader("Text" if replay else "Training text")
        source = st.radio(
            "Source",
            list(SOURCES),
            key=keys.PLAYER_SOURCE,
            format_func=SOURCES.get,
            horizontal=True,
            persist_state="session",
            label_visibility="collapsed",
        )
        title, text, error = "", "", ""
        if source == "sample":
            samples = {s.key: s for s in sources.samples()}
            key = st.selectbox(
                "Sample",
                list(samples),
                key=keys.PLAYER_SAMPLE,
                on_change=_on_sample_change,
                format_func=lambda k: samples[k].title,
                persist_state="session",
            )
            s = samples.get(key) or sources.samples()[0]
            st.caption(s.description)
            title, text = s.title, s.text
        elif source == "paste":
            if has_lone_surrogates(ss.get(keys.PLAYER_PASTE)):  # only through state: a browser sends UTF-8
                ss[keys.PLAYER_PASTE] = "".join(
                    "\ufffd" if "\ud800" <= c <= "\udfff" else c for c in ss[keys.PLAYER_PASTE]
                )
                st.warning(
                    "The text held lone surrogates (halves of a UTF-16 pair, not valid Unicode): "
                    "they were replaced by U+FFFD (�)."
                )
            with st.form("player_paste_form", border=False):
                # max_chars: the box refuses a paste over the training limit; bigger texts go through Upload
                st.text_area(
                    f"Paste or type a text (up to {sources.MAX_TRAIN_BYTES:,} characters)",
                    key=keys.PLAYER_PASTE,
                    height=180,
                    persist_state="session",
                    max_chars=sources.MAX_TRAIN_BYTES,
                    placeholder="Paste any text here, then press “Train on this text”.",
                )
                big_paste_guard(keys.PLAYER_PASTE, sources.MAX_TRAIN_BYTES, "A bigger text can go through Upload.")
                st.form_submit_button(
                    "Replay on this text" if replay else "Train on this text", type="primary", width="stretch"
                )
            title, text = "your text", ss.get(keys.PLAYER_PASTE, "")
            try:
                sources.check_train_text(text, "the pasted text")
            except sources.SourceError as exc:
                error = str(exc)
        else:
            train_cap = sources.mb(sources.MAX_TRAIN_BYTES)
            st.file_uploader(
                "A .txt file (UTF-8)",
                type=["txt"],
                key=keys.PLAYER_UPLOAD,
                on_change=_on_upload_change,
                help=f"Any size up to {sources.mb(sources.MAX_UPLOAD_BYTES)} is read; the player "
                f"trains on at most {train_cap}.",
            )
            info = ss.get(keys.PLAYER_UPLOAD_TEXT)
            if info and info.get("room") and ss.get(keys.PLAYER_UPLOAD) is None:  # a live room's text
                st.html(
                    message_html(
                        f"The live room's text: {info['name']}. Upload a file to explore another.",
                        "info",
                        css_class="player-upload-kept",
                    )
                )
            elif info and ss.get(keys.PLAYER_UPLOAD) is None:  # uploaded before a page switch: the box is empty
                st.html(
                    message_html(
                        f"Still using {info['name']}, uploaded earlier in this session. Upload "
                        "another file to replace it.",
                        "info",
                        css_class="player-upload-kept",
                    )
                )
            if info and info["truncated"]:
                st.checkbox(f"Train on the first {train_cap}", key=keys.PLAYER_UPLOAD_TRUNCATE, persist_state="session")
            try:
                title, text = sources.upload_source(info, bool(ss.get(keys.PLAYER_UPLOAD_TRUNCATE)))
            except sources.SourceError as exc:
                error = str(exc)
        if replay:
            cap = _vocabulary_settings(text if not error else "")
            if error:
                raise sources.SourceError(error.replace("nothing to train on", "nothing to replay"))
            return title, text, cap
        st.subheader("Settings")
        st.number_input(
            "Merges to learn",
            min_value=1,
            max_value=sources.MAX_APP_VOCAB - 256,
            step=16,
            key=keys.PLAYER_MERGES,
            persist_state="session",
            help=HELP["merges"],
        )
        cap = st.empty()  # says when the text allowed fewer merges
        labels = {
            **{k: p.label for k, p in bpe.PATTERNS.items()},
            "none": "None (the whole text is one chunk)",
            "custom": "Custom regex…",
        }
        spaced = st.session_state.get(keys.PLAYER_LEVEL) == "sentencepiece"  # (no pre-tokenizer there)
        pat = st.selectbox(
            "Pre-tokenizer",
            list(labels),
            key=keys.PLAYER_PATTERN,
            format_func=labels.get,
            persist_state="session",
            help=HELP["pattern"],
            disabled=spaced,
        )
        if spaced:
            st.caption("Not used at the SentencePiece-style level: the text is split where ▁ starts a word.")
        elif pat in bpe.PATTERNS:
            st.caption(bpe.PATTERNS[pat].summary)
        elif pat == "custom":
            st.text_input("Your regex", key=keys.PLAYER_CUSTOM_PATTERN, persist_state="session", help=HELP["custom"])
        st.radio(
            "Level",
            list(LEVELS),
            key=keys.PLAYER_LEVEL,
            format_func=LEVELS.get,
            horizontal=True,
            persist_state="session",
            help=HELP["level"],
        )
        if st.session_state.get(keys.PLAYER_LEVEL) == "sentencepiece":
            st.caption(
                "SentencePiece-style: spaces become ▁ glued to the next word (the pre-tokenizer above is not "
                "used); characters outside the alphabet fall back to <0xNN> byte tokens."
            )
            if ss.get(keys.PLAYER_COVERAGE) not in COVERAGES:  # (only through state: the box offers these)
                ss[keys.PLAYER_COVERAGE] = DEFAULT_COVERAGE
            st.selectbox(
                "Character coverage",
                list(COVERAGES),
                key=keys.PLAYER_COVERAGE,
                format_func=coverage_label,
                persist_state="session",
                help=HELP["coverage"],
            )
            with st.expander("How this differs from Google's sentencepiece"):
                st.html(sentencepiece_differences_html())
        st.selectbox(
            "Tie rule",
            list(TIE_RULES),
            key=keys.PLAYER_TIE_BREAK,
            persist_state="session",
            format_func=lambda t: TIE_RULES[t][0][0].upper() + TIE_RULES[t][0][1:],
            help=HELP["tie"],
        )
        st.checkbox("Normalize to NFC first", key=keys.PLAYER_NFC, persist_state="session", help=HELP["nfc"])
        st.text_input(
            "Special tokens",
            key=keys.PLAYER_SPECIALS,
            persist_state="session",
            placeholder="e.g. <|endoftext|>",
            help=HELP["special"],
        )
    if error:
        raise sources.SourceError(error)
    return title, text, cap


def _vocabulary_settings(text: str) -> "st.delta_generator.DeltaGenerator":
    """The replay's sidebar part: which installed vocabulary, the ones not installed, the text limit."""
    st.subheader("Vocabulary")
    names = replay_state.installed() + [replay_state.UPLOADED]
    name = st.selectbox(
        "Replay the merges of",
        names,
        key=keys.PLAYER_VOCAB,
        format_func=lambda n: "Upload a tokenizer.json…" if n == replay_state.UPLOADED else vocab_label(n),
        persist_state="session",
        help="A model's real vocabulary, from the Python package that ships it, or a tokenizer.json "
        "you upload (SentencePiece-style, as Llama 2's or Mistral 7B's, or byte-level). Its "
        "merges fire on your text in rank order; the last step is exactly that tokenizer's ids.",
    )
    if name == replay_state.UPLOADED:
        st.file_uploader(
            "A tokenizer.json",
            type=["json"],
            key=keys.REPLAY_UPLOAD,
            on_change=replay_state.on_upload,
            max_upload_size=vocabs.MAX_UPLOAD_FILE_BYTES // (1024 * 1024),
            help="A Hugging Face tokenizer.json of a BPE model: SentencePiece-style (Metaspace, byte "
            "fallback: Llama 2, Mistral 7B) or byte-level (GPT-2, Llama 3). It stays in this session.",
        )
        info = ss.get(keys.REPLAY_UPLOADED)
        if ss.get(keys.REPLAY_UPLOAD_ERROR):
            st.html(message_html(ss[keys.REPLAY_UPLOAD_ERROR], "error", css_class="player-replay-upload-error"))
        elif info:
            st.html(
                message_html(
                    f"Replaying {info['label']}, uploaded in this session.", "info", css_class="player-replay-uploaded"
                )
            )
    cap = st.empty()
    missing = [bpe.PRETRAINED[n] for n in bpe.PRETRAINED if n not in names]
    if missing:
        st.html(missing_html(missing))
    if len(text.encode("utf-8", "surrogatepass")) > replay_state.MAX_REPLAY_BYTES:
        st.checkbox(
            f"Replay the first {replay_state.kb(replay_state.MAX_REPLAY_BYTES)}",
            key=keys.REPLAY_CUT,
            persist_state="session",
            help="A replay draws every merge of every word, so it takes a window of text a person reads.",
        )
    return cap
