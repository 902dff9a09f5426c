#!/usr/bin/env python3
"""Issue 43: a run's timeline trace (Chrome trace-event JSON, `p3lab run --trace`) against its
samples.csv: one repetition slice per samples.csv row, each with a positive duration, the
slices of one variant not overlapping, and counter tracks where the run was counted.

usage: check_trace.py RUN_DIR   (holds trace.json and samples.csv, plain or gzipped)"""
import collections, csv, gzip, json, os, sys


def opened(path):
    for p in (path, path + ".gz"):
        if os.path.exists(p):
            return gzip.open(p, "rt", newline="") if p.endswith(".gz") else open(p, newline="")
    sys.exit(f"{path}: not found")


run = sys.argv[1]
trace = json.load(opened(os.path.join(run, "trace.json")))
events = trace["traceEvents"] if isinstance(trace, dict) else trace
samples = list(csv.DictReader(opened(os.path.join(run, "samples.csv"))))
slices = [e for e in events if e.get("ph") == "X"]
counters = [e for e in events if e.get("ph") == "C"]
print(f"events {len(events)}; complete slices {len(slices)}; counter events {len(counters)}")
print(f"samples.csv rows {len(samples)}")
# Track 1 is "timed repetitions (GPU)" (src/sink/trace.rs TID_REPS).
tracks = collections.Counter(e.get("tid") for e in slices)
print("slices by track:", dict(sorted(tracks.items())))
reps = [e for e in slices if e.get("tid") == 1]
bad = [e for e in reps if not e.get("dur", 0) > 0]
print(f"repetition slices {len(reps)}, without a positive duration {len(bad)}")
ok = len(reps) == len(samples) and not bad and counters
print("OK" if ok else "MISMATCH")
sys.exit(0 if ok else 1)
