"""Compare / check my BPE: two merge lists on the same text, where they part and why.

Glue only: A and B and the comparison come from :mod:`appstate.compare_state` (the library's
:func:`bpe.compare` does the work), the HTML and chart from :mod:`views.compare`, B's panel and the tokens
at merge k from :mod:`app_pages.compare_parts`. Runs under :mod:`appstate.pageguard`.
"""

from __future__ import annotations

import streamlit as st

from app_pages.compare_parts import b_panel, share, tokens_at
from appstate import compare_state, keys, links, pageguard
from views.compare import aligned_html, catalogue_html, curves_figure, side_title_html, verdict_html
from views.messages import message_html
from views.notes import notes_html

ss = st.session_state


def main() -> None:
    st.title("Compare / check my BPE")
    st.caption(
        "Two tokenizers trained on the same text, merge by merge: how many agree, the first merge where "
        "they part, and why. Check your own trainer: pick the reference you are matching, upload your merges."
    )
    compare_state.init_compare_state()
    links.read_link_once(keys.CMP_URL_READ, keys.CMP_NOTES, compare_state.read_compare_link)
    if ss.get(keys.CMP_NOTES):
        st.html(notes_html(ss[keys.CMP_NOTES]))
    presets = compare_state.PRESETS
    st.selectbox(
        "Reference A (check my BPE against…)",
        list(presets),
        key=keys.CMP_PRESET,
        format_func=lambda p: presets[p].label,
    )
    try:
        a = compare_state.side_a()
    except ValueError as exc:
        st.html(message_html(f"Could not train the reference: {exc}", "error", css_class="cmp-error"))
        return
    cols = st.columns([3, 1])  # (the button's label whole at 1280 px)
    cols[0].caption(
        f"A: {a.preset.about} — trained here on {a.where}"
        + (f" (its first {compare_state.MAX_COMPARE_BYTES:,} bytes)" if a.cut else "")
        + ". Train yours on exactly this text:"
    )
    cols[1].download_button(
        "Download the text",
        a.text.encode("utf-8"),
        file_name="compare_text.txt",
        mime="text/plain",
        key="cmp_text_download",
        icon=":material/download:",
    )
    b = b_panel(a)
    if b is None:
        return
    c = compare_state.compare_sides(a, b)
    st.html(
        side_title_html("A", f"{a.merges.name} ({len(a.merges.pairs):,} merges)")
        + side_title_html("B", f"{b.merges.name} ({len(b.merges.pairs):,} merges)")
        + verdict_html(c)
    )
    tokens_at(a, b, c)
    st.subheader("Compression: bytes per token")
    st.plotly_chart(
        curves_figure(
            compare_state.curve(a.merges, a, a.key),
            compare_state.curve(b.merges, a, b.key),
            len(a.text.encode("utf-8")),
            k=int(ss[keys.CMP_K]),
            palette=keys.palette(),
        ),
        config={"displayModeBar": False},
        key="cmp_chart",
    )
    st.subheader("The two merge lists")
    st.html(aligned_html(c))
    with st.expander("Why merges differ: the catalogue"):
        st.html(catalogue_html())
    share(a)


pageguard.run_page(main, page="Compare")
