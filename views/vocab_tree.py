"""The player's token panel for a real vocabulary: find a token (:func:`find_token`), the step that makes it
(:func:`step_of_token`) and how it is built from pairs down to bytes (:func:`build_tree_html`).
Re-exported by :mod:`views.vocab_player`, beside the other panels under the player."""

from __future__ import annotations

import html

from bpe.vocab_replay import VocabReplay, recover_pair

from .player_css import PLAYER_CSS
from .spans import fallback_html, piece_html
from .theme import color_for

__all__ = ["find_token", "step_of_token", "build_tree_html"]


def _bytes(tok, i: int) -> bytes:
    return tok.token_bytes(i)


def _chip(tok, i: int, palette: str, new: bool = False) -> str:
    cls = "bpe-pl-chip bpe-pl-new" if new else "bpe-pl-chip"
    byte = tok.fallback_byte(i)
    inner = fallback_html(byte) if byte is not None else piece_html(_bytes(tok, i)).rstrip(chr(10))
    return f'<span class="{cls}" style="background:{color_for(i, palette)}" title="id {int(i)}">{inner}</span>'


def find_token(rep: VocabReplay, query: str) -> tuple[int | None, str]:
    """The id a typed query names in the replayed vocabulary: an id (``15339``), or one token's text with
    visible marks (``·the``: · a space, ↵ a newline, → a tab). Returns ``(id, "")``, ``(None, why not)``, or
    ``(None, "")`` for an empty query.

    >>> import bpe
    >>> from bpe.vocab_replay import replay
    >>> rep = replay(bpe.load_pretrained("cl100k_base"), "hello")
    >>> find_token(rep, "15339"), find_token(rep, "·world"), find_token(rep, "")
    ((15339, ''), (1917, ''), (None, ''))
    >>> find_token(rep, "hello world")[1]
    'That text is 2 tokens in this vocabulary, not one: type one token.'
    """
    tok = rep.tokenizer
    q = (query or "").strip("\n")
    if not q:
        return None, ""
    if tok.level == "char" and not (q.isascii() and q.isdigit()):
        # a char-level vocabulary's token is its text: ▁the, <0xE2>
        found = next((i for i, t in tok.vocab.items() if t == q and not tok.is_special(i)), None)
        if found is not None:
            return found, ""
    if q.isascii() and q.isdigit():
        i = int(q)
        try:
            tok.token_bytes(i)
            return i, ""
        except (KeyError, ValueError, IndexError, OverflowError):
            return None, f"There is no token with id {q[:12]} in this vocabulary."
    ids = tok.encode_ordinary(q.replace("·", " ").replace("↵", "\n").replace("→", "\t"))
    if len(ids) == 1:
        return ids[0], ""
    return None, f"That text is {len(ids):,} tokens in this vocabulary, not one: type one token."


def step_of_token(rep: VocabReplay, token_id: int) -> int | None:
    """The step that makes ``token_id`` in this replay, or None."""
    return next((s.index for s in rep.steps if s.new_id == token_id), None)


def build_tree_html(
    rep: VocabReplay, token_id: int, k: int, *, vocab: str, palette: str = "default", max_nodes: int = 120
) -> str:
    """How ``vocab`` builds a token: its pair (recovered from the ranks), down to bytes, with each part's rank
    and the step of this replay that makes it (faded when that step is after ``k``)."""
    tok = rep.tokenizer
    out = [PLAYER_CSS, '<div class="bpe-pl-tree">']
    chip = _chip(tok, token_id, palette)
    if tok.is_special(token_id):
        out.append(
            f'<div class="bpe-pl-head">{chip} (id {token_id}) is a <b>special token</b>: matched as a '
            "whole, never built from merges.</div></div>"
        )
        return "".join(out)
    pair = recover_pair(tok, token_id)
    byte = tok.fallback_byte(token_id)
    if byte is not None:
        out.append(
            f'<div class="bpe-pl-head">{chip} (id {token_id}) is a <b>byte-fallback token</b>: byte '
            f"0x{byte:02X} of a character {html.escape(vocab)}’s vocabulary lacks, written as its UTF-8 bytes, "
            "one token each. No merge makes it.</div></div>"
        )
        return "".join(out)
    if pair is None and tok.level == "char":
        out.append(
            f'<div class="bpe-pl-head">{chip} (id {token_id}) is a base character of '
            f"{html.escape(vocab)}: in the vocabulary from the start.</div></div>"
        )
        return "".join(out)
    if pair is None and len(_bytes(tok, token_id)) > 1:
        out.append(
            f'<div class="bpe-pl-head">{chip} (id {token_id}) is no merge of two smaller tokens of '
            f"{html.escape(vocab)}: merging pairs never reaches it, tiktoken only finds it by looking up a "
            "whole pre-tokenizer chunk that is exactly this token.</div></div>"
        )
        return "".join(out)
    if pair is None:
        out.append(
            f'<div class="bpe-pl-head">{chip} (id {token_id}) is a single byte '
            f"(0x{_bytes(tok, token_id)[0]:02X}): in the vocabulary from the start.</div></div>"
        )
        return "".join(out)
    at = {s.new_id: s.index for s in rep.steps}
    step = at.get(token_id)
    when = (
        f"step {step:,} of this replay makes it" + (f" (<b>not yet</b> at step {k:,})" if step > k else "")
        if step is not None
        else "this text never makes it"
    )
    out.append(
        f'<div class="bpe-pl-head">{chip} (id {token_id}) is {html.escape(vocab)}’s merge '
        f"{_chip(tok, pair[0], palette)} + {_chip(tok, pair[1], palette)}; {when}.</div>"
    )
    budget = [max_nodes]

    def node(i: int) -> str:
        budget[0] -= 1
        c = _chip(tok, i, palette)
        p = recover_pair(tok, i)
        s = at.get(i)
        future = s is not None and s > k
        cls = "bpe-pl-node bpe-pl-future" if future else "bpe-pl-node"
        if p is None:
            what = (
                "byte fallback"
                if tok.fallback_byte(i) is not None
                else "character"
                if tok.level == "char"
                else "byte"
                if len(_bytes(tok, i)) == 1
                else "no pair makes it: a whole-chunk lookup"
            )
            return f'<div class="{cls}">{c}<span class="bpe-pl-meta">id {i} · {what}</span></div>'
        meta = f"id {i} · " + (f"step {s:,}" if s is not None else "not made on this text")
        if budget[0] <= 0:
            return f'<div class="{cls}">{c}<span class="bpe-pl-meta">{meta} · …</span></div>'
        return (
            f'<div class="{cls}">{c}<span class="bpe-pl-meta">{meta}</span>'
            f'<div class="bpe-pl-kids">{node(p[0])}{node(p[1])}</div></div>'
        )

    out.append(node(token_id))
    out.append("</div>")
    return "".join(out)
