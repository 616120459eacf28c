"""The Tokenize page through Streamlit's AppTest (no browser): widgets, toggles, and what the browser view is
sent (tests/tokenize_driver.py reads it; what the view draws is tested in tests/browser/).

Expected counts and ids come from tiktoken (built from the same vocabulary files, never downloading) and from
hand-worked examples.
"""

from __future__ import annotations

import re
import time

import pytest
import tokenize_driver as T
from helpers import PRESETS, html_bodies, open_app, page_messages
from streamlit.testing.v1 import AppTest
from tiktoken_reference import tiktoken_encoding
from tokenize_driver import shown_tokens, table, type_text

import appstate.keys
import appstate.runs
import appstate.sources
import appstate.vocabs
import bpe

PAGE = "app_pages/tokenize_page.py"
#: The columns' titles: the library registry's labels (one source for them)
CL100K, O200K = bpe.PRETRAINED["cl100k_base"].label, bpe.PRETRAINED["o200k_base"].label


@pytest.fixture(scope="module")
def ref():
    return {n: tiktoken_encoding(n) for n in ("cl100k_base", "o200k_base")}


def open_page(via_player: bool = False, **state) -> AppTest:
    """The Tokenize page, opened directly (like a link) or after a visit to the Merge player.

    AppTest's first run always starts at the default page (the player), which trains; a tab opened
    straight on /tokenize has trained nothing on the player, so that memory is cleared for a direct open.
    """
    forget = () if via_player else (appstate.keys.PLAYER_RUN, appstate.keys.PLAYER_TEXT, appstate.keys.PLAYER_STEP)
    return open_app(PAGE, state=state, first_run=True, forget=forget)


def set_preset(at, key):
    T.preset_box(at).set_value(key).run()
    assert not at.exception, [e.message for e in at.exception]
    assert T.text(at) == PRESETS[key]["text"] == T.settings(at)["text"]


# ----------------------------------------------------------------------------------------------------


def test_default_page_compares_three_tokenizers(ref):
    at = open_page()
    rows = table(at)
    assert list(rows) == ["Trained (256 merges)", CL100K, O200K]
    text = PRESETS["prose"]["text"]
    assert rows[CL100K]["tokens"] == len(ref["cl100k_base"].encode(text))
    assert rows[O200K]["tokens"] == len(ref["o200k_base"].encode(text))
    assert shown_tokens(at)[1:] == [len(ref["cl100k_base"].encode(text)), len(ref["o200k_base"].encode(text))]
    # the view gets each column's ids: tiktoken's own
    assert [c["slug"] for c in T.columns(at)] == ["trained", "cl100k_base", "o200k_base"]
    assert T.column(at, "cl100k_base")["ids"] == ref["cl100k_base"].encode(text)
    assert T.column(at, "o200k_base")["ids"] == ref["o200k_base"].encode(text)
    for col in T.columns(at):  # and each token's length: they add up to the text's bytes
        assert sum(col["lens"]) == len(text.encode()) and len(col["lens"]) == len(col["ids"])
    assert T.settings(at)["text"] == text and not any('tokv-spans"' in b for b in html_bodies(at))  # no HTML per token
    # nothing trained on the player: a tokenizer trained here on the first sample is offered
    assert "nothing trained on the Merge player yet" in "".join(html_bodies(at))


@pytest.mark.parametrize("preset", list(PRESETS))
def test_counts_shown_equal_tiktoken_for_every_preset(ref, preset):
    at = open_page()
    at.multiselect(key="tok_choice").set_value(["cl100k_base", "o200k_base"]).run()
    type_text(at, PRESETS[preset]["text"])
    text = PRESETS[preset]["text"]
    expected = [len(ref[n].encode(text, allowed_special="all")) for n in ("cl100k_base", "o200k_base")]
    assert shown_tokens(at) == expected
    assert [c["ids"] for c in T.columns(at)] == [
        ref[n].encode(text, allowed_special="all") for n in ("cl100k_base", "o200k_base")
    ]
    assert [r["tokens"] for r in table(at).values()] == expected


def test_choosing_tokenizers():
    at = open_page()
    at.multiselect(key="tok_choice").set_value(["o200k_base"]).run()
    assert list(table(at)) == [O200K]
    assert len(T.columns(at)) == 1
    at.multiselect(key="tok_choice").set_value([]).run()
    assert not T.columns(at) and any("Choose at least one tokenizer" in i.value for i in at.info)


def test_special_token_toggle(ref):
    at = open_page()
    set_preset(at, "chat")
    text = PRESETS["chat"]["text"]
    as_special = len(ref["cl100k_base"].encode(text, allowed_special="all"))
    as_text = len(ref["cl100k_base"].encode_ordinary(text))
    assert as_text > as_special
    assert table(at)[CL100K]["tokens"] == as_special
    assert table(at)[CL100K]["special tokens"] == 1
    assert any(f"as plain text the same text is {as_text:,} tokens" in h for h in T.heads(at))
    at.toggle(key="tok_special").set_value(False).run()
    assert table(at)[CL100K]["tokens"] == as_text
    assert table(at)[CL100K]["special tokens"] == 0
    assert any(f"treated as special tokens the text is {as_special:,} tokens" in h for h in T.heads(at))
    # the fallback trained tokenizer reserves <|im_start|>, <|im_end|>, <|endoftext|>: 4+4+... specials
    at.toggle(key="tok_special").set_value(True).run()
    assert table(at)["Trained (256 merges)"]["special tokens"] == text.count("<|im_start|>") + text.count(
        "<|im_end|>"
    ) + text.count("<|endoftext|>")


def test_split_characters_drawn_whole_or_as_bytes():
    # the view draws them (tests/browser/test_tokenize_browser.py); here: the setting it gets, and lengths
    # that split a character (the emoji preset's 4-byte characters fall in several byte-level tokens)
    at = open_page()
    set_preset(at, "emoji")
    assert T.settings(at)["whole"] is True
    data = PRESETS["emoji"]["text"].encode()
    ends, pos = set(), 0
    for n in T.column(at, "cl100k_base")["lens"]:
        pos += n
        ends.add(pos)
    assert any(0 < e < len(data) and (data[e] & 0xC0) == 0x80 for e in ends)  # a token ends inside a character
    at.radio(key="tok_chars").set_value("bytes").run()
    assert T.settings(at)["whole"] is False


def test_id_list_toggle_and_large_text():
    at = open_page()
    assert T.settings(at)["showIds"] is True
    at.toggle(key="tok_ids").set_value(False).run()
    assert T.settings(at)["showIds"] is False
    at.toggle(key="tok_big").set_value(True).run()
    assert T.settings(at)["big"] is True
    # presenter view (the shared sidebar's toggle) reaches the view too: its shadow root keeps the page's CSS out
    assert T.settings(at)["presenter"] is False
    at.session_state[appstate.keys.PRESENTER] = True
    at.run()
    assert T.settings(at)["presenter"] is True


def test_trace_of_a_typed_word_ends_at_tiktokens_ids(ref):
    at = open_page()
    at.text_input(key="tok_trace_word").input(" tokenization").run()
    traces = [b for b in html_bodies(at) if 'class="tokv-trace"' in b]
    assert len(traces) == 3
    for body, name in zip(traces[1:], ["cl100k_base", "o200k_base"]):
        last = body.split('class="tokv-row"')[-1]
        ids = [int(x) for x in re.findall(r'data-id="(\d+)"', last)]
        assert ids == ref[name].encode_ordinary(" tokenization")
        first = body.split('class="tokv-row"')[1]
        assert len(re.findall(r'data-id="(\d+)"', first)) == len(" tokenization".encode())
    assert any("rank order" in c.value for c in at.caption)


def test_a_word_whose_chunks_repeat_is_traced_chunk_by_chunk(ref):
    # digits go in groups of up to three (GPT-4's and GPT-4o's patterns): "111111" is the chunk "111" twice
    # (once two containers with one key: StreamlitDuplicateElementKey, caught by the page guard)
    at = open_page()
    at.text_input(key="tok_trace_word").input("111111").run()
    assert not at.exception and not at.error
    traces = [b for b in html_bodies(at) if 'class="tokv-trace"' in b]
    assert len(traces) == 3 * 2  # three columns, two chunks each
    assert "2 chunks" in " ".join(c.value for c in at.caption)


def test_trace_picker_offers_the_texts_chunks():
    at = open_page()
    pick = [s for s in at.selectbox if s.key and s.key.startswith("tok_trace_pick_")][0]
    assert (
        " antidisestablishmentarianism" in pick.options
        or "·antidisestablishmentarianism" in pick.options
        or any("antidisestablishmentarianism" in o for o in pick.options)
    )


def test_players_tokenizer_at_its_current_merge():
    # The player trained "aaabdaaabac" (no pre-tokenizer) and shows merge 1 (aa -> Z): ZabdZabac = 9 tokens.
    text = "aaabdaaabac"
    settings = appstate.runs.TrainSettings(vocab_size=259, pattern=None, tie_break="lexical")
    at = open_page(
        **{
            appstate.keys.PLAYER_RUN: (appstate.runs.text_key(text), settings),
            appstate.keys.PLAYER_TEXT: text,
            appstate.keys.PLAYER_STEP: 1,
            appstate.keys.TOK_TEXT: text,
            "tok_choice": ["trained"],
        }
    )
    assert at.toggle(key="tok_follow_player").value
    assert list(table(at)) == ["Trained (1 merges)"]
    assert shown_tokens(at) == [9]
    # any merge count chosen here: all 3 merges give X d X a c = 5 tokens
    at.toggle(key="tok_follow_player").set_value(False).run()
    at.slider[0].set_value(3).run()
    assert shown_tokens(at) == [5]
    at.slider[0].set_value(0).run()
    assert shown_tokens(at) == [11]


def test_after_visiting_the_player_its_run_is_used():
    at = open_page(via_player=True)
    if appstate.keys.PLAYER_RUN not in at.session_state:
        pytest.skip("the Merge player did not train anything on first load")
    step = at.session_state[appstate.keys.PLAYER_STEP]
    title = next(iter(table(at)))
    body = "".join(html_bodies(at))
    # the sentence reads as English (issue 25: it said "Trained on the text trained on the Merge player")
    assert "Trained on the Merge player’s text:" in body.replace("&#x27;", "’").replace("'", "’")
    assert "text trained on" not in body
    # at merge 0 there is nothing to look at: the page then uses every merge (and says so)
    m = int(re.search(r"Trained \((\d[\d,]*) merges\)", title).group(1).replace(",", ""))
    if step > 0:
        assert m == step and at.toggle(key="tok_follow_player").value
    else:
        assert m > 0 and not at.toggle(key="tok_follow_player").value


def test_user_markup_is_escaped():
    at = open_page()
    evil = '<script>alert(1)</script><b>bold</b><img src=x onerror="alert(2)">'
    type_text(at, evil)
    assert not at.exception
    for b in html_bodies(at) + T.heads(at) + [T.mail(at)["compare"]]:
        assert "<script" not in b and "<b>" not in b and "<img" not in b
    # the text itself travels as data (the view escapes it: tests/browser), never as markup
    assert T.settings(at)["text"] == evil


def test_huge_paste_is_cut_with_a_message(ref):
    at = open_page()
    at.multiselect(key="tok_choice").set_value(["cl100k_base"]).run()
    # Over 1,000,000 characters: the box refuses the paste whole (as a browser does), keeping its text.
    # the box refuses more than 1,000,000 characters (its maxlength, as a browser does)
    assert T.settings(at)["max"] == appstate.sources.MAX_TEXT_BYTES
    # 930,000 characters but 1.1 MB: within the box, over the byte limit: cut, with a message.
    big = "Größe der Schlange überrascht. " * 30_000
    assert len(big) <= appstate.sources.MAX_TEXT_BYTES < len(big.encode())
    t0 = time.perf_counter()
    type_text(at, big, timeout=120)
    elapsed = time.perf_counter() - t0
    assert not at.exception
    assert any("over the 1,000,000-byte limit" in m for m in page_messages(at, "warning"))
    kept = big.encode()[: appstate.sources.MAX_TEXT_BYTES].decode("utf-8", "ignore")
    assert T.settings(at)["text"] == kept  # the view shows the text cut
    assert table(at)[CL100K]["tokens"] == len(ref["cl100k_base"].encode(kept))
    assert T.column(at, "cl100k_base")["ids"] == ref["cl100k_base"].encode(kept)  # every token, for the view
    assert elapsed < 60  # a hang detector: 3.6 s measured (load 11), over 5x
    print(f"1.1 MB paste, GPT-4: page run {elapsed:.2f} s")


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
