"""BPE Lab: see byte pair encoding. Entry point: navigation and the shared sidebar."""
import streamlit as st

import appstate
from views.theme import PALETTE_LABELS

st.set_page_config(page_title="BPE Lab", page_icon="🧩", layout="wide")

pages = [
    st.Page("app_pages/player.py", title="Merge player", icon=":material/play_circle:", default=True, url_path="player"),
    st.Page("app_pages/tokenize_page.py", title="Tokenize", icon=":material/text_fields:", url_path="tokenize"),
    st.Page("app_pages/pretokenizer_lab.py", title="Pre-tokenizer lab", icon=":material/content_cut:", url_path="pretokenizer"),
    st.Page("app_pages/classroom.py", title="Classroom", icon=":material/school:", url_path="classroom"),
]
nav = st.navigation(pages)

with st.sidebar:
    st.radio("Colors", list(PALETTE_LABELS), format_func=PALETTE_LABELS.get, key="palette",
             help="Token and chart colors. The color-blind safe palette is Okabe–Ito's.")

nav.run()
