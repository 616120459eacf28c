"""BPE Lab: see byte pair encoding. Entry point: navigation and the shared sidebar.

The shared sidebar holds what every page uses: the palette (``appstate.keys.PALETTE``) and presenter view
(``appstate.keys.PRESENTER``: large type, high contrast, sidebar collapsed — for a projector). Both come
from the URL once per session (``?palette=okabe_ito``, ``?presenter=1``; bad values -> the default and a
note on the page, :func:`appstate.links.read_app_link`) and are written back to it on every run, so a link
keeps them.
"""
import streamlit as st

from appstate import keys, links, pageguard
from views.notes import notes_html
from views.presenter import presenter_css
from views.theme import PALETTE_LABELS

ss = st.session_state

st.set_page_config(page_title="BPE Lab", page_icon="🧩", layout="wide")


def _clear_notes() -> None:
    ss[keys.APP_NOTES] = []


pages = [
    st.Page("app_pages/player.py", title="Merge player", icon=":material/play_circle:", default=True, url_path="player"),
    st.Page("app_pages/tokenize_page.py", title="Tokenize", icon=":material/text_fields:", url_path="tokenize"),
    st.Page("app_pages/pretokenizer_lab.py", title="Pre-tokenizer lab", icon=":material/content_cut:", url_path="pretokenizer"),
    st.Page("app_pages/token_tax.py", title="Token tax", icon=":material/translate:", url_path="token-tax"),
    st.Page("app_pages/classroom.py", title="Classroom", icon=":material/school:", url_path="classroom"),
]
nav = st.navigation(pages)


def shared() -> None:
    """The link's presenter/palette (once per session), presenter view, the shared sidebar, its notes, and
    both written back to the URL (before the page, which may add its own parameters)."""
    links.read_link_once(keys.APP_URL_READ, keys.APP_NOTES, links.read_app_link)
    ss.setdefault(keys.APP_NOTES_PAGE, nav.url_path)
    if ss[keys.APP_NOTES_PAGE] != nav.url_path:
        ss[keys.APP_NOTES] = []

    # Presenter view (callbacks have already run: the toggle's new value is in session state)
    presenting = keys.presenting()
    if presenting:
        st.set_page_config(initial_sidebar_state="collapsed")
    elif ss.get(keys.APP_WAS_PRESENTING):
        st.set_page_config(initial_sidebar_state="expanded")
    ss[keys.APP_WAS_PRESENTING] = presenting

    with st.sidebar:
        st.radio("Colors", list(PALETTE_LABELS), format_func=PALETTE_LABELS.get, key=keys.PALETTE,
                 on_change=_clear_notes,
                 help="Token and chart colors. The color-blind safe palette is Okabe–Ito's.")
        st.toggle("Presenter view", key=keys.PRESENTER, on_change=_clear_notes,
                  help="Large type, high contrast, sidebar collapsed: for a projector. Reopen the sidebar with "
                       "the arrow at the top left to turn it off.")

    if presenting:
        st.html(presenter_css())
    if ss.get(keys.APP_NOTES) and nav.url_path not in ("player", "classroom", ""):
        with st.container(key="app_note"):
            st.html(notes_html(ss[keys.APP_NOTES]))

    links.write_app_link()  # on every run, before the page (which may add its own parameters)


# A failure in the shared part is logged and shown in short; the page still runs, under its own guard
# (and this one, for a page that raises before it has one).
pageguard.run_page(shared, page="BPE Lab")
pageguard.run_page(nav.run, page=nav.title or "BPE Lab")
