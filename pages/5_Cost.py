import streamlit as st

from ragdash.ui import page_setup

ctx = page_setup("cost")
st.title(ctx.t("nav.cost"))
