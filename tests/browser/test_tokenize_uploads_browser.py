"""Uploads on the Tokenize page in a real browser: a Hugging Face tokenizer.json, a char-level one with unknown
characters, two files of the same name, SentencePiece-style and the HF quicktour's at once. Each column's ids are
the uploaded tokenizer's own (Hugging Face tokenizers or the library that made it), waited for on the view's
state; screenshots in tests/artifacts/.
"""

from __future__ import annotations

import pytest
from helpers import PRESETS, ROOT

from .conftest import shot, shot_at
from .tokenize_page import UPLOAD_COLUMN, open_tokenize, settled, submit, upload_tokens, view_state


def test_upload_a_hugging_face_tokenizer_json(page, server_url, tmp_path):
    # A tokenizer.json made by Hugging Face `tokenizers` itself; its own encode gives the expected count.
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import decoders, models, pre_tokenizers, trainers

    tk = tokenizers.Tokenizer(models.BPE())
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    tk.train_from_iterator(
        [(ROOT / "sample_texts" / "english.txt").read_text(encoding="utf-8")],
        trainers.BpeTrainer(vocab_size=400, show_progress=False, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()),
    )
    path = tmp_path / "tokenizer.json"
    tk.save(str(path))

    open_tokenize(page, server_url)
    page.get_by_role("button", name="Your own tokenizer").click()  # a panel of the bar (issue 31)
    page.locator('.st-key-tok_upload input[type="file"]').set_input_files(str(path))
    page.locator(f"{UPLOAD_COLUMN} .tokv-spans").wait_for(timeout=60_000)
    settled(page)
    expected = tk.encode(PRESETS["prose"]["text"]).ids
    assert upload_tokens(page) == [len(expected)]
    upload = [v for k, v in view_state(page)["cols"].items() if k.startswith("upload_")]
    assert [c["ids"] for c in upload] == [expected]
    assert page.locator(f"{UPLOAD_COLUMN} [data-roundtrip='true']").count() == 1
    shot(page, "tokenize-upload")


def test_unknown_characters_of_an_uploaded_char_level_tokenizer_are_drawn_apart(page, server_url):
    import bpe

    tok = bpe.train(
        "hello world, hello tokens", 280, level="char", special_tokens=["<unk>"], unk_token="<unk>"
    ).tokenizer()
    data = bpe.dumps(tok, "hf")["tokenizer.json"]
    open_tokenize(page, server_url)
    page.get_by_role("button", name="Your own tokenizer").click()  # a panel of the bar (issue 31)
    page.locator('.st-key-tok_upload input[type="file"]').set_input_files(
        files=[{"name": "chars.json", "mimeType": "application/json", "buffer": data}]
    )
    page.locator(f"{UPLOAD_COLUMN} .tokv-spans").wait_for(timeout=60_000)
    settled(page)
    submit(page, "hello zebra, well")
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
    page.get_by_role("button", name="Your own tokenizer").click()  # a panel of the bar (issue 31)
    page.locator('.st-key-tok_upload input[type="file"]').set_input_files(
        files=[
            {"name": "tokenizer.json", "mimeType": "application/json", "buffer": bpe.dumps(x, "hf")["tokenizer.json"]}
            for x in (a, b)
        ]
    )
    page.locator(f"{UPLOAD_COLUMN} .tokv-spans").nth(1).wait_for(timeout=60_000)
    settled(page)
    text = PRESETS["prose"]["text"]
    assert upload_tokens(page) == [len(a.encode(text)), len(b.encode(text))]
    titles = page.locator(f"{UPLOAD_COLUMN} .tokv-title").all_inner_texts()
    assert titles == ["Uploaded: tokenizer.json", "Uploaded: tokenizer.json (2)"]
    assert page.locator(".tok-upload-ok").count() == 2


def _hf_llama_like_and_quicktour(corpus: str):
    """A Llama-2-like SentencePiece-style tokenizer (Prepend/Replace ▁, 256 byte tokens, byte fallback) and the
    HF quicktour's (Whitespace + [UNK]), both made with Hugging Face tokenizers' own API."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import models, pre_tokenizers, trainers

    from testkit.sentencepiece_files import llama_like

    llama = llama_like(corpus, 400)
    quick = tokenizers.Tokenizer(models.BPE(unk_token="[UNK]"))
    quick.pre_tokenizer = pre_tokenizers.Whitespace()
    quick.train_from_iterator(
        [corpus],
        trainer=trainers.BpeTrainer(
            vocab_size=300, special_tokens=["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"], show_progress=False
        ),
    )
    return llama, quick


def test_upload_sentencepiece_style_and_quicktour_tokenizers(page, server_url):
    """Both uploaded at once: each column holds Hugging Face's own ids; the SentencePiece-style one draws ▁ for
    spaces and the parrot as four byte tokens."""
    llama, quick = _hf_llama_like_and_quicktour((ROOT / "sample_texts" / "english.txt").read_text(encoding="utf-8"))
    open_tokenize(page, server_url)
    page.get_by_role("button", name="Your own tokenizer").click()  # a panel of the bar (issue 31)
    page.locator('.st-key-tok_upload input[type="file"]').set_input_files(
        files=[
            {"name": "llama_like.json", "mimeType": "application/json", "buffer": llama.to_str().encode()},
            {"name": "quicktour.json", "mimeType": "application/json", "buffer": quick.to_str().encode()},
        ]
    )
    page.locator(f"{UPLOAD_COLUMN} .tokv-spans").nth(1).wait_for(timeout=60_000)
    settled(page)
    text = "The parrot 🦜 said: Hello,  world! ünïcode"
    submit(page, text)
    upload = {
        v["ids"][0] if v["ids"] else None: v for k, v in view_state(page)["cols"].items() if k.startswith("upload_")
    }
    expected = [llama.encode(text, add_special_tokens=False).ids, quick.encode(text, add_special_tokens=False).ids]
    assert sorted(c["ids"] for c in upload.values()) == sorted(expected)
    shown = next(c["text"] for c in upload.values() if c["ids"] == expected[0])
    assert shown.startswith("▁The▁parrot▁") and "🦜" in shown
    assert page.locator(".tok-upload-ok").count() == 2
    assert (
        "SentencePiece-style BPE"
        in page.locator(".tok-upload-ok").first.inner_text() + page.locator(".tok-upload-ok").last.inner_text()
    )
    page.locator(UPLOAD_COLUMN).first.scroll_into_view_if_needed()
    shot(page, "tokenize-upload-sentencepiece")
    shot_at(page, "tokenize-upload-sentencepiece-390", UPLOAD_COLUMN + " >> nth=0", 390, 844)


def test_every_refused_file_gets_its_own_sentence(page, server_url):
    """Issue 14: fake.json (not a tokenizer) and binary.txt (random bytes) uploaded together are read as a
    vocab.json + merges.txt pair: only fake.json got an error, binary.txt none. Each now says why, the good file
    uploaded with them still loads, and the names are shown as text."""
    import random

    import bpe

    good = bpe.train("the cat sat on the mat, the cat", 270, pattern="gpt4").tokenizer()
    model = bpe.dumps(good, "minbpe")["tokenizer.model"]
    rng = random.Random(14)
    noise = bytes(rng.randrange(256) for _ in range(5000))
    assert not _is_utf8(noise)
    open_tokenize(page, server_url)
    page.get_by_role("button", name="Your own tokenizer").click()  # a panel of the bar (issue 31)
    page.locator('.st-key-tok_upload input[type="file"]').set_input_files(
        files=[
            {"name": "fake.json", "mimeType": "application/json", "buffer": b'{"not": "a tokenizer"}'},
            {"name": "<b>binary</b>.txt", "mimeType": "text/plain", "buffer": noise},
            {"name": "tokenizer.model", "mimeType": "application/octet-stream", "buffer": model},
        ]
    )
    page.locator(f"{UPLOAD_COLUMN} .tokv-spans").wait_for(timeout=60_000)
    settled(page)
    errors = [e.split("\n")[-1] for e in page.locator(".tok-upload-error").all_inner_texts()]  # (after the icon)
    assert len(errors) == 2, errors
    assert errors[0].startswith("fake.json")
    assert errors[1] == "<b>binary</b>.txt is not a text file; expected a merges.txt (one merge per line)."
    assert page.locator(".tok-upload-error b").count() == 0  # (the name as text, never markup)
    assert page.locator(".tok-upload-ok").count() == 1
    assert upload_tokens(page) == [len(good.encode(PRESETS["prose"]["text"]))]
    shot(page, "tokenize-upload-refused-each")


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
