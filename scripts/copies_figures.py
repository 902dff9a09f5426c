#!/usr/bin/env python3
"""How often copies of one scenario, run in one process, agree within each other's 95 % CI
(reports/nvidia-h200/run-copies.sh makes the runs):

    python3 scripts/copies_figures.py RUN [RUN ...]

A run holds scenarios NAME_c1, NAME_c2, ... (the same scenario under other names). For every
ordered pair of copies and every ok row of both: is the second copy's median inside the first
copy's CI, and inside its re-run interval; the SD of the medians' differences in %; and, per
scenario, the share inside the CI. Also the mean CI half-width and rounds. Reads
RUN/results.csv or RUN/results.csv.gz. Needs pandas."""
import itertools
import sys
from pathlib import Path

import pandas as pd

KEY = ["variant", "params", "mode"]


def figures(run):
    f = Path(run) / "results.csv"
    d = pd.read_csv(f if f.exists() else f.with_suffix(".csv.gz"))
    d = d[d.status == "ok"].copy()
    d["base"] = d.scenario.str.replace(r"_c\d+$", "", regex=True)
    d["copy"] = d.scenario.str.extract(r"_c(\d+)$")[0]
    d = d.dropna(subset=["copy"])
    ins, rer, sds, per = [], [], [], {}
    copies = sorted(d["copy"].unique())
    for ca, cb in itertools.permutations(copies, 2):
        x = d[d["copy"] == ca].set_index(["base"] + KEY)
        y = d[d["copy"] == cb].set_index(["base"] + KEY)
        j = x.join(y[["median_ns"]], rsuffix="_y", how="inner")
        m = j.median_ns_y
        inside = (m >= j.median_ci_low_ns) & (m <= j.median_ci_high_ns)
        ins.append(inside.mean())
        rer.append(((m >= j.rerun_low_ns) & (m <= j.rerun_high_ns)).mean())
        sds.append(((m / j.median_ns - 1) * 100).std())
        for base, v in inside.groupby(level=0).mean().items():
            per.setdefault(base, []).append(v)
    per_s = ", ".join(f"{k} {100 * sum(v) / len(v):.1f} %" for k, v in sorted(per.items()))
    print(f"{run}: {len(d)} ok rows, {len(copies)} copies; median inside the other copy's CI "
          f"{100 * sum(ins) / len(ins):.1f} %, inside its re-run interval "
          f"{100 * sum(rer) / len(rer):.1f} %; difference SD {sum(sds) / len(sds):.3f} %")
    print(f"  by scenario: {per_s}")
    print(f"  mean CI half-width {d.ci_half_width_pct.mean():.3f} %, rounds mean "
          f"{d.rounds.mean():.2f}, stop reasons {d.stop_reason.value_counts().to_dict()}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for r in sys.argv[1:]:
        figures(r)
