#!/usr/bin/env python3
"""The measurement-core figures of two or more runs of the same scenarios (issue 11):

    python3 scripts/aa_figures.py RUN_A RUN_B [RUN_C ...]

For each run: wall time, warm-up share, where the wall time went (run.json `cases`), stop
reasons, and whether every row with a median of at least 50 us has a CI half-width of at most
0.5 %. For each ordered pair of runs: how often the second run's median lies inside the first
run's 95 % CI and inside its re-run interval, and the spread of the medians' differences.
Only ok rows present in both runs count. Needs pandas (python3-pandas)."""
import json
import sys
from pathlib import Path

import pandas as pd

KEY = ["scenario", "variant", "params", "mode"]


def ok_rows(run):
    d = pd.read_csv(Path(run) / "results.csv")
    return d[d.status == "ok"].set_index(KEY)


def run_figures(run):
    j = json.loads((Path(run) / "run.json").read_text())
    rows = ok_rows(run)
    cases = pd.DataFrame(j["cases"])
    big = rows[rows.median_ns >= 50e3]
    print(f"{run}: wall {j['wall_ns'] / 1e9:.1f} s, warm-up {j['warmup_wall_ns'] / 1e9:.1f} s "
          f"({100 * j['warmup_share']:.1f} % of wall), {len(rows)} ok rows")
    sums = cases[["inputs_wait_ms", "setup_ms", "check_phase_ms", "rounds_ms"]].sum() / 1e3
    print("  waiting for inputs {inputs_wait_ms:.1f} s, setup {setup_ms:.1f} s, build+check "
          "{check_phase_ms:.1f} s, warm-up+rounds {rounds_ms:.1f} s".format(**sums.to_dict()))
    print(f"  stop reasons {rows.stop_reason.value_counts().to_dict()}, "
          f"rounds mean {rows.rounds.mean():.2f}, max {rows.rounds.max():.0f}")
    print(f"  rows with median >= 50 us: {len(big)}; CI half-width > 0.5 %: "
          f"{int((big.ci_half_width_pct > 0.5).sum())} (largest {big.ci_half_width_pct.max():.3f} %)")


def pair_figures(a, b):
    x = ok_rows(a).join(ok_rows(b)[["median_ns"]], rsuffix="_2", how="inner")
    m = x.median_ns_2
    in_ci = ((m >= x.median_ci_low_ns) & (m <= x.median_ci_high_ns)).mean()
    in_rerun = ((m >= x.rerun_low_ns) & (m <= x.rerun_high_ns)).mean()
    diff = (m / x.median_ns - 1) * 100
    q = diff.quantile([0.05, 0.5, 0.95]).tolist()
    print(f"{b} in {a}: {len(x)} rows; median inside the CI {100 * in_ci:.1f} %, inside the "
          f"re-run interval {100 * in_rerun:.1f} %; difference p5/p50/p95 "
          f"{q[0]:+.2f}/{q[1]:+.2f}/{q[2]:+.2f} %")


def main(runs):
    if len(runs) < 2:
        sys.exit(__doc__)
    for r in runs:
        run_figures(r)
    for a in runs:
        for b in runs:
            if a != b:
                pair_figures(a, b)


if __name__ == "__main__":
    main(sys.argv[1:])
