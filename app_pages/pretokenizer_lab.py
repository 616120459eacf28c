"""Pre-tokenizer lab: one text split by several pre-tokenizer regexes, side by side.

Glue only: widgets and layout here; splitting safely and measuring in :mod:`bpe.split_stats`, the comparison rows in :mod:`views.lab_measure`, coloring
and marking in :mod:`views.lab`; which models use a pattern and where our splits can differ from theirs in
:mod:`views.vocabularies`. Errors that quote the user's regex are escaped HTML, never Markdown; every widget
keeps its value for the whole session; the page runs under :mod:`appstate.pageguard`.
"""

from __future__ import annotations

from contextlib import nullcontext

import streamlit as st

import bpe
from appstate import keys, pageguard
from appstate.widgets import preset_picker, text_box
from bpe import split_stats
from bpe.excerpt import head
from views import lab, lab_measure
from views.messages import message_html
from views.theme import chips_wrap_css
from views.vocabularies import LAB_UNICODE_NOTE, has_unicode_note, pattern_users
from views.words import count_of, plural

ss = st.session_state
# Session keys (all of them widgets' keys too)
TEXT = "lab_text"  # the text box
PRESET = "lab_preset"  # the preset box's value, its container (widgets.preset_picker, renew)
PATTERNS = "lab_patterns"  # registry patterns shown, in order
CUSTOM_PATTERN = "lab_custom"  # the custom regex box
REFERENCE = "lab_ref"  # the pattern others are compared with
MARKS = "lab_marks"  # mark cuts that differ from the reference
NUMBERS = "lab_numbers"  # number chunks by branch
PER_ROW = "lab_per_row"  # columns per row

DEFAULT_PATTERNS = ["gpt2", "gpt4", "gpt4o", "llama3", "qwen2", "deepseek_v3"]
#: Characters drawn per pattern; the table always covers the whole text.
DRAW_CHARS = 4000
CUSTOM = "custom"
KEEP = "session"  # persist_state: what the user typed or chose survives page switches


@st.cache_resource(show_spinner=False, max_entries=32)
def stats_cached(text: str, pattern: str) -> split_stats.PatternStats:
    return split_stats.pattern_stats(text, pattern)


@st.cache_resource(show_spinner=False, max_entries=64)
def split_cached(text: str, pattern: str) -> split_stats.SafeSplit:
    return split_stats.safe_split(text, pattern)


def main() -> None:
    st.title("Pre-tokenizer lab")
    st.caption(
        "Before BPE merges anything, a regex cuts the text into chunks, and no token ever crosses a cut. "
        "Here the same text goes through several tokenizers' regexes; each chunk is colored by the branch "
        "of the pattern that matched it (hover for the branch in words)."
    )
    if PATTERNS not in ss:
        ss[PATTERNS] = list(DEFAULT_PATTERNS)

    names = list(bpe.PATTERNS)
    label = {n: bpe.PATTERNS[n].label for n in names}

    st.html(chips_wrap_css(PATTERNS))  # every chosen pattern's chip whole, on as many lines as it takes
    top = st.columns([1, 2])
    preset = preset_picker(top[0], "lab", TEXT, PRESET, first="contractions", custom_key=CUSTOM_PATTERN, renew=True)
    with top[1]:
        chosen = st.multiselect(
            "Patterns",
            names,
            format_func=label.get,
            key=PATTERNS,
            persist_state=KEEP,
            help="The registry's pre-tokenizers: the real models' own regexes (GPT-2 to "
            "GPT-4o, Llama 3, Qwen, DeepSeek-V3, Mistral tekken, Kimi K2) and two "
            "teaching variants.",
        )
    text = text_box(TEXT, height=140, described=preset)

    custom = st.text_input(
        "Custom pattern (a regex in the syntax of Python's regex module, V1 flags)",
        key=CUSTOM_PATTERN,
        placeholder=r"e.g.  \p{L}+|\p{N}+|[^\s\p{L}\p{N}]+|\s+",
        persist_state=KEEP,
        help="Compiled safely: an error is explained, a pattern that backtracks for ever is "
        f"stopped after about {split_stats.INTERACTIVE_TIMEOUT:g} s, and text no branch matches is flagged.",
    )
    custom_slot = st.empty()  # the custom pattern's error, right under the box
    columns = ([CUSTOM] if custom else []) + list(chosen)  # the pattern being edited comes first
    ref_options = names + ([CUSTOM] if custom else [])
    if ss.get(REFERENCE) not in ref_options:
        ss[REFERENCE] = "gpt4"
    opts = st.columns([1.7, 1.3, 1.9, 1])  # "Number chunks by branch" whole at 1280 px
    with opts[0]:
        ref = st.selectbox(
            "Reference for marking differences",
            ref_options,
            format_func=lambda n: "Custom" if n == CUSTOM else label[n],
            key=REFERENCE,
            persist_state=KEEP,
        )
    marks = opts[1].toggle("Mark cuts that differ", value=True, key=MARKS, persist_state=KEEP)
    numbers = opts[2].toggle(
        "Number chunks by branch",
        value=False,
        key=NUMBERS,
        persist_state=KEEP,
        help="Adds each chunk's branch number, for readers who cannot tell the colors apart.",
    )
    per_row = opts[3].select_slider("Columns", [1, 2, 3, 4], value=2, key=PER_ROW, persist_state=KEEP)
    pal = keys.palette()

    if not columns:
        st.info("Choose at least one pattern, or type a custom one.")
        return

    def pattern_of(col: str) -> str:
        return custom if col == CUSTOM else col

    def title_of(col: str) -> str:
        return "Custom" if col == CUSTOM else label[col]

    view_text, cut = head(text, DRAW_CHARS)
    if cut:
        st.info(
            f"The text has {len(text):,} characters: the table counts all of them; the views draw the first "
            f"{len(view_text):,}."
        )

    # Whole-text stats (the table) and the drawn splits
    ref_pattern = pattern_of(ref)
    ref_stats = stats_cached(text, ref_pattern)
    ref_split = split_cached(view_text, ref_pattern)
    ref_title = title_of(ref)
    rows = []
    splits: dict[str, split_stats.SafeSplit] = {}
    with (
        st.spinner(f"Splitting {len(text):,} characters with {len(columns)} patterns…", show_time=True)
        if len(text) > 100_000
        else nullcontext()
    ):
        for col in columns:
            stats = stats_cached(text, pattern_of(col))
            rows.append(lab_measure.stats_row(title_of(col), stats, len(text), ref_stats))
            splits[col] = (
                split_cached(view_text, pattern_of(col))
                if not stats.error
                else split_stats.SafeSplit(col, title_of(col), None, None, stats.error, stats.seconds)
            )
    if custom and not splits[CUSTOM].ok:
        # the error quotes the user's regex: escaped HTML, not Markdown
        custom_slot.html(message_html(f"Custom pattern: {splits[CUSTOM].error}", "error", css_class="lab-custom-error"))

    # the key holds for the custom pattern too: its branches are colored by what they match
    other = (
        bool(custom)
        and splits[CUSTOM].ok
        and any(lab.custom_branch_kind(rx) == lab.OTHER_KIND for _s, _i, rx in splits[CUSTOM].pattern.branches)
    )
    st.html(lab.kinds_key_html(pal, other=other))
    if marks and ref_split.ok:
        st.html(lab.marks_key_html(ref_title))
    elif marks:
        st.html(message_html(f"The reference ({ref_title}) cannot be used: {ref_split.error}", "warning"))

    for start in range(0, len(columns), per_row):
        grid = st.columns(per_row, gap="medium")
        for col, cell in zip(columns[start : start + per_row], grid):
            with cell:
                with st.container(key=f"lab_col_{col}", border=True):
                    _draw_column(
                        col,
                        title_of(col),
                        splits[col],
                        ref_split,
                        ref_title,
                        ref == col,
                        marks,
                        numbers,
                        pal,
                        legend_open=len(columns) <= 2,
                    )

    st.subheader("Chunk counts", anchor=False)
    st.caption(
        f"Over the whole text ({len(text):,} characters). A cut is a position where one chunk ends and the "
        f"next begins; the last two columns compare each pattern's cuts with {ref_title}'s."
    )
    with st.container(key="lab_table"):
        st.dataframe(lab.counts_frame(rows), hide_index=True, width="stretch")


def _draw_column(
    col: str,
    title: str,
    res: split_stats.SafeSplit,
    ref_split: split_stats.SafeSplit,
    ref_title: str,
    is_ref: bool,
    marks: bool,
    numbers: bool,
    pal: str,
    legend_open: bool = True,
) -> None:
    # titles are "Custom" or the registry's labels (ours); a real model's pattern says where splits can differ
    real = col != CUSTOM and has_unicode_note(col)
    st.markdown(f"**{title}**" + (" · reference" if is_ref else ""), help=LAB_UNICODE_NOTE if real else None)
    if not res.ok:
        st.html(message_html(res.error, "error"))
        return
    pattern = res.pattern
    if real:
        st.caption("The pre-tokenizer of " + ", ".join(pattern_users(col)) + ".")
    if pattern.custom:
        st.caption(
            "Your pattern. "
            + (
                "It has one branch."
                if len(pattern.branches) == 1
                else f"It has {len(pattern.branches)} top-level branches."
            )
        )
    else:
        st.caption(pattern.summary)
    result = res.result
    extra: set[int] = set()
    missing: set[int] = set()
    if marks and ref_split.ok and not is_ref:
        extra, missing = split_stats.boundary_marks(result, ref_split.result)
    n_un = sum(e - s for s, e in result.unmatched)
    bits = [count_of(len(result), "chunk")]
    if marks and ref_split.ok and not is_ref:
        bits.append(f"{count_of(len(extra), 'cut')} {ref_title} does not make, {len(missing)} of its cuts missing")
    st.caption(" · ".join(bits))
    if n_un:
        matched_any = any(c.branch is not None for c in result)
        if not matched_any:
            st.warning(
                "No branch matched any text: the pattern only matched empty strings (or nothing), so "
                "every character is flagged. Empty matches carry no text and are skipped."
            )
        else:
            st.warning(
                f"{count_of(n_un, 'character')} matched by no branch (striped red): "
                f"regex.findall would silently drop {plural(n_un, 'it', 'them')}."
            )
    st.html(lab.chunks_html(result, palette=pal, extra=extra, missing=missing, ref_label=ref_title, numbers=numbers))
    branches = len(pattern.branches)
    title = (
        "The pattern's one branch, in words" if branches == 1 else f"The {branches} branches of this pattern, in words"
    )
    with st.expander(title, expanded=legend_open):
        st.html(lab.legend_html(pattern, result, palette=pal, numbers=numbers))
        if pattern.source:
            st.caption(f"Source: {pattern.source}")


pageguard.run_page(main, page="Pre-tokenizer lab")
