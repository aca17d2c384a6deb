import streamlit as st

from ragdash.ui import page_setup

ctx = page_setup("data")
st.title(ctx.t("nav.data"))
