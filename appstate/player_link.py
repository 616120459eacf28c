"""The merge player's share link: what each URL parameter holds, read safely and written back.

Pure functions over plain values (no Streamlit): the page passes ``st.query_params`` and its state. A link
reopens the same text, settings, merge and speed:

* ``sample``  -- a sample's key (file stem), e.g. ``aaabdaaabac``;
* ``text``    -- a pasted text of at most :data:`MAX_LINK_TEXT` characters, instead of ``sample`` (longer
  pastes and uploads are not linked: the link then carries the settings only, and the page says so);
* ``merges``  -- merges to learn, 1 .. the app's maximum (an old ``vocab`` = 256 + merges is read too);
* ``pattern`` -- a pre-tokenizer registry name (``gpt4`` ...), ``none``, or a custom regex (a bare word that
  names none, ``gpt-4``, is taken for a mistyped name);
* ``level`` (``byte``/``char``/``sentencepiece``), ``tie`` (``lexical``/``first``/``hf``), ``nfc`` (``1``/``0``);
* ``coverage`` -- SentencePiece-style only: the character coverage, one of :data:`COVERAGES` (``0.9995``);
* ``special`` -- special tokens, separated by spaces;
* ``speed``   -- merges per second while playing;
* ``merge``   -- the merge shown, 0 .. the run's merges (in a replay: the step);
* ``replay``  -- a registry vocabulary (``cl100k_base`` ...): the player replays that vocabulary's merges on
  the text instead of training (:func:`read_replay`); the training settings are then left out.

A bad value (``merge=-5``, ``merges=abc``, ``pattern=(``, an unknown sample ...) gives the default and a
note (plain text: escape it), never an error.

>>> link, notes = read_link({"sample": "hello", "merge": "3", "speed": "30"}, samples=["hello"])
>>> link.sample, link.merge, link.speed, notes
('hello', 3, 30.0, [])
>>> read_link({"merge": "-5"}, samples=["hello"])[1]
["The link's merge=-5 is outside 0–20000: showing merge 0."]
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import bpe

from .query import first_value, parse_bool, parse_choice, parse_int, parse_text, shown

__all__ = [
    "Link",
    "read_link",
    "read_replay",
    "link_params",
    "LINK_KEYS",
    "MAX_LINK_TEXT",
    "SPEEDS",
    "LEVELS",
    "COVERAGES",
    "DEFAULT_COVERAGE",
    "parse_coverage",
]

#: Longest pasted text a link carries (characters), and the longest special tokens / pattern.
MAX_LINK_TEXT = 2_000
MAX_LINK_SPECIALS = 400
MAX_LINK_PATTERN = 500
#: Player parameters in the URL, in the order a link lists them.
LINK_KEYS = (
    "sample",
    "text",
    "merges",
    "pattern",
    "level",
    "coverage",
    "tie",
    "nfc",
    "special",
    "replay",
    "speed",
    "merge",
)
#: Speeds the player offers (merges per second). Above 60 the screen cannot draw every merge.
SPEEDS = (0.5, 1, 2, 3, 5, 10, 20, 30, 60, 120, 240)
LEVELS = {"byte": "Bytes (UTF-8)", "char": "Characters", "sentencepiece": "SentencePiece-style (▁)"}
#: Character coverages a SentencePiece-style run offers: the share of the text's characters its alphabet keeps
#: (the rarest others fall back to <0xNN> byte tokens). 0.9995 is Google sentencepiece's default.
COVERAGES = (1.0, 0.9999, 0.9995, 0.999, 0.998, 0.995, 0.99, 0.98, 0.95)
DEFAULT_COVERAGE = 0.9995
_DECIMAL = re.compile(r"[0-9]{1,3}(?:\.[0-9]{1,12})?|\.[0-9]{1,12}")  # ASCII only: no "1e0", no "nan", no "٠٫٩"
TIES = ("lexical", "first", "hf", "max_bytes")


@dataclass
class Link:
    """What a link sets; ``None`` leaves a setting as it is."""

    sample: str | None = None
    text: str | None = None
    merges: int | None = None
    pattern: str | None = None  # a registry name, "none" or "custom"
    custom_pattern: str | None = None
    level: str | None = None
    tie: str | None = None
    nfc: bool | None = None
    coverage: float | None = None
    special: str | None = None
    speed: float | None = None
    merge: int | None = None


#: a ``pattern=`` that reads as a mistyped name (``gpt-4``, ``GPT4o``), not a regex: letters, digits, ``_`` and ``-``
#: only (as a regex it would match that word alone, leaving the rest of the text unsplit)
_NAME_LIKE = re.compile(r"[A-Za-z0-9_-]+")


def _not_a_name(raw: str) -> str:
    """The note for a ``pattern=`` that looks like a pre-tokenizer name but is none.

    >>> _not_a_name("gpt-4")
    "The link's pattern='gpt-4' is not a pre-tokenizer name (did you mean gpt4?): using gpt4."
    """
    close = difflib.get_close_matches(raw.lower(), [*bpe.PATTERNS, "none"], n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]}?)" if close else f" (one of {', '.join([*bpe.PATTERNS, 'none'])})"
    return f"The link's pattern={shown(raw)} is not a pre-tokenizer name{hint}: using gpt4."


#: what a bad ``merges``/``vocab`` leaves: the player's choice (a sample's own merges when the link picks one)
_DEFAULT = "the player uses its own number of merges for the text"


def read_link(
    query: Mapping[str, Any], *, samples: Sequence[str], merges: int = 256, max_vocab: int = 20_000
) -> tuple[Link, list[str]]:
    """The player's state from a link's ``query``; bad values give notes (and are left out).

    ``samples``: the sample keys (the first is the default); ``merges``: the merges to learn now (what a
    bad ``merges`` leaves); ``max_vocab``: the largest vocabulary the app trains.
    """
    max_merges = max_vocab - 256
    notes: list[str] = []
    link = Link()

    def take(result, present: bool = True):
        value, note = result
        if note:
            notes.append(note)
            return None
        return value if present else None

    link.text = take(parse_text(query.get("text"), MAX_LINK_TEXT, "", name="text")) or None
    if link.text is None and first_value(query.get("sample")) is not None:
        link.sample = take(parse_choice(query.get("sample"), list(samples), samples[0], name="sample"))
    if first_value(query.get("merges")) is not None:
        link.merges = take(parse_int(query.get("merges"), 1, max_merges, merges, name="merges", instead=_DEFAULT))
    elif first_value(query.get("vocab")) is not None:
        vocab = take(parse_int(query.get("vocab"), 257, max_vocab, 256 + merges, name="vocab", instead=_DEFAULT))
        link.merges = vocab - 256 if vocab else None
    raw = first_value(query.get("pattern"))
    if raw is not None:
        if raw in bpe.PATTERNS or raw == "none":
            link.pattern = raw
        elif len(raw) > MAX_LINK_PATTERN:
            notes.append(
                f"The link's pattern is {len(raw):,} characters long; links carry at most "
                f"{MAX_LINK_PATTERN}: using gpt4."
            )
        elif _NAME_LIKE.fullmatch(raw):
            notes.append(_not_a_name(raw))
        else:
            try:
                entry = bpe.get_pattern(raw)
            except bpe.PatternError as exc:
                notes.append(f"The link's pattern={shown(raw)} is not a valid regex ({exc}): using gpt4.")
            else:
                link.pattern, link.custom_pattern = ("custom", raw) if entry.custom else (entry.name, None)
    present = {k: first_value(query.get(k)) is not None for k in ("level", "tie", "nfc", "speed", "merge")}
    link.level = take(parse_choice(query.get("level"), list(LEVELS), "byte", name="level"), present["level"])
    link.tie = take(parse_choice(query.get("tie"), list(TIES), "lexical", name="tie"), present["tie"])
    link.nfc = take(parse_bool(query.get("nfc"), False, name="nfc"), present["nfc"])
    if first_value(query.get("coverage")) is not None:
        link.coverage = take(parse_coverage(query.get("coverage")))
    if first_value(query.get("special")) is not None:
        link.special = take(parse_text(query.get("special"), MAX_LINK_SPECIALS, None, name="special"))
    speeds = {f"{s:g}": float(s) for s in SPEEDS}
    link.speed = take(parse_choice(query.get("speed"), speeds, 2.0, name="speed"), present["speed"])
    link.merge = take(parse_int(query.get("merge"), 0, max_vocab, 0, name="merge"), present["merge"])
    return link, notes


def parse_coverage(value: Any) -> tuple[float, str | None]:
    """A character coverage from a link: one of :data:`COVERAGES` however it is written (``1``, ``1.0``,
    ``0.99950``), else :data:`DEFAULT_COVERAGE` with a note.

    >>> parse_coverage("0.999"), parse_coverage("1.0"), parse_coverage(None)
    ((0.999, None), (1.0, None), (0.9995, None))
    >>> parse_coverage("0.5")[1]
    "The link's coverage='0.5' is not one of the coverages offered (1, 0.9999, 0.9995, 0.999, 0.998, 0.995, 0.99, 0.98, 0.95): using 0.9995."
    """
    raw = first_value(value)
    if raw is None:
        return DEFAULT_COVERAGE, None
    text = raw.strip()
    if _DECIMAL.fullmatch(text):
        found = [c for c in COVERAGES if abs(float(text) - c) < 1e-12]
        if found:
            return found[0], None
    offered = ", ".join(f"{c:g}" for c in COVERAGES)
    return DEFAULT_COVERAGE, (
        f"The link's coverage={shown(raw)} is not one of the coverages offered ({offered}): using {DEFAULT_COVERAGE:g}."
    )


def read_replay(
    query: Mapping[str, Any], *, names: Sequence[str], installed: Sequence[str], default: str = "cl100k_base"
) -> tuple[str | None, list[str]]:
    """The vocabulary a link's ``replay=`` asks to replay (None: no replay), and notes. An unknown name or a
    vocabulary that is not installed here gives ``default`` and a note.

    >>> read_replay({"replay": "llama3"}, names=["cl100k_base", "llama3"], installed=["cl100k_base", "llama3"])
    ('llama3', [])
    >>> read_replay({"replay": "gpt9"}, names=["cl100k_base"], installed=["cl100k_base"])[1]
    ["The link's replay='gpt9' is not one of cl100k_base: replaying cl100k_base."]
    >>> read_replay({}, names=["cl100k_base"], installed=["cl100k_base"])
    (None, [])
    """
    raw = first_value(query.get("replay"))
    if raw is None:
        return None, []
    fallback = default if default in installed else (installed[0] if installed else None)
    name, note = parse_choice(raw, list(names), fallback, name="replay")
    if note:
        return fallback, [note.replace(f"using {fallback}", f"replaying {fallback}")]
    if name not in installed:
        return fallback, [
            f"The link's replay={shown(raw)} is a vocabulary whose package is not installed here: replaying {fallback}."
        ]
    return name, []


def link_params(
    *,
    source: str,
    sample: str,
    paste: str,
    merges: int,
    pattern: str,
    custom_pattern: str,
    level: str,
    tie: str,
    nfc: bool,
    specials: Sequence[str],
    speed: float,
    merge: int,
    coverage: float = DEFAULT_COVERAGE,
) -> tuple[dict, str]:
    """The URL parameters of this state, and why the text is not in them ("" when it is). ``coverage`` goes in
    only for a SentencePiece-style level (no other level has one).

    >>> p, why = link_params(source="upload", sample="x", paste="", merges=9, pattern="gpt4", custom_pattern="",
    ...                      level="byte", tie="lexical", nfc=False, specials=(), speed=2, merge=4)
    >>> p["merge"], "sample" in p, why.startswith("Uploaded files")
    (4, False, True)
    """
    p: dict = {}
    why = ""
    if source == "sample":
        p["sample"] = sample
    elif source == "paste" and len(paste) <= MAX_LINK_TEXT:
        p["text"] = paste
    elif source == "paste":
        why = (
            f"Pasted texts longer than {MAX_LINK_TEXT:,} characters cannot be linked: this link carries "
            "the settings and the merge, not the text."
        )
    else:
        why = "Uploaded files cannot be linked: this link carries the settings and the merge, not the text."
    p["merges"] = int(merges)
    p["pattern"] = (custom_pattern or "") if pattern == "custom" else pattern
    p.update(
        level=level,
        coverage=f"{float(coverage):g}" if level == "sentencepiece" else None,
        tie=tie,
        nfc=bool(nfc),
        special=" ".join(specials) if specials else None,
        speed=f"{float(speed):g}",
        merge=int(merge),
    )
    return p, why
