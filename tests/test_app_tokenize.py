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
from app_tokenize_kit import CL100K, O200K, open_page, set_preset
from helpers import PRESETS, html_bodies, page_messages
from tiktoken_reference import tiktoken_encoding
from tokenize_driver import shown_tokens, table, type_text

import appstate.keys
import appstate.runs
import appstate.sources
import appstate.vocabs
import bpe


@pytest.fixture(scope="module")
def ref():
    return {n: tiktoken_encoding(n) for n in ("cl100k_base", "o200k_base")}


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
    assert "as the Merge player trains it (nothing trained on it yet)" in "".join(html_bodies(at))


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


def test_trained_column_is_the_players_tokenizer_before_and_after_the_player():
    """Issue 14: opened fresh, the trained column was trained on the whole English essay, the player's on its
    first ~90% (the rest held out for its compression chart): 145 tokens for the prose preset, then 143."""
    from bpe.excerpt import heldout_start

    text = PRESETS["prose"]["text"]
    fresh = T.column(open_page(), "trained")["ids"]
    played = T.column(open_page(via_player=True), "trained")["ids"]
    # independently: 256 merges learned on the part of the first sample the player trains on, GPT-4's pattern,
    # bytes, ties broken lexically (the player's defaults), encoding the preset
    essay = appstate.sources.samples()[0].text
    run = bpe.train(essay[: heldout_start(essay)], 256 + 256, pattern="gpt4", level="byte", tie_break="lexical")
    assert len(run.merges) == 256
    expected = run.tokenizer(256).encode(text)
    assert fresh == played == expected
    assert len(expected) < len(run.tokenizer(0).encode(text))  # (the merges do shorten it)
