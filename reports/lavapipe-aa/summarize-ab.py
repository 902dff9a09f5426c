#!/usr/bin/env python3
"""Issue 41's `p3lab ab` benchmark (ab-i41.sh) summarized: per ab run its row's ratio, interval
and verdict by p3lab's rule (improved/regressed only where the whole 95 % interval lies beyond
1 ± 1 %; the binary that ran the benchmark in reports/lavapipe-aa/ab and ab-load still read an
interval clearing 1 but not the band as a change, fixed in src/stats/ab.rs after it; since
session 48 the pairs' exact sign-flip test must also reach p ≤ 0.05, else `inconclusive`: files
written before have no `p` column, and the rule is applied to them without it), then the counts.

usage: summarize-ab.py DIR   (holds aa-N.ab.csv and slow10-N.ab.csv)"""
import csv, glob, os, sys

d = sys.argv[1]
noise = 0.01
counts = {}
print("| run | ratio new ÷ base [95 % CI] | pairs | sign-flip p | verdict (as written) | verdict (p3lab's rule) |")
print("|---|---|--:|--:|---|---|")
for f in sorted(glob.glob(os.path.join(d, "*.ab.csv"))):
    name = os.path.basename(f)[: -len(".ab.csv")]
    kind = name.rsplit("-", 1)[0]
    for r in csv.DictReader(open(f)):
        lo, hi, ratio = float(r["ci_low"]), float(r["ci_high"]), float(r["ratio"])
        v = "regressed" if lo > 1 + noise else "improved" if hi < 1 - noise else "no change"
        p = r.get("p")
        if p and v != "no change" and float(p) > 0.05:
            v = "inconclusive"
        counts.setdefault(kind, []).append(v)
        ps = f"{float(p):.3f}" if p else "(not written)"
        print(f"| {name} | {ratio:.4f} [{lo:.4f}, {hi:.4f}] | {r['pairs']} | {ps} | {r['verdict']} | {v} |")
print()
for kind, vs in counts.items():
    changed = sum(v in ("improved", "regressed") for v in vs)
    unsure = sum(v == "inconclusive" for v in vs)
    print(f"{kind}: {changed} of {len(vs)} ab runs read a change, {unsure} inconclusive")
