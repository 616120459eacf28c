"""The Compare page's state: side A (a reference trained here), side B (other settings or an upload), the
comparison (cached for every session), and the page's share link.

A is the Merge player's text trained with a *preset*: the player's own settings by default, or the rules of
a reference a student matches ("Check my BPE": minbpe, Hugging Face, the course rule, each tutorial in the
seeds). B is the same text trained with the settings of the page's B panel, or an uploaded merge list.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Mapping

import streamlit as st

import bpe
from bpe.compare import Comparison, Reference
from bpe.compare_inputs import CompareInputError, MergeList, merge_list, merge_list_from_files, pairs_tokenizer
from bpe.compare_train import token_counts

from . import keys
from .links import player_link_params, read_player_link
from .player_link import LINK_KEYS, TIES
from .player_state import init_player_state, player_settings
from .query import parse_bool, parse_choice, parse_int
from .runs import TrainSettings, get_run, text_key
from .sources import MAX_TRAIN_BYTES, SourceError, sample, samples

__all__ = [
    "PRESETS",
    "Preset",
    "SideA",
    "SideB",
    "side_a",
    "side_b",
    "compare_sides",
    "init_compare_state",
    "read_compare_link",
    "link_params",
    "MAX_COMPARE_BYTES",
    "tokenizer_at",
    "curve",
    "b_defaults",
    "B_PATTERNS",
    "B_LEVELS",
    "MAX_MERGES",
]

ss = st.session_state
#: The comparison runs on at most this much of the text (its retrainings are deliberately simple loops).
MAX_COMPARE_BYTES = 200_000
#: B's pre-tokenizers offered (besides "none").
#: B's pre-tokenizers: every registry pattern the player offers (GPT-4's first), and none (the SentencePiece
#: style's ``metaspace`` is its level, not a choice here)
B_PATTERNS = ("gpt4", *(k for k in bpe.PATTERNS if k not in ("gpt4", "metaspace")), "none")
B_LEVELS = ("byte", "char", "sentencepiece")
MAX_MERGES = 5000
EOT = "<|endoftext|>"
B_FOR = "_cmp_b_preset"  # the preset B's panel last took its defaults from


@dataclass(frozen=True)
class Preset:
    """A reference trainer: its name, what it does in one line, and its settings (None: the player's)."""

    key: str
    label: str
    about: str
    reference: Reference | None = None


PRESETS: dict[str, Preset] = {
    p.key: p
    for p in (
        Preset(
            "player",
            "The Merge player's settings",
            "the Merge player's settings, on the whole text (the player keeps its last tenth out of training)",
        ),
        Preset(
            "minbpe_basic",
            "minbpe BasicTokenizer",
            "bytes, no pre-tokenizer, ties: first pair seen (Python's max)",
            Reference(pattern=None, tie_break="first"),
        ),
        Preset(
            "minbpe_regex",
            "minbpe RegexTokenizer",
            "bytes, minbpe's GPT-4 pattern, ties: first pair seen",
            Reference(pattern="gpt4_minbpe", tie_break="first"),
        ),
        Preset(
            "hf",
            "Hugging Face tokenizers (byte-level BPE)",
            "GPT-2's pattern, ties in Hugging Face's byte order",
            Reference(pattern="gpt2", tie_break="hf"),
        ),
        Preset(
            "course",
            "The course rule",
            "GPT-2's pattern, <|endoftext|> as a special token, ties: the "
            "lexicographically greatest pair of byte strings",
            Reference(pattern="gpt2", tie_break="max_bytes", specials=(EOT,)),
        ),
        Preset(
            "seed_blog",
            "Blog post: byte-level BPE from scratch",
            "bytes, no pre-tokenizer, max(dic.items()) keeps the first pair seen",
            Reference(pattern=None, tie_break="first"),
        ),
        Preset(
            "seed_book",
            "Book chapter: tokenization as compression",
            "bytes, no pre-tokenizer; its walkthrough breaks the aaabdaaabac tie towards (a, b): the smaller ids",
            Reference(pattern=None, tie_break="lexical"),
        ),
        Preset(
            "seed_lesson",
            "Lesson notebook: word counts, characters",
            "characters of whitespace-separated words, max(stats, key=stats.get): the first pair seen",
            Reference(pattern=r"\S+", level="char", tie_break="first"),
        ),
        Preset(
            "seed_tuples",
            "Tutorial: BPE over byte tuples",
            "bytes, no pre-tokenizer, Counter.most_common(1): the first pair seen",
            Reference(pattern=None, tie_break="first"),
        ),
        Preset(
            "seed_exercise",
            "Exercise notebook (pairs once per pre-token)",
            "NFC, Qwen's pattern, a pair counted once per pre-token (a set), ties: min() of the visible strings",
            Reference(pattern="qwen2", normalize="NFC", counting="per_chunk", tie_break="visible"),
        ),
    )
}


@dataclass(frozen=True)
class SideA:
    """The reference: the text, how it was trained, its merges (and its run when bpe.train made it)."""

    text: str
    where: str
    preset: Preset
    reference: Reference
    merges: MergeList
    key: str
    cut: bool = False


@dataclass(frozen=True)
class SideB:
    """The other side: a merge list (its run when trained here), or why there is none yet."""

    merges: MergeList | None
    key: str
    error: str = ""


def init_compare_state() -> None:
    """Defaults for the page's keys (and the player's, whose text and settings A uses)."""
    init_player_state()
    for key, value in ((keys.CMP_PRESET, "player"), (keys.CMP_SIDE, "settings"), (keys.CMP_K, 0)):
        ss.setdefault(key, value)


def _player_text() -> tuple[str, TrainSettings, str]:
    """The Merge player's whole text (the player holds its last tenth out; a student's trainer reads the whole
    file, so A does too) and the settings its sidebar describes."""
    text = ss.get(keys.PLAYER_TEXT) if ss.get(keys.PLAYER_RUN) is not None else None
    where = "the Merge player's text"
    if text is None:
        paste = ss.get(keys.PLAYER_PASTE, "") if ss.get(keys.PLAYER_SOURCE) == "paste" else ""
        if paste.strip() and len(paste.encode("utf-8", "replace")) <= MAX_TRAIN_BYTES:
            text, where = paste, "the text pasted in the Merge player"
        else:
            s = sample(ss.get(keys.PLAYER_SAMPLE)) or samples()[0]
            text, where = s.text, f"the “{s.title}” sample"
    try:
        settings = player_settings(text)
    except SourceError:
        settings = TrainSettings(vocab_size=256 + int(ss.get(keys.PLAYER_MERGES, 256)))
    return text, settings, where


def _settings_of(ref: Reference, text: str, merges: int) -> TrainSettings:
    base = bpe.base_vocab_size(text, ref.level, normalize=ref.normalize, special_tokens=ref.specials)
    return TrainSettings(
        vocab_size=base + merges + len(ref.specials),
        pattern=ref.pattern,
        level=ref.level,
        tie_break=ref.tie_break,
        normalize=ref.normalize,
        special_tokens=ref.specials,
    )


@st.cache_resource(show_spinner=False, max_entries=8)
def _simple_reference(key: str, _ref: Reference, _text: str, n: int) -> tuple:
    return _ref.train(_text, n)


def side_a() -> SideA:
    """A: the player's text trained with the chosen preset (raises ValueError when it cannot be trained)."""
    text, settings, where = _player_text()
    cut = False
    if len(text.encode("utf-8")) > MAX_COMPARE_BYTES:
        text, cut = text.encode("utf-8")[:MAX_COMPARE_BYTES].decode("utf-8", "ignore"), True
    preset = PRESETS.get(ss.get(keys.CMP_PRESET), PRESETS["player"])
    if preset.reference is None:
        run = get_run(text, settings)
        ref = Reference.of(run)
    else:
        ref = preset.reference
        base = bpe.base_vocab_size(
            text, settings.level, normalize=settings.normalize, special_tokens=settings.special_tokens
        )
        merges = max(1, settings.vocab_size - base - len(settings.special_tokens))
        if ref.simple:
            run = get_run(text, _settings_of(ref, text, merges))
        else:
            pairs = _simple_reference(f"{text_key(text)}:{ref!r}:{merges}", ref, text, merges)
            return SideA(text, where, preset, ref, MergeList(pairs, preset.label), f"{text_key(text)}:{ref!r}", cut)
    return SideA(
        text, where, preset, ref, merge_list(run, preset.label), f"{text_key(text)}:{ref!r}:{len(run.merges)}", cut
    )


def b_settings(a: SideA) -> TrainSettings:
    """B's training settings from the page's B panel (A's where the panel says nothing)."""
    ref = a.reference
    pattern = ss.get(keys.CMP_PATTERN, "none" if ref.pattern is None else getattr(ref.pattern, "name", ref.pattern))
    level = ss.get(keys.CMP_LEVEL, ref.level)
    nfc = bool(ss.get(keys.CMP_NFC, bool(ref.normalize and "NFC" in ref.normalize)))
    normalize = "NFC" if nfc else None
    pattern = None if pattern == "none" else pattern
    if level == "sentencepiece":
        level, pattern = "char", "metaspace"
        normalize = f"{normalize}+metaspace" if normalize else "metaspace"
    merges = int(ss.get(keys.CMP_MERGES, len(a.merges.pairs)))
    specials = ref.specials
    base = bpe.base_vocab_size(a.text, level, normalize=normalize, special_tokens=specials)
    return TrainSettings(
        vocab_size=base + merges + len(specials),
        pattern=pattern,
        level=level,
        tie_break=ss.get(keys.CMP_TIE, "first" if ref.tie_break != "first" else "lexical"),
        normalize=normalize,
        special_tokens=specials,
        min_frequency=max(1, int(ss.get(keys.CMP_MIN_FREQ, 1))),
    )


def side_b(a: SideA, uploads: Mapping[str, bytes] | None) -> SideB:
    """B: the text trained with the B panel's settings, or the uploaded merge list."""
    if ss.get(keys.CMP_SIDE) == "upload":
        if not uploads:
            return SideB(None, "", "")
        digest = hashlib.sha256(
            b"".join(hashlib.sha256(n.encode() + b"\0" + d).digest() for n, d in sorted(uploads.items()))
        ).hexdigest()[:16]
        try:
            found = merge_list_from_files(dict(uploads))
        except CompareInputError as exc:
            return SideB(None, digest, str(exc))
        return SideB(found, f"upload:{digest}")
    settings = b_settings(a)
    run = get_run(a.text, settings)
    return SideB(merge_list(run, describe(settings)), f"settings:{settings!r}")


def describe(s: TrainSettings) -> str:
    """B's settings in a few words."""
    level = "SentencePiece-style" if s.pattern == "metaspace" else s.level
    bits = [f"{s.pattern or 'no'} pre-tokenizer" if s.pattern != "metaspace" else level, f"{s.tie_break} ties"]
    if s.normalize and "NFC" in s.normalize:
        bits.append("NFC")
    if s.min_frequency > 1:
        bits.append(f"min_frequency {s.min_frequency}")
    return ", ".join(bits)


@st.cache_resource(show_spinner=False, max_entries=8)
def _compare(key: tuple, _a: SideA, _b: MergeList) -> Comparison:
    return bpe.compare(_a.merges, _b, text=_a.text, reference=_a.reference)


def compare_sides(a: SideA, b: SideB) -> Comparison:
    """The comparison of A and B (shared by every session: it is immutable)."""
    assert b.merges is not None
    return _compare((a.key, b.key), a, b.merges)


def tokenizer_at(side: MergeList, a: SideA, k: int) -> "bpe.Tokenizer":
    """A side's tokenizer after its first ``k`` merges (an upload: with A's pre-tokenizer and specials)."""
    if side.run is not None:
        return side.run.tokenizer(min(k, len(side.run.merges)))
    ref = a.reference
    return pairs_tokenizer(
        side.pairs[:k],
        pattern=ref.pattern,
        special_tokens=dict.fromkeys(ref.specials),
        normalize=ref.normalize,
        name=side.name,
    )


@st.cache_resource(show_spinner=False, max_entries=16)
def _curve(key: str, _side: MergeList, _a: SideA) -> tuple[int, ...]:
    if _side.run is not None:
        return tuple(_side.run.token_counts())
    return tuple(token_counts(_a.reference.corpus(_a.text), _side.pairs, budget=20_000_000))


def curve(side: MergeList, a: SideA, key: str) -> tuple[int, ...]:
    """Tokens of the text after 0, 1, 2... of a side's merges."""
    return _curve(f"{a.key}|{key}", side, a)


# ----------------------------------------------------------------------------------------------------
# The share link: the preset, B's settings and the merge shown (an upload cannot travel in a link)


def read_compare_link() -> list[str]:
    """The link's comparison into session state; returns what was wrong with it."""
    qp = st.query_params
    notes: list[str] = []
    for key, param, choices in (
        (keys.CMP_PRESET, "preset", list(PRESETS)),
        (keys.CMP_PATTERN, "b_pattern", list(B_PATTERNS)),
        (keys.CMP_TIE, "b_tie", list(TIES)),
        (keys.CMP_LEVEL, "b_level", list(B_LEVELS)),
    ):
        if param in qp:
            value, note = parse_choice(qp.get(param), choices, ss.get(key, choices[0]), name=param)
            ss[key] = value
            notes += [note] if note else []
    for key, param, lo, hi, default in (
        (keys.CMP_MERGES, "b_merges", 1, MAX_MERGES, 256),
        (keys.CMP_MIN_FREQ, "b_min_freq", 1, 1000, 1),
        (keys.CMP_K, "k", 0, MAX_MERGES, 0),
    ):
        if param in qp:
            value, note = parse_int(qp.get(param), lo, hi, default, name=param)
            ss[key] = value
            notes += [note] if note else []
    if "b_nfc" in qp:
        value, note = parse_bool(qp.get("b_nfc"), False, name="b_nfc")
        ss[keys.CMP_NFC] = value
        notes += [note] if note else []
    if qp.get("b") == "settings":
        ss[keys.CMP_SIDE] = "settings"
    if any(k in qp for k in LINK_KEYS):  # the player's text and settings, as a player link carries them
        notes += read_player_link()
        ss.pop(keys.PLAYER_RUN, None)
        ss.pop(keys.PLAYER_LINK_STEP, None)
    return notes


def link_params(a: SideA) -> tuple[dict, str]:
    """The page's URL parameters -- the player's text and settings as a player link holds them, the preset,
    B's settings when B is trained here, the merge shown -- and why something is left out ("" if nothing)."""
    params, why = player_link_params(0)
    params = {k: v for k, v in params.items() if k not in ("merge", "speed")}
    params.update(preset=a.preset.key, k=int(ss.get(keys.CMP_K, 0)))
    if ss.get(keys.CMP_SIDE) == "settings":
        params.update(
            b="settings",
            b_pattern=ss.get(keys.CMP_PATTERN),
            b_tie=ss.get(keys.CMP_TIE),
            b_level=ss.get(keys.CMP_LEVEL),
            b_nfc=bool(ss.get(keys.CMP_NFC)),
            b_merges=ss.get(keys.CMP_MERGES),
            b_min_freq=ss.get(keys.CMP_MIN_FREQ),
        )
    else:
        why = (
            "An uploaded file cannot travel in a link: it opens this text and reference; upload the file "
            "again there. " + why
        ).strip()
    return params, why


def b_defaults(a: SideA) -> None:
    """Give B's panel A's settings (another tie rule, so the page starts with a difference to explain) when the
    reference changes; a link's values, read before, are kept on the first run."""
    first = B_FOR not in ss
    if ss.get(B_FOR) == a.preset.key:
        return
    ss[B_FOR] = a.preset.key
    ref = a.reference
    pattern = "none" if ref.pattern is None else getattr(ref.pattern, "name", ref.pattern)
    level = (
        "sentencepiece"
        if ref.pattern is not None and getattr(ref.pattern, "name", ref.pattern) == "metaspace"
        else ref.level
    )
    defaults = {
        keys.CMP_PATTERN: pattern if pattern in B_PATTERNS else "gpt4",
        keys.CMP_TIE: "first" if ref.tie_break != "first" else "lexical",
        keys.CMP_LEVEL: level,
        keys.CMP_NFC: bool(ref.normalize and "NFC" in ref.normalize),
        keys.CMP_MERGES: min(MAX_MERGES, max(1, len(a.merges.pairs))),
        keys.CMP_MIN_FREQ: 1,
    }
    for key, value in defaults.items():
        if not first or key not in ss:
            ss[key] = value
