import streamlit as st

from ragdash.ui import page_setup

ctx = page_setup("compare")
st.title(ctx.t("nav.compare"))
