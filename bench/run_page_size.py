"""How big is "Download this run as a web page" (views/run_page.py)? The page for 1 MB of English trained to
4,096 merges (and the English sample), built as the player page builds it: the run payload with the held-out
curve, the first text window, the player's code and styles.

    python -m bench.run_page_size [--merges 4096]

Prints the page's size and its parts (the payloads are gzip, then base64 in the page).
"""

from __future__ import annotations

import argparse
import time

from bench.player_bench import megabyte_text


def measure(name: str, full: str, vocab: int) -> dict:
    import appstate.caches
    import bpe
    from bpe.excerpt import split_heldout
    from bpe.replay import MergeIndex, heldout_token_counts
    from components.merge_player import PLAYER_CSS, PLAYER_JS
    from views.player_payload import pack, run_payload, window_payload
    from views.run_page import run_page_html

    text, held = split_heldout(full)
    t0 = time.perf_counter()
    run = bpe.train(text, vocab)
    t_train = time.perf_counter() - t0
    counts = heldout_token_counts(run, MergeIndex(run), held) if held else None
    run_data = pack(run_payload(run, tag="bench", heldout_counts=counts, heldout_bytes=len(held.encode())))
    rep = appstate.caches.window_replay(f"bench:{name}", 0, appstate.caches.WINDOW_CHARS, run, text)
    window_data = pack(
        window_payload(rep, tag="bench", n_merges=len(run.merges), level=run.level, total_chars=len(text))
    )
    t0 = time.perf_counter()
    page = run_page_html(
        run_data, window_data, tag="bench", player_js=PLAYER_JS, player_css=PLAYER_CSS, title=name, about=""
    )
    t_page = time.perf_counter() - t0
    return {
        "text": name,
        "bytes": len(full.encode()),
        "merges": len(run.merges),
        "train_s": t_train,
        "run_gzip": len(run_data),
        "window_gzip": len(window_data),
        "code": len(PLAYER_JS) + len(PLAYER_CSS),
        "page": len(page.encode("utf-8")),
        "page_s": t_page,
    }


def main() -> None:
    import appstate.sources

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--merges", type=int, default=4096)
    args = ap.parse_args()
    mb, source = megabyte_text()
    print(f"1 MB text: {len(mb.encode()):,} bytes of {source}; the last 10% held out of training.\n")
    rows = [
        measure("English sample", appstate.sources.sample("english").text, 256 + 700),
        measure("1 MB English", mb, 256 + args.merges),
    ]
    print(
        f"{'text':16} {'bytes':>10} {'merges':>6} {'train s':>8} {'run gz':>9} {'window gz':>9} {'code':>8} "
        f"{'page':>10} {'build ms':>8}"
    )
    for r in rows:
        print(
            f"{r['text']:16} {r['bytes']:>10,} {r['merges']:>6,} {r['train_s']:>8.1f} {r['run_gzip']:>9,} "
            f"{r['window_gzip']:>9,} {r['code']:>8,} {r['page']:>10,} {r['page_s'] * 1000:>8.1f}"
        )


if __name__ == "__main__":
    main()
