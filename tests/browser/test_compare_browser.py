"""The Compare page in a real browser: a student uploads the merges.txt of a trainer that counts a pair once per
pre-token (the exercise notebook's mistake); the page shows the first merge where it parts from the reference
and names the cause. Screenshots at 1280x720 and at a phone's 390 px go to tests/artifacts/ (look at them).

The expected merges come from the tutorials' loop written in ``tests/test_compare.py``, never from the page.
"""

from __future__ import annotations

from test_compare import _merges_txt, wrong_trainer

from appstate.sources import samples

from .conftest import CLEAR_OF_HEADER, open_path, settled, shot, wait_idle

VERDICT = ".cmp-verdict"


def test_an_uploaded_merges_txt_shows_the_first_difference_and_its_cause(page, server_url):
    text = samples()[0].text  # the whole file, as the student's trainer reads it
    right = wrong_trainer(text, 40)
    mine = wrong_trainer(text, 40, per_chunk=True)
    part = next(i for i, (p, q) in enumerate(zip(right, mine)) if p != q)

    open_path(page, server_url, "/compare?pattern=gpt2&merges=40", VERDICT, timeout_ms=90_000)
    page.locator(".st-key-cmp_side").get_by_text("Upload my merges").click()
    page.wait_for_selector("text=Upload the merges your trainer learned")
    wait_idle(page)
    page.set_input_files(
        ".st-key-cmp_upload input[type=file]",
        files=[{"name": "merges.txt", "mimeType": "text/plain", "buffer": _merges_txt(mine)}],
    )
    verdict = page.locator(f'{VERDICT}[data-cause="counting_per_chunk"]')
    verdict.wait_for(timeout=90_000)
    wait_idle(page)
    assert verdict.get_attribute("data-first") == str(part + 1)
    assert verdict.inner_text().startswith(f"They agree on the first {part} merges; merge {part + 1} is where")
    assert page.locator(".cmp-diagnosis").inner_text().startswith("Most likely: A pair counted once per chunk")
    assert "merges.txt" in page.locator(".cmp-side").nth(1).inner_text()
    first = page.locator(".cmp-first").first.inner_text()
    assert "in A's counts" in first
    for name, width, height in (("compare_upload_1280", 1280, 720), ("compare_upload_390", 390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        settled(page, VERDICT)
        page.locator(".cmp-side").first.evaluate("el => el.scrollIntoView({block: 'start'})")
        page.locator(".cmp-side").first.evaluate(CLEAR_OF_HEADER)
        shot(page, name)
    # a malformed upload instead: one sentence, and the page stays
    page.locator('.st-key-cmp_upload [data-testid="stFileChipDeleteBtn"]').first.click()
    wait_idle(page)
    page.set_input_files(
        ".st-key-cmp_upload input[type=file]",
        files=[{"name": "mine.txt", "mimeType": "text/plain", "buffer": b"one-token-a-line\n"}],
    )
    error = page.locator(".cmp-error")
    error.wait_for(timeout=60_000)
    assert error.inner_text().strip().endswith('expected two tokens "left right"')
    assert not page.get_by_text("Traceback").count()
