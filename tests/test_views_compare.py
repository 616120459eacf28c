"""views.compare: what a user gave (file names, tokens) is escaped; the verdict's sentences; the chart.

Values worked by hand on aaabdaaabac (aa 4; then (a, b) and (aa, a) tie at 2).
"""

from __future__ import annotations

import bpe
from bpe.compare_inputs import MergeList
from views.compare import aligned_html, catalogue_html, curves_figure, side_title_html, verdict_html

TEXT = "aaabdaaabac"


def test_tokens_and_names_from_a_user_are_escaped():
    a = bpe.train(TEXT, 258, pattern=None)
    hostile = MergeList(((b"a", b"a"), (b"<b>", b"<img src=x onerror=alert(1)>")), "<script>x</script>.txt")
    c = bpe.compare(a, hostile, text=TEXT)
    page = verdict_html(c) + aligned_html(c) + side_title_html("B", c.b.name)
    assert (
        "<script>" not in page
        and "<img" not in page
        and "<b>" not in page.replace("<b>A merges", "").replace("<b>B merges", "")
    )
    assert "&lt;script&gt;" in page and "&lt;img·src=x" in page  # token_label shows a space as ·
    assert c.cause == "different_text" and 'data-cause="different_text"' in page


def test_the_verdict_names_the_tie_and_the_rules():
    a = bpe.train(TEXT, 259, pattern=None, tie_break="lexical")
    b = bpe.train(TEXT, 259, pattern=None, tie_break="max_bytes")
    body = verdict_html(bpe.compare(a, b, text=TEXT))
    assert "They agree on the first merge; merge 2 is where they part." in body
    assert "A tie: both occur 2 times at this point" in body
    assert "greatest bytes (the course rule)" in body.split("B&#x27;s pair is what these pick")[1]
    assert "Most likely: Another tie rule" in body and "Tiny example" in body


def test_identical_and_not_the_most_frequent():
    a = bpe.train(TEXT, 259, pattern=None)
    assert "Identical for all 3 merges." in verdict_html(bpe.compare(a, a, text=TEXT))
    c = bpe.compare(a, [(b"a", b"a"), (b"b", b"d")], text=TEXT)
    assert "B&#x27;s pair was not the most frequent at all (1 against 2)" in verdict_html(c)
    rows = aligned_html(c)
    assert rows.count('data-status="same"') == 1 and rows.count('data-status="different"') == 1
    assert rows.count('data-status="only A"') == 1


def test_curves_and_catalogue():
    fig = curves_figure([11, 9, 7], [11, 9], 11, k=1)
    assert [list(t.y) for t in fig.data] == [[1.0, 11 / 9, 11 / 7], [1.0, 11 / 9]]
    page = catalogue_html()
    for cause in bpe.compare_causes.CAUSES[1:]:
        assert f'data-cause="{cause}"' in page


def test_the_verdict_says_in_words_when_they_part_at_once_or_after_one_merge():
    """Counted by hand: "aaaa aaaa" merges a+a (6 times) then aa+aa (2); "bbbb bbbb" starts with b+b: nothing in
    common. "aaaa aaaa cdcdcd" merges a+a (6) then c+d (3 against aa+aa's 2): one merge in common (no "1 merges")."""
    a = bpe.train("aaaa aaaa", 258, pattern=None)
    b = bpe.train("bbbb bbbb", 258, pattern=None)
    assert "They part at the very first merge.</div>" in verdict_html(bpe.compare(a, b))
    assert "no merge in common; merge 1 differs:" in bpe.compare(a, b).summary()
    c = bpe.train("aaaa aaaa cdcdcd", 258, pattern=None)
    assert [m.token for m in c.merges] == [b"aa", b"cd"]
    assert "They agree on the first merge; merge 2 is where they part.</div>" in verdict_html(bpe.compare(a, c))
    assert "agree on the first merge; merge 2 differs:" in bpe.compare(a, c).summary()
