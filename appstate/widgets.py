"""Widgets two pages (or the player's two modes) draw alike, written once: the preset picker and the text box
of the Tokenize page and the lab; the player's "Explain a token" box and its share link, in both modes.

Each takes the session keys of the page that draws it, so a page's keys stay defined at its top (or in
:mod:`appstate.keys`). What they show of a user's text goes through escaped HTML, never Markdown.
"""

from __future__ import annotations

from typing import Callable

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from components.copy_link import copy_link
from views.big_paste import big_paste_html
from views.messages import message_html
from views.player import PLAYER_CSS
from views.text_input import clean_text, has_lone_surrogates

from .sources import MAX_TEXT_BYTES, preset, presets

__all__ = ["preset_picker", "text_box", "big_paste_guard", "explain_token_box", "share_box"]

ss = st.session_state
KEEP = "session"  # persist_state: what the user typed or chose survives page switches
OWN_TEXT, OWN_TITLE = "own", "Your own text"  # the preset box once the text is no preset's


# ----------------------------------------------------------------------------------------------------
# The Tokenize page and the Pre-tokenizer lab


def _named(page: str, text: object) -> str:
    """The preset box's value for ``text``: the preset whose text it is, else :data:`OWN_TEXT`."""
    return next((p["key"] for p in presets(page) if p["text"] == text), OWN_TEXT)


def in_fragment_run() -> bool:
    """Whether this run reruns only fragments (a report of an element inside one), not the whole page."""
    ctx = get_script_run_ctx(suppress_warning=True)
    return bool(ctx is not None and ctx.fragment_ids_this_run)


def _box_key(preset_key: str) -> str:
    """The widget key of the preset box ``preset_key`` drawn with ``renew``: a new box each time the server sets it."""
    return f"{preset_key}_box{ss.get(preset_key + '_boxes', 0)}"


def _pick_preset(page: str, box_key: str, preset_key: str, text_key: str, custom_key: str | None) -> None:
    if box_key != preset_key and box_key != _box_key(preset_key):
        return  # a box no longer drawn (its browser's stale copy: see preset_picker's renew)
    if in_fragment_run():
        # Not a pick: the box is drawn outside every fragment, so its own change reruns the whole page. Every
        # report carries the browser's copy of every widget; one sent before the run that set the box to "Your
        # own text" reached the browser still says "Prose" (issue 31: an edit sent on its answer, the view's
        # resend of a late one, a click on a token). Picking "again" would replace what the user typed.
        ss[box_key] = _named(page, ss.get(text_key))
        return
    ss[preset_key] = ss.get(box_key)
    p = preset(page, ss.get(preset_key))
    if p is not None:
        ss[text_key] = p["text"]
        if custom_key is not None and p.get("custom"):
            ss[custom_key] = p["custom"]


def preset_start(page: str, text_key: str, preset_key: str, first: str | None = None) -> dict[str, dict]:
    """The first time, the text ``text_key`` is the preset ``first`` (else the first one) and the box
    ``preset_key`` names it (also for a page that draws the box later); returns ``page``'s presets by key."""
    items = presets(page)
    by_key = {p["key"]: p for p in items}
    start = by_key.get(first, items[0])
    if text_key not in ss:
        ss[text_key] = start["text"]
        ss.setdefault(preset_key, start["key"])
    return by_key


def preset_picker(
    where,
    page: str,
    text_key: str,
    preset_key: str,
    *,
    first: str | None = None,
    custom_key: str | None = None,
    help: str | None = None,
    renew: bool = False,
) -> dict | None:
    """The "Preset text" selectbox (widget key ``preset_key``) of ``page``'s presets (``"tokenize"``,
    ``"lab"``), drawn in ``where``. The first time, the text box ``text_key`` gets the preset ``first`` (else
    the first one); picking a preset replaces the text (and the custom pattern ``custom_key`` when the preset
    has one). Once the text is edited or replaced (it equals no preset's) the box says "Your own text"
    (value :data:`OWN_TEXT`) instead of naming a preset the text no longer is. Returns the preset shown (a
    dict of :func:`appstate.sources.presets`), or None.

    ``renew`` (Tokenize, where the text changes without a run of the whole page): ``preset_key`` is a plain
    session key holding the box's value and names the container (class ``st-key-<preset_key>``) of the box,
    whose widget key changes each time the server sets the box. Every message a browser sends carries its copy
    of every widget, and one sent before the run that set the box to "Your own text" reached it still says
    "Prose": to the same widget, that is the user picking Prose again (issue 31: what they typed was replaced,
    when they changed a setting or sent an edit in that moment). The old box's value never changes on the
    server, so its stale copy is no change at all."""
    by_key = preset_start(page, text_key, preset_key, first)
    # the box names what the text is: once it is edited or replaced, no preset but "Your own text"
    shown = by_key.get(ss.get(preset_key))
    if shown is None or shown["text"] != ss.get(text_key):
        ss[preset_key] = _named(page, ss.get(text_key))
        if renew:
            ss[preset_key + "_boxes"] = ss.get(preset_key + "_boxes", 0) + 1
    options = list(by_key) + ([OWN_TEXT] if ss[preset_key] == OWN_TEXT else [])
    key = preset_key
    if renew:
        key = _box_key(preset_key)
        if ss.get(key) != ss[preset_key]:
            ss[key] = ss[preset_key]
        where = where.container(key=preset_key)
    where.selectbox(
        "Preset text",
        options,
        format_func=lambda k: by_key[k]["title"] if k in by_key else OWN_TITLE,
        key=key,
        on_change=_pick_preset,
        args=(page, key, preset_key, text_key, custom_key),
        persist_state=KEEP,
        help=help,
    )
    return by_key.get(ss.get(preset_key))


def text_box(text_key: str, *, height: int, described: dict | None = None, help: str | None = None) -> str:
    """The text area (widget key ``text_key``, up to :data:`~appstate.sources.MAX_TEXT_BYTES`) under the
    description of the preset ``described``; returns its text made safe (:func:`views.text_input.clean_text`),
    with a warning when something was changed."""
    if described is not None and described.get("description"):
        st.caption(described["description"])
    if has_lone_surrogates(ss.get(text_key)):
        # a widget cannot hold them (its value goes out as UTF-8): replace them before it is drawn
        ss[text_key] = clean_text(ss[text_key], MAX_TEXT_BYTES)[0]
    # max_chars: the box refuses a paste over the limit (50 MB would overflow Streamlit's widget-state limit)
    raw = st.text_area(
        f"Text (up to {MAX_TEXT_BYTES:,} characters)",
        key=text_key,
        height=height,
        max_chars=MAX_TEXT_BYTES,
        persist_state=KEEP,
        help=help,
    )
    big_paste_guard(text_key, MAX_TEXT_BYTES)
    text, note = clean_text(raw, MAX_TEXT_BYTES)
    if note:
        st.warning(note)
    return text


def big_paste_guard(key: str, max_chars: int, more: str = "") -> None:
    """Under the text area with widget key ``key`` (its ``max_chars``): a big insertion goes in at once, and one
    over the limit is refused with a sentence (``more``: a fixed one after it), not silently
    (:mod:`views.big_paste`: Chromium's line-by-line insertion of typed text is quadratic)."""
    st.html(big_paste_html(key, max_chars, more), unsafe_allow_javascript=True)


# ----------------------------------------------------------------------------------------------------
# The merge player, both modes


def explain_token_box(
    query_key: str,
    box_key: str,
    *,
    placeholder: str,
    help: str,
    find: Callable[[str], tuple[int | None, str]],
    newest: int | None,
    tree_html: Callable[[int], str],
    made_by: str,
) -> None:
    """ "Explain a token": the box where the user types an id or a token (widget key ``query_key``), then the
    token's tree in a fixed-height container (key ``box_key``), and while a query is typed a button back to
    the newest token (key ``<box_key>_newest``).

    ``find(query)`` gives (the id, or None, and why not: it quotes what the user typed, so it is shown in an
    escaped box); with no id the tree is the token ``newest`` (the one the current ``made_by`` — "merge",
    "step" — made; None at step 0); ``tree_html(id)`` draws it."""
    st.text_input("Explain a token", key=query_key, persist_state=KEEP, placeholder=placeholder, help=help)
    tid, why = find(ss.get(query_key, ""))
    with st.container(height=300, key=box_key):
        if why:  # it quotes what the user typed: an escaped box, not Markdown
            st.html(message_html(why, "warning", css_class="player-tree-why"))
        tid = tid if tid is not None else newest
        st.html(
            tree_html(tid)
            if tid is not None
            else PLAYER_CSS + '<div class="bpe-pl-tree">Nothing merged yet: '
            f"step forward and the token each {made_by} makes is explained here.</div>"
        )
    if ss.get(query_key):
        st.button(
            "Back to the newest token",
            key=f"{box_key}_newest",
            on_click=ss.__setitem__,
            args=(query_key, ""),
            type="tertiary",
            icon=":material/undo:",
        )


def share_box(url: str, why: str, holds: str) -> None:
    """The share link under the player (container ``player_share``): what it ``holds`` ("this text, these
    settings and this merge"), the link in a box with a copy button on the right
    (:func:`components.copy_link.copy_link`, element key ``player_share_link``), and ``why`` it leaves
    something out, if it does. The player and the replay mode each draw it once a run (never both)."""
    with st.container(key="player_share"):
        st.caption(f"Link to {holds} — the icon on the right copies it:")
        copy_link(url, key="player_share_link")
        if why:
            st.caption(why)
