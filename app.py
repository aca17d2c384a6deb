"""ragdash — landing page. (The full app arrives with the dashboard issue.)"""

import streamlit as st

st.set_page_config(page_title="ragdash", layout="wide")
st.title("ragdash")
st.write("Evaluate the retrieval half of a RAG system: Recall, MRR, NDCG, Precision, "
         "Hit rate and MAP at every K.")
