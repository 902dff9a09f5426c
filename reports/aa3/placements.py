#!/usr/bin/env python3
"""What makes a placement slow (issue 27 item 2), from runs measured with `--placements N`:

    python3 reports/aa3/placements.py RUN [RUN ...]

Per variant: each run's placement means (samples.csv kept rounds by `placement`), the spread
within a run (across its placements) against the spread between runs' first placements, and
for the first placement of each run the counted DRAM bytes and SM clock (results.csv hw_*)
beside its time, with where run.json says its resources sat. Plain Python."""
import csv
import gzip
import json
import statistics as st
import sys
from collections import defaultdict
from pathlib import Path


def open_csv(run, name):
    p = Path(run) / name
    return gzip.open(str(p) + ".gz", "rt") if not p.exists() else open(p, newline="")


def placement_means(run):
    reps = defaultdict(list)
    for s in csv.DictReader(open_csv(run, "samples.csv")):
        if s["kept"] == "1" and s["dispatch"] == "0" and s["mode"] == "warm":
            reps[(s["variant"], int(s.get("placement") or 0), int(s["round"]))].append(float(s["repetition_ns"]))
    by = defaultdict(lambda: defaultdict(list))
    for (v, p, _), xs in reps.items():
        by[v][p].append(st.median(xs))
    return {v: {p: st.mean(m) for p, m in ps.items()} for v, ps in by.items()}


def main(runs):
    data = {r: placement_means(r) for r in runs}
    res = {r: {x["variant"]: x for x in csv.DictReader(open_csv(r, "results.csv")) if x["mode"] == "warm"} for r in runs}
    variants = sorted(next(iter(data.values())))
    print("variant: first placement per run (µs) | SD within runs (over placements, mean of runs) | SD between runs' first placements | range of all placements")
    for v in variants:
        first = [data[r][v][0] / 1e3 for r in runs if v in data[r]]
        within = st.mean(st.stdev([m / 1e3 for m in data[r][v].values()]) for r in runs if v in data[r])
        allm = [m / 1e3 for r in runs for m in data[r][v].values()]
        print(f"  {v}: {' '.join(f'{x:.1f}' for x in first)} | {within:.2f} | {st.stdev(first):.2f} | {min(allm):.1f}-{max(allm):.1f}")
    print("first placement, per run: time, counted DRAM read/write bytes per repetition, SM clock")
    for v in variants:
        for r in runs:
            x = res[r].get(v)
            if not x:
                continue
            print(f"  {v} {Path(r).name}: {data[r][v][0] / 1e3:.1f} µs, dram r/w "
                  f"{x.get('hw_dram_read_bytes', '')}/{x.get('hw_dram_write_bytes', '')}, "
                  f"SM {x.get('hw_sm_clock_mhz', '')} MHz, dram {x.get('hw_dram_pct', '')} %")
    print("where the resources sat (run.json, warm mode): placement: resource memory handle + offset, dedicated")
    for r in runs:
        j = json.load(open_csv(r, "run.json"))
        for rec in j["rounds"]:
            if rec["mode"] != "warm":
                continue
            for p in rec.get("placements", []):
                where = ", ".join(f"{q['name']} {q['memory']:#x}+{q['offset']:#x}{' d' if q['dedicated'] else ''}" for q in p["resources"])
                print(f"  {Path(r).name} placement {p['index']}: pads {p['pad_bytes']} -> {where}")


if __name__ == "__main__":
    main(sys.argv[1:])
