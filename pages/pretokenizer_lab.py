import streamlit as st

st.title("pretokenizer_lab")
st.info("This page is being built.")
