"""Views: pure functions from library objects to HTML strings, plotly figures and data frames.

Nothing here touches Streamlit, so every view can be called and checked in a unit test.
"""
