"""bpe/excerpt.py: where long texts are cut (the start drawn, the end held out), worked by hand."""

from __future__ import annotations

import pytest

from bpe.excerpt import break_before, head, split_heldout


@pytest.mark.parametrize(
    "text, pos, lo, cut",
    [
        ("ab cd\nef gh", 10, 0, 6),  # the line break wins over the later space (index 8)
        ("ab cd ef gh", 10, 0, 9),  # no line break: after the last space before 10
        ("ab cd ef gh", 10, 9, 10),  # nothing in [9, 10): cut at pos itself
        ("abcdefgh", 5, 0, 5),  # no break at all
        ("ab\n", 3, 0, 3),  # a break right before pos: cut after it
    ],
)
def test_break_before(text, pos, lo, cut):
    assert break_before(text, pos, lo) == cut


def test_head_cuts_in_the_second_half_only():
    assert head("one two three", 8) == ("one two ", True)  # space at 7 >= 4: cut after it
    assert head("a bcdefghij", 8) == ("a bcdefg", True)  # space at 1 < 4: cut at 8
    # the line break at 4 is before the second half (6..12): the last space in it (9) decides
    assert head("line\nrest of it", 12) == ("line\nrest ", True)


def test_split_heldout_by_hand():
    text = "word\n" * 500  # 2,500 characters: 10% is 250, the cut lands on a line start
    train, held = split_heldout(text)
    assert (len(train), len(held)) == (2250, 250) and train + held == text
    assert split_heldout("x" * 1999) == ("x" * 1999, "")  # shorter than 2,000 characters: not split
    spaced = "ab " * 1000  # 3,000 characters; cut at 2,700 moves back to after a space
    train, held = split_heldout(spaced)
    assert train.endswith(" ") and len(held) == 300 and train + held == spaced
    # 15% of a 100-character text with no break near the cut: cut exactly at 85
    assert split_heldout("x" * 100, 0.15, min_chars=0) == ("x" * 85, "x" * 15)
