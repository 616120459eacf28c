"""Two merge lists side by side: how far they agree, the first merge where they part, and why.

:func:`compare` takes two sides -- each a :class:`bpe.Run`, a :class:`bpe.Tokenizer`, a file path or a list of
merged pairs as byte strings (see :mod:`bpe.compare_inputs`) -- and the text they were trained on. It returns a
:class:`Comparison`: :attr:`~Comparison.equal` (merges that agree from the start), :attr:`~Comparison.first`
(``None`` when identical, else the first :class:`Difference`: its 1-based number, both pairs and their counts
in A's record) and :attr:`~Comparison.cause`, one of :data:`CAUSES`:

* ``"identical"`` -- every merge agrees (when one list is longer, the shorter is all of its start:
  :attr:`~Comparison.extra` says by how much);
* ``"tie_rule"`` -- B breaks ties another way; ``"counting_per_chunk"`` -- B counts a pair once per chunk;
  ``"pretokenization"`` -- B cuts the text differently (or not at all); ``"special_tokens"`` -- B merges
  into special tokens; ``"normalization"`` -- B skips (or adds) NFC; ``"stale_counts"`` -- B never lowers
  the counts a merge uses up;
* ``"different_text"`` -- B joins bytes that never meet in this text; ``"unknown"`` -- none of the above.

A's record (a run, with every merge's count and ties) is the starting point: the text is trained again under
each hypothesis -- A's settings with one thing changed (the other tie rules, per-chunk counting, other
pre-tokenizers or none, special tokens as text, NFC toggled, stale counts) -- and the hypothesis that
reproduces B's merges furthest, past where A stops agreeing, names the cause. Without ``text`` there is
nothing to retrain: the cause is ``"identical"`` or ``"unknown"``. The catalogue of causes, each with a
paragraph and a tiny example, is :data:`bpe.compare_causes.CATALOGUE`.

>>> import bpe
>>> a = bpe.train("aaabdaaabac", 259, pattern=None, tie_break="lexical")
>>> b = bpe.train("aaabdaaabac", 259, pattern=None, tie_break="first")
>>> c = compare(a, b, text="aaabdaaabac")
>>> c.equal, c.first.number, c.first.a_pair, c.first.b_pair, c.cause
(1, 2, (b'a', b'b'), (b'aa', b'a'), 'tie_rule')
>>> c.first.a_count, c.first.b_count, c.first.tied, c.first.picks["max_bytes"]
(2, 2, True, 'B')
>>> compare(a, [(b"a", b"a"), (b"a", b"b"), (b"aa", b"ab")], text="aaabdaaabac").cause
'identical'
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field, replace
from typing import Any, Iterator, Sequence

from .compare_causes import CATALOGUE, CAUSES, RULE_NAMES
from .compare_inputs import MergeList, Pair, merge_list
from .compare_train import VARIANT_RULES, VariantLoop, replay
from .corpus import Corpus, build_corpus
from .patterns import get_pattern
from .run import Run
from .trainer import TIE_BREAKS, MergeStream, train
from .visible import METASPACE_CHAR, split_metaspace, to_visible

__all__ = ["compare", "Comparison", "Difference", "Hypothesis", "CAUSES", "pair_text", "token_text"]

#: Base tokens a deliberately simple retraining may rescan before it stops (a few seconds' work).
BUDGET = 3_000_000
#: Pre-tokenizers tried for the ``"pretokenization"`` hypothesis (besides A's own).
OTHER_PATTERNS = (None, "gpt2", "gpt4", "gpt4o", "qwen2")


def token_text(t: bytes) -> str:
    """A token in GPT-2's visible characters (``Ġthe``), readable whatever its bytes."""
    return to_visible(t)


def pair_text(pair: Pair | None) -> str:
    """``'Ġt' + 'he'``; ``'-'`` for no pair."""
    return "-" if pair is None else f"{token_text(pair[0])!r} + {token_text(pair[1])!r}"


@dataclass(frozen=True)
class Difference:
    """The first merge where the lists part: its 1-based ``number``, both pairs (``None`` on the side that
    has no merge there), their counts at that point in A's record (``None`` when a pair joins tokens A had
    not made), whether they tie, and which pair each tie rule would pick (``"A"``/``"B"``, when tied)."""

    number: int
    a_pair: Pair | None
    b_pair: Pair | None
    a_count: int | None = None
    b_count: int | None = None
    tied: bool = False
    picks: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Hypothesis:
    """A's settings with one thing changed, and how many of B's merges that reproduces from the start
    (``cut``: the retraining stopped at its work budget, so it may reach further)."""

    cause: str
    label: str
    agree: int
    cut: bool = False


@dataclass(frozen=True)
class Comparison:
    """What :func:`compare` found (see the module docstring)."""

    a: MergeList
    b: MergeList
    equal: int
    first: Difference | None
    cause: str
    hypotheses: tuple[Hypothesis, ...] = ()
    #: A's record: the run whose counts the diagnosis reads (A itself, or the text trained to match A)
    record: Run | None = None

    @property
    def identical(self) -> bool:
        """True when no merge differs (one list may be longer: see :attr:`extra`)."""
        return self.first is None

    @property
    def extra(self) -> int:
        """Merges the longer list has beyond the shorter (positive: A is longer)."""
        return len(self.a.pairs) - len(self.b.pairs)

    @property
    def best(self) -> Hypothesis | None:
        """The hypothesis that names the cause (None for identical, different_text and unknown)."""
        if self.hypotheses and self.hypotheses[0].cause == self.cause:
            return self.hypotheses[0]
        return None

    def aligned(self) -> list[tuple[int, Pair | None, Pair | None, str]]:
        """``(number, A's pair, B's pair, status)`` per merge: ``same``, ``different``, ``only A``, ``only B``."""
        rows = []
        for k in range(max(len(self.a.pairs), len(self.b.pairs))):
            pa = self.a.pairs[k] if k < len(self.a.pairs) else None
            pb = self.b.pairs[k] if k < len(self.b.pairs) else None
            status = "only A" if pb is None else "only B" if pa is None else "same" if pa == pb else "different"
            rows.append((k + 1, pa, pb, status))
        return rows

    def summary(self) -> str:
        """A few lines for a terminal: the agreement, the first difference, the cause."""
        na, nb = len(self.a.pairs), len(self.b.pairs)
        lines = [f"A: {self.a.name} ({na:,} merges)   B: {self.b.name} ({nb:,} merges)"]
        if self.first is None:
            tail = "" if na == nb else f" ({'A' if na > nb else 'B'} goes on for {abs(na - nb):,} more)"
            lines.append(f"identical for all {min(na, nb):,} merges{tail}")
            return "\n".join(lines)
        d = self.first
        lines.append(f"agree on the first {self.equal:,} merges; merge {d.number:,} differs:")
        lines.append(f"  A: {pair_text(d.a_pair)} ({_count(d.a_count)})   B: {pair_text(d.b_pair)} "
                     f"({_count(d.b_count)} in A's record{', tied' if d.tied else ''})")
        c = CATALOGUE[self.cause]
        why = f"cause: {self.cause} ({c.title})"
        if self.best is not None:
            why += f": {self.best.label} reproduces B for {self.best.agree:,} merges (A: {self.equal:,})"
        lines.append(why)
        return "\n".join(lines)


def _count(n: int | None) -> str:
    return "not possible yet" if n is None else f"count {n:,}"


def _prefix(x: Sequence[Pair], y: Sequence[Pair]) -> int:
    n = 0
    for p, q in zip(x, y):
        if p != q:
            break
        n += 1
    return n


@dataclass(frozen=True)
class _Settings:
    pattern: Any
    level: str
    tie_break: str
    normalize: str | None
    specials: tuple[str, ...]


def _settings(run: Run) -> _Settings:
    return _Settings(run.pattern, run.level, run.tie_break, run.normalize, tuple(run.special_tokens))


class _Corpora:
    """Corpora of the text under each setting, built once (the fast trainer gets a copy: it rewrites it)."""

    def __init__(self, text: str):
        self.text = text
        self.made: dict[tuple, Corpus] = {}

    def get(self, s: _Settings) -> Corpus:
        key = (getattr(s.pattern, "regex", s.pattern), s.level, s.normalize, s.specials)
        if key not in self.made:
            self.made[key] = build_corpus(self.text, pattern=s.pattern, level=s.level, normalize=s.normalize,
                                          special_tokens=s.specials)
        return self.made[key]


def _agree(merges: Iterator[Pair], target: Sequence[Pair]) -> int:
    n = 0
    for pair in merges:
        if n >= len(target) or pair != target[n]:
            break
        n += 1
    return n


def _fast(corpus: Corpus, rule: str, n: int) -> Iterator[Pair]:
    copy = replace(corpus, chunks=list(corpus.chunks), weights=list(corpus.weights))
    tokens = [bytes([b]) for b in range(256)] if corpus.level == "byte" else [c.encode() for c in corpus.alphabet]
    for m in MergeStream(copy, n, tie_break=rule, top_k=1):
        tokens.append(tokens[m.pair[0]] + tokens[m.pair[1]])
        yield tokens[m.pair[0]], tokens[m.pair[1]]


def _variant(corpus: Corpus, rule: str, target: Sequence[Pair], budget: int, **knobs) -> tuple[int, bool]:
    loop = VariantLoop(corpus, **knobs)
    n = 0
    while n < len(target):
        if loop.work > budget:
            return n, True
        found = loop.best(rule)
        if found is None or loop.pair_bytes(found[0]) != target[n]:
            break
        loop.merge(found[0])
        n += 1
    return n, False


def _hypotheses(s: _Settings, corpora: _Corpora, target: Sequence[Pair], budget: int) -> list[Hypothesis]:
    out: list[Hypothesis] = []
    n = len(target)

    def fast(cause: str, label: str, t: _Settings, rules: Sequence[str]) -> None:
        for rule in rules:
            corpus = corpora.get(t)
            suffix = "" if rule == s.tie_break or cause == "tie_rule" else f", tie rule {rule}"
            out.append(Hypothesis(cause, label + suffix,
                                  _agree(_fast(corpus, rule, n), target)))

    def variant(cause: str, label: str, **knobs) -> None:
        corpus = corpora.get(s)
        for rule in VARIANT_RULES:
            agree, cut = _variant(corpus, rule, target, budget, **knobs)
            out.append(Hypothesis(cause, f"{label}, tie rule {rule}", agree, cut))

    for rule in TIE_BREAKS:
        if rule != s.tie_break:
            fast("tie_rule", f"the {RULE_NAMES[rule]} tie rule", s, [rule])
    agree, cut = _variant(corpora.get(s), "visible", target, budget)
    out.append(Hypothesis("tie_rule", f"the {RULE_NAMES['visible']} tie rule", agree, cut))
    if s.pattern is not None:
        variant("counting_per_chunk", "counting each pair once per chunk", counting="per_chunk")
    mine = getattr(s.pattern, "regex", s.pattern)
    if s.level == "byte":
        for pattern in OTHER_PATTERNS:
            t = replace(s, pattern=pattern)
            if pattern is None and s.pattern is None or pattern is not None and get_pattern(pattern).regex == mine:
                continue
            fast("pretokenization", "no pre-tokenizer" if pattern is None else f"the {pattern} pre-tokenizer", t,
                 TIE_BREAKS)
    if s.specials:
        fast("special_tokens", "special tokens trained as text", replace(s, specials=()), TIE_BREAKS)
    form, metaspace = split_metaspace(s.normalize)
    other = None if form else "NFC"
    if metaspace:
        other = f"{other}+metaspace" if other else "metaspace"
    fast("normalization", "without NFC" if form else "with NFC", replace(s, normalize=other), TIE_BREAKS)
    variant("stale_counts", "counts not lowered after a merge", stale=True)
    return out


def _texts(text: str) -> list[bytes]:
    return [t.encode("utf-8") for t in {text, unicodedata.normalize("NFC", text), unicodedata.normalize("NFD", text)}]


def _absent(pairs: Sequence[Pair], text: str) -> bool:
    """Whether a pair joins bytes that never meet in the text (▁ read as a space)."""
    texts = _texts(text)
    meta = METASPACE_CHAR.encode("utf-8")
    for a, b in pairs:
        joined = (a + b).replace(meta, b" ").strip(b" ") or b" "
        if not any(joined in t for t in texts):
            return True
    return False


def _record(side: MergeList, text: str) -> Run | None:
    """A's record: A's own run, or the text trained with the settings (pattern, tie rule) that match A best."""
    if side.run is not None:
        return side.run
    n = len(side.pairs)
    tok = side.tokenizer
    if tok is not None:
        base = _Settings(tok.pattern, tok.level, "lexical", tok.normalize, tuple(tok.special_tokens))
        candidates = [base]
    else:
        candidates = [_Settings(p, "byte", "lexical", None, ()) for p in ("gpt2", "gpt4", None)]
    corpora = _Corpora(text)
    best, best_agree = None, -1
    for s in candidates:
        try:
            corpus = corpora.get(s)
        except ValueError:
            continue
        for rule in TIE_BREAKS:
            agree = _agree(_fast(corpus, rule, n), side.pairs)
            if agree > best_agree:
                best, best_agree = replace(s, tie_break=rule), agree
    if best is None:
        return None
    base_len = 256 if best.level == "byte" else len(corpora.get(best).alphabet)
    return train(text, base_len + len(best.specials) + n, pattern=best.pattern, level=best.level,
                 tie_break=best.tie_break, normalize=best.normalize, special_tokens=best.specials)


def _difference(k: int, a: MergeList, b: MergeList, record: Run | None, corpus: Corpus | None,
                budget: int) -> Difference:
    pa = a.pairs[k] if k < len(a.pairs) else None
    pb = b.pairs[k] if k < len(b.pairs) else None
    loop = replay(corpus, a.pairs[:k], budget) if corpus is not None else None
    if loop is None:
        return Difference(k + 1, pa, pb, record.merges[k].count if record and k < len(record.merges) else None)
    ids = {side: loop.find(p) for side, p in (("A", pa), ("B", pb)) if p is not None}
    counts = {side: loop.count(i) if i is not None else None for side, i in ids.items()}
    ca, cb = counts.get("A"), counts.get("B")
    tied = ca is not None and ca == cb
    picks = {}
    if tied:
        for rule in VARIANT_RULES:
            key_a, key_b = loop.rule_key(rule, ids["A"]), loop.rule_key(rule, ids["B"])
            picks[rule] = "A" if key_a < key_b else "B"
    return Difference(k + 1, pa, pb, ca, cb, tied, picks)


def compare(a: Any, b: Any, *, text: str | None = None, budget: int = BUDGET) -> Comparison:
    """Compare two merge lists trained on ``text`` and say why they part (see the module docstring).

    ``a`` and ``b`` are each a :class:`bpe.Run`, a :class:`bpe.Tokenizer`, a path (tokenizer files or a JSON
    list of pairs) or a list of merged pairs as byte strings; A is the reference whose record is read.
    ``budget`` bounds the deliberately simple retrainings (base tokens rescanned, each): past it a
    hypothesis stops early and says so (``Hypothesis.cut``). Raises
    :class:`bpe.compare_inputs.CompareInputError` (a ``ValueError``) for a side that is no merge list.
    """
    side_a, side_b = merge_list(a, "A"), merge_list(b, "B")
    equal = _prefix(side_a.pairs, side_b.pairs)
    if equal == min(len(side_a.pairs), len(side_b.pairs)):
        return Comparison(side_a, side_b, equal, None, "identical", record=side_a.run)
    if text is None:
        return Comparison(side_a, side_b, equal, Difference(equal + 1, side_a.pairs[equal], side_b.pairs[equal]),
                          "unknown", record=side_a.run)
    record = _record(side_a, text)
    settings = _settings(record) if record is not None else None
    corpora = _Corpora(text)
    corpus = corpora.get(settings) if settings is not None else None
    first = _difference(equal, side_a, side_b, record, corpus, budget)
    hypotheses: list[Hypothesis] = []
    if settings is not None:
        hypotheses = _hypotheses(settings, corpora, side_b.pairs, budget)
        hypotheses.sort(key=lambda h: (-h.agree, CAUSES.index(h.cause)))
    if _absent(side_b.pairs[equal:equal + 50], text):
        cause = "different_text"
    elif hypotheses and hypotheses[0].agree > equal:
        cause = hypotheses[0].cause
    else:
        cause = "unknown"
    return Comparison(side_a, side_b, equal, first, cause, tuple(hypotheses), record)
