"""The Classroom's lessons: short lessons a teacher clicks through, one module per lesson.

Each lesson module has a ``TITLE`` and a ``build() -> Lesson`` that trains what it shows with the library
(every number a lesson shows comes from ``bpe`` at run time; the tests check them against values worked
by hand). :mod:`views.lessons.model` is the lesson model, :mod:`views.lessons.blocks` the drawing pieces
they share. To add a lesson, write a module like the others and list it in :data:`LESSON_MODULES`.

>>> lesson_count(), LESSON_TITLES[0]
(8, 'Merging by hand: aaabdaaabac')
>>> lesson(1).steps[0].draw("default").facts["tokens"]
11
"""

from __future__ import annotations

from functools import lru_cache

from . import by_hand, byte_level, compression, merge_order, pretokenize, special_tokens, two_families, word_counts
from .model import Lesson

__all__ = ["LESSON_MODULES", "LESSON_TITLES", "lesson", "lesson_count"]

#: The lessons in teaching order (lesson 1 first).
LESSON_MODULES = (by_hand, compression, word_counts, pretokenize, merge_order, byte_level, special_tokens, two_families)
#: Lesson titles, lesson 1 first (cheap: nothing is trained to list them).
LESSON_TITLES: tuple[str, ...] = tuple(m.TITLE for m in LESSON_MODULES)


def lesson_count() -> int:
    """How many lessons there are."""
    return len(LESSON_MODULES)


@lru_cache(maxsize=None)
def lesson(number: int) -> Lesson:
    """Lesson ``number`` (1-based), built once per process (lessons are immutable; drawing is per palette).

    >>> lesson(9)
    Traceback (most recent call last):
    ...
    ValueError: lesson must be 1..8, not 9
    """
    if not 1 <= number <= len(LESSON_MODULES):
        raise ValueError(f"lesson must be 1..{len(LESSON_MODULES)}, not {number!r}")
    built = LESSON_MODULES[number - 1].build()
    if built.title != LESSON_TITLES[number - 1] or built.number != number:
        raise AssertionError(f"{LESSON_MODULES[number - 1].__name__} builds lesson {built.number} {built.title!r}")
    return built
