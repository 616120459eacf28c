"""Token tax: the same content in 28 languages through every vocabulary — what each language pays.

Glue only: the parallel text is ``sample_texts/udhr.json`` (read by :func:`bpe.load_parallel`), the numbers
come from :func:`bpe.token_tax`, the heatmap and tables from :mod:`views.token_tax_views`, the tokenizers
from :mod:`appstate.vocabs` (the registry's, loaded once per server, and the trained one: the Merge player's run,
else the first sample's). A button per language sends that language's text to the Merge player to train
on (see :func:`retrain_on`). Widgets keep their values for the session; the page runs under
:mod:`appstate.pageguard`.
"""

from __future__ import annotations

import html

import streamlit as st

import bpe
from appstate import keys, pageguard, sources, vocabs
from views.messages import message_html
from views.theme import chips_wrap_css
from views.token_tax_views import METRIC_CHOICES, TAX_CSS, language_label, records_frame, tax_figure, tax_table
from views.vocabularies import UNICODE_NOTE, load_failed_text, missing_html, short_label

ss = st.session_state
# Session keys (widgets' keys)
VOCABS = "tax_vocabs"  # vocabularies compared: registry names and "trained"
METRIC = "tax_metric"  # a METRIC_CHOICES key
ORDER = "tax_order"  # "premium" | "corpus"
TRAIN = "tax_train_"  # + a language code: the button that trains on it in the player
KEEP = "session"
PLAYER_PAGE = "app_pages/player.py"
PARALLEL_FILE = sources.SAMPLES_DIR / "udhr.json"
ORDERS = {"premium": "Dearest first", "corpus": "By script"}


@st.cache_resource(show_spinner=False)
def corpus() -> bpe.ParallelCorpus:
    return bpe.load_parallel(PARALLEL_FILE)


@st.cache_resource(show_spinner=False, max_entries=16)
def compute_tax(key: tuple, _tokenizers: dict) -> bpe.TokenTax:
    """The token tax for the tokenizers named in ``key`` ((column label, tokenizer key) pairs): 28
    languages × up to 9 vocabularies, ~0.5 s; shared by every session (the result is immutable)."""
    return bpe.token_tax(_tokenizers, corpus(), baseline="en")


def retrain_on(code: str) -> None:
    """Send the language's text to the Merge player and go there.

    Sets the player's own session keys (:mod:`appstate.keys`): its source to ``"paste"``, its pasted text
    to this language's text; the player trains on it with its current settings (and starts at merge 0).
    """
    text = corpus().get(code).text
    ss[keys.PLAYER_SOURCE] = "paste"
    ss[keys.PLAYER_PASTE] = text
    st.switch_page(PLAYER_PAGE)


def trained_column() -> tuple[str, str, "bpe.Tokenizer"] | None:
    """(label, cache key, tokenizer) of the trained tokenizer: the player's at its merge (all merges while it
    sits at 0), else the first sample's."""
    try:
        found = vocabs.trained_run()
    except ValueError as exc:
        st.html(message_html(f"Could not train the default tokenizer: {exc}", "error"))
        return None
    n = len(found.run.merges)
    k = found.step if found.from_player and found.step > 0 else n
    return f"Trained ({k:,} merges)", f"trained:{found.key}:{k}", vocabs.run_tokenizer(found.key, k, found.run)


def main() -> None:
    st.title("Token tax")
    par = corpus()
    st.caption(
        f"The same content — {par.title} — in {len(par.texts)} languages, through every "
        "vocabulary. The premium is how many times more tokens a language needs than English for the "
        "same text with the same vocabulary: more context used, more compute, a higher bill."
    )
    status = bpe.pretrained_status()
    installed = [spec.name for spec, ok in status if ok]
    missing = [spec for spec, ok in status if not ok]
    options = [*installed, "trained"]
    labels = {**{n: bpe.PRETRAINED[n].label for n in installed}, "trained": "Trained here / on the player"}
    if VOCABS not in ss:
        # a vocabulary with another's very tokens (r50k_base is gpt2's) would repeat its column: on request only
        ss[VOCABS] = [o for o in options if o == "trained" or not bpe.PRETRAINED[o].same_ranks_as]
    else:
        ss[VOCABS] = [o for o in ss[VOCABS] if o in options]
    st.html(chips_wrap_css(VOCABS))  # every vocabulary's chip whole, on as many lines as it takes
    c1, c2, c3 = st.columns([3, 2, 1])
    with c1:
        chosen = st.multiselect(
            "Vocabularies",
            options,
            format_func=labels.get,
            key=VOCABS,
            persist_state=KEEP,
            help="Every installed vocabulary of the registry, and the tokenizer trained on "
            "the Merge player (or on the first sample while nothing is trained there). " + UNICODE_NOTE,
        )
    with c2:
        metric = st.radio(
            "Show",
            list(METRIC_CHOICES),
            format_func=lambda m: METRIC_CHOICES[m][0],
            key=METRIC,
            horizontal=True,
            persist_state=KEEP,
            help="What every cell holds. All numbers are on hover and in the table below.",
        )
    with c3:
        order = st.radio(
            "Languages",
            list(ORDERS),
            format_func=ORDERS.get,
            key=ORDER,
            persist_state=KEEP,
            help="Dearest first: by the mean premium over the vocabularies shown.",
        )
    if missing:
        st.html(missing_html(missing))
    if not chosen:
        st.info("Choose at least one vocabulary.")
        return

    tokenizers: dict[str, "bpe.Tokenizer"] = {}
    key: list[tuple[str, str]] = []
    to_load = [n for n in chosen if n != "trained"]
    with st.spinner(f"Loading {len(to_load)} vocabularies (once per server)…", show_time=True):
        for name in to_load:
            try:
                tokenizers[short_label(name)] = vocabs.vocabulary(name)
                key.append((short_label(name), name))
            except (ValueError, OSError):
                st.html(message_html(load_failed_text(bpe.PRETRAINED[name]), "error"))
    if "trained" in chosen:
        got = trained_column()
        if got is not None:
            label, tok_key, tok = got
            tokenizers[label] = tok
            key.append((label, tok_key))
    if not tokenizers:
        return
    with st.spinner("Counting tokens…"):
        tax = compute_tax(tuple(key), tokenizers)

    presenting = keys.presenting()
    fig = tax_figure(tax, par, metric, order=order, row_px=42 if presenting else 30, font_size=19 if presenting else 13)
    st.html(TAX_CSS)
    with st.container(key="tax_chart_box"):
        st.plotly_chart(fig, width="stretch", key="tax_chart", config={"displayModeBar": False})
    # a phone (CSS picks one of the two): every vocabulary and the scale in the screen's width, no sideways
    # scrolling (the full chart needs 760 px and scrolled without showing it does)
    with st.container(key="tax_chart_phone_box"):
        st.plotly_chart(
            tax_figure(tax, par, metric, order=order, row_px=24, compact=True),
            width="stretch",
            key="tax_chart_phone",
            config={"displayModeBar": False},
        )
    st.caption(
        "Hover a cell for all its numbers. Premium: blue cheaper than English, white the same, red dearer "
        "(a log scale: 2× and 0.5× are equally far from white). Tokens per word is left out for scripts "
        "written without spaces between words."
    )

    st.subheader("The numbers", anchor=False)
    with st.container(key="tax_table"):
        st.dataframe(tax_table(tax, par, metric, order=order), hide_index=True, width="stretch")
    with st.expander("Every number, one row per vocabulary and language"):
        frame = records_frame(tax, par)
        st.dataframe(frame, hide_index=True, width="stretch")
        st.download_button(
            "Download as CSV", frame.to_csv(index=False).encode("utf-8"), "token_tax.csv", "text/csv", key="tax_csv"
        )
    st.html(
        '<div class="tax-source" style="font-size:.85rem;color:#444;line-height:1.45">'
        f"<b>Text:</b> {html.escape(par.description)} <b>Source:</b> {html.escape(par.source)} "
        f"<b>Licence:</b> {html.escape(par.license)}</div>"
    )

    st.subheader("Train your own tokenizer on one language", anchor=False)
    st.caption(
        "Opens the Merge player with that language's text (the five articles above) as its pasted text, "
        "trained with the player's current settings: watch which pairs a tokenizer of that language "
        "learns first."
    )
    per_row = 7
    texts = list(par.texts)
    for start in range(0, len(texts), per_row):
        cols = st.columns(per_row)
        for t, col in zip(texts[start : start + per_row], cols):
            # labels are the corpus's own names (ours, not a user's): plain words
            if col.button(
                t.name.split(" (")[0],
                key=TRAIN + t.code,
                width="stretch",
                help=f"Train on the {language_label(t)} text in the Merge player",
            ):
                retrain_on(t.code)


pageguard.run_page(main, page="Token tax")
