"""R's values as the reader in :mod:`testkit.rdata` returns them: the SEXP type codes of R's serialization
format, and small Python classes for what is not a plain ``list``, ``str`` or number (vectors with attributes,
symbols, pairlists, singletons, and objects kept only as placeholders); :func:`altrep_expand` turns R's
compact (ALTREP) forms into ordinary vectors.

>>> v = RVector(STRSXP, ["a", None], {"names": RVector(STRSXP, ["x", "y"])})
>>> v, v.names
(['a', None], ['x', 'y'])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

__all__ = [
    "RVector",
    "RSymbol",
    "RSpecial",
    "RPairlist",
    "ROpaque",
    "STRSXP",
    "NA_INTEGER",
    "tag_name",
    "altrep_expand",
]

# SEXP types
NILSXP, SYMSXP, LISTSXP, CLOSXP, ENVSXP, PROMSXP, LANGSXP = 0, 1, 2, 3, 4, 5, 6
SPECIALSXP, BUILTINSXP, CHARSXP, LGLSXP, INTSXP, REALSXP, CPLXSXP = 7, 8, 9, 10, 13, 14, 15
STRSXP, DOTSXP, VECSXP, EXPRSXP, BCODESXP, EXTPTRSXP, WEAKREFSXP = 16, 17, 19, 20, 21, 22, 23
RAWSXP, S4SXP = 24, 25
# pseudo-types used only in the serialization stream
REFSXP, NILVALUE_SXP, GLOBALENV_SXP, UNBOUNDVALUE_SXP, MISSINGARG_SXP = 255, 254, 253, 252, 251
BASENAMESPACE_SXP, NAMESPACESXP, PACKAGESXP, PERSISTSXP = 250, 249, 248, 247
CLASSREFSXP, GENERICREFSXP, BCREPDEF, BCREPREF = 246, 245, 244, 243
EMPTYENV_SXP, BASEENV_SXP, ATTRLANGSXP, ATTRLISTSXP, ALTREP_SXP = 242, 241, 240, 239, 238

NA_INTEGER = -(2**31)


@dataclass(frozen=True)
class RSymbol:
    """An R symbol (``SYMSXP``)."""

    name: str


@dataclass(frozen=True)
class RSpecial:
    """A singleton R value (global environment, missing argument, a namespace...)."""

    kind: str
    detail: Any = None


class RVector(list):
    """An R vector: a ``list`` of Python values plus the R type and attributes.

    ``STRSXP`` elements are ``str`` or ``None`` (``NA``); ``INTSXP`` ``int`` or ``None``; ``LGLSXP`` ``bool``
    or ``None``; ``REALSXP`` ``float``; ``CPLXSXP`` ``complex``; ``VECSXP``/``EXPRSXP`` any decoded value.
    """

    def __init__(self, rtype: int, items: Iterable[Any] = (), attributes: dict[str, Any] | None = None):
        super().__init__(items)
        self.rtype = rtype
        self.attributes: dict[str, Any] = attributes or {}

    @property
    def names(self) -> list[str | None] | None:
        names = self.attributes.get("names")
        return list(names) if names is not None else None


@dataclass
class RPairlist:
    """A pairlist-like node chain (``LISTSXP``, ``LANGSXP``, closures...): ``items`` holds ``(tag, value)``
    pairs; ``tail`` is a non-NULL final CDR."""

    rtype: int
    items: list[tuple[Any, Any]] = field(default_factory=list)
    attributes: dict[str, Any] = field(default_factory=dict)
    tail: Any = None

    def as_dict(self) -> dict[str, Any]:
        return {tag_name(t): v for t, v in self.items}


@dataclass
class ROpaque:
    """An R object that is decoded only far enough to be skipped (environments, external pointers, byte
    code, builtins, S4 objects...)."""

    rtype: int
    parts: dict[str, Any] = field(default_factory=dict)
    attributes: dict[str, Any] = field(default_factory=dict)


def tag_name(tag: Any) -> str:
    if isinstance(tag, RSymbol):
        return tag.name
    return "" if tag is None else str(tag)


def _r_number_to_str(v: Any) -> str | None:
    if v is None or (isinstance(v, float) and v != v):
        return None
    if isinstance(v, float):
        if v == int(v) and abs(v) < 1e15:
            return str(int(v))
        return f"{v:.15g}"
    return str(v)


def altrep_expand(cls: str, state: Any) -> RVector:
    """Materialize a serialized ALTREP object as an ordinary :class:`RVector`."""
    if cls in ("compact_intseq", "compact_realseq"):
        if isinstance(state, RVector) and len(state) == 3:
            n, n1, inc = (int(x) for x in state)
            rtype = INTSXP if cls == "compact_intseq" else REALSXP
            seq = range(n1, n1 + inc * n, inc) if inc else [n1] * n
            return RVector(rtype, (float(x) if rtype == REALSXP else x for x in seq))
        if isinstance(state, RVector):  # already expanded
            return RVector(state.rtype, state)
    if cls == "deferred_string":
        arg = state.items[0][1] if isinstance(state, RPairlist) else state
        if isinstance(arg, RVector):
            return RVector(STRSXP, (_r_number_to_str(x) for x in arg))
    if cls.startswith("wrap_"):
        inner = state.items[0][1] if isinstance(state, RPairlist) else state
        if isinstance(inner, RVector):
            return RVector(inner.rtype, inner)
    if isinstance(state, RVector):
        return RVector(state.rtype, state)
    raise ValueError(f"unsupported ALTREP class {cls!r}")
