#!/usr/bin/env python3
"""callH: the int64 vkpeak-form variants at the full profile's iters (1024) and at 4x (4096),
beside vkpeak's int64-scalar before and after:  python3 int64_len.py CALLDIR"""
import csv, glob, gzip, os, sys

d = sys.argv[1]
vk = []
for f in sorted(glob.glob(os.path.join(d, 'vkpeak*.out*'))):
    for line in (gzip.open(f, 'rt') if f.endswith('.gz') else open(f)):
        if line.startswith('int64-scalar'):
            vk.append(float(line.split('=')[1].split()[0]))
best = max(vk)
print(f'vkpeak int64-scalar: {", ".join(f"{v:.0f}" for v in vk)} G/s')
print('| iters | variant | dispatch (ms) | ops / median (G/s) | ops / min (G/s) | / vkpeak (median, min) |')
print('|---|---|---|---|---|---|')
for it in (1024, 4096):
    for r in csv.DictReader(gzip.open(os.path.join(d, f'peak{it}', 'results.csv.gz'), 'rt')):
        if 'int64' not in r['variant']:
            continue
        ops, med, mn = float(r['int64_ops']), float(r['median_ns']), float(r['min_ns'])
        print(f"| {it} | {r['variant']} | {med / 1e6:.1f} | {ops / med:.0f} | {ops / mn:.0f} | "
              f"{ops / med / best:.4f}, {ops / mn / best:.4f} |")
