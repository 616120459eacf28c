"""The merge player's payloads (views/player_payload.py): what the browser draws at step k must be what the
Python views and the library say for step k.

Independent sources: the hand-worked ``aaabdaaabac`` example (merges ``a a`` x4, ``a b`` x2 tied with
``aa a``, ``aa ab`` x2; 11 -> 9 -> 7 -> 5 tokens) and the library's tokenizer with the first k merges
(``run.tokenizer(k).encode``), a different code path from the replay the payload is built from.
"""

from __future__ import annotations

import html
import unicodedata
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bpe
from bpe.replay import MergeIndex, Replay
from views.player_payload import TOP_PAIRS, pack, run_payload, unpack, window_payload
from views.theme import PALETTES

ROOT = Path(__file__).resolve().parents[1]

A, B, C, D = 97, 98, 99, 100


def window(run, text, **kw):
    rep = Replay.build(run, MergeIndex(run), text)
    return window_payload(rep, tag="t", n_merges=len(run.merges), level=run.level, **kw)


def on_screen(w, k):
    """What the component draws at step k: the nodes with from <= k <= to, in order (its filter)."""
    return [(s, i) for s, i, f, t in zip(w["start"], w["id"], w["from"], w["to"]) if f <= k <= t]


def highlighted(w, k):
    return [s for s, f, t in zip(w["start"], w["from"], w["to"]) if f == k and f <= k <= t] if k else []


# --------------------------------------------------------------------------- run payload


def test_run_payload_of_the_classic_example(classic):
    p = run_payload(classic, tag="t")
    assert p["n"] == 3 and p["unit"] == "byte" and p["base"] == 256 and p["bytes"] == 11
    assert p["pair"] == [A, A, A, B, 256, 257]
    assert p["count"] == [4, 2, 2]
    assert p["ties"] == [0, 1, 0]  # merge 2: "a b" tied with "aa a"
    assert p["tokens"] == [11, 9, 7, 5]
    assert p["label"][256:] == ["aa", "ab", "aaab"]
    assert p["nbytes"][256:] == [2, 2, 4]
    assert "lexical" in p["tie"] and p["held"] is None


def top(p, r):
    """The top pairs before merge rank r, decoded from the payload."""
    start = sum(p["top_n"][:r])
    out = []
    for j in range(start, start + p["top_n"][r]):
        i = p["top_i"][j]
        out.append(((p["top_pairs"][2 * i], p["top_pairs"][2 * i + 1]), p["top_c"][j]))
    return out


def test_top_pairs_decode_to_the_hand_worked_counts(classic):
    p = run_payload(classic, tag="t")
    # before merge 1: aa x4, then ab, bd, da, ba, ac once or twice (a b twice, the rest once)
    first = dict(top(p, 0))
    assert first[(A, A)] == 4 and first[(A, B)] == 2 and first[(B, D)] == 1 and first[(A, C)] == 1
    assert top(p, 0)[0] == ((A, A), 4)  # the winner first
    assert top(p, 1)[0] == ((A, B), 2) and dict(top(p, 1))[(256, A)] == 2  # the tie
    assert top(p, 2)[0] == ((256, 257), 2)


def test_top_pairs_equal_the_runs_record_on_a_real_text():
    text = (ROOT / "sample_texts" / "english.txt").read_text(encoding="utf-8")
    run = bpe.train(text, 256 + 120)
    p = run_payload(run, tag="t")
    for m in run.merges:
        assert top(p, m.rank) == [(tuple(q), c) for q, c in m.top_pairs[:TOP_PAIRS]]
        assert (p["pair"][2 * m.rank], p["pair"][2 * m.rank + 1]) == m.pair
    assert p["tokens"] == run.token_counts()


def test_labels_pieces_and_colors_come_from_the_views():
    run = bpe.train("a é\t<b>x</b>\n" * 4, 256 + 8, pattern=None, special_tokens=["<|x|>"])
    p = run_payload(run, tag="t", palette="okabe_ito")
    assert p["palette"] == list(PALETTES["okabe_ito"])
    assert len(p["label"]) == run.vocab_size == len(p["color"]) == len(p["nbytes"])
    assert p["label"][32] == "·" and p["label"][9] == "→" and p["label"][10] == "↵"
    assert p["label"][0xC3] == "<C3>"
    special = run.special_tokens["<|x|>"]
    assert p["special"] == [special] and p["label"][special] == "<|x|>"
    # the inner HTML is sent only where it is more than the escaped label, and it is escaped
    assert p["piece"]["32"] == '<span class="bpe-ws">·</span>'
    assert "0xC3" not in p["piece"]["195"] and "C3" in p["piece"]["195"]
    assert str(ord("<")) not in p["piece"]  # "<" is just its escaped label: drawn with textContent
    for piece in p["piece"].values():
        assert "<b>" not in piece and "<script" not in piece
    assert p["piece"].get(str(special), html.escape("<|x|>")) == html.escape("<|x|>")


def test_heldout_curve_is_carried_only_when_it_fits(classic):
    assert run_payload(classic, tag="t", heldout_counts=[4, 3, 2, 1], heldout_bytes=4)["held"] == [4, 3, 2, 1]
    assert run_payload(classic, tag="t", heldout_counts=[4, 3], heldout_bytes=4)["held"] is None


def test_pack_is_deterministic_and_round_trips(classic):
    p = run_payload(classic, tag="t")
    assert pack(p) == pack(run_payload(classic, tag="t"))  # same bytes: Streamlit can send a reference
    assert pack(p)[:2] == b"\x1f\x8b" and unpack(pack(p)) == p


# --------------------------------------------------------------------------- window payload


def test_window_of_the_classic_example_at_every_step(classic):
    w = window(classic, "aaabdaaabac")
    assert [len(on_screen(w, k)) for k in range(4)] == [11, 9, 7, 5]
    assert [i for _, i in on_screen(w, 0)] == [A, A, A, B, D, A, A, A, B, A, C]
    assert on_screen(w, 1) == [(0, 256), (2, A), (3, B), (4, D), (5, 256), (7, A), (8, B), (9, A), (10, C)]
    assert on_screen(w, 3) == [(0, 258), (4, D), (5, 258), (9, A), (10, C)]
    assert highlighted(w, 1) == [0, 5] and highlighted(w, 2) == [2, 7] and highlighted(w, 0) == []
    assert w["cs"] == [] and w["bytes"] == 11 and w["ch_len"] == []


def test_window_marks_chunks_specials_and_characters():
    run = bpe.train("hi <|x|> héllo héllo", 256 + 6, pattern="gpt4", special_tokens=["<|x|>"])
    w = window(run, "hi <|x|> héllo", first_char=100, total_chars=5000)
    assert w["first"] == 100 and w["total"] == 5000 and w["chars"] == 14
    specials = [w["start"][i] for i in w["sp"]]
    assert specials == [3] and w["id"][w["sp"][0]] == run.special_tokens["<|x|>"]
    assert 2 in w["cs"] and 3 in w["cs"] and 8 in w["cs"]  # " ", "<|x|>", " héllo"
    assert w["ch_len"][10] == 2 and w["ch_label"][10] == "é" and w["ch_label"][2] == "·"
    assert sum(w["ch_len"]) == w["bytes"] == len("hi <|x|> héllo".encode())


texts = st.text(alphabet=st.sampled_from(list("ab c\n.é😀")), min_size=0, max_size=40)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    train_text=texts.filter(bool),
    shown=texts,
    pattern=st.sampled_from(["gpt4", None]),
    merges=st.integers(0, 25),
    level=st.sampled_from(["byte", "char"]),
)
def test_window_at_step_k_is_the_encoding_with_the_first_k_merges(train_text, shown, pattern, merges, level):
    """The browser's filter of the window payload gives what the tokenizer with k merges encodes, tiling
    the text with no gap, and each drawn token's bytes are its payload label's bytes."""
    base = len(set(train_text)) if level == "char" else 256
    run = bpe.train(train_text, base + merges, pattern=pattern, level=level)
    if level == "char" and not set(shown) <= set(train_text):
        shown = "".join(c for c in shown if c in set(train_text))
    w = window(run, shown)
    p = run_payload(run, tag="t")
    for k in range(len(run.merges) + 1):
        tokens = on_screen(w, k)
        assert [i for _, i in tokens] == run.tokenizer(k).encode(shown)
        pos = 0
        for s, i in tokens:
            assert s == pos
            pos += p["nbytes"][i]
        assert pos == w["bytes"] == len(shown.encode("utf-8"))


def test_labels_read_back_to_the_tokens_text():
    run = bpe.train("naïve café 😀 tab\there", 256 + 20, pattern="gpt4")
    p = run_payload(run, tag="t")
    marks = {"·": " ", "→": "\t", "↵": "\n"}
    for i in range(256, run.vocab_size):
        data = run.token(i)
        label = p["label"][i]
        if all(0x20 <= b < 0x7F or b >= 0x80 for b in data) and "<" not in label:
            assert "".join(marks.get(c, c) for c in label) == unicodedata.normalize("NFC", data.decode())
