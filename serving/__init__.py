"""How ``streamlit run app.py`` serves the app beyond Streamlit's own routes: the ASGI pieces ``app.py`` hands to
``st.App`` (see its docstring). ``static``: Streamlit's static files sent gzip-compressed; ``page_base``: a
deep-linked page's base path told to the frontend (no 404s in the console); ``tcp``: ``TCP_NODELAY``."""
