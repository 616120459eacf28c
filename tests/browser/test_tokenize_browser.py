"""The Tokenize page in a real browser: presets, screenshots, escaping, hover ids, upload.

Screenshots go to tests/artifacts/ (look at them). With ``BPE_DOCS_SHOTS=1`` the multilingual one with Llama 3,
Qwen and DeepSeek is also written to docs/tokenize.png for the README.
"""
from __future__ import annotations

import pytest

from helpers import PRESETS, ROOT
from tiktoken_reference import tiktoken_encoding

from .conftest import choose_preset, docs_shot, open_path, set_multiselect, shot, shot_at, submit_text, wait_idle


@pytest.fixture(scope="module")
def ref():
    return {n: tiktoken_encoding(n) for n in ("cl100k_base", "o200k_base")}


def open_tokenize(page, server_url):
    return open_path(page, server_url, "/tokenize", ".tokv-spans")


def choose(page, title: str) -> None:
    choose_preset(page, "tok_preset", title)


#: an uploaded tokenizer's column (its key ends in the upload's digest)
UPLOAD_COLUMN = '[class*="st-key-tok_col_upload_"]'


def upload_tokens(page) -> list[int]:
    return [int(t.replace(",", "")) for t in
            page.locator(f'{UPLOAD_COLUMN} [data-stat="tokens"] .tokv-v').all_inner_texts()]


def column_tokens(page, slug: str) -> int:
    return int(page.locator(f'.st-key-tok_col_{slug} [data-stat="tokens"] .tokv-v').inner_text().replace(",", ""))


@pytest.mark.parametrize("key, title", [("multilingual", "Multilingual"), ("contractions", "Contractions")])
def test_preset_side_by_side(page, server_url, ref, key, title):
    open_tokenize(page, server_url)
    choose(page, title)
    text = PRESETS[key]["text"]
    assert page.locator(".st-key-tok_text textarea").input_value() == text
    spans = page.locator(".tokv-spans")
    assert spans.count() == 3
    for i in range(3):
        assert "\ufffd" not in spans.nth(i).inner_text()
    assert column_tokens(page, "cl100k_base") == len(ref["cl100k_base"].encode(text))
    assert column_tokens(page, "o200k_base") == len(ref["o200k_base"].encode(text))
    assert page.locator('[data-roundtrip="true"]').count() == 3
    # the comparison chart and the trace are there
    assert page.locator(".st-key-tok_compare .tokv-bar-row").count() == 3
    assert page.locator(".tokv-trace").count() >= 3
    path = shot(page, f"tokenize-{key}")
    assert path.stat().st_size > 50_000


def test_hover_titles_hold_ids(page, server_url, ref):
    open_tokenize(page, server_url)
    first = page.locator(".st-key-tok_col_cl100k_base .tokv-spans .bpe-tok").first
    title = first.get_attribute("title")
    expected = ref["cl100k_base"].encode(PRESETS["prose"]["text"])[0]
    assert title.startswith(f"id {expected} ·")
    # and the id list shows the same ids in order
    ids = page.locator(".st-key-tok_col_cl100k_base .tokv-ids .bpe-tok").all_inner_texts()
    assert [int(x) for x in ids[:20]] == ref["cl100k_base"].encode(PRESETS["prose"]["text"])[:20]


def test_markup_in_the_text_is_shown_literally(page, server_url):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    open_tokenize(page, server_url)
    evil = '<b>bold</b><script>alert("x")</script><img src=x onerror="alert(1)">'
    submit_text(page, "tok_text", evil, ".tokv-spans", "bold")
    spans = page.locator(".tokv-spans")
    for i in range(spans.count()):
        s = spans.nth(i)
        assert s.locator("b, script, img").count() == 0
        shown = s.inner_text().replace("·", " ")
        assert "<b>bold</b>" in shown.replace("\n", "") and "onerror" in shown
    assert dialogs == []
    shot(page, "tokenize-xss")


def test_special_tokens_toggle_in_the_browser(page, server_url, ref):
    open_tokenize(page, server_url)
    choose(page, "Chat with special tokens")
    text = PRESETS["chat"]["text"]
    assert column_tokens(page, "cl100k_base") == len(ref["cl100k_base"].encode(text, allowed_special="all"))
    assert page.locator(".st-key-tok_col_cl100k_base .bpe-special").count() == 1
    page.locator(".st-key-tok_special label").click()
    page.wait_for_timeout(200)
    wait_idle(page)
    assert column_tokens(page, "cl100k_base") == len(ref["cl100k_base"].encode_ordinary(text))
    assert page.locator(".st-key-tok_col_cl100k_base .bpe-special").count() == 0
    shot(page, "tokenize-chat-plain")


def test_upload_a_hugging_face_tokenizer_json(page, server_url, tmp_path):
    # A tokenizer.json made by Hugging Face `tokenizers` itself; its own encode gives the expected count.
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import decoders, models, pre_tokenizers, trainers

    tk = tokenizers.Tokenizer(models.BPE())
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    tk.train_from_iterator([(ROOT / "sample_texts" / "english.txt").read_text(encoding="utf-8")],
                           trainers.BpeTrainer(vocab_size=400, show_progress=False,
                                               initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    path = tmp_path / "tokenizer.json"
    tk.save(str(path))

    open_tokenize(page, server_url)
    page.get_by_text("Your own tokenizer").click()
    page.locator('.st-key-tok_upload input[type="file"]').set_input_files(str(path))
    page.wait_for_selector(f"{UPLOAD_COLUMN} .tokv-spans", timeout=60_000)
    wait_idle(page)
    expected = len(tk.encode(PRESETS["prose"]["text"]).ids)
    assert upload_tokens(page) == [expected]
    assert page.locator(f"{UPLOAD_COLUMN} [data-roundtrip='true']").count() == 1
    shot(page, "tokenize-upload")


# ----------------------------------------------------------------------------------------------------
# The open models' vocabularies, unknown tokens, several uploads

OPEN = ("llama3", "qwen3", "deepseek_v3")


def test_llama3_qwen_and_deepseek_side_by_side_on_the_multilingual_preset(page, server_url):
    import bpe
    from bench.bench_vocabs import reference

    open_tokenize(page, server_url)
    choose(page, "Multilingual")
    set_multiselect(page, "tok_choice", [bpe.PRETRAINED[n].label for n in OPEN])
    for name in OPEN:
        page.wait_for_selector(f".st-key-tok_col_{name} .tokv-spans", timeout=120_000)
    wait_idle(page, 120_000)
    text = PRESETS["multilingual"]["text"]
    for name in OPEN:
        assert column_tokens(page, name) == len(reference(name)[1](text)), name
        assert "\ufffd" not in page.locator(f".st-key-tok_col_{name} .tokv-spans").inner_text()
    assert page.locator('[data-roundtrip="true"]').count() == 3
    # the one-sentence Unicode note is each column's help
    page.locator('.st-key-tok_col_qwen3 [data-testid="stTooltipHoverTarget"]').first.hover()
    tip = page.locator('[data-testid="stTooltipContent"]').first
    tip.wait_for()
    assert "Unicode" in tip.inner_text() and "CJK Extension J" in tip.inner_text()
    page.mouse.move(5, 5)
    page.keyboard.press("Escape")
    tip.wait_for(state="hidden")
    path = shot(page, "tokenize-open-vocabularies")
    assert path.stat().st_size > 80_000
    docs_shot(page, "tokenize")
    shot_at(page, "tokenize-open-vocabularies-1280", ".st-key-tok_col_llama3", 1280, 720)
    shot_at(page, "tokenize-open-vocabularies-phone", ".st-key-tok_col_llama3", 390, 2400)


def test_unknown_characters_of_an_uploaded_char_level_tokenizer_are_drawn_apart(page, server_url):
    import bpe

    tok = bpe.train("hello world, hello tokens", 280, level="char", special_tokens=["<unk>"],
                    unk_token="<unk>").tokenizer()
    data = bpe.dumps(tok, "hf")["tokenizer.json"]
    open_tokenize(page, server_url)
    page.get_by_text("Your own tokenizer").click()
    page.locator('.st-key-tok_upload input[type="file"]').set_input_files(
        files=[{"name": "chars.json", "mimeType": "application/json", "buffer": data}])
    page.wait_for_selector(f"{UPLOAD_COLUMN} .tokv-spans", timeout=60_000)
    wait_idle(page)
    submit_text(page, "tok_text", "hello zebra, well", UPLOAD_COLUMN + " .tokv-spans", "zebra")
    unk = page.locator(f"{UPLOAD_COLUMN} .tokv-unk")
    # z, b, a are not in the alphabet of the training text (each its own <unk>, no fusing)
    assert [unk.nth(i).get_attribute("data-unk") for i in range(unk.count())] == ["z", "b", "a"]
    style = unk.first.evaluate("el => getComputedStyle(el).borderTopStyle")
    assert style == "dashed"
    assert "not in this tokenizer's alphabet" in unk.first.get_attribute("title")
    assert upload_tokens(page) == [len(tok.encode("hello zebra, well"))]
    page.locator(UPLOAD_COLUMN).scroll_into_view_if_needed()
    shot(page, "tokenize-unknown-tokens")


def test_two_uploads_with_the_same_name_are_two_tokenizers(page, server_url):
    import bpe

    a = bpe.train("aaaa bbbb aaaa bbbb", 262, pattern="gpt4").tokenizer()
    b = bpe.train("the cat sat on the mat, the cat", 270, pattern="gpt4").tokenizer()
    open_tokenize(page, server_url)
    page.get_by_text("Your own tokenizer").click()
    page.locator('.st-key-tok_upload input[type="file"]').set_input_files(files=[
        {"name": "tokenizer.json", "mimeType": "application/json", "buffer": bpe.dumps(x, "hf")["tokenizer.json"]}
        for x in (a, b)])
    page.wait_for_function(f"document.querySelectorAll('{UPLOAD_COLUMN} .tokv-spans').length === 2",
                           timeout=60_000)
    wait_idle(page)
    text = PRESETS["prose"]["text"]
    assert upload_tokens(page) == [len(a.encode(text)), len(b.encode(text))]
    titles = page.locator(f"{UPLOAD_COLUMN} .tokv-title").all_inner_texts()
    assert titles == ["Uploaded: tokenizer.json", "Uploaded: tokenizer.json (2)"]
    assert page.locator(".tok-upload-ok").count() == 2
