"""Issue 32 item 2 on the Tokenize page (AppTest): an uploaded ``tokenizer.json`` whose Split regex backtracks
catastrophically gets one sentence and the page keeps working; one whose Replace regex is a compile bomb is
refused on upload in one sentence. (The library's side, in children under ``ulimit -v``:
``test_regex_guard.py``.)"""

from __future__ import annotations

import time

import pytest
from helpers import open_app, page_messages
from regex_guard_kit import REDOS_SPLIT, REDOS_TEXT, REPLACE_BOMB

import appstate.keys
import appstate.vocabs

PAGE = "app_pages/tokenize_page.py"


def _inject(data: bytes, name: str) -> dict:
    group = appstate.vocabs.UploadGroup((name,), (data,), name)
    appstate.vocabs.load_upload(group)
    return {"digest": group.digest, "label": name}


def test_a_backtracking_split_in_an_upload_gets_one_sentence_and_the_page_works():
    entry = _inject(REDOS_SPLIT, "redos_split.json")
    t0 = time.monotonic()
    at = open_app(
        PAGE,
        state={
            "tok_uploads": [entry],
            "tok_choice": ["upload:" + entry["digest"], "gpt2"],
            appstate.keys.TOK_TEXT: REDOS_TEXT,
        },
        first_run=True,
        forget=(appstate.keys.PLAYER_RUN, appstate.keys.PLAYER_TEXT, appstate.keys.PLAYER_STEP),
    )
    assert time.monotonic() - t0 < 120  # hang detector (the Split stops at its 2 s deadline)
    assert not at.exception, [e.message for e in at.exception]
    said = " ".join(page_messages(at, "error") + page_messages(at, "warning"))
    assert "took longer than 2 s" in said and "Something went wrong" not in said, said


def test_a_compile_bomb_in_an_uploads_replace_is_refused_in_one_sentence():
    with pytest.raises(appstate.vocabs.UploadError) as err:
        _inject(REPLACE_BOMB, "bomb.json")
    message = str(err.value)
    assert "Replace normalizer regex 'b{2000000}' cannot be used" in message and "too large to compile" in message
    assert "\n" not in message
