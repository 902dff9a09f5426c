#!/usr/bin/env python3
"""Before -> after, per scenario: how many ok rows print a unit over 100 %, how many take their
limiter from the counters, and which limiters changed (the most common changes), between a
results.csv from before issue 39 and one after it (plain or gzipped).

usage: verdicts.py BEFORE/results.csv[.gz] AFTER/results.csv[.gz]"""
import collections, csv, gzip, sys

NOT_UNITS = {"cv_pct", "occupancy_pct", "ci_half_width_pct", "ci_target_pct", "trend_pct",
             "placement_pct", "placement_sd_pct", "clock_pct"}


def load(p):
    f = gzip.open(p, "rt", newline="") if p.endswith(".gz") else open(p, newline="")
    with f:
        return [r for r in csv.DictReader(f) if r["status"] == "ok"]


def over(r):
    for c, v in r.items():
        if c and c.endswith("_pct") and c not in NOT_UNITS:
            try:
                if float(v) > 100:
                    return True
            except (TypeError, ValueError):
                pass
    return False


def key(r):
    return (r["scenario"], r["variant"], r["params"], r.get("mode", "warm"))


before, after = load(sys.argv[1]), load(sys.argv[2])
b = {key(r): r for r in before}
a = {key(r): r for r in after}
print("| scenario | rows | over 100 % before → after | limiter over 100 % before → after | counted limiter before → after | limiters changed |")
print("|---|---|---|---|---|---|")
changes = collections.defaultdict(collections.Counter)
for sc in sorted({k[0] for k in a}):
    ks = [k for k in a if k[0] == sc and k in b]
    ob = sum(over(b[k]) for k in ks)
    oa = sum(over(a[k]) for k in ks)
    lb = sum(float(b[k]["limiter_pct"] or 0) > 100 for k in ks)
    la = sum(float(a[k]["limiter_pct"] or 0) > 100 for k in ks)
    cb = sum(b[k]["limiter_source"] == "counted" for k in ks)
    ca = sum(a[k]["limiter_source"] == "counted" for k in ks)
    ch = 0
    for k in ks:
        if b[k]["limiter"] != a[k]["limiter"]:
            ch += 1
            changes[sc][(b[k]["limiter"] or "-", a[k]["limiter"] or "-")] += 1
    print(f"| {sc} | {len(ks)} | {ob} → {oa} | {lb} → {la} | {cb} → {ca} | {ch} |")
tot = [k for k in a if k in b]
print(f"| all | {len(tot)} | {sum(over(b[k]) for k in tot)} → {sum(over(a[k]) for k in tot)} | "
      f"{sum(float(b[k]['limiter_pct'] or 0) > 100 for k in tot)} → {sum(float(a[k]['limiter_pct'] or 0) > 100 for k in tot)} | "
      f"{sum(b[k]['limiter_source'] == 'counted' for k in tot)} → {sum(a[k]['limiter_source'] == 'counted' for k in tot)} | "
      f"{sum(b[k]['limiter'] != a[k]['limiter'] for k in tot)} |")
print()
for sc, c in sorted(changes.items()):
    print(f"- {sc}: " + "; ".join(f"{x} → {y} ({n})" for (x, y), n in c.most_common(4)))
