"""Reading a TREC run file into columns: ragdash's own byte-level numpy reader against
pyarrow's CSV reader, whole processes, alternating, best of ``--repeat``.

    python bench/bench_run_reader.py RUN [--repeat 3]

Both sides end at the same place: a ranking's raw material, i.e. the query and doc id columns
as integer codes (pyarrow: ``dictionary_encode``) and the scores as float64.

- ragdash: ``ragdash.formats.trec_run.read_columns`` then the doc ids' byte-order codes (what
  ``Ranking.read_trec`` does before ordering);
- pyarrow: ``pyarrow.csv.read_csv`` with a space delimiter and no quoting (it cannot split on
  runs of mixed whitespace as trec_eval does, so it only reads the single-space layout),
  then ``dictionary_encode`` of both id columns and the scores to numpy.

Make a run with ``python bench/bench_score.py --repeat 1 --keep DIR`` (DIR/run.txt).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

OURS = r'''
import sys
from ragdash.formats.trec_run import read_columns
from ragdash.ranking import _byte_order_codes
q, d, s = read_columns(sys.argv[1])
vocab, codes, _ = _byte_order_codes(d)
print(len(s), len(vocab))
'''

ARROW = r'''
import sys
import pyarrow as pa, pyarrow.csv as pv, pyarrow.compute as pc
names = ["q", "q0", "d", "rank", "s", "tag"]
t = pv.read_csv(sys.argv[1], read_options=pv.ReadOptions(column_names=names),
                parse_options=pv.ParseOptions(delimiter=" ", quote_char=False,
                                              double_quote=False),
                convert_options=pv.ConvertOptions(include_columns=["q", "d", "s"],
                                                  column_types={"q": pa.string(),
                                                                "d": pa.string(),
                                                                "s": pa.float64()}))
q = pc.dictionary_encode(t["q"]).combine_chunks()
d = pc.dictionary_encode(t["d"]).combine_chunks()
s = t["s"].to_numpy()
print(len(s), len(d.dictionary))
'''


def timed(code: str, run: str, env: dict) -> tuple[float, str]:
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code, run], env=env, cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    return time.perf_counter() - t0, out.strip()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", type=Path)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    times: dict[str, list[float]] = {"ragdash": [], "pyarrow": []}
    outs = {}
    for _ in range(args.repeat):
        for name, code in (("ragdash", OURS), ("pyarrow", ARROW)):
            t, outs[name] = timed(code, str(args.run), env)
            times[name].append(t)
    print(f"{args.run} ({args.run.stat().st_size / 1e6:.1f} MB); load average "
          f"{os.getloadavg()[0]:.2f}; {time.strftime('%Y-%m-%d %H:%M')}")
    for name, ts in times.items():
        print(f"{name + ':':<9} best {min(ts):.3f} s  (runs: {', '.join(f'{t:.3f}' for t in ts)})"
              f"  rows, distinct doc ids: {outs[name]}")
    print(f"ratio ragdash / pyarrow: {min(times['ragdash']) / min(times['pyarrow']):.2f}")
    return 0 if outs["ragdash"] == outs["pyarrow"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
