"""BPE ``tokenizer.json`` files that are not byte level, read and encoded with the ids Hugging Face gives:
the quicktour's (``Whitespace`` + ``[UNK]``), SentencePiece-style ones like Llama 2's (``▁`` for spaces,
``<0xNN>`` byte fallback) and Mistral/Llama-3-era ``Metaspace(prepend_scheme="first")``, and a zoo of the
other pre-tokenizers, normalizers and model options.

Every reference tokenizer is built with Hugging Face's own Python API and every expected id and decoded text
comes from its ``encode``/``decode``, never from our encoder.
"""

from __future__ import annotations

import json

import pytest

import bpe
from bpe.formats import FormatError, UnsupportedFormatError
from testkit import corpora
from testkit.sentencepiece_files import llama_layout
from tests.torture import TORTURE, long_texts_differing

tokenizers = pytest.importorskip("tokenizers")
from tokenizers import Regex, decoders, models, normalizers, pre_tokenizers, trainers  # noqa: E402

#: Unicode edge cases on top of the torture set
EDGES = [
    "",
    " ",
    "      many      spaces      ",
    "\u200d\u0301\u0300a\u0327",
    "ΣΑΣ ΟΔΟΣ İstanbul ß ǅ",
    "🦜🦜🦜 🇯🇵 👩🏽‍🚀 emoji",
    "中文字符，日本語，한국어",
    "\x00\x01\x02\x7f\x1f\t\x0b\x0c",
    "ﬁ ① ² ½ Ⅻ ٣",
    "a\u0301\u0301\u0301 o\u0308",
    "end with spaces   ",
    " lead",
    "\u2581already\u2581metaspace\u2581",
]
TEXTS = TORTURE + EDGES


@pytest.fixture(scope="module")
def text() -> str:
    return corpora.english(120_000) + corpora.multilingual(60_000) + corpora.python_code(20_000)


def _hf_ids(hf, s: str) -> list[int]:
    return hf.encode(s, add_special_tokens=False).ids


def _load(hf, name: str = "tokenizer.json") -> bpe.Tokenizer:
    return bpe.formats.loads({name: hf.to_str().encode("utf-8")})


def _differences(hf, ours: bpe.Tokenizer, texts=TEXTS) -> list[str]:
    """Texts on which our ids or our decoded text differ from Hugging Face's."""
    bad = []
    for s in texts:
        ids = _hf_ids(hf, s)
        if ours.encode_ordinary(s) != ids:
            bad.append(f"ids of {s[:30]!r}")
        if ours.decode(ids) != hf.decode(ids, skip_special_tokens=False):
            bad.append(f"decode of {s[:30]!r}")
    return bad


@pytest.fixture(scope="module")
def quicktour(text):
    """The HF quicktour tokenizer: BPE, [UNK] and the quicktour's special tokens, Whitespace."""
    hf = tokenizers.Tokenizer(models.BPE(unk_token="[UNK]"))
    hf.pre_tokenizer = pre_tokenizers.Whitespace()
    trainer = trainers.BpeTrainer(vocab_size=1500, special_tokens=["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"])
    hf.train_from_iterator([text[:100_000]], trainer=trainer)
    return hf


@pytest.fixture(scope="module")
def sp_bpe(text):
    """HF's SentencePieceBPETokenizer (NFKC, Metaspace, <unk>), trained."""
    hf = tokenizers.SentencePieceBPETokenizer()
    hf.train_from_iterator([text[:100_000]], vocab_size=1500, min_frequency=2)
    return hf


def _llama_like(sp_bpe, *, legacy: bool):
    """A Llama-2-like tokenizer: <unk> <s> </s>, the 256 byte tokens <0x00>..<0xFF>, then sp_bpe's vocabulary
    and merges; byte_fallback, fuse_unk. ``legacy``: Llama 2's normalizers Prepend("▁") + Replace(" ", "▁")
    and its decoder; else Metaspace(prepend_scheme="first", split=False) as newer conversions write."""
    return llama_layout(sp_bpe, legacy=legacy)


@pytest.fixture(scope="module")
def llama2(sp_bpe):
    return _llama_like(sp_bpe, legacy=True)


@pytest.fixture(scope="module")
def llama_first(sp_bpe):
    return _llama_like(sp_bpe, legacy=False)


@pytest.mark.slow
def test_quicktour_tokenizer_encodes_like_hugging_face(quicktour):
    ours = _load(quicktour)
    assert ours.pipeline is not None and "Whitespace" in ours.pipeline.description
    assert _differences(quicktour, ours) == []
    # characters it never saw are [UNK] (id 0), one per character (fuse_unk is off)
    assert _hf_ids(quicktour, "ℵℵ") == [0, 0] == ours.encode("ℵℵ")


@pytest.mark.slow
def test_sentencepiece_bpe_tokenizer_encodes_like_hugging_face(sp_bpe):
    ours = _load(sp_bpe)
    assert "SentencePiece-style" in ours.pipeline.description
    assert _differences(sp_bpe, ours) == []


@pytest.mark.slow
@pytest.mark.parametrize("legacy", [True, False], ids=["llama2-normalizers", "metaspace-first"])
def test_llama_like_byte_fallback_encodes_like_hugging_face(sp_bpe, legacy):
    hf = _llama_like(sp_bpe, legacy=legacy)
    ours = _load(hf)
    assert _differences(hf, ours) == []
    # a character outside the alphabet: its UTF-8 bytes as <0xNN> tokens (ids 3 + byte), decoded back
    ids = _hf_ids(hf, "🦜")
    assert ids[-4:] == [3 + 0xF0, 3 + 0x9F, 3 + 0xA6, 3 + 0x9C]
    assert ours.encode("🦜") == ids and ours.decode(ids) == "🦜"
    assert [ours.token_text(i) for i in ids[-4:]] == ["<0xF0>", "<0x9F>", "<0xA6>", "<0x9C>"]
    assert ours.decode_bytes(ids[-4:]) == "🦜".encode("utf-8")


@pytest.mark.slow
def test_special_tokens_cut_the_text_before_normalizing(llama2, llama_first):
    """HF splits added tokens out first, then normalizes (Prepend) and pre-tokenizes each piece: after <s> no
    ▁ is prepended with prepend_scheme "first", one is with Llama 2's Prepend normalizer."""
    s = "<s>Hello world</s> again<unk>x  y"
    for hf in (llama2, llama_first):
        assert _load(hf).encode(s, allowed_special="all") == _hf_ids(hf, s)


@pytest.mark.slow
def test_one_megabyte_encodes_like_hugging_face(quicktour, llama2, sp_bpe):
    """1.5 MB of real text and the long one-character runs: with no pre-tokenizer (Llama 2) the whole text
    is one chunk."""
    for hf in (quicktour, llama2, sp_bpe):
        assert long_texts_differing(_load(hf), lambda s, hf=hf: _hf_ids(hf, s)) == []


def _zoo_tokenizer(text: str, pre, normalizer=None, decoder=None, **model):
    trainer_opts = {k: v for k, v in model.items() if k in ("continuing_subword_prefix", "end_of_word_suffix")}
    hf = tokenizers.Tokenizer(models.BPE(unk_token="<unk>", **model))
    hf.pre_tokenizer = pre
    if normalizer is not None:
        hf.normalizer = normalizer
    if decoder is not None:
        hf.decoder = decoder
    hf.train_from_iterator(
        [text], trainer=trainers.BpeTrainer(vocab_size=600, special_tokens=["<unk>"], **trainer_opts)
    )
    return hf


ZOO = {
    "whitespace-split+digits": lambda: (
        pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Digits(individual_digits=True)]),
    ),
    "punctuation+digits-runs": lambda: (
        pre_tokenizers.Sequence([pre_tokenizers.Punctuation(), pre_tokenizers.Digits(individual_digits=False)]),
    ),
    "punctuation-merged-with-previous": lambda: (pre_tokenizers.Punctuation("merged_with_previous"),),
    "punctuation-contiguous": lambda: (pre_tokenizers.Punctuation("contiguous"),),
    "metaspace-always-split+lowercase": lambda: (
        pre_tokenizers.Metaspace(prepend_scheme="always", split=True),
        normalizers.Lowercase(),
        decoders.Metaspace(),
    ),
    "metaspace-never+nfc": lambda: (
        pre_tokenizers.Metaspace(prepend_scheme="never"),
        normalizers.NFC(),
        decoders.Metaspace(prepend_scheme="never"),
    ),
    "whitespace+replace-regex": lambda: (
        pre_tokenizers.Whitespace(),
        normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(Regex(r"\d+"), "0"), normalizers.Lowercase()]),
    ),
    "split-regex-removed": lambda: (pre_tokenizers.Split(Regex(r"\s+"), behavior="removed"),),
    "bert": lambda: (pre_tokenizers.BertPreTokenizer(),),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ZOO))
def test_pre_tokenizer_and_normalizer_zoo_encodes_like_hugging_face(text, name):
    hf = _zoo_tokenizer(text[:40_000], *ZOO[name]())
    assert _differences(hf, _load(hf)) == []


@pytest.mark.slow
@pytest.mark.parametrize(
    "model",
    [
        {"continuing_subword_prefix": "##"},
        {"end_of_word_suffix": "</w>"},
        {"fuse_unk": True},
        {"continuing_subword_prefix": "##", "fuse_unk": True},
    ],
    ids=["prefix", "suffix", "fuse-unk", "prefix+fuse-unk"],
)
def test_model_options_encode_like_hugging_face(text, model):
    decoder = decoders.BPEDecoder("</w>") if "end_of_word_suffix" in model else None
    hf = _zoo_tokenizer(text[:40_000], pre_tokenizers.Whitespace(), decoder=decoder, **model)
    assert _differences(hf, _load(hf), TEXTS + ["ℵℵℵ ℵaℵ"]) == []


@pytest.mark.slow
def test_a_sentencepiece_style_file_round_trips_and_refuses_other_formats(tmp_path, llama2):
    ours = _load(llama2)
    [path] = bpe.save(ours, tmp_path / "tokenizer.json")
    again = tokenizers.Tokenizer.from_file(str(path))
    s = TORTURE[0] + " 🦜"
    assert _hf_ids(again, s) == _hf_ids(llama2, s) == bpe.load(path).encode(s)
    for fmt in ("tiktoken", "merges"):
        with pytest.raises(FormatError, match="SentencePiece-style BPE.*only tokenizer.json"):
            bpe.formats.dumps(ours, fmt)
    with pytest.raises(FormatError, match="char level"):
        bpe.formats.dumps(ours, "minbpe")


def _file(hf) -> dict:
    return json.loads(hf.to_str())


@pytest.mark.slow
def test_what_is_still_unsupported_is_refused_by_name(quicktour):
    data = _file(quicktour)
    cases = [
        ({"type": "UnicodeScripts"}, "pre_tokenizer", "the pre-tokenizer 'UnicodeScripts' is not supported"),
        ({"type": "Precompiled", "precompiled_charsmap": ""}, "normalizer", "normalizer 'Precompiled'"),
        ({"type": "StripAccents"}, "normalizer", "normalizer 'StripAccents'"),
        (
            {"type": "CTC", "pad_token": "<pad>", "word_delimiter_token": "|", "cleanup": True},
            "decoder",
            "decoder 'CTC'",
        ),
    ]
    for node, key, message in cases:
        broken = dict(data, **{key: node})
        with pytest.raises(UnsupportedFormatError, match=message):
            bpe.formats.loads({"tokenizer.json": json.dumps(broken).encode()})


# ----------------------------------------------------------------------------------------------------
# Training SentencePiece-style


@pytest.mark.slow
@pytest.mark.parametrize("min_frequency", [1, 2])
def test_sentencepiece_style_training_makes_hugging_faces_merges(text, min_frequency):
    """bpe.train(family="sentencepiece") against HF's SentencePieceBPETokenizer trainer on the same lines
    (NFKC, Metaspace, <unk>, HF's tie rule): the same merges in the same order, spelled with ▁."""
    docs = text.splitlines()
    hf = tokenizers.SentencePieceBPETokenizer()
    hf.train_from_iterator(
        docs, vocab_size=2500, min_frequency=min_frequency, limit_alphabet=100_000, show_progress=False
    )
    expected = [tuple(m) for m in json.loads(hf.to_str())["model"]["merges"]]
    run = bpe.train(
        docs,
        2500,
        family="sentencepiece",
        normalize="NFKC",
        tie_break="hf",
        min_frequency=min_frequency,
        special_tokens=["<unk>"],
    )
    ours = [(run.token(m.pair[0]), run.token(m.pair[1])) for m in run.merges]
    assert len(expected) > 500 and ours == expected
    assert run.normalize == "NFKC+metaspace" and run.level == "char" and run.pattern.name == "metaspace"


@pytest.mark.slow
def test_a_trained_sentencepiece_style_tokenizer_exports_to_hugging_face_with_the_same_ids(tmp_path, text):
    run = bpe.train(
        text[:60_000],
        900,
        family="sentencepiece",
        tie_break="hf",
        character_coverage=0.999,
        special_tokens=["<unk>"],
        unk_token="<unk>",
    )
    tok = run.tokenizer()
    [path] = bpe.save(tok, tmp_path / "tokenizer.json")
    hf = tokenizers.Tokenizer.from_file(str(path))
    texts = [s for s in TEXTS if "<unk>" not in s]
    assert [tok.encode(s) for s in texts] == [_hf_ids(hf, s) for s in texts]
    # a character it never saw: its UTF-8 bytes as byte-fallback tokens, which decode back to it
    pieces = tok.encode_pieces("▁zebra 🦜")
    assert pieces[-4:] == ["<0xF0>", "<0x9F>", "<0xA6>", "<0x9C>"]
    assert tok.decode(tok.encode("a zebra 🦜 ate")) == "a zebra 🦜 ate"
    # and our reader of that file gives the same ids again
    again = bpe.load(path)
    assert [again.encode(s) for s in texts] == [_hf_ids(hf, s) for s in texts]


def test_character_coverage_keeps_the_most_frequent_characters_by_hand():
    """ "aaaa bb c": ▁ 3, a 4, b 2, c 1 of 10 characters (after ▁ replaces the spaces and starts the text).
    Coverage 0.8 keeps a, ▁ (7), then b (9 >= 8): c is skipped in training and falls back to its byte."""
    run = bpe.train("aaaa bb c", 30, family="sentencepiece", character_coverage=0.8, tie_break="hf")
    assert run.base == ("a", "b", "▁")
    tok = run.tokenizer()
    assert tok.encode_pieces("c")[-1] == "<0x63>"
    full = bpe.train("aaaa bb c", 30, family="sentencepiece", tie_break="hf")
    assert full.base == ("a", "b", "c", "▁")


# ----------------------------------------------------------------------------------------------------
# Against Google's sentencepiece (model_type=bpe): where the trainers agree and where they differ


def test_googles_sentencepiece_agrees_on_the_first_merges_and_cuts_more_finely():
    """What docs/sentencepiece.md and the player's help say, checked against ``sentencepiece`` itself on 200 KB
    of Austen (vocab 2,000, byte fallback, coverage 1.0, no normalization, spaces kept): the first 63 merges
    are the same pieces in the same order; SentencePiece never learns a piece that mixes letters with
    punctuation or digits (it also splits there), ours does (it splits only at ▁); most of its pieces are ours."""
    spm = pytest.importorskip("sentencepiece")
    import io

    import regex

    lines = corpora.english(200_000).splitlines()
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_writer=model,
        model_type="bpe",
        vocab_size=2000,
        byte_fallback=True,
        character_coverage=1.0,
        normalization_rule_name="identity",
        remove_extra_whitespaces=False,
        num_threads=1,
        minloglevel=2,
    )
    sp = spm.SentencePieceProcessor(model_proto=model.getvalue())
    theirs = [
        sp.id_to_piece(i)
        for i in range(sp.get_piece_size())
        if not (sp.is_byte(i) or sp.is_control(i) or sp.is_unknown(i)) and len(sp.id_to_piece(i)) > 1
    ]
    run = bpe.train(lines, 2000, family="sentencepiece", tie_break="hf")
    ours = [run.token(m.pair[0]) + run.token(m.pair[1]) for m in run.merges]
    same = next(i for i, (a, b) in enumerate(zip(theirs, ours)) if a != b)
    assert same == 63 and theirs[:9] == ["▁t", "he", "▁a", "in", "▁s", "▁w", "re", "▁o", "▁the"]
    assert {theirs[63], theirs[64]} == {ours[63], ours[64]} == {"▁it", "▁re"}  # the first swap

    def mixed(piece: str) -> bool:
        return bool(regex.search(r"\p{L}", piece) and regex.search(r"[\p{P}\p{N}]", piece))

    assert not [p for p in theirs if mixed(p)]
    assert {"s.", "s,", "'s", "▁Mrs."} <= {p for p in ours if mixed(p)}
    shared = len(set(theirs) & set(ours))
    assert len(theirs) < len(ours) and shared > 0.9 * len(theirs)  # its 2,000 count <unk> <s> </s>, bytes
