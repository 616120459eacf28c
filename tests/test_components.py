"""The component modules as the browser gets them: each component's committed bundle (``components/*/dist/``,
built by esbuild from its ES modules: ``npm run build``, scripts/bundle.mjs) must be exactly what its modules
build to now, so that what is tested and reviewed (the modules) is what runs (the bundle); and the Python side
sends those bundles."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: every bundle scripts/bundle.mjs writes (components/<this>)
BUNDLES = (
    "merge_player/dist/player.js",
    "merge_player/dist/mailbox.js",
    "tokenize_view/dist/view.js",
    "tokenize_view/dist/mail.js",
    "copy_link/dist/copy_link.js",
    "pick_table/dist/pick_table.js",
    "reveal/dist/reveal.js",
)


@pytest.fixture(scope="module")
def esbuild():
    if not (ROOT / "node_modules" / "esbuild").is_dir():
        pytest.skip("esbuild is not installed (npm ci: scripts/test.sh does it)")


def test_the_committed_bundles_are_what_the_modules_build_to(esbuild):
    out = subprocess.run(
        ["node", "scripts/bundle.mjs", "--check"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr + out.stdout
    assert f"bundles: {len(BUNDLES)} up to date" in out.stdout


def test_the_bundler_writes_every_bundle_listed_here():
    script = (ROOT / "scripts" / "bundle.mjs").read_text(encoding="utf-8")
    assert sorted(re.findall(r'": "([\w/]+/dist/[\w.]+)"', script)) == sorted(BUNDLES)


def test_python_sends_the_bundles():
    from components.copy_link import COPY_LINK_JS
    from components.merge_player import MAILBOX_JS, PLAYER_JS
    from components.reveal import REVEAL_JS
    from components.tokenize_view import MAIL_JS, VIEW_JS

    sent = {
        "merge_player/dist/player.js": PLAYER_JS,
        "merge_player/dist/mailbox.js": MAILBOX_JS,
        "tokenize_view/dist/view.js": VIEW_JS,
        "tokenize_view/dist/mail.js": MAIL_JS,
        "copy_link/dist/copy_link.js": COPY_LINK_JS,
        "reveal/dist/reveal.js": REVEAL_JS,
    }
    for path, js in sent.items():
        assert js == (ROOT / "components" / path).read_text(encoding="utf-8"), path
        # one module, no import left to resolve (nothing is fetched), a default export for Streamlit to call
        code = js.split("\n", 1)[1]  # (after its banner, a comment)
        assert not re.search(r"(?<![\w$.])import\b\s*[\w{*(\"']", code), path
        assert re.search(r"export\s*\{[^}]*\bas default\b", js), path
