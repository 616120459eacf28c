"""Small Streamlit components of our own (page layer: they import Streamlit)."""
