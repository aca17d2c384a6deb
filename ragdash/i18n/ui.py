"""Strings for the Streamlit pages (owned by the app UI helper). See ragdash.i18n."""

MESSAGES: dict[str, dict[str, str]] = {}
