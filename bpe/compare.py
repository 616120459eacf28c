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
from .trainer import TIE_BREAKS, MergeStream
from .visible import METASPACE_CHAR, split_metaspace, to_visible

__all__ = ["compare", "Comparison", "Difference", "Hypothesis", "Reference", "CAUSES", "pair_text", "token_text"]

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
    #: how A was trained, as the diagnosis took it (None without a text)
    reference: Reference | None = None

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
        same = {0: "no merge in common", 1: "agree on the first merge"}.get(
            self.equal, f"agree on the first {self.equal:,} merges"
        )
        lines.append(f"{same}; merge {d.number:,} differs:")
        lines.append(
            f"  A: {pair_text(d.a_pair)} ({_count(d.a_count)})   B: {pair_text(d.b_pair)} "
            f"({_count(d.b_count)} in A's record{', tied' if d.tied else ''})"
        )
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
class Reference:
    """How a reference trainer works: :func:`bpe.train`'s settings plus the two knobs bpe does not have --
    ``counting="per_chunk"`` (a pair once per chunk, the exercise notebook's) and the ``"visible"`` tie rule
    (see :data:`bpe.compare_train.VARIANT_RULES`). :meth:`train` gives its merges on a text.

    >>> Reference(pattern=None, tie_break="lexical").train("aaabdaaabac", 2)
    ((b'a', b'a'), (b'a', b'b'))
    """

    pattern: Any = "gpt4"
    level: str = "byte"
    tie_break: str = "lexical"
    normalize: str | None = None
    specials: tuple[str, ...] = ()
    counting: str = "occurrence"
    stale: bool = False

    @classmethod
    def of(cls, run: Run) -> "Reference":
        """The settings a run was trained with."""
        return cls(run.pattern, run.level, run.tie_break, run.normalize, tuple(run.special_tokens))

    @property
    def simple(self) -> bool:
        """Whether the fast trainer can do it (else the deliberately simple loop does)."""
        return self.counting == "occurrence" and not self.stale and self.tie_break in TIE_BREAKS

    def merges(self, corpus: Corpus, n: int, budget: int | None = None) -> Iterator[Pair]:
        """Its merges on ``corpus``, one at a time (at most ``n``)."""
        if self.simple:
            yield from _fast(corpus, self.tie_break, n)
            return
        loop = VariantLoop(corpus, counting=self.counting, stale=self.stale)
        for _ in range(n):
            if budget is not None and loop.work > budget:
                raise _OverBudget
            found = loop.best(self.tie_break)
            if found is None:
                return
            yield loop.pair_bytes(found[0])
            loop.merge(found[0])

    def corpus(self, text: str) -> Corpus:
        """The text as this trainer sees it (pre-tokenized, normalized, specials cut out)."""
        return build_corpus(
            text, pattern=self.pattern, level=self.level, normalize=self.normalize, special_tokens=self.specials
        )

    def train(self, text: str, n: int) -> tuple[Pair, ...]:
        """Its first ``n`` merges on ``text``."""
        return tuple(self.merges(self.corpus(text), n))


class _OverBudget(Exception):
    pass


class _Corpora:
    """Corpora of the text under each setting, built once (the fast trainer gets a copy: it rewrites it)."""

    def __init__(self, text: str):
        self.text = text
        self.made: dict[tuple[object, ...], Corpus] = {}

    def get(self, s: Reference) -> Corpus:
        key = (getattr(s.pattern, "regex", s.pattern), s.level, s.normalize, s.specials)
        if key not in self.made:
            self.made[key] = s.corpus(self.text)
        return self.made[key]


def _agree(merges: Iterator[Pair], target: Sequence[Pair]) -> tuple[int, bool]:
    n = 0
    try:
        for pair in merges:
            if n >= len(target) or pair != target[n]:
                break
            n += 1
    except _OverBudget:
        return n, True
    return n, False


def _fast(corpus: Corpus, rule: str, n: int) -> Iterator[Pair]:
    copy = replace(corpus, chunks=list(corpus.chunks), weights=list(corpus.weights))
    tokens = [bytes([b]) for b in range(256)] if corpus.level == "byte" else [c.encode() for c in corpus.alphabet]
    for m in MergeStream(copy, n, tie_break=rule, top_k=1):
        tokens.append(tokens[m.pair[0]] + tokens[m.pair[1]])
        yield tokens[m.pair[0]], tokens[m.pair[1]]


def _hypotheses(s: Reference, corpora: _Corpora, target: Sequence[Pair], budget: int) -> list[Hypothesis]:
    """A's trainer with one thing changed (under every tie rule, but for the tie rule itself)."""
    out: list[Hypothesis] = []

    def tryout(cause: str, label: str, t: Reference, every_rule: bool = True) -> None:
        for rule in VARIANT_RULES if every_rule else (t.tie_break,):
            r = replace(t, tie_break=rule)
            if r == s:
                continue
            try:
                corpus = corpora.get(r)
            except ValueError:
                return
            agree, cut = _agree(r.merges(corpus, len(target), budget), target)
            suffix = "" if rule == s.tie_break or not every_rule else f", tie rule {rule}"
            out.append(Hypothesis(cause, label + suffix, agree, cut))

    for rule in VARIANT_RULES:
        if rule != s.tie_break:
            tryout("tie_rule", f"the {RULE_NAMES[rule]} tie rule", replace(s, tie_break=rule), every_rule=False)
    other = "occurrence" if s.counting == "per_chunk" else "per_chunk"
    if s.pattern is not None or other == "occurrence":
        tryout(
            "counting_per_chunk",
            "counting each pair " + ("once per chunk" if other == "per_chunk" else "at every occurrence"),
            replace(s, counting=other),
        )
    mine = getattr(s.pattern, "regex", s.pattern)
    if s.level == "byte":
        for pattern in OTHER_PATTERNS:
            if pattern is None and s.pattern is None or pattern is not None and get_pattern(pattern).regex == mine:
                continue
            tryout(
                "pretokenization",
                "no pre-tokenizer" if pattern is None else f"the {pattern} pre-tokenizer",
                replace(s, pattern=pattern),
            )
    if s.specials:
        tryout("special_tokens", "special tokens trained as text", replace(s, specials=()))
    form, metaspace = split_metaspace(s.normalize)
    other_form = None if form else "NFC"
    if metaspace:
        other_form = f"{other_form}+metaspace" if other_form else "metaspace"
    tryout("normalization", "without NFC" if form else "with NFC", replace(s, normalize=other_form))
    if not s.stale:
        tryout("stale_counts", "counts not lowered after a merge", replace(s, stale=True))
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


def _record(side: MergeList, text: str) -> Reference | None:
    """A's trainer: A's own run's settings, or the settings (pattern, tie rule) that reproduce A furthest."""
    if side.run is not None:
        return Reference.of(side.run)
    n = len(side.pairs)
    tok = side.tokenizer
    if tok is not None:
        candidates = [Reference(tok.pattern, tok.level, "lexical", tok.normalize, tuple(tok.special_tokens))]
    else:
        candidates = [Reference(p) for p in ("gpt2", "gpt4", None)]
    corpora = _Corpora(text)
    best, best_agree = None, -1
    for s in candidates:
        try:
            corpus = corpora.get(s)
        except ValueError:
            continue
        for rule in TIE_BREAKS:
            agree, _ = _agree(_fast(corpus, rule, n), side.pairs)
            if agree > best_agree:
                best, best_agree = replace(s, tie_break=rule), agree
    return best


def _difference(
    k: int, a: MergeList, b: MergeList, ref: Reference | None, corpus: Corpus | None, budget: int
) -> Difference:
    pa = a.pairs[k] if k < len(a.pairs) else None
    pb = b.pairs[k] if k < len(b.pairs) else None
    loop = None
    if corpus is not None and ref is not None:
        loop = replay(corpus, a.pairs[:k], budget, counting=ref.counting)
    if loop is None:
        record = a.run.merges[k].count if a.run is not None and k < len(a.run.merges) else None
        return Difference(k + 1, pa, pb, record)
    ids = {side: loop.find(p) for side, p in (("A", pa), ("B", pb)) if p is not None}
    counts = {side: loop.count(i) if i is not None else None for side, i in ids.items()}
    ca, cb = counts.get("A"), counts.get("B")
    tied = ca is not None and ca == cb
    picks = {}
    if tied:
        id_a, id_b = ids["A"], ids["B"]
        assert id_a is not None and id_b is not None  # both counted, so both found
        for rule in VARIANT_RULES:
            key_a, key_b = loop.rule_key(rule, id_a), loop.rule_key(rule, id_b)
            picks[rule] = "A" if key_a < key_b else "B"
    return Difference(k + 1, pa, pb, ca, cb, tied, picks)


def compare(
    a: Any, b: Any, *, text: str | None = None, reference: Reference | None = None, budget: int = BUDGET
) -> Comparison:
    """Compare two merge lists trained on ``text`` and say why they part (see the module docstring).

    ``a`` and ``b`` are each a :class:`bpe.Run`, a :class:`bpe.Tokenizer`, a path (tokenizer files or a JSON
    list of pairs) or a list of merged pairs as byte strings; A is the reference. ``reference`` says how A
    was trained (by default: A's run's settings, or for other sides the pattern and tie rule that reproduce
    A furthest). ``budget`` bounds the deliberately simple retrainings (base tokens rescanned, each): past
    it a hypothesis stops early and says so (``Hypothesis.cut``). Raises
    :class:`bpe.compare_inputs.CompareInputError` (a ``ValueError``) for a side that is no merge list.
    """
    side_a, side_b = merge_list(a, "A"), merge_list(b, "B")
    equal = _prefix(side_a.pairs, side_b.pairs)
    if equal == min(len(side_a.pairs), len(side_b.pairs)):
        return Comparison(side_a, side_b, equal, None, "identical", reference=reference)
    if text is None:
        return Comparison(
            side_a,
            side_b,
            equal,
            Difference(equal + 1, side_a.pairs[equal], side_b.pairs[equal]),
            "unknown",
            reference=reference,
        )
    ref = reference or _record(side_a, text)
    corpora = _Corpora(text)
    corpus = corpora.get(ref) if ref is not None else None
    first = _difference(equal, side_a, side_b, ref, corpus, budget)
    hypotheses: list[Hypothesis] = []
    if ref is not None:
        hypotheses = _hypotheses(ref, corpora, side_b.pairs, budget)
        hypotheses.sort(key=lambda h: (-h.agree, CAUSES.index(h.cause)))
    if _absent(side_b.pairs[equal : equal + 50], text):
        cause = "different_text"
    elif hypotheses and hypotheses[0].agree > equal:
        cause = hypotheses[0].cause
    else:
        cause = "unknown"
    return Comparison(side_a, side_b, equal, first, cause, tuple(hypotheses), ref)
