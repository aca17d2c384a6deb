"""The metric registry: the metric families as data, and the parser for names like ``ndcg@10``.

Everything that lists metrics — error messages, ``--help``, the app's pickers and help
bubbles — reads :data:`FAMILIES`; nothing else keeps a hand-written list.

A metric name is ``<family>@<k>`` (``recall@10``), case-insensitive; a family's aliases are
accepted too (``P@10``, ``success@5``, ``ndcg_cut@10``). A bare family name (``mrr``) means
"at the table's Kmax".

Note on names: *Recall@K* here is recall (share of all relevant documents found in the top K).
What some RAG tools call "recall@k" — "was at least one relevant document found?" — is
*Hit rate@K* (trec_eval's ``success@K``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import MetricError
from ..i18n import error, t, text


@dataclass(frozen=True)
class Family:
    """One metric family, computed at every cutoff K.

    ``empty_value`` is what a query scores when the run retrieved nothing for it or it has no
    relevant document; ``graded`` says whether the value depends on the grade (NDCG) or only
    on relevant/not relevant (all the others). ``coverage`` marks a family that measures the
    labels rather than the ranking (Judged@K): it is shown beside the others, never chosen as
    the quality to compare or optimise.
    """

    name: str
    label: str
    formula: str
    help_key: str  # what it measures, in the catalog (catalog/metrics.toml)
    graded: bool = False
    empty_value: float = 0.0
    aliases: tuple[str, ...] = ()
    coverage: bool = False

    def help(self, lang: str = "en") -> str:
        """What the family measures, in ``lang``."""
        return t(self.help_key, lang)

    @property
    def help_en(self) -> str:
        return self.help("en")

    @property
    def help_ja(self) -> str:
        return self.help("ja")

    def at(self, k: int) -> str:
        """The metric name at cutoff ``k``: ``FAMILIES["ndcg"].at(10) == "ndcg@10"``."""
        return f"{self.name}@{int(k)}"


_FAMILY_LIST = (
    Family(
        name="recall", label="Recall",
        formula="Recall@K = |relevant ∩ top K| / |relevant|",
        help_key="metric.help.recall",
        aliases=("r",),
    ),
    Family(
        name="precision", label="Precision",
        formula="P@K = |relevant ∩ top K| / K",
        help_key="metric.help.precision",
        aliases=("p", "prec"),
    ),
    Family(
        name="hit_rate", label="Hit rate",
        formula="Hit@K = 1 if any relevant document is in the top K, else 0",
        help_key="metric.help.hit_rate",
        aliases=("hit", "hits", "hitrate", "success"),
    ),
    Family(
        name="mrr", label="MRR",
        formula="RR@K = 1 / rank of the first relevant document if rank ≤ K, else 0",
        help_key="metric.help.mrr",
        aliases=("rr", "recip_rank"),
    ),
    Family(
        name="ndcg", label="nDCG",
        formula="nDCG@K = DCG@K / IDCG@K,  DCG@K = Σ_{i≤K} gain_i / log2(i + 1)",
        help_key="metric.help.ndcg",
        graded=True,
        aliases=("ndcg_cut",),
    ),
    Family(
        name="map", label="MAP",
        formula="AP@K = Σ_{relevant rank i ≤ K} P@i / |relevant|",
        help_key="metric.help.map",
        aliases=("ap", "map_cut"),
    ),
    Family(
        name="bpref", label="bpref",
        formula="bpref@K = Σ_{relevant rank i ≤ K} (1 − min(n_i, R) / min(R, N)) / R",
        help_key="metric.help.bpref",
    ),
    Family(
        name="judged", label="Judged",
        formula="Judged@K = |judged ∩ top K| / K",
        help_key="metric.help.judged",
        coverage=True,
    ),
)

#: every family, in display order, by name
FAMILIES: dict[str, Family] = {f.name: f for f in _FAMILY_LIST}

#: family names in display order
FAMILY_NAMES: tuple[str, ...] = tuple(FAMILIES)

#: the families that measure the ranking (what a user compares, optimises, gates on)
QUALITY_NAMES: tuple[str, ...] = tuple(f.name for f in _FAMILY_LIST if not f.coverage)

#: the family that measures how much of the top K the labels cover
COVERAGE = "judged"

_LOOKUP: dict[str, str] = {}
for _f in _FAMILY_LIST:
    _LOOKUP[_f.name] = _f.name
    _LOOKUP[_f.name.replace("_", "")] = _f.name
    for _a in _f.aliases:
        _LOOKUP[_a] = _f.name


def family(name: str) -> Family:
    """The :class:`Family` named ``name`` (or one of its aliases)."""
    key = str(name).strip().lower().replace("-", "_")
    found = _LOOKUP.get(key)
    if found is None:
        raise error(MetricError, "metric.unknown_family", name=name, hint=_valid_names_hint())
    return FAMILIES[found]


def parse_metric(name: str) -> tuple[str, int | None]:
    """``"ndcg@10"`` -> ``("ndcg", 10)``; ``"mrr"`` -> ``("mrr", None)`` (at Kmax).

    Raises :class:`~ragdash.errors.MetricError` naming the valid families for an unknown name
    and for a cutoff that is not a positive integer.
    """
    text = str(name).strip()
    base, sep, cut = text.partition("@")
    if not base:
        raise error(MetricError, "metric.no_family", name=name, hint=_valid_names_hint())
    key = base.strip().lower().replace("-", "_")
    found = _LOOKUP.get(key)
    if found is None:
        raise error(MetricError, "metric.unknown", name=name, mean=_suggestion(key),
                    hint=_valid_names_hint())
    if not sep:
        return found, None
    cut = cut.strip()
    # ASCII digits only ("²" is a digit to str.isdigit, not to int); 18 digits at most (a
    # cutoff is capped at a run's depth anyway, and int() refuses 4,300 digits)
    if not (cut.isascii() and cut.isdigit()) or len(cut) > 18 or int(cut) < 1:
        raise error(MetricError, "metric.bad_cutoff", name=name, found=found)
    return found, int(cut)


def metric_label(name: str) -> str:
    """The one display name of a metric or family, from the registry: ``"ndcg@10"`` ->
    ``"nDCG@10"``, ``"hit_rate"`` -> ``"Hit rate"``. A name the registry does not know (a
    custom measure) is returned unchanged, so tables and statistics work on any column."""
    try:
        fam, k = parse_metric(name)
    except MetricError:
        return str(name)
    return FAMILIES[fam].label + ("" if k is None else f"@{k}")


def metric_names(ks, families=None) -> list[str]:
    """All names for ``families`` (default: all, registry order) at every ``k`` in ``ks``."""
    fams = FAMILY_NAMES if families is None else [family(f).name for f in families]
    return [f"{f}@{int(k)}" for f in fams for k in ks]


def _valid_names_hint() -> str:
    return text("metric.valid_hint", names=", ".join(FAMILY_NAMES),
                examples=", ".join(f.at(10) for f in _FAMILY_LIST[:2]))


def _suggestion(key: str) -> str:
    import difflib  # only on the error path

    close = difflib.get_close_matches(key, list(_LOOKUP), n=1, cutoff=0.6)
    return text("metric.did_you_mean", name=repr(_LOOKUP[close[0]])) if close else ""
