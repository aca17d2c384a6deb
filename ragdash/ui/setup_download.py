"""A saved run downloads from the Results page as the setup file that reruns it
(``python -m ragdash run FILE``, here or in CI), or says why no setup describes it."""

from __future__ import annotations

from ..errors import RagdashError
from ..run import Run
from ..setup import setup_from_run, setup_to_toml
from .page import PageContext
from .widgets import say


def setup_text(run: Run, lang: str) -> str:
    """The setup file of ``run``; raises :class:`~ragdash.errors.DatasetError` (one sentence)
    for a run no setup describes (an uploaded TREC file, an ANN experiment)."""
    from ..i18n import t

    setup = setup_from_run(run)
    comment = t("setupui.file_comment", lang, name=run.name or run.id or "", id=run.id or "")
    if setup.dataset and not setup.dataset.startswith("sample:"):
        comment += "\n" + t("setupui.file_dataset", lang)
    return setup_to_toml(setup, comment=comment)


def download_button(ctx: PageContext, run: Run, where, *, stem: str) -> None:
    """The Results page's "Setup file (.toml)" button, or the same button disabled with the
    reason as its help."""
    t = ctx.t
    try:
        text, why = setup_text(run, ctx.lang), None
    except RagdashError as exc:
        text, why = "", say(exc, ctx.lang)
    where.download_button(t("setupui.download"), text.encode("utf-8"), f"{stem}.setup.toml",
                          "application/toml", key="dl_setup", icon=":material/tune:",
                          disabled=why is not None, on_click="ignore",
                          help=why or t("setupui.download_help"))
