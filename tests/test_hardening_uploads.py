"""Issue 14 on the Tokenize, Pre-tokenizer lab and Token tax pages: uploads (names, nesting, duplicate ranks,
limits before parsing, a bounded cache), Markdown in user strings, what was typed surviving page switches,
the page guard. Real uploads through a browser: tests/browser/test_hardening_browser.py. The coverage map of
every hardening row: tests/test_hardening.py."""

from __future__ import annotations

import base64
import html as htmllib
import re

import pytest
import tokenize_driver as T
from hardening_kit import (
    CLASSROOM,
    LAB,
    ROOT,
    TOKEN_TAX,
    TOKENIZE,
    assert_no_markup,
    cli,
    no_traceback,
    one_line_error,
    page_app,
)
from helpers import html_bodies, page_messages
from streamlit.testing.v1 import AppTest

import appstate.keys
import appstate.pageguard
import appstate.runs
import appstate.sources
import appstate.vocabs
import bpe
from views.messages import message_html

#: The file name of issue 14's report: bold, an image from a foreign host, a live link (if rendered).
MD_NAME = "**mdbold** ![i](https:example.invalid) [hl](https:example.invalid)"
NESTED = b"[" * 100_000 + b"]" * 100_000


def _tiktoken_lines(extra: list[tuple[bytes, int]]) -> bytes:
    lines = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)]
    lines += [f"{base64.b64encode(t).decode()} {r}" for t, r in extra]
    return ("\n".join(lines) + "\n").encode()


UPLOAD_ROWS = [
    # (id, files as uploaded, fragments the one message must hold)
    (
        "nested-array-tokenizer-json",
        [("tokenizer.json", NESTED)],
        ["tokenizer.json", "nests arrays or objects too deeply"],
    ),
    ("nested-object-json", [("deep.json", b'{"a":' * 100_000 + b"1" + b"}" * 100_000)], ["deep.json", "too deeply"]),
    (
        "nested-vocab-json-with-merges",
        [("vocab.json", NESTED), ("merges.txt", b"#version: 0.2\n")],
        ["vocab.json", "too deeply"],
    ),
    ("not-json", [("my tok.json", b"{nope")], ["my tok.json is not valid JSON"]),
    ("empty", [("tokenizer.json", b"")], ["tokenizer.json is empty"]),
    ("binary-tiktoken", [("x.tiktoken", b"\x89PNG\r\n\x1a\n\xff\xfe")], ["x.tiktoken, line 1"]),
    (
        "duplicate-rank",
        [("dup.tiktoken", _tiktoken_lines([(b"ab", 256), (b"ab", 257)]))],
        ["dup.tiktoken, line 258", "already has rank 256"],
    ),
    ("vocab-without-merges", [("vocab.json", b"{}")], ["vocab.json needs the merges.txt"]),
    ("markdown-name", [(MD_NAME + ".json", b"{nope")], [MD_NAME + ".json is not valid JSON"]),
    ("too-many-lines", [("huge.tiktoken", b"QQ== 0\n" * 1_000_000)], ["huge.tiktoken holds about 1,000,001 entries"]),
    (
        "too-many-json-strings",
        [("huge.json", b'{"model": {"merges": [' + b'"a b",' * 1_000_000 + b'"a b"]}}')],
        ["huge.json holds about 1,000,003 entries", "300,000 tokens"],
    ),  # 1,000,001 merges + 2 keys
    # issue 21, item 2: a number past Python's 4,300 digits for int() (was the raw "Exceeds the limit" text)
    (
        "5000-digit-number",
        [("tokenizer.json", b'{"model": {"type": "BPE", "vocab": {"a": ' + b"1" * 5000 + b"}}}")],
        ["tokenizer.json holds a number too long to read (more than 4,300 digits)"],
    ),
    (
        "5000-digit-vocab-json",
        [("vocab.json", b'{"a": ' + b"7" * 5000 + b"}"), ("merges.txt", b"#version: 0.2\n")],
        ["vocab.json holds a number too long to read"],
    ),
    (
        "5000-digit-minbpe-id",
        [("m.model", b"minbpe v1\n\n1\n<s> " + b"1" * 5000 + b"\n")],
        ["m.model, line 4: expected 'special_token id'"],
    ),
]


@pytest.mark.parametrize("files, fragments", [r[1:] for r in UPLOAD_ROWS], ids=[r[0] for r in UPLOAD_ROWS])
def test_tokenize_upload_errors_name_the_users_file(files, fragments, monkeypatch):
    groups, notes = appstate.vocabs.group_files(files)
    assert len(groups) == 1 and not notes
    if "too-many" in fragments[0] or "holds about" in fragments[0]:
        # refused by counting, before any parsing
        monkeypatch.setattr(bpe, "loads", lambda *a, **k: pytest.fail("parsed a file over the limits"))
    with pytest.raises(appstate.vocabs.UploadError) as info:
        appstate.vocabs.load_upload(groups[0])
    msg = str(info.value)
    for fragment in fragments:
        assert fragment in msg, msg
    assert "/tmp" not in msg and str(ROOT) not in msg and "Traceback" not in msg and "RecursionError" not in msg
    assert "Exceeds the limit" not in msg and "set_int_max_str_digits" not in msg
    # shown as escaped HTML: nothing of the name renders
    box = message_html(msg, "error")
    assert "<strong>" not in box and "<img" not in box and "<a " not in box and "<em>" not in box
    # asked again (a rerun), the cached refusal answers without parsing again
    monkeypatch.setattr(bpe, "loads", lambda *a, **k: pytest.fail("parsed a refused file again"))
    with pytest.raises(appstate.vocabs.UploadError, match=re.escape(fragments[0])):
        appstate.vocabs.load_upload(groups[0])


def test_tokenize_upload_over_the_byte_limit_is_refused_by_its_size():
    assert "big.json is 40.0 MB; tokenizer files up to 32 MB" in appstate.vocabs.refuse_size("big.json", 40 * 2**20)
    assert appstate.vocabs.refuse_size("ok.json", appstate.vocabs.MAX_UPLOAD_FILE_BYTES) == ""


def test_tokenize_uploads_never_overwrite_each_other():
    a = bpe.dumps(bpe.train("aaaa bbbb aaaa", 260).tokenizer(), "hf")["tokenizer.json"]
    b = bpe.dumps(bpe.train("cccc dddd cccc cccc", 262).tokenizer(), "hf")["tokenizer.json"]
    merges = bpe.dumps(bpe.train("eeee ffff eeee", 259).tokenizer(), "merges")
    groups, notes = appstate.vocabs.group_files(
        [
            ("tokenizer.json", a),
            ("tokenizer.json", b),
            ("vocab.json", merges["vocab.json"]),
            ("merges.txt", merges["merges.txt"]),
            ("bpe_lab.json", merges["bpe_lab.json"]),
        ]
    )
    assert [g.label for g in groups] == [
        "tokenizer.json",
        "tokenizer.json (2)",
        "vocab.json + merges.txt",
    ] and not notes
    assert len({g.digest for g in groups}) == 3
    toks = [appstate.vocabs.load_upload(g) for g in groups]
    assert [t.vocab_size for t in toks] == [260, 262, 259]
    assert toks[0].encode("aaaa") != toks[1].encode("aaaa") or toks[0].vocab_size != toks[1].vocab_size


def test_tokenize_upload_cache_is_keyed_by_content_and_bounded_in_bytes():
    cache = appstate.vocabs._BytesLRU(budget=1000)
    loads: list[str] = []

    def loader(name: str, size: int):
        def load():
            loads.append(name)
            return bpe.train("ab ab", 257).tokenizer(), size

        return load

    cache.get_or_load("a", loader("a", 400))
    cache.get_or_load("b", loader("b", 400))
    cache.get_or_load("a", loader("a", 400))  # same content: no second load
    assert loads == ["a", "b"]
    cache.get_or_load("c", loader("c", 400))  # over 1000 bytes: the least recently used ("b") goes
    assert "b" not in cache and "a" in cache and "c" in cache and cache.used == 800 <= cache.budget
    for n in range(20):  # 20 more uploads: never above the budget
        cache.get_or_load(f"x{n}", loader(f"x{n}", 300))
        assert cache.used <= cache.budget
    assert len(cache) == 3
    # the estimate for a real upload: GPT-4's vocabulary as a tokenizer.json is counted near 52 MB
    tok = bpe.load_pretrained("cl100k_base")
    est = appstate.vocabs.estimate_bytes(tok, appstate.vocabs.UploadGroup(("t.json",), (b"x" * 6_000_000,)))
    assert 40e6 < est < 70e6
    assert appstate.vocabs.UPLOAD_CACHE_BYTES <= 400 * 2**20


def test_tokenize_upload_names_never_reach_markdown():
    tok = bpe.train("hello hello world", 262).tokenizer()
    group = appstate.vocabs.UploadGroup(
        (MD_NAME + ".json",), (bpe.dumps(tok, "hf")["tokenizer.json"],), MD_NAME + ".json"
    )
    appstate.vocabs.load_upload(group)
    key = "upload:" + group.digest
    at = AppTest.from_file("../app.py", default_timeout=60)
    at.run()
    at.session_state["tok_uploads"] = [{"digest": group.digest, "label": group.label}]
    at.session_state["tok_choice"] = [key]
    at.session_state[appstate.keys.TOK_TEXT] = MD_NAME
    at.switch_page(TOKENIZE).run()
    no_traceback(at)
    for element in [*at.markdown, *at.caption, *at.error, *at.warning, *at.info, *at.success]:
        assert "mdbold" not in element.value, element.value
    titles = [b for b in html_bodies(at) + T.heads(at) if 'class="tokv-title"' in b]
    assert titles and all("**mdbold** ![i](https:example.invalid)" in htmllib.unescape(t) for t in titles)
    assert_no_markup(at)
    assert all("<a " not in b and "<strong>" not in b for b in html_bodies(at))


def test_lab_regex_errors_never_reach_markdown():
    at = page_app(LAB)
    at.text_input(key="lab_custom").input("(" + MD_NAME).run()
    no_traceback(at)
    for element in [*at.markdown, *at.caption, *at.error, *at.warning, *at.info]:
        assert "mdbold" not in element.value, element.value
    assert any("does not compile" in m for m in page_messages(at, "error"))
    assert all("<a " not in b and "<strong>" not in b for b in html_bodies(at))
    # a regex that compiles: the column draws the user's pattern's branches, escaped
    at.text_input(key="lab_custom").input(r"\*\*mdbold\*\*|\w+|\s+|[^\w\s]+").run()
    at.text_area(key="lab_text").input(MD_NAME).run()
    no_traceback(at)
    for element in [*at.markdown, *at.caption, *at.error, *at.warning, *at.info]:
        assert "mdbold" not in element.value, element.value
    assert_no_markup(at)
    assert all("<a " not in b and "<strong>" not in b and "<img" not in b for b in html_bodies(at))


def test_lab_text_custom_regex_and_choices_survive_page_switches():
    at = page_app(LAB)
    at.text_area(key="lab_text").input("kept across pages").run()
    at.text_input(key="lab_custom").input(r"\w+|\s+").run()
    at.multiselect(key="lab_patterns").set_value(["tekken", "gpt4o"]).run()
    for page in (TOKENIZE, TOKEN_TAX, CLASSROOM):
        at.switch_page(page).run()
        at.switch_page(LAB).run()
        no_traceback(at)
        assert at.text_area(key="lab_text").value == "kept across pages"
        assert at.text_input(key="lab_custom").value == r"\w+|\s+"
        assert at.multiselect(key="lab_patterns").value == ["tekken", "gpt4o"]


GUARDED = [
    # (page, title in the message, module and function to break)
    (TOKENIZE, "Tokenize", "views.tokenize_payload", "compare_html"),  # inside the view's fragment
    (LAB, "Pre-tokenizer lab", "views.lab", "chunks_html"),
    (TOKEN_TAX, "Token tax", "views.token_tax_views", "tax_figure"),
    ("app_pages/player.py", "Merge player", "views.player", "source_summary"),
    ("app_pages/player.py", "Merge player", "views.player", "merges_frame"),  # inside the player's fragment
    (CLASSROOM, "Classroom", "views.lessons.model", "step_html"),
]


@pytest.mark.parametrize("page, title, module, name", GUARDED, ids=[g[1] for g in GUARDED])
def test_page_guard_turns_an_unexpected_error_into_a_short_message(page, title, module, name, monkeypatch, caplog):
    import importlib

    def boom(*args, **kwargs):
        raise RuntimeError(f"{ROOT}/secret <b>bold</b>")

    monkeypatch.setattr(importlib.import_module(module), name, boom)
    with caplog.at_level("ERROR", logger="bpe_lab.pages"):
        at = page_app(page)
    no_traceback(at)
    shown = " ".join(e.value for e in at.error)
    assert f"Something went wrong on the {title} page" in shown
    assert str(ROOT) not in shown and "bold" not in shown and "RuntimeError" not in shown
    ref = re.search(r"reference ([0-9a-f]{8})", shown).group(1)
    logged = [r for r in caplog.records if ref in r.getMessage()]
    assert logged and logged[0].exc_info and "secret" in str(logged[0].exc_info[1])
    monkeypatch.undo()
    at.run()
    no_traceback(at)
    assert not any("Something went wrong" in e.value for e in at.error)


def test_page_guard_lets_streamlits_own_control_flow_through():
    """st.stop / st.rerun / st.switch_page raise BaseException subclasses: the guard must not swallow them."""
    from streamlit.runtime.scriptrunner_utils.exceptions import RerunException, StopException

    calls = []

    @appstate.pageguard.guarded("test")
    def control(exc):
        calls.append(1)
        raise exc

    with pytest.raises(StopException):
        control(StopException())
    with pytest.raises(RerunException):
        control(RerunException(None))
    assert calls == [1, 1]


@pytest.mark.parametrize(
    "args", [["info", "nested.json"], ["encode", "-t", "nested.json", "hi"]], ids=["info", "encode"]
)
def test_cli_deeply_nested_tokenizer_json_is_a_one_line_error(tmp_path, args):
    (tmp_path / "nested.json").write_bytes(NESTED)
    err = one_line_error(cli(*args, cwd=tmp_path))
    assert "nested.json nests arrays or objects too deeply" in err and "internal error" not in err
