#!/usr/bin/env python3
"""The counted SM clock of every warm row beside nvidia-smi's clock changes, for both calls.

python3 reports/nvidia-h100/i26-clock/tables.py reports/nvidia-h100/i26-clock
"""
import csv, gzip, io, json, sys
from pathlib import Path

root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent)
for call in sorted(root.glob("call*")):
    print(f"## {call.name}")
    for run in sorted(p for p in call.iterdir() if (p / "results.csv.gz").exists()):
        rows = list(csv.DictReader(io.TextIOWrapper(gzip.open(run / "results.csv.gz"), "utf-8")))
        meta = json.load(gzip.open(run / "run.json.gz"))
        hw = meta.get("hw_counters", {})
        print(f"{run.name}: max counted clock {hw.get('max_sm_clock_mhz', 0):.0f} MHz, rows below it by > 3 %: {hw.get('throttled_rows')}")
        for r in rows:
            if r["mode"] != "warm":
                continue
            note = "clocked down: declared limiter" if "clocked down" in r["hw_reason"] else ""
            note = note or ("flagged throttled" if "throttled" in r["flags"] else "")
            print(f"  {r['scenario']:12.12} {r['variant']:30.30} {float(r['median_ns'])/1e3:10.2f} us  clock {float(r['hw_sm_clock_mhz'] or 0):7.1f} MHz  limiter {r['limiter']:10.10} {r['limiter_source']:8} {note}")
    smi = io.TextIOWrapper(gzip.open(call / "smi.csv.gz"), "utf-8")
    prev, changes = None, []
    for line in list(csv.reader(smi))[1:]:
        t, clk = line[0].split()[1], line[1].strip()
        if clk != prev:
            changes.append(f"{t} {clk}")
            prev = clk
    print("nvidia-smi (every 20 ms; clock changes): " + ", ".join(changes))
    print()
