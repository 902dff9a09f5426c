#!/usr/bin/env python3
"""How far three H200 cards' suite processes differ, row by row: per pair of runs the SD of the
log ratios of `median_ns` (ok rows in both), a robust SD (MAD x 1.4826), and the 50th, 90th,
95th and 99th percentiles and the maximum of |log ratio|, in %. The figures behind compare's
card-level SD (CARD_SD, src/stats/inference.rs).

usage: python3 reports/nvidia-h200/s46/cards.py   (from the repository root)"""
import csv, gzip, math, os, statistics

here = os.path.dirname(os.path.abspath(__file__))


def load(run):
    with gzip.open(os.path.join(here, run, "results.csv.gz"), "rt", newline="") as f:
        return {(r["scenario"], r["variant"], r["params"], r["mode"]): float(r["median_ns"])
                for r in csv.DictReader(f) if r["status"] == "ok" and r["median_ns"]}


runs = {n: load(n) for n in ("suite-a", "suite-b", "suite-c")}
for a, b in (("suite-a", "suite-b"), ("suite-b", "suite-c"), ("suite-a", "suite-c")):
    x, y = runs[a], runs[b]
    lr = [math.log(y[k] / x[k]) for k in x if k in y]
    ab = sorted(abs(v) for v in lr)
    q = lambda p: ab[int(p * (len(ab) - 1))] * 100
    med = statistics.median(lr)
    mad = statistics.median(abs(v - med) for v in lr) * 1.4826
    print(f"{a} -> {b}: {len(lr)} rows, SD {statistics.pstdev(lr) * 100:.2f} %, robust SD "
          f"{mad * 100:.2f} %, |log ratio| p50 {q(.5):.2f} p90 {q(.9):.2f} p95 {q(.95):.2f} "
          f"p99 {q(.99):.2f} max {ab[-1] * 100:.2f} %")
