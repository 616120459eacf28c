"""The Tokenize page's first screen through AppTest (issue 31): the settings folded into one bar over the text box,
every setting still reachable and working, the preset box naming what the text is, and one default trained
tokenizer shared with the Merge player. What a user sees of it (the first viewport, the panels opening) is
tested in the browser: tests/browser/test_tokenize_first_screen_browser.py.
"""

from __future__ import annotations

import re

import tokenize_driver as T
from helpers import PRESETS, open_app

import appstate.keys
import bpe
from appstate.sources import samples

PAGE = "app_pages/tokenize_page.py"
FORGET = (appstate.keys.PLAYER_RUN, appstate.keys.PLAYER_TEXT, appstate.keys.PLAYER_STEP)


def open_page(**state):
    return open_app(PAGE, state=state, first_run=True, forget=FORGET)


def panels(at) -> dict[str, list[str]]:
    """The bar's folded panels (st.popover): label -> the keys of the widgets inside, in order."""
    out: dict[str, list[str]] = {}

    def keys_in(node) -> list[str]:
        found = []
        for child in getattr(node, "children", {}).values():
            key = getattr(child, "key", None)
            if isinstance(key, str) and getattr(child, "type", "") not in ("flex_container", "vertical"):
                found.append(key)
            found += keys_in(child)
        return found

    def walk(node):
        for child in getattr(node, "children", {}).values():
            if getattr(child, "type", "") == "popover":
                out[child.proto.popover.label] = keys_in(child)
            else:
                walk(child)

    walk(at.main)
    return out


def test_every_setting_is_in_a_panel_of_the_bar():
    at = open_page()
    got = panels(at)
    assert list(got) == ["Trained tokenizer", "Your own tokenizer", "Options"]
    assert got["Options"] == ["tok_special", "tok_chars", "tok_ids", "tok_big"]
    assert "tok_upload" in got["Your own tokenizer"]
    assert any(k.startswith("tok_merges_") for k in got["Trained tokenizer"])
    # the trained tokenizer's panel only while its column is chosen
    at.multiselect(key="tok_choice").set_value(["cl100k_base"]).run()
    assert list(panels(at)) == ["Your own tokenizer", "Options"]


def _name(node) -> str:
    """An element's key (its id's end), else its type."""
    pid = getattr(getattr(node, "proto", None), "id", "") or ""
    return pid.rsplit("-", 1)[-1] if pid.startswith("$$ID") else node.type


def test_the_text_box_comes_right_after_the_bar():
    """Nothing between the pickers and the view (the text box and the columns): the trained tokenizer's box and
    the upload expander that stood there (issue 31) are folded into the bar; the comparison and the chunk
    tracer come after the view."""
    at = open_page()
    top = list(at.main.children.values())
    assert [_name(n) for n in top[:5]] == [
        "title",
        "tok_intro",
        "tok_pickers",
        "tok_bar",
        appstate.keys.TOK_VIEW_FRAME,
    ]
    (row,) = top[2].children.values()
    pickers = [getattr(w, "key", None) for w in row.children.values() for w in w.children.values()]
    assert pickers == ["tok_preset", "tok_choice"]


def test_the_options_in_their_panel_still_change_the_view():
    at = open_page()
    assert T.settings(at)["showIds"] and T.settings(at)["whole"] and not T.settings(at)["big"]
    at.toggle(key="tok_ids").set_value(False).run()
    at.radio(key="tok_chars").set_value("bytes").run()
    at.toggle(key="tok_big").set_value(True).run()
    s = T.settings(at)
    assert not s["showIds"] and not s["whole"] and s["big"]


def test_the_preset_box_says_your_own_text_after_an_edit():
    at = open_page()
    assert T.preset_box(at).value == "prose"
    T.type_text(at, "PERSISTCHECK hello there")
    assert T.preset_box(at).value == "own"
    assert "Your own text" in T.preset_box(at).options
    # the text of a preset again: the box names it
    T.type_text(at, PRESETS["code"]["text"])
    assert T.preset_box(at).value == "code"


def test_the_trained_column_is_the_players_default_tokenizer():
    """Issue 31: the trained column had 253 merges, the player's default on the same sample 256. The player's
    default (its sidebar untouched) is the first sample at vocabulary 512 with the GPT-4 pre-tokenizer at byte
    level, trained on the sample less its held-out end (issue 14: the player keeps the last ~10% for its
    compression chart): trained here with bpe.train, its ids for the text must be the trained column's."""
    from bpe.excerpt import heldout_start

    at = open_page()
    first = samples()[0]
    part = first.text[: heldout_start(first.text)]
    assert 0.85 * len(first.text) < len(part) < len(first.text)
    reference = bpe.train(part, first.default_vocab_size, pattern="gpt4").tokenizer()
    assert reference.n_merges == 256
    assert "Trained (256 merges)" in T.table(at)
    trained = next(c for c in T.columns(at) if c["slug"] == "trained")
    assert trained["ids"] == list(reference.encode(PRESETS["prose"]["text"]))


def test_a_click_traces_each_columns_own_tokens_over_those_characters():
    """Issue 31: clicking "m" in the trained column traced "m" in every column. The answer to the click (the
    view's ``ask``, as the browser reports it) now traces, per column, the tokens over those characters: for
    GPT-4 the one token tiktoken's offsets put over "m", built up to its own id."""
    from tiktoken_reference import tiktoken_encoding

    text = "The Family of a friend"
    at = open_page()
    T.type_text(at, text)
    trained = next(c for c in T.columns(at) if c["slug"] == "trained")
    starts = [sum(trained["lens"][:i]) for i in range(len(trained["lens"]))]
    index = next(i for i, (s, n) in enumerate(zip(starts, trained["lens"])) if text[s : s + n] == "m")
    at.session_state[appstate.keys.TOK_VIEW] = {
        "ask": {"key": trained["key"], "index": index, "n": 1, "v": trained["v"]}
    }
    at.run()
    answer = T.mail(at)["trace"]
    assert answer["n"] == 1
    sections = answer["html"].split('<div class="tkz-trace-col">')[1:]
    titles = [re.search(r'tkz-trace-title">(.*?)</div>', s).group(1) for s in sections]
    assert titles[0].startswith("Trained")
    assert "1 token: “m”" in sections[0]
    cl = tiktoken_encoding("cl100k_base")
    ids = cl.encode_ordinary(text)
    _, offsets = cl.decode_with_offsets(ids)
    m = text.index("m")
    (token,) = [t for t, s, e in zip(ids, offsets, offsets[1:] + [len(text)]) if s <= m < e]
    gpt4 = sections[titles.index(bpe.PRETRAINED["cl100k_base"].label)]
    assert f"1 token: “{cl.decode([token]).replace(' ', '·')}”" in gpt4
    last_row = gpt4.split('class="tokv-row')[-1]
    assert [int(x) for x in re.findall(r'data-id="(\d+)"', last_row)] == [token]
