"""BPE Lab: see byte pair encoding. Entry point: navigation and the shared sidebar.

The shared sidebar holds what every page uses: the palette (key ``palette``) and presenter view (key
``presenter``: large type, high contrast, sidebar collapsed — for a projector). Both come from the URL
once per session (``?palette=okabe_ito``, ``?presenter=1``; bad values -> the default and a note on the
page) and are written back to it on every run, so a link keeps them.
"""
import streamlit as st

import appstate
from views.notes import notes_html
from views.presenter import presenter_css
from views.share import parse_bool, parse_choice
from views.theme import PALETTE_LABELS

ss = st.session_state
# Session keys
PRESENTER = "presenter"                 # presenter view on (the sidebar toggle)
PALETTE = "palette"                     # "default" | "okabe_ito" (the sidebar radio; read by appstate.palette)
URL_READ = "_app_url_read"              # the link's presenter/palette have been read (once per session)
#: notes about the link's presenter/palette. The player and the classroom take them over (``ss.pop``) when
#: they read their own parameters, and show them with theirs (cleared once the user moves on); on other
#: pages app.py shows them until the page changes.
NOTES = "_app_notes"
NOTES_PAGE = "_app_notes_page"          # the page the notes were shown on (another page: they are dropped)
WAS_PRESENTING = "_app_was_presenting"  # presenter view was on at the last run (to reopen the sidebar)

st.set_page_config(page_title="BPE Lab", page_icon="🧩", layout="wide")


def read_link() -> None:
    """Once per session: presenter and palette from the URL; bad values -> defaults + notes."""
    qp = st.query_params
    notes = []
    presenter, note = parse_bool(qp.get("presenter"), False, name="presenter")
    if note:
        notes.append(note)
    if "presenter" in qp or PRESENTER not in ss:
        ss[PRESENTER] = presenter
    pal, note = parse_choice(qp.get("palette"), list(PALETTE_LABELS), "default", name="palette")
    if note:
        notes.append(note)
    if "palette" in qp or PALETTE not in ss:
        ss[PALETTE] = pal
    ss[NOTES] = notes


def _clear_notes() -> None:
    ss[NOTES] = []


if not ss.get(URL_READ):
    read_link()
    ss[URL_READ] = True

pages = [
    st.Page("app_pages/player.py", title="Merge player", icon=":material/play_circle:", default=True, url_path="player"),
    st.Page("app_pages/tokenize_page.py", title="Tokenize", icon=":material/text_fields:", url_path="tokenize"),
    st.Page("app_pages/pretokenizer_lab.py", title="Pre-tokenizer lab", icon=":material/content_cut:", url_path="pretokenizer"),
    st.Page("app_pages/token_tax.py", title="Token tax", icon=":material/translate:", url_path="token-tax"),
    st.Page("app_pages/classroom.py", title="Classroom", icon=":material/school:", url_path="classroom"),
]
nav = st.navigation(pages)
ss.setdefault(NOTES_PAGE, nav.url_path)
if ss[NOTES_PAGE] != nav.url_path:
    ss[NOTES] = []

# Presenter view (callbacks have already run: the toggle's new value is in session state)
presenting = bool(ss.get(PRESENTER, False))
if presenting:
    st.set_page_config(initial_sidebar_state="collapsed")
elif ss.get(WAS_PRESENTING):
    st.set_page_config(initial_sidebar_state="expanded")
ss[WAS_PRESENTING] = presenting

with st.sidebar:
    st.radio("Colors", list(PALETTE_LABELS), format_func=PALETTE_LABELS.get, key=PALETTE,
             on_change=_clear_notes,
             help="Token and chart colors. The color-blind safe palette is Okabe–Ito's.")
    st.toggle("Presenter view", key=PRESENTER, on_change=_clear_notes,
              help="Large type, high contrast, sidebar collapsed: for a projector. Reopen the sidebar with "
                   "the arrow at the top left to turn it off.")

if presenting:
    st.html(presenter_css())
if ss.get(NOTES) and nav.url_path not in ("player", "classroom", ""):
    with st.container(key="app_note"):
        st.html(notes_html(ss[NOTES]))

# Written back on every run (before the page, which may add its own parameters)
for key, value in (("presenter", "1" if presenting else None),
                   ("palette", None if appstate.palette() == "default" else appstate.palette())):
    if value is None:
        if key in st.query_params:
            del st.query_params[key]
    elif st.query_params.get(key) != value:
        st.query_params[key] = value

nav.run()
