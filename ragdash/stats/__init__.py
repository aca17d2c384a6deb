"""Statistics for comparing runs: bootstrap intervals, paired tests, Holm, verdicts.

Everything works on per-query metric values (one number per query, or a queries × K matrix
for curves), is pure and deterministic for a given seed. Start with :func:`compare_runs` (or
:func:`compare_tables` for ``ragdash.metrics.MetricTable`` objects); the building blocks are
public for the app's charts.
"""

from .bands import CURVE_BAND_RESAMPLES, CurveBands, table_bands
from .bootstrap import (
    DEFAULT_RESAMPLES,
    Bands,
    Interval,
    bootstrap_ci,
    bootstrap_means,
    curve_bands,
    paired_difference_ci,
)
from .compare import (
    Alignment,
    Comparison,
    PairResult,
    RunMean,
    align_queries,
    align_tables,
    compare_runs,
    compare_tables,
    metric_label,
)
from .correction import holm
from .frontier import X_AXES, Frontier, FrontierPoint, Operating, build_frontier, operating
from .significance import (
    DEFAULT_PERMUTATIONS,
    paired_ttest,
    randomization_test,
    randomization_tests,
    wilcoxon_test,
)
from .verdict import Verdict, detectable_difference, make_verdict, queries_needed

__all__ = [
    "CURVE_BAND_RESAMPLES",
    "DEFAULT_PERMUTATIONS",
    "DEFAULT_RESAMPLES",
    "X_AXES",
    "Alignment",
    "Bands",
    "Comparison",
    "CurveBands",
    "Frontier",
    "FrontierPoint",
    "Interval",
    "Operating",
    "PairResult",
    "RunMean",
    "Verdict",
    "align_queries",
    "align_tables",
    "bootstrap_ci",
    "bootstrap_means",
    "build_frontier",
    "compare_runs",
    "compare_tables",
    "curve_bands",
    "detectable_difference",
    "holm",
    "make_verdict",
    "metric_label",
    "operating",
    "paired_difference_ci",
    "paired_ttest",
    "queries_needed",
    "randomization_test",
    "randomization_tests",
    "table_bands",
    "wilcoxon_test",
]
