import streamlit as st

st.title("player")
st.info("This page is being built.")
