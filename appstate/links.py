"""The app's links: every page reads its part of the URL once per session and writes its state back on every
run, so a reload or a shared link reopens what was on the screen.

* :func:`read_link_once` is the one way a link is read: once per session, into session state, with notes
  about bad values (the shared sidebar's notes are taken over by the page that shows its own);
* :func:`write_query` is the one way state goes back into the URL;
* the shared sidebar's parameters (``presenter``, ``palette``): :func:`read_app_link`, :func:`write_app_link`;
* the merge player's (:mod:`appstate.player_link` says what each parameter holds): :func:`read_player_link`,
  :func:`write_player_link`, and in its replay mode :func:`write_replay_link`.

Parsing is pure (:mod:`appstate.query`, :mod:`appstate.player_link`); this module applies it to
``st.query_params`` and session state.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import streamlit as st

import bpe
from views.theme import PALETTE_LABELS

from .keys import (
    APP_NOTES,
    PALETTE,
    PLAYER_COVERAGE,
    PLAYER_CUSTOM_PATTERN,
    PLAYER_LEVEL,
    PLAYER_LINK_STEP,
    PLAYER_MERGES,
    PLAYER_MODE,
    PLAYER_NFC,
    PLAYER_PASTE,
    PLAYER_PATTERN,
    PLAYER_SAMPLE,
    PLAYER_SOURCE,
    PLAYER_SPECIALS,
    PLAYER_SPEED,
    PLAYER_TIE_BREAK,
    PLAYER_VOCAB,
    PRESENTER,
    palette,
    presenting,
)
from .player_link import DEFAULT_COVERAGE, LINK_KEYS, Link, link_params, read_link, read_replay
from .player_state import sample_defaults
from .query import encode_value, parse_bool, parse_choice, share_url
from .replay_state import installed
from .sources import MAX_APP_VOCAB, parse_specials, sample, samples


def read_link_once(done_key: str, notes_key: str, read: Callable[[], list[str]]) -> None:
    """Once per session (``done_key`` remembers it): ``read()`` puts the link's values into session state and
    returns what was wrong with them; the notes go to ``notes_key``, after the shared sidebar's
    (``APP_NOTES``, taken over: a page that shows its own link's notes shows them too)."""
    ss = st.session_state
    if ss.get(done_key):
        return
    taken = [] if notes_key == APP_NOTES else list(ss.pop(APP_NOTES, []))
    ss[notes_key] = taken + read()
    ss[done_key] = True


def write_query(params: Mapping[str, Any]) -> None:
    """Put ``params`` in the URL: ``None`` removes a parameter, ``True``/``False`` are ``1``/``0``; a value
    already there is not written again."""
    for key, value in params.items():
        if value is None:
            st.query_params.pop(key, None)
        elif st.query_params.get(key) != encode_value(value):
            st.query_params[key] = encode_value(value)


def app_params() -> dict:
    """The shared sidebar's parameters as a link carries them (defaults left out)."""
    return {"presenter": 1 if presenting() else None, "palette": None if palette() == "default" else palette()}


# ----------------------------------------------------------------------------------------------------
# The shared sidebar: presenter view and palette


def read_app_link() -> list[str]:
    """Presenter and palette from the URL into session state (an absent parameter keeps the session's
    value); returns notes about bad values (which leave the default)."""
    qp, ss = st.query_params, st.session_state
    notes = []
    on, note = parse_bool(qp.get("presenter"), False, name="presenter")
    if note:
        notes.append(note)
    if "presenter" in qp or PRESENTER not in ss:
        ss[PRESENTER] = on
    pal, note = parse_choice(qp.get("palette"), list(PALETTE_LABELS), "default", name="palette")
    if note:
        notes.append(note)
    if "palette" in qp or PALETTE not in ss:
        ss[PALETTE] = pal
    return notes


def write_app_link() -> None:
    """Presenter and palette back into the URL (every run, before the page adds its own parameters)."""
    write_query(app_params())


# ----------------------------------------------------------------------------------------------------
# The merge player


def read_player_link() -> list[str]:
    """The player's state from the URL into session state (the link's merge goes to ``PLAYER_LINK_STEP``,
    applied once its run is trained); a ``replay=<vocabulary>`` turns the replay mode on with that
    vocabulary. Returns what was wrong with the link."""
    link, notes = read_link(
        st.query_params,
        samples=[s.key for s in samples()],
        merges=int(st.session_state[PLAYER_MERGES]),
        max_vocab=MAX_APP_VOCAB,
    )
    apply_player_link(link)
    name, replay_notes = read_replay(st.query_params, names=list(bpe.PRETRAINED), installed=installed())
    if name:
        st.session_state[PLAYER_MODE], st.session_state[PLAYER_VOCAB] = "replay", name
    return notes + replay_notes


def apply_player_link(link: Link) -> None:
    """Put what a player link sets into session state; the link's merge goes to ``PLAYER_LINK_STEP``
    (applied once its run is trained)."""
    ss = st.session_state
    if link.text:
        ss[PLAYER_SOURCE], ss[PLAYER_PASTE] = "paste", link.text
    elif link.sample:
        ss[PLAYER_SOURCE], ss[PLAYER_SAMPLE] = "sample", link.sample
        ss.update(sample_defaults(sample(link.sample)))
    specials = None if link.special is None else " ".join(parse_specials(link.special))
    for key, value in (
        (PLAYER_MERGES, link.merges),
        (PLAYER_PATTERN, link.pattern),
        (PLAYER_CUSTOM_PATTERN, link.custom_pattern),
        (PLAYER_LEVEL, link.level),
        (PLAYER_TIE_BREAK, link.tie),
        (PLAYER_NFC, link.nfc),
        (PLAYER_COVERAGE, link.coverage),
        (PLAYER_SPEED, link.speed),
        (PLAYER_SPECIALS, specials),
        (PLAYER_LINK_STEP, link.merge),
    ):
        if value is not None:
            ss[key] = value


def player_link_params(step: int) -> tuple[dict, str]:
    """The player's URL parameters for ``step`` (:func:`appstate.player_link.link_params` of session state)."""
    ss = st.session_state
    return link_params(
        source=ss[PLAYER_SOURCE],
        sample=ss[PLAYER_SAMPLE],
        paste=ss.get(PLAYER_PASTE, ""),
        merges=ss[PLAYER_MERGES],
        pattern=ss[PLAYER_PATTERN],
        custom_pattern=ss.get(PLAYER_CUSTOM_PATTERN),
        level=ss[PLAYER_LEVEL],
        tie=ss[PLAYER_TIE_BREAK],
        nfc=ss[PLAYER_NFC],
        speed=ss[PLAYER_SPEED],
        specials=parse_specials(ss.get(PLAYER_SPECIALS, "")),
        merge=step,
        coverage=ss.get(PLAYER_COVERAGE, DEFAULT_COVERAGE),
    )


def write_player_link(step: int) -> tuple[str, str]:
    """Put the player's state (at merge ``step``) in the URL. Returns the link to share (with presenter
    and palette) and why the text is not in it ("" when it is)."""
    params, why = player_link_params(step)
    write_query({key: params.get(key) for key in LINK_KEYS + ("vocab",)})
    return share_url(st.context.url, {**params, **app_params()}), why


def write_replay_link(step: int) -> tuple[str, str]:
    """Put the replay (text, vocabulary, step, speed) in the URL; returns the link and why the text is not in
    it ("" when it is). The training settings are left out: they do not change a replay."""
    ss = st.session_state
    params, why = player_link_params(step)
    params = {k: params.get(k) for k in ("sample", "text")}
    vocab = ss[PLAYER_VOCAB]
    if vocab not in bpe.PRETRAINED:  # an uploaded tokenizer.json: a link cannot carry the file
        vocab = None
        why = (
            "An uploaded tokenizer cannot be linked: this link opens "
            + ("this text" if not why else "the player")
            + " in training mode. "
            + why
        ).strip()
    params.update(replay=vocab, speed=f"{float(ss[PLAYER_SPEED]):g}", merge=int(step))
    write_query({key: params.get(key) for key in LINK_KEYS + ("vocab",)})
    return share_url(st.context.url, {**{k: v for k, v in params.items() if v is not None}, **app_params()}), why
