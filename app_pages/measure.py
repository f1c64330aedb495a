import streamlit as st

st.title("coming")
