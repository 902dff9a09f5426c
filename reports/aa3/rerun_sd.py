#!/usr/bin/env python3
"""The process-clock SD a GPU row's re-run interval carries (PROCESS_CLOCK_SD,
src/measure/clock.rs), against the H100 A/A runs: for each candidate SD, how often each run's
re-run interval holds the other runs' medians (ok rows both have), in all 6 ordered pairs.

    python3 reports/aa3/rerun_sd.py [RUN_DIR:OLD_SD ...]

Each run folder holds a/, b/, c/ (results.csv.gz). OLD_SD is the SD the binary already put in
(run3: none; run4, run5: 0.003); it is taken out of each side in quadrature before the
candidate goes in. Rows without clock_pct (not gauged, CPU devices) are left as they are.
"""
import csv, gzip, itertools, math, os, sys

KEY = ("scenario", "variant", "params", "mode")
HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = sys.argv[1:] or [f"{HERE}/nvidia-h100/run3:0", f"{HERE}/nvidia-h100/run4:0.003",
                        f"{HERE}/nvidia-h100/run5:0.003"]
CANDIDATES = [0.0, 0.003, 0.0033, 0.0035, 0.004, 0.005]
K = 1.96 * math.sqrt(2)


def rows(d):
    with gzip.open(f"{d}/results.csv.gz", "rt") as f:
        return {tuple(r[k] for k in KEY): r for r in csv.DictReader(f) if r["status"] == "ok"}


def interval(r, sd, old):
    m, lo, hi = (float(r[c]) for c in ("median_ns", "rerun_low_ns", "rerun_high_ns"))
    if r.get("clock_pct", "") == "":
        return lo, hi
    e_old, e = K * old * m, K * sd * m
    dl = math.sqrt(max((m - lo) ** 2 - e_old ** 2, 0.0))
    dh = math.sqrt(max((hi - m) ** 2 - e_old ** 2, 0.0))
    return m - math.hypot(dl, e), m + math.hypot(dh, e)


for spec in RUNS:
    run, old = spec.rsplit(":", 1)
    runs = {s: rows(f"{run}/{s}") for s in "abc"}
    for sd in CANDIDATES:
        out = []
        for x, y in itertools.permutations("abc", 2):
            keys = [k for k in runs[x] if k in runs[y]]
            hit = 0
            for k in keys:
                lo, hi = interval(runs[x][k], sd, float(old))
                hit += lo <= float(runs[y][k]["median_ns"]) <= hi
            out.append(f"{x}{y} {100 * hit / len(keys):5.1f}")
        print(f"{os.path.basename(run)}  SD {100 * sd:.2f} %:  " + "  ".join(out))
