"""How ``streamlit run app.py`` serves the app beyond Streamlit's own routes: the ASGI pieces ``app.py`` hands to
``st.App`` (see its docstring). ``static``: Streamlit's static files sent gzip-compressed."""
