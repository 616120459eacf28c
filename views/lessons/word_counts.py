"""Lesson 3 — the word-frequency toy corpus: learned merges, known words, and a word never seen.

The classic toy corpus of words with counts, trained at character level; ``unbelievably`` then splits
into known pieces, its unseen letter staying a piece of its own.
"""

from __future__ import annotations

import bpe

from ..theme import color_for
from ..words import plural
from .blocks import chip, esc, step_div
from .model import Lesson, Step, Visual

TITLE = "Words, counts and an unseen word"

TOY_CORPUS = {
    "the": 50,
    "fox": 30,
    "foxes": 5,
    "boxes": 12,
    "wishes": 8,
    "un": 20,
    "able": 25,
    "unable": 12,
    "believe": 18,
    "believer": 6,
    "believable": 8,
    "unbelievable": 3,
}
UNSEEN_WORD = "unbelievably"


def build() -> Lesson:
    alphabet = sorted({c for w in TOY_CORPUS for c in w})
    n_merges = 16
    run = bpe.train(TOY_CORPUS, len(alphabet) + n_merges, level="char", tie_break="first")
    tok = run.tokenizer()
    known = ["the", "foxes", "unable", "believable", "unbelievable"]
    pieces = {w: tok.encode_pieces(w) for w in known + [UNSEEN_WORD]}
    unseen = pieces[UNSEEN_WORD]
    missing = [c for c in UNSEEN_WORD if c not in alphabet]
    m0 = run.merges[0]

    def piece_chips(ps, p):
        ids = {t: i for i, t in run.vocab.items()}
        return "".join(
            chip(
                x,
                bg=color_for(ids[x], p) if x in ids and len(x) > 1 else "#fff",
                cls="" if x in ids else "cls-alert",
                title="" if x in ids else "not in the alphabet",
            )
            for x in ps
        )

    def d_corpus(p):
        chips = "".join(f'{chip(w)}<span class="cls-note"> ×{n}</span> ' for w, n in TOY_CORPUS.items())
        return Visual(
            step_div(
                f'<div class="cls-row">{chips}</div>'
                + f'<div class="cls-note">{len(TOY_CORPUS)} words, {run.tokens_before} characters '
                f"counted with their frequencies; alphabet of {len(alphabet)} letters: "
                f"{esc(' '.join(alphabet))}</div>"
            ),
            facts={"words": len(TOY_CORPUS), "characters": run.tokens_before, "alphabet": alphabet},
        )

    def d_merges(p):
        rows = [
            f"<tr><td>{m.rank + 1}</td><td>{chip(run.token(m.pair[0]))} + {chip(run.token(m.pair[1]))}</td>"
            f"<td>{chip(m.token, bg=color_for(m.id, p))}</td><td>{m.count}</td></tr>"
            for m in run.merges
        ]
        half = (len(rows) + 1) // 2

        def table(part: list[str]) -> str:
            return (
                '<table class="cls-table"><tr><th>#</th><th>pair</th><th>new</th><th>count</th></tr>'
                + "".join(part)
                + "</table>"
            )

        return Visual(
            step_div(f'<div class="cls-cols"><div>{table(rows[:half])}</div><div>{table(rows[half:])}</div></div>'),
            facts={"merges": [m.token for m in run.merges]},
        )

    def d_known(p):
        rows = "".join(
            f"<tr><td>{chip(w)}</td><td>{piece_chips(pieces[w], p)}</td><td>{len(pieces[w])}</td></tr>" for w in known
        )
        return Visual(
            step_div(
                '<table class="cls-table"><tr><th>word</th><th>pieces</th><th>tokens</th></tr>' + rows + "</table>"
            ),
            facts={"pieces": {w: pieces[w] for w in known}},
        )

    def d_unseen(p):
        body = (
            f'<div class="cls-row"><span class="cls-rowlabel">unseen word</span>{chip(UNSEEN_WORD)}</div>'
            f'<div class="cls-row"><span class="cls-rowlabel">tokens</span>{piece_chips(unseen, p)}'
            f'<span class="cls-n"><b>{len(unseen)}</b> {plural(len(unseen), "token")}</span></div>'
        )
        if missing:
            body += (
                f'<div class="cls-note">{esc(", ".join(repr(c) for c in missing))} never occurs in the corpus, so '
                f"a character-level vocabulary learned from it has no such token: it needs an 'unknown' token "
                f"there (dashed). A byte-level tokenizer has all 256 bytes, so nothing is ever unknown.</div>"
            )
        return Visual(step_div(body), facts={"pieces": unseen, "missing": missing})

    steps = (
        Step(
            "A corpus of words with counts",
            "The classic toy: each word with how often it occurs. BPE starts from single letters and counts "
            "each pair as often as its word occurs.",
            d_corpus,
        ),
        Step(
            f"{n_merges} merges, learned in order",
            f"First `{run.token(m0.pair[0])}` + `{run.token(m0.pair[1])}` ({m0.count}×: `the` and `wishes`). "
            "Pieces like `un`, `able` and `believ` appear because many words share them. (Ties: first seen wins.)",
            d_merges,
        ),
        Step(
            "Known words become few tokens",
            "To tokenize, start from letters and apply the merges in the order they were learned.",
            d_known,
        ),
        Step(
            f"A word never seen: {UNSEEN_WORD}",
            f"`{UNSEEN_WORD}` is not in the corpus, yet it splits into known pieces: "
            f"{' + '.join(f'`{x}`' for x in unseen)}. No 'unknown word' token is needed"
            + (" — only a character the corpus never had is a problem." if missing else "."),
            d_unseen,
        ),
    )
    return Lesson(3, TITLE, "The word-frequency toy corpus: learned merges, then a word it never saw.", steps)
