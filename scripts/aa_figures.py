#!/usr/bin/env python3
"""The measurement-core figures of two or more runs of the same scenarios (issue 11):

    python3 scripts/aa_figures.py RUN_A RUN_B [RUN_C ...]

For each run: wall time, warm-up share, where the wall time went (run.json `cases`), stop
reasons, and whether every row with a median of at least 50 µs has a CI half-width of at most
0.5 %. For each ordered pair of runs: how often the second run's median lies inside the first
run's 95 % CI and inside its re-run interval, and the spread of the medians' differences.
Only ok rows present in both runs count. Each file may be gzipped (`results.csv.gz`,
`run.json.gz`: reports keep them so). Needs pandas (python3-pandas)."""
import gzip
import json
import sys
from pathlib import Path

import pandas as pd

KEY = ["scenario", "variant", "params", "mode"]
# Student-t 97.5 % quantiles by degrees of freedom (scipy.stats.t.ppf(0.975, df)).
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
        9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120,
        17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064,
        25: 2.060, 26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045, 30: 2.042, 31: 2.040, 32: 2.037,
        33: 2.035, 34: 2.032, 35: 2.030, 36: 2.028, 37: 2.026, 38: 2.024, 39: 2.023, 40: 2.021}


def plain_or_gz(run, name):
    """RUN/name, or RUN/name.gz where only the gzipped copy is there."""
    p = Path(run) / name
    return p if p.is_file() or not p.with_name(name + ".gz").is_file() else p.with_name(name + ".gz")


def ok_rows(run):
    d = pd.read_csv(plain_or_gz(run, "results.csv"))
    return d[d.status == "ok"].set_index(KEY)


def run_figures(run):
    p = plain_or_gz(run, "run.json")
    j = json.loads(gzip.open(p, "rt").read() if p.suffix == ".gz" else p.read_text())
    rows = ok_rows(run)
    cases = pd.DataFrame(j["cases"])
    big = rows[rows.median_ns >= 50e3]
    print(f"{run}: wall {j['wall_ns'] / 1e9:.1f} s, warm-up {j['warmup_wall_ns'] / 1e9:.1f} s "
          f"({100 * j['warmup_share']:.1f} % of wall), {len(rows)} ok rows")
    sums = cases[["inputs_wait_ms", "setup_ms", "check_phase_ms", "rounds_ms"]].sum() / 1e3
    print("  waiting for inputs {inputs_wait_ms:.1f} s, setup {setup_ms:.1f} s, build+check "
          "{check_phase_ms:.1f} s, warm-up+rounds {rounds_ms:.1f} s".format(**sums.to_dict()))
    reloc = sum(r.get("relocate_ms", 0.0) for r in j["rounds"]) / 1e3
    print(f"  moving resources (placement check / fresh) {reloc:.1f} s")
    print(f"  stop reasons {rows.stop_reason.value_counts().to_dict()}, "
          f"rounds mean {rows.rounds.mean():.2f}, max {rows.rounds.max():.0f}")
    print(f"  rows with median >= 50 µs: {len(big)}; CI half-width > 0.5 %: "
          f"{int((big.ci_half_width_pct > 0.5).sum())} (largest {big.ci_half_width_pct.max():.3f} %)")
    first_repetition(run)


def first_repetition(run):
    """How often a batch's first timed repetition is its slowest (issue 11: repetition 0 was
    the slowest in 312 of 385 rows before batches began with untimed repetitions). By chance
    alone: 1 / the batch's timed repetitions."""
    path = next((Path(run) / f for f in ("samples.csv", "samples.csv.gz")
                 if (Path(run) / f).is_file()), None)
    if path is None:
        return
    s = pd.read_csv(path)
    if "batch_repetition" not in s.columns:
        return
    s = s[s.phase == "kept"] if "phase" in s.columns else s[s.kept == 1]
    s = s.sort_values("batch_repetition")
    g = s.groupby(["scenario", "variant", "params", "mode", "round"]).gpu_ns
    first = g.first()
    slowest = (first >= g.max()) & (g.nunique() > 1)
    print(f"  first timed repetition the slowest of its batch: {100 * slowest.mean():.1f} % of "
          f"{len(first)} batches (by chance: {100 * (1 / g.size()).mean():.1f} %)")


def placement_figures(a, b):
    """The placement check (results.csv placement_pct; a reason when the time depends on where
    the data sits): how many rows each run flags, and whether the two runs agree."""
    flag = "where its data sits"
    x, y = ok_rows(a), ok_rows(b)
    fa = x.reason.fillna("").str.contains(flag)
    fb = y.reason.fillna("").str.contains(flag)
    both = pd.concat([fa.rename("a"), fb.rename("b")], axis=1, join="inner")
    j = x[["placement_pct"]].join(y[["placement_pct"]], rsuffix="_b", how="inner").dropna()
    by = x[fa].groupby(level=0).size().to_dict()
    print(f"placement check: {a} flags {int(fa.sum())} rows {by}, {b} flags {int(fb.sum())}; "
          f"the runs agree on {100 * (both.a == both.b).mean():.1f} % of rows "
          f"({int((both.a & both.b).sum())} flagged by both, {int((both.a | both.b).sum())} by "
          f"either); placement_pct correlation {j.corr().iloc[0, 1]:.3f}, |placement_pct| "
          f"median {x.placement_pct.abs().median():.2f} %, p95 {x.placement_pct.abs().quantile(0.95):.2f} %")
    worst = x[fa].placement_pct.abs().sort_values().tail(3)
    print("  largest: " + ", ".join(f"{k[0]}/{k[1]} [{k[2]}] {x.placement_pct[k]:+.1f} %"
                                    for k in worst.index))


def pair_figures(a, b):
    x = ok_rows(a).join(ok_rows(b)[["median_ns"]], rsuffix="_2", how="inner")
    m = x.median_ns_2
    in_ci = ((m >= x.median_ci_low_ns) & (m <= x.median_ci_high_ns)).mean()
    in_rerun = ((m >= x.rerun_low_ns) & (m <= x.rerun_high_ns)).mean()
    diff = (m / x.median_ns - 1) * 100
    q = diff.quantile([0.05, 0.5, 0.95]).tolist()
    # Calibration: the difference of the two estimates against both runs' round spreads
    # (standard error = CI half-width / t quantile, rounds - 1 degrees of freedom); a
    # calibrated design holds ~95 % here even though the CI alone holds ~88 %.
    both = ok_rows(b)[["median_ci_low_ns", "median_ci_high_ns", "rounds"]]
    y = x.join(both, rsuffix="_b")
    t = {k: v for k, v in T975.items()}
    ta = (y.rounds - 1).map(t)
    tb = (y.rounds_b - 1).map(t)
    se_a = (y.median_ci_high_ns - y.median_ci_low_ns) / 2 / ta
    se_b = (y.median_ci_high_ns_b - y.median_ci_low_ns_b) / 2 / tb
    held = ((m - y.median_ns).abs() <= ta * (se_a ** 2 + se_b ** 2) ** 0.5).mean()
    per = x.assign(in_ci=(m >= x.median_ci_low_ns) & (m <= x.median_ci_high_ns))
    worst = per.groupby(level=0).in_ci.mean().sort_values().head(3)
    worst_s = ", ".join(f"{k} {100 * v:.0f} %" for k, v in worst.items())
    print(f"{b} in {a}: {len(x)} rows; median inside the CI {100 * in_ci:.1f} %, inside the "
          f"re-run interval {100 * in_rerun:.1f} %; difference p5/p50/p95 "
          f"{q[0]:+.2f}/{q[1]:+.2f}/{q[2]:+.2f} %")
    print(f"  difference within t x both runs' standard errors {100 * held:.1f} %; "
          f"scenarios least often inside the CI: {worst_s}")


def main(runs):
    if len(runs) < 2:
        sys.exit(__doc__)
    for r in runs:
        run_figures(r)
    for a in runs:
        for b in runs:
            if a != b:
                pair_figures(a, b)
    if "placement_pct" in ok_rows(runs[0]).columns:
        placement_figures(runs[0], runs[1])


if __name__ == "__main__":
    main(sys.argv[1:])
