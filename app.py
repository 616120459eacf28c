"""BPE Lab: see byte pair encoding. Entry point: navigation and the shared sidebar.

The shared sidebar holds what every page uses: the palette (``appstate.keys.PALETTE``) and presenter view
(``appstate.keys.PRESENTER``: large type, high contrast, sidebar collapsed — for a projector). Both come
from the URL once per session (``?palette=okabe_ito``, ``?presenter=1``; bad values -> the default and a
note on the page, :func:`appstate.links.read_app_link`) and are written back to it on every run, so a link
keeps them.

This file is read twice. ``streamlit run app.py`` first imports it as a module (``__name__ == "app"``) and
finds ``app``, an ``st.App``: the server then is that ASGI app, Streamlit's own routes plus our middleware
(``serving.static.CompressedStatic``: its static files sent gzip-compressed, ~1.2 MB instead of ~4.9 MB for
a fresh page; ``serving.page_base.PageBase``: a deep-linked page's index.html tells Streamlit's frontend its base
path, which it otherwise finds by two 404s logged in the console), a route that live rooms' students poll (``liveroom.endpoint.play_endpoint``: the teacher's play
state as a few bytes of JSON, no script run) and a start-up hook (``serving.tcp``: ``TCP_NODELAY`` on its connections, without which every
response on a kept-alive connection waited ~40 ms). Every session then runs this file as its script
(``__name__ == "__main__"``), as AppTest does: :func:`main`.
"""

import streamlit as st

if __name__ != "__main__":  # imported by `streamlit run app.py` (or an ASGI server): the server, not a page
    from starlette.middleware import Middleware
    from starlette.routing import Route

    from liveroom.endpoint import PLAY_PATH, play_endpoint
    from serving.page_base import PageBase
    from serving.static import CompressedStatic
    from serving.tcp import nodelay_lifespan

    app = st.App(
        __file__,
        middleware=[Middleware(CompressedStatic), Middleware(PageBase)],
        lifespan=nodelay_lifespan,
        routes=[Route(PLAY_PATH, play_endpoint, methods=["GET"])],
    )

from app_pages.live_room import keep_in_browser, sidebar_badge  # noqa: E402
from appstate import keys, links, pageguard  # noqa: E402
from components.reveal import reveal  # noqa: E402
from liveroom import session, student  # noqa: E402
from views.notes import notes_html  # noqa: E402
from views.presenter import presenter_css  # noqa: E402
from views.theme import PALETTE_LABELS  # noqa: E402

ss = st.session_state
PRESENTER_ON = "_app_presenter_on"  # times turned on: each new count scrolls up once (components.reveal)
#: pages whose session's first run draws their first screen only and asks for the rest (the Tokenize view, once
#: its tokens are drawn): the sidebar's settings wait for that run too
FIRST_SCREEN_FIRST = ("tokenize",)


def _clear_notes() -> None:
    ss[keys.APP_NOTES] = []


def pages() -> list:
    return [
        st.Page(
            "app_pages/player.py", title="Merge player", icon=":material/play_circle:", default=True, url_path="player"
        ),
        st.Page("app_pages/tokenize_page.py", title="Tokenize", icon=":material/text_fields:", url_path="tokenize"),
        st.Page(
            "app_pages/pretokenizer_lab.py",
            title="Pre-tokenizer lab",
            icon=":material/content_cut:",
            url_path="pretokenizer",
        ),
        st.Page("app_pages/compare.py", title="Compare", icon=":material/compare_arrows:", url_path="compare"),
        st.Page("app_pages/token_tax.py", title="Token tax", icon=":material/translate:", url_path="token-tax"),
        st.Page("app_pages/classroom.py", title="Classroom", icon=":material/school:", url_path="classroom"),
    ]


def shared(nav) -> None:
    """The link's presenter/palette (once per session), presenter view, the shared sidebar, its notes, and
    both written back to the URL (before the page, which may add its own parameters)."""
    links.read_link_once(keys.APP_URL_READ, keys.APP_NOTES, links.read_app_link)
    ss.setdefault(keys.APP_NOTES_PAGE, nav.url_path)
    if ss[keys.APP_NOTES_PAGE] != nav.url_path:
        ss[keys.APP_NOTES] = []

    # Presenter view (callbacks have already run: the toggle's new value is in session state)
    presenting = keys.presenting()
    if presenting and not ss.get(keys.APP_WAS_PRESENTING):  # turned on: the page from its top (main() scrolls)
        ss[PRESENTER_ON] = ss.get(PRESENTER_ON, 0) + 1
    if presenting:
        st.set_page_config(initial_sidebar_state="collapsed")
    elif ss.get(keys.APP_WAS_PRESENTING):
        st.set_page_config(initial_sidebar_state="expanded")
    ss[keys.APP_WAS_PRESENTING] = presenting

    # (a page that draws its first screen first: they come with the run it asks for once that is drawn)
    if not (ss[keys.APP_FIRST_RUN] and nav.url_path in FIRST_SCREEN_FIRST):
        with st.sidebar:
            _sidebar_settings()

    # A live room: a link's ?join=CODE joins it (on any page), a following student goes to the page the room
    # shows; the sidebar says which room
    session.adopt_from_cookies(st.context.cookies)  # a reload: the teacher leads again, a student is the same
    student.read_join()
    student.follow_route(nav.url_path)
    with st.sidebar:
        keep_in_browser()

    if presenting:
        st.html(presenter_css())
    if ss.get(keys.APP_NOTES) and nav.url_path not in ("player", "classroom", ""):
        with st.container(key="app_note"):
            st.html(notes_html(ss[keys.APP_NOTES]))

    links.write_app_link()  # on every run, before the page (which may add its own parameters)


def _sidebar_settings() -> None:
    """The shared sidebar's palette and presenter view."""
    st.radio(
        "Colors",
        list(PALETTE_LABELS),
        format_func=PALETTE_LABELS.get,
        key=keys.PALETTE,
        on_change=_clear_notes,
        help="Token and chart colors. The color-blind safe palette is Okabe–Ito's.",
    )
    st.toggle(
        "Presenter view",
        key=keys.PRESENTER,
        on_change=_clear_notes,
        help="Large type, high contrast, sidebar collapsed: for a projector. Reopen the sidebar with "
        "the arrow at the top left to turn it off.",
    )


def main() -> None:
    st.set_page_config(page_title="BPE Lab", page_icon="🧩", layout="wide")
    ss[keys.APP_FIRST_RUN] = keys.APP_FIRST_RUN not in ss  # (a fresh page: Tokenize draws its tokens first)
    nav = st.navigation(pages())
    with st.sidebar:
        badge = st.container()  # a live room's badge: drawn after the page, which may change the room's state
    # A failure in the shared part is logged and shown in short; the page still runs, under its own guard
    # (and this one, for a page that raises before it has one).
    pageguard.run_page(lambda: shared(nav), page="BPE Lab")
    pageguard.run_page(nav.run, page=nav.title or "BPE Lab")
    # presenter view just turned on: the page back to its top (the player first), not where it was scrolled to
    # (its sticky controls then covered the tokens, the status line and chart were off screen). After the page:
    # nothing comes and goes above it.
    reveal(
        "[data-testid=stMainBlockContainer]",
        key="app_reveal",
        mode="top",
        seq=ss.get(PRESENTER_ON, 0),
        blur=True,  # the switch keeps the focus in the closed sidebar: a clicker's first key went to it
    )
    with badge:
        pageguard.run_page(lambda: sidebar_badge(nav.url_path), page="BPE Lab")


if __name__ == "__main__":
    main()
