import streamlit as st

st.title("tokenize_page")
st.info("This page is being built.")
