"""The "predict the next merge" quiz in a real browser (issue 25, item 1): a question opens with nothing
selected, so "Check" never scores a pick made for another question, on the merge player and in the Classroom
(they share the score).

The bug: the radio kept the previous question's pick on screen (Streamlit matches a radio's value by its
label) and "Check and reveal" scored it. Expected verdicts come from the issue's repro (the English sample:
(·, a) 87 times beats (·, t) 81 times at merge 1, (·, t) wins merge 2) and from the hand-worked
``aaabdaaabac`` example (merge 1 is (a, a), 4 times; then (a, b) ties (aa, a) at 2).

Screenshots: tests/artifacts/quiz-*.png.
"""

from __future__ import annotations

from .conftest import shot, wait_idle

MP = ".st-key-merge_player [data-testid=stBidiComponentIsolated] .mp"
BOX = ".st-key-player_quiz_box"
PICK = ".st-key-player_quiz_pick"


def selected(page, where: str) -> list[str]:
    """The labels of the radio options shown selected under ``where``, in the live radio: not in the copy of the
    last run's elements Streamlit keeps (``data-stale``) while a run redraws them."""
    return page.locator(f"{where} [data-testid=stRadioOption]").evaluate_all(
        "els => els.filter(e => !e.closest('[data-stale=true]'))"
        ".filter(e => e.closest('[data-selected=true]') || e.querySelector('input:checked'))"
        ".map(e => e.innerText.trim())"
    )


#: ``sel`` is drawn and neither it nor anything in or around it is Streamlit's stale copy of the last run's
LIVE = (
    "(sel) => !!document.querySelector(sel) && !document.querySelector("
    "`[data-stale=true] ${sel}, ${sel}[data-stale=true], ${sel} [data-stale=true]`)"
)


def open_quiz(page, server_url: str, query: str):
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{server_url}/?{query}")
    wait_idle(page, 60_000)
    page.wait_for_selector(f'{MP}[data-ready="1"]', timeout=30_000)
    page.locator(".st-key-player_quiz label").click()
    page.wait_for_selector(PICK)
    wait_idle(page)


def question(page, merge: int) -> None:
    """Wait until the quiz asks about merge ``merge`` and every run the page asked for has ended."""
    page.wait_for_function(ANSWERED, arg=[PICK, f"(merge {merge})?"])
    wait_idle(page)


def choose(page, label: str) -> None:
    """Pick ``label`` in the live radio and wait until it shows picked. The flake's cause: a click (or a read)
    could land on the copy of the radio Streamlit keeps from the last run while a run (the player's report
    after a check or a step) redraws it; that copy goes when the run ends, and the pick with it."""
    page.wait_for_function(LIVE, arg=PICK)
    page.locator(f"{PICK} [data-testid=stRadioOption]").filter(has_text=label).first.click()
    page.wait_for_function(
        "([sel, label]) => [...document.querySelectorAll(`${sel} [data-testid=stRadioOption]`)]"
        ".some(e => !e.closest('[data-stale=true]') && e.innerText.trim() === label"
        " && (e.closest('[data-selected=true]') || e.querySelector('input:checked')))",
        arg=[PICK, label],
    )
    wait_idle(page)
    assert selected(page, PICK) == [label]


#: the quiz box shows ``shows`` and the script is idle, read in one state of the page. (Not a count of runs: a
#: quick run can start and end without ``data-test-script-state`` ever reading "running" -- Streamlit's
#: frontend sets its run state from the server's messages and React draws once for all the messages handled
#: before it draws, so both changes can fall in one drawing; a probe saw that for 2 runs in 20 of this Check
#: at load 9. A box showing the answer with the app idle is a state drawn after the run's end.)
ANSWERED = (
    "([box, shows]) => { const b = document.querySelector(box);"
    " const app = document.querySelector('[data-testid=stApp]');"
    " return !!b && b.innerText.includes(shows)"
    " && app.getAttribute('data-test-script-state') === 'notRunning'; }"
)


def check(page, shows: str) -> str:
    """Click "Check and reveal" and return the quiz box's text once it shows ``shows`` -- what every answer
    to this check shows, right or wrong: the next question (a pick was graded and the merge revealed) or
    "Pick a pair first" (nothing picked for this question; the message is this question's, so it was not on
    the screen before the click)."""
    assert shows not in page.inner_text(BOX)
    # one button, the live one: while a run redraws the box, Streamlit keeps the last run's copy of an element
    # (data-stale) beside the new one, and page.click takes the first match -- a click on the stale copy
    # started no run (seen once in four runs after the live room's tests)
    page.wait_for_function(
        "() => document.querySelectorAll('.st-key-player_quiz_check button').length === 1"
        " && !document.querySelector('[data-stale=true] .st-key-player_quiz_check,"
        " .st-key-player_quiz_check[data-stale=true]')"
    )
    page.click(".st-key-player_quiz_check button")
    page.wait_for_function(ANSWERED, arg=[BOX, shows])
    return page.inner_text(BOX)


NOTHING_PICKED = "Pick a pair first"


def test_player_quiz_next_question_opens_empty_english(page, server_url):
    """The issue's repro at 1280x900: (·, t) at merge 1 is wrong; question 2 must not score it."""
    open_quiz(page, server_url, "sample=english")
    question(page, 1)
    choose(page, "(·, t)")
    text = check(page, "(merge 2)?")
    assert "Not this time" in text and "Quiz score: 0 / 1" in text
    question(page, 2)
    assert "(·, t)" in page.inner_text(PICK)  # the runner-up of merge 1 is an option of merge 2 ...
    assert selected(page, PICK) == []  # ... and is not selected
    shot(page, "quiz-player-next-question-1280")
    text = check(page, NOTHING_PICKED)  # nothing picked: nothing scored, the player stays
    assert "Pick a pair first" in text and "Quiz score: 0 / 1" in text and "Right" not in text
    assert "(merge 2)?" in page.inner_text(PICK)
    choose(page, "(·, t)")  # picked for this question, it counts
    text = check(page, "(merge 3)?")
    assert "Right!" in text and "Quiz score: 1 / 2" in text
    question(page, 3)
    assert selected(page, PICK) == []


def test_player_quiz_next_question_opens_empty_after_a_check_or_a_step(page, server_url):
    """aaabdaaabac (no pre-tokenizer): (a, b) is wrong at merge 1 and right (a tie) at merge 2."""
    open_quiz(page, server_url, "sample=aaabdaaabac&pattern=none")
    question(page, 1)
    choose(page, "(a, b)")
    text = check(page, "(merge 2)?")
    assert "Not this time" in text and "Quiz score: 0 / 1" in text
    question(page, 2)
    assert selected(page, PICK) == []
    text = check(page, NOTHING_PICKED)
    assert "Pick a pair first" in text and "Quiz score: 0 / 1" in text
    # a pick left unchecked does not follow the player when it steps on its own
    choose(page, "(a, b)")
    page.click(f"{MP} .mp-step")
    question(page, 3)
    assert selected(page, PICK) == []
    text = check(page, NOTHING_PICKED)
    assert "Pick a pair first" in text and "Quiz score: 0 / 1" in text and "(merge 3)?" in text


def test_classroom_quiz_reset_opens_the_question_empty(page, server_url):
    """The Classroom (same score): after "Reset score" the question opens with nothing selected, and Check
    does not score the pick the browser still had."""
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{server_url}/classroom?lesson=1&step=2")
    page.wait_for_selector(".cls-head")
    wait_idle(page)
    where = ".st-key-quiz_pick_l1s2"
    page.locator(where).get_by_text("(a, b)", exact=True).click()
    wait_idle(page)
    page.locator(".st-key-quiz_check button").click()
    page.wait_for_selector(".cls-verdict")
    wait_idle(page)
    assert page.locator(".cls-score").get_attribute("data-answered") == "1"
    assert page.locator(".cls-score").get_attribute("data-right") == "0"
    page.locator(".st-key-quiz_reset button").click()
    page.wait_for_selector('.cls-score[data-answered="0"]')
    wait_idle(page)
    assert selected(page, where) == []
    page.locator(".st-key-quiz_check button").click()
    page.locator(".st-key-quiz").get_by_text("Pick a pair first").wait_for()  # the check's answer is drawn
    wait_idle(page)
    assert page.locator(".cls-score").get_attribute("data-answered") == "0"
    # the next quiz of the lesson opens empty too, though (a, b) is one of its options
    for step in (3, 4, 5):
        page.locator(".st-key-lesson_next button").click()
        page.wait_for_selector(f'.cls-head[data-step="{step}"]')
        wait_idle(page)
    assert "(a, b)" in page.inner_text(".st-key-quiz_pick_l1s5")
    assert selected(page, ".st-key-quiz_pick_l1s5") == []
