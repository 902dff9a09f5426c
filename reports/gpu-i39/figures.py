#!/usr/bin/env python3
"""Issue 39's figures from one device call's folder (reports/gpu-i39/run.sh): for each suite
run, the ok rows, those with any unit figure over 100 %, the limiter's source, why a row was
not counted; for the peaks, each unit's value and its own counter's reading.

usage: figures.py CALL_DIR   (holds peak/ and suite-*/)"""
import collections, csv, gzip, os, sys

# The `_pct` columns that are no unit's throughput (src/results/units.rs OTHER_PCT_COLUMNS).
NOT_UNITS = {"cv_pct", "occupancy_pct", "ci_half_width_pct", "ci_target_pct", "trend_pct",
             "placement_pct", "placement_sd_pct", "clock_pct"}


def rows(path):
    for p in (path, path + ".gz"):
        if os.path.exists(p):
            with (gzip.open(p, "rt", newline="") if p.endswith(".gz") else open(p, newline="")) as f:
                return list(csv.DictReader(f))
    return []


def over_100(r):
    out = []
    for c, v in r.items():
        if c and c.endswith("_pct") and c not in NOT_UNITS:
            try:
                if float(v) > 100:
                    out.append(f"{c}={float(v):.1f}")
            except (TypeError, ValueError):
                pass
    return out


def suite(d):
    rs = [r for r in rows(os.path.join(d, "results.csv")) if r["status"] == "ok"]
    n = len(rs)
    over = [r for r in rs if over_100(r)]
    counted = [r for r in rs if r["limiter_source"] == "counted"]
    print(f"## {os.path.basename(d)}: {n} ok rows")
    print(f"- rows with a unit figure over 100 %: {len(over)}")
    for r in over[:10]:
        print(f"  - {r['scenario']}/{r['variant']} [{r['params']}] {r['mode']}: {', '.join(over_100(r))}")
    print(f"- rows whose limiter_pct is over 100: {sum(1 for r in rs if (r['limiter_pct'] or '0') and float(r['limiter_pct'] or 0) > 100)}")
    print(f"- counted limiter: {len(counted)} of {n} ({100.0 * len(counted) / max(n, 1):.1f} %)")
    by = collections.Counter()
    for r in rs:
        if r["limiter_source"] != "counted":
            why = (r["hw_reason"] or "(no reason)").split(":")[0][:70]
            by[(r["scenario"], r["mode"], why)] += 1
    for (sc, mode, why), k in by.most_common():
        print(f"  - not counted: {sc} {mode}: {k} rows: {why}")
    per = collections.defaultdict(lambda: [0, 0])
    for r in rs:
        per[r["scenario"]][0] += 1
        per[r["scenario"]][1] += r["limiter_source"] == "counted"
    print("- per scenario (counted / ok): " + ", ".join(f"{s} {c}/{t}" for s, (t, c) in sorted(per.items())))
    dov = collections.Counter()
    for r in rs:
        for u in filter(None, r.get("declared_over_units", "").split("+")):
            dov[(r["scenario"], u)] += 1
    if dov:
        print("- declared over 100 (kept apart, never the limiter): " + ", ".join(f"{s} {u} {k}" for (s, u), k in sorted(dov.items())))
    lim = collections.Counter(r["limiter"] for r in rs)
    print("- limiters: " + ", ".join(f"{l or '(none)'} {k}" for l, k in lim.most_common()))
    print()


def peaks(d):
    ps = rows(os.path.join(d, "peaks.csv"))
    if not ps:
        return
    print("## peaks")
    print("| unit | peak | unit of it | status | counted by | counted % | best variant |")
    print("|---|---|---|---|---|---|---|")
    for p in ps:
        v = p["value"]
        v = f"{float(v):.5g}" if v else "-"
        c = p.get("counted_pct") or ""
        c = f"{float(c):.1f}" if c else "-"
        print(f"| {p['unit']} | {v} | {p['value_unit']} | {p['status']} | {p.get('counted_metric') or '-'} | {c} | {p['best_variant']} |")
    low = [p for p in ps if p.get("counted_pct") and float(p["counted_pct"]) < 90]
    print(f"\ncounted under 90 %: {', '.join(p['unit'] for p in low) or 'none'}")
    print()


if __name__ == "__main__":
    call = sys.argv[1]
    peaks(os.path.join(call, "peak"))
    for s in sorted(x for x in os.listdir(call) if x.startswith("suite-") and os.path.isdir(os.path.join(call, x))):
        suite(os.path.join(call, s))
