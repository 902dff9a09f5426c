#!/usr/bin/env python3
"""Summarize reports/nvidia-h200/probe-all (or any folder laid out the same way):

  DIR/with-probe/results.csv           a run with --probe
  DIR/overhead/{with,without}-probe/   the same suite with and without --probe, same machine

Prints: how many ok rows carry each per-row annotation, achieved vs theoretical occupancy, and
the probes' cost (median time ratio with/without, per row and per scenario), and how often the
probed pipeline's register count or theoretical occupancy differs from the plain one.

    python3 scripts/probe_summary.py reports/nvidia-h200/probe-all
"""
import sys
from pathlib import Path

import numpy as np
import pandas as pd


def read(p):
    """A results.csv, or its gzipped copy where only that is there (reports keep them so)."""
    if not p.is_file() and p.with_name(p.name + ".gz").is_file():
        p = p.with_name(p.name + ".gz")
    return pd.read_csv(p, keep_default_na=False, na_values=[""])


def main(d):
    d = Path(d)
    w = read(d / "with-probe" / "results.csv")
    ok = w[w.status == "ok"].copy()
    print(f"## {d}/with-probe: {len(w)} rows, {len(ok)} ok, "
          f"{(w.status == 'unsupported').sum()} unsupported")
    for c in ["registers_per_thread", "spill_bytes_per_thread", "shared_bytes_per_group",
              "occupancy_groups_per_unit", "achieved_groups_per_unit"]:
        print(f"  {c}: set on {ok[c].notna().sum()} of {len(ok)} ok rows")
    diff = ok.achieved_groups_per_unit - ok.occupancy_groups_per_unit
    print(f"  achieved == theoretical: {(diff == 0).sum()}, below: {(diff < 0).sum()}, "
          f"above: {(diff > 0).sum()}")
    # Below: does the grid even have that many groups per SM? (132 SMs on the H200)
    sms = 132
    g0 = ok.grid.str.split(";").str[0].str.split("x").apply(lambda v: int(v[0]) * int(v[1]) * int(v[2]))
    avail = np.ceil(g0 / sms)
    below = diff < 0
    print(f"  of those below, the grid has fewer than theoretical groups per SM "
          f"(ceil(groups / {sms})) in {(below & (avail < ok.occupancy_groups_per_unit)).sum()}; "
          f"achieved == that bound in {(below & (ok.achieved_groups_per_unit == np.minimum(avail, ok.occupancy_groups_per_unit))).sum()}")
    above = ok[diff > 0]
    if len(above):
        print("  above theoretical:")
        print(above[["scenario", "variant", "params", "mode", "occupancy_groups_per_unit",
                     "occupancy_limiter", "achieved_groups_per_unit",
                     "achieved_groups_per_unit_mean"]].to_string(index=False))

    ow = read(d / "overhead" / "with-probe" / "results.csv") if (d / "overhead" / "with-probe").is_dir() else read(d / "with-probe" / "results.csv")
    oo = read(d / "overhead" / "without-probe" / "results.csv")
    k = ["scenario", "variant", "params", "mode"]
    m = ow[ow.status == "ok"].merge(oo[oo.status == "ok"], on=k, suffixes=("_p", ""))
    m["ratio"] = m.median_ns_p / m.median_ns
    q = m.ratio.quantile([0.05, 0.25, 0.5, 0.75, 0.95])
    print(f"\n## probe cost ({d}/overhead): median time with / without, {len(m)} rows")
    print(f"  min {m.ratio.min():.3f}  p5 {q[0.05]:.3f}  p25 {q[0.25]:.3f}  median {q[0.5]:.3f}  "
          f"p75 {q[0.75]:.3f}  p95 {q[0.95]:.3f}  max {m.ratio.max():.3f}")
    print("  per scenario (median ratio):")
    for s, r in m.groupby("scenario").ratio.median().items():
        print(f"    {s:16s} {r:.3f}")
    okw = ow[ow.status == "ok"]
    print(f"  in this with-probe run, achieved above theoretical: "
          f"{(okw.achieved_groups_per_unit > okw.occupancy_groups_per_unit).sum()} rows "
          f"(counted at any instant at that commit: see reports/nvidia-h200/README.md)")
    dreg = m.registers_per_thread_p - m.registers_per_thread
    print(f"  registers_per_thread differs in {(dreg != 0).sum()} rows "
          f"(change: {dict(sorted(dreg.value_counts().items()))})")
    docc = m.occupancy_groups_per_unit_p != m.occupancy_groups_per_unit
    print(f"  theoretical occupancy differs in {docc.sum()} rows")
    print("  largest ratios:")
    print(m.sort_values("ratio")[k + ["median_ns", "median_ns_p", "ratio"]]
          .iloc[[0, 1, -2, -1]].to_string(index=False))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "reports/nvidia-h200/probe-all")
