"""Memory a session spends on the player's text (a benchmark, not a test): how many copies of a pasted or
uploaded text stay alive after the player has trained on it and run again.

In-process, through ``streamlit.testing.v1.AppTest`` (the app's own code paths, no browser): paste the largest
text the box takes (``MAX_TRAIN_BYTES`` characters of English words) or "upload" a 10 MB file (its
``UploadedFile`` stand-in goes through ``appstate.sources.read_upload`` as the sidebar's callback does), train
50 merges, rerun once more (a widget change), drop the script's own reference to the text and read
``tracemalloc``'s live blocks of at least 256 KB, grouped by where they were allocated: the app's (our
copies) and Streamlit's (the widget's value, which Streamlit holds itself). Run:
``python -m bench.session_memory``.
"""

from __future__ import annotations

import gc
import io
import random
import resource
import sys
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

BLOCK = 256_000
SUBMIT = "FormSubmitter:player_paste_form-Train on this text"


def words_text(n_chars: int, seed: int = 1) -> str:
    """``n_chars`` characters of the English sample's words in a seeded order (ASCII: one byte a char)."""
    words = (ROOT / "sample_texts" / "english.txt").read_text(encoding="utf-8").split()
    rnd = random.Random(seed)
    out, size = [], 0
    while size < n_chars:
        w = rnd.choice(words)
        out.append(w)
        size += len(w) + 1
    return " ".join(out)[:n_chars]


class FakeUpload(io.BytesIO):
    """What ``read_upload`` reads of Streamlit's ``UploadedFile``: ``name``, ``size``, ``getvalue()``."""

    def __init__(self, name: str, data: bytes):
        super().__init__(data)
        self.name, self.size = name, len(data)


def live_blocks() -> tuple[float, float, list[str]]:
    """(MB held by the app's code, MB held by Streamlit's, one line per group)."""
    gc.collect()
    snap = tracemalloc.take_snapshot()
    ours = theirs = 0
    lines = []
    for stat in snap.statistics("traceback"):
        if stat.size < BLOCK:
            continue
        frames = list(stat.traceback)[::-1]
        app = [
            f for f in frames if str(ROOT) in f.filename and "/tests/" not in f.filename and "/bench/" not in f.filename
        ]
        where = (
            f"{Path(app[0].filename).relative_to(ROOT)}:{app[0].lineno}"
            if app
            else "streamlit " + f"{Path(frames[0].filename).name}:{frames[0].lineno}"
        )
        owner = "app" if app and "site-packages" not in frames[0].filename else "streamlit"
        if owner == "app":
            ours += stat.size
        else:
            theirs += stat.size
        lines.append(f"  {stat.size / 1e6:6.2f} MB in {stat.count} block(s)  {owner:9s} {where}")
    return ours / 1e6, theirs / 1e6, lines


def measure(kind: str) -> None:
    from streamlit.testing.v1 import AppTest

    import appstate.keys as keys
    import appstate.sources as sources

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
    at.run()
    at.session_state[keys.PLAYER_MERGES] = 50
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    tracemalloc.start(25)
    if kind == "paste":
        text = words_text(sources.MAX_TRAIN_BYTES)
        size = len(text)
        at.radio(key="player_source").set_value("paste").run()
        at.text_area(key=keys.PLAYER_PASTE).input(text)
        at.button(key=SUBMIT).click().run()
    else:
        data = words_text(10_000_000).encode()
        size = sources.MAX_TRAIN_BYTES  # what the player keeps of it
        text = None
        at.radio(key="player_source").set_value("upload").run()
        at.session_state[keys.PLAYER_UPLOAD_TEXT] = sources.read_upload(FakeUpload("big.txt", data))
        del data
        at.session_state[keys.PLAYER_UPLOAD_TRUNCATE] = True
        at.run()
    assert not at.exception, [e.message for e in at.exception]
    at.session_state[keys.PLAYER_WINDOW] = 1500  # one more rerun, as after moving the window
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    del text
    ours, theirs, lines = live_blocks()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    tracemalloc.stop()
    label = "paste of 2,000,000 characters" if kind == "paste" else "upload of 10 MB (trained on its first 2 MB)"
    print(
        f"{label}: blocks >= {BLOCK // 1000} KB alive after two runs: app {ours:.2f} MB "
        f"(= {ours * 1e6 / size:.2f} x the text it trains on), Streamlit {theirs:.2f} MB; peak RSS "
        f"{rss:.0f} MB (before the text: {rss0:.0f} MB)"
    )
    print("\n".join(lines))


if __name__ == "__main__":
    for kind in sys.argv[1:] or ["paste", "upload"]:
        measure(kind)
