"""The Tokenize page's real vocabularies through AppTest (issue 13): the open models' labels, references and
special tokens, a vocabulary whose package is missing, uploaded tokenizers (unknown tokens, same-named files,
SentencePiece-style and quicktour files), what was typed surviving a page switch, the page guard. The page's
widgets and toggles: tests/test_app_tokenize.py.

Expected ids come from each model's own tokenizer (never downloading) and from Hugging Face ``tokenizers``.
"""

from __future__ import annotations

import re

import pytest
import tokenize_driver as T
from app_tokenize_kit import O200K, PAGE, open_page, set_preset
from helpers import PRESETS, page_messages
from tokenize_driver import shown_tokens, table, type_text

import appstate.keys
import appstate.runs
import appstate.sources
import appstate.vocabs
import bpe

# ----------------------------------------------------------------------------------------------------
# The open models' vocabularies (issue 13): labels, references, special tokens, missing packages

OPEN = ("llama3", "qwen3", "deepseek_v3")


def columns_shown(at) -> list[str]:
    return list(table(at))


def test_every_registry_vocabulary_is_offered_with_its_label():
    at = open_page()
    picker = at.multiselect(key="tok_choice")
    assert picker.options[:1] == ["Trained here / on the player"]
    assert picker.options[1:] == [spec.label for spec in bpe.PRETRAINED.values()]


def test_open_vocabularies_side_by_side_equal_their_own_tokenizers():
    from testkit.references import reference

    at = open_page()
    set_preset(at, "multilingual")
    at.multiselect(key="tok_choice").set_value(list(OPEN)).run()
    text = PRESETS["multilingual"]["text"]
    expected = [len(reference(name)[1](text)) for name in OPEN]
    assert shown_tokens(at) == expected
    assert columns_shown(at) == [bpe.PRETRAINED[n].label for n in OPEN]
    assert [c["ids"] for c in T.columns(at)] == [reference(name)[1](text) for name in OPEN]
    # each registry column's heading carries the one-sentence Unicode note in its help (its title attribute)
    assert all('title="Ids equal the model' in h and "CJK Extension J" in h for h in T.heads(at))
    assert sum('data-roundtrip="true"' in h for h in T.heads(at)) == 3


def _tekken_with_specials(text: str) -> list[int]:
    """mistral-common's ids with its special-token strings as special ids (it encodes them as text itself)."""
    import regex

    from testkit.references import reference

    ref, encode, _ = reference("tekken")
    specials = {t["token_str"]: t["rank"] for t in ref._all_special_tokens}
    splitter = regex.compile("|".join(regex.escape(s) for s in sorted(specials, key=len, reverse=True)))
    out, pos = [], 0
    for m in splitter.finditer(text):
        out += encode(text[pos : m.start()]) if m.start() > pos else []
        out.append(specials[m.group()])
        pos = m.end()
    return out + (encode(text[pos:]) if pos < len(text) else [])


def test_special_tokens_are_each_vocabularys_own():
    from test_vocabs import reference as vocab_reference

    at = open_page()
    set_preset(at, "chat_templates")
    text = PRESETS["chat_templates"]["text"]
    at.multiselect(key="tok_choice").set_value(["llama3", "qwen3", "deepseek_v3", "tekken"]).run()
    rows = table(at)
    labels = {n: bpe.PRETRAINED[n].label for n in ("llama3", "qwen3", "deepseek_v3", "tekken")}
    assert rows[labels["llama3"]]["tokens"] == len(vocab_reference("llama3").with_specials(text))
    assert rows[labels["qwen3"]]["tokens"] == len(vocab_reference("qwen3").with_specials(text))
    assert rows[labels["deepseek_v3"]]["tokens"] == len(vocab_reference("deepseek_v3").with_specials(text))
    assert rows[labels["tekken"]]["tokens"] == len(_tekken_with_specials(text))
    # counted by hand in the preset: Llama's 4 header/eot tokens, tekken's <s> [INST] [/INST] </s>, DeepSeek's
    # <think> </think>, Qwen3's <think> </think> <|im_start|> <|im_end|>
    assert [rows[labels[n]]["special tokens"] for n in ("llama3", "qwen3", "deepseek_v3", "tekken")] == [4, 4, 2, 4]
    notes = [h for h in T.heads(at) if "tokv-specials" in h and "data-own" in h]
    llama = next(b for b in notes if "&lt;|begin_of_text|&gt;" in b)
    assert "one id each" in llama and "ordinary text to this one" in llama and "&lt;s&gt;" in llama
    # off: each vocabulary reads every such string as text
    at.toggle(key="tok_special").set_value(False).run()
    rows = table(at)
    assert rows[labels["llama3"]]["tokens"] == len(vocab_reference("llama3").ordinary(text))
    assert rows[labels["qwen3"]]["tokens"] == len(vocab_reference("qwen3").ordinary(text))
    assert rows[labels["tekken"]]["tokens"] == len(vocab_reference("tekken").ordinary(text))
    assert all(r["special tokens"] == 0 for r in rows.values())


def test_a_vocabulary_that_is_not_installed_shows_its_install_command(monkeypatch):
    from bpe import pretrained

    real = pretrained._package_folder
    monkeypatch.setattr(
        pretrained, "_package_folder", lambda spec: None if spec.package == "llama-models" else real(spec)
    )
    at = open_page()
    picker = at.multiselect(key="tok_choice")
    assert "Llama 3 · not installed" in picker.options and "Llama 4 · not installed" in picker.options
    at.multiselect(key="tok_choice").set_value(["llama3", "o200k_base"]).run()
    boxes = [h for h in T.heads(at) if 'class="bpe-notinst"' in h]
    assert len(boxes) == 1 and "pip install llama-models==0.3.0" in boxes[0] and "requirements-vocabs.txt" in boxes[0]
    assert not at.error and not page_messages(at, "error")  # information, not an error
    assert columns_shown(at) == [O200K]  # the installed one still works


def _inject_upload(tok: bpe.Tokenizer, name: str) -> dict:
    """Put a tokenizer file into the shared upload cache as an upload would, return its session entry."""

    group = appstate.vocabs.UploadGroup((name,), (bpe.dumps(tok, "hf")["tokenizer.json"],), name)
    appstate.vocabs.load_upload(group)
    return {"digest": group.digest, "label": name}


def test_unknown_tokens_are_drawn_apart():
    # a char-level tokenizer with an unknown token: z, b, a are not in the alphabet of "hello world"
    tok = bpe.train(
        "hello world hello world", 270, level="char", special_tokens=["<unk>"], unk_token="<unk>"
    ).tokenizer()
    entry = _inject_upload(tok, "chars.json")
    at = open_page(
        **{"tok_uploads": [entry], "tok_choice": ["upload:" + entry["digest"]], appstate.keys.TOK_TEXT: "hello zebra"}
    )
    col = T.columns(at)[0]
    assert [u[1] for u in col["unk"]] == ["z", "b", "a"]
    assert [col["ids"][i] for i, _ in col["unk"]] == [tok.special_tokens["<unk>"]] * 3
    assert sum(col["lens"]) == len("hello zebra".encode())
    assert any('data-unknown="3"' in h for h in T.heads(at))
    assert table(at)["Uploaded: chars.json"]["tokens"] == len(tok.encode("hello zebra"))


def test_two_uploads_with_the_same_name_are_two_columns():
    a = bpe.train("aaaa bbbb aaaa", 260).tokenizer()
    b = bpe.train("cccc dddd cccc cccc", 262).tokenizer()
    first, second = _inject_upload(a, "tokenizer.json"), _inject_upload(b, "tokenizer.json")
    second = {**second, "label": "tokenizer.json (2)"}
    at = open_page(
        **{
            "tok_uploads": [first, second],
            "tok_choice": ["upload:" + first["digest"], "upload:" + second["digest"]],
            appstate.keys.TOK_TEXT: "aaaa cccc",
        }
    )
    rows = table(at)
    assert rows["Uploaded: tokenizer.json"]["tokens"] == len(a.encode("aaaa cccc"))
    assert rows["Uploaded: tokenizer.json (2)"]["tokens"] == len(b.encode("aaaa cccc"))


def test_what_the_user_typed_and_chose_survives_a_page_switch():
    at = open_page()
    type_text(at, "Tokens survive page switches.")
    at.multiselect(key="tok_choice").set_value(["qwen3", "o200k_base"]).run()
    at.toggle(key="tok_special").set_value(False).run()
    at.text_input(key="tok_trace_word").input(" switches").run()
    for page in ("app_pages/pretokenizer_lab.py", "app_pages/classroom.py", "app_pages/player.py"):
        at.switch_page(page).run()
        at.switch_page(PAGE).run()
        assert not at.exception
        assert T.text(at) == "Tokens survive page switches." == T.settings(at)["text"]
        assert at.multiselect(key="tok_choice").value == ["qwen3", "o200k_base"]
        assert at.toggle(key="tok_special").value is False
        assert at.text_input(key="tok_trace_word").value == " switches"


def test_an_unexpected_error_is_a_short_message_not_a_traceback(monkeypatch, caplog):
    import views.tokenize_payload as payload  # (the page imports it on every run: the patch is seen)

    def boom(*args, **kwargs):
        raise RuntimeError("/srv/secret/path exploded")

    monkeypatch.setattr(payload, "compare_html", boom)
    with caplog.at_level("ERROR", logger="bpe_lab.pages"):
        at = open_page()
    assert not at.exception
    msg = " ".join(e.value for e in at.error)
    assert "Something went wrong on the Tokenize page" in msg and "/srv/secret" not in msg
    ref = re.search(r"reference ([0-9a-f]{8})", msg).group(1)
    assert any(ref in r.getMessage() and r.exc_info for r in caplog.records)
    monkeypatch.undo()
    at.run()
    assert not at.error and shown_tokens(at)


def _inject_file(data: bytes, name: str) -> dict:
    """Put a tokenizer file's bytes into the shared upload cache as an upload would."""
    group = appstate.vocabs.UploadGroup((name,), (data,), name)
    appstate.vocabs.load_upload(group)
    return {"digest": group.digest, "label": name}


def test_sentencepiece_style_and_quicktour_uploads_show_hugging_faces_ids():
    """tokenizer.json files made with HF tokenizers' own API (a Llama-2-like SentencePiece-style BPE with
    byte fallback, the quicktour's Whitespace + [UNK]): each column's ids are HF's, its tokens lie on the
    text (▁ for spaces, one byte per <0xNN> token)."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import models, pre_tokenizers, trainers

    from testkit.sentencepiece_files import llama_like

    corpus = "the quick brown fox jumps over the lazy dog. " * 40 + "hello world, hello there. " * 20
    llama = llama_like(corpus, 150)
    quick = tokenizers.Tokenizer(models.BPE(unk_token="[UNK]"))
    quick.pre_tokenizer = pre_tokenizers.Whitespace()
    quick.train_from_iterator([corpus], trainer=trainers.BpeTrainer(vocab_size=120, special_tokens=["[UNK]"]))
    text = "hello world, the lazy fox 🦜 ünïcode"
    a = _inject_file(llama.to_str().encode(), "llama_like.json")
    b = _inject_file(quick.to_str().encode(), "quicktour.json")
    at = open_page(
        **{
            "tok_uploads": [a, b],
            "tok_choice": ["upload:" + a["digest"], "upload:" + b["digest"]],
            appstate.keys.TOK_TEXT: text,
        }
    )
    assert not at.exception and not page_messages(at, "error")
    cols = T.columns(at)
    assert [c["ids"] for c in cols] == [
        llama.encode(text, add_special_tokens=False).ids,
        quick.encode(text, add_special_tokens=False).ids,
    ]
    # the Llama-like column: its tokens' bytes add up to the text it shows, where spaces are ▁ and the parrot
    # is four byte tokens
    shown = cols[0]["text"]
    assert shown.startswith("▁hello▁world") and "🦜" in shown and " " not in shown
    assert sum(cols[0]["lens"]) == len(shown.encode("utf-8"))
    assert any("decode(encode(text)) gives the text back exactly" in h for h in T.heads(at)[:1])
