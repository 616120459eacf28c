"""The player's replay of a real vocabulary (views/vocab_player.py): what the browser draws at step k is the
replay's tokens at step k, and the last step is the reference tokenizer's ids.

Independent sources: tiktoken's own ``cl100k_base`` ids (``tiktoken_reference``), and small hand-made rank
vocabularies whose steps are worked out by hand below.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT, ROOT / "tests"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from tiktoken_reference import tiktoken_encoding  # noqa: E402

import bpe  # noqa: E402
from bpe.vocab_replay import replay  # noqa: E402
from views.player_payload import TOP_PAIRS, pack, unpack  # noqa: E402
from views.vocab_player import (  # noqa: E402
    differences,
    first_offset,
    replay_payload,
    replay_window,
    replay_window_payload,
    steps_frame,
)

ENGLISH = (ROOT / "sample_texts" / "english.txt").read_text(encoding="utf-8")
MULTI = (ROOT / "sample_texts" / "multilingual.txt").read_text(encoding="utf-8")


def on_screen(w, k):
    """What the component draws at step k: the nodes with from <= k <= to (its filter)."""
    return [(i, s) for s, i, f, t in zip(w["start"], w["id"], w["from"], w["to"]) if f <= k <= t]


def windows(rep, tag="t"):
    """Every window the player can show, tiling the text: (payload, first byte of the window)."""
    out, start = [], 0
    while start < len(rep.text):
        nodes = replay_window(rep, start, 1500)
        w = replay_window_payload(nodes, tag=tag, n_steps=len(rep.steps), total_chars=len(rep.text), first_char=start)
        out.append((w, nodes.first_byte))
        start += len(nodes.text) or 1
    return out


def hand_vocab(extra: dict[int, bytes]) -> "bpe.Tokenizer":
    vocab = {i: bytes([i]) for i in range(256)}
    vocab.update(extra)
    return bpe.Tokenizer.from_ranks({t: i for i, t in vocab.items()}, pattern=None)


# --------------------------------------------------------------------------- hand-worked examples


def test_a_hand_made_vocabulary_step_by_step():
    # ranks: "bc" 256, "ab" 257, "abc" 258, "xab" 259; the text "abc xab" is one chunk (no pattern).
    # By hand, lowest rank first: bc (in abc), then ab (in xab), then a+bc -> abc, then x+ab -> xab.
    tok = hand_vocab({256: b"bc", 257: b"ab", 258: b"abc", 259: b"xab"})
    rep = replay(tok, "abc xab")
    a, b, c, x, sp = 97, 98, 99, 120, 32
    expected = [
        [(a, 0), (b, 1), (c, 2), (sp, 3), (x, 4), (a, 5), (b, 6)],
        [(a, 0), (256, 1), (sp, 3), (x, 4), (a, 5), (b, 6)],
        [(a, 0), (256, 1), (sp, 3), (x, 4), (257, 5)],
        [(258, 0), (sp, 3), (x, 4), (257, 5)],
        [(258, 0), (sp, 3), (259, 4)],
    ]
    ((w, first),) = windows(rep)
    assert first == 0
    for k, want in enumerate(expected):
        assert on_screen(w, k) == want, k
    p = replay_payload(rep, tag="t", vocab="hand-made")
    assert p["n"] == 4 and p["tokens"] == [7, 6, 5, 4, 3]
    assert p["new"] == [256, 257, 258, 259] and p["rank"] == [256, 257, 258, 259]
    assert p["pair"] == [b, c, a, b, a, 256, x, 257]  # the pairs recovered from the ranks
    assert p["count"] == [1, 1, 1, 1]
    assert [p["label"][str(i)] for i in p["new"]] == ["bc", "ab", "abc", "xab"]
    # the bars before step 1: steps 1..4 in rank order; before step 3: steps 3, 4
    assert p["top_n"][0] == 4 and p["top_i"][:4] == [0, 1, 2, 3]
    assert p["top_n"][2] == 2 and p["top_i"][4 + 3 : 4 + 3 + 2] == [2, 3]
    assert unpack(pack(p)) == p


def test_a_whole_chunk_lookup_is_a_step_without_a_pair():
    # "xyz" is a token, but neither "xy" nor "yz" is: no merge reaches it; tiktoken looks the chunk up whole.
    # And "ab" (256) merges first. By hand: step 1 ab, step 2 the lookup of xyz (rank 257).
    tok = hand_vocab({256: b"ab", 257: b"xyz"})
    assert tok.encode("xyz") == [257]
    rep = replay(tok, "xyz")
    p = replay_payload(rep, tag="t", vocab="hand-made")
    assert p["n"] == 1 and p["pair"] == [-1, -1] and p["new"] == [257] and p["lookups"] == {"0": 1}
    ((w, _),) = windows(rep)
    assert on_screen(w, 0) == [(120, 0), (121, 1), (122, 2)]
    assert on_screen(w, 1) == [(257, 0)]
    assert differences(rep) == [(1, "lookups", '"xyz": 1 of its 1 are whole chunks looked up, not merged from a pair')]
    assert steps_frame(rep, 1).iloc[0]["left"] == "(whole chunk)"


# --------------------------------------------------------------------------- GPT-4, against tiktoken


@pytest.mark.parametrize("text", [ENGLISH, MULTI, "<|endoftext|> hello <|endoftext|>\n\n  world  "])
def test_the_last_step_is_tiktokens_ids_in_every_window(text):
    tok = bpe.load_pretrained("cl100k_base")
    ids = tiktoken_encoding("cl100k_base").encode(text, allowed_special="all")
    rep = replay(tok, text)
    n = len(rep.steps)
    drawn, size = [], 0
    for w, first in windows(rep):
        assert w["first"] == len(rep.text.encode()[:first].decode())
        drawn += on_screen(w, n)
        size += w["bytes"]
    assert [i for i, _ in drawn] == ids
    assert size == len(text.encode())
    p = replay_payload(rep, tag="t", vocab="GPT-4")
    assert p["tokens"][-1] == len(ids) and p["tokens"][0] == len(rep.tokens_at(0))
    # the special tokens of the text are special ids (100257 is <|endoftext|> in cl100k_base)
    assert p["special"] == ([100257] if "<|endoftext|>" in text else [])


def test_every_step_draws_the_replays_tokens_on_the_english_sample():
    tok = bpe.load_pretrained("cl100k_base")
    rep = replay(tok, ENGLISH)
    n = len(rep.steps)
    for w, first in windows(rep)[:2]:
        for k in (0, 1, 2, n // 3, n // 2, n - 1, n):
            want = [(i, o - first) for i, o, _ in rep.tokens_at(k) if first <= o < first + w["bytes"]]
            assert on_screen(w, k) == want, k
    # and the steps are in rank order, each making the token its recovered pair spells (tiktoken's bytes)
    enc = tiktoken_encoding("cl100k_base")
    p = replay_payload(rep, tag="t", vocab="GPT-4")
    assert p["rank"] == sorted(p["rank"])
    for r in range(0, n, 37):
        a, b = p["pair"][2 * r], p["pair"][2 * r + 1]
        assert enc.decode_single_token_bytes(a) + enc.decode_single_token_bytes(b) == enc.decode_single_token_bytes(
            p["new"][r]
        )
        # the bars before step r + 1: that step, then the next ones in rank order, with their counts
        start = sum(p["top_n"][:r])
        entries = p["top_i"][start : start + p["top_n"][r]]
        assert entries == list(range(r, min(n, r + TOP_PAIRS)))
        assert p["top_c"][start : start + len(entries)] == [p["count"][j] for j in entries]
    # a step's count is how many tokens it makes (cl100k has no cascade on this text)
    for k in (1, 10, 100):
        assert p["tokens"][k - 1] - p["tokens"][k] == p["count"][k - 1]
    at = first_offset(rep, 1)
    assert ENGLISH[at : at + 2] == tok.token_bytes(p["new"][0]).decode()


def test_labels_are_sent_only_for_the_ids_used():
    rep = replay(bpe.load_pretrained("cl100k_base"), MULTI)
    p = replay_payload(rep, tag="t", vocab="GPT-4")
    used = {i for i, _, _ in rep.tokens_at(0)} | set(p["new"]) | {i for i in p["pair"] if i >= 0}
    assert set(map(int, p["label"])) == used and set(map(int, p["nbytes"])) == used
    assert len(pack(p)) < 60_000


def test_a_sentencepiece_style_replay_draws_characters_and_byte_fallback_tokens():
    """A Llama-2-like tokenizer.json built with HF tokenizers: the payload counts characters, labels the
    <0xNN> tokens HF gives the parrot and draws them as byte-fallback chips under it; the tree and the
    explainer say what they are."""
    pytest.importorskip("tokenizers")
    from testkit import corpora
    from testkit.sentencepiece_files import llama_like
    from views.vocab_player import build_tree_html, explainer_html, find_token

    hf = llama_like(corpora.english(30_000), 500)
    tok = bpe.loads({"tokenizer.json": hf.to_str().encode()})
    text = "the parrot 🦜 said hello"
    rep = replay(tok, text)
    p = replay_payload(rep, tag="t", vocab="llama_like.json")
    hf_tokens = hf.encode(text, add_special_tokens=False).tokens
    assert p["unit"] == "character" and p["tokens"][-1] == len(hf_tokens)
    assert [p["label"][str(i)] for i in p["fallback"]] == sorted(
        ["<0xF0>", "<0x9F>", "<0xA6>", "<0x9C>"], key=lambda t: hf.token_to_id(t)
    )
    assert all('class="bpe-bf"' in p["piece"][str(i)] for i in p["fallback"])
    w = replay_window_payload(
        replay_window(rep, 0, 1500),
        tag="t",
        n_steps=len(rep.steps),
        total_chars=len(rep.text),
        first_char=0,
        level="char",
        byte_fallback=True,
    )
    assert "🦜" in w["ch_label"] and w["ch_len"][w["ch_label"].index("🦜")] == 4
    f0 = hf.token_to_id("<0xF0>")
    assert "byte-fallback token" in build_tree_html(rep, f0, len(rep.steps), vocab="llama_like.json")
    assert "base character" in build_tree_html(rep, hf.token_to_id("▁"), 0, vocab="llama_like.json")
    assert find_token(rep, "<0xF0>") == (f0, "") and find_token(rep, "▁the") == (hf.token_to_id("▁the"), "")
    words = explainer_html("<b>x</b>", [], merge_list=True)
    assert "keeps the learned pairs themselves" in words and "<b>x</b>" not in words
