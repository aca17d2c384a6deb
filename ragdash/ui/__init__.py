"""The Streamlit side of ragdash: the only package besides app.py and pages/ that imports
streamlit. Pages start with :func:`page_setup` and keep cross-page values under
:mod:`ragdash.ui.keys`."""

from . import keys, state
from .page import PAGE_PATHS, PAGES, PageContext, page_setup
from .widgets import bind, bind_choice, bind_multi

__all__ = ["PAGES", "PAGE_PATHS", "PageContext", "bind", "bind_choice", "bind_multi", "keys",
           "page_setup", "state"]
