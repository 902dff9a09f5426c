#!/usr/bin/env python3
"""callJ-callM (and reports/nvidia-h200/i26-int64/callL): p3lab's int64 rows beside vkpeak's
int64-scalar runs of the same call.  python3 int64_vkx.py CALLDIR
p3lab's rate is int64_ops / median_ns (by the fastest repetition in brackets); vkpeak's is the
fastest of its own 6 runs, host-timed (vkpeak.cpp)."""
import csv, glob, gzip, os, sys

def lines(f):
    return gzip.open(f, 'rt') if f.endswith('.gz') else open(f)

d = sys.argv[1]
vk = []
for f in sorted(glob.glob(os.path.join(d, 'vkpeak*.out*'))):
    for line in lines(f):
        if line.startswith('int64-scalar'):
            vk.append(float(line.split('=')[1].split()[0]))
best = max(vk)
print(f'vkpeak int64-scalar: {", ".join(f"{v:.1f}" for v in vk)} G/s (best {best:.1f})')
print('| run | variant | params | dispatch (ms) | G/s (fastest) | / best vkpeak |')
print('|---|---|---|---|---|---|')
for f in sorted(glob.glob(os.path.join(d, '*', 'results.csv*'))):
    run = os.path.basename(os.path.dirname(f))
    for r in csv.DictReader(lines(f)):
        v = r['variant']
        if not (v.startswith('int64-vkx') or v in ('int64-vk-wg128-c2', 'int64-vk-long-wg256-c2')):
            continue
        ops, med, mn = float(r['int64_ops']), float(r['median_ns']), float(r['min_ns'])
        print(f"| {run} | {v} | {r['params']} | {med / 1e6:.2f} | {ops / med:.1f} ({ops / mn:.1f}) | "
              f"{ops / med / best:.4f} |")
