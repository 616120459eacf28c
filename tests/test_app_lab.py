"""The Pre-tokenizer lab through Streamlit's AppTest (no browser).

Expected chunk counts come from the `regex` module running tiktoken's own pattern strings, or are worked
by hand from each regex as its tokenizer ships it (the upstream file named in its ``source`` in
bpe/pattern_registry.py).
"""

from __future__ import annotations

import re
import time

import regex
from helpers import PRESETS, html_bodies, open_app, own_script, page_messages
from streamlit.testing.v1 import AppTest
from tiktoken_reference import tiktoken_pattern

PAGE = "app_pages/pretokenizer_lab.py"


def open_page() -> AppTest:
    """The lab, in a tab that opened the Merge player first."""
    return open_app(PAGE, first_run=True)


def preset_box(at):
    """The preset box: appstate.widgets.preset_picker with ``renew`` draws a new widget (key ``lab_preset_box<n>``)
    each time the server sets it, in the container ``lab_preset``."""
    found = [s for s in at.selectbox if s.key.startswith("lab_preset_box")]
    assert len(found) == 1, [s.key for s in at.selectbox]
    return found[0]


def table(at) -> dict[str, dict]:
    return {r["pattern"]: r for r in at.dataframe[0].value.to_dict("records")}


def views(at) -> list[str]:
    """The chunk views (HTML bodies after the style block)."""
    return [b.split("</style>")[-1] for b in html_bodies(at) if "bpe-tokens lab-view" in b]


def test_default_lab_on_the_contractions_preset():
    at = open_page()
    text = PRESETS["contractions"]["text"]
    assert at.text_area(key="lab_text").value == text
    rows = table(at)
    assert list(rows) == ["GPT-2", "GPT-4 (cl100k)", "GPT-4o (o200k)", "Llama 3", "Qwen2 / Qwen3", "DeepSeek-V3"]
    assert rows["GPT-4 (cl100k)"]["chunks"] == len(regex.findall(tiktoken_pattern("cl100k_base"), text))
    assert rows["GPT-4o (o200k)"]["chunks"] == len(regex.findall(tiktoken_pattern("o200k_base"), text))
    assert rows["GPT-2"]["chunks"] == len(regex.findall(tiktoken_pattern("r50k_base"), text))
    assert len(views(at)) == 6
    # GPT-4 is the reference: it has no cuts of its own to mark, the others differ from it
    assert rows["GPT-4 (cl100k)"]["cuts not in reference"] == 0
    assert rows["GPT-2"]["cuts not in reference"] > 0 and rows["GPT-4o (o200k)"]["reference cuts missing"] > 0
    # Llama 3 and GPT-4 split this text identically (patterns.md: minbpe's GPT-4 = Llama 3, and no
    # trailing whitespace with a newline here)
    assert rows["Llama 3"]["cuts not in reference"] == rows["Llama 3"]["reference cuts missing"] == 0


def test_choosing_patterns():
    at = open_page()
    at.multiselect(key="lab_patterns").set_value(["gpt2", "kimi_k2", "tekken"]).run()
    assert list(table(at)) == ["GPT-2", "Kimi K2", "Mistral tekken"]
    assert len(views(at)) == 3
    at.multiselect(key="lab_patterns").set_value([]).run()
    assert any("Choose at least one pattern" in i.value for i in at.info)


def test_all_registry_patterns_at_once():
    at = open_page()
    names = ["gpt2", "gpt4", "gpt4o", "llama3", "qwen2", "qwen35", "deepseek_v3", "tekken", "kimi_k2", "gpt4_minbpe"]
    at.multiselect(key="lab_patterns").set_value(names).run()
    preset_box(at).set_value("whitespace").run()
    assert len(views(at)) == 10 and len(table(at)) == 10
    text = PRESETS["whitespace"]["text"]
    # patterns.md: tiktoken's cl100k and minbpe's GPT-4 pattern differ only on whitespace with a newline at
    # the very end of the text; this preset ends in "\n  "
    cl = regex.findall(tiktoken_pattern("cl100k_base"), text)
    rows = table(at)
    assert rows["GPT-4 (cl100k)"]["chunks"] == len(cl)
    assert rows["GPT-4 (minbpe variant)"]["chunks"] != rows["GPT-4 (cl100k)"]["chunks"]


def test_digit_runs_differ_by_pattern():
    at = open_page()
    preset_box(at).set_value("digits").run()
    at.multiselect(key="lab_patterns").set_value(["gpt2", "gpt4", "qwen2"]).run()
    at.text_area(key="lab_text").input("1234567").run()
    # GPT-2 keeps the whole run, GPT-4 cuts in threes (123 456 7), Qwen one digit at a time
    assert [r["chunks"] for r in table(at).values()] == [1, 3, 7]


def test_custom_pattern_that_does_not_compile():
    at = open_page()
    at.text_input(key="lab_custom").input("(").run()
    assert not at.exception
    errors = page_messages(at, "error")
    # said twice: under the box and in the custom column
    assert sum("does not compile: missing ) at position 1" in e for e in errors) == 2
    assert errors[0].startswith("Custom pattern: The pattern does not compile")
    assert table(at)["Custom"]["chunks"] is None or str(table(at)["Custom"]["chunks"]) == "<NA>"
    at.text_input(key="lab_custom").input(r"\p{Nope}").run()
    assert any("unknown property" in e for e in page_messages(at, "error"))


def test_catastrophic_custom_pattern_stops_with_a_message():
    at = open_page()
    t0 = time.perf_counter()
    preset_box(at).set_value("backtracking").run()
    elapsed = time.perf_counter() - t0
    assert at.text_input(key="lab_custom").value == "(a+)+$"
    assert any("took longer than" in e and "backtracking" in e for e in page_messages(at, "error"))
    assert elapsed < 20  # a hang detector: 1.5 s measured (1 s of regex time plus the page), over 5x
    assert table(at)["GPT-4 (cl100k)"]["chunks"] >= 1


def test_custom_pattern_matching_only_empty_strings():
    at = open_page()
    at.text_input(key="lab_custom").input("(?=a)").run()
    assert not at.exception
    assert any("No branch matched any text" in w.value for w in at.warning)
    text = PRESETS["contractions"]["text"]
    assert table(at)["Custom"]["unmatched chars"] == len(text)


def test_custom_pattern_with_unmatched_text():
    at = open_page()
    at.text_area(key="lab_text").input("abc 123 def").run()
    at.text_input(key="lab_custom").input("[a-z]+").run()
    # "abc" and "def" match; " 123 " (5 characters) between them does not
    assert any("5 characters matched by no branch" in w.value for w in at.warning)
    custom_view = views(at)[0]  # the custom pattern comes first
    assert custom_view.count("lab-unmatched") == 1


def test_marks_and_numbers_toggles():
    at = open_page()
    assert any("lab-extra" in v for v in views(at)) and any('class="lab-miss"' in v for v in views(at))
    at.toggle(key="lab_marks").set_value(False).run()
    assert not any("lab-extra" in v or 'class="lab-miss"' in v for v in views(at))
    assert not any('class="lab-bn"' in v for v in views(at))
    at.toggle(key="lab_numbers").set_value(True).run()
    assert all('class="lab-bn"' in v for v in views(at))


def test_changing_the_reference():
    at = open_page()
    at.selectbox(key="lab_ref").set_value("gpt2").run()
    rows = table(at)
    assert rows["GPT-2"]["cuts not in reference"] == 0 and rows["GPT-2"]["reference cuts missing"] == 0
    assert rows["GPT-4 (cl100k)"]["reference cuts missing"] > 0


def test_multilingual_deepseek_isolates_cjk():
    at = open_page()
    preset_box(at).set_value("multilingual").run()
    at.multiselect(key="lab_patterns").set_value(["deepseek_v3"]).run()
    view = views(at)[0]
    # stage 2 (flattened branch 1) cut out the CJK runs; the Chinese line's run 语言就像一条河流 is one chunk
    assert re.search(r'data-branch="1"[^>]*>语言就像一条河流</span>', view)


def test_text_is_escaped():
    at = open_page()
    at.text_area(key="lab_text").input("<b>bold</b><script>alert(1)</script>").run()
    for h in at.get("html"):
        assert "<b>bold" not in h.proto.body and (own_script(h.proto.body) or "<script" not in h.proto.body)
    assert all("&lt;b&gt;" in v or "&lt;" in v for v in views(at))


def test_preset_box_says_own_text_once_the_text_is_replaced():
    """Issue 25, item 9: a replaced text is no preset's; the box says so, and picking a preset names it again."""
    at = open_page()
    assert preset_box(at).value == "contractions"
    at.text_area(key="lab_text").input("A text of my own.").run()
    box = preset_box(at)
    assert box.value == "own" and "Your own text" in box.options and not at.exception
    assert PRESETS["contractions"].get("description", "\0") not in " ".join(c.value for c in at.caption)
    preset_box(at).set_value("multilingual").run()
    assert at.text_area(key="lab_text").value == PRESETS["multilingual"]["text"]
    assert "Your own text" not in preset_box(at).options
    at.text_area(key="lab_text").input(PRESETS["digits"]["text"]).run()  # a preset's text, pasted
    assert preset_box(at).value == "digits"


def test_one_chunk_and_one_character_are_counted_in_the_singular():
    """The review of 29 Nov: "1 chunks", "1 character matched by no branch ... drop them"."""
    at = open_page()
    at.multiselect(key="lab_patterns").set_value(["gpt4"]).run()
    at.text_area(key="lab_text").input("hello").run()
    captions = " ".join(c.value for c in at.caption)
    assert "1 chunk" in captions and "1 chunks" not in captions, captions
    at.text_input(key="lab_custom").input("[a-z]+").run()
    at.text_area(key="lab_text").input("hello!").run()
    warned = " ".join(page_messages(at, "warning"))
    assert "1 character matched by no branch" in warned and "drop it." in warned, warned
