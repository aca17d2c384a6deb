"""Presentation: tables for people, plotly figures and the standalone HTML report.

These modules only draw: numbers come from :mod:`ragdash.metrics` and statistics from
:mod:`ragdash.stats`.

- :mod:`ragdash.present.tables` — summary / per-query / drill-down DataFrames, safe CSV;
- :mod:`ragdash.present.charts` — curves across K, histograms, scatters, cost bars;
- :mod:`ragdash.present.report` — one offline HTML file for people who do not write code.
"""
