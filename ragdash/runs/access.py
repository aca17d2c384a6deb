"""Who sees and changes which saved run: the run store as one user of the app sees it.

Two cases, decided by the server's configuration (see docs/sharing.md):

- **No authentication** (the local default, ``user=None``): every saved run is listed for
  everyone, and anyone can rename or delete any of them. The app says so beside the list.
- **A signed-in user** (Streamlit's OIDC login or a trusted proxy's user header): the
  lists show the user's own runs, the shared ones (saved by the command line or before
  sign-in was configured: ``owner`` is ``None``) and the runs this session opened by a
  ``?run=`` link. Only a run's owner renames it, deletes it or adds a measurement to it;
  for everyone else it is read-only. A link gives read access to whoever has it: run ids are
  50 random bits and are not listed to other users.

Either way nothing opens by itself: a page shows a run only when the session made it,
opened its link or picked it from a list.

Stored datasets follow the same rules. A dataset kept on its own (a generated set: the
Generate page saves it with its owner) is listed to whoever saved it; one that came with runs
is listed to whoever may see one of those runs; one saved without sign-in is everyone's; and
a dataset link (``/Data?dataset=<fingerprint>``: 256 bits, never listed to other users)
gives read access to whoever has it. A dataset is never changed in the store, so reading is
all anyone gets.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..errors import RunStoreError
from ..i18n import error
from ..run import Run
from .store import RunStore, RunSummary

__all__ = ["UserRuns"]


class UserRuns:
    """``store`` as ``user`` sees it; ``opened()`` gives the ids this session opened by link,
    ``opened_datasets()`` the fingerprints of the datasets it opened by link.

    Reads (:meth:`load`, :meth:`summary`, :meth:`exists`, ...) pass through: a run id is the
    capability a link hands over. Lists are filtered, saves are stamped with the user, and
    changes are refused to anyone but the owner (:meth:`can_change`)."""

    def __init__(self, store: RunStore, user: str | None,
                 opened: Callable[[], Iterable[str]] = tuple,
                 opened_datasets: Callable[[], Iterable[str]] = tuple) -> None:
        self.base = store
        self.user = user or None
        self._opened = opened
        self._opened_datasets = opened_datasets

    def __getattr__(self, name: str) -> Any:  # home, path, bad_rows, load, dataset, ...
        return getattr(self.base, name)

    # -- what is listed ---------------------------------------------------------------------
    def visible(self, summary: RunSummary) -> bool:
        if self.user is None or summary.owner in (None, self.user):
            return True
        return summary.id in set(self._opened())

    def list(self, *, dataset_fingerprint: str | None = None,
             limit: int | None = None) -> list[RunSummary]:
        if self.user is None:
            return self.base.list(dataset_fingerprint=dataset_fingerprint, limit=limit)
        shown = [s for s in self.base.list(dataset_fingerprint=dataset_fingerprint)
                 if self.visible(s)]
        return shown if limit is None else shown[:int(limit)]

    def dataset_visible(self, entry: Mapping[str, Any]) -> bool:
        """Whether a :meth:`RunStore.datasets` entry is listed to this user: saved by them or
        for everyone, opened by its link, or the dataset of a run they may see."""
        if self.user is None:
            return True
        if any(who in (None, self.user) for who in entry.get("saved_by", ())):
            return True
        if entry["fingerprint"] in set(self._opened_datasets()):
            return True
        opened = set(self._opened())
        return any(who in (None, self.user) or rid in opened
                   for rid, who in entry.get("run_owners", {}).items())

    def datasets(self) -> list[dict]:
        """The stored datasets listed to this user (:meth:`dataset_visible`)."""
        entries = self.base.datasets()
        if self.user is None:
            return entries
        return [e for e in entries if self.dataset_visible(e)]

    def save_dataset(self, dataset) -> str:
        """Keep ``dataset`` in the store as this user's (everyone's without sign-in)."""
        return self.base.save_dataset(dataset, owner=self.user)

    # -- who changes what -----------------------------------------------------------------
    def can_change(self, run_id: str) -> bool:
        """Without authentication anyone; with it, the run's owner only (a shared run,
        saved without an owner, is read-only in the app)."""
        if self.user is None:
            return True
        return self.base.summary(run_id).owner == self.user

    def _check(self, run_id: str) -> None:
        if not self.can_change(run_id):
            raise error(RunStoreError, "store.not_yours", run_id=run_id)

    def save(self, run: Run, *, secrets: Iterable[str] = ()) -> str:
        return self.base.save(run, secrets=secrets, owner=self.user)

    save_run = save

    def rename(self, run_id: str, name: str) -> None:
        self._check(run_id)
        self.base.rename(run_id, name)

    def delete(self, run_id: str) -> None:
        self._check(run_id)
        self.base.delete(run_id)

    def update_resources(self, run_id: str, changes: Mapping) -> dict:
        self._check(run_id)
        return self.base.update_resources(run_id, changes)
