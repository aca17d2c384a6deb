import streamlit as st

from ragdash.ui import page_setup

ctx = page_setup("run")
st.title(ctx.t("nav.run"))
