#!/usr/bin/env python3
"""The GEMM family's best SIMT variant per size against torch.matmul (fp32, TF32 off), from
a run-gemm.sh folder: python3 reports/nvidia-h200/gemm/table.py reports/nvidia-h200/gemm"""
import csv, gzip, os, sys
D = sys.argv[1]
rows = [r for r in csv.DictReader(gzip.open(os.path.join(D, "run", "results.csv.gz"), "rt"))
        if r["status"] == "ok" and r["mode"] == "warm"]
torch = {(r["dtype"], int(r["n"])): float(r["median_ns"]) for r in csv.DictReader(open(os.path.join(D, "torch.csv")))}
print("| n | best p3lab SIMT variant | median | TFLOP/s | hw_sm % | limiter (counted) | torch fp32 | TFLOP/s | p3lab / torch (throughput) |")
print("|---|---|---|---|---|---|---|---|---|")
for n in (512, 1024, 2048, 4096):
    mine = [r for r in rows if r["params"] == f"n={n}"]
    b = min(mine, key=lambda r: float(r["median_ns"]))
    t, tt = float(b["median_ns"]), torch[("float32", n)]
    fl = 2 * n ** 3
    print(f"| {n} | {b['variant']} | {t/1e3:.1f} us | {fl/t/1e3:.1f} | {float(b['hw_sm_pct']):.0f} | {b['hw_limiter']} | {tt/1e3:.1f} us | {fl/tt/1e3:.1f} | {tt/t:.2f} |")
