"""How the Tokenize page's AppTest modules open it (tests/test_app_tokenize*.py): directly, like a link, or
after a visit to the Merge player, and how a preset is picked."""

from __future__ import annotations

import tokenize_driver as T
from helpers import PRESETS, open_app
from streamlit.testing.v1 import AppTest

import appstate.keys
import bpe

PAGE = "app_pages/tokenize_page.py"
#: The columns' titles: the library registry's labels (one source for them)
CL100K, O200K = bpe.PRETRAINED["cl100k_base"].label, bpe.PRETRAINED["o200k_base"].label


def open_page(via_player: bool = False, **state) -> AppTest:
    """The Tokenize page, opened directly (like a link) or after a visit to the Merge player.

    AppTest's first run always starts at the default page (the player), which trains; a tab opened
    straight on /tokenize has trained nothing on the player, so that memory is cleared for a direct open.
    """
    forget = () if via_player else (appstate.keys.PLAYER_RUN, appstate.keys.PLAYER_TEXT, appstate.keys.PLAYER_STEP)
    return open_app(PAGE, state=state, first_run=True, forget=forget)


def set_preset(at, key):
    T.preset_box(at).set_value(key).run()
    assert not at.exception, [e.message for e in at.exception]
    assert T.text(at) == PRESETS[key]["text"] == T.settings(at)["text"]
