"""A scatter of thousands of queries is drawn with WebGL, its colours as numbers on a
three-step scale (B better, same, B worse); a small one stays SVG (clickable points)."""

from __future__ import annotations

import numpy as np

from ragdash.present.charts import PALETTE, SCATTER_DENSE_AT, scatter_figure


def test_dense_scatter_is_webgl_with_the_same_three_colours():
    n = SCATTER_DENSE_AT + 500
    rng = np.random.default_rng(3)
    a, b = rng.choice([0.0, 0.5, 1.0], n), rng.choice([0.0, 0.5, 1.0], n)
    qids = [f"q{i}" for i in range(n)]
    pts = scatter_figure(a, b, qids, [f"t{i}" for i in range(n)]).data[0]
    assert pts.type == "scattergl"
    assert list(pts.customdata) == qids
    np.testing.assert_array_equal(np.asarray(pts.marker.color), np.sign(b - a))
    scale = {v: c for v, c in pts.marker.colorscale}
    assert (pts.marker.cmin, pts.marker.cmax) == (-1, 1)
    assert scale[0] == PALETTE[0] and scale[1] == PALETTE[1]
    small = scatter_figure(a[:50], b[:50], qids[:50]).data[0]
    assert small.type == "scatter"
    assert small.marker.color[0] == (PALETTE[1] if b[0] > a[0] else PALETTE[0]
                                     if b[0] < a[0] else "#888888")
