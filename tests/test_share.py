"""appstate/query.py: reading untrusted URL parameters never raises, and says what it did."""

from __future__ import annotations

import pytest

from appstate.query import first_value, parse_bool, parse_choice, parse_int, parse_text, query_string, share_url, shown


@pytest.mark.parametrize("raw, expected", [("1", 1), ("7", 7), (" 3 ", 3), ("+2", 2), (["9", "4"], 4)])
def test_parse_int_accepts_whole_numbers_in_range(raw, expected):
    assert parse_int(raw, 1, 7, 1, name="lesson") == (expected, None)


def test_absent_parameter_gives_the_default_without_a_note():
    assert parse_int(None, 1, 7, 5) == (5, None)
    assert parse_choice(None, ["a", "b"], "b") == ("b", None)
    assert parse_bool(None, True) == (True, None)
    assert parse_text(None, 10, "dflt") == ("dflt", None)
    assert parse_int([], 1, 7, 5) == (5, None)


@pytest.mark.parametrize("raw", ["99", "0", "-5", "8", "1000000000000"])
def test_parse_int_out_of_range_falls_back_with_a_note(raw):
    value, note = parse_int(raw, 1, 7, 1, name="lesson")
    assert value == 1
    assert note.startswith(f"The link's lesson={raw}") and "1–7" in note and "showing lesson 1" in note


@pytest.mark.parametrize("raw", ["abc", "", "1.5", "3e2", "٣", "0x10", "1 2", "<script>", "NaN"])
def test_parse_int_not_a_number_falls_back_with_a_note(raw):
    value, note = parse_int(raw, 1, 7, 2, name="step")
    assert value == 2
    assert "is not a whole number" in note and "showing step 2" in note


def test_huge_numbers_are_out_of_range_not_errors():
    value, note = parse_int("9" * 5000, 1, 7, 1, name="step")
    assert value == 1 and "outside 1–7" in note and len(note) < 120


def test_notes_quote_bad_values_short_and_on_one_line():
    _, note = parse_int("x" * 5000 + "\n<b>", 1, 3, 1, name="step")
    assert len(note) < 120 and "\n" not in note and "…" in note
    assert shown("a\nb") == "'a b'"


def test_parse_choice():
    assert parse_choice("char", ["byte", "char"], "byte") == ("char", None)
    assert parse_choice("CHAR", ["byte", "char"], "byte") == ("char", None)
    assert parse_choice("CHAR", ["byte", "char"], "byte", case_sensitive=True)[0] == "byte"
    value, note = parse_choice("bits", ["byte", "char"], "byte", name="level")
    assert value == "byte" and "level='bits'" in note and "byte, char" in note
    # a mapping from URL spellings to values
    assert parse_choice("gpt4", {"gpt4": "GPT-4", "none": None}, None) == ("GPT-4", None)
    value, note = parse_choice("zzz", {"gpt4": "GPT-4", "none": None}, None, name="pattern")
    assert value is None and "using none" in note


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("1", True),
        ("true", True),
        ("YES", True),
        ("on", True),
        ("0", False),
        ("False", False),
        ("no", False),
        ("off", False),
    ],
)
def test_parse_bool(raw, expected):
    assert parse_bool(raw, not expected) == (expected, None)


def test_parse_bool_bad_value():
    value, note = parse_bool("2", False, name="presenter")
    assert value is False and "presenter='2'" in note


def test_parse_text_caps_length():
    assert parse_text("héllo", 5) == ("héllo", None)
    value, note = parse_text("x" * 6, 5, "d", name="text")
    assert value == "d" and "6 characters" in note


def test_first_value():
    assert first_value(["a", "b"]) == "b" and first_value("a") == "a" and first_value(None) is None
    assert first_value(3) == "3"


def test_query_string_and_share_url_round_trip():
    from urllib.parse import parse_qs, urlsplit

    params = {"lesson": 2, "step": 3, "presenter": True, "text": "a b&c=d ü", "off": None}
    url = share_url("http://localhost:8501/classroom?old=1#frag", params)
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path, parts.fragment) == ("http", "localhost:8501", "/classroom", "")
    assert parse_qs(parts.query) == {"lesson": ["2"], "step": ["3"], "presenter": ["1"], "text": ["a b&c=d ü"]}
    assert query_string({"a": False}) == "a=0"
    assert share_url(None, {"lesson": 1}) == "?lesson=1" and share_url("", {"lesson": 1}) == "?lesson=1"
