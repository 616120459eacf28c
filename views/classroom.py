"""TEMPORARY: the names the merge player page still imports from here (``from views import classroom as C``).

The Classroom was split by job: the quiz engine is :mod:`views.quiz`, the lessons :mod:`views.lessons`
(model in :mod:`views.lessons.model`), presenter styling :mod:`views.presenter`. Once the player page
imports those directly, delete this module.
"""
from __future__ import annotations

from .lessons.model import CLASSROOM_CSS
from .quiz import Quiz, grade, next_merge_quiz, score_text, verdict_html

__all__ = ["CLASSROOM_CSS", "Quiz", "grade", "next_merge_quiz", "score_text", "verdict_html"]
