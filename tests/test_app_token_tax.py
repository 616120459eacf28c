"""The Token tax page through Streamlit's AppTest (no browser).

Expected token counts come from each model's own tokenizer (tiktoken for GPT-4/GPT-4o, the references of
``testkit.references`` for the open vocabularies), read on ``sample_texts/udhr.json`` with ``json`` here, never
from ``bpe.token_tax``.
"""

from __future__ import annotations

import json
import math

from helpers import ROOT, html_bodies, open_app, page_messages
from tiktoken_reference import tiktoken_encoding

import appstate.keys
import appstate.runs
import bpe
from bpe import pretrained

PAGE = "app_pages/token_tax.py"
UDHR = json.loads((ROOT / "sample_texts" / "udhr.json").read_text(encoding="utf-8"))
TEXTS = {item["code"]: item for item in UDHR["languages"]}
FORGET = (appstate.keys.PLAYER_RUN, appstate.keys.PLAYER_TEXT, appstate.keys.PLAYER_STEP)


def open_page(**state):
    return open_app(PAGE, state=state, first_run=True, forget=FORGET)


def figure(at) -> dict:
    return json.loads(at.get("plotly_chart")[0].proto.spec)


def heatmap(at) -> dict:
    data = figure(at)["data"][0]
    assert data["type"] == "heatmap"
    return data


def row_of(data: dict, code: str) -> int:
    item = TEXTS[code]
    label = item["name"] if item.get("native") in (None, "", item["name"]) else f"{item['name']} · {item['native']}"
    return data["y"].index(label)


def test_every_installed_vocabulary_and_the_trained_one_are_columns():
    at = open_page()
    data = heatmap(at)
    expected = [spec.label.split(" (")[0] for spec, ok in bpe.pretrained_status() if ok and not spec.same_ranks_as]
    assert data["x"][:-1] == expected and data["x"][-1].startswith("Trained (")
    assert len(data["y"]) == len(UDHR["languages"]) == 28
    # nothing trained on the player: the first sample's tokenizer, all its merges
    assert data["x"][-1] == "Trained (256 merges)"


def test_premium_and_tokens_equal_tiktoken_counts():
    at = open_page()
    ref = tiktoken_encoding("cl100k_base")
    counts = {code: len(ref.encode_ordinary(item["text"])) for code, item in TEXTS.items()}
    data = heatmap(at)
    col = data["x"].index("GPT-4")
    for code in ("en", "el", "hi", "zh", "my"):
        # the cell holds log2(premium); its text the premium; its hover the count
        r = row_of(data, code)
        premium = counts[code] / counts["en"]
        assert math.isclose(data["z"][r][col], math.log2(premium), rel_tol=1e-9, abs_tol=1e-12)
        assert data["customdata"][r][col][0] == f"{counts[code]:,}"
    # English is the baseline: 1.0x everywhere
    assert set(data["text"][row_of(data, "en")]) == {"1.0×"}
    at.radio(key="tax_metric").set_value("tokens").run()
    data = heatmap(at)
    assert [data["z"][row_of(data, c)][data["x"].index("GPT-4")] for c in ("en", "ja")] == [counts["en"], counts["ja"]]
    # the table below holds the same numbers
    table = {r["language"]: r for r in at.dataframe[0].value.to_dict("records")}
    assert table["English"]["GPT-4"] == counts["en"]


def test_open_vocabularies_equal_their_own_tokenizers():
    from testkit.references import reference

    at = open_page()
    at.radio(key="tax_metric").set_value("tokens").run()
    data = heatmap(at)
    for name in ("llama3", "qwen3", "deepseek_v3"):
        _, encode, _ = reference(name)
        col = data["x"].index(bpe.PRETRAINED[name].label.split(" (")[0])
        for code in ("en", "ar", "ko"):
            assert data["z"][row_of(data, code)][col] == len(encode(TEXTS[code]["text"])), (name, code)


def test_order_bytes_per_token_and_words():
    at = open_page()
    data = heatmap(at)
    assert data["y"][0] == "English"  # the baseline first, then the dearest
    at.radio(key="tax_order").set_value("corpus").run()
    assert heatmap(at)["y"][:3] == ["English", "Spanish · Español", "French · Français"]
    at.radio(key="tax_metric").set_value("bytes_per_token").run()
    data = heatmap(at)
    ref = tiktoken_encoding("o200k_base")
    greek = TEXTS["el"]["text"]
    assert math.isclose(
        data["z"][row_of(data, "el")][data["x"].index("GPT-4o")], len(greek.encode()) / len(ref.encode_ordinary(greek))
    )
    at.radio(key="tax_metric").set_value("tokens_per_word").run()
    data = heatmap(at)
    assert data["z"][row_of(data, "zh")][0] is None  # Chinese is written without spaces between words
    words = len(TEXTS["de"]["text"].split())
    assert math.isclose(
        data["z"][row_of(data, "de")][data["x"].index("GPT-4o")], len(ref.encode_ordinary(TEXTS["de"]["text"])) / words
    )


def test_choosing_vocabularies_and_none():
    at = open_page()
    at.multiselect(key="tax_vocabs").set_value(["cl100k_base", "trained"]).run()
    assert heatmap(at)["x"] == ["GPT-4", "Trained (256 merges)"]
    at.multiselect(key="tax_vocabs").set_value([]).run()
    assert not at.get("plotly_chart") and any("Choose at least one vocabulary" in i.value for i in at.info)


def test_the_players_run_is_the_trained_column():
    text = TEXTS["de"]["text"]
    settings = appstate.runs.TrainSettings(vocab_size=300, pattern="gpt4")
    at = open_app(
        PAGE,
        state={
            appstate.keys.PLAYER_RUN: (appstate.runs.text_key(text), settings),
            appstate.keys.PLAYER_TEXT: text,
            appstate.keys.PLAYER_STEP: 10,
        },
        first_run=True,
        forget=FORGET,
    )
    assert heatmap(at)["x"][-1] == "Trained (10 merges)"


def test_source_and_licence_are_stated():
    at = open_page()
    source = [b for b in html_bodies(at) if 'class="tax-source"' in b]
    assert len(source) == 1
    assert "unicode.org/udhr" in source[0] and "Licence:" in source[0] and "public domain" in source[0]


def test_a_language_button_sends_its_text_to_the_player():
    at = open_page()
    at.button(key="tax_train_de").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.session_state[appstate.keys.PLAYER_SOURCE] == "paste"
    assert at.session_state[appstate.keys.PLAYER_PASTE] == TEXTS["de"]["text"]
    # the Merge player ran next, on the German text
    assert at.text_area(key=appstate.keys.PLAYER_PASTE).value == TEXTS["de"]["text"]


def test_missing_packages_are_named_with_their_install_command(monkeypatch):
    real = pretrained._package_folder
    monkeypatch.setattr(
        pretrained, "_package_folder", lambda spec: None if spec.package == "llama-models" else real(spec)
    )
    at = open_page()
    assert "llama3" not in at.multiselect(key="tax_vocabs").options
    assert "Llama 3" not in heatmap(at)["x"]
    missing = [b for b in html_bodies(at) if "bpe-missing" in b]
    assert missing and "pip install llama-models==0.3.0" in missing[0] and "Llama 4" in missing[0]
    assert not page_messages(at, "error")


def test_presenter_view_draws_larger():
    small = figure(open_page())
    big = figure(open_page(presenter=True))
    assert big["layout"]["height"] > small["layout"]["height"]
    assert big["data"][0]["textfont"]["size"] > small["data"][0]["textfont"]["size"]


def test_choices_survive_a_page_switch():
    at = open_page()
    at.radio(key="tax_metric").set_value("tokens").run()
    at.multiselect(key="tax_vocabs").set_value(["o200k_base"]).run()
    at.switch_page("app_pages/tokenize_page.py").run()
    at.switch_page(PAGE).run()
    assert at.radio(key="tax_metric").value == "tokens"
    assert at.multiselect(key="tax_vocabs").value == ["o200k_base"]
    assert heatmap(at)["x"] == ["GPT-4o"]
