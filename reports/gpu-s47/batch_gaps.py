#!/usr/bin/env python3
"""Issue 42: where a run's timed rounds leave the GPU idle, from its timeline trace
(`p3lab run --trace`): per batch (track 2, "batches (submissions)"), its repetitions' GPU
time (track 1) against the batch's host span, and the host time between one batch's end and
the next one's start. Prints medians and totals.

usage: batch_gaps.py TRACE.json[.gz]"""
import gzip, json, statistics, sys

path = sys.argv[1]
f = gzip.open(path, "rt") if path.endswith(".gz") else open(path)
ev = json.load(f)
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
batches = sorted((e for e in ev if e.get("ph") == "X" and e.get("tid") == 2), key=lambda e: e["ts"])
reps = sorted((e for e in ev if e.get("ph") == "X" and e.get("tid") == 1), key=lambda e: e["ts"])
# Repetitions inside each batch's span (microseconds).
i = 0
inside, spans, gaps = [], [], []
for k, b in enumerate(batches):
    start, end = b["ts"], b["ts"] + b["dur"]
    while i < len(reps) and reps[i]["ts"] < start:
        i += 1
    g = 0.0
    j = i
    while j < len(reps) and reps[j]["ts"] + reps[j]["dur"] <= end + 1:
        g += reps[j]["dur"]
        j += 1
    inside.append(g)
    spans.append(b["dur"])
    if k + 1 < len(batches):
        gaps.append(batches[k + 1]["ts"] - end)
print(f"batches {len(batches)}, repetitions {len(reps)}")
print(f"batch host span: median {statistics.median(spans):.0f} us, total {sum(spans)/1e6:.2f} s")
print(f"timed GPU time inside: median {statistics.median(inside):.0f} us, total {sum(inside)/1e6:.2f} s "
      f"({100*sum(inside)/sum(spans):.1f} % of the spans)")
print(f"host time between batches: median {statistics.median(gaps):.0f} us, total {sum(gaps)/1e6:.2f} s")
# Within a batch: from its start to the first repetition (recording, submission, untimed
# repetitions), between repetitions (barriers and timestamps on the GPU), and from the last
# repetition to the batch's end (the fence, the read-back).
lead, between, tail = [], [], []
i = 0
for b in batches:
    start, end = b["ts"], b["ts"] + b["dur"]
    while i < len(reps) and reps[i]["ts"] < start:
        i += 1
    j = i
    mine = []
    while j < len(reps) and reps[j]["ts"] + reps[j]["dur"] <= end + 1:
        mine.append(reps[j])
        j += 1
    if not mine:
        continue
    lead.append(mine[0]["ts"] - start)
    tail.append(end - (mine[-1]["ts"] + mine[-1]["dur"]))
    between.append(sum(mine[k + 1]["ts"] - (mine[k]["ts"] + mine[k]["dur"]) for k in range(len(mine) - 1)))
print(f"batch start to its first timed repetition: median {statistics.median(lead):.0f} us, total {sum(lead)/1e6:.2f} s")
print(f"between its timed repetitions (GPU): median {statistics.median(between):.0f} us, total {sum(between)/1e6:.2f} s")
print(f"last timed repetition to the batch's end: median {statistics.median(tail):.0f} us, total {sum(tail)/1e6:.2f} s")
