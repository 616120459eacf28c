"""What the merge player is given to play, in a real browser: hostile text (stays text, nothing leaves the
machine), a large upload (trained behind a progress bar), SentencePiece-style runs from a link and an
uploaded tokenizer.json. (Split from ``test_player_browser.py``, whose helpers it uses.) Screenshots go to
``tests/artifacts/`` (git-ignored): look at them.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest

import appstate.sources
import bpe
from bpe.excerpt import split_heldout
from views.spans import token_label

from .conftest import insert_big, lines_of, refused_aloud, shot, shot_at, wait_idle
from .test_player_browser import HOST, HOSTILE, MP, TOKENS_JS, followers_at, jump, open_player, radio, ready, status


def test_hostile_text_stays_text_and_nothing_leaves_the_machine(browser, server_url):
    ctx = browser.new_context(viewport={"width": 1280, "height": 1400})
    outside: list[str] = []

    def route(r):
        host = urlsplit(r.request.url).hostname
        if host in ("127.0.0.1", "localhost"):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    ctx.route("**/*", route)
    page = open_player(ctx.new_page(), server_url)
    radio(page, "player_source", "Paste")
    page.fill(".st-key-player_paste textarea", HOSTILE * 3)
    page.get_by_role("button", name="Train on this text").click()
    wait_idle(page)
    ready(page)
    for k in (0, 3, 10):
        jump(page, k)
        text = page.evaluate(
            "() => document.querySelector('%s').shadowRoot.querySelector('.mp-tokens').textContent" % HOST
        )
        assert HOSTILE.replace(" ", "·") in text
        found = page.evaluate(
            """() => { const r = document.querySelector('%s').shadowRoot;
          return r.querySelectorAll('img, script, a, strong, iframe, b:not(.mp-k):not(.mp-count)').length
            + document.querySelectorAll('img[src="x"], a[href*="example.invalid"]').length; }"""
            % HOST
        )
        assert found == 0
    # nothing can fire: the checks above found no element made of the text (no img, script, link); the script
    # has run to the end and every step was drawn
    wait_idle(page)
    assert page.dialogs == [] and outside == []
    shot(page, "player-hostile-text")
    ctx.close()


def test_a_large_upload_trains_behind_a_progress_bar(page, server_url):
    """A 0.9 MB upload retrained to 3,840 merges behind a progress bar, read from the websocket frames the
    server sends (the browser may draw two updates in one frame): a bar "Training on 0.9 MB" is sent
    (first "…", sent before the worker starts, then the merges done), any "merge N of M" it shows while the merges run goes up, and
    the bar goes when training ends. (How many updates arrive depends on the machine's speed: the waiter
    looks every 0.1 s, and Streamlit sends only the newest of two updates queued together — the last one
    and the bar's removal, say — so this test does not count them; tests/test_trainjobs.py pins what the
    waiter passes on.)"""
    from testkit.texts import sample_words

    received: list[bytes] = []
    sockets = []

    def listen(ws):
        sockets.append(ws)
        ws.on(
            "framereceived",
            lambda f: received.append(f if isinstance(f, bytes) else f.encode("utf-8", "surrogatepass")),
        )

    page.on("websocket", listen)  # (before the page opens: no reload to hear its websocket)
    player = open_player(page, server_url)
    text = sample_words(1_000_000)
    radio(player, "player_source", "Upload")
    player.set_input_files(
        ".st-key-player_upload input[type=file]",
        files=[{"name": "one_mb.txt", "mimeType": "text/plain", "buffer": text.encode("utf-8")}],
    )
    wait_idle(player, 120_000)
    received.clear()
    player.fill(".st-key-player_merges input", "3840")
    player.keyboard.press("Enter")

    def said(pattern: bytes) -> list[str]:
        return [m.group().decode() for f in received for m in re.finditer(pattern, f)]

    if not said(rb"Training on 0\.9 MB"):  # (else: wait for the next frame that comes after it says so)
        sockets[-1].wait_for_event(
            "framereceived", predicate=lambda _f: bool(said(rb"Training on 0\.9 MB")), timeout=120_000
        )
    assert said(rb"Training on 0\.9 MB"), "no progress bar was sent"
    wait_idle(player, 120_000)
    done = [int(m.split()[-3].replace(",", "")) for m in said(rb"Training on 0\.9 MB: merge [\d,]+ of 3,840")]
    assert done == sorted(done) and all(0 < k <= 3840 for k in done), done
    assert player.locator('[data-testid="stProgress"]:has-text("Training on")').count() == 0
    ready(player, 60_000)
    n = int(player.locator(f"{MP} .mp-jump input").get_attribute("max"))
    assert n > 1000
    jump(player, n)
    assert status(player).startswith(f"Merge {n:,} / {n:,}")


FALLBACK_JS = (
    """() => [...document.querySelector('%s').shadowRoot.querySelectorAll('.mp-tokens ruby.grp')]
  .map(g => ({char: g.querySelector('rt').textContent,
              bytes: [...g.querySelectorAll('.tok')].map(t => t.textContent),
              chips: g.querySelectorAll('.tok .bpe-bf').length}))"""
    % HOST
)
REPLAY_HEAD_JS = (
    "() => { const h = document.querySelector('%s'); const mp = h && h.shadowRoot && "
    "h.shadowRoot.querySelector('.mp'); return mp ? mp.textContent : ''; }" % HOST
)


def spells(group: dict) -> bool:
    """A group of byte-fallback chips is the UTF-8 of the character written above it (decoded and labelled by
    Python: an invisible character is named, as <ZWJ>)."""
    data = bytes(int(t[3:5], 16) for t in group["bytes"])
    return (
        all(re.fullmatch(r"<0x[0-9A-F]{2}>", t) for t in group["bytes"])
        and token_label(data.decode("utf-8").encode("utf-8")) == group["char"]
    )


def test_a_sentencepiece_style_run_plays_with_its_spaces_as_bars(page, server_url, tmp_path):
    """level=sentencepiece in the link: the player trains SentencePiece-style and draws each word with its ▁
    (a space) in front, as bpe.train(family="sentencepiece") makes them (the run's own merges, checked here);
    with a lower character coverage the rarest characters are <0xNN> byte-fallback chips under the character
    they spell; the replay mode plays an uploaded Llama-2-like tokenizer.json to Hugging Face's ids."""
    open_player(page, f"{server_url}/?sample=english&level=sentencepiece&tie=hf")
    s = appstate.sources.sample("english")
    text, _held = split_heldout(s.text)
    run = bpe.train(text, 10_000, family="sentencepiece", tie_break="hf", character_coverage=0.9995)
    n = int(page.locator(f"{MP} .mp-jump input").get_attribute("max"))
    jump(page, n)
    followers_at(page, n)
    drawn = [t["text"] for t in page.evaluate(TOKENS_JS)]
    assert drawn[0].startswith("▁") and sum(t.startswith("▁") for t in drawn) > len(drawn) // 3
    # the first merges drawn by the player's tables are the library's SentencePiece-style merges
    firsts = {m.token for m in run.merges[:n]}
    assert sum(t in firsts for t in drawn if len(t) > 1) > len(drawn) // 3
    assert "SentencePiece" in page.locator(".st-key-player_level").inner_text()
    shot(page, "player-sentencepiece")
    page.set_viewport_size({"width": 390, "height": 844})
    page.locator(MP).scroll_into_view_if_needed()
    wait_idle(page)
    shot(page, "player-sentencepiece-390")

    # byte fallback: at coverage 0.99 the emoji sample's rarest emoji are left out of the alphabet; each is drawn
    # as its UTF-8 bytes, one <0xNN> chip per byte, grouped under the emoji (Python's UTF-8, not the player's)
    page.set_viewport_size({"width": 1400, "height": 2200})
    open_player(page, f"{server_url}/?sample=emoji&level=sentencepiece&tie=hf&coverage=0.99")
    box = page.locator(".st-key-player_coverage")
    assert "0.99" in box.inner_text() + " ".join(
        box.locator("input").evaluate_all("es => es.map(e => e.value + ' ' + (e.getAttribute('aria-label') || ''))")
    )
    jump(page, int(page.locator(f"{MP} .mp-jump input").get_attribute("max")))
    groups = [g for g in page.evaluate(FALLBACK_JS) if g["chips"]]
    assert len(groups) >= 3, groups
    for g in groups:
        assert spells(g), g
        assert g["chips"] == len(g["bytes"])
    chip = page.locator(f"{MP} .mp-tokens .tok .bpe-bf").first
    assert chip.evaluate("e => getComputedStyle(e).borderTopStyle") == "solid"
    chip.scroll_into_view_if_needed()
    shot_at(page, "player-sentencepiece-bytes", f"{MP} .mp-tokens .bpe-bf >> nth=0", 1280, 720)
    shot_at(page, "player-sentencepiece-bytes-390", f"{MP} .mp-tokens .bpe-bf >> nth=0", 390, 844)

    # the replay plays an uploaded SentencePiece-style tokenizer.json, ending on Hugging Face's own ids
    pytest.importorskip("tokenizers")
    from testkit import corpora
    from testkit.sentencepiece_files import llama_like

    hf = llama_like(corpora.english(40_000) + corpora.multilingual(10_000), 700)
    path = tmp_path / "llama_like.json"
    path.write_text(hf.to_str(), encoding="utf-8")
    page.set_viewport_size({"width": 1400, "height": 2200})
    # (on the same page, as a user does: "Replay a real vocabulary" on the emoji sample, then the upload)
    page.locator(".st-key-player_mode button").filter(has_text="Replay a real vocabulary").click()
    wait_idle(page, 60_000)
    page.click(".st-key-player_vocab [role=combobox]")
    page.get_by_role("option", name="Upload a tokenizer.json…", exact=True).click()
    page.locator('.st-key-player_replay_upload input[type="file"]').set_input_files(str(path))
    page.wait_for_function(f"() => ({REPLAY_HEAD_JS})().includes('llama_like.json')", timeout=60_000)
    ready(page)
    assert page.get_attribute(MP, "data-mode") == "replay"
    n = int(page.locator(f"{MP} .mp-jump input").get_attribute("max"))
    jump(page, n)
    ids = hf.encode(appstate.sources.sample("emoji").text, add_special_tokens=False).ids
    drawn = page.evaluate(TOKENS_JS)
    assert [t["id"] for t in drawn] == ids[: len(drawn)] and drawn[0]["text"].startswith("▁")
    assert status(page).startswith(f"Step {n} / {n}") and f"{len(ids):,} tokens" in status(page)
    groups = [g for g in page.evaluate(FALLBACK_JS) if g["chips"]]
    assert groups and all(spells(g) for g in groups), groups
    assert "byte-fallback tokens" in page.locator(f"{MP} .mp-tokens").evaluate("e => e.closest('.mp').textContent")
    shot_at(page, "replay-sentencepiece-upload", MP, 1280, 720)
    shot_at(page, "replay-sentencepiece-upload-390", f"{MP} .mp-tokens .bpe-bf >> nth=0", 390, 844)


def test_a_paste_of_the_box_limit_lands_at_once_one_over_is_refused_aloud(browser, server_url):
    """The Paste box (up to 2,000,000 characters) hung the tab 29 s on 500,000: text inserted as typing (an IME's
    or a keyboard app's commit, ``Input.insertText``) goes into a text area one line at a time, quadratic. The
    box's script (views/big_paste.py) puts it in at once; one over the limit is refused with a sentence that
    points to Upload (Streamlit's max_chars dropped it without a word)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 1400})
    page = open_player(ctx.new_page(), server_url)
    radio(page, "player_source", "Paste")
    limit = appstate.sources.MAX_TRAIN_BYTES
    big = lines_of(limit)
    insert_big(page, "player_paste", big, 60)  # a hang detector: 3-4 s measured (13 s for 500,000 without)
    refused_aloud(
        page,
        "player_paste",
        big,
        f"Nothing was pasted: with it the text would have {limit + 1:,} characters, over this box's limit of "
        f"{limit:,}. A bigger text can go through Upload.",
    )
    shot(page, "player-big-paste-refused")
    ctx.close()
