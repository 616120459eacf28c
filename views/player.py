"""The merge player's words, tables and trees: pure functions of a run and a step (its settings in words:
:mod:`views.player_settings`).

Step ``k`` (0..N) is the state after ``k`` merges; "merge k" is the k-th merge, i.e. ``run.merges[k-1]``.
Everything a user typed is escaped before it goes into HTML.
"""

from __future__ import annotations

import html

import pandas as pd

import bpe
from bpe.visible import from_visible, split_metaspace

from .player_css import PLAYER_CSS
from .player_settings import SENTENCEPIECE_DIFFERENCES, TIE_RULES
from .spans import fallback_html, fallback_label, piece_html, token_label
from .theme import accent_colors, color_for

__all__ = [
    "tie_note",
    "merge_sentence",
    "status_html",
    "merges_frame",
    "vocab_frame",
    "merge_tree_html",
    "find_token",
    "token_chip",
    "PLAYER_CSS",
    "source_summary",
    "EXPORTS",
    "export_file",
    "pair_label",
    "quoted",
    "score_html",
    "MERGE_COLUMNS",
    "fallback_byte",
    "sentencepiece_differences_html",
    "is_sentencepiece_style",
]


def sentencepiece_differences_html() -> str:
    """The player's help on where its SentencePiece-style trainer differs from Google's sentencepiece (escaped;
    no user string in it)."""
    items = "".join(
        f"<li><b>{html.escape(what)}.</b> {html.escape(why)}</li>" for what, why in SENTENCEPIECE_DIFFERENCES
    )
    return (
        PLAYER_CSS + '<div class="bpe-sp-diff"><p>The merges here are those of Hugging Face’s '
        "SentencePieceBPETokenizer trainer, pair for pair. Google’s sentencepiece (model_type=bpe) learns "
        f"different ones:</p><ul>{items}</ul><p>Measured and explained in docs/sentencepiece.md.</p></div>"
    )


def is_sentencepiece_style(run) -> bool:
    """Whether a run is SentencePiece-style: characters, spaces as ▁, byte fallback."""
    return bool(getattr(run, "byte_fallback", False)) and run.level == "char"


def fallback_byte(run, token_id: int) -> int | None:
    """The byte of a run's byte-fallback token ``<0xNN>`` (the 256 ids after its vocabulary, see
    :meth:`bpe.Run.tokenizer`), or None when ``token_id`` is no such token.

    >>> import bpe
    >>> run = bpe.train("ab ab", 6, family="sentencepiece")
    >>> fallback_byte(run, run.vocab_size + 0xE2), fallback_byte(run, 0), fallback_byte(run, run.vocab_size + 256)
    (226, None, None)
    """
    if not getattr(run, "byte_fallback", False):
        return None
    b = int(token_id) - run.vocab_size
    return b if 0 <= b < 256 else None


def quoted(label: str) -> str:
    r"""A token label between quotes that stay readable when the label holds a quote.

    >>> print(quoted("ab"), quoted('"'), quoted("it's"), quoted('\'"'))
    "ab" '"' "it's" "'\""
    """
    if '"' not in label:
        return f'"{label}"'
    if "'" not in label:
        return f"'{label}'"
    return '"' + label.replace("\\", "\\\\").replace('"', '\\"') + '"'


def pair_label(run, pair: tuple[int, int]) -> str:
    """A pair in visible form: ``"t" + "h"``, whitespace as ``·`` ``→`` ``↵``, partial bytes as ``<E2>``,
    a quote inside quotes of the other kind (``"·" + '"'``).

    >>> import bpe
    >>> run = bpe.train("hello hello", 258, pattern=None)
    >>> print(pair_label(run, (32, 104)), "|", pair_label(run, (32, 34)))
    "·" + "h" | "·" + '"'
    """
    a, b = pair
    return f"{quoted(_label(run, a))} + {quoted(_label(run, b))}"


def score_html(results: dict, score_text: str) -> str:
    """The quiz score line (``score_text`` from the Classroom's words), with its counts for tests."""
    return (
        f'<div class="cls-score bpe-pl-score" data-right="{sum(results.values())}" data-answered="{len(results)}">'
        f"{html.escape(score_text)} (this session, with the Classroom's quiz; a tie counts as right)</div>"
    )


def _data(run, token_id: int) -> bytes:
    b = fallback_byte(run, token_id)
    if b is not None:
        return bytes([b])
    t = run.token(token_id)
    return t if isinstance(t, bytes) else t.encode("utf-8")


def _label(run, token_id: int) -> str:
    """A token's visible label; a byte-fallback token as ``<0xNN>``."""
    b = fallback_byte(run, token_id)
    return fallback_label(b) if b is not None else token_label(_data(run, token_id))


def token_chip(run, token_id: int, *, palette: str = "default", new: bool = False) -> str:
    """One token as a small colored box (same color as in the spans), its text escaped; a byte-fallback token
    as its ``<0xNN>`` byte chip."""
    cls = "bpe-pl-chip bpe-pl-new" if new else "bpe-pl-chip"
    b = fallback_byte(run, token_id)
    inner = fallback_html(b) if b is not None else piece_html(_data(run, token_id)).rstrip(chr(10))
    return (
        f'<span class="{cls}" style="background:{color_for(token_id, palette)}" '
        f'title="id {int(token_id)}">{inner}</span>'
    )


def tie_note(run, merge) -> str:
    """'' or e.g. 'tied with 2 other pairs, broken by the lexical rule (...)'."""
    n = len(merge.ties)
    if not n:
        return ""
    name, how = TIE_RULES.get(run.tie_break, (run.tie_break, ""))
    others = f"{n}+" if getattr(merge, "ties_capped", False) else str(n)
    return f"tied with {others} other pair{'s' if n != 1 else ''}, broken by the {name} rule" + (
        f": {how}" if how else ""
    )


def _unit(run) -> str:
    return "byte" if run.level == "byte" else "character"


def merge_sentence(run, k: int) -> str:
    """The state at step ``k`` in one plain sentence (what the status line says).

    >>> import bpe
    >>> run = bpe.train("aaabdaaabac", 258, pattern=None)
    >>> merge_sentence(run, 1)
    'Merge 1 / 2: "a" + "a" → "aa" (new id 256, count 4)'
    """
    n = len(run.merges)
    k = max(0, min(k, n))
    if k == 0:
        if not n:
            return "Merge 0 / 0: the text has no pair of tokens, so there is nothing to merge"
        m = run.merges[0]
        return (
            f"Merge 0 / {n}: nothing merged yet, one token per {_unit(run)}. "
            f"Next: {pair_label(run, m.pair)} (count {m.count:,})"
        )
    m = run.merges[k - 1]
    extra = f"new id {m.id}, count {m.count:,}"
    note = tie_note(run, m)
    if note:
        extra += "; " + note
    return f'Merge {k} / {n}: {pair_label(run, m.pair)} → "{token_label(_data(run, m.id))}" ({extra})'


def status_html(run, k: int, *, palette: str = "default") -> str:
    """The status line: merge k / N, the merge in words with colored tokens, and the token count.

    The merge player component writes this line in the browser at every step
    (``components/merge_player/status.js``); the browser tests check that its words are these.
    """
    n = len(run.merges)
    k = max(0, min(k, n))
    counts = run.token_counts()
    accent = accent_colors(palette)["winner"]
    parts = [PLAYER_CSS, f'<div class="bpe-pl-status" style="--bpe-pl-accent:{accent}">']
    if k == 0:
        parts.append(
            f'<b class="bpe-pl-k">Merge 0 / {n:,}</b> — nothing merged yet: '
            f"one token per {_unit(run)}"
            + (
                " (one &lt;0xNN&gt; per byte of a character outside the alphabet)."
                if is_sentencepiece_style(run)
                else "."
            )
        )
        if n:
            m = run.merges[0]
            parts.append(
                f" First to merge: {token_chip(run, m.pair[0], palette=palette)} + "
                f"{token_chip(run, m.pair[1], palette=palette)} (count {m.count:,})."
            )
    else:
        m = run.merges[k - 1]
        note = tie_note(run, m)
        parts.append(
            f'<b class="bpe-pl-k">Merge {k:,} / {n:,}</b>: {token_chip(run, m.pair[0], palette=palette)} + '
            f"{token_chip(run, m.pair[1], palette=palette)} → {token_chip(run, m.id, palette=palette, new=True)}"
            f' <span class="bpe-pl-sub">(new id {m.id}, count {m.count:,}'
            + (f"; {html.escape(note)}" if note else "")
            + ")</span>"
        )
    now, before = counts[k], counts[0]
    nbytes = run.n_bytes or 1
    parts.append(
        f'<div class="bpe-pl-sub">Training text: <b>{now:,}</b> token{"" if now == 1 else "s"}'
        + (f" (from {before:,}: −{before - now:,})" if k else "")
        + f", {nbytes / max(1, now):.2f} bytes per token · vocabulary {len(run.base) + k + len(run.special_tokens):,}"
        + (f" · stopped early: {html.escape(run.stop_reason)}" if k == n and not run.complete else "")
        + "</div>"
    )
    parts.append("</div>")
    return "".join(parts)


def merges_frame(run, k: int, *, limit: int = 300) -> pd.DataFrame:
    """The merges made up to step ``k``, newest first (at most ``limit`` rows)."""
    rows = []
    for m in reversed(run.merges[max(0, k - limit) : k]):
        rows.append(
            {
                "merge": m.rank + 1,
                "left": token_label(_data(run, m.pair[0])),
                "right": token_label(_data(run, m.pair[1])),
                "new token": token_label(_data(run, m.id)),
                "count": m.count,
                "id": m.id,
            }
        )
    return pd.DataFrame(rows, columns=["merge", "left", "right", "new token", "count", "id"])


#: merges_frame columns the player shows (the id is kept for picking a row)
MERGE_COLUMNS = ["merge", "left", "right", "new token", "count"]


def vocab_frame(run, k: int, *, limit: int = 400) -> pd.DataFrame:
    """The vocabulary at step ``k``: learned tokens newest first (at most ``limit``), then special tokens,
    then base tokens."""
    rows = []
    for m in reversed(run.merges[max(0, k - limit) : k]):
        rows.append(
            {
                "id": m.id,
                "token": token_label(_data(run, m.id)),
                "made by": f"merge {m.rank + 1}",
                "bytes": len(_data(run, m.id)),
                "count": m.count,
            }
        )
    for s, i in run.special_tokens.items():
        rows.append(
            {"id": i, "token": s, "made by": "special (reserved)", "bytes": len(s.encode("utf-8")), "count": None}
        )
    unit = _unit(run)
    for i in range(len(run.base)):
        d = _data(run, i)
        rows.append({"id": i, "token": token_label(d), "made by": f"base {unit}", "bytes": len(d), "count": None})
    if is_sentencepiece_style(run):
        for b in range(256):
            rows.append(
                {
                    "id": run.vocab_size + b,
                    "token": fallback_label(b),
                    "made by": "byte fallback",
                    "bytes": 1,
                    "count": None,
                }
            )
    return pd.DataFrame(rows, columns=["id", "token", "made by", "bytes", "count"])


def find_token(run, query: str, k: int) -> tuple[int | None, str]:
    """A token id from what a user typed: an id (``300``), a token's text with visible marks (``·the``),
    or GPT-2 visible bytes (``Ġthe``). Returns ``(id, "")`` or ``(None, why not)``.
    """
    q = (query or "").strip("\r\n")
    if not q.strip():
        return None, ""
    n_known = len(run.base) + len(run.merges)
    last = run.vocab_size - 1 + (256 if is_sentencepiece_style(run) else 0)
    if q.strip().isdigit():
        i = int(q.strip())
        if i < n_known or i in run.special_tokens.values() or (i <= last and fallback_byte(run, i) is not None):
            return i, ""
        return None, f"there is no token with id {i} (ids go from 0 to {last})"
    if q in run.special_tokens:
        return run.special_tokens[q], ""
    if is_sentencepiece_style(run) and len(q) == 6 and q.startswith("<0x") and q.endswith(">"):
        try:
            return run.vocab_size + int(q[3:5], 16), ""
        except ValueError:
            pass
    table = {" ": "·", "\t": "→", "\n": "↵"}
    plain = q
    for real, mark in table.items():
        plain = plain.replace(mark, real)
    candidates = [plain.encode("utf-8")]
    try:
        candidates.append(from_visible(q))
    except ValueError:
        pass
    by_data: dict[bytes, int] = {}
    for i in range(n_known):
        by_data.setdefault(_data(run, i), i)
    for c in candidates:
        if c in by_data:
            return by_data[c], ""
    return None, f"no token spells {q!r} (type an id, or a token's text with · for a space)"


def merge_tree_html(run, token_id: int, k: int, *, palette: str = "default", max_nodes: int = 160) -> str:
    """How a token was built: which pair made it, at which merge, with what count, down to base tokens.

    Parts not yet made at step ``k`` are drawn faded and say so.
    """
    base_len = len(run.base)
    out = [PLAYER_CSS, '<div class="bpe-pl-tree">']
    chip = token_chip(run, token_id, palette=palette)
    m = run.merge_of(token_id)
    if token_id in run.special_tokens.values():
        out.append(
            f'<div class="bpe-pl-head">{chip} (id {token_id}) is a <b>special token</b>: reserved, '
            "never built from merges and never merged with anything.</div></div>"
        )
        return "".join(out)
    fb = fallback_byte(run, token_id)
    if fb is not None:
        out.append(
            f'<div class="bpe-pl-head">{chip} (id {token_id}) is a <b>byte-fallback token</b>: byte 0x{fb:02X} '
            "of a character outside the alphabet (too rare for the character coverage, or never seen in "
            "training). Such a character is written as its UTF-8 bytes, one token each; no merge makes or "
            "uses them.</div></div>"
        )
        return "".join(out)
    if m is None:
        d = _data(run, token_id)
        what = f"byte 0x{d[0]:02X}" if run.level == "byte" else f"character U+{ord(run.token(token_id)):04X}"
        out.append(
            f'<div class="bpe-pl-head">{chip} (id {token_id}) is a base token ({what}): '
            "in the vocabulary from the start.</div></div>"
        )
        return "".join(out)
    when = "" if m.rank < k else f" <b>Not made yet</b> at merge {k}: it comes at merge {m.rank + 1}."
    out.append(
        f'<div class="bpe-pl-head">{chip} (id {token_id}) was made by <b>merge {m.rank + 1}</b> from '
        f"{token_chip(run, m.pair[0], palette=palette)} + {token_chip(run, m.pair[1], palette=palette)}, "
        f"a pair that occurred <b>{m.count:,}</b> times at that moment.{when}</div>"
    )
    budget = [max_nodes]

    def node(i: int) -> str:
        budget[0] -= 1
        mm = run.merge_of(i) if i >= base_len else None
        future = mm is not None and mm.rank >= k
        cls = "bpe-pl-node bpe-pl-future" if future else "bpe-pl-node"
        c = token_chip(run, i, palette=palette)
        if mm is None:
            meta = f"id {i} · base {_unit(run)}"
            return f'<div class="{cls}">{c}<span class="bpe-pl-meta">{meta}</span></div>'
        meta = f"id {i} · merge {mm.rank + 1} · count {mm.count:,}" + (" · not made yet" if future else "")
        if budget[0] <= 0:
            return f'<div class="{cls}">{c}<span class="bpe-pl-meta">{meta} · …</span></div>'
        kids = node(mm.pair[0]) + node(mm.pair[1])
        return (
            f'<div class="{cls}">{c}<span class="bpe-pl-meta">{meta}</span><div class="bpe-pl-kids">{kids}</div></div>'
        )

    out.append(node(token_id))
    out.append("</div>")
    return "".join(out)


def source_summary(run, *, title: str, heldout_chars: int = 0, coverage: float | None = None) -> str:
    """One line about what was trained: text, size, pattern, level, merges (escaped HTML). A SentencePiece-style
    run is named so (with its ``coverage`` and alphabet), not by its internal pattern and normalization names."""
    pat = (
        "no pre-tokenizer"
        if run.pattern is None
        else ("custom pattern" if run.pattern.custom else f"{run.pattern.label} pre-tokenizer")
    )
    bits = [f"<b>{html.escape(title)}</b>", f"{run.n_chars:,} characters, {run.n_bytes:,} bytes"]
    if heldout_chars:
        bits.append(f"last {heldout_chars:,} characters held out")
    form, metaspace = split_metaspace(run.normalize)
    if is_sentencepiece_style(run) and metaspace:
        bits.append("SentencePiece-style (spaces as ▁, byte fallback)")
        if coverage is not None:
            bits.append(f"character coverage {float(coverage):g}: {len(run.base):,} characters")
    else:
        bits += [html.escape(pat), f"{run.level} level"]
        form = run.normalize
    bits.append(f"{TIE_RULES.get(run.tie_break, (run.tie_break,))[0]} ties")
    if form:
        bits.append(html.escape(form))
    if run.special_tokens:
        bits.append(f"{len(run.special_tokens)} special token{'s' if len(run.special_tokens) != 1 else ''}")
    bits.append(f"{len(run.merges):,} merges → vocabulary {run.vocab_size:,}")
    return '<div class="bpe-pl-sub">Training on ' + " · ".join(bits) + "</div>"


#: format -> (file name offered, button label, MIME type)
EXPORTS = {
    "hf": ("tokenizer.json", "Hugging Face tokenizer.json", "application/json"),
    "tiktoken": ("tokenizer_tiktoken.zip", "tiktoken .tiktoken (zip)", "application/zip"),
    "merges": ("vocab_merges.zip", "vocab.json + merges.txt (zip)", "application/zip"),
}


def export_file(run: bpe.Run, fmt: str, k: int | None = None) -> bytes:
    """The run's tokenizer (first ``k`` merges; all by default) written in ``fmt`` by the library.

    One file comes back as its bytes; several (the folder formats, with ``bpe_lab.json``) as a zip.
    Raises the library's ``FormatError`` (a ``ValueError``) when the format cannot hold this tokenizer.
    """
    if fmt not in EXPORTS:
        raise ValueError(f"unknown export format {fmt!r}")
    files = bpe.dumps(run.tokenizer(k), fmt)
    return next(iter(files.values())) if len(files) == 1 else bpe.zip_files(files)
