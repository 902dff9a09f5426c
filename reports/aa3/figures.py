#!/usr/bin/env python3
"""Issue 27's figures from three (or more) runs of the suite in separate processes:

    python3 reports/aa3/figures.py P3LAB DIR [RUNS...]      (RUNS default: a b c)

For each run: wall time, the time spent in placements after the first (run.json
`rounds[].placements_ms`) and moving resources (`relocate_ms`), and how many rows were
measured over several placements. For each ordered pair (X, Y): `p3lab compare X Y`'s verdict
counts, and how often Y's median lies inside X's re-run interval (rerun_low_ns..rerun_high_ns,
meant to hold a re-run 95 % of the time), over all ok rows in both and split by whether X's
row spans several placements. Then the known effects, from the first run. Plain Python."""
import csv
import gzip
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

KEY = ("scenario", "variant", "params", "mode")


def opened(run, name):
    """`name` in `run`, or its gzipped copy (reports keep them so)."""
    p = Path(run) / name
    return open(p, newline="") if p.exists() else gzip.open(str(p) + ".gz", "rt", newline="")


def rows(run):
    with opened(run, "results.csv") as f:
        return {tuple(r[k] for k in KEY): r for r in csv.DictReader(f) if r["status"] == "ok"}


def run_figures(run):
    j = json.load(opened(run, "run.json"))
    wall = j["wall_ns"] / 1e9
    pm = sum(r.get("placements_ms", 0.0) for r in j["rounds"]) / 1e3
    rel = sum(r.get("relocate_ms", 0.0) for r in j["rounds"]) / 1e3
    rs = rows(run)
    multi = [r for r in rs.values() if r.get("placements") not in ("", "1", None)]
    cases = {(r["scenario"], r["params"], r["mode"]) for r in multi}
    sd = sorted(float(r["placement_sd_pct"]) for r in multi if r["placement_sd_pct"])
    med = sd[len(sd) // 2] if sd else float("nan")
    print(f"{run}: wall {wall:.1f} s; rounds in placements after the check's {pm:.1f} s "
          f"({100 * pm / wall:.1f} %), moving resources {rel:.1f} s ({100 * rel / wall:.1f} %); "
          f"{len(multi)} of {len(rs)} ok rows in {len(cases)} case-modes over several placements "
          f"(placement_sd_pct median {med:.2f} %, max {sd[-1] if sd else float('nan'):.2f} %)")


def pair_figures(p3lab, a, b):
    out = subprocess.run([p3lab, "compare", a, b, "--format", "csv", "--out", "/tmp/aa3-cmp"],
                         capture_output=True, text=True)
    # One line per pair carries the verdict: `time_ns` (compare's other lines are its metrics).
    verdicts = Counter(r["verdict"] for r in csv.DictReader(out.stdout.splitlines())
                       if r.get("metric", "time_ns") == "time_ns")
    comparable = sum(v for k, v in verdicts.items() if k != "not comparable")
    other = sum(v for k, v in verdicts.items() if k not in ("no change", "not comparable"))
    x, y = rows(a), rows(b)
    both = [k for k in x if k in y]

    def inside(keys):
        hit = sum(float(x[k]["rerun_low_ns"]) <= float(y[k]["median_ns"]) <= float(x[k]["rerun_high_ns"])
                  for k in keys)
        return f"{100 * hit / len(keys):.1f} % of {len(keys)}" if keys else "-"
    multi = [k for k in both if x[k].get("placements") not in ("", "1", None)]
    single = [k for k in both if k not in set(multi)]
    print(f"{Path(a).name} -> {Path(b).name}: verdicts {dict(verdicts)}; other than no change "
          f"{other} of {comparable} comparable ({100 * other / max(comparable, 1):.2f} %); "
          f"{Path(b).name}'s median inside {Path(a).name}'s re-run interval: all {inside(both)}, "
          f"several placements {inside(multi)}, one {inside(single)}")


def effects(p3lab, run):
    for pair in ("nreg16-smem0=nreg24-smem0", "float-pad0=float-pad1", "stride64=stride1"):
        out = subprocess.run([p3lab, "compare", run, "--pair", pair, "--format", "csv",
                              "--out", "/tmp/aa3-cmp"], capture_output=True, text=True)
        for r in csv.DictReader(out.stdout.splitlines()):
            if r.get("metric", "time_ns") != "time_ns":
                continue
            print(f"  {pair} [{r['params']}] ({r['mode']}): ratio {float(r['ratio']):.3f} "
                  f"CI [{float(r['ci_low']):.3f}, {float(r['ci_high']):.3f}] {r['method']} -> {r['verdict']}")


def main():
    p3lab, d = sys.argv[1], Path(sys.argv[2])
    runs = [str(d / r) for r in (sys.argv[3:] or ["a", "b", "c"])]
    for r in runs:
        run_figures(r)
    for a in runs:
        for b in runs:
            if a != b:
                pair_figures(p3lab, a, b)
    print(f"known effects in {Path(runs[0]).name}:")
    effects(p3lab, runs[0])


if __name__ == "__main__":
    main()
