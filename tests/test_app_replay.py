"""AppTest: the merge player's second mode, replaying a real vocabulary on the text (Python side).

Expected values come from tiktoken's own ``cl100k_base`` ids (``tiktoken_reference``) and from hand-checked
facts about the English sample, never from the code under test.
"""

from __future__ import annotations

import html

import player_driver as P
import pytest
from helpers import open_app, own_script, page_html, page_messages, share_link
from streamlit.testing.v1 import AppTest
from tiktoken_reference import tiktoken_encoding

import appstate.keys
import appstate.sources
import appstate.vocabs
from bpe.vocab_replay import MAX_REPLAY_BYTES

ENGLISH = appstate.sources.sample("english").text
SUBMIT = "FormSubmitter:player_paste_form-Replay on this text"


def bodies(at) -> str:
    """The page's HTML with its entities unescaped (messages quote the link's values)."""
    return html.unescape(page_html(at))


def to_replay(at) -> AppTest:
    at.segmented_control(key=appstate.keys.PLAYER_MODE).set_value("replay").run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_switching_to_replay_plays_gpt4_on_the_sample_and_ends_on_tiktokens_ids():
    at = open_app()
    assert at.session_state[appstate.keys.PLAYER_SAMPLE] == "english"
    to_replay(at)
    run = P.run_payload(at)
    assert run["mode"] == "replay" and run["vocab"] == "GPT-4" and P.k(at) == 0
    ids = tiktoken_encoding("cl100k_base").encode(ENGLISH, allowed_special="all")
    assert run["tokens"][0] == len(ENGLISH.encode()) and run["tokens"][-1] == len(ids)
    # the window: the first part of the essay, one token per byte at step 0, tiktoken's ids at the end
    w = P.window(at)
    assert [i for _, i in P.drawn(at, run["n"])] == ids[: len(P.drawn(at, run["n"]))]
    assert "".join(P.texts(at, 0)).replace("·", " ").replace("↵", "\n").startswith("How Words Become Numbers")
    assert w["total"] == len(ENGLISH) and w["chars"] < len(ENGLISH)
    assert "Replaying on" in bodies(at) and "813 of its merges fire" in bodies(at)


def test_reports_move_the_panels_and_the_link_and_leave_training_alone():
    at = to_replay(open_app())
    train_step = at.session_state[appstate.keys.PLAYER_STEP]
    P.report(at, 1)
    assert P.k(at) == 1 and at.session_state[appstate.keys.REPLAY_STEP] == 1
    # step 1: "in" (cl100k rank 258; ranks 256, 257 are runs of spaces the essay does not hold)
    assert "in" in [row for row in at.dataframe[-1].value["new token"]]
    qp = at.query_params
    assert qp["replay"] == "cl100k_base" and qp["merge"] == "1" and qp["sample"] == "english"
    assert "merges" not in qp and "pattern" not in qp  # training settings do not change a replay
    assert "?sample=english&replay=cl100k_base&speed=2&merge=1" in share_link(at)
    P.report(at, 40)
    assert at.session_state[appstate.keys.PLAYER_STEP] == train_step  # the trained tokenizer's merge is untouched
    # back to training: its run and merge again, and no replay in the link
    at.segmented_control(key=appstate.keys.PLAYER_MODE).set_value("train").run()
    assert P.run_payload(at).get("mode") is None and P.k(at) == train_step
    assert "replay" not in at.query_params


def test_a_link_restores_mode_vocabulary_and_step():
    at = open_app(query={"sample": "english", "replay": "cl100k_base", "merge": "40"})
    assert at.session_state[appstate.keys.PLAYER_MODE] == "replay" and P.k(at) == 40
    at = open_app(query={"sample": "english", "replay": "gpt9", "merge": "4"})
    assert P.run_payload(at)["vocab"] == "GPT-4" and P.k(at) == 4
    assert "replay='gpt9' is not one of" in bodies(at)
    at = open_app(query={"sample": "hello", "replay": "cl100k_base", "merge": "99"})
    assert P.k(at) == P.run_payload(at)["n"] and "beyond this replay" in bodies(at)


def test_another_vocabulary_replays_its_own_merges():
    at = to_replay(open_app())
    at.selectbox(key=appstate.keys.PLAYER_VOCAB).set_value("o200k_base").run()
    run = P.run_payload(at)
    ids = tiktoken_encoding("o200k_base").encode(ENGLISH, allowed_special="all")
    assert run["vocab"] == "GPT-4o" and run["tokens"][-1] == len(ids) and P.k(at) == 0
    assert at.query_params["replay"] == "o200k_base"


def test_a_clicked_token_is_explained_down_to_bytes():
    at = to_replay(open_app())
    P.report(at, 813, explain=15339)  # a token clicked at the last step; tiktoken says what it is
    word = tiktoken_encoding("cl100k_base").decode_single_token_bytes(15339).decode()
    tree = [h.proto.body for h in at.get("html") if 'class="bpe-pl-tree"' in h.proto.body]
    assert len(tree) == 1 and "(id 15339) is GPT-4’s merge" in tree[0] and word in tree[0]
    at.text_input(key=appstate.keys.REPLAY_QUERY).input("no such id 1").run()
    assert any("not one" in w for w in page_messages(at, "warning"))
    for typed, says in (("²", ""), ("100256", "no token with id 100256"), ("·the", "")):  # ² is no id
        at.text_input(key=appstate.keys.REPLAY_QUERY).input(typed).run()
        assert not at.exception
        assert [w for w in page_messages(at, "warning") if says and says in w] or not says
    # "·the" is one token of GPT-4 (tiktoken: " the" is 279)
    assert "(id 279)" in [h.proto.body for h in at.get("html") if 'class="bpe-pl-tree"' in h.proto.body][0]


def test_a_text_over_the_replay_limit_gets_a_message_and_can_be_cut():
    at = to_replay(open_app())
    at.radio(key=appstate.keys.PLAYER_SOURCE).set_value("paste").run()
    text = "a few words of text\n" * (MAX_REPLAY_BYTES // 20 + 500)
    at.text_area(key=appstate.keys.PLAYER_PASTE).input(text)
    at.button(key=SUBMIT).click().run()
    assert not at.exception
    assert any("a replay takes at most 200 KB" in e for e in page_messages(at, "error"))
    at.checkbox(key=appstate.keys.REPLAY_CUT).check().run()
    assert not page_messages(at, "error")
    run = P.run_payload(at)
    assert MAX_REPLAY_BYTES - 200 < run["bytes"] <= MAX_REPLAY_BYTES and run["bytes"] % 20 == 0  # whole lines
    assert "(the first part of a longer text)" in bodies(at)


def test_hostile_text_is_escaped_in_the_replay_panels():
    at = to_replay(open_app())
    at.radio(key=appstate.keys.PLAYER_SOURCE).set_value("paste").run()
    at.text_area(key=appstate.keys.PLAYER_PASTE).input("<script>alert(1)</script><b>bold</b>")
    at.button(key=SUBMIT).click().run()
    assert not at.exception and not page_messages(at, "error")
    raw = "\n".join(h.proto.body for h in at.get("html") if not own_script(h.proto.body))
    assert "<script" not in raw and "<b>bold" not in raw
    assert P.run_payload(at)["mode"] == "replay"


def test_an_empty_paste_says_so():
    at = to_replay(open_app())
    at.radio(key=appstate.keys.PLAYER_SOURCE).set_value("paste").run()
    at.text_area(key=appstate.keys.PLAYER_PASTE).input("")
    at.button(key=SUBMIT).click().run()
    assert any("nothing to replay" in e for e in page_messages(at, "error"))


def test_the_window_moves_to_a_step_made_outside_it():
    at = to_replay(open_app())
    run = P.run_payload(at)
    w = P.window(at)
    # the last step whose tokens are all outside the first window (the essay is longer than a window)
    outside = [k for k in range(run["n"], 0, -1) if not any(f == k for f in w["from"])][0]
    P.report(at, outside)
    at.button(key="player_replay_to_occurrence").click().run()
    w = P.window(at)
    assert w["first"] > 0 and any(f == outside for f in w["from"])
    assert P.k(at) == outside


# --------------------------------------------------------------------------- an uploaded tokenizer.json


def _upload(hf, name: str) -> dict:
    """Put a tokenizer.json into the shared upload cache as the sidebar's uploader does (AppTest has no file
    uploader), return the session's entry."""
    group = appstate.vocabs.UploadGroup((name,), (hf.to_str().encode(),), name)
    appstate.vocabs.load_upload(group)
    return {"digest": group.digest, "label": name}


def _replaying(entry: dict, **state) -> AppTest:
    at = open_app(
        first_run=True,
        state={
            appstate.keys.PLAYER_MODE: "replay",
            appstate.keys.PLAYER_VOCAB: "upload",
            appstate.keys.REPLAY_UPLOADED: entry,
            **state,
        },
    )
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_an_uploaded_sentencepiece_style_tokenizer_replays_to_hugging_faces_ids():
    """A Llama-2-like tokenizer.json made with HF tokenizers' own trainer: the last step is HF's ids for the
    sample; the emoji sample's characters it lacks are <0xNN> byte tokens, drawn as byte-fallback chips."""
    pytest.importorskip("tokenizers")
    from testkit import corpora
    from testkit.sentencepiece_files import llama_like

    hf = llama_like(corpora.english(40_000) + corpora.multilingual(10_000), 700)
    at = _replaying(_upload(hf, "llama_like.json"))
    assert not page_messages(at, "error")
    run = P.run_payload(at)
    ids = hf.encode(ENGLISH, add_special_tokens=False).ids
    assert run["mode"] == "replay" and run["vocab"] == "llama_like.json" and run["unit"] == "character"
    assert run["tokens"][-1] == len(ids) and [i for _, i in P.drawn(at, run["n"])] == ids[: len(P.drawn(at, run["n"]))]
    assert "".join(P.texts(at, run["n"])).startswith("▁How▁Words")
    assert "A tokenizer.json keeps the learned pairs themselves" in bodies(at)
    # no link can carry the file: the link leaves the replay out and says why
    assert "replay" not in at.query_params and "replay=" not in share_link(at)
    assert any("An uploaded tokenizer cannot be linked" in c.value for c in at.caption)
    at.selectbox(key="player_sample").set_value("emoji").run()
    run = P.run_payload(at)
    emoji = appstate.sources.sample("emoji").text
    hf_tokens = hf.encode(emoji, add_special_tokens=False).tokens
    assert run["tokens"][-1] == len(hf_tokens)
    drawn = P.drawn(at, run["n"])
    fallback = [i for _, i in drawn if i in run["fallback"]]
    assert fallback and all(
        run["label"][str(i)] in hf_tokens and run["label"][str(i)].startswith("<0x") for i in fallback
    )
    assert all('class="bpe-bf"' in run["piece"][str(i)] for i in fallback)


def test_an_upload_the_replay_cannot_play_is_refused_with_a_message():
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import models, pre_tokenizers, trainers

    quick = tokenizers.Tokenizer(models.BPE(unk_token="[UNK]"))
    quick.pre_tokenizer = pre_tokenizers.Whitespace()
    quick.train_from_iterator([ENGLISH], trainer=trainers.BpeTrainer(vocab_size=300, special_tokens=["[UNK]"]))
    at = _replaying(_upload(quick, "quicktour <b>.json"))
    errors = " ".join(page_messages(at, "error"))
    assert "drops characters of the text" in errors and "SentencePiece-style" in errors
    # no upload yet: the page says what to do
    at = open_app(first_run=True, state={appstate.keys.PLAYER_MODE: "replay", appstate.keys.PLAYER_VOCAB: "upload"})
    assert not at.exception and any("Upload a tokenizer.json in the sidebar" in e for e in page_messages(at, "error"))
    # a tokenizer the server no longer holds
    at = _replaying({"digest": "0" * 64, "label": "gone.json"})
    assert any("no longer in memory" in e for e in page_messages(at, "error"))


def test_an_uploaded_files_name_is_plain_text_in_the_markdown_heading():
    """The replay's heading quotes the vocabulary's name, an uploaded file's name here: a CommonMark renderer
    (markdown-it, not our code) must show it as the very characters, no emphasis, link or HTML tag."""
    tokenizers = pytest.importorskip("tokenizers")
    from markdown_it import MarkdownIt

    byte_level = tokenizers.ByteLevelBPETokenizer()
    byte_level.train_from_iterator([ENGLISH], vocab_size=300, show_progress=False)
    name = "**x** [a](javascript:alert(1)) <b>"
    at = _replaying(_upload(byte_level, name))
    assert not page_messages(at, "error")
    heads = [m.value for m in at.markdown if "merges on this text" in m.value]
    assert len(heads) == 1
    rendered = MarkdownIt("commonmark").render(heads[0])
    assert rendered.startswith("<h5>") and rendered.count("<") == 2  # <h5> and </h5>: no tag of the name's
    text = html.unescape(rendered[len("<h5>") : -len("</h5>\n")]).replace("\u2060", "")
    assert text.startswith(f"5 · {name}’s merges on this text")
