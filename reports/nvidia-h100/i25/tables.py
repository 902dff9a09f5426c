#!/usr/bin/env python3
"""Issue 25's figures from a run-i25.sh folder (reports/<device>/i25): run from the repo root as
   python3 reports/nvidia-h100/i25/tables.py reports/nvidia-h100/i25"""
import collections, csv, gzip, io, json, statistics as st, sys, os

D = sys.argv[1]

def rows(m):
    with gzip.open(os.path.join(D, m, "results.csv.gz"), "rt") as f:
        return [r for r in csv.DictReader(f) if r["status"] == "ok"]

def key(r):
    return (r["scenario"], r["variant"], r["params"], r["mode"])

walls = {}
for l in open(os.path.join(D, "walls.txt")):
    f = l.split()
    if len(f) == 3 and f[2].startswith("wall_s="):
        walls[f[0]] = float(f[2].split("=")[1])
print("## wall times (s)")
for k, v in walls.items():
    print(f"  {k}: {v}")
for on, off in (("on", "off2"), ("on2", "off2"), ("on", "off"), ("on2", "off")):
    if on in walls and off in walls:
        print(f"  {on} / {off}: {walls[on] / walls[off]:.2f}x")

on = rows("on")
print("\n## coverage (run `on`)")
src = collections.Counter(r["hw_source"] for r in on)
print(f"  ok rows {len(on)}; hw_source {dict(src)}; hw_samples > 0 in "
      f"{sum(1 for r in on if r['hw_samples'] and int(r['hw_samples']) > 0)}")
j = json.load(gzip.open(os.path.join(D, "on", "run.json.gz"), "rt"))["hw_counters"]
print(f"  batches {j['batches']}, samples {j['samples']}, lost {j['lost_samples']}, "
      f"counter wall {j['wall_ms'] / 1e3:.1f} s, interval {j['interval_ns'] / 1e3:.0f} us, "
      f"throttled rows {j['throttled_rows']}, max clock {j['max_sm_clock_mhz']:.0f} MHz")
if "decode_ms" in j:
    print("  where the counter wall went (s): " + ", ".join(
        f"{k[:-3]} {j[k] / 1e3:.2f}" for k in ("start_stop_ms", "batches_ms", "decode_ms", "evaluate_ms")))

print("\n## the issue's checks (run `on`)")
rs = [r for r in on if r["scenario"] == "reduce_sum"]
best = min(rs, key=lambda r: float(r["median_ns"]) / float(r["bytes"]))
cb = int(best["hw_dram_read_bytes"]) + int(best["hw_dram_write_bytes"])
print(f"  reduce_sum best row {best['variant']} [{best['params']}]: hw_dram_pct {float(best['hw_dram_pct']):.1f}, "
      f"declared {best['bytes']} B vs counted {cb} B ({(cb / float(best['bytes']) - 1) * 100:+.2f} %)")
print("  reduce_sum hw_dram_pct over its rows: %.1f-%.1f" % (
    min(float(r["hw_dram_pct"]) for r in rs), max(float(r["hw_dram_pct"]) for r in rs)))
for r in on:
    if r["scenario"] == "coalescing":
        print(f"  coalescing {r['variant']}: hw_limiter {r['hw_limiter']} (dram {float(r['hw_dram_pct']):.0f} %), "
              f"declared {r['declared_limiter']} {r['declared_limiter_pct'][:4]}; counted/declared bytes "
              f"{(int(r['hw_dram_read_bytes']) + int(r['hw_dram_write_bytes'])) / float(r['bytes']):.2f}")
til = [r for r in on if r["scenario"] in ("tiling", "tiling_hlsl") and r["mode"] == "warm"]
lim = collections.Counter(r["hw_limiter"] for r in til)
print(f"  tiling + tiling_hlsl warm rows: hw_limiter {dict(lim)}; with l1tex in it: "
      f"{sum(1 for r in til if 'l1tex' in r['hw_limiter'])} of {len(til)}")

print("\n## timings with counters on vs off (same binary, separate processes)")
def agreement(a, b, name):
    bk = {key(r): r for r in b}
    rat, inside = [], 0
    pairs = [(r, bk[key(r)]) for r in a if key(r) in bk]
    for x, y in pairs:
        rat.append(float(x["median_ns"]) / float(y["median_ns"]))
        inside += float(y["rerun_low_ns"]) <= float(x["median_ns"]) <= float(y["rerun_high_ns"])
    rat.sort()
    n = len(rat)
    print(f"  {name}: {n} rows, median ratio {st.median(rat):.4f}, p5-p95 {rat[n // 20]:.4f}-{rat[-n // 20 - 1]:.4f}; "
          f"inside the other run's re-run interval {inside}/{n} ({inside / n * 100:.1f} %)")
for a, b, name in (("on", "off2", "on vs off2"), ("on2", "off2", "on2 vs off2"),
                   ("off", "off2", "off vs off2 (A/A, no counters)"), ("on", "off", "on vs off")):
    if os.path.isdir(os.path.join(D, a)) and os.path.isdir(os.path.join(D, b)):
        agreement(rows(a), rows(b), name)

print("\n## declared vs counted limiter, warm rows of run `on` (cold rows keep the declared one)")
print("| scenario | warm rows | same limiter (or overlapping units) | flagged: limiter | flagged: DRAM bytes ±15 % | counted limiters | declared limiters |")
print("|---|---|---|---|---|---|---|")
by = collections.defaultdict(list)
for r in on:
    if r["mode"] == "warm":
        by[r["scenario"]].append(r)
for s, rr in sorted(by.items()):
    lf = sum("limiter: counted" in r["flags"] for r in rr)
    bf = sum("dram bytes:" in r["flags"] for r in rr)
    hc = collections.Counter(r["hw_limiter"] for r in rr).most_common(3)
    dc = collections.Counter(r["declared_limiter"] for r in rr).most_common(3)
    fmt = lambda c: ", ".join(f"{k} {v}" for k, v in c)
    print(f"| {s} | {len(rr)} | {len(rr) - lf} | {lf} | {bf} | {fmt(hc)} | {fmt(dc)} |")
