"""Serving BPE Lab past one process: N Streamlit processes behind nginx (``python -m deploy.serve``)."""
