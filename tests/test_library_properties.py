"""Property tests across the library: every kind of tokenizer round-trips random text, exports load back
with identical encodings, and the real vocabularies give tiktoken's ids on random text."""

from __future__ import annotations

import base64
import unicodedata

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import bpe

# Characters Python 3.11 knows (Unicode 14): tiktoken's Rust regex uses tables of about that age, while
# the `regex` module's are newer, so characters assigned later may be classed differently (documented).
known = st.characters(blacklist_categories=("Cs", "Cn"))
random_text = st.text(alphabet=known, max_size=60)
mixed_text = st.text(alphabet=st.one_of(known, st.sampled_from(list(" \n\t'sdmtlrve0123456789.,!?"))), max_size=80)
props = settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)


@pytest.fixture(scope="module")
def trained():
    text = (
        open("sample_texts/english.txt", encoding="utf-8").read()
        + open("sample_texts/multilingual.txt", encoding="utf-8").read()
    )
    return bpe.train(text, 700, pattern="gpt4", special_tokens=["<|endoftext|>"])


@pytest.fixture(scope="module")
def pretrained():
    return {name: bpe.load_pretrained(name) for name in ("cl100k_base", "o200k_base")}


@pytest.fixture(scope="module")
def tiktoken_encodings(pretrained):
    tiktoken = pytest.importorskip("tiktoken")
    out = {}
    for name, tok in pretrained.items():
        ranks = {tok.token_bytes(i): i for i in tok.vocab if not tok.is_special(i)}
        out[name] = tiktoken.Encoding(
            name, pat_str=tok.pattern.regex, mergeable_ranks=ranks, special_tokens=dict(tok.special_tokens)
        )
    return out


@pytest.fixture(scope="module")
def imported(trained, tmp_path_factory):
    tok = trained.tokenizer()
    out = {}
    for fmt in ("hf", "tiktoken", "merges"):
        path = tmp_path_factory.mktemp(fmt) / ("tokenizer.json" if fmt == "hf" else "tok")
        bpe.save(tok, path, format=fmt)
        out[fmt] = bpe.load(path)
    return out


@props
@given(text=mixed_text, k=st.integers(0, 444))
def test_trained_round_trip_at_any_merge(trained, text, k):
    tok = trained.tokenizer(min(k, len(trained.merges)))
    # random text may spell a special token (hypothesis tries "<|endoftext|>"): encode it as plain text
    assert tok.decode(tok.encode(text, disallowed_special=())) == text


@props
@given(text=random_text)
@example(text="<|endoftext|> and <|fim_prefix|>")  # special-token strings as plain text, as tiktoken's encode_ordinary
def test_pretrained_round_trip_and_tiktoken_ids(pretrained, tiktoken_encodings, text):
    for name, tok in pretrained.items():
        ids = tok.encode(text, disallowed_special=())
        assert tok.decode(ids) == text
        assert ids == tiktoken_encodings[name].encode_ordinary(text)


@props
@given(text=mixed_text)
def test_exports_load_back_with_identical_encodings(trained, imported, text):
    expected = trained.tokenizer().encode(text, disallowed_special=())
    for fmt, tok in imported.items():
        assert tok.encode(text, disallowed_special=()) == expected, fmt
        assert tok.decode(expected) == text


@props
@given(text=mixed_text)
def test_special_tokens_survive_export(trained, imported, text):
    doc = text + "<|endoftext|>" + text
    expected = trained.tokenizer().encode(doc, allowed_special="all")
    for fmt, tok in imported.items():
        assert tok.encode(doc, allowed_special="all") == expected, fmt


@props
@given(text=random_text)
def test_visible_bytes_round_trip(text):
    data = text.encode("utf-8")
    assert bpe.from_visible(bpe.to_visible(data)) == data
    assert all(unicodedata.category(c)[0] != "Z" and c.isprintable() for c in bpe.to_visible(bytes(range(256))))


def test_tiktoken_file_lines_are_base64_tokens(trained, tmp_path_factory):
    # A .tiktoken file is one "base64(token bytes) rank" line per token: decode it independently.
    path = tmp_path_factory.mktemp("tk") / "tok"
    bpe.save(trained.tokenizer(), path, format="tiktoken")
    files = list(path.glob("*.tiktoken")) if path.is_dir() else [path]
    ranks = {}
    for line in files[0].read_text().splitlines():
        b64, rank = line.split()
        ranks[base64.b64decode(b64)] = int(rank)
    tok = trained.tokenizer()
    assert all(ranks[tok.token_bytes(i)] == i for i in tok.vocab if not tok.is_special(i))


@props
@given(text=mixed_text)
def test_char_groups_hold_whole_characters_and_no_more(trained, text):
    """``bpe.visible.char_groups`` over a text's tokens: the groups cover the tokens in order, each decodes
    as UTF-8 on its own (whole characters), and a group of several tokens is needed (no shorter prefix of it
    decodes: cut anywhere inside, a character would split)."""
    from bpe.visible import char_groups

    tok = trained.tokenizer()
    pieces = [tok.token_bytes(i) for i in tok.encode(text)]
    groups = char_groups(pieces)
    assert [k for i, j in groups for k in range(i, j + 1)] == list(range(len(pieces)))
    assert "".join(b"".join(pieces[i : j + 1]).decode("utf-8") for i, j in groups) == text
    for i, j in groups:
        for cut in range(i, j):
            with pytest.raises(UnicodeDecodeError):
                b"".join(pieces[i : cut + 1]).decode("utf-8")
