#!/usr/bin/env python3
"""Whole-case shifts between processes against the SM clock the counters saw (issue 27 item 2):

    python3 reports/aa3/clocks.py DIR            (DIR holds the runs a, b, c)

Per params case (warm rows with counters): the mean counted SM clock (results.csv
hw_sm_clock_mhz) in each run, and the mean time ratio of its variants a/b and c/b. The 14
cases with the largest a/b shift are printed. Plain Python."""
import csv
import gzip
import statistics as st
import sys
from collections import defaultdict
from pathlib import Path

KEY = ("scenario", "variant", "params", "mode")


def rows(run):
    p = Path(run) / "results.csv"
    f = open(p, newline="") if p.exists() else gzip.open(str(p) + ".gz", "rt", newline="")
    return {tuple(x[k] for k in KEY): x for x in csv.DictReader(f) if x["status"] == "ok"}


d = Path(sys.argv[1])
R = {r: rows(d / r) for r in "abc"}
cases = defaultdict(lambda: defaultdict(dict))
for r in "abc":
    for k, x in R[r].items():
        if x["hw_sm_clock_mhz"]:
            cases[(k[0], k[2])][r][k] = (float(x["hw_sm_clock_mhz"]), float(x["median_ns"]))
out = []
for c, v in cases.items():
    common = [k for k in v["a"] if k in v["b"] and k in v["c"]]
    if not common:
        continue
    clk = {r: st.mean(v[r][k][0] for k in common) for r in "abc"}
    ab = st.mean(v["a"][k][1] / v["b"][k][1] for k in common) - 1
    cb = st.mean(v["c"][k][1] / v["b"][k][1] for k in common) - 1
    out.append((c, clk, 100 * ab, 100 * cb))
print("case: counted SM clock a / b / c (MHz) | time a/b, c/b")
for c, clk, ab, cb in sorted(out, key=lambda o: -abs(o[2]))[:14]:
    print(f"  {c[0]} [{c[1][:40]}]: {clk['a']:.0f} / {clk['b']:.0f} / {clk['c']:.0f} | {ab:+.2f} %, {cb:+.2f} %")
