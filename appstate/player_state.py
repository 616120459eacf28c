"""The merge player's session: its defaults, the settings its sidebar describes, and the run it shows (which
the Tokenize, Token tax and Pre-tokenizer pages use as "the trained tokenizer").

The keys are :mod:`appstate.keys`' ``PLAYER_*``; the widgets that write them are the player's sidebar
(``app_pages/player_sidebar.py``).
"""

from __future__ import annotations

import re

import streamlit as st

import bpe
from bpe.excerpt import heldout_start

from .keys import (
    MERGE_PLAYER,
    PLAYER_COVERAGE,
    PLAYER_CUSTOM_PATTERN,
    PLAYER_LEVEL,
    PLAYER_MERGES,
    PLAYER_METRIC,
    PLAYER_NFC,
    PLAYER_NOTES,
    PLAYER_PASTE,
    PLAYER_PATTERN,
    PLAYER_RUN,
    PLAYER_SAMPLE,
    PLAYER_SEEK,
    PLAYER_SOURCE,
    PLAYER_SPECIALS,
    PLAYER_SPEED,
    PLAYER_STEP,
    PLAYER_TEXT,
    PLAYER_TEXT_END,
    PLAYER_TIE_BREAK,
    PLAYER_TREE_QUERY,
    PLAYER_UPLOAD_TRUNCATE,
    PLAYER_WINDOW,
)
from .player_link import COVERAGES, DEFAULT_COVERAGE, SPEEDS
from .runs import TrainSettings, get_run, text_key
from .sources import Sample, SourceError, parse_specials, samples

_SPECIAL_IN_TEXT = r"<\|[A-Za-z0-9_]{1,40}\|>"
#: The compression chart's metrics the merge player may report.
METRICS = ("bytes_per_token", "tokens")


def sample_defaults(s: Sample) -> dict:
    """Settings a sample comes with: its merge budget and the special tokens written in it."""
    specials = list(dict.fromkeys(re.findall(_SPECIAL_IN_TEXT, s.text)))
    return {PLAYER_MERGES: max(1, s.default_vocab_size - 256 - len(specials)), PLAYER_SPECIALS: " ".join(specials)}


def player_defaults() -> dict:
    """Every player key's default (the first sample, with its merge budget and special tokens)."""
    first = samples()[0]
    defaults = {
        PLAYER_SOURCE: "sample",
        PLAYER_SAMPLE: first.key,
        PLAYER_PASTE: "",
        PLAYER_PATTERN: "gpt4",
        PLAYER_CUSTOM_PATTERN: r"\w+|\s+|[^\w\s]+",
        PLAYER_LEVEL: "byte",
        PLAYER_TIE_BREAK: "lexical",
        PLAYER_NFC: False,
        PLAYER_SPEED: 2,
        PLAYER_STEP: 0,
        PLAYER_SEEK: 0,
        PLAYER_WINDOW: 0,
        PLAYER_TREE_QUERY: "",
        PLAYER_UPLOAD_TRUNCATE: False,
        PLAYER_METRIC: "bytes_per_token",
        PLAYER_COVERAGE: DEFAULT_COVERAGE,
    }
    defaults.update(sample_defaults(first))
    return defaults


def init_player_state() -> None:
    """Give every player key its default once per session (widgets then read them from session state)."""
    ss = st.session_state
    for key, value in player_defaults().items():
        if key not in ss:
            ss[key] = value


def default_settings(extra_specials: tuple[str, ...] = ()) -> tuple[Sample, str, TrainSettings]:
    """The first sample, the part of it the player trains on (the rest is held out for its compression chart:
    :func:`bpe.excerpt.heldout_start`, as app_pages/player.py cuts it) and the settings the player trains it
    with by default (its sidebar untouched), with ``extra_specials`` reserved too: special tokens take no merge
    (the vocabulary grows by as many), so this is the player's default tokenizer, merge for merge -- the one
    the other pages call "trained" while nothing is trained on the player (issue 31: they had 253 merges, the
    player 256; issue 14: they trained on the whole sample, the player on its first 90%)."""
    values = player_defaults()
    values[PLAYER_SPECIALS] = " ".join(dict.fromkeys([*parse_specials(values[PLAYER_SPECIALS]), *extra_specials]))
    first = samples()[0]
    text = first.text[: heldout_start(first.text)]
    return first, text, _settings(values, text)


def seek(step_key: str, k: int) -> None:
    """Move the merge player to step ``k`` on purpose (a link, a quiz answer): ``step_key`` (the mode's step key)
    takes ``k`` and ``PLAYER_SEEK`` is raised, so the browser's player jumps there."""
    st.session_state[step_key] = k
    st.session_state[PLAYER_SEEK] += 1


def take_view(shown: str, step: str, query: str) -> None:
    """The merge player's callback: it reports where it is (pause, step, jump, a click on a token); this
    puts that into the ``step`` and ``query`` keys of the mode (training or replay) whose ``(id, tag)`` is in
    session state at ``shown``, and its speed and chart metric into the player's keys. A report about another
    run (the page moved on meanwhile), one made before Python's last seek reached the browser (its ``seq``), or
    a malformed one changes nothing."""
    ss = st.session_state
    view = (ss.get(MERGE_PLAYER) or {}).get("view")
    if not isinstance(view, dict) or view.get("tag") != ss.get(shown, ("", ""))[1] or type(view.get("k")) is not int:
        return
    if type(view.get("seq")) is int and view["seq"] != ss.get(PLAYER_SEEK):
        return  # made before Python's last seek reached the browser (a click just after a quiz's check): stale
    ss[step] = max(0, view["k"])
    if view.get("speed") in SPEEDS:
        ss[PLAYER_SPEED] = view["speed"]
    if view.get("metric") in METRICS:
        ss[PLAYER_METRIC] = view["metric"]
    if type(view.get("explain")) is int:
        ss[query] = str(view["explain"])
    ss[PLAYER_NOTES] = []  # the user moved on: a link's notes have been seen


def remember_player_run(text: str, end: int, settings: TrainSettings) -> None:
    """Record the run the player shows, for the other pages (:func:`player_run`): trained on ``text[:end]``
    with ``settings``. ``text`` is the source's own string (the paste, the upload, the sample), kept as it
    is: no second copy of it stays in the session."""
    st.session_state[PLAYER_TEXT] = text
    st.session_state[PLAYER_TEXT_END] = end
    st.session_state[PLAYER_RUN] = (text_key(text[:end]), settings)


def player_run() -> tuple["bpe.Run", int] | None:
    """The run trained on the player page and its current merge index, or None if nothing is trained yet."""
    key = st.session_state.get(PLAYER_RUN)
    text = st.session_state.get(PLAYER_TEXT)
    if key is None or text is None:
        return None
    end = st.session_state.get(PLAYER_TEXT_END)
    if end is not None and text_key(text[:end]) == key[0]:  # else PLAYER_TEXT is the training text itself
        text = text[:end]
    try:
        run = get_run(text, key[1])
    except ValueError:
        return None
    step = int(st.session_state.get(PLAYER_STEP, len(run.merges)))
    return run, max(0, min(step, len(run.merges)))


def player_settings(text: str) -> TrainSettings:
    """The TrainSettings the player's sidebar (session state) describes for ``text``, or SourceError (an
    empty or invalid custom regex)."""
    return _settings(st.session_state, text)


def _settings(ss, text: str) -> TrainSettings:
    """The TrainSettings the player's keys in ``ss`` (session state, or their defaults) describe for ``text``."""
    pattern = {"none": None}.get(ss[PLAYER_PATTERN], ss[PLAYER_PATTERN])
    if pattern == "custom":
        pattern = ss.get(PLAYER_CUSTOM_PATTERN) or ""
        if not pattern.strip():
            raise SourceError("The custom pre-tokenizer is empty: type a regex, or pick one from the list.")
        try:
            entry = bpe.get_pattern(pattern)
        except bpe.PatternError as exc:
            raise SourceError(f"The custom pre-tokenizer is not a valid regex: {exc}") from None
        pattern = pattern if entry.custom else entry.name  # a registry name typed in the box
    specials = parse_specials(ss.get(PLAYER_SPECIALS, ""))
    normalize = "NFC" if ss[PLAYER_NFC] else None
    level = ss[PLAYER_LEVEL]
    coverage = 1.0
    if level == "sentencepiece":
        # SentencePiece-style: characters, spaces as ▁ glued to the next word (bpe.train(family="sentencepiece")),
        # the rarest characters left to byte fallback (character coverage)
        level, pattern = "char", "metaspace"
        normalize = f"{normalize}+metaspace" if normalize else "metaspace"
        coverage = ss.get(PLAYER_COVERAGE, DEFAULT_COVERAGE)
        coverage = coverage if coverage in COVERAGES else DEFAULT_COVERAGE
    base = bpe.base_vocab_size(text, level, normalize=normalize, special_tokens=specials, character_coverage=coverage)
    vocab = base + int(ss[PLAYER_MERGES]) + len(specials)
    return TrainSettings(
        vocab_size=vocab,
        pattern=pattern,
        level=level,
        tie_break=ss[PLAYER_TIE_BREAK],
        normalize=normalize,
        special_tokens=specials,
        character_coverage=float(coverage),
    )
